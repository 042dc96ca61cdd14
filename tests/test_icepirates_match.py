"""IcePiratesMatch: turns of three actions, firing, damage, repairs, cargo, exploring, treasure, records."""
import json
import math
import random
import subprocess

import pytest

from tests.icepirates_builders import LENGTH, home, load, nest, scene, ship, side_point, step
from referee.icepirates.cargo import fits
from referee.icepirates.match import IcePiratesMatch
from referee.match import IllegalAction, new_match

RED_L2 = ship("red-L2", "red", 3, 400.0, 600.0, 0.0)
RED_M1 = ship("red-M1", "red", 2, 400.0, 200.0, 0.0)


def _pointing_at(shooter, pid, size, depth=8.0):
    """An enemy ship `depth` mm off the shooter's first long side, its tip towards it."""
    x, y = side_point(shooter, 1, 0.5, depth)
    x2, y2 = side_point(shooter, 1, 0.5, depth + 1.0)
    return ship(pid, "blue", size, x, y, math.degrees(math.atan2(y - y2, x - x2)))


def duel_scene():
    """Red's Large docked with both its home and island i1; two red shooters with blue targets."""
    return scene([
        home("red", 150.0, 400.0), home("blue", 650.0, 400.0),
        ship("red-L1", "red", 3, 200.0, 470.2, 0.0), nest("i1", 175.0, 500.6),
        RED_M1, _pointing_at(RED_M1, "blue-M1", 2),
        RED_L2, _pointing_at(RED_L2, "blue-L2", 3),
        ship("red-S1", "red", 1, 400.0, 400.0, 0.0), ship("blue-S1", "blue", 1, 650.0, 600.0, 90.0),
        ship("blue-M3", "blue", 2, 205.0 + LENGTH[2], 470.2, 0.0),     # 5 mm off red-L1's bow
    ])


def duel(**options):
    nests = {"i1": [["black", 2], ["black", 1]] * 3 + [["white", 1]]}
    return IcePiratesMatch(["red", "blue"], seed=1, options={"scene": duel_scene(), "nests": nests, **options})


def act(match, player, kind, **fields):
    return match.apply({"player": player, "type": kind, **fields})


def move_to(match, player, pid, pose):
    return act(match, player, "move", ship=pid, to={"x": pose[0], "y": pose[1], "heading": pose[2]})


def forward(match, pid, turn=0.0, steps=1):
    piece = match.scene().by_id()[pid]
    return step({"x": piece.x, "y": piece.y, "heading": piece.heading, "size": piece.size}, turn, steps)


def test_three_actions_per_turn_then_only_free_ones():
    match = duel()
    move_to(match, "red", "red-S1", forward(match, "red-S1", 0, 2))
    act(match, "red", "fire", ship="red-M1", target="blue-M1")
    act(match, "red", "transfer", ship="red-L1", **{"with": "i1"}, take=[["black", 1]])
    assert match.view("red")["actions_left"] == 0
    with pytest.raises(IllegalAction, match="all 3 actions"):
        act(match, "red", "fire", ship="red-M1", target="blue-M1")
    assert act(match, "red", "explore", ship="red-L1", island="i1")["ok"]
    with pytest.raises(IllegalAction, match="not blue's turn"):
        act(match, "blue", "end_turn")
    act(match, "red", "end_turn")
    assert match.to_act() == ["blue"] and match.view(None)["actions_left"] == 3


def test_a_ship_moves_once_per_turn_and_within_its_steps():
    match = duel()
    with pytest.raises(IllegalAction, match="no chain"):
        move_to(match, "red", "red-S1", forward(match, "red-S1", 0, 5))
    verdict = move_to(match, "red", "red-S1", forward(match, "red-S1", 30, 3))
    assert verdict["events"][0]["steps"] == 3
    with pytest.raises(IllegalAction, match="already moved"):
        move_to(match, "red", "red-S1", forward(match, "red-S1", 0, 1))
    with pytest.raises(IllegalAction, match="not an active ship of red"):
        move_to(match, "red", "blue-S1", forward(match, "blue-S1", 0, 1))


