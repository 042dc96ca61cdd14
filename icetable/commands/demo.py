"""`icetable demo`: the whole product on a bundled recorded game, no camera needed."""
from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

from icetable import checks
from icetable.cli import UserError
from icetable.commands.live import server_options, start_server

GAMES = ("icehouse", "icefloe")


def register(sub) -> None:
    p = sub.add_parser("demo", help="play a recorded game through the camera referee to the phones")
    p.add_argument("--game", choices=GAMES, default="icehouse", help="which recording (default icehouse)")
    p.add_argument("--recording", help="a recording folder (recording.mp4, calibration.json, truth.json) "
                   "instead of a bundled one")
    p.add_argument("--no-serve", action="store_true",
                   help="no web server: play as fast as possible, print the events and final scores")
    p.add_argument("--until-end", action="store_true", help="stop serving once the game is over")
    p.add_argument("--speed", type=float, default=1.0, help="playback speed when serving (default 1.0, up to 100)")
    server_options(p)
    p.set_defaults(run=run)


def _folder(args) -> Path:
    from icetable.live.demo import bundled
    folder = Path(args.recording) if args.recording else bundled(args.game)
    missing = [n for n in ("recording.mp4", "calibration.json", "truth.json") if not (folder / n).is_file()]
    if missing:
        raise UserError(f"{folder}: not a recording (missing {', '.join(missing)})")
    return folder


def run(args) -> int:
    checks.number("--speed", args.speed, 0.01, 100.0)
    folder = _folder(args)
    from icetable.commands.serve import open_app
    from icetable.live.demo import Demo

    app = open_app(args)
    served = None if args.no_serve else start_server(app, args)    # the port checked before a table is stored
    try:
        demo = Demo(app, folder, picture_every=None if args.no_serve else 0.4)
    except (ValueError, RuntimeError) as exc:
        raise checks.named(folder, exc) from None
    if served is None:
        print("playing the recording as fast as it reads (each event as it happens):", file=sys.stderr, flush=True)
        demo.play(each=_Events(demo))
        return _report(demo)
    return _serve(demo, args, *served)


class _Events:
    """Prints the live loop's events as they are logged (called after every frame)."""

    def __init__(self, demo):
        self.log, self.shown = demo.loop.log, 0

    def __call__(self) -> None:
        for entry in self.log[self.shown:]:
            e = entry.event
            codes = ", ".join(sorted({w["code"] for w in entry.warnings}))
            print(f"{entry.t:7.2f}s  {e['kind']:8} {e['id']:10} {_what(e['piece'])}"
                  + (f"  warnings: {codes}" if codes else ""), flush=True)
        self.shown = len(self.log)


def _serve(demo, args, clock, public: str) -> int:
    from webapp.pages import qr_text

    page = f"{public}{demo.table_url}"
    print(f"icetable demo: table page {page}\ncamera view {public}/t/{demo.code}/camera/view\n"
          f"watch on a phone (the simulated players hold every seat):\n{qr_text(page)}", flush=True)
    try:
        demo.play(realtime=True, speed=args.speed, each=_Events(demo))
        status = _report(demo)
        if args.until_end:
            time.sleep(2.0)          # let the phones and the table page show the final scores
            return status
        print("the game is over; the server keeps running (Ctrl-C stops it)", file=sys.stderr, flush=True)
        threading.Event().wait()
    finally:
        clock.set()
    return 0


def _report(demo) -> int:
    """Print the final scores; 0 when they are the recording's ground truth."""
    state = demo.state()
    scores = state["game"]["scores"] if state.get("game") else {}
    truth = demo.truth["final_scores"]
    same = scores == truth
    print(f"final scores: {json.dumps(scores)}  (recording's ground truth: {json.dumps(truth)}"
          f"{', matched' if same else ', DIFFERENT'})", flush=True)
    if not same:
        print("icetable demo: the camera referee did not reach the recorded final scores", file=sys.stderr)
    return 0 if same else 1


def _what(piece: dict) -> str:
    """'red 3 lying heading 90 at (120, 80)', 'suns 2 tile up at (50, 50)'."""
    words = [str(piece[k]) for k in ("color", "suit", "size", "rank") if k in piece]
    if piece["type"] != "pyramid":
        words.append(piece["type"])
    words += [piece[k] for k in ("pose", "face") if k in piece]
    if "heading" in piece:
        words.append(f"heading {piece['heading']:.0f}")
    return " ".join(words) + f" at ({piece['x']:.0f}, {piece['y']:.0f})"
