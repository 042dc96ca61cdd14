"""IceFloe from the camera: grid fit, floes, overweight floes, pyramids in the water, judged turns."""
import json
import math
import random
import subprocess
import sys
from dataclasses import replace

import pytest

from referee.evaluate import evaluate
from referee.icefloe import judge_turn
from referee.scene import Piece, Scene, write_scene
from tests.piecepack_builders import FOUR, STANDARD4, act, floe


def moved(scene: Scene, changes: dict) -> Scene:
    """The scene with pieces moved: id -> (x, y)."""
    return replace(scene, pieces=tuple(replace(p, x=changes[p.id][0], y=changes[p.id][1])
                                       if p.id in changes else p for p in scene.pieces))


def without(scene: Scene, *ids) -> Scene:
    return replace(scene, pieces=tuple(p for p in scene.pieces if p.id not in ids))


def turned(scene: Scene, degrees: float, shift=(40.0, 25.0), noise=3.0, seed=1) -> Scene:
    """The scene seen by a camera turned by `degrees`, with tiles and pyramids off by up to `noise` mm."""
    rng = random.Random(seed)
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))

    def move(p):
        x, y = p.x + rng.uniform(-noise, noise), p.y + rng.uniform(-noise, noise)
        return replace(p, x=x * c - y * s + shift[0], y=x * s + y * c + shift[1],
                       angle=(degrees + rng.uniform(-2, 2)) % 360 if p.type == "tile" else p.angle)
    return Scene("icefloe", tuple(move(p) for p in scene.pieces), (600, 600), state={})


def test_status_lists_every_floe_with_its_cell_weight_and_pyramids():
    report = evaluate(floe().scene())
    floes = report.status["floes"]
    assert len(floes) == 24 and report.warnings == []
    assert floes["crowns-1"] == {"cell": [2, 0], "weight": 1, "pyramids": ["suns-A"]}
    assert floes["crowns-5"] == {"cell": [4, 4], "weight": 3, "pyramids": ["arms-F"]}
    assert report.status["game_over"] is False
    assert report.scores == {s: 21 for s in FOUR}


@pytest.mark.parametrize("degrees", [0, 4, -5, 90])
def test_grid_fit_tolerates_a_turned_camera_and_misplaced_pieces(degrees):
    before = evaluate(floe().scene()).status["floes"]
    after = evaluate(turned(floe().scene(), degrees)).status["floes"]
    assert {t: f["pyramids"] for t, f in after.items()} == {t: f["pyramids"] for t, f in before.items()}
    cells = {t: tuple(f["cell"]) for t, f in after.items()}
    # the same grid up to the camera's quarter turn
    assert len(set(cells.values())) == 24 and all(0 <= c < 5 and 0 <= r < 5 for c, r in cells.values())
    if degrees != 90:
        assert cells == {t: tuple(f["cell"]) for t, f in before.items()}


def test_overweight_floe_is_reported_and_its_pyramids_score_nothing():
    match = floe()
    scene = match.scene()
    tile = scene.by_id()["crowns-1"]
    scene = moved(scene, {"suns-F": (tile.x + 12, tile.y + 12), "suns-E": (tile.x - 12, tile.y + 12)})
    report = evaluate(scene)
    assert report.codes() == ["overweight_floe"]
    assert set(report.warnings[0].pieces) == {"crowns-1", "suns-A", "suns-E", "suns-F"}
    assert report.status["floes"]["crowns-1"]["weight"] == 7
    assert report.scores["suns"] == 21 - 1 - 5 - 6


def test_pyramid_off_every_tile_is_in_the_water():
    scene = floe().scene()
    hole_x, hole_y = 50 + 2.5 * 50.8, 50 + 2.5 * 50.8
    report = evaluate(moved(scene, {"moons-A": (hole_x, hole_y)}))
    assert report.codes() == ["in_water"] and report.warnings[0].suit == "moons"
    assert report.scores["moons"] == 20


def test_pyramid_a_few_mm_over_a_tile_edge_still_stands_on_it():
    scene = floe().scene()
    tile = scene.by_id()["crowns-1"]
    report = evaluate(moved(scene, {"suns-A": (tile.x + 50.8 / 2 + 2, tile.y)}))
    # 2 mm beyond the edge between crowns-1 and moons-2: nearest tile wins, nothing in the water
    assert "in_water" not in report.codes()


