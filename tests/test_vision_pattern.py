"""A repeating cloth (a gingham): its lattice found, the empty table under pieces and cards
taken from it, arms and home cards found on it. Top views drawn here: checks turned to the
view, under a lamp's pool of light, blurred and noisy like a camera's."""
import math

import cv2
import numpy as np
import pytest

from calibration.calibfile import Calibration, default_colors
from calibration.layout import cards_layout
from referee.scene import scene_from_dict
from vision import pattern
from vision.camera import intrinsics, looking_at
from vision.cards import find_cards
from vision.detector import Detector, FrameError
from vision.render import RenderConfig, render
from vision.segment import arms_over_pattern
from vision.topview import TopView

AREA = (600.0, 450.0)
LAYOUT = cards_layout(*AREA)
SIZE = (560, 420)        # top view, 1 mm per pixel
CARD = (300.0, 150.0, 148.0, 105.0, 20.0)     # x, y, width, height (mm), angle (degrees)
PIECES = [((120, 300), (40, 40, 200)), ((420, 320), (40, 170, 40)), ((470, 90), (30, 30, 30)),
          ((300, 150), (200, 80, 30))]        # the last lies on the card


def _gingham(check=17.0, turn=30.0, colours=((60, 140, 50), (225, 228, 230))) -> np.ndarray:
    """Float BGR of a two-colour checked cloth, checks `check` mm wide turned by `turn` degrees."""
    rows, cols = np.mgrid[0:SIZE[1], 0:SIZE[0]].astype(np.float64)
    a = math.radians(turn)
    u, v = cols * math.cos(a) + rows * math.sin(a), -cols * math.sin(a) + rows * math.cos(a)
    dark = ((np.floor(u / check) + np.floor(v / check)) % 2).astype(bool)
    out = np.empty(SIZE[::-1] + (3,))
    out[dark], out[~dark] = colours
    return out


def _light() -> np.ndarray:
    rows, cols = np.mgrid[0:SIZE[1], 0:SIZE[0]].astype(np.float64)
    return (1.0 - 0.45 * ((cols - 150) ** 2 + (rows - 100) ** 2) / 600 ** 2)[..., None]


def _card_corners(x, y, w, h, angle):
    return cv2.boxPoints(((x, y), (w, h), angle)).astype(np.int32)


def _camera(image: np.ndarray, seed: int = 0) -> np.ndarray:
    return _camera_at(image * _light(), seed)


def _camera_at(image: np.ndarray, seed: int = 0) -> np.ndarray:
    blurred = cv2.GaussianBlur(image, (0, 0), 0.8)
    noise = np.random.default_rng(seed).normal(0, 1.5, blurred.shape)
    return np.clip(blurred + noise, 0, 255).astype(np.uint8)


def _table(arm: bool = False, card: bool = True) -> np.ndarray:
    """A top view of the gingham with pieces, a card and (if `arm`) an arm from the right edge."""
    image = _gingham()
    if card:
        cv2.fillConvexPoly(image, _card_corners(*CARD), (222, 226, 228))
    for (x, y), colour in PIECES[:None if card else -1]:
        cv2.fillConvexPoly(image, np.array([[x - 11, y + 9], [x + 11, y + 9], [x, y - 13]]), colour)
    if arm:
        rows = np.arange(SIZE[1], dtype=np.float64)[:, None]
        shade = np.clip(1.0 - np.abs(rows - 250) / 60, 0.2, 1.0)       # a lit cylinder
        band = (np.abs(rows - 250) < 38) & (np.arange(SIZE[0])[None, :] > 380)
        image[band] = np.broadcast_to(np.array([120.0, 150.0, 205.0]) * shade[..., None], image.shape)[band]
    return image


def _logs(image: np.ndarray) -> np.ndarray:
    return cv2.log(image.astype(np.float32) + 2.0)


