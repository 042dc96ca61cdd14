"""Detection accuracy and speed over every image of sample_images/ (prints the figures).

    python bench/vision.py [--images sample_images] [--repeat 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)     # this file is named like the `vision` package it measures
from icetable.threads import one_blas_thread  # noqa: E402

one_blas_thread()       # one thread, as the figures say

import cv2  # noqa: E402

from calibration.calibfile import CalibrationError, load  # noqa: E402
from calibration.homography import find_markers, fit_plane  # noqa: E402
from calibration.paleness import PALE_TABLE, table_paleness  # noqa: E402
from referee.scene import SceneError  # noqa: E402
from vision.detector import Detector, FrameError  # noqa: E402
from vision.evaluation import Score, percentile, sample_images, score  # noqa: E402
from vision.piecepack.evaluation import GAMES as PIECEPACK_GAMES, bench as piecepack_bench  # noqa: E402


def table_kind(frame, calibration) -> str:
    """'accepted' or 'warned': whether `icetable calibrate` warns that this table is too pale."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    fit = fit_plane(calibration.layout, find_markers(gray), calibration.K, calibration.dist)
    paleness = table_paleness(frame, fit, calibration.layout)
    return "warned" if paleness is not None and paleness > PALE_TABLE else "accepted"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", default=str(ROOT / "sample_images"))
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per 1920x1080 frame")
    parser.add_argument("--verbose", action="store_true", help="print each image's score")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    total, times, failed = Score(), [], 0
    by_table = {"accepted": Score(), "warned": Score()}
    detectors = {}
    for image_path, truth, hidden, cal_path in sample_images(Path(args.images)):
        if truth.game in PIECEPACK_GAMES:     # scored below, on their own fields
            continue
        detector = detectors.setdefault(cal_path, Detector(load(cal_path)))
        frame = cv2.imread(str(image_path))
        try:
            detected = detector.detect(frame, truth.game)
        except FrameError as exc:
            print(f"{image_path.name}: {exc}")
            failed += 1
            continue
        s = score(truth, detected, hidden)
        total.add(s)
        by_table[table_kind(frame, detector.calibration)].add(s)
        if args.verbose or not s.images_right:
            print(f"{image_path.name}: {s.all_right}/{s.pieces} right, {s.extra} extra")
        if frame.shape[1] == 1920 and frame.shape[0] == 1080:
            for _ in range(args.repeat):
                start, cpu = time.perf_counter(), time.process_time()
                detector.detect(frame, truth.game)
                times.append((time.perf_counter() - start, time.process_time() - cpu))
    print(f"images: {total.images} ({failed} refused), visible pieces: {total.pieces}")
    for name in ("colour", "size", "pose", "all_right"):
        print(f"per-piece accuracy {name:9s}: {100 * total.rate(name):6.2f} %  (target >= 99.5 %)")
    print(f"extra detections: {total.extra}")
    print(f"images entirely right: {100 * total.images_right / max(1, total.images):.1f} %  (target >= 90 %)")
    for kind, part in by_table.items():
        print(f"  tables calibrate {'accepts' if kind == 'accepted' else 'warns about (pale)'}: "
              f"{part.images} images, {part.pieces} pieces, all right {100 * part.rate('all_right'):.2f} %, "
              f"images entirely right {100 * part.images_right / max(1, part.images):.1f} %")
    print(f"position error mm: median {percentile(total.position_mm, 50):.2f}, "
          f"95th {percentile(total.position_mm, 95):.2f}  (target median <= 2 mm)")
    print(f"heading error deg: median {percentile(total.heading_deg, 50):.2f}, "
          f"95th {percentile(total.heading_deg, 95):.2f}  (target <= 5 deg)")
    if total.cards:
        print(f"home cards: {total.cards_found}/{total.cards} found, {total.card_owner} with the right owner, "
              f"{total.card_extra} extra; centre error mm: median {percentile(total.card_position_mm, 50):.2f}, "
              f"95th {percentile(total.card_position_mm, 95):.2f}; angle error deg: median "
              f"{percentile(total.card_angle_deg, 50):.2f}, max {max(total.card_angle_deg, default=float('nan')):.2f}")
    if times:
        wall, cpu = (sorted(t[k] for t in times) for k in (0, 1))
        print(f"time per 1920x1080 frame, one thread: median {1000 * statistics.median(wall):.1f} ms "
              f"(CPU {1000 * statistics.median(cpu):.1f} ms, 90th percentile {1000 * cpu[int(0.9 * len(cpu))]:.1f} ms), "
              f"best {1000 * wall[0]:.1f} ms over {len(times)} runs  (target < 100 ms; "
              f"the wall-clock median grows when other work shares the cores)")
    piecepack_bench(Path(args.images), args.repeat)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (SceneError, CalibrationError) as exc:     # a bad truth or calibration file
        sys.exit(f"bench/vision.py: {exc}")
