"""The live loop: frames -> settled scenes -> events -> referee -> web app.

One `LiveLoop.step()` takes one frame from the source. Camera trouble goes to the table page
(and nothing else changes: the game state is never touched by a bad frame). A settled reading
becomes tracker events; the judge turns them into actions and warnings; the loop posts the
scene (with the camera's warnings) to the web app, and now and then the picture and overlay.
Everything that happened is kept in `log` with the source time of its frame and the time spent
on that frame, for tests and the benchmark.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from icetable.live.judges import TurnJudge
from icetable.live.link import LinkError
from icetable.live.overlay import marks, pirate_areas, shapes
from vision.settle import Settler
from vision.tracking import Event, Tracker

PICTURE_WIDTH = 960
CONTACT_EVERY = 1.0      # seconds between status posts when no picture is sent
IDLE = 0.05              # seconds to wait after a grab that gave no frame


@dataclass
class Logged:
    """One event as the loop emitted it: the frame's source time `t`, the seconds spent on that
    frame `lag`, the tracker event, and what the referee made of it."""

    t: float
    lag: float
    event: dict
    actions: list = field(default_factory=list)
    warnings: list = field(default_factory=list)


class LiveLoop:
    """Run with `step()` per frame or `run()`; `project` maps table mm to frame pixels; the
    picture goes to the table page every `picture_every` seconds of wall time."""

    def __init__(self, source, settler: Settler, tracker: Tracker, judge, link, game: str,
                 project=None, picture_every: float | None = 0.4):
        self.source, self.settler, self.tracker, self.judge, self.link = source, settler, tracker, judge, link
        self.game, self.project, self.picture_every = game, project, picture_every
        self.log: list[Logged] = []
        self.frames = 0
        self.busy = 0.0                  # seconds spent in step()
        self.status = ("starting", "")
        self.last_picture = -1e9
        self.last_contact = -1e9
        self.warnings: list[dict] = []
        self.report: dict = {}
        self.last_scene = None
        self.seen = None                 # the table as the camera last saw it (refused pieces too)
        self.waiting: list[Event] = []     # events not judged yet (hands still over the table)
        # turn games are judged on the whole table, with every hand gone
        self.whole_table = isinstance(judge, TurnJudge)
        self._areas: tuple[dict, dict] = ({}, {})
        self.frame: np.ndarray | None = None

    # -- one frame --------------------------------------------------------------------
    def step(self) -> bool:
        """Process one frame; False when the source has ended."""
        start = time.perf_counter()
        grab = self.source.grab()
        if grab.status == "ended":
            return False
        if grab.frame is None:
            self._status(grab.status, grab.message)
            self.busy += time.perf_counter() - start
            time.sleep(IDLE)             # a camera in trouble: do not spin while it is retried
            return True
        self.frames += 1
        reading = self.settler.step(grab.frame)
        self._status(reading.status if reading.status != "bumped" else "ok",
                     reading.message or "")
        if reading.updated and reading.scene is not None:
            events = self.tracker.update(reading.scene)
            if self.tracker.holding:
                self.settler.recheck()
            self.waiting += events
            if self.waiting and (reading.blocked == 0 or not self.whole_table):
                events, self.waiting = self.waiting, []
                self._judge(events, reading.scene, grab.t, start)
        elif self.waiting and reading.blocked == 0 and not self.settler.force:
            self.settler.recheck()        # the hands have left: read the whole table, then judge
        if self.picture_every is not None and time.monotonic() - self.last_picture >= self.picture_every:
            self._picture(grab.frame)
        elif time.monotonic() - self.last_contact >= CONTACT_EVERY:
            self._send(*self.status)          # no picture wanted: still hear the host's corrections
        self.frame = grab.frame
        self.busy += time.perf_counter() - start
        return True

    def run(self, realtime: bool = False, speed: float = 1.0, stop=None, between=None) -> None:
        """Step until the source ends (or `stop` is set); `realtime` paces a file to its clock
        (times `speed`); `between()` is called after every frame."""
        began = time.monotonic()
        while stop is None or not stop.is_set():
            if not self.step():
                break
            if between is not None:
                between()
            if realtime and not getattr(self._inner(), "live", True):
                ahead = self.settler.frames / (self._fps() * speed) - (time.monotonic() - began)
                if ahead > 0:
                    time.sleep(ahead)
        self.finish()

    def _inner(self):
        """The source itself, inside its watcher."""
        return getattr(self.source, "source", self.source)

    def _fps(self) -> float:
        return getattr(self._inner(), "fps", 30.0) or 30.0

    # -- the referee ------------------------------------------------------------------
    def _judge(self, events: list[Event], settled, t: float, start: float) -> None:
        tracked = self.tracker.scene(settled)
        match = self.link.match() if isinstance(self.judge, TurnJudge) else None
        outcome = self.judge.judge(events, tracked, match)
        if outcome.recheck:
            self.settler.recheck()
        warnings = list(outcome.warnings)
        for action in outcome.actions if isinstance(self.judge, TurnJudge) else ():
            try:
                verdict = self.link.act(action)
                warnings += verdict.get("warnings", [])
            except LinkError as exc:
                warnings.append({"code": "camera_action_refused", "message": str(exc)})
        scene = outcome.scene or tracked
        self.last_scene, self.seen = scene, tracked
        if self.game == "icepirates" and self.picture_every is not None:
            self._areas = pirate_areas(scene)
        self.warnings = warnings
        body = {**scene.to_dict(), "camera_warnings": warnings}
        try:
            self.report = self.link.post_scene(body)
        except LinkError as exc:
            self.report = {"warnings": [{"code": "scene_refused", "message": str(exc)}]}
        lag = time.perf_counter() - start
        for e in events:
            self.log.append(Logged(t, lag, e.to_dict(), outcome.actions, warnings))

    # -- the table page ---------------------------------------------------------------
    def _status(self, status: str, message: str) -> None:
        if (status, message) != self.status:
            self.status = (status, message)
            self._send(status, message)

    def _send(self, *args) -> None:
        """Send to the table page; a refused post (the app busy) is simply tried again later."""
        self.last_contact = time.monotonic()
        try:
            self._apply_corrections(self.link.camera(*args))
        except LinkError:
            pass

    def finish(self) -> None:
        """Send the last picture and overlay (the end of a recording)."""
        if self.frame is not None and self.picture_every is not None:
            self._picture(self.frame)

    def _picture(self, frame: np.ndarray) -> None:
        self.last_picture = time.monotonic()
        scale = min(1.0, PICTURE_WIDTH / frame.shape[1])
        small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame
        ok, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 75])
        overlay = {"warnings": self.report.get("warnings", [])}
        if self.project is not None and self.last_scene is not None and self.settler.H is not None:
            project = lambda pts: self.project(pts, self.settler.H) * scale   # noqa: E731
            crashes = [w for w in self.warnings if w.get("code") == "crash"]
            report, cannons = self._areas if self.game == "icepirates" else (self.report, None)
            overlay["shapes"] = shapes(self.last_scene, report, project, crashes, cannons) + \
                marks(self.report.get("warnings", []), self.seen or self.last_scene, project)
        self._send(self.status[0], self.status[1], overlay, jpeg.tobytes() if ok else None,
                   (small.shape[1], small.shape[0]))

    def _apply_corrections(self, corrections: list[dict]) -> None:
        """The host's word on a piece: confirmed pieces lose their doubt, corrected ones change."""
        for fix in corrections:
            piece = self.tracker.pieces.get(fix["id"])
            if piece is None:
                continue
            fields = {k: v for k, v in fix.items() if k not in ("id", "confirm")}
            fixed = replace(piece, **fields, confidence=1.0, extra={**piece.extra, "uncertain": False,
                                                                    "confirmed": True})
            self.tracker.pieces[fix["id"]] = fixed
            if hasattr(self.judge, "correct"):
                self.judge.correct(piece, fixed)
            if self.last_scene is not None:
                self._judge([Event("corrected", fixed, piece)], self.last_scene, 0.0, time.perf_counter())
