"""Piecepack pieces in the renderer and the geometry of the tiles' top plane."""
import json
import math
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calibfile import load
from calibration.homography import find_markers, fit_plane
from calibration.layout import cards_layout
from referee.scene import Piece, Scene, scene_from_dict
from vision.piecepack import profile as pp
from vision.piecepack.detect import PiecepackDetector
from vision.piecepack.looks import rest_on_tiles
from vision.piecepack.samples import SIZE, camera
from vision.piecepack.view import on_plane, plane_view, raise_point
from vision.render import random_config, render
from vision.render.art import paint

ROOT = Path(__file__).resolve().parent.parent
AREA = (240.0, 200.0)


def _rendered_and_read(scene: Scene, seed: int, light: str) -> list[dict]:
    """Render the scene on its corner cards and detect it with the default profile."""
    layout = cards_layout(*AREA)
    cam = camera(random.Random(seed), AREA)
    frame = render(scene, layout, random_config(seed, AREA, SIZE, light=light, camera=cam)).image
    fit = fit_plane(layout, find_markers(frame[..., 1]), cam.K, cam.dist)
    view = plane_view(frame, fit, cam.K, cam.dist, (-12, -12, AREA[0] + 12, AREA[1] + 12), 6.35)
    return PiecepackDetector(pp.default()).detect(view, scene.game)


def test_pieces_on_a_tile_rest_on_its_top_and_others_on_the_table():
    scene = Scene("icefloe", (Piece("t", "tile", 60, 60, face="down"),
                              Piece("p", "pp_pyramid", 70, 50, suit="suns", size="C", pose="standing"),
                              Piece("w", "pp_pyramid", 160, 60, suit="arms", size="A", pose="standing"),
                              Piece("c", "coin", 48, 72, face="suit", suit="moons")), AREA)
    lifted = rest_on_tiles(scene).by_id()
    assert lifted["p"].extra["z0"] == pytest.approx(6.35) and lifted["c"].extra["z0"] == pytest.approx(6.35)
    assert "z0" not in lifted["w"].extra and "z0" not in lifted["t"].extra


@pytest.mark.parametrize("xy, height", [((10.0, 20.0), 6.35), ((300.0, -40.0), 28.0), ((0.0, 0.0), 3.2)])
def test_a_point_seen_on_the_tile_plane_is_raised_back_where_it_is(xy, height):
    centre = np.array([120.0, 90.0, -620.0])
    seen = on_plane(np.array([xy]), centre, height, 6.35)
    np.testing.assert_allclose(raise_point(seen, centre, 6.35, height)[0], xy, atol=1e-9)
    lean = math.dist(seen[0], xy)
    assert (lean > 0) == (height != 6.35 and xy != (120.0, 90.0))


def test_printed_art_is_painted_inside_its_face_only():
    image = np.zeros((40, 40, 3), np.float32)
    texture = np.ones((8, 8, 3), np.float32)
    square = np.array([[10, 10], [30, 10], [30, 30], [10, 30]], np.float64)
    paint(image, texture, square, square, np.float32(0.5), np.float32(0.1))
    assert image[20, 20] == pytest.approx([0.6] * 3, abs=1e-3)
    assert not image[:8].any() and not image[:, 33:].any()


def test_a_rendered_table_is_read_back():
    scene = Scene("iceberg", (
        Piece("up", "tile", 70, 70, face="up", suit="crowns", rank=4, angle=90.0),
        Piece("down", "tile", 121, 70, face="down", angle=0.0),
        Piece("c1", "coin", 108, 57, face="suit", suit="suns", angle=30.0),
        Piece("c2", "coin", 180, 150, face="value", rank=3, angle=200.0),
        Piece("d", "die", 60, 150, suit="arms", rank=5, angle=20.0)), AREA)
    found = _rendered_and_read(scene, 3, "cool")
    by_type = {}
    for f in found:
        by_type.setdefault(f["type"], []).append(f)
    tiles = sorted(by_type["tile"], key=lambda f: f["x"])
    assert [(t["face"], t.get("suit"), t.get("rank")) for t in tiles] == [("up", "crowns", 4), ("down", None, None)]
    assert tiles[0]["angle"] == pytest.approx(90.0, abs=3)
    coins = sorted(by_type["coin"], key=lambda f: f["x"])
    assert [(c["face"], c.get("suit"), c.get("rank")) for c in coins] == [("suit", "suns", None), ("value", None, 3)]
    assert [c["angle"] for c in coins] == [pytest.approx(30.0, abs=10), pytest.approx(200.0, abs=10)]
    assert [(d["suit"], d["rank"]) for d in by_type["die"]] == [("arms", 5)]
    for f in found:
        truth = min(scene.pieces, key=lambda p: math.hypot(p.x - f["x"], p.y - f["y"]))
        assert math.hypot(truth.x - f["x"], truth.y - f["y"]) < 2.5


