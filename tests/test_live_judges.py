"""Judges: what the camera saw becomes the action the match accepts, or a warning."""
from dataclasses import replace

from icetable.live.judges import IcehouseJudge, TurnJudge
from referee.icefloe.match import IceFloeMatch
from referee.match import new_match
from referee.scene import Piece, Scene
from vision.tracking import Event


def test_icefloe_move_seen_is_the_legal_move_of_the_player_to_act():
    match = IceFloeMatch.from_position(["suns", "moons", "crowns"],
                                       {"suns-A": "suns-3", "moons-A": "moons-2", "crowns-A": "crowns-2"})
    player = match.to_act()[0]
    move = next(a for a in match.legal_actions(player) if a["type"] == "move")
    after = IceFloeMatch.from_position(["suns", "moons", "crowns"],
                                       {"suns-A": "suns-3", "moons-A": "moons-2", "crowns-A": "crowns-2"})
    after.apply(move)
    out = TurnJudge("icefloe").judge([], after.scene(), match)
    assert out.actions == [move] and out.warnings == []


def test_icefloe_pyramid_seen_on_the_floe_it_cracks_is_that_move():
    """Seen before the players clear the cracked floe: the move, not an illegal turn."""
    from tests.piecepack_builders import FOUR, STANDARD4
    match = IceFloeMatch.from_position(FOUR, dict(STANDARD4, **{"moons-A": "suns-3"}))
    seen = match.scene()
    spot = seen.by_id()["suns-3"]
    arrived = replace(seen, pieces=tuple(replace(p, x=spot.x + 8, y=spot.y - 8) if p.id == "suns-F" else p
                                         for p in seen.pieces))
    out = TurnJudge("icefloe").judge([], arrived, match)
    assert out.actions == [{"player": "suns", "type": "move", "pyramid": "suns-F", "to": [1, 0]}]
    assert out.warnings == []


def test_icefloe_table_no_legal_action_explains_is_a_warning():
    match = IceFloeMatch.from_position(["suns", "moons", "crowns"],
                                       {"suns-A": "suns-3", "moons-A": "moons-2", "crowns-A": "crowns-2"})
    seen = match.scene()
    far = [p for p in seen.pieces if p.type == "tile" and p.id == "arms-5"][0]
    jumped = [replace(p, x=far.x, y=far.y) if p.id == "suns-A" else p for p in seen.pieces]
    judge = TurnJudge("icefloe")
    first = judge.judge([], replace(seen, pieces=tuple(jumped)), match)
    assert first.actions == [] and first.warnings == [] and first.recheck      # a second look first
    out = judge.judge([], replace(seen, pieces=tuple(jumped)), match)
    assert out.actions == []
    assert [w["code"] for w in out.warnings] == ["illegal_turn"]
    assert "suns-A cannot go from [1, 0] to [1, 4]" in out.warnings[0]["message"]


def test_ice_pirates_ship_seen_moved_is_a_move_the_match_accepts():
    match = new_match("icepirates", ["red", "blue"], seed=1)
    move = next(a for a in match.legal_actions("red") if a["type"] == "move")
    ship = match.scene().by_id()[move["ship"]]
    now = replace(ship, id="red-3-1", x=move["to"]["x"], y=move["to"]["y"], heading=move["to"]["heading"])
    out = TurnJudge("icepirates").judge([Event("moved", now, replace(ship, id="red-3-1"))], match.scene(), match)
    assert out.actions == [{**move, "seen": True}]
    assert match.apply(out.actions[0])["ok"]
    blue = next(p for p in match.scene().pieces if p.color == "blue" and p.pose == "lying")
    other = TurnJudge("icepirates").judge([Event("moved", replace(blue, x=blue.x + 30), blue)], match.scene(), match)
    assert other.actions == []             # not blue's turn: jostled, to be put back
    assert [(w["code"], w["pieces"], w["was"]["x"]) for w in other.warnings] == [("jostled", [blue.id], blue.x)]


