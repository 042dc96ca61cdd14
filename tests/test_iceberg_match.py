"""IcebergMatch through the match protocol: start positions, play, move, flip and bumps, rolls,
stranded tiles, players out, the winner; each reading of the lost figures as an option."""
import json
from collections import Counter

import pytest

from referee.iceberg import IcebergMatch
from referee.iceberg.board import donut, groups, stranded
from referee.match import IllegalAction, new_match
from referee.scene import scene_from_dict
from tests.piecepack_builders import act

TWO = ["suns", "moons"]
FOUR = ["suns", "moons", "crowns", "arms"]
DONUT = """
        c0   c1   c2   c3   c4        squares: tile cCR covers columns 2C..2C+1, rows 2R..2R+1
  r0   t00  t10  t20  t30  t40
  r1   t01  t11  t21  t31  t41
  r2   t02  t12  ...  t32  t42        (the hole: squares 4..5 x 4..5)
  r3   t03  t13  t23  t33  t43
  r4   t04  t14  t24  t34  t44
"""


def berg(coins, **kwargs):
    """A position; flips without a face take the seeded shuffle's (`tiles=shuffle`) unless the
    test's options say otherwise."""
    options = {"tiles": "shuffle", **kwargs.pop("options", {})}
    return IcebergMatch.from_position(kwargs.pop("players", TWO), coins, options=options, **kwargs)


def started(options=None):
    match = new_match("iceberg", TWO, seed=2, options=options)
    first = match.legal_actions("suns")[0]
    match.apply(first)
    match.apply(match.legal_actions("moons")[0])
    return match


def test_the_iceberg_is_24_face_down_tiles_around_an_empty_centre():
    board = donut()
    assert len(board.tiles) == 24 and (2, 2) not in board.at()
    assert all(face is None for face in board.faces.values())


@pytest.mark.parametrize("rule, squares", [("corners", [[0, 0], [9, 0], [9, 9], [0, 9]]),
                                           ("inner", [[3, 3], [6, 3], [6, 6], [3, 6]])])
def test_each_player_places_one_coin_on_a_start_position_in_turn(rule, squares):
    match = new_match("iceberg", FOUR, options={"start": rule})
    assert [a["square"] for a in match.legal_actions("suns")] == squares
    assert match.legal_actions("moons") == []
    act(match, "suns", "play", square=squares[2])
    assert [a["square"] for a in match.legal_actions("moons")] == [s for s in squares if s != squares[2]]
    with pytest.raises(IllegalAction):
        act(match, "moons", "play", square=[4, 0])
    for player, square in zip(FOUR[1:], [s for s in squares if s != squares[2]]):
        act(match, player, "play", square=square)
    assert match.phase == "play" and match.to_act() == ["suns"] and match.hands["suns"] == 5


@pytest.mark.parametrize("rule, die, rolls, count", [
    ("edge_or_gap", "table", 6, 122), ("gap_only", "table", 6, 106),
    ("edge_or_gap", "virtual", 1, 117), ("gap_only", "virtual", 1, 101)])
def test_first_turn_choices_counted_by_hand(rule, die, rolls, count):
    """94 free squares to play on, 2 moves of the coin on (0, 0), the roll (one per face the real
    die can show, or the one virtual roll), and the flips: 20 tiles with a side on the edge or the
    hole (the 4 inner corners have none), or only the 4 by the hole."""
    match = started({"open_side": rule, "die": die})
    kinds = Counter(a["type"] for a in match.legal_actions("suns"))
    assert kinds["play"] == 94 and kinds["move"] == 2 and kinds["roll"] == rolls
    assert sum(kinds.values()) == count


def test_a_real_tile_must_say_its_face_and_the_match_takes_it():
    match = berg({"suns": [[0, 0]], "moons": [[9, 9]]}, options={"tiles": "table"})
    before = match.view(None)
    with pytest.raises(IllegalAction, match="say which face"):
        act(match, "suns", "flip", tile="t40")
    assert match.view(None) == before
    hidden = match.hidden["t40"]
    real = next(f for f in match.hidden.values() if f != hidden)
    act(match, "suns", "flip", tile="t40", face=list(real))
    assert match.board.faces["t40"] == real