def _near_pieces(card: bool = True) -> np.ndarray:
    mask = np.zeros(SIZE[::-1], np.uint8)
    for (x, y), _ in PIECES:
        cv2.circle(mask, (x, y), 25, 1, -1)
    if card:
        cv2.fillConvexPoly(mask, _card_corners(*CARD[:2], CARD[2] + 30, CARD[3] + 30, CARD[4]), 1)
    return mask > 0


def test_a_checked_cloth_repeats_by_the_lattice_found():
    """Each step found is a whole number of the checks' periods at least SPAN long: the cloth
    shifted by it lies on itself, as it does not shifted by half a check."""
    logs = _logs(_camera(_gingham()))
    steps = pattern.lattice(logs, 1.0)
    assert steps is not None and len(steps) == 2
    inner = (slice(130, SIZE[1] - 130), slice(130, SIZE[0] - 130))
    for step in steps:
        assert np.linalg.norm(step) >= pattern.SPAN
        for shift, same in ((step, True), (step / 2 + np.array([4.0, 4.0]), False)):
            moved = cv2.warpAffine(logs, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), SIZE,
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
            diff = float(np.abs(moved - logs)[inner].mean())
            assert (diff < 0.06) if same else (diff > 0.2), (shift, diff)


@pytest.mark.parametrize("cloth", ["plain", "blotched"])
def test_a_cloth_that_does_not_repeat_has_no_lattice(cloth):
    rng = np.random.default_rng(3)
    image = np.full(SIZE[::-1] + (3,), (90.0, 110.0, 130.0))
    if cloth == "blotched":
        blotches = cv2.GaussianBlur(rng.normal(0, 1, SIZE[::-1]), (0, 0), 12)
        image *= (1 + 2.5 * blotches)[..., None]
    assert pattern.lattice(_logs(_camera(image)), 1.0) is None


def test_pieces_stand_out_of_a_checked_cloth_and_its_checks_do_not():
    """The log ratios to the empty table: about 0 over the bare checks under the lamp's pool,
    large over each piece, though they lie on checks of either colour."""
    image = _camera(_table(card=False))
    logs = _logs(image)
    features = pattern.features(logs, pattern.lattice(logs, 1.0), 1.0)
    level = np.abs(features).mean(axis=2)
    bare = ~_near_pieces(card=False)
    bare[:20], bare[-20:], bare[:, :20], bare[:, -20:] = False, False, False, False
    assert np.percentile(level[bare], 99) < 0.08
    for (x, y), _ in PIECES[:-1]:
        assert np.median(level[y - 3:y + 5, x - 4:x + 4]) > 0.3, (x, y)


def test_an_arm_over_a_checked_cloth_is_a_hand_and_a_card_is_not():
    """An arm from the view's edge hides the checks: it is a hand, though shaded; a card hides
    them too, but lies within the view."""
    logs = _logs(_camera(_table(arm=True)))
    hands = arms_over_pattern(logs, pattern.lattice(logs, 1.0), 1.0) > 0
    arm = np.zeros(SIZE[::-1], bool)
    arm[250 - 30:250 + 30, 400:] = True
    card = np.zeros(SIZE[::-1], np.uint8)
    cv2.fillConvexPoly(card, _card_corners(*CARD), 1)
    assert hands[arm].mean() > 0.8
    assert hands[card > 0].mean() < 0.05


@pytest.mark.parametrize("arm", [False, True])
def test_a_card_on_a_checked_cloth_is_found(arm):
    """A white home card on a gingham whose pale checks are its shade: half its edge borders a
    check it cannot be told from, yet it is found, placed by the edges that show, and an arm
    beside it is not taken for a card."""
    image = _camera(_table(arm=arm))
    view = TopView(image, (0.0, 0.0), 1.0, np.array([280.0, 210.0, -1000.0]))
    cards = find_cards(view, steps=pattern.lattice(_logs(image), 1.0))
    assert len(cards) == 1
    card, (x, y, w, h, angle) = cards[0], CARD
    # pixel centres lie half a pixel into the view's table frame
    assert math.hypot(card.x - 0.5 - x, card.y - 0.5 - y) < 2.0
    assert abs(card.width - w) < 3.0 and abs(card.height - h) < 3.0
    assert abs((card.angle - angle + 90) % 180 - 90) < 1.5