def test_icehouse_placements_go_to_the_stash_that_holds_the_piece():
    judge = IcehouseJudge(["red", "blue"], (600.0, 450.0))
    red = Piece("red-2-1", "pyramid", 100.0, 100.0, color="red", size=2, pose="standing")
    out = judge.judge([Event("placed", red)], Scene("icehouse", (red,), (600.0, 450.0)))
    assert out.actions[0]["player"] == "red" and judge.match.stash["red"][("red", 2)] == 4
    green = Piece("green-1-1", "pyramid", 300.0, 300.0, color="green", size=1, pose="standing")
    out = judge.judge([Event("placed", green)], Scene("icehouse", (red, green), (600.0, 450.0)))
    assert [w["code"] for w in out.warnings] == ["not_in_stash"]


def test_iceberg_flip_and_coin_move_seen_are_found():
    """The flip found carries the face the real tile shows (not the match's shuffle)."""
    import copy
    match = new_match("iceberg", ["suns", "moons"], seed=3)
    for _ in range(2):                                   # both players put a coin on the start
        player = match.to_act()[0]
        match.apply(match.legal_actions(player)[0])
    player = match.to_act()[0]
    for kind, extra in (("flip", {"face": ["arms", 5]}), ("move", {})):
        action = {**next(a for a in match.legal_actions(player) if a["type"] == kind), **extra}
        after = copy.deepcopy(match)
        after.apply(action)
        out = TurnJudge("iceberg").judge([], after.scene(), match)
        assert out.actions == [action], kind


def test_iceberg_tile_melted_by_a_real_die_roll_is_that_roll():
    import copy
    match = new_match("iceberg", ["suns", "moons"], seed=3)
    for _ in range(2):
        match.apply(match.legal_actions(match.to_act()[0])[0])
    match.apply({"player": "suns", "type": "flip", "tile": "t40", "face": ["moons", 4]})
    after = copy.deepcopy(match)
    after.apply({"player": "moons", "type": "roll", "roll": 4})
    out = TurnJudge("iceberg").judge([], after.scene(), match)
    assert out.actions == [{"player": "moons", "type": "roll", "roll": 4}]


def test_icefloe_misread_sizes_and_faces_are_forgiven_and_put_right():
    match = IceFloeMatch.from_position(["suns", "moons", "crowns"],
                                       {"suns-A": "suns-3", "suns-B": "suns-3", "moons-A": "moons-2"})
    seen = match.scene()
    wrong = {"suns-A": {"size": "C"}, "moons-2": {"rank": 4}}   # a size and a tile face misread
    misread = replace(seen, pieces=tuple(replace(p, **wrong.get(p.id, {})) for p in seen.pieces))
    out = TurnJudge("icefloe").judge([], misread, match)
    assert out.actions == [] and out.warnings == []
    fixed = out.scene.by_id()
    assert sorted((fixed["suns-A"].size, fixed["suns-B"].size)) == ["A", "B"]
    assert (fixed["moons-2"].suit, fixed["moons-2"].rank) == ("moons", 2)


def test_icehouse_redundant_attacker_taken_off_is_a_capture():
    judge = IcehouseJudge(["red", "blue"], (600.0, 450.0))

    def pyr(pid, color, size, x, y, heading=None):
        return Piece(pid, "pyramid", x, y, color=color, size=size,
                     pose="standing" if heading is None else "lying", heading=heading)
    half = 14.29 / 2 + 6
    table = [pyr("r1", "red", 1, 100, 100), pyr("b3", "blue", 3, 400, 300), pyr("b3b", "blue", 3, 400, 100),
             pyr("a2", "blue", 2, 100 - half, 100, 0.0), pyr("a1", "blue", 1, 100, 100 - half, 90.0)]
    for k, piece in enumerate(table):
        judge.judge([Event("placed", piece)], Scene("icehouse", tuple(table[:k + 1]), (600.0, 450.0)))
    assert judge.match.report().status["defenders"]["r1"]["capturable"] == ["a1"]
    out = judge.judge([Event("removed", table[-1])], Scene("icehouse", tuple(table[:-1]), (600.0, 450.0)))
    assert out.actions == [{"player": "red", "type": "capture", "piece": "a1"}]
    assert out.warnings == [] and judge.match.stash["red"][("blue", 1)] == 1
