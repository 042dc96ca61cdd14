"""Ice Pirates home cards: rendered on the table, found by the detector with the pyramids on and
around them, owned by the colour of the ships touching them, and scored."""
import json
import math
import random
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calibfile import Calibration, default_colors, load
from calibration.layout import cards_layout
from referee.dimensions import DEFAULT
from referee.geometry import footprint
from referee.scene import scene_from_dict
from vision.camera import intrinsics, looking_at
from vision.detector import Detector
from vision.evaluation import HEADING_OK, card_angle_error, heading_error, score
from vision.render import HandConfig, LightConfig, RenderConfig, render
from vision.render.pieces import CARD_STOCKS
from vision.samples import AREAS, icepirates_scene, plan, read_back, render_planned

AREA = AREAS["icepirates"]
LAYOUT = cards_layout(*AREA)


def _scene(pieces, game="icepirates"):
    return scene_from_dict({"format": "icetable-scene/1", "game": game,
                            "area": {"width": AREA[0], "height": AREA[1]}, "pieces": pieces})


def _camera(tilt=(0.0, 0.0)):
    K = intrinsics((1280, 720), 64.0)
    return looking_at(K, (-0.08, 0.02, 0, 0, 0), (1280, 720), (350 + tilt[0], 250 + tilt[1], -1000), (350, 250, 0))


def _detector(cam):
    return Detector(Calibration(LAYOUT, cam.size, cam.K, cam.dist, "rendered", default_colors()))


def _detect(pieces, cam, game="icepirates", **config):
    frame = render(_scene(pieces), LAYOUT, RenderConfig(camera=cam, blur=0.5, noise=1.5, **config))
    return frame, _detector(cam).detect(frame.image, game)


def _card(owner, x, y, angle, size=(148.0, 105.0)):
    return {"id": f"home-{owner}", "type": "card", "owner": owner, "x": x, "y": y,
            "width": size[0], "height": size[1], "angle": angle}


def _lying(pid, colour, size, x, y, heading):
    return {"id": pid, "type": "pyramid", "color": colour, "size": size, "pose": "lying",
            "x": x, "y": y, "heading": heading}


def _standing(pid, colour, size, x, y, angle):
    return {"id": pid, "type": "pyramid", "color": colour, "size": size, "pose": "standing",
            "x": x, "y": y, "angle": angle}


def _ship_touching(card, pid, colour, size, side):
    """A lying ship pointing straight out of `card`'s side ('long' or 'short'), its base edge
    0.3 mm off the card."""
    a = np.radians(card["angle"] + (90.0 if side == "long" else 0.0))
    reach = (card["height"] if side == "long" else card["width"]) / 2 + 0.3 + DEFAULT.looney_lying_length[size]
    return _lying(pid, colour, size, card["x"] + reach * np.cos(a), card["y"] + reach * np.sin(a),
                  np.degrees(a) % 360)


# A red home with a red ship touching its long edge and a black treasure lying on it; a blue
# home turned 100 degrees with a blue ship touching its end; a white island.
RED, BLUE = _card("red", 200.0, 180.0, 20.0), _card("blue", 500.0, 300.0, 100.0, (152.0, 102.0))
TWO_HOMES = [
    RED, _ship_touching(RED, "r1", "red", 3, "long"), _lying("t1", "black", 1, 210.0, 175.0, 300.0),
    BLUE, _ship_touching(BLUE, "b1", "blue", 2, "short"),
    {"id": "i1", "type": "pyramid", "color": "white", "size": 3, "pose": "standing", "x": 360.0, "y": 420.0,
     "nested": [2, 1]},
]


def test_two_homes_found_with_owners_and_the_pyramids_on_and_beside_them():
    truth = _scene(TWO_HOMES)
    assert footprint(truth.by_id()["r1"]).distance(footprint(truth.by_id()["home-red"])) < 1.0
    _, found = _detect(TWO_HOMES, _camera((120.0, -60.0)))
    s = score(truth, found)
    assert (s.cards, s.cards_found, s.card_owner, s.card_extra) == (2, 2, 2, 0)
    assert max(s.card_position_mm) < 1.5 and max(s.card_angle_deg) < 1.0
    for card in found.of_type("card"):
        want = truth.by_id()[f"home-{card.owner}"]
        assert abs(card.width - want.width) < 2.0 and abs(card.height - want.height) < 2.0
        assert "owner_guessed" not in card.extra
    assert s.all_right == s.pieces == 4 and s.extra == 0
    # the treasure on the red home is a lying small, not an island nest
    (treasure,) = [p for p in found.pieces if p.color == "black"]
    assert (treasure.size, treasure.pose, treasure.nested) == (1, "lying", None)


