"""IcehouseMatch through the match protocol, and an Icehouse record replayed by the CLI."""
import json
import subprocess
import sys

import pytest

from referee.match import IllegalAction, new_match
from referee.scene import scene_from_dict
from referee.record import make_header, write_record
from tests.icehouse_builders import attack, lie, stand


def place(match, player, piece):
    return match.apply({"player": player, "type": "place", "piece": piece})


def opening(match):
    place(match, "red", stand("r1", "red", 2, 300, 300, angle=0))
    place(match, "red", stand("r2", "red", 3, 100, 100))
    place(match, "blue", stand("b1", "blue", 1, 500, 500))
    place(match, "blue", stand("b2", "blue", 1, 520, 100))


def test_an_illegal_attack_is_refused_and_nothing_changes():
    match = new_match("icehouse", ["red", "blue"])
    opening(match)
    before = match.view(None)
    with pytest.raises(IllegalAction, match="out of range"):
        place(match, "blue", attack("bx", "blue", 1, stand("r1", "red", 2, 300, 300, angle=0), 60, 0))
    assert match.view(None) == before


def test_attacks_capture_of_a_redundant_attacker_and_scores():
    match = new_match("icehouse", ["red", "blue", "green"])
    opening(match)
    place(match, "green", stand("g1", "green", 1, 50, 500))
    place(match, "green", stand("g2", "green", 1, 80, 500))
    r1 = stand("r1", "red", 2, 300, 300, angle=0)
    place(match, "blue", attack("a", "blue", 3, r1, 5, 0))
    verdict = place(match, "green", attack("b", "green", 3, dict(r1, angle=180), 5, 180))
    assert [w["code"] for w in verdict["warnings"]] == ["over_iced"]
    assert {"player": "red", "type": "capture", "piece": "a"} in match.legal_actions("red")
    assert match.legal_actions("blue") == [{"player": "blue", "type": "call"},
                                           {"player": "blue", "type": "time_up"}]
    with pytest.raises(IllegalAction):
        match.apply({"player": "blue", "type": "capture", "piece": "a"})
    match.apply({"player": "red", "type": "capture", "piece": "a"})
    assert match.view("red")["stash"]["red"] == 13 + 1           # a blue 3 prisoner
    assert {"color": "blue", "size": 3, "count": 1} in match.view(None)["stash_pieces"]["red"]
    assert match.scores() == {"red": 3, "blue": 2, "green": 2 + 3}


def test_meltdown_take_back_returns_every_attacker_of_the_colour():
    match = new_match("icehouse", ["red", "blue"])
    place(match, "blue", stand("b1", "blue", 1, 500, 500))
    place(match, "blue", stand("b2", "blue", 2, 300, 300, angle=0))
    verdict = place(match, "red", attack("ra", "red", 3, stand("b2", "blue", 2, 300, 300, angle=0), 5, 0))
    assert [w["code"] for w in verdict["warnings"]] == ["meltdown"]
    match.apply({"player": "red", "type": "take_back"})
    assert "ra" not in match.scene().by_id() and match.view(None)["stash"]["red"] == 15


def test_true_false_and_paid_calls():
    match = new_match("icehouse", ["red", "blue"])
    opening(match)
    with pytest.raises(IllegalAction, match="penalty"):
        match.apply({"player": "blue", "type": "call"})
        match.apply({"player": "blue", "type": "time_up"})
    assert match.penalty_due == "blue"
    match.apply({"player": "blue", "type": "pay_penalty", "to": "red", "color": "blue", "size": 3})
    assert match.view(None)["stash"] == {"red": 14, "blue": 12}
    # Red drops under the stash limit attacking blue, then both red defenders are iced.
    targets = [("b1", 500, 500, h, 1) for h in (0, 90, 180, 270)] + [
        ("b2", 520, 100, h, s) for h, s in ((0, 1), (90, 2), (180, 2))]
    for k, (bid, x, y, h, size) in enumerate(targets):
        place(match, "red", attack(f"ra{k}", "red", size, stand(bid, "blue", 1, x, y, angle=h), 3, h))
    place(match, "blue", attack("x1", "blue", 3, stand("r1", "red", 2, 300, 300, angle=0), 5, 0))
    r2 = stand("r2", "red", 3, 100, 100, angle=0)
    place(match, "blue", attack("x2", "blue", 2, r2, 3, 0))
    verdict = place(match, "blue", attack("x3", "blue", 2, dict(r2, angle=90), 3, 90))
    assert any(w["code"] == "icehouse_vulnerable" and w["color"] == "red" for w in verdict["warnings"])
    stash_red = match.view(None)["stash"]["red"]
    result = match.apply({"player": "blue", "type": "call"})
    assert result["events"][0]["call"]["kind"] == "true"
    assert match.view(None)["stash"]["red"] == 0 and match.view(None)["icehouse"] == ["red"]
    assert match.scores()["red"] == 0 and stash_red > 0


def test_time_up_ends_the_game_with_winners():
    match = new_match("icehouse", ["red", "blue"])
    opening(match)
    match.apply({"player": "red", "type": "time_up"})
    assert match.is_over() and match.winner() == ["red"] and match.to_act() == []
    with pytest.raises(IllegalAction, match="over"):
        place(match, "blue", stand("b9", "blue", 1, 10, 10))


def test_a_camera_scene_that_moved_a_played_piece_is_a_crash():
    match = new_match("icehouse", ["red", "blue"])
    opening(match)
    seen = match.scene().to_dict()
    seen["pieces"][0]["x"] += 10
    b3 = stand("b3", "blue", 1, 400, 400)
    seen["pieces"].append(b3)
    verdict = match.apply({"player": "blue", "type": "place", "piece": b3}, scene_from_dict(seen, "cam"))
    (crash,) = [w for w in verdict["warnings"] if w["code"] == "crash"]
    assert crash["pieces"] == ["r1"] and crash["was"]["x"] == 300


def test_icehouse_record_replays_through_the_cli(tmp_path):
    steps = [{"player": "red", "type": "place", "piece": stand("r1", "red", 2, 300, 300, angle=0)},
             {"player": "red", "type": "place", "piece": stand("r2", "red", 1, 100, 100)},
             {"player": "blue", "type": "place", "piece": stand("b1", "blue", 1, 500, 500)},
             {"player": "blue", "type": "place", "piece": stand("b2", "blue", 1, 520, 100)},
             {"player": "blue", "type": "place",
              "piece": attack("x", "blue", 3, stand("r1", "red", 2, 300, 300, angle=0), 5, 0)},
             {"player": "red", "type": "time_up"}]
    path = tmp_path / "game.jsonl"
    write_record(path, make_header("icehouse", ["red", "blue"]), steps)
    result = subprocess.run([sys.executable, "-m", "icetable", "replay", str(path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "red" in result.stdout and "blue" in result.stdout
    # The same record with an attack out of range stops at that line.
    steps[4]["piece"] = attack("x", "blue", 1, stand("r1", "red", 2, 300, 300, angle=0), 40, 0)
    write_record(path, make_header("icehouse", ["red", "blue"]), steps)
    result = subprocess.run([sys.executable, "-m", "icetable", "replay", str(path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and ":6" in result.stdout + result.stderr
