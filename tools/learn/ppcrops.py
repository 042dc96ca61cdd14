"""Extract labelled crops of the standing piecepack pieces (`vision.piecepack.standnet`) from
image sets with their truth.

    python -m tools.learn.ppcrops photoreal-dense/train ... -o ppcrops-train.npz

A set is a folder in the sample format (`vision.evaluation.sample_images`), as
`tools.photoreal.render --dense N --games icefloe` and `tools.photoreal.calibrate` write it.
Each frame goes through the detector's own top view (`vision.piecepack.pipeline.view_of`) with
its calibration, so the crops are what the network sees at run time. Each piece in view is
cropped `--jitter` times, moved about as a silhouette fit places it; as many crops of class
`none` are taken where no piece stands (the tiles' print, the cloth, beside pieces).
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import cv2
import numpy as np
from shapely.geometry import Point

from calibration.calibfile import CalibrationError, load
from referee.dimensions import DEFAULT
from referee.geometry import footprint
from vision.detector import Detector, FrameError
from vision.evaluation import sample_images
from vision.piecepack.pipeline import GAMES, view_of
from vision.piecepack.standnet import CLASSES, crop

STANDING = ("pp_pyramid", "die", "pawn")
JITTER_MM = 1.0
NONE_CLEAR_MM = 14.0       # a `none` crop's centre is at least this far from any standing piece


def label(piece) -> int:
    return CLASSES.index(piece.size if piece.type == "pp_pyramid" else piece.type)


def frame_crops(detector: Detector, frame, truth, hidden: set, rng: random.Random, jitter: int):
    """(crops, labels) of one frame."""
    view = view_of(detector, frame)
    tiles = [footprint(t, DEFAULT) for t in truth.pieces if t.type == "tile"]
    standing = [p for p in truth.pieces if p.type in STANDING]

    def z0(x: float, y: float) -> float:
        return DEFAULT.tile_thickness if any(t.contains(Point(x, y)) for t in tiles) else 0.0

    xs, labels = [], []
    for piece in standing:
        if piece.id in hidden:
            continue
        for _ in range(jitter):
            x, y = piece.x + rng.gauss(0, JITTER_MM), piece.y + rng.gauss(0, JITTER_MM)
            xs.append(crop(view, x, y, z0(piece.x, piece.y)))
            labels.append(label(piece))
    w, h = truth.area
    wanted, tries = len(xs) // 2, 0
    while wanted and tries < 50 * len(xs):
        tries += 1
        x, y = rng.uniform(10, w - 10), rng.uniform(10, h - 10)
        if all(np.hypot(p.x - x, p.y - y) >= NONE_CLEAR_MM for p in standing):
            xs.append(crop(view, x, y, z0(x, y)))
            labels.append(CLASSES.index("none"))
            wanted -= 1
    return xs, labels


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+")
    p.add_argument("--jitter", type=int, default=3, help="crops per piece")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--out", required=True)
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    xs, labels, sources = [], [], []
    for k, folder in enumerate(args.folders):
        detectors, frames = {}, 0
        for image, truth, hidden, cal_path in sample_images(Path(folder), GAMES):
            try:
                detector = detectors.get(cal_path) or detectors.setdefault(cal_path, Detector(load(cal_path)))
                x, lab = frame_crops(detector, cv2.imread(str(image)), truth, set(hidden), rng, args.jitter)
            except (CalibrationError, FrameError, FileNotFoundError) as exc:
                print(f"{image}: skipped ({str(exc).splitlines()[0]})", file=sys.stderr)
                continue
            xs += x
            labels += lab
            sources += [k] * len(x)
            frames += 1
        print(f"{folder}: {frames} frames, {len(xs)} crops so far", file=sys.stderr)
    np.savez_compressed(args.out, x=np.stack(xs).astype(np.float16), label=np.array(labels, np.int8),
                        source=np.array(sources, np.int16), folders=np.array(args.folders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
