"""Extract labelled crops of every visible pyramid from image sets with their truth.

    python -m tools.learn.crops photoreal/train fast/60000-icehouse ... -o crops-train.npz

A set is a folder in the sample format (an image, its truth scene naming a calibration file,
`vision.evaluation.sample_images`): the committed samples' format, `icetable render --samples`,
and the photoreal generator after `tools.photoreal.calibrate`. Each frame goes through the
detector's own front end (`Detector.look`: the mat, the top view, the segmentation) with its
calibration, so the crops are what the network will see at run time; each piece is cropped at
its true place `--jitter` times, moved and turned a little as a detection would be.
"""
from __future__ import annotations

import random
import sys

import numpy as np

from tools.learn import sets
from vision.colournet import COLOURS, NONE, SIZES, centre_and_turn, crop
from vision.detector import Detector
from vision.evaluation import match_nearest

GAMES = ("icehouse", "icepirates")


def frame_crops(detector: Detector, frame, truth, hidden, rng: random.Random, jitter: int):
    """(crops, labels, size labels) of the visible pyramids of one frame, and of what the
    detector reads as a pyramid where there is none (label NONE)."""
    view, _, seg = detector.look(frame, truth.game)
    pyramids = [p for p in truth.pieces if p.type == "pyramid"]
    found = [p for p in detector.detect(frame, truth.game).pieces if p.type == "pyramid"]
    _, used = match_nearest(pyramids, found)
    extras = [p for j, p in enumerate(found) if j not in used and not p.extra.get("uncertain")]
    xs, labels, sizes = [], [], []
    seen = [(p, COLOURS.index(p.color)) for p in pyramids if p.id not in hidden]
    for piece, label in seen + [(p, NONE) for p in extras]:
        fields = {"x": piece.x, "y": piece.y, "size": piece.size, "pose": piece.pose,
                  "heading": piece.heading, "angle": piece.angle}
        x, y, turn = centre_and_turn(fields)
        for _ in range(jitter):
            spin = rng.gauss(0, 4) if piece.pose == "lying" else rng.choice((0, 90, 180, 270))
            xs.append(crop(view, seg.features, x + rng.gauss(0, 1.5), y + rng.gauss(0, 1.5), turn + spin))
            labels.append(label)
            sizes.append(SIZES.index(piece.size))
    return xs, labels, sizes


def main(argv=None) -> int:
    args = sets.arguments(__doc__.splitlines()[0], argv)
    rng = random.Random(args.seed)
    (xs, colours, sizes), sources = sets.gather(
        args.folders, GAMES, lambda cal: Detector(cal, reread=None),
        lambda detector, frame, truth, hidden: frame_crops(detector, frame, truth, hidden, rng, args.jitter))
    np.savez_compressed(args.out, x=np.stack(xs).astype(np.float16), colour=np.array(colours, np.int8),
                        size=np.array(sizes, np.int8), source=np.array(sources, np.int16),
                        folders=np.array(args.folders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
