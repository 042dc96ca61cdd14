"""The demo: a table of the web app, simulated phones, and the live loop playing a recording.

`Demo(app, folder)` creates the table (as its host), seats one simulated phone per player,
starts the game, and runs the live loop over the recording's video; phone actions the
recording lists (votes, rolls, picks) are made by the phones when the game asks them. At the end
of the video the host ends the game (the Icehouse timer's job at a real table) and the final
scores are read from the web app, as the table page shows them.
"""
from __future__ import annotations

from pathlib import Path

from flask import Flask

from calibration.calibfile import load as load_calibration
from icetable.live.build import live_loop
from icetable.live.link import InProcess, open_table
from icetable.live.recording import load_truth
from vision.sources import open_source

BUNDLED = Path(__file__).resolve().parent.parent / "recordings"


def bundled(game: str) -> Path:
    """The folder of the recording shipped for `game`."""
    return BUNDLED / game


class Demo:
    """One demo table playing one recording."""

    def __init__(self, app: Flask, folder: Path, picture_every: float | None = 0.4, video: Path | None = None,
                 read=None):
        self.app, self.folder = app, Path(folder)
        self.truth = load_truth(self.folder)
        self.code, token, self.host = open_table(app, self.truth["game"], self.truth["options"])
        self.phones = {}
        for side in self.truth["players"]:
            phone = app.test_client()
            phone.post(f"/t/{self.code}/join", json={"name": f"{side} player", "side": side})
            self.phones[side] = phone
        r = self.host.post(f"/t/{self.code}/host/start", json={"seed": self.truth.get("seed", 0)})
        if r.status_code != 201:
            raise RuntimeError(f"cannot start the demo game: {r.get_json()}")
        self.link = InProcess(app, self.code, token)
        cal = load_calibration(self.folder / "calibration.json")
        source = open_source(str(video or self.folder / "recording.mp4"))
        self.loop = live_loop(source, cal, self.truth["game"], self.truth["players"], self.link,
                              self.truth["options"], picture_every=picture_every, read=read)
        self.phone_actions = list(self.truth.get("phone", []))

    @property
    def table_url(self) -> str:
        return f"/t/{self.code}/table"

    def play(self, realtime: bool = False, speed: float = 1.0, stop=None, each=None) -> dict:
        """Run the recording to its end, end the game, and return the final state of the table;
        `each()`, when given, is called after every frame (to show progress)."""
        def between():
            self._phones()
            if each is not None:
                each()
        self.loop.run(realtime=realtime, speed=speed, stop=stop, between=between)
        self.host.post(f"/t/{self.code}/host/end", json={})
        return self.state()

    def _phones(self) -> None:
        """Each simulated phone makes its next recorded action as soon as the game asks for it."""
        while self.phone_actions:
            action = self.phone_actions[0]
            game = self.state().get("game") or {}
            if action["player"] not in game.get("to_act", []):
                return
            r = self.phones[action["player"]].post(f"/t/{self.code}/act", json=action)
            if r.status_code != 200:
                return
            self.phone_actions.pop(0)

    def state(self) -> dict:
        return self.host.get(f"/t/{self.code}/state").get_json()