def test_a_home_no_ship_touches_has_a_guessed_owner():
    pieces = [_card("green", 330.0, 240.0, 35.0), _lying("g1", "green", 2, 600.0, 80.0, 10.0)]
    _, found = _detect(pieces, _camera())
    (card,) = found.of_type("card")
    assert card.owner == "green" and card.extra.get("owner_guessed") is True


def test_cards_are_only_looked_for_in_ice_pirates():
    # an Icehouse table has no home cards: the same frame read as Icehouse reports none
    _, found = _detect(TWO_HOMES[:3], _camera(), game="icehouse")
    assert not found.of_type("card")


def test_rendered_card_is_lighter_than_the_cloth_and_pieces_are_drawn_over_it():
    cam = _camera()
    card_only = render(_scene([_card("red", 350.0, 250.0, 0.0)]), LAYOUT, RenderConfig(camera=cam)).image
    with_piece = render(_scene([_card("red", 350.0, 250.0, 0.0), _lying("r1", "red", 3, 370.0, 250.0, 0.0)]),
                        LAYOUT, RenderConfig(camera=cam)).image
    cx, cy = cam.project(np.array([[350.0, 250.0, 0.0], [350.0, 250.0 + 80.0, 0.0]])).round().astype(int)
    assert card_only[cx[1], cx[0]].mean() > card_only[cy[1], cy[0]].mean() + 20   # card vs cloth
    tip = cam.project(np.array([[362.0, 250.0, 0.0]]))[0].round().astype(int)
    b, g, r = with_piece[tip[1], tip[0]].astype(int)
    assert r > g + 40 and r > b + 40                                                # red over the card


def test_a_card_under_an_arm_is_hidden_and_not_taken_for_a_hand():
    cam = _camera()
    card = _card("red", 350.0, 250.0, 0.0)
    pieces = [card, _ship_touching(card, "r1", "red", 2, "short") | {"x": 350.0 - 74.3 - 36.31, "heading": 180.0},
              _lying("y1", "yellow", 2, 600.0, 420.0, 45.0)]
    hand = HandConfig(start=(390.0, -250.0), end=(390.0, 170.0), width=85, height=80)
    frame, found = _detect(pieces, cam, hands=(hand,))
    assert "home-red" in frame.hidden and "y1" not in frame.hidden
    sure = [(p.type, p.color) for p in found.pieces if not p.extra.get("uncertain")]
    assert ("pyramid", "yellow") in sure and ("pyramid", "red") in sure


@pytest.mark.parametrize("seed", [1501, 1502, 1503, 7501, 9501, 11501])
def test_sample_scenes_give_each_player_a_home_touching_their_ships(seed):
    scene = icepirates_scene(random.Random(seed), AREA)
    cards = scene.of_type("card")
    fleets = {p.color for p in scene.pieces if p.type == "pyramid" and p.pose == "lying" and p.color not in
              ("black", "white")}
    assert {c.owner for c in cards} == fleets and len(cards) == len(fleets)
    for card in cards:
        shape = footprint(card)
        touching = [p for p in scene.pieces if p.color == card.owner and footprint(p).distance(shape) < 1.0]
        assert touching
        others = [p for p in scene.pieces if p is not card and p.color != card.owner
                  and footprint(p).distance(shape) < 1.0]
        assert all(shape.contains(footprint(p)) for p in others)     # only treasure, on the card


def test_card_angle_error_ignores_a_half_turn_and_which_side_is_called_width():
    truth = _scene([_card("red", 100.0, 100.0, 10.0)])
    for angle, size, want in ((190.0, (148.0, 105.0), 0.0), (100.0, (105.0, 148.0), 0.0),
                              (14.0, (148.0, 105.0), 4.0), (179.0, (148.0, 105.0), 11.0)):
        found = _scene([{**_card("blue", 101.0, 100.0, angle, size)}])
        s = score(truth, found)
        assert (s.cards_found, s.card_owner) == (1, 0)
        assert s.card_angle_deg[0] == pytest.approx(want)
    s = score(truth, _scene([_card("red", 140.0, 100.0, 10.0)]))
    assert (s.cards, s.cards_found, s.card_extra) == (1, 0, 1)