def test_a_flip_takes_the_face_the_camera_sees():
    match = berg({"suns": [[0, 0]], "moons": [[9, 9]]}, options={"tiles": "table"})
    seen = match.scene().to_dict()
    tile = next(p for p in seen["pieces"] if p["id"] == "t40")
    tile.update(face="up", suit="crowns", rank=0)
    verdict = match.apply({"player": "suns", "type": "flip", "tile": "t40"}, scene_from_dict(seen, "cam"))
    assert match.board.faces["t40"] == ("crowns", 0) and verdict["warnings"] == []


def test_a_roll_is_the_real_die_unless_the_virtual_die_is_chosen():
    match = berg({"suns": [[0, 0]], "moons": [[9, 9]]}, faces={"t40": ["moons", 3]}, options={"die": "table"})
    with pytest.raises(IllegalAction, match="roll the real die"):
        act(match, "suns", "roll")
    act(match, "suns", "roll", roll=3)
    assert match.last_roll == 3 and "t40" not in match.board.tiles
    virtual = berg({"suns": [[0, 0]], "moons": [[9, 9]]}, options={"die": "virtual"}, seed=5)
    act(virtual, "suns", "roll")
    assert virtual.last_roll in range(6)


def test_play_and_move_stay_on_unoccupied_squares_of_tiles():
    match = berg({"suns": [[3, 4]], "moons": [[3, 5]]})
    with pytest.raises(IllegalAction):
        act(match, "suns", "play", square=[4, 4])                     # the hole
    with pytest.raises(IllegalAction):
        act(match, "suns", "play", square=[3, 5])                     # taken
    moves = {tuple(a["to"]) for a in match.legal_actions("suns") if a["type"] == "move"}
    assert moves == {(3, 3), (2, 4)}                                   # not into the hole or onto moons
    act(match, "suns", "move", coin="suns-1", to=[3, 3])
    assert match.board.coins["suns-1"] == (3, 3) and match.to_act() == ["moons"]


def test_no_coin_in_hand_means_no_play():
    match = berg({"suns": [[0, 0]], "moons": [[9, 9]]}, hands={"suns": 0})
    assert "play" not in {a["type"] for a in match.legal_actions("suns")}


def test_flip_needs_an_open_side():
    match = berg({"suns": [[0, 0]], "moons": [[9, 9]]})
    with pytest.raises(IllegalAction):
        act(match, "suns", "flip", tile="t11")
    match = berg({"suns": [[0, 0]], "moons": [[9, 9]]}, removed=("t10",))
    act(match, "suns", "flip", tile="t11")
    assert match.board.faces["t11"] is not None


def test_flip_bumps_coins_diagonally_with_chains_and_losses():
    """Flipping t00: (0,0), (1,0), (0,1) fly off the edge; (1,1) pushes (2,2), which pushes (3,3)
    into the hole."""
    match = berg({"suns": [[0, 0], [1, 1]], "moons": [[1, 0], [2, 2], [3, 3]]})
    verdict = act(match, "suns", "flip", tile="t00")
    assert match.board.coins == {"suns-2": (2, 2), "moons-2": (3, 3)}
    assert sorted(verdict["events"][0]["lost"]) == ["moons-1", "moons-3", "suns-1"]


def test_flip_bumps_coins_pinwheel_option():
    match = berg({"suns": [[0, 0], [1, 1]], "moons": [[1, 0], [2, 0], [0, 1]]}, options={"bump": "pinwheel"})
    act(match, "suns", "flip", tile="t00")
    assert match.board.coins == {"suns-2": (1, 2), "moons-1": (2, 0), "moons-2": (3, 0)}


def test_flip_may_name_the_face_the_table_shows():
    match = berg({"suns": [[0, 0]], "moons": [[9, 9]]})
    act(match, "suns", "flip", tile="t40", face={"suit": "arms", "rank": 3})
    assert match.board.faces["t40"] == ("arms", 3)
    with pytest.raises(IllegalAction, match="no longer face down"):
        act(match, "moons", "flip", tile="t04", face={"suit": "arms", "rank": 3})


def test_roll_without_a_match_ends_the_turn():
    match = berg({"suns": [[0, 0]], "moons": [[9, 9]]}, faces={"t40": ["moons", 3]})
    verdict = act(match, "suns", "roll", roll=2)
    assert [e["type"] for e in verdict["events"]] == ["roll", "no_match"] and match.to_act() == ["moons"]


