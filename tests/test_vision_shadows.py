"""Cast shadows under a hard light: found and taken out of the foreground, and none under diffuse light."""
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calibfile import load
from referee.scene import scene_from_dict
from vision.detector import Detector
from vision.evaluation import score
from vision.shadows import cast_shadows

PHOTOREAL = Path(__file__).resolve().parent / "data" / "photoreal"
MM_PER_PX = 1.0


def _read(stem: str, calibration: str):
    truth = scene_from_dict(json.loads((PHOTOREAL / f"{stem}.json").read_text()))
    detector = Detector(load(PHOTOREAL / calibration))
    frame = cv2.imread(str(PHOTOREAL / f"{stem}.jpg"))
    return truth, detector, frame


def _right(truth, detected, pid: str) -> bool:
    t = next(p for p in truth.pieces if p.id == pid)
    near = min(detected.pieces, key=lambda p: np.hypot(p.x - t.x, p.y - t.y))
    return np.hypot(near.x - t.x, near.y - t.y) < 8.0 and (near.color, near.size, near.pose) == (t.color, t.size, t.pose)


def _table(pieces: list, shadow_side=None, seed: int = 0):
    """Log-ratio features of a top view with pieces (colour ratios, square) and, on
    `shadow_side` (a (dy, dx) step, or None for a random side each), a shadow each: one grey
    ratio for the whole frame, drawn out along the side."""
    rng = np.random.default_rng(seed)
    features = np.zeros((400, 600, 3), np.float32)
    mask = np.zeros((400, 600), np.uint8)
    shadow = np.zeros((400, 600), bool)
    for i, ratio in enumerate(pieces):
        y, x = 60 + 140 * (i // 5), 50 + 110 * (i % 5)
        dy, dx = shadow_side if shadow_side is not None else [(0, 1), (1, 0), (0, -1), (-1, 0)][rng.integers(4)]
        sy = slice(y + (20 if dy > 0 else -36 if dy < 0 else 0), y + (56 if dy > 0 else 0 if dy < 0 else 20))
        sx = slice(x + (20 if dx > 0 else -36 if dx < 0 else 0), x + (56 if dx > 0 else 0 if dx < 0 else 20))
        features[sy, sx] = (-0.35, -0.55, -0.75)
        shadow[sy, sx] = True
        features[y:y + 20, x:x + 20] = ratio
        shadow[y:y + 20, x:x + 20] = False
        mask[sy, sx] = mask[y:y + 20, x:x + 20] = 255
    features += rng.normal(0, 0.02, features.shape).astype(np.float32)
    return features, mask, shadow


PIECES = [(-0.9, -0.3, 0.2), (0.3, -0.4, -1.0), (-1.4, -1.4, -1.4), (0.4, 0.4, 0.4), (-0.2, -1.2, -0.2),
          (-0.9, -0.3, 0.2), (0.3, -0.4, -1.0), (-1.4, -1.4, -1.4), (0.4, 0.4, 0.4), (-0.2, -1.2, -0.2)]


def test_shadows_every_piece_casts_to_one_side_are_found():
    features, mask, shadow = _table(PIECES, shadow_side=(0, 1))
    found = cast_shadows(mask, features, MM_PER_PX)
    assert found[shadow].mean() > 0.95
    assert not found[(mask > 0) & ~shadow].any()


def test_dark_regions_on_every_side_of_their_pieces_are_no_shadows():
    # the same grey beside each piece, but on any side: a dark piece beside another, not a light's shadow
    features, mask, _ = _table(PIECES, shadow_side=None, seed=3)
    assert not cast_shadows(mask, features, MM_PER_PX).any()


def test_too_few_pieces_for_a_shadow_cluster():
    features, mask, _ = _table(PIECES[:3], shadow_side=(0, 1))
    assert not cast_shadows(mask, features, MM_PER_PX).any()


def test_under_a_low_spot_shadows_are_not_read_as_pieces():
    # a committed photoreal frame of the train split (a spot 40 degrees up, a plain cloth):
    # every piece's shadow joined its blob, so standing pieces were read lying or a size
    # larger, and shadows alone as pieces (12 pyramids of nothing)
    truth, detector, frame = _read("s0096-f0", "calibration-s0096.json")
    detected = detector.detect(frame, truth.game)
    for pid in ("p2", "p9", "p15", "p16"):
        assert _right(truth, detected, pid), pid
    assert score(truth, detected).extra <= 6


@pytest.mark.parametrize("stem, calibration", [("val-s0000-f1", "calibration-val-s0000.json"),
                                               ("val-s0001-f1", "calibration-val-s0001.json")])
def test_under_diffuse_light_nothing_is_taken_for_a_shadow(stem, calibration):
    truth, detector, frame = _read(stem, calibration)
    view, _, seg = detector.look(frame, truth.game)
    assert not cast_shadows(seg.foreground, seg.features, view.mm_per_px).any()
