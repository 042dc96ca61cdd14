"""The piecepack's inputs and truth for the segmentation network (`tools.learn.masks --piecepack`).

The same network as `vision.segnet` (table, piece, hand), trained apart for the piecepack's top
view (`vision.segnet.PIECEPACK`, used by `vision.piecepack.detect` to find hands and arms): its
input is that view's log ratios to the cloth (`vision.piecepack.pipeline.view_of`) at
`vision.segnet.NET_MM` per pixel, its truth the frame's classes carried onto the same view.
Tiles, coins and every other piece are `piece`, the corner cards `table`.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import cards_layout
from tools.learn.masks import IGNORE
from vision.camera import pose_from_homography
from vision.detector import Detector
from vision.piecepack import samples
from vision.piecepack.pipeline import table_fit, view_of, view_region
from vision.piecepack.view import lifted
from vision.render import render
from vision.render.frame import classes
from vision.samples import read_back
from vision.segnet import net_input, net_size
from vision.topview import warp_labels


def frame_masks(detector: Detector, frame: np.ndarray, truth: np.ndarray, game: str) -> tuple[np.ndarray, np.ndarray]:
    """(3, h, w) float16 network input and (h, w) uint8 classes of one frame whose per-pixel
    classes are `truth`."""
    cal = detector.calibration
    view = view_of(detector, frame)
    fit = table_fit(detector, frame)
    _, centre = pose_from_homography(fit.H, cal.K)
    top = warp_labels(truth, lifted(fit, centre, detector.dims.tile_thickness), view_region(detector),
                      view.top.mm_per_px, cal.K, cal.dist)
    x = net_input(view.logratio, view.top.mm_per_px)[0]
    size = net_size(view.logratio.shape, view.top.mm_per_px)
    y = np.full(x.shape[1:], IGNORE, np.uint8)
    y[:size[1], :size[0]] = cv2.resize(top, size, interpolation=cv2.INTER_NEAREST)
    return x.astype(np.float16), y


def fast(game: str, seed: int):
    """(name, calibration, frame, truth classes, game) of each image of the fast renderer's
    sample set of `game` from `seed` (`icetable render --samples --base-seed SEED`), rendered
    in memory."""
    for i in range(samples.COUNT[game]):
        scene, config, _ = samples.planned(game, seed, i)
        drawn = render(scene, cards_layout(*scene.area), config)
        yield f"fast{seed}/{game}-{i + 1:02d}", lambda c=config.camera, a=scene.area: samples.calibration(c, a), \
            read_back(drawn.image, samples.JPEG_QUALITY), classes(scene, config), game