def test_a_pyramid_in_the_water_is_a_pyramid_and_a_die_beside_the_board_a_die():
    side = 50.8
    tiles = [Piece(f"t{i}", "tile", 50 + side * c, 60, face="up", suit="suns", rank=i, angle=0.0)
             for i, c in enumerate((0, 2))]
    scene = Scene("icefloe", (*tiles,
                              Piece("w", "pp_pyramid", 50 + side, 60, suit="moons", size="A", pose="standing"),
                              Piece("d", "die", 200, 150, suit="moons", rank=0, angle=10.0)), AREA)
    found = _rendered_and_read(scene, 5, "daylight")
    standing = sorted((f for f in found if f["type"] != "tile"), key=lambda f: f["x"])
    assert [(f["type"], f["suit"], f.get("size"), f.get("rank")) for f in standing] == [
        ("pp_pyramid", "moons", "A", None), ("die", "moons", None, 0)]


def _rendered_tile(edition: str | None, face: str) -> np.ndarray:
    """The middle of one tile as the fast renderer draws it from above, in linear-ish RGB."""
    extra = {"edition": edition} if edition else {}
    tile = Piece("t", "tile", 120, 100, face=face, suit="arms", rank=0, extra=extra)
    cam = camera(random.Random(3), AREA)
    frame = render(Scene("iceberg", (tile,), AREA), cards_layout(*AREA),
                   random_config(3, AREA, SIZE, light="daylight", camera=cam)).image
    x, y = cam.project(np.array([[120.0, 100.0, -6.35]]))[0]
    return frame[int(y) - 30:int(y) + 30, int(x) - 30:int(x) + 30].reshape(-1, 3).astype(float)


def test_a_piece_is_drawn_in_the_edition_it_carries():
    """A tile carrying `marks` shows that edition's dark blue back and white face, not the
    project's cream card; without an edition it is the project's own."""
    default_back, marks_back = _rendered_tile(None, "down"), _rendered_tile("marks", "down")
    assert np.median(marks_back.mean(axis=1)) < 0.8 * np.median(default_back.mean(axis=1))
    b, g, r = np.median(marks_back, axis=0)
    assert b > r + 20                                   # blue card
    b, g, r = np.median(_rendered_tile("marks", "up"), axis=0)
    b0, g0, r0 = np.median(_rendered_tile(None, "up"), axis=0)
    assert b - r > b0 - r0 + 10                        # white stock is less yellow than cream
    np.testing.assert_array_equal(_rendered_tile("default", "up"), _rendered_tile(None, "up"))


def test_plain_card_of_the_coins_colour_is_no_coin():
    """Some editions print their coins on the tiles' card: a coin-sized patch of plain card
    matches no coin side (over NOT_A_COIN), while a real coin is read."""
    path = ROOT / "sample_images" / "iceberg" / "iceberg-02.json"
    truth = scene_from_dict(json.loads(path.read_text()))
    cal = load(path.parent / json.loads(path.read_text())["render"]["calibration"])
    frame = cv2.imread(str(path.with_suffix(".jpg")))
    fit = fit_plane(cal.layout, find_markers(frame[..., 1]), cal.K, cal.dist)
    pv = plane_view(frame, fit, cal.K, cal.dist, (-12, -12, truth.area[0] + 12, truth.area[1] + 12), 6.35)
    detector = PiecepackDetector(pp.default())
    classes = pp.default().classify(pv.logratio)
    coin = next(p for p in truth.pieces if p.type == "coin")
    seen_at = on_plane(np.array([[coin.x, coin.y]]), pv.centre, 6.35 + 3.175, 6.35)[0]
    assert detector._read_coin(pv, seen_at, classes)["suit"] == coin.suit
    back = next(p for p in truth.pieces if p.type == "tile" and p.face == "down")
    plain = np.array([back.x + 6.0, back.y - 12.7])        # a quarter of the back, clear of its crosses
    assert detector._read_coin(pv, plain, classes) is None
