"""IceFloe movement: steps, jumps, two-hop moves of at most three spaces, slides, cracking floes."""
import pytest

from referee.icefloe.board import WEIGHT, destinations, slides, standard_board
from referee.match import IllegalAction
from tests.piecepack_builders import FOUR, STANDARD4, act, floe


def test_weights_follow_the_chart():
    assert [WEIGHT[s] for s in "ABCDEF"] == [1, 1, 2, 2, 3, 3]


def test_standard_layout_and_three_player_corners():
    four, three = standard_board(4), standard_board(3)
    assert len(four.tiles) == 24 and (2, 2) not in four.at()
    assert four.at()[(0, 0)] == "suns-2" and four.at()[(4, 4)] == "crowns-5"
    assert set(four.tiles) - set(three.tiles) == {"suns-2", "moons-3", "arms-4", "crowns-5"}


def test_destinations_on_a_full_board_counted_by_hand():
    """suns-A on (2, 0): rows 0-3 except its own cell and the hole; row 4 is four spaces away."""
    match = floe()
    cells = set(map(tuple, destinations(match.board, "suns-A")))
    expected = {(c, r) for c in range(5) for r in range(4)} - {(2, 0), (2, 2)}
    assert cells == expected and len(cells) == 18


BOARD = """
      c0        c1        c2        c3        c4
r0  suns-2    suns-3    crowns-1  moons-2   moons-3
r1  suns-4    suns-5    arms-1    moons-4   moons-5
r2  moons-0   crowns-0  (hole)    suns-0    arms-0
r3  arms-2    arms-3    moons-1   crowns-2  crowns-3
r4  arms-4    arms-5    suns-1    crowns-4  crowns-5
"""


def test_jump_over_a_missing_tile_onto_a_tile():
    """suns-A on (2, 0) steps to (2, 1) and jumps over the hole (2, 2) to (2, 3): three spaces."""
    match = floe()
    found = destinations(match.board, "suns-A")
    assert (2, 3) in found and (2, 2) not in found


def test_two_jumps_are_four_spaces_and_not_allowed():
    """suns-B on (0, 0): (3, 0) is a step and a jump; (4, 0) would need two jumps."""
    found = destinations(floe().board, "suns-B")
    assert (3, 0) in found and (4, 0) not in found and (0, 4) not in found


def test_a_pyramid_cut_off_by_water_cannot_move():
    placed = {"suns-A": "suns-2", "moons-A": "crowns-5", "crowns-A": "crowns-4", "arms-A": "arms-4"}
    removed = ("suns-3", "suns-4", "suns-5", "crowns-1", "moons-0")
    match = floe(FOUR, placed, removed=removed)
    assert destinations(match.board, "suns-A") == []


def test_move_must_change_tile_and_be_legal():
    match = floe()
    with pytest.raises(IllegalAction, match="not a legal choice"):
        act(match, "suns", "move", pyramid="suns-A", to=[2, 4])
    with pytest.raises(IllegalAction, match="not a pyramid of suns"):
        act(match, "suns", "move", pyramid="moons-A", to=[1, 0])
    with pytest.raises(IllegalAction, match="not moons's turn"):
        act(match, "moons", "move", pyramid="moons-A", to=[3, 0])
    act(match, "suns", "move", pyramid="suns-A", to=[2, 3])
    assert match.board.pyramids["suns-A"] == "moons-1" and match.to_act() == ["moons"]


def test_overweight_floe_cracks_with_all_its_pyramids():
    placed = dict(STANDARD4, **{"moons-A": "suns-3"})     # suns-C 2 + moons-A 1 on (1, 0)
    match = floe(FOUR, placed)
    verdict = act(match, "suns", "move", pyramid="suns-F", to=[1, 0])   # + 3 = 6
    assert "crack" in [e["type"] for e in verdict["events"]]
    assert "suns-3" not in match.board.tiles
    assert {"suns-C", "moons-A", "suns-F"}.isdisjoint(match.board.pyramids)


def test_exactly_five_holds():
    placed = dict(STANDARD4, **{"suns-B": "crowns-1"})   # A + B = 2 on the ace of crowns
    match = floe(FOUR, placed)
    act(match, "suns", "move", pyramid="suns-F", to=[2, 0])           # + 3 = 5
    assert match.board.weight("crowns-1") == 5 and "crowns-1" in match.board.tiles


@pytest.mark.parametrize("midway, reachable", [("ignore", True), ("limit", False)])
def test_midway_weight_option(midway, reachable):
    """suns-E (3) on (0, 0) reaches (3, 0) only through (1, 0) or (2, 0), each already carrying 3."""
    placed = {"suns-E": "suns-2", "moons-F": "suns-3", "crowns-F": "crowns-1", "suns-A": "moons-3",
              "moons-A": "arms-4", "crowns-A": "crowns-5", "arms-A": "arms-5"}
    match = floe(FOUR, placed, removed=("suns-4", "suns-5"), options={"midway_weight": midway})
    assert ((3, 0) in destinations(match.board, "suns-E", midway_limit=midway == "limit")) is reachable
    assert ({"player": "suns", "type": "move", "pyramid": "suns-E", "to": [3, 0]}
            in match.legal_actions("suns")) is reachable


def test_slides_are_orthogonal_one_space_into_empty_cells_inside_the_grid():
    match = floe()
    assert [s for s in slides(match.board, "suns") if s[0] == "crowns-1"] == []
    options = slides(match.board, "crowns")
    assert ("suns-0", (2, 2)) in options
    assert all(abs(to[0] - match.board.tiles[t][0]) + abs(to[1] - match.board.tiles[t][1]) == 1
               for t, to in options)


def test_slide_carries_the_pyramids_and_needs_a_pyramid_of_the_mover():
    match = floe()
    with pytest.raises(IllegalAction):
        act(match, "suns", "slide", tile="suns-0", to=[2, 2])       # crowns-A stands there
    act(match, "suns", "move", pyramid="suns-A", to=[1, 1])
    act(match, "moons", "move", pyramid="moons-A", to=[1, 0])
    act(match, "crowns", "slide", tile="suns-0", to=[2, 2])
    assert match.board.cell_of("crowns-A") == (2, 2) and match.board.tiles["suns-0"] == (2, 2)


def test_slide_cannot_leave_the_grid_or_push_a_tile():
    placed = {"suns-A": "suns-2", "moons-A": "moons-3", "crowns-A": "crowns-5", "arms-A": "arms-4"}
    match = floe(FOUR, placed, removed=("suns-3", "suns-4"))
    assert set(slides(match.board, "suns")) == {("suns-2", (1, 0)), ("suns-2", (0, 1))}