def test_roll_removes_the_matching_tile_with_its_coins():
    match = berg({"suns": [[0, 0]], "moons": [[9, 9], [8, 0]]}, faces={"t40": ["moons", 3]})
    act(match, "suns", "roll", roll=3)
    assert "t40" not in match.board.tiles and "moons-2" not in match.board.coins


def test_several_matches_the_roller_chooses():
    match = berg({"suns": [[0, 0]], "moons": [[9, 9]]}, faces={"t40": ["moons", 3], "t20": ["suns", 3]})
    act(match, "suns", "roll", roll=3)
    assert match.phase == "choose" and match.to_act() == ["suns"]
    with pytest.raises(IllegalAction):
        act(match, "suns", "remove", tile="t00")
    act(match, "suns", "remove", tile="t20")
    assert "t20" not in match.board.tiles and "t40" in match.board.tiles and match.to_act() == ["moons"]


@pytest.mark.parametrize("connect, cut", [("orthogonal", True), ("diagonal", False)])
def test_stranded_tiles_go_with_their_coins(connect, cut):
    """Without t01 and t10, t00 touches the iceberg only at the corner of t11."""
    match = berg({"suns": [[0, 0], [9, 9]], "moons": [[9, 0]]}, faces={"t10": ["crowns", 4]},
                 removed=("t01",), options={"connect": connect})
    verdict = act(match, "suns", "roll", roll=4)
    assert ("t00" not in match.board.tiles) is cut
    assert ("suns-1" not in match.board.coins) is cut
    assert ("stranded" in [e["type"] for e in verdict["events"]]) is cut


def test_two_halves_of_equal_size_both_stay():
    board = donut()
    for tid in ("t20", "t21", "t23", "t24"):
        board.remove_tile(tid)
    assert [len(g) for g in groups(board)] == [10, 10] and stranded(board) == []


def test_a_player_without_coins_is_out_and_the_last_survivor_wins():
    match = berg({"suns": [[9, 9]], "moons": [[0, 0]]}, hands={"moons": 0}, players=TWO)
    verdict = act(match, "suns", "flip", tile="t00")
    assert [e["type"] for e in verdict["events"]][-2:] == ["out", "winner"]
    assert match.is_over() and match.winner() == ["suns"] and match.to_act() == []
    with pytest.raises(IllegalAction, match="over"):
        act(match, "moons", "roll")


def test_out_players_lose_their_turns():
    coins = {"suns": [[9, 9]], "moons": [[0, 0]], "crowns": [[9, 0]], "arms": [[0, 9]]}
    match = berg(coins, players=FOUR, hands={"moons": 0})
    act(match, "suns", "flip", tile="t00")
    assert match.out == ["moons"] and match.to_act() == ["crowns"]


def test_the_last_player_on_the_last_tile_wins_even_if_others_hold_coins():
    keep = ("t00", "t10")
    removed = tuple(t for t in donut().tiles if t not in keep)
    match = berg({"suns": [[0, 0]], "moons": [[2, 0]]}, faces={"t10": ["moons", 4]}, removed=removed)
    act(match, "suns", "roll", roll=4)
    assert match.winner() == ["suns"] and match.hands["moons"] == 5


def test_players_losing_their_last_coins_together_share_the_victory():
    keep = ("t00", "t10")
    removed = tuple(t for t in donut().tiles if t not in keep)
    match = berg({"suns": [[2, 0]], "moons": [[3, 1]]}, faces={"t10": ["moons", 4]}, removed=removed,
                 hands={"suns": 0, "moons": 0})
    act(match, "suns", "roll", roll=4)
    assert match.winner() == ["suns", "moons"]


def test_view_hides_the_face_down_tiles_and_is_json():
    a, b = started(), started()
    b.hidden = dict(reversed(list(b.hidden.items())))     # another shuffle underneath
    for viewer in ("suns", None):
        assert a.view(viewer) == b.view(viewer)
    view = a.view("moons")
    assert json.loads(json.dumps(view)) == view
    assert view["tiles"]["t00"] == {"cell": [0, 0], "face": "down", "open": True}
    assert view["coins"]["suns-1"] == {"suit": "suns", "square": [0, 0]} and view["hands"]["suns"] == 5


def test_wrong_players_are_refused():
    with pytest.raises(ValueError, match="2 or 4"):
        IcebergMatch(["suns", "moons", "crowns"])
