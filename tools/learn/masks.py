"""Extract the segmentation network's inputs and per-pixel truth from rendered frames.

    python -m tools.learn.masks photoreal/train --fast icehouse:60000 icepirates:60000 -o masks.npz
    python -m tools.learn.masks --piecepack photoreal-dense/train --fast icefloe:50000 -o ppmasks.npz

A photoreal folder holds frames with the per-pixel piece ids the generator writes
(`sNNNN-fK-ids.png`) and the calibrations `tools.photoreal.calibrate` made. `--fast GAME:SEED`
renders a sample set of the fast renderer (`vision.samples.plan`, as `icetable render --samples
--seed SEED` would) in memory, with its truth classes (`vision.render.classes`). Each frame goes
through the detector's own front end with its calibration (`Detector.look`), so the inputs are
what the network sees at run time, and its truth is carried onto the same top view
(`vision.topview.warp_labels`). Pixels of the padding are labelled 255 (ignored). With
`--piecepack`, the frames are IceFloe and Iceberg ones and the view the piecepack's
(`tools.learn.ppmasks`).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.calibfile import CalibrationError, load
from vision.detector import Detector, FrameError
from vision.evaluation import sample_images
from vision.piecepack.pipeline import GAMES as PIECEPACK_GAMES
from vision.render.frame import classes
from vision.samples import plan, planned_calibration, render_planned
from vision.segnet import classes_of, net_input, net_size
from vision.topview import warp_labels

GAMES = ("icehouse", "icepirates")
IGNORE = 255


def frame_masks(detector: Detector, frame: np.ndarray, truth: np.ndarray, game: str) -> tuple[np.ndarray, np.ndarray]:
    """(3, h, w) float16 network input and (h, w) uint8 classes of one frame whose per-pixel
    classes are `truth`."""
    cal = detector.calibration
    view, _, seg = detector.look(frame, game)
    top = warp_labels(truth, detector.plane(frame), detector.region, cal.mm_per_px, cal.K, cal.dist)
    x = net_input(seg.features, cal.mm_per_px)[0]
    size = net_size(view.image.shape, cal.mm_per_px)
    y = np.full(x.shape[1:], IGNORE, np.uint8)
    y[:size[1], :size[0]] = cv2.resize(top, size, interpolation=cv2.INTER_NEAREST)
    return x.astype(np.float16), y


def photoreal(folder: Path, games: tuple = GAMES):
    """(name, calibration, frame, truth classes, game) of each frame of a photoreal folder."""
    for image, truth, _, cal_path in sample_images(folder, games):
        ids = cv2.imread(str(image.with_name(image.stem + "-ids.png")), cv2.IMREAD_UNCHANGED)
        if ids is None:
            raise FileNotFoundError(f"{image.stem}-ids.png missing")
        cards = [i + 1 for i, p in enumerate(truth.pieces) if p.type == "card"]
        yield f"{folder.name}/{image.stem}", lambda p=cal_path: load(p), cv2.imread(str(image)), \
            classes_of(ids, tuple(cards)), truth.game


def fast(game: str, seed: int):
    """The same for a sample set of the fast renderer, rendered in memory."""
    for image in plan(game, seed):
        scene, frame, config = render_planned(game, image)
        yield f"fast{seed}/{image['stem']}", lambda i=image: planned_calibration(game, i), frame.image, \
            classes(scene, config), game


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="*")
    p.add_argument("--fast", nargs="*", default=[], metavar="GAME:SEED")
    p.add_argument("--piecepack", action="store_true", help="IceFloe and Iceberg frames, on the piecepack's view")
    p.add_argument("-o", "--out", required=True)
    args = p.parse_args(argv)
    if args.piecepack:
        from tools.learn import ppmasks      # it imports this module
        games, masks_of, rendered = PIECEPACK_GAMES, ppmasks.frame_masks, ppmasks.fast
    else:
        games, masks_of, rendered = GAMES, frame_masks, fast
    sources = [photoreal(Path(f), games) for f in args.folders]
    sources += [rendered(g, int(s)) for g, s in (spec.split(":") for spec in args.fast)]
    arrays, names = {}, []
    for source in sources:
        for name, calibration, frame, truth, game in source:
            try:
                x, y = masks_of(Detector(calibration(), reread=None, segment_model=None), frame, truth, game)
            except (CalibrationError, FrameError) as exc:
                print(f"{name}: skipped ({str(exc).splitlines()[0]})", file=sys.stderr)
                continue
            arrays[f"x{len(names)}"], arrays[f"y{len(names)}"] = x, y
            names.append(name)
        print(f"{len(names)} frames so far", file=sys.stderr)
    np.savez_compressed(args.out, names=np.array(names), **arrays)
    return 0


if __name__ == "__main__":
    sys.exit(main())
