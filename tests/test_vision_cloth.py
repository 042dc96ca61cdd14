"""A two-coloured cloth (a gingham's checks, a cloth's stripes) is table, not pieces: its
colours and their blends are left out of the Looney segmentation, so such a table is read
instead of refused as "a patterned cloth"."""
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calibfile import load
from referee.scene import scene_from_dict
from vision import segment
from vision.detector import Detector, FrameError
from vision.evaluation import score

PHOTOREAL = Path(__file__).parent / "data" / "photoreal"
MM_PER_PX = 1.0


def _checked(blobs: list[tuple[int, int, tuple]]) -> np.ndarray:
    """A 600 x 450 px view of a blurred red-and-white checked cloth (15 px checks) under a
    light falling off to the right, with filled discs (x, y, BGR colour) for pieces."""
    yy, xx = np.mgrid[0:450, 0:600]
    checks = ((xx // 15 + yy // 15) % 2).astype(bool)
    image = np.where(checks[..., None], np.array([60, 50, 190]), np.array([225, 228, 232])).astype(np.float32)
    image *= (1.0 - 0.25 * xx / 600)[..., None]
    image = cv2.GaussianBlur(image, (5, 5), 1.2)
    for x, y, colour in blobs:
        cv2.circle(image, (x, y), 9, colour, -1)
    return np.clip(image, 0, 255).astype(np.uint8)


BLOBS = [(150, 120, (200, 80, 20)), (300, 220, (20, 20, 20)), (450, 330, (40, 170, 30))]


def test_the_checks_and_their_edges_are_cloth_and_the_pieces_are_not():
    image = _checked(BLOBS)
    cloth = segment.cloth_pixels(image, MM_PER_PX)
    pieces = np.zeros(image.shape[:2], np.uint8)
    for x, y, _ in BLOBS:
        cv2.circle(pieces, (x, y), 7, 1, -1)
    bare = cv2.dilate(pieces, np.ones((7, 7), np.uint8)) == 0
    assert cloth[bare].mean() >= 0.98
    assert cloth[pieces > 0].mean() <= 0.02


def test_a_cloth_of_one_colour_has_no_cloth_pixels():
    image = np.full((450, 600, 3), (120, 140, 90), np.uint8)
    for x, y, colour in BLOBS:
        cv2.circle(image, (x, y), 9, colour, -1)
    assert segment.cloth_pixels(image, MM_PER_PX) is None


@pytest.fixture(scope="module")
def gingham():
    """A committed photoreal Ice Pirates frame of the test split: a gingham under a desk lamp,
    calibrated as a user would."""
    data = json.loads((PHOTOREAL / "s0005-f2.json").read_text())
    return (Detector(load(PHOTOREAL / data["render"]["calibration"])), cv2.imread(str(PHOTOREAL / "s0005-f2.jpg")),
            scene_from_dict(data), tuple(data["render"]["hidden"]))


def test_a_frame_on_a_gingham_is_read(gingham):
    detector, frame, truth, hidden = gingham
    s = score(truth, detector.detect(frame, "icepirates"), hidden)
    assert s.pieces == 15 and s.rate("all_right") * s.pieces >= 5 and s.extra <= 2


def test_without_the_cloth_left_out_the_gingham_is_refused(gingham, monkeypatch):
    detector, frame, _, _ = gingham
    monkeypatch.setattr(segment, "cloth_pixels", lambda image, mm_per_px: None)
    with pytest.raises(FrameError, match="plain cloth"):
        detector.detect(frame, "icepirates")
