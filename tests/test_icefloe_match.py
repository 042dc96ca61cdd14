"""IceFloeMatch through the match protocol: set-up, rounds, sealed votes, coins, ties, scoring, end."""
import json

import pytest

from referee.icefloe import IceFloeMatch
from referee.match import IllegalAction, new_match
from tests.piecepack_builders import FOUR, THREE, STANDARD4, act, floe, quiet_movement, vote_all

NO_COINS = {p: [] for p in FOUR}
# Lone A pyramids on four corners-ish tiles; ranks 5 all gone.
SPARSE = {"suns-A": "suns-2", "moons-A": "moons-3", "crowns-A": "crowns-4", "arms-A": "arms-4"}
NO_FIVES = ("suns-5", "moons-5", "arms-5", "crowns-5")


def test_rolloff_highest_wins_and_the_tied_roll_again():
    match = new_match("icefloe", FOUR, seed=1)
    for player, roll in zip(FOUR, (5, 5, 2, 3)):
        act(match, player, "roll", roll=roll)
    assert match.to_act() == ["suns", "moons"] and match.phase == "rolloff"
    with pytest.raises(IllegalAction, match="0 \\(null\\) to 5"):
        act(match, "suns", "roll", roll=7)
    act(match, "suns", "roll", roll=1)
    act(match, "moons", "roll", roll=4)
    assert match.first == "moons" and match.torch == "moons" and match.phase == "place"


@pytest.mark.parametrize("players, empty", [(FOUR, 0), (THREE, 2)])
def test_placement_goes_round_robin_A_then_B_one_pyramid_per_tile(players, empty):
    match = new_match("icefloe", players, seed=3)
    for player in players:
        act(match, player, "roll", roll=5 if player == players[1] else 1)
    order = []
    while match.phase == "place":
        player = match.to_act()[0]
        choice = match.legal_actions(player)[0]
        order.append((player, choice["size"]))
        occupied = set(match.board.pyramids.values())
        assert occupied.isdisjoint(a["tile"] for a in match.legal_actions(player))
        match.apply(choice)
    seats = players[1:] + players[:1]
    assert order == [(p, size) for size in "ABCDEF" for p in seats]
    assert len(match.board.unoccupied()) == empty
    assert match.phase == "move" and match.round == 1 and match.to_act() == [players[1]]


def test_ballots_are_secret_until_everyone_has_voted():
    twins = [floe(coins=NO_COINS), floe(coins=NO_COINS)]
    for match, ballot in zip(twins, (2, 5)):
        quiet_movement(match)
        verdict = act(match, "suns", "vote_number", value=ballot)
        assert str(ballot) not in json.dumps(verdict["events"]).replace("suns", "")
    for viewer in ("moons", "crowns", None):
        assert twins[0].view(viewer) == twins[1].view(viewer)
    assert twins[0].view("suns")["vote"]["mine"] == 2 and twins[1].view("suns")["vote"]["mine"] == 5
    assert twins[0].view("moons")["vote"]["voted"] == ["suns"]
    vote_all(twins[0], "number", {"moons": 2, "crowns": 3, "arms": 2})
    assert twins[0].view("crowns")["this_round"]["number"]["ballots"] == {
        "suns": 2, "moons": 2, "crowns": 3, "arms": 2}


def test_void_votes_do_not_count():
    match = floe(FOUR, SPARSE, removed=NO_FIVES, coins=NO_COINS)
    quiet_movement(match)
    vote_all(match, "number", {"suns": 5, "moons": 5, "crowns": 5, "arms": 4})
    result = match.view(None)["this_round"]["number"]
    assert result["result"] == 4 and result["void"] == ["suns", "moons", "crowns"]
    assert match.view(None)["vote"]["options"] == ["arms", "crowns", "moons", "suns"]


