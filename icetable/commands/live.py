"""`icetable live`: the camera referee at a real table, with the phone app."""
from __future__ import annotations

import sys
import threading
import time

from icetable.cli import UserError

GAMES = ("icehouse", "icefloe", "iceberg", "icepirates")


def register(sub) -> None:
    p = sub.add_parser("live", help="referee a real table: a camera watches, the phones hear")
    p.add_argument("--game", choices=GAMES, required=True)
    p.add_argument("--calibration", required=True, help="calibration file from `icetable calibrate`")
    p.add_argument("--camera", default="0",
                   help="camera index, device path, video file, folder of images, or 'phone' "
                        "(a phone streams from the page the host opens at /t/CODE/camera)")
    server_options(p)
    p.set_defaults(run=run)


def server_options(p) -> None:
    """The web server's options (read by `serve.open_app`)."""
    p.add_argument("--host", "--bind", dest="host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument("--data-dir", default="icetable-data", help="folder of the SQLite store (default ./icetable-data)")
    p.add_argument("--public-url", help="base URL phones use (default: this machine's LAN address)")


def start_server(app, args) -> tuple[threading.Event, str]:
    """Serve `app` on --host/--port from a background thread, with the Icehouse timers' clock:
    (the clock's stop event, the base URL phones use)."""
    from icetable.commands.serve import listen
    from webapp import start_clock
    from webapp.serving import serve
    server, public = listen(app, args)
    threading.Thread(target=serve, args=(server,), name="icetable-server", daemon=True).start()
    return start_clock(app), public


def _source(spec: str):
    """The camera named by --camera (checked before the store is opened)."""
    from vision.feeds import PushSource
    from vision.sources import FrameSourceError, open_source
    if spec == "phone":
        return PushSource()
    try:
        return open_source(spec)
    except FrameSourceError as exc:
        raise UserError(f"--camera {spec}: {exc}") from None


def _missing(source, spec: str) -> None:
    """Say on the terminal that the camera is not there (yet): the loop waits for it."""
    cap = getattr(source, "cap", None)
    if cap is not None and not cap.isOpened():
        print(f"--camera {spec}: no camera there yet; waiting for one to be plugged in "
              f"(the table page shows the camera's status)", file=sys.stderr, flush=True)


def run(args) -> int:
    from calibration.calibfile import CalibrationError, load
    from icetable.commands.serve import open_app
    from icetable.live.build import live_loop
    from icetable.live.link import InProcess, open_table
    from webapp.pages import qr_text

    try:
        cal = load(args.calibration)
    except CalibrationError as exc:
        raise UserError(str(exc)) from None
    source = _source(args.camera)
    app = open_app(args)
    clock, public = start_server(app, args)      # the port is checked before a table is stored
    code, token, host = open_table(app, args.game)
    link = InProcess(app, code, token)
    if args.camera == "phone":
        link.phone_frames(source.push)
    join = f"{public}/t/{code}"
    print(f"icetable live: join at {join}\n{qr_text(join)}", flush=True)
    print(f"host (open on this laptop): {join}/camera/host?token={token}\n"
          f"phone as the camera: {join}/camera", file=sys.stderr, flush=True)
    _missing(source, args.camera)
    try:
        while True:
            print(f"waiting for the host to start a game at {join} ...", file=sys.stderr, flush=True)
            players = _wait_for_game(host, code)
            print(f"game started: {', '.join(players)}", file=sys.stderr, flush=True)
            loop = live_loop(_Checked(source, cal, args.calibration, args.game), cal, args.game, players, link)
            loop.run(realtime=True, stop=_over(host, code))
            if getattr(source, "live", True) is False:
                print("the video has ended; the server keeps running (Ctrl-C stops it)", file=sys.stderr)
                threading.Event().wait()
    finally:
        clock.set()


def _wait_for_game(host, code: str) -> list[str]:
    """Block until the host starts a game; its players."""
    while True:
        game = host.get(f"/t/{code}/state").get_json().get("game")
        if game and game["status"] == "playing":
            return game["players"]
        time.sleep(0.5)


class _over:
    """A stop flag for the loop: set once the table's game is over (checked once a second)."""

    def __init__(self, host, code: str):
        self.host, self.code, self.checked, self.done = host, code, 0.0, False

    def is_set(self) -> bool:
        if not self.done and time.monotonic() - self.checked > 1.0:
            self.checked = time.monotonic()
            game = self.host.get(f"/t/{self.code}/state").get_json().get("game") or {}
            self.done = game.get("status") != "playing"
        return self.done


class _Checked:
    """The camera source, which warns on the terminal, once each, where the calibration does not
    fit its first picture (another camera's size or lens, another mat) and where the first
    picture the detector can read does not look like the game (`vision.lookalike`)."""

    def __init__(self, source, calibration, name: str, game: str):
        from vision.detector import Detector
        self.source, self.calibration, self.name_of_file, self.game = source, calibration, name, game
        self.detector = Detector(calibration)
        self.checked = self.game_checked = False

    def grab(self):
        grab = self.source.grab()
        if grab.frame is not None and not self.checked:
            from calibration.fitness import misfits
            self.checked = True
            for line in misfits(self.calibration, grab.frame):
                _warn(f"{self.name_of_file}: {line}")
        if grab.frame is not None and not self.game_checked:
            self._check_game(grab.frame)
        return grab

    def _check_game(self, frame) -> None:
        """Warn if the frame does not look like the game; a frame the detector cannot read (no
        mat yet, a hand over it) leaves the check to the next one."""
        from vision.detector import FrameError
        from vision.lookalike import unlike
        try:
            scene = self.detector.detect(frame, self.game)
        except FrameError:
            return
        self.game_checked = True
        hint = unlike(self.detector, frame, self.game, scene)
        if hint:
            _warn(f"--game {self.game}: {hint}")

    def __getattr__(self, name):
        return getattr(self.source, name)


def _warn(line: str) -> None:
    print(f"icetable live: warning: {line}", file=sys.stderr, flush=True)