@pytest.mark.slow
def test_white_treasures_lying_on_a_white_card_are_found_lying():
    # Treasure is white or black, stored on a light home card. On white stock a white pyramid's
    # shaded side is darker than the card and its lit side barely brighter: often only the lit
    # faces show, and they must still read as the lying piece they are. Eight headings under
    # one light; one miss is allowed (some headings show only a sliver of light).
    home = _card("blue", 350.0, 250.0, 0.0)       # this id's stock is the white one
    assert CARD_STOCKS[zlib.crc32(home["id"].encode()) % len(CARD_STOCKS)][0] >= 0.8
    light = LightConfig(azimuth=90.0, elevation=70.0, key=0.4, ambient=0.65)
    right = 0
    for heading in range(0, 360, 45):
        pieces = [home, _lying("w1", "white", 1, 330.0, 240.0, heading),
                  _lying("w2", "white", 2, 390.0, 270.0, (heading + 100) % 360)]
        s = score(_scene(pieces), _detect(pieces, _camera((60.0, 40.0)), light=light)[1])
        right += s.all_right - s.extra
    assert right >= 15


@pytest.mark.slow
def test_white_treasures_standing_on_a_white_card_are_found_standing():
    # The rules do not say how treasure lies on a home. A white pyramid standing on white stock
    # shows its dark faces and shadow beside faces as pale as the card, as a lying one does:
    # each is fitted standing as well as lying. Six yaws under the light above, two pieces
    # each; a few misses are allowed (a medium at some yaws reads a small lying).
    home = _card("blue", 350.0, 250.0, 0.0)
    light = LightConfig(azimuth=90.0, elevation=70.0, key=0.4, ambient=0.65)
    right = 0
    for yaw in range(0, 90, 15):
        pieces = [home, _standing("w1", "white", 1, 330.0, 240.0, float(yaw)),
                  _standing("w2", "white", 2, 390.0, 270.0, float((yaw + 40) % 90))]
        s = score(_scene(pieces), _detect(pieces, _camera((60.0, 40.0)), light=light)[1])
        right += s.all_right - s.extra
    assert right >= 8


def test_a_shadow_falling_across_a_white_home_is_no_treasure():
    # a white treasure on white stock may show only its dark side; a tall ship standing 15 mm
    # off the card under a low light casts a dark mark across the card's rim, which is no piece
    home = _card("blue", 350.0, 250.0, 0.0)
    ship = {"id": "b1", "type": "pyramid", "color": "blue", "size": 3, "pose": "standing",
            "x": 350.0, "y": 330.0, "angle": 0.0}
    light = LightConfig(azimuth=90.0, elevation=30.0, key=0.6, ambient=0.4)
    _, found = _detect([home, ship], _camera(), light=light)
    assert [(p.color, p.size, p.pose) for p in found.pieces if p.type == "pyramid"] == [("blue", 3, "standing")]


def test_pale_cargo_on_a_home_not_owned_by_clear_is_white_treasure():
    # a home holds its owner's pieces and treasure (black or white): on the red home a piece
    # read as clear is white treasure and does not vote for the card's owner; on the clear
    # home it stays clear
    from vision.cards import Card
    from vision.pyramids import Found
    cam = _camera()
    detector = _detector(cam)
    view = detector.top_view(render(_scene([]), LAYOUT, RenderConfig(camera=cam)).image)
    cards = [Card(200.0, 180.0, 148.0, 105.0, 0.0), Card(500.0, 300.0, 148.0, 105.0, 0.0)]
    mask = np.ones((3, 3), np.uint8)

    def found(colour, x, y):
        return Found({"type": "pyramid", "color": colour, "size": 1, "pose": "lying", "x": x, "y": y,
                      "heading": 0.0}, mask, (0, 0), 1.0)
    ships = [found("red", 300.0, 180.0), found("clear", 600.0, 300.0)]
    cargo = [found("clear", 190.0, 170.0), found("clear", 210.0, 190.0), found("clear", 500.0, 300.0)]
    homes = detector._cards(view, cards, ships + cargo, {id(f) for f in cargo})
    assert [h.fields["owner"] for h in homes] == ["red", "clear"]
    assert [f.fields["color"] for f in cargo] == ["white", "white", "clear"]


def test_clear_ships_touching_a_white_home_do_not_widen_it():
    # held-out image 6 of `icetable render --samples DIR --base-seed 15000`, rendered here: clear
    # plastic is as light and colourless as white card stock, and the clear ships touching the
    # clear player's home widened its region until the card was lost
    truth, drawn, config = render_planned("icepirates", plan("icepirates", 15000)[5])
    found = _detector(config.camera).detect(read_back(drawn.image), "icepirates")
    s = score(truth, found)
    assert (s.cards, s.cards_found, s.card_extra) == (2, 2, 0)
    assert max(s.card_position_mm) < 1.5


