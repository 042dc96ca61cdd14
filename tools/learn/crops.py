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

import argparse
import random
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.calibfile import CalibrationError, load
from vision.colournet import COLOURS, NONE, SIZES, centre_and_turn, crop
from vision.detector import Detector, FrameError
from vision.evaluation import match_nearest, sample_images

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
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+")
    p.add_argument("--jitter", type=int, default=3, help="crops per piece")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--out", required=True)
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    xs, colours, sizes, sources = [], [], [], []
    for k, folder in enumerate(args.folders):
        detectors, frames = {}, 0
        for image, truth, hidden, cal_path in sample_images(Path(folder), GAMES):
            try:
                detector = detectors.get(cal_path) or detectors.setdefault(cal_path, Detector(load(cal_path), reread=None))
                x, c, s = frame_crops(detector, cv2.imread(str(image)), truth, set(hidden), rng, args.jitter)
            except (CalibrationError, FrameError, FileNotFoundError) as exc:
                print(f"{image}: skipped ({str(exc).splitlines()[0]})", file=sys.stderr)
                continue
            xs += x
            colours += c
            sizes += s
            sources += [k] * len(x)
            frames += 1
        print(f"{folder}: {frames} frames, {len(xs)} crops so far", file=sys.stderr)
    np.savez_compressed(args.out, x=np.stack(xs).astype(np.float16), colour=np.array(colours, np.int8),
                        size=np.array(sizes, np.int8), source=np.array(sources, np.int16),
                        folders=np.array(args.folders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
