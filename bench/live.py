"""Benchmark: the live loop on the recorded Icehouse game at 1920x1080 and 30 frames per second.

Also the bundled IceFloe recording (piecepack detector) for its loop speed and correctness.

Targets (one core): the loop runs at least twice as fast as real time (video seconds per second
of work, frame decoding included), and the median time from a piece being let go to its event
(video time until the frame that produced it, plus the work on that frame) is under 300 ms.

The 1080p recording is rendered from the bundled game's script into a cache folder on first
run (about a minute). Run: python bench/live.py [--cache DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)   # bench/vision.py shadows the package

from icetable.live.demo import Demo  # noqa: E402
from icetable.live.demo import bundled  # noqa: E402
from icetable.live.recording import END, HOLD, LEAVE, QUIET, REACH, make_recording  # noqa: E402
from icetable.live.scripts import icehouse_script  # noqa: E402
from webapp import create_app  # noqa: E402

SIZE, FPS = (1920, 1080), 30.0


def recording(cache: Path) -> Path:
    """The 1080p30 Icehouse recording, rendered once per version of the script and timings."""
    key = hashlib.sha1(repr((icehouse_script().steps, QUIET, REACH, HOLD, LEAVE, END)).encode()).hexdigest()[:10]
    folder = cache / f"icehouse-1080p30-{key}"
    if not (folder / "truth.json").is_file():
        started = time.perf_counter()
        make_recording(folder, icehouse_script(), size=SIZE, fps=FPS)
        print(f"rendered the 1080p recording in {time.perf_counter() - started:.0f} s")
    return folder


def played(folder: Path):
    """(demo, final state, wall seconds) of one recording played headless."""
    with tempfile.TemporaryDirectory() as data:
        app = create_app({"DATA_DIR": data, "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
        demo = Demo(app, folder, picture_every=None)
        started = time.perf_counter()
        state = demo.play()
        return demo, state, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "icetable-bench"))
    args = parser.parse_args()
    demo, state, wall = played(recording(Path(args.cache)))
    loop = demo.loop
    video = loop.frames / FPS
    steps = demo.truth["steps"]
    latencies = [1000 * (entry.t - step["let_go"] + entry.lag) for entry, step in zip(loop.log, steps)]
    per_frame = 1000 * loop.busy / max(1, loop.frames)
    right = [e.event["kind"] for e in loop.log] == [s["kind"] for s in steps]
    print(f"frames {loop.frames} ({video:.1f} s of video at {FPS:.0f} fps, {SIZE[0]}x{SIZE[1]}), "
          f"detector runs {loop.settler.reads}")
    print(f"loop speed: {video / loop.busy:.2f}x real time (target >= 2x); {per_frame:.1f} ms per frame "
          f"on average; wall {wall:.1f} s")
    print(f"let go -> event: median {statistics.median(latencies):.0f} ms, max {max(latencies):.0f} ms "
          f"over {len(latencies)} events (target median < 300 ms)")
    print("per event (ms): " + " ".join(f"{e['kind']}:{ms:.0f}" for e, ms in
                                        zip((x.event for x in loop.log), latencies)))
    print(f"events as recorded: {right}; final scores {state['game']['scores']} "
          f"(ground truth {demo.truth['final_scores']})")
    floe, state, wall = played(bundled("icefloe"))
    found = list({id(a): a for entry in floe.loop.log for a in entry.actions}.values())
    video = floe.loop.frames / floe.truth["fps"]
    print(f"IceFloe bundled recording ({floe.truth['size'][0]}x{floe.truth['size'][1]}, {floe.truth['fps']:.0f} fps, "
          f"piecepack detector): loop speed {video / floe.loop.busy:.2f}x real time, "
          f"{floe.loop.settler.reads} detector runs; actions as recorded: {found == floe.truth['actions']}; "
          f"final scores {state['game']['scores']} (ground truth {floe.truth['final_scores']})")


if __name__ == "__main__":
    main()
