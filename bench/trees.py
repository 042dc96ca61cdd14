"""Frame time of the detector at several commits, measured side by side (prints the figures).

    python bench/trees.py [REF ...] [--rounds 3] [--repeat 3] [--games icefloe,iceberg]
    python bench/trees.py 353d82b .      # the detector the vision issues name, and this tree

Each commit is checked out into a temporary git worktree and detects this tree's committed
1920x1080 sample frames in its own process, pinned to one core with one BLAS and OpenCV thread;
the commits take turns, round after round, so a noisy machine slows them alike. Per frame the
fastest CPU time over all runs counts; per game the median over its frames, and each commit's
ratio to the first commit named.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("icehouse", "icepirates", "icefloe", "iceberg")

# Run inside a worktree: time each frame named on stdin with that tree's detector.
CHILD = r"""
import json, sys, time
from icetable.threads import one_blas_thread
one_blas_thread()
import cv2
cv2.setNumThreads(1)
from calibration.calibfile import load
from vision.detector import Detector
jobs, repeat = json.load(sys.stdin), int(sys.argv[1])
out, detectors = {}, {}
for image, game, cal in jobs:
    detector = detectors.setdefault(cal, Detector(load(cal)))
    frame = cv2.imread(image)
    detector.detect(frame, game)            # first run warms caches and lazy loads
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        detector.detect(frame, game)
        best = min(best, time.process_time() - start)
    out[image] = best
json.dump(out, sys.stdout)
"""


def refuse(message: str) -> None:
    """One line on standard error and exit 2 (bad input)."""
    print(f"bench/trees.py: {message}", file=sys.stderr)
    raise SystemExit(2)


def frames(games) -> list[tuple[str, str, str]]:
    """(image, game, calibration) of each committed 1920x1080 sample frame of `games`."""
    import cv2
    from vision.evaluation import sample_images
    jobs = []
    for image, truth, _, cal in sample_images(ROOT / "sample_images", tuple(games)):
        if cv2.imread(str(image), cv2.IMREAD_REDUCED_GRAYSCALE_8).shape[:2] == (135, 240):
            jobs.append((str(image), truth.game, str(cal)))
    return jobs


def worktree(ref: str, parent: Path) -> Path:
    """A detached worktree of `ref` under `parent`; "." is this working tree as it is."""
    if ref == ".":
        return ROOT
    path = parent / ref.replace("/", "_")
    added = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path), ref],
                           capture_output=True, text=True)
    if added.returncode:
        refuse(f"{ref}: no such commit ({added.stderr.strip().splitlines()[-1]})")
    return path


def timed(tree: Path, jobs, repeat: int, core: int) -> dict[str, float]:
    """Fastest CPU seconds per frame with `tree`'s detector, in its own process on `core`."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    run = subprocess.run(["taskset", "-c", str(core), sys.executable, "-c", CHILD, str(repeat)],
                         input=json.dumps(jobs), capture_output=True, text=True, cwd=tree, env=env)
    if run.returncode:
        refuse(f"{tree.name}: {run.stderr.strip().splitlines()[-1]}")
    return json.loads(run.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("refs", nargs="*", default=["HEAD", "."],
                        help="commits to compare, . for this working tree (default: HEAD .); ratios are to the first")
    parser.add_argument("--rounds", type=int, default=3, help="turns each commit takes")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per frame and turn")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--core", type=int, default=0, help="the CPU core every run is pinned to")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"], capture_output=True).returncode:
        refuse(f"{ROOT} is not a git checkout of icetable: nothing to compare")
    jobs = frames(args.games.split(","))
    if not jobs:
        refuse(f"no 1920x1080 frames of {args.games} under {ROOT / 'sample_images'}")
    best: dict[str, dict[str, float]] = {ref: {} for ref in args.refs}
    with tempfile.TemporaryDirectory() as tmp:
        trees: dict[str, Path] = {}
        try:
            for ref in args.refs:
                trees[ref] = worktree(ref, Path(tmp))
            for n in range(args.rounds):
                for ref, tree in trees.items():
                    for image, t in timed(tree, jobs, args.repeat, args.core).items():
                        best[ref][image] = min(t, best[ref].get(image, t))
                print(f"round {n + 1} of {args.rounds} done", file=sys.stderr, flush=True)
        finally:
            for tree in set(trees.values()) - {ROOT}:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)])
    games = [g for g in args.games.split(",") if any(job[1] == g for job in jobs)]
    medians = {ref: {g: statistics.median(best[ref][image] for image, game, _ in jobs if game == g)
                     for g in games} for ref in args.refs}
    print(f"median CPU ms per 1920x1080 frame, one core, fastest of {args.rounds * args.repeat} runs per frame")
    print(f"{'commit':12s} " + " ".join(f"{g:>11s}" for g in games))
    first = medians[args.refs[0]]
    for ref in args.refs:
        print(f"{ref[:12]:12s} " + " ".join(f"{1000 * medians[ref][g]:11.1f}" for g in games))
        if ref != args.refs[0]:
            print(f"{'  ratio':12s} " + " ".join(f"{medians[ref][g] / first[g]:11.2f}" for g in games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