def test_voting_coins_weigh_votes_once_and_the_window_closes_when_all_pass():
    match = floe(FOUR, SPARSE, removed=NO_FIVES)
    quiet_movement(match)
    vote_all(match, "number", {"suns": 2, "moons": 2, "crowns": 3, "arms": 4})
    assert match.phase == "coins" and match.to_act() == ["suns"]   # the Torch Bearer first
    with pytest.raises(IllegalAction):
        act(match, "suns", "add_coins", coins=["ace"], value=5)      # nobody voted 5
    act(match, "suns", "pass")
    act(match, "moons", "add_coins", coins=["two", "ace"], value=3)  # 3 now weighs 1 + 3 = 4
    assert match.coins["moons"] == [] and match.to_act() == ["crowns"]
    act(match, "crowns", "add_coins", coins=["ace"], value=2)        # 2 weighs 2 + 1 = 3
    act(match, "arms", "pass")
    act(match, "suns", "pass")                                         # moons holds no coin: skipped
    assert match.to_act() == ["crowns"]
    act(match, "crowns", "pass")             # every holder has passed since the last coins
    assert match.phase == "vote"
    number = match.view(None)["this_round"]["number"]
    assert number["result"] == 3 and number["tally"] == [[2, 3], [3, 4], [4, 1]]
    assert match.view("suns")["coins"] == {"suns": ["ace", "two"], "moons": [], "crowns": ["two"],
                                           "arms": ["ace", "two"]}


def test_torch_bearer_breaks_a_tie_only_among_the_tied_options():
    match = floe(coins=NO_COINS)
    quiet_movement(match)
    vote_all(match, "number", {"suns": 1, "moons": 1, "crowns": 4, "arms": 4})
    assert match.phase == "tie" and match.to_act() == ["suns"]
    with pytest.raises(IllegalAction):
        act(match, "suns", "break_tie", value=3)
    act(match, "suns", "break_tie", value=4)
    vote_all(match, "suit", {"suns": "arms", "moons": "moons", "crowns": "arms", "arms": "moons"})
    act(match, "suns", "break_tie", value="moons")
    assert "moons-4" not in match.board.tiles and "moons-C" not in match.board.pyramids
    view = match.view(None)
    first_round = view["history"][0] if view["history"] else view["this_round"]
    assert first_round["suit"]["tie_break"] is True and first_round["removed"] == "moons-4"


@pytest.mark.parametrize("rule", ["torch_bearer", "no_removal"])
def test_every_ballot_void(rule):
    match = floe(FOUR, SPARSE, removed=NO_FIVES, coins=NO_COINS, options={"all_void": rule})
    quiet_movement(match)
    tiles = len(match.board.tiles)
    vote_all(match, "number", {p: 5 for p in FOUR})
    if rule == "torch_bearer":
        assert match.phase == "tie" and match.view(None)["tie_options"] == [0, 1, 2, 3, 4]
    else:
        assert len(match.board.tiles) == tiles and match.phase == "move" and match.round == 2


def test_removal_and_the_optional_extra_empty_tile():
    match = floe(FOUR, SPARSE, coins=NO_COINS)
    for player, cell in zip(FOUR, ([0, 1], [4, 1], [3, 3], [0, 3])):
        act(match, player, "move", pyramid=f"{player}-A", to=cell)
    vote_all(match, "number", {p: 3 for p in FOUR})
    vote_all(match, "suit", {p: "suns" for p in FOUR})
    assert "suns-3" not in match.board.tiles and match.phase == "extra"
    with pytest.raises(IllegalAction):
        act(match, "suns", "remove_empty", tile=match.board.pyramids["moons-A"])
    act(match, "suns", "remove_empty", tile="arms-0")
    assert "arms-0" not in match.board.tiles
    assert match.round == 2 and match.torch == "moons" and match.phase == "move"


