"""The scene model of SCENE.md: round trips, every piece type, footprints and dimensions."""
import json

import pytest

from referee.dimensions import DEFAULT, load_dimensions
from referee.geometry import footprint, footprints, in_contact, overlaps
from referee.scene import SceneError, load_scene, scene_from_dict, write_scene

ALL_TYPES = {
    "format": "icetable-scene/1", "game": "icepirates", "area": {"width": 900, "height": 600},
    "pieces": [
        {"id": "r1", "type": "pyramid", "color": "red", "size": 3, "pose": "lying", "x": 120.0,
         "y": 80.5, "heading": 90.0, "confidence": 0.9},
        {"id": "n1", "type": "pyramid", "color": "black", "size": 3, "pose": "standing",
         "x": 300.0, "y": 300.0, "nested": [2, 1], "angle": 10.0},
        {"id": "pp", "type": "pp_pyramid", "suit": "moons", "size": "E", "pose": "standing",
         "x": 10, "y": 10},
        {"id": "t1", "type": "tile", "face": "up", "suit": "suns", "rank": 0, "x": 50, "y": 50,
         "angle": 3.0},
        {"id": "t2", "type": "tile", "face": "down", "x": 101, "y": 50},
        {"id": "c1", "type": "coin", "face": "value", "rank": 4, "x": 5, "y": 5},
        {"id": "d1", "type": "die", "suit": "arms", "rank": 1, "x": 7, "y": 7},
        {"id": "w1", "type": "pawn", "suit": "crowns", "x": 9, "y": 9},
        {"id": "h1", "type": "card", "owner": "red", "width": 63, "height": 88, "angle": 0,
         "x": 60, "y": 500},
        {"id": "k1", "type": "chit", "on": "r1", "x": 120, "y": 60},
    ],
    "last": "r1",
    "state": {"islands": ["black", "white"]},
    "camera": {"note": "an extension kept as it is"},
}


def test_every_piece_type_round_trips_through_a_file(tmp_path):
    scene = scene_from_dict(json.loads(json.dumps(ALL_TYPES)), "all")
    path = tmp_path / "scene.json"
    write_scene(scene, path)
    again = load_scene(path)
    assert again == scene
    assert json.loads(path.read_text()) == ALL_TYPES


def test_footprints_use_the_default_dimensions():
    scene = scene_from_dict(ALL_TYPES, "all")
    by_id = scene.by_id()
    lying = footprint(by_id["r1"])
    # The triangle a large rests on: base 25.40 wide, 46.23 from tip to base edge.
    assert lying.area == pytest.approx(25.40 * 46.23 / 2, rel=1e-6)
    assert lying.bounds == pytest.approx((120 - 12.7, 80.5 - 46.23, 120 + 12.7, 80.5))
    assert footprint(by_id["n1"]).area == pytest.approx(25.40 ** 2)
    assert footprint(by_id["pp"]).area == pytest.approx(19.68 ** 2)
    assert footprint(by_id["t1"]).area == pytest.approx(50.8 ** 2)
    assert footprint(by_id["c1"]).area == pytest.approx(3.14159 * 9.525 ** 2, rel=0.01)
    assert footprint(by_id["h1"]).area == pytest.approx(63 * 88)
    bulk = footprints(scene.pieces)
    for piece, poly in zip(scene.pieces, bulk):
        assert poly.symmetric_difference(footprint(piece)).area < 1e-6


def test_a_set_of_other_dimensions_changes_the_footprints(tmp_path):
    path = tmp_path / "dims.json"
    path.write_text(json.dumps({"looney_base": {"3": 30.0}, "looney_lying_length": {"3": 50.0}}))
    dims = load_dimensions(path)
    assert dims.looney_base[2] == DEFAULT.looney_base[2]
    piece = scene_from_dict(ALL_TYPES, "all").by_id()["r1"]
    assert footprint(piece, dims).area == pytest.approx(30 * 50 / 2)


def tile_at(x, angle=0.0):
    data = dict(ALL_TYPES, last=None, pieces=[dict(ALL_TYPES["pieces"][3], x=x, angle=angle)])
    return footprint(scene_from_dict(data, "tiles").pieces[0])


def test_touching_pieces_do_not_overlap_but_are_in_contact():
    a = tile_at(50.0)
    assert in_contact(a, tile_at(100.8)) and not overlaps(a, tile_at(100.8))
    assert not in_contact(a, tile_at(102.0))
    assert overlaps(a, tile_at(95.0))


@pytest.mark.parametrize("change, words", [
    (lambda d: d["pieces"][3].pop("suit"), ["piece 't1'", "'suit'", "face-up"]),
    (lambda d: d["pieces"][2].update(size="G"), ["piece 'pp'", "'size'"]),
    (lambda d: d["pieces"][5].update(face="edge"), ["piece 'c1'", "'face'"]),
    (lambda d: d["pieces"][0].update(heading=360), ["piece 'r1'", "'heading'", "[0, 360)"]),
    (lambda d: d["pieces"][0].update(confidence=1.5), ["piece 'r1'", "'confidence'"]),
    (lambda d: d["pieces"][1].update(nested=[3]), ["piece 'n1'", "'nested'"]),
    (lambda d: d.update(last="zz"), ["'last'", "zz"]),
    (lambda d: d.update(area={"width": -1, "height": 5}), ["'area.width'"]),
    (lambda d: d.update(format="scene/0"), ["'format'"]),
    (lambda d: d["pieces"][8].update(owner="pink"), ["piece 'h1'", "'owner'", "pink"]),
])
def test_malformed_pieces_name_the_piece_and_field(change, words):
    data = json.loads(json.dumps(ALL_TYPES))
    change(data)
    with pytest.raises(SceneError) as info:
        scene_from_dict(data, "bad.json")
    message = str(info.value)
    assert message.startswith("bad.json") and "\n" not in message
    for word in words:
        assert word in message
