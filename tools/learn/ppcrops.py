"""Extract labelled crops of the standing piecepack pieces (`vision.piecepack.standnet`) from
image sets with their truth.

    python -m tools.learn.ppcrops photoreal-dense/train ... -o ppcrops-train.npz

A set is a folder in the sample format (`vision.evaluation.sample_images`), as
`tools.photoreal.render --dense N --games icefloe` and `tools.photoreal.calibrate` write it.
Each frame goes through the detector's own top view (`vision.piecepack.pipeline.view_of`) with
its calibration, so the crops are what the network sees at run time. Each piece in view is
cropped `--jitter` times, moved about as a silhouette fit places it; crops of class `none` are
taken at each coin (its print may pass for a piece) and, half as many again as there are
crops, where no piece stands (the tiles' print, the cloth, beside pieces).
"""
from __future__ import annotations

import random
import sys

import numpy as np
from shapely.geometry import Point

from referee.dimensions import DEFAULT
from referee.geometry import footprint
from tools.learn import sets
from vision.detector import Detector
from vision.piecepack.pipeline import GAMES, view_of
from vision.piecepack.standnet import CLASSES, NONE, crop

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
    for coin in truth.of_type("coin"):          # coins, whose print the detector may take for a piece
        if coin.id not in hidden:
            xs.append(crop(view, coin.x + rng.gauss(0, JITTER_MM), coin.y + rng.gauss(0, JITTER_MM),
                           z0(coin.x, coin.y)))
            labels.append(NONE)
    w, h = truth.area
    wanted, tries = len(xs) // 2, 0
    while wanted and tries < 50 * len(xs):
        tries += 1
        x, y = rng.uniform(10, w - 10), rng.uniform(10, h - 10)
        if all(np.hypot(p.x - x, p.y - y) >= NONE_CLEAR_MM for p in standing):
            xs.append(crop(view, x, y, z0(x, y)))
            labels.append(NONE)
            wanted -= 1
    return xs, labels


def main(argv=None) -> int:
    args = sets.arguments(__doc__.splitlines()[0], argv)
    rng = random.Random(args.seed)
    (xs, labels), sources = sets.gather(
        args.folders, GAMES, Detector,
        lambda detector, frame, truth, hidden: frame_crops(detector, frame, truth, hidden, rng, args.jitter))
    np.savez_compressed(args.out, x=np.stack(xs).astype(np.float16), label=np.array(labels, np.int8),
                        source=np.array(sources, np.int16), folders=np.array(args.folders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