def test_no_extra_tile_when_at_most_one_tile_is_empty():
    match = floe(coins=NO_COINS)            # every tile occupied; tiles slide into the hole
    act(match, "suns", "move", pyramid="suns-A", to=[2, 1])
    act(match, "moons", "slide", tile="crowns-0", to=[2, 2])
    act(match, "crowns", "slide", tile="arms-3", to=[1, 2])
    act(match, "arms", "slide", tile="arms-5", to=[1, 3])
    vote_all(match, "number", {p: 0 for p in FOUR})
    vote_all(match, "suit", {p: "crowns" for p in FOUR})   # the null of crowns carries moons-F
    assert "moons-F" not in match.board.pyramids
    assert match.board.unoccupied() == ["crowns-1"] and match.phase == "move" and match.round == 2


def _play_round(match):
    """Quiet moves, then everyone votes for the first empty tile."""
    quiet_movement(match)
    suit, number = match.board.faces[match.board.unoccupied()[0]]
    vote_all(match, "number", {p: number for p in match.players})
    vote_all(match, "suit", {p: suit for p in match.players})
    if match.phase == "extra":
        act(match, match.torch, "pass")


@pytest.mark.parametrize("players, first_scoring", [(THREE, 4), (FOUR, 5)])
def test_scoring_starts_when_everyone_has_held_the_torch(players, first_scoring):
    placed = {"suns-A": "suns-3", "moons-A": "moons-2", "crowns-A": "crowns-4", "arms-A": "arms-2"}
    placed = {k: v for k, v in placed.items() if k.split("-")[0] in players}
    match = floe(players, placed, round=first_scoring - 1, coins={p: [] for p in players})
    _play_round(match)
    assert match.phase == "move" and match.round == first_scoring
    _play_round(match)
    assert match.phase == "pick" and match.to_act() == [match.torch]


def test_the_rules_scoring_example_joe_7_bill_5_jill_6():
    """Joe (suns) picks a tile with his F, Bill's A and Jill's A; Bill (moons) a tile with only his
    D; Jill (crowns) a tile with her E and Joe's A."""
    placed = {"suns-F": "suns-3", "moons-A": "suns-3", "crowns-A": "suns-3", "moons-D": "moons-2",
              "crowns-E": "arms-3", "suns-A": "arms-3",
              "suns-B": "arms-0", "moons-B": "suns-1", "crowns-B": "crowns-4"}
    match = floe(THREE, placed, round=4, coins={p: [] for p in THREE})
    act(match, "suns", "move", pyramid="suns-B", to=[4, 3])
    act(match, "moons", "move", pyramid="moons-B", to=[2, 3])
    act(match, "crowns", "move", pyramid="crowns-B", to=[3, 3])
    vote_all(match, "number", {p: 0 for p in THREE})
    vote_all(match, "suit", {p: "moons" for p in THREE})
    act(match, "suns", "pass")
    for player, tile in (("suns", "suns-3"), ("moons", "moons-2"), ("crowns", "arms-3")):
        act(match, player, "pick", tile=tile)
    assert match.history[-1]["points"] == {"suns": 7, "moons": 5, "crowns": 6}
    assert match.scores() == {"suns": 7, "moons": 5, "crowns": 6}


def test_the_same_tile_may_be_picked_twice_and_scores_twice():
    placed = {"suns-F": "suns-3", "moons-A": "moons-2", "crowns-A": "crowns-4"}
    match = floe(THREE, placed, round=4, coins={p: [] for p in THREE})
    _play_round(match)
    for player in THREE:
        act(match, player, "pick", tile=match.board.pyramids["suns-F"])
    assert match.scores()["suns"] == 18