def test_game_over_when_a_player_has_no_pyramid_or_all_stand_on_one_tile():
    scene = floe().scene()
    suns = [p.id for p in scene.pieces if p.type == "pp_pyramid" and p.suit == "suns"]
    gone = without(scene, *suns)
    assert evaluate(replace(gone, state={"players": FOUR})).status["game_over"] is True
    assert evaluate(replace(gone, state={})).status["game_over"] is False   # suns not known to play
    tile = scene.by_id()["moons-1"]
    few = Scene("icefloe", (tile, replace(scene.by_id()["suns-A"], x=tile.x, y=tile.y)), None, state={})
    assert evaluate(few).status["game_over"] is True


def test_check_command_reads_an_icefloe_scene(tmp_path):
    path = tmp_path / "floe.json"
    write_scene(floe().scene(), path)
    result = subprocess.run([sys.executable, "-m", "icetable", "check", str(path)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"]["floes"]["crowns-1"]["pyramids"] == ["suns-A"]


# ---- one turn judged from the scenes before and after it ----------------------------------

def after_action(action: dict):
    match = floe()
    before = match.scene()
    act(match, **action)
    return before, match.scene()


@pytest.mark.parametrize("action", [
    {"player": "suns", "kind": "move", "pyramid": "suns-A", "to": [2, 3]},
    {"player": "suns", "kind": "move", "pyramid": "suns-F", "to": [1, 1]},
])
def test_a_legal_turn_raises_nothing(action):
    before, after = after_action(action)
    assert judge_turn(before, after, "suns") == []


def test_a_legal_slide_and_a_legal_crack():
    match = floe()
    act(match, "suns", "move", pyramid="suns-A", to=[1, 1])
    before = match.scene()
    act(match, "moons", "move", pyramid="moons-A", to=[1, 0])
    mid = match.scene()
    assert judge_turn(before, mid, "moons") == []
    act(match, "crowns", "slide", tile="suns-0", to=[2, 2])
    assert judge_turn(mid, match.scene(), "crowns") == []
    heavy = match.scene()
    act(match, "arms", "move", pyramid="arms-F", to=[3, 3])        # 3 + 3 on the 2 of crowns: cracks
    assert "crowns-2" not in match.board.tiles
    assert judge_turn(heavy, match.scene(), "arms") == []


def test_a_pyramid_seen_on_the_floe_it_cracked_before_the_floe_is_cleared():
    """The camera may see the pyramid arrive before the players take the cracked floe away."""
    placed = dict(STANDARD4, **{"moons-A": "suns-3"})     # suns-C 2 + moons-A 1 on (1, 0)
    before = floe(FOUR, placed).scene()
    spot = before.by_id()["suns-3"]
    arrived = moved(before, {"suns-F": (spot.x + 8, spot.y - 8)})       # + 3 = 6: cracked
    assert judge_turn(before, arrived, "suns") == []
    assert evaluate(arrived).codes() == ["overweight_floe"]


def _judged(before, after, player="suns"):
    warnings = judge_turn(before, after, player)
    assert [w.code for w in warnings] == ["illegal_turn"]
    return warnings[0].message


def test_illegal_turns_say_what_is_wrong():
    scene = floe().scene()
    tiles = scene.by_id()
    assert "nothing moved" in _judged(scene, scene)
    far = tiles["suns-1"]
    assert "cannot go from [2, 0] to [2, 4]" in _judged(scene, moved(scene, {"suns-A": (far.x, far.y + 8)}))
    near = tiles["suns-3"]
    assert "not a pyramid of suns" in _judged(scene, moved(scene, {"moons-A": (near.x + 10, near.y)}))
    two = moved(scene, {"suns-A": (tiles["arms-1"].x + 10, tiles["arms-1"].y),
                        "suns-B": (tiles["suns-4"].x + 10, tiles["suns-4"].y + 10)})
    assert "more than one action" in _judged(scene, two)
    hole = (50 + 2.5 * 50.8, 50 + 2.5 * 50.8)
    slid = moved(scene, {"suns-0": hole, "crowns-A": hole})
    assert "carries no pyramid of suns" in _judged(scene, slid)
    assert judge_turn(scene, slid, "crowns") == []


def test_unknown_rule_option_is_refused_by_the_scene_check():
    from referee.options import OptionError
    with pytest.raises(OptionError, match="unknown rule option"):
        evaluate(floe().scene(), options={"graze": "hits"})