def _painted(cloth) -> tuple[np.ndarray, Detector]:
    """A fast-renderer frame of an empty table whose cloth is `cloth(x, y)` (table mm: a factor
    on the rendered grey cloth) out to 60 mm beyond the play area, the corner cards left as
    they are, and the detector for its camera."""
    cam = looking_at(intrinsics((1280, 720), 64.0), (-0.08, 0.02, 0, 0, 0), (1280, 720), (300, 225, -800),
                     (300, 225, 0))
    frame = render(scene_from_dict({"format": "icetable-scene/1", "game": "icehouse",
                                    "area": {"width": AREA[0], "height": AREA[1]}, "pieces": []}),
                   LAYOUT, RenderConfig(camera=cam, blur=0.5, noise=1.0)).image
    detector = Detector(Calibration(LAYOUT, cam.size, cam.K, cam.dist, "rendered", default_colors()))
    rows, cols = np.mgrid[0:frame.shape[0], 0:frame.shape[1]]
    pixels = np.column_stack([cols.ravel(), rows.ravel()]).astype(np.float64)
    flat = cv2.undistortPoints(pixels.reshape(-1, 1, 2), cam.K, np.asarray(cam.dist), P=cam.K).reshape(-1, 2)
    x, y = cv2.perspectiveTransform(flat.reshape(-1, 1, 2), np.linalg.inv(detector.plane(frame).H)).reshape(-1, 2).T
    cloth_here = (x > -60) & (x < AREA[0] + 60) & (y > -60) & (y < AREA[1] + 60)
    for _, sx, sy, w, h in LAYOUT.sheets:
        cloth_here &= ~((x > sx - 3) & (x < sx + w + 3) & (y > sy - 3) & (y < sy + h + 3))
    factor = np.where(cloth_here, cloth(x, y), 1.0).reshape(frame.shape[:2])
    return np.clip(frame * factor[..., None], 0, 255).astype(np.uint8), detector


def test_an_empty_checked_table_reads_as_no_pieces():
    """Checks 15 mm wide, turned 25 degrees, over the whole table: no piece."""
    def checks(x, y):
        a = math.radians(25)
        u, v = x * math.cos(a) + y * math.sin(a), -x * math.sin(a) + y * math.cos(a)
        return np.where((np.floor(u / 15) + np.floor(v / 15)) % 2 > 0, 0.55, 1.35)
    frame, detector = _painted(checks)
    assert detector.detect(frame).pieces == ()


def test_a_two_colour_cloth_that_does_not_repeat_is_refused():
    """Blotches of two colours with no period (a camouflage print) along the view's edge: the
    pyramids' colours would be read against one table colour, so the frame is refused, naming
    the plain cloth to play on."""
    def blotches(x, y):
        field = np.sin(x / 23.0 + np.sin(y / 31.0) * 2.7) + np.sin(y / 17.0 + np.sin(x / 41.0) * 3.1)
        return np.where(field > 0, 0.55, 1.35)
    frame, detector = _painted(blotches)
    with pytest.raises(FrameError, match="plain cloth"):
        detector.detect(frame)


@pytest.mark.parametrize("shape", [(90, 150), (60, 400), (300, 60)])
def test_a_small_view_of_a_checked_cloth_gives_a_lattice_or_none(shape):
    """A play area shorter than the longest shift looked for (a small `--area`): the shifts are
    limited to what the view holds twice over, and a step that does not fit is no lattice."""
    rows, cols = np.mgrid[0:shape[0], 0:shape[1]]
    image = np.where((((rows // 12 + cols // 12) % 2) == 1)[..., None], 40.0, 150.0) * np.ones(3)
    logs = _logs(_camera_at(image))
    steps = pattern.lattice(logs, 1.0)
    if steps is not None:
        assert (np.abs(steps).max(axis=1) < min(shape) / 2).all()
        assert pattern.features(logs, steps, 1.0).shape == logs.shape