def test_game_ends_when_all_pyramids_stand_on_one_tile_and_the_torch_bearer_settles_the_tie():
    placed = {"suns-A": "suns-3", "moons-A": "suns-3", "crowns-A": "crowns-1"}
    match = floe(THREE, placed, removed=("arms-1",), scores={"suns": 4, "moons": 4, "crowns": 2})
    act(match, "suns", "move", pyramid="suns-A", to=[2, 0])
    act(match, "moons", "move", pyramid="moons-A", to=[2, 0])
    act(match, "crowns", "slide", tile="crowns-1", to=[2, 1])
    assert match.end_reason == "all pyramids stand on one tile" and match.final == {"suns": 1, "moons": 1,
                                                                                      "crowns": 1}
    assert match.phase == "final_tie" and match.to_act() == ["suns"] and not match.is_over()
    with pytest.raises(IllegalAction):
        act(match, "suns", "choose_winner", winners=["crowns"])
    act(match, "suns", "choose_winner", winners=["suns", "moons"])
    assert match.is_over() and match.winner() == ["suns", "moons"] and match.to_act() == []


@pytest.mark.parametrize("rule", ["at_once", "end_of_round"])
def test_a_player_losing_all_his_pyramids_ends_the_game(rule):
    placed = {"suns-A": "crowns-1", "moons-F": "arms-1", "moons-B": "arms-1", "moons-C": "moons-4",
              "moons-A": "moons-2", "crowns-A": "crowns-4", "crowns-B": "suns-1"}
    match = floe(THREE, placed, coins={p: [] for p in THREE}, options={"lost_all_ends": rule})
    act(match, "suns", "move", pyramid="suns-A", to=[2, 1])       # 4 + 1 = 5 holds
    act(match, "moons", "move", pyramid="moons-C", to=[2, 1])     # + 2 = 7: cracks, suns is out
    if rule == "at_once":
        assert match.is_over() and match.winner() == ["crowns"]
        assert match.scores() == {"suns": 0, "moons": 1, "crowns": 3}
        return
    assert not match.is_over() and match.to_act() == ["crowns"]
    act(match, "crowns", "move", pyramid="crowns-A", to=[3, 3])
    vote_all(match, "number", {p: 2 for p in THREE})
    vote_all(match, "suit", {p: "arms" for p in THREE})
    act(match, "suns", "pass")
    assert match.is_over() and len(match.history) == 1 and match.winner() == ["crowns"]


def test_view_carries_what_a_phone_needs():
    match = floe()
    view = match.view("moons")
    for key in ("phase", "round", "torch_bearer", "to_act", "board", "coins", "scores", "history",
                "this_round", "over", "winner"):
        assert key in view
    assert view["torch_bearer"] == "suns" and view["to_act"] == ["suns"]
    assert json.loads(json.dumps(view)) == view


def test_wrong_players_and_options_are_refused():
    with pytest.raises(ValueError, match="3 or 4"):
        IceFloeMatch(["suns", "moons"])
    from referee.options import OptionError
    with pytest.raises(OptionError, match="midway_weight"):
        IceFloeMatch(FOUR, options={"midway_weight": "maybe"})


def test_a_player_barred_for_commentary_votes_again_the_next_round():
    """ "he does not get to vote until the next round": barred for both votes of this round."""
    match = floe(THREE, {"suns-A": "suns-3", "moons-A": "moons-2", "crowns-A": "crowns-4"})
    act(match, "suns", "move", pyramid="suns-A", to=[1, 1])
    act(match, "moons", "move", pyramid="moons-A", to=[3, 1])
    act(match, "crowns", "move", pyramid="crowns-A", to=[3, 3])
    act(match, "moons", "sit_out")
    assert match.to_act() == ["suns", "crowns"] and match.view(None)["barred"] == ["moons"]
    vote_all(match, "number", {"suns": 5, "crowns": 5})
    assert match.to_act() == ["suns", "crowns"]
    vote_all(match, "suit", {"suns": "arms", "crowns": "arms"})
    while match.round == 1:
        act(match, match.to_act()[0], "pass")
    assert match.round == 2 and match.view(None)["barred"] == []
    quiet_movement(match)
    assert match.phase == "vote" and "moons" in match.to_act()
