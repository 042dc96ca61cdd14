"""Ice Pirates cannons (target area, sliding ruling, line of fire) and docking (the Small gap)."""
import math

import pytest

from tests.icepirates_builders import (BASE, LENGTH, QUADRANTS, SMALL, ahead, home, nest, rotate, scene,
                                       ship, side_point, standing, table)
from referee.icepirates.cannons import in_range
from referee.icepirates.docking import docked_with
from referee.icepirates.rules import IcePiratesOptions

SHOOTER = ship("r", "red", 3, 400.0, 400.0, 0.0)
REACH = LENGTH[3]      # the Large template's depth


def target_at(side, along, depth, pid="b", size=1, color="blue"):
    """A lying ship whose tip is `depth` mm out from the shooter's side, pointing away from it."""
    x, y = side_point(SHOOTER, side, along, depth)
    x2, y2 = side_point(SHOOTER, side, along, depth + 1.0)
    heading = math.degrees(math.atan2(y2 - y, x2 - x))
    return ship(pid, color, size, x + (x2 - x) * LENGTH[size], y + (y2 - y) * LENGTH[size], heading)


def tip_at(side, along, depth, pid="b", size=1, color="blue"):
    """A lying ship pointing at the shooter's side, its tip `depth` mm out."""
    x, y = side_point(SHOOTER, side, along, depth)
    x2, y2 = side_point(SHOOTER, side, along, depth + 1.0)
    return ship(pid, color, size, x, y, math.degrees(math.atan2(y - y2, x - x2)))


def targets(pieces, degrees=0.0, **options):
    data = rotate(scene([SHOOTER, *pieces]), degrees)
    return in_range(table(data), IcePiratesOptions(**options))["r"]


@pytest.mark.parametrize("degrees", QUADRANTS)
@pytest.mark.parametrize("side", [1, 2])
def test_range_is_one_large_with_margin(side, degrees):
    assert targets([tip_at(side, 0.5, REACH - 1.0 - 0.3)], degrees) == ["b"]
    assert targets([tip_at(side, 0.5, REACH - 1.0 + 0.3)], degrees) == []
    assert targets([tip_at(side, 0.5, REACH - 0.3)], degrees, margin=0.0) == ["b"]


@pytest.mark.parametrize("degrees", QUADRANTS)
def test_nothing_ahead_or_astern_is_in_range(degrees):
    ahead_ship = ship("b", "blue", 1, *ahead(SHOOTER, 20.0 + LENGTH[1]), 0.0)
    astern = ship("c", "blue", 1, 400.0 - LENGTH[3] - 10.0, 400.0, 180.0)
    assert targets([ahead_ship, astern], degrees) == []


@pytest.mark.parametrize("degrees", QUADRANTS)
def test_the_template_slides_along_the_side_by_default(degrees):
    near_tip = target_at(1, 12.0 / 47.94, 26.0)
    assert targets([near_tip], degrees) == ["b"]
    assert targets([near_tip], degrees, cannon_slide="centred") == []
    centred = target_at(1, 0.5, 20.0)
    assert targets([centred], degrees, cannon_slide="centred") == ["b"]


def test_a_small_ship_fires_a_large_template_too():
    small = ship("r", "red", 1, 400.0, 400.0, 0.0)
    x, y = side_point(small, 1, 0.5, REACH - 5.0)
    data = scene([small, ship("b", "blue", 1, x, y, 270.0)])
    assert in_range(table(data), IcePiratesOptions())["r"] == ["b"]


def test_part_or_whole_of_the_target():
    # A Small lying along the side, 3 mm out, pointing towards the shooter's bow: wholly inside.
    x, y = side_point(SHOOTER, 1, 8.0 / 47.94, 3.0 + SMALL / 2)
    along = ship("b", "blue", 1, x, y, -math.degrees(math.atan2(BASE[3] / 2, LENGTH[3])))
    assert targets([along], cannon_hit="whole") == ["b"]
    poking = target_at(1, 0.5, REACH - 10.0)
    assert targets([poking]) == ["b"]
    assert targets([poking], cannon_hit="whole") == []


@pytest.mark.parametrize("degrees", QUADRANTS)
def test_line_of_fire_obstructed_by_an_island(degrees):
    x, y = side_point(SHOOTER, 2, 0.5, 20.0)
    island = nest("i1", x, y)
    island["angle"] = -15.36 % 360
    target = target_at(2, 0.5, 40.0)
    assert targets([target], degrees) == ["b"]
    assert targets([target, island], degrees) == []


def test_own_colour_and_disabled_ships_are_not_targets():
    own = tip_at(1, 0.5, 10.0, pid="r2", color="red")
    x, y = side_point(SHOOTER, 2, 0.5, 20.0)
    disabled = standing("b9", "blue", 1, x, y)
    assert targets([own, disabled]) == []
    assert targets([own, disabled], friendly_fire=True) == ["r2"]


# ---- docking -------------------------------------------------------------------------------

def _docked(pieces, degrees=0.0, **options):
    data = rotate(scene([SHOOTER, *pieces]), degrees)
    return docked_with(table(data), IcePiratesOptions(**options))["r"]


def _ahead_square(gap, pid="i1", factory=None):
    """A standing Large square centred straight ahead, its near edge `gap` mm from the tip."""
    x, y = ahead(SHOOTER, gap + BASE[3] / 2)
    piece = (factory or (lambda: nest(pid, x, y)))()
    piece["angle"] = 0.0
    return piece


@pytest.mark.parametrize("degrees", QUADRANTS)
def test_docked_when_an_upright_small_cannot_pass(degrees):
    assert _docked([_ahead_square(SMALL - 1.0 - 0.3)], degrees) == ["i1"]
    assert _docked([_ahead_square(SMALL - 1.0 + 0.3)], degrees) == []
    assert _docked([_ahead_square(SMALL - 0.3)], degrees) == []              # within the margin: No
    assert _docked([_ahead_square(SMALL - 0.3)], degrees, margin=0.0) == ["i1"]


def test_docking_with_each_kind_of_object():
    gap = 5.0
    x, y = side_point(SHOOTER, 1, 0.5, gap)
    card = home("red", x, y + 105.0 / 2, 0.0)
    other = tip_at(2, 0.5, gap, pid="b1")
    x2, y2 = ahead(SHOOTER, gap + BASE[2] / 2)
    disabled = standing("b2", "blue", 2, x2, y2, angle=0.0)
    assert _docked([card, other, disabled]) == ["b1", "b2", "home-red"]


def test_a_loose_piece_is_no_dock():
    x, y = ahead(SHOOTER, 5.0 + BASE[1] / 2)
    assert _docked([standing("spare", "green", 1, x, y, angle=0.0)]) == []


def test_corners_dock_by_the_narrowest_gap():
    """A diamond island under the ship's base corner: the gap is corner to corner."""
    x, y = side_point(SHOOTER, 1, 1.0, 0.0)
    for gap, docked in ((6.0, ["i1"]), (SMALL - 0.5, [])):
        piece = standing("i1", "black", 3, x, y + gap + BASE[3] / 2 * math.sqrt(2), angle=45.0, nested=[2, 1])
        assert _docked([piece]) == docked
