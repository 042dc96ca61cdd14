"""Ice Pirates scene reports: status.ships, collisions, treasure at home, the check command."""
import json
import subprocess

import pytest

from tests.icepirates_builders import BASE, LENGTH, home, load, nest, scene, ship, standing
from referee.evaluate import evaluate
from referee.icepirates.rules import win_threshold
from referee.options import OptionError


def report(pieces, **kwargs):
    options = kwargs.pop("options", None)
    return evaluate(load(scene(pieces, **kwargs)), options=options)


def test_status_ships_follows_the_contract():
    status = report([ship("r", "red", 2, 400, 400, 0), nest("i1", 420.0, 400.0)]).status
    entry = status["ships"]["r"]
    assert {"size", "docked_with", "in_range"} <= set(entry)
    assert entry["size"] == 2 and entry["docked_with"] == ["i1"] and entry["in_range"] == []
    assert entry["disabled"] is False and entry["damage"] == 0
    assert "i1" not in status["ships"]


def test_disabled_ships_and_damage_chits():
    pieces = [ship("r", "red", 3, 400, 400, 0), standing("b", "blue", 2, 300, 300),
              {"id": "c1", "type": "chit", "x": 390, "y": 395, "on": "r"},
              {"id": "c2", "type": "chit", "x": 385, "y": 395, "on": "r"}]
    ships = report(pieces).status["ships"]
    assert ships["r"]["damage"] == 2 and not ships["r"]["disabled"]
    assert ships["b"]["disabled"] and ships["b"]["in_range"] == []
    assert report(pieces, damage={"r": 1}).status["ships"]["r"]["damage"] == 1


def test_overlapping_ships_collide_but_touching_ones_do_not():
    a = ship("a", "red", 2, 400, 400, 0)
    touching = ship("b", "blue", 2, 400 - LENGTH[2], 400 + BASE[2], 0)   # base corners meet
    overlapping = ship("c", "blue", 2, 395, 405, 90)
    assert report([a, touching]).codes() == []
    warnings = report([a, overlapping]).warnings
    assert [w.code for w in warnings] == ["collision"] and set(warnings[0].pieces) == {"a", "c"}


def test_a_ship_across_the_edge_collides():
    inside = report([ship("a", "red", 1, 799.5, 400, 0)])
    across = report([ship("a", "red", 1, 810.0, 400, 0)])
    assert inside.codes() == [] and across.codes() == ["collision"]
    assert "edge" in across.warnings[0].message


def test_ships_touching_their_home_and_cargo_on_it_are_no_collision():
    card = home("red", 400, 400)
    docked = ship("r", "red", 3, 400 + 74 + LENGTH[3], 400, 0)
    treasure = [standing("t1", "black", 2, 390, 400), standing("t2", "black", 1, 410, 400),
                standing("t3", "black", 3, 380, 380), standing("t4", "white", 2, 420, 420)]
    result = report([card, docked, *treasure])
    assert result.codes() == []
    assert result.status["ships"]["r"]["docked_with"] == ["home-red"]
    assert result.scores == {"red": 3, "blue": 0}


@pytest.mark.parametrize("players,need", [(2, 8), (3, 6), (4, 4), (5, 4)])
def test_win_thresholds(players, need):
    assert win_threshold(players) == need
    colors = ["red", "blue", "green", "yellow", "purple"][:players]
    short = report([], players=colors, home_treasure={"red": need - 1})
    won = report([], players=colors, home_treasure={"red": need})
    assert short.status["winner"] is None and won.status["winner"] == ["red"]


@pytest.mark.parametrize("players", [1, 6])
def test_thresholds_only_for_two_to_five(players):
    with pytest.raises(ValueError):
        win_threshold(players)


def test_reach_option_adds_polygons():
    result = report([ship("r", "red", 3, 400, 400, 0)], options={"reach": "true"})
    rings = result.status["ships"]["r"]["reach"]
    assert len(rings) == 1 and len(rings[0][0]) >= 8
    assert "reach" not in report([ship("r", "red", 3, 400, 400, 0)]).status["ships"]["r"]


def test_bad_options_are_one_line_errors():
    with pytest.raises(OptionError, match="margin"):
        report([], options={"margin": "-1"})
    with pytest.raises(OptionError, match="cannon_slide"):
        report([], options={"cannon_slide": "sideways"})


def _check(*args):
    done = subprocess.run(["icetable", "check", *args], capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def test_check_the_harbour_example(repo_root):
    code, out, _ = _check(str(repo_root / "examples/icepirates/harbour.json"))
    assert code == 0
    data = json.loads(out)
    ships = data["status"]["ships"]
    assert ships["red-M1"]["docked_with"] == ["i1"]
    assert ships["red-L1"]["in_range"] == ["blue-S1"]               # blue-S3 hides behind i2
    assert ships["red-L1"]["damage"] == 1 and ships["blue-L2"]["disabled"]
    assert [w["code"] for w in data["warnings"]] == ["collision"]
    assert data["scores"] == {"red": 3, "blue": 0}


def test_check_the_boxed_in_example(repo_root):
    code, out, _ = _check(str(repo_root / "examples/icepirates/boxed_in.json"), "-o", "reach=true")
    ships = json.loads(out)["status"]["ships"]
    assert code == 0
    assert not ships["red-S1"]["can_move"] and ships["red-S1"]["reach"] == []
    assert not ships["blue-M1"]["can_move"] and ships["blue-M2"]["can_move"]


def test_check_the_starting_table(repo_root):
    code, out, _ = _check(str(repo_root / "examples/icepirates/start_3p.json"), "--text")
    assert code == 0 and out.startswith("icepirates: 0 warning(s)")


def test_check_a_bad_option_names_it(repo_root):
    code, out, err = _check(str(repo_root / "examples/icepirates/harbour.json"), "-o", "margin=wide")
    assert code == 2 and out == "" and "margin" in err and len(err.strip().splitlines()) == 1
