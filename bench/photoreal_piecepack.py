"""Piecepack accuracy on photoreal images, by piece kind, edition and condition.

    python bench/photoreal_piecepack.py --images photoreal-pp/test [--verbose]

The images come from `tools/photoreal` (`--games icefloe,iceberg`: each session prints its own
edition of the piecepack) and are calibrated by `tools.photoreal.calibrate`, which enrols the
session's pieces from its three enrolment photos as a user would. A piece is entirely right when
it is found (within 15 mm) with every field its type carries right: a tile's face, and its suit
and rank when up; a coin's face and the side it shows; a die's suit and rank; a pawn's suit; a
piecepack pyramid's suit and letter. Frames whose session calibrate refused, or that the detector
refuses, count as wrong with all their pieces.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)     # bench/ is not a package
from icetable.threads import one_blas_thread  # noqa: E402

one_blas_thread()

import cv2  # noqa: E402

from calibration.calibfile import CalibrationError, load  # noqa: E402
from referee.scene import Scene  # noqa: E402
from vision.detector import Detector, FrameError  # noqa: E402
from vision.evaluation import Tally, sample_images  # noqa: E402
from vision.piecepack.evaluation import GAMES, Score, floes, score  # noqa: E402

CONDITIONS = ("edition", "light", "table", "lens")


def kind_of(piece) -> str:
    return f"tile {piece.face}" if piece.type == "tile" else piece.type


def _detect(detectors: dict, cal_path: Path, frame, truth: Scene, times: list) -> Scene:
    """The detected scene, or an empty one (with the reason printed) when it is refused."""
    try:
        detector = detectors.get(cal_path) or detectors.setdefault(cal_path, Detector(load(cal_path)))
        start = time.process_time()
        detected = detector.detect(frame, truth.game)
        times.append(time.process_time() - start)
        return detected
    except (CalibrationError, FrameError, FileNotFoundError) as exc:
        print(f"refused: {str(exc).splitlines()[0]}")
        return Scene(truth.game, (), truth.area)


def measure(folder: Path, verbose: bool) -> tuple[Score, dict, list, list, list]:
    """Scores, tallies by kind and condition, detect times, IceFloe floes (right, total) and
    detections flagged uncertain on frames with no arm (flagged, total)."""
    total, groups, times, floe_counts, detectors = Score(), defaultdict(Tally), [], [0, 0], {}
    flags = [0, 0]      # detections flagged uncertain, and all detections, on frames with no arm
    for image_path, truth, hidden, cal_path in sample_images(folder, GAMES):
        info = truth.extra["render"]
        conditions = {k: info.get(k, "-") for k in CONDITIONS}
        detected = _detect(detectors, cal_path, cv2.imread(str(image_path)), truth, times)
        outcomes = []
        s = score(truth, detected, hidden, outcomes)
        total.add(s)
        for name, value in conditions.items():
            groups[name].add(value, bool(s.images_right))
        for piece, ok in outcomes:
            groups["kind"].add(kind_of(piece), ok)
            groups["piece edition"].add(conditions["edition"], ok)
            groups["piece light"].add(conditions["light"], ok)
            groups["piece table"].add(conditions["table"], ok)
        if not info.get("arms"):
            flags[0] += sum(bool(p.extra.get("uncertain")) for p in detected.pieces)
            flags[1] += len(detected.pieces)
        if truth.game == "icefloe" and not info.get("arms"):
            floe_counts[0] += floes(truth) == floes(detected)
            floe_counts[1] += 1
        right = sum(ok for _, ok in outcomes)
        if verbose or not s.images_right:
            print(f"{image_path.name}: {right}/{len(outcomes)} right, {s.extra} extra; "
                  + "; ".join(s.mistakes[:12]) + (" ..." if len(s.mistakes) > 12 else ""))
    return total, groups, times, floe_counts, flags


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", default=str(ROOT / "photoreal-pp" / "test"),
                        help="a photoreal split folder of piecepack sessions")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    total, groups, times, (floes_right, floes_total), (flagged, seen) = measure(Path(args.images), args.verbose)
    kinds = groups["kind"]
    right, pieces = sum(kinds.right.values()), sum(kinds.total.values())
    print(f"photoreal {args.images}: {total.images} images, {pieces} pieces: entirely right "
          f"{100 * right / max(1, pieces):.1f} %, images entirely right "
          f"{100 * total.images_right / max(1, total.images):.1f} %, missed {total.missing}, extra {total.extra}")
    print(f"IceFloe floes and weights as in the truth (no arm over the table): {floes_right} of {floes_total}")
    print(f"detections flagged uncertain on frames with no arm: {flagged} of {seen}")
    for name in ("kind", "piece edition", "piece light", "piece table"):
        print(f"pieces by {name}:")
        print("\n".join(groups[name].lines("")))
    for name in CONDITIONS:
        print(f"images entirely right by {name}:")
        print("\n".join(groups[name].lines("")))
    if total.position_mm:
        print(f"position error: median {statistics.median(total.position_mm):.2f} mm")
    if times:
        print(f"detect time per frame (CPU, one thread): median {1000 * statistics.median(times):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