def test_shots_per_turn_equal_ship_size_and_damage_disables():
    match = duel()
    for hit in (1, 2, 3):
        verdict = act(match, "red", "fire", ship="red-L2", target="blue-L2")
        assert verdict["events"][0]["damage"] == hit
    assert [e["type"] for e in verdict["events"]] == ["hit", "disabled"]
    assert match.view(None)["ships"]["blue-L2"]["disabled"]
    assert match.scene().by_id()["blue-L2"].pose == "standing"
    act(match, "red", "end_turn")
    act(match, "blue", "end_turn")
    act(match, "red", "fire", ship="red-M1", target="blue-M1")
    act(match, "red", "fire", ship="red-M1", target="blue-M1")
    with pytest.raises(IllegalAction, match="fired all 2"):
        act(match, "red", "fire", ship="red-M1", target="blue-M1")
    with pytest.raises(IllegalAction, match="not in range"):
        act(match, "red", "fire", ship="red-L2", target="blue-L2")       # disabled: no target


def test_a_disabled_ship_only_repairs_and_a_repaired_ship_does_nothing_else():
    match = duel()
    act(match, "red", "fire", ship="red-M1", target="blue-M1")
    act(match, "red", "fire", ship="red-M1", target="blue-M1")
    act(match, "red", "end_turn")
    with pytest.raises(IllegalAction, match="disabled"):
        move_to(match, "blue", "blue-M1", (0, 0, 0))
    verdict = act(match, "blue", "repair", ship="blue-M1", heading=200.0)
    assert [e["type"] for e in verdict["events"]] == ["repair", "relaunched"]
    piece = match.scene().by_id()["blue-M1"]
    assert piece.pose == "lying" and piece.heading == 200.0
    assert match.view(None)["ships"]["blue-M1"]["damage"] == 1
    with pytest.raises(IllegalAction, match="repaired this turn"):
        move_to(match, "blue", "blue-M1", forward(match, "blue-M1", 0, 1))
    act(match, "blue", "repair", ship="blue-M1")
    assert match.view(None)["ships"]["blue-M1"]["damage"] == 0
    with pytest.raises(IllegalAction, match="no damage"):
        act(match, "blue", "repair", ship="blue-M1")


def test_a_ship_that_acted_cannot_be_repaired_that_turn():
    data = duel_scene()
    data["state"]["damage"] = {"red-M1": 1}
    match = IcePiratesMatch(["red", "blue"], options={"scene": data})
    assert match.view(None)["ships"]["red-M1"]["damage"] == 1
    move_to(match, "red", "red-M1", forward(match, "red-M1", -30, 2))
    with pytest.raises(IllegalAction, match="acted this turn"):
        act(match, "red", "repair", ship="red-M1")


@pytest.mark.parametrize("size,cargo,ok", [
    (1, [("black", 1)], False), (2, [("black", 1)], True), (2, [("black", 2)], False),
    (3, [("black", 2), ("white", 1)], True), (3, [("black", 1), ("black", 1)], False),
    (3, [("black", 3)], False), (3, [], True)])
def test_cargo_holds(size, cargo, ok):
    assert fits(size, cargo) is ok


def test_transfers_need_docking_and_room():
    match = duel()
    with pytest.raises(IllegalAction, match="not docked"):
        act(match, "red", "transfer", ship="red-S1", **{"with": "i1"}, take=[["black", 1]])
    with pytest.raises(IllegalAction, match="carries at most"):
        act(match, "red", "transfer", ship="red-L1", **{"with": "i1"}, take=[["black", 1], ["white", 1]])
    with pytest.raises(IllegalAction, match="does not hold"):
        act(match, "red", "transfer", ship="red-L1", **{"with": "i1"}, take=[["white", 2]])
    act(match, "red", "transfer", ship="red-L1", **{"with": "i1"}, take=[["black", 2], ["black", 1]])
    assert match.view(None)["ships"]["red-L1"]["cargo"] == [["black", 2], ["black", 1]]
    assert match.view("red")["islands"]["i1"]["explored"]


