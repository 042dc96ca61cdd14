"""Hands and arms over the piecepack's top view, found by the shipped piecepack segmentation
network, on a committed photoreal frame of the test split: two arms over an Iceberg start whose
tiles all lie face down, dark red backs a colour near skin's, under a low sun on felt."""
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calibfile import load
from vision import segnet
from vision.camera import pose_from_homography
from vision.detector import Detector
from vision.evaluation import sample_images
from vision.piecepack.detect import HAND_EDGE, _disc, _hands
from vision.piecepack.evaluation import score
from vision.piecepack.pipeline import _detector_for, table_fit, view_of, view_region
from vision.piecepack.stock import stock_colour
from vision.piecepack.view import lifted
from vision.topview import warp_labels

PHOTOREAL = Path(__file__).resolve().parent / "data" / "photoreal"


@pytest.fixture(scope="module")
def arms_frame():
    image, truth, hidden, cal = next(f for f in sample_images(PHOTOREAL, ("iceberg",)) if f[0].stem == "s0013-f1")
    detector = Detector(load(cal))
    frame = cv2.imread(str(image))
    view = view_of(detector, frame)
    fit = table_fit(detector, frame)
    _, centre = pose_from_homography(fit.H, detector.calibration.K)
    arm = cv2.imread(str(image.with_name(image.stem + "-arm.png")), cv2.IMREAD_GRAYSCALE)
    arm = warp_labels(arm, lifted(fit, centre, detector.dims.tile_thickness), view_region(detector),
                      view.top.mm_per_px, detector.calibration.K, detector.calibration.dist) > 0
    return detector, frame, view, arm, truth, hidden


def test_the_arms_are_found_and_not_the_backs_they_reach_over(arms_frame):
    """Nearly all of the arms' pixels are found, and hardly anything beyond them: the old rule
    (areas neither cloth nor card reaching the view's edge) took the whole board of backs for
    part of the arms."""
    detector, _, view, arm, _, _ = arms_frame
    assert segnet.available(segnet.PIECEPACK)
    s = view.top.mm_per_px
    profile = _detector_for(detector.calibration, detector.dims).profile
    classes = profile.classify(view.logratio, stock_colour(view.logratio, s, detector.dims.tile))
    hands = _hands(classes, view.logratio, s) > 0
    near = cv2.dilate(arm.astype(np.uint8), _disc(4 * HAND_EDGE, s)) > 0
    assert np.count_nonzero(hands & arm) >= 0.85 * np.count_nonzero(arm)
    assert np.count_nonzero(hands & ~near) <= 0.2 * np.count_nonzero(arm)


def test_the_backs_beside_the_arms_are_read(arms_frame):
    """The face-down tiles the arms leave in view are found and read as backs (none was before)."""
    detector, frame, _, _, truth, hidden = arms_frame
    result = score(truth, detector.detect(frame, "iceberg"), hidden, [])
    tiles = [p for p in truth.of_type("tile") if p.id not in hidden]
    missing = [m for m in result.mistakes if m.startswith("missing tile")]
    assert len(missing) <= len(tiles) // 4, result.mistakes


def test_the_training_masks_put_each_tile_where_the_view_shows_it():
    """`tools.learn.masks --piecepack` on a fast-renderer frame with an arm: the truth carried
    onto the network's input grid labels every tile's middle `piece`, or `hand` where the arm
    lies over it, and the cloth between the board and the corner cards `table`."""
    from tools.learn import ppmasks
    from vision.piecepack import samples

    name, calibration, frame, truth, game = next(
        f for k, f in enumerate(ppmasks.fast("icefloe", 50000)) if k == 5)
    scene, config, _ = samples.planned("icefloe", 50000, 5)
    assert config.hands
    _, y = ppmasks.frame_masks(Detector(calibration()), frame, truth, game)
    step = segnet.NET_MM
    cells = [y[int((t.y + 12.0) / step), int((t.x + 12.0) / step)] for t in scene.of_type("tile")]
    piece, hand = segnet.CLASSES.index("piece"), segnet.CLASSES.index("hand")
    assert all(c in (piece, hand) for c in cells) and sum(c == piece for c in cells) >= 0.75 * len(cells)
    assert np.count_nonzero(y == hand) * step * step >= 5000     # mm^2 of arm
    assert y[int(6.0 / step), y.shape[1] // 2] == segnet.CLASSES.index("table")