@pytest.mark.parametrize("name, pid", [("icepirates-10", "tclear"), ("icepirates-12", "tcyan")])
def test_white_treasure_whose_shaded_face_is_darker_than_its_card_keeps_size_and_heading(
        repo_root, name, pid):
    # committed samples: on light card stock the face of a white pyramid turned from the light
    # is darker than the card; counted as table, it pulled the fit onto the lit faces alone
    # (a medium read as small, a small turned 11 degrees)
    truth_path = repo_root / "sample_images" / "icepirates" / f"{name}.json"
    data = json.loads(truth_path.read_text())
    detector = Detector(load(truth_path.parent / data["render"]["calibration"]))
    found = detector.detect(cv2.imread(str(truth_path.with_suffix(".jpg"))), "icepirates")
    truth = next(p for p in scene_from_dict(data).pieces if p.id == pid)
    piece = min(found.pieces, key=lambda p: math.hypot(p.x - truth.x, p.y - truth.y))
    assert (piece.color, piece.size, piece.pose) == (truth.color, truth.size, "lying")
    assert heading_error(piece.heading, truth.heading) <= HEADING_OK


@pytest.mark.parametrize("seed, number", [(293000, 5), (311000, 11)])
def test_two_homes_a_piece_joins_are_both_found(seed, number):
    # held-out images of `icetable render --samples DIR --base-seed SEED`, rendered here: two
    # homes nearly touching, a clear ship or a treasure between them, made one region of two
    # cards' area at the 4 mm of the search for card regions, and neither home was found; white
    # islands were then read in their stock and a clear ship or a white treasure missed
    truth, drawn, config = render_planned("icepirates", plan("icepirates", seed)[number - 1])
    found = _detector(config.camera).detect(read_back(drawn.image), "icepirates")
    s = score(truth, found)
    assert (s.cards, s.cards_found, s.card_extra) == (2, 2, 0)
    assert max(s.card_position_mm) < 2.5
    assert s.all_right == s.pieces and s.extra == 0


@pytest.mark.parametrize("exposure", [1.0, 1.3])
def test_white_homes_on_a_tinted_cloth_are_found(exposure):
    # a white card on a beige felt has the felt's tint the other way round (its ratio to the
    # cloth is bluish), over the stock chroma bound: on the photoreal felt sessions 1 of 6 homes
    # was found. Against the mat's white paper the card is neutral
    cam = _camera()
    homes = [_card("red", 200.0, 180.0, 10.0), _card("blue", 500.0, 320.0, 160.0)]
    frame = render(_scene(homes), LAYOUT, RenderConfig(camera=cam, cloth=(0.62, 0.50, 0.36), exposure=exposure,
                                                       blur=0.5, noise=1.5))
    image = cv2.imdecode(cv2.imencode(".jpg", frame.image)[1], cv2.IMREAD_COLOR)
    found = sorted(_detector(cam).home_cards(image), key=lambda c: c.x)
    assert len(found) == 2
    for card, home in zip(found, homes):
        assert math.hypot(card.x - home["x"], card.y - home["y"]) < 2.0
        assert abs(card.width - 148.0) < 3.0 and abs(card.height - 105.0) < 3.0


def test_a_candidate_no_longer_than_its_corners_is_left_as_it_is():
    # a region of a card's area whose rectangle is this narrow had no edge profiles to measure,
    # and `icetable detect` stopped with an OpenCV error (a train-split frame on a cloth)
    from vision.cards import LINEAR, Card, _refine, _steps
    cam = _camera()
    view = _detector(cam).top_view(render(_scene([]), LAYOUT, RenderConfig(camera=cam)).image)
    grey = LINEAR[cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY)]
    card = Card(350.0, 250.0, 14.0, 12.0, 0.0)
    assert _refine(card, _steps(grey), view, 10.0) == card


def test_white_homes_on_oak_whose_pale_grain_runs_out_of_the_view_are_found():
    # a committed photoreal frame of the train split (oak under a window): the grain's pale
    # stripes look like card stock of the wood's tint, touch both homes and run out of the view
    # as a sleeve does, so both homes were taken for arms and not found (6 of 23 homes on the
    # train split's oak). Stock of the mat paper's tint is judged apart
    photoreal = Path(__file__).parent / "data" / "photoreal"
    truth = scene_from_dict(json.loads((photoreal / "s0001-f0.json").read_text()))
    found = Detector(load(photoreal / "calibration-s0001.json")).home_cards(cv2.imread(str(photoreal / "s0001-f0.jpg")))
    homes = [p for p in truth.pieces if p.type == "card"]
    assert len(found) == len(homes) == 2
    for home in homes:
        card = min(found, key=lambda c: math.hypot(c.x - home.x, c.y - home.y))
        assert math.hypot(card.x - home.x, card.y - home.y) < 3.0
        assert card_angle_error(card, home) < 3.0