def test_treasure_at_home_wins_the_game():
    match = duel()
    load_up = {"ship": "red-L1", "with": "i1", "take": [["black", 2], ["black", 1]]}
    unload = {"ship": "red-L1", "with": "home-red", "give": [["black", 2], ["black", 1]]}
    act(match, "red", "transfer", **load_up)
    act(match, "red", "transfer", **unload)
    act(match, "red", "transfer", **load_up)
    act(match, "red", "end_turn")
    act(match, "blue", "end_turn")
    act(match, "red", "transfer", **unload)
    act(match, "red", "transfer", **load_up)
    assert match.scores() == {"red": 6, "blue": 0} and not match.is_over()
    verdict = act(match, "red", "transfer", **unload)
    assert verdict["events"][-1]["type"] == "win"
    assert match.is_over() and match.winner() == ["red"] and match.scores()["red"] == 9
    assert match.to_act() == []
    with pytest.raises(IllegalAction, match="game is over"):
        act(match, "red", "end_turn")


def test_island_contents_are_seen_only_by_explorers():
    match = duel()
    act(match, "red", "explore", ship="red-L1", island="i1")
    assert match.view("red")["islands"]["i1"]["contents"][0] == ["black", 2]
    assert match.view("blue")["islands"]["i1"] == {"explored": False}
    assert "contents" not in json.dumps(match.view(None)["islands"])


def test_stealing_from_an_enemy_ship():
    match = duel()
    act(match, "red", "transfer", ship="red-L1", **{"with": "i1"}, take=[["black", 2], ["black", 1]])
    act(match, "red", "end_turn")
    with pytest.raises(IllegalAction, match="not docked"):
        act(match, "blue", "transfer", ship="blue-S1", **{"with": "red-L1"}, take=[["black", 1]])
    with pytest.raises(IllegalAction, match="carries at most one Small"):
        act(match, "blue", "transfer", ship="blue-M3", **{"with": "red-L1"}, take=[["black", 2]])
    act(match, "blue", "transfer", ship="blue-M3", **{"with": "red-L1"}, take=[["black", 1]])
    ships = match.view(None)["ships"]
    assert ships["blue-M3"]["cargo"] == [["black", 1]] and ships["red-L1"]["cargo"] == [["black", 2]]


def test_a_move_judged_from_the_scene_after_it():
    match = duel()
    data = duel_scene()
    x, y, h = forward(match, "red-S1", -25, 4)
    for piece in data["pieces"]:
        if piece["id"] == "red-S1":
            piece.update(x=x, y=y, heading=h)
    verdict = match.apply({"player": "red", "type": "move", "ship": "red-S1"}, load(data))
    assert verdict["events"][0]["steps"] == 4 and verdict["warnings"] == []
    assert match.scene().by_id()["red-S1"].x == pytest.approx(x, abs=0.01)


def test_bad_set_ups():
    with pytest.raises(ValueError, match="2 to 5"):
        new_match("icepirates", ["red"])
    with pytest.raises(ValueError, match="2 to 5"):
        new_match("icepirates", ["red", "blue", "green", "yellow", "purple", "orange"])
    with pytest.raises(ValueError, match="home cards"):
        IcePiratesMatch(["red", "green"], options={"scene": duel_scene()})


@pytest.mark.parametrize("players", [["red", "blue"], ["red", "blue", "green", "yellow", "purple"]])
def test_random_legal_play_never_breaks_a_rule(players):
    match = new_match("icepirates", players, seed=5)
    rng = random.Random(7)
    seen = set()
    for _ in range(60):
        player = match.to_act()[0]
        choice = rng.choice(match.legal_actions(player))
        seen.add(choice["type"])
        assert match.apply(choice)["ok"]
        assert all(match.legal_actions(p) == [] for p in players if p != match.to_act()[0])
    assert {"move", "end_turn"} <= seen


def _replay(path):
    return subprocess.run(["icetable", "replay", str(path)], capture_output=True, text=True, timeout=120)


def test_the_example_record_replays(repo_root):
    done = _replay(repo_root / "examples/icepirates/game.jsonl")
    assert done.returncode == 0, done.stderr
    assert "docked with i3" in done.stdout and "scores: red 1, blue 0" in done.stdout


def test_a_tampered_record_stops_at_the_illegal_line(repo_root, tmp_path):
    lines = (repo_root / "examples/icepirates/game.jsonl").read_text().splitlines()
    step = json.loads(lines[1])
    step["action"]["to"]["x"] += LENGTH[2] / 2
    lines[1] = json.dumps(step)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    done = _replay(bad)
    assert done.returncode == 1
    assert f"{bad}:2: illegal step 1 by red" in done.stderr
