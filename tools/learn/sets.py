"""What the crop extractors share: their command line, and the frames of sample-format sets
read with each frame's calibration."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2

from calibration.calibfile import CalibrationError, load
from vision.detector import FrameError
from vision.evaluation import sample_images


def arguments(description: str, argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("folders", nargs="+")
    p.add_argument("--jitter", type=int, default=3, help="crops per piece")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--out", required=True)
    return p.parse_args(argv)


def gather(folders: list[str], games: tuple, detector_of, read) -> tuple[list[list], list[int]]:
    """`read(detector, frame, truth, hidden ids)` gives (crops, labels, ...) of one frame; for
    every frame of the sets in `folders`, read with its calibration's detector (`detector_of`),
    those lists joined, and each crop's folder index. Frames that cannot be read are skipped
    with a line on standard error; SystemExit when no crop is left."""
    columns: list[list] = []
    sources: list[int] = []
    for k, folder in enumerate(folders):
        detectors, frames = {}, 0
        for image, truth, hidden, cal_path in sample_images(Path(folder), games):
            try:
                detector = detectors.get(cal_path) or detectors.setdefault(cal_path, detector_of(load(cal_path)))
                got = read(detector, cv2.imread(str(image)), truth, set(hidden))
            except (CalibrationError, FrameError, FileNotFoundError) as exc:
                print(f"{image}: skipped ({str(exc).splitlines()[0]})", file=sys.stderr)
                continue
            columns = [list(c) for c in got] if not columns else [a + list(b) for a, b in zip(columns, got)]
            sources += [k] * len(got[0])
            frames += 1
        print(f"{folder}: {frames} frames, {len(sources)} crops so far", file=sys.stderr)
    if not sources:
        raise SystemExit(f"no crops: no frame of {', '.join(folders)} could be read")
    return columns, sources
