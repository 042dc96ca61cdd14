"""Ice Pirates ship movement: the step turn limit, steps per size, contact, edges, boxed-in ships."""
import numpy as np
import pytest
import shapely

from tests.icepirates_builders import (LENGTH, QUADRANTS, SMALL, ahead, home, load, rotate, rotate_pose,
                                       scene, ship, standing, step, table, turn_limit)
from referee.dimensions import DEFAULT
from referee.icepirates.movement import judge_move, judge_scenes
from referee.icepirates.reach import heading_intervals, reach
from referee.icepirates.report import can_move
from referee.icepirates.rules import IcePiratesOptions
from referee.icepirates.steps import triangles


def judged(data, sid, pose, **options):
    t = table(data)
    return judge_move(t, t.ships[sid], pose[:2], pose[2], IcePiratesOptions(**options))


def lone(size, heading=0.0, extra=()):
    return scene([ship("s", "red", size, 400.0, 400.0, heading), *extra])


def after(data, pose_fn, degrees):
    """The scene turned by `degrees` and the pose `pose_fn(ship dict)` turned alike."""
    piece = next(p for p in data["pieces"] if p["id"] == "s")
    return rotate(data, degrees), rotate_pose(pose_fn(piece), degrees)


@pytest.mark.parametrize("degrees", QUADRANTS)
@pytest.mark.parametrize("size", [1, 2, 3])
@pytest.mark.parametrize("sign", [1, -1])
def test_one_step_turn_limit_with_margin(size, degrees, sign):
    limit = turn_limit(size, margin=1.0)
    inside, pose_in = after(lone(size), lambda p: step(p, sign * (limit - 0.3)), degrees)
    verdict = judged(inside, "s", pose_in)
    assert verdict.ok and verdict.steps == 1
    for turn in (limit + 0.3, turn_limit(size) + 0.3):
        outside, pose_out = after(lone(size), lambda p: step(p, sign * turn), degrees)
        assert not judged(outside, "s", pose_out).ok


@pytest.mark.parametrize("size", [1, 2, 3])
def test_turn_limit_is_where_the_new_piece_stops_overlapping_the_old(size):
    limit = turn_limit(size)
    old = shapely.Polygon(triangles([(400, 400)], [0.0], size, DEFAULT)[0])
    for turn, overlapping in ((limit - 0.5, False), (limit + 0.5, True)):
        x, y, h = step(ship("s", "red", size, 400, 400, 0), turn)
        new = shapely.Polygon(triangles([(x, y)], [h], size, DEFAULT)[0])
        assert (old.intersection(new).area > 1e-6) is overlapping


@pytest.mark.parametrize("turn", [90, -90, 180, 135])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_no_ninety_degree_or_straight_back_step(size, turn):
    verdict = judged(lone(size), "s", step(ship("s", "red", size, 400, 400, 0), turn))
    assert not verdict.ok and "no chain" in verdict.reason


def test_angle_margin_option_moves_the_boundary():
    limit = turn_limit(2)
    pose = step(ship("s", "red", 2, 400, 400, 0), limit - 0.4)
    assert not judged(lone(2), "s", pose).ok
    assert judged(lone(2), "s", pose, angle_margin=0.0).ok


@pytest.mark.parametrize("degrees", QUADRANTS)
@pytest.mark.parametrize("size,most", [(3, 1), (2, 2), (1, 4)])
def test_steps_per_action_by_size(size, most, degrees):
    for steps in range(1, most + 2):
        data, pose = after(lone(size), lambda p: step(p, 0.0, steps), degrees)
        verdict = judged(data, "s", pose)
        assert verdict.ok is (steps <= most)
        if verdict.ok:
            assert verdict.steps == steps


@pytest.mark.parametrize("degrees", QUADRANTS)
def test_small_curves_and_zigzags_within_the_limit(degrees):
    for turns in ((60, -60, 60, -60), (70, 70, 70), (-45, 10, 72)):
        def pose_fn(p, turns=turns):
            x, y, h = p["x"], p["y"], p["heading"]
            for t in turns:
                x, y, h = step({**p, "x": x, "y": y, "heading": h}, t)
            return x, y, h
        data, pose = after(lone(1), pose_fn, degrees)
        verdict = judged(data, "s", pose)
        assert verdict.ok and verdict.steps == len(turns)


def test_partial_steps_are_not_moves():
    piece = ship("s", "red", 1, 400, 400, 0)
    for distance in (0.5, 1.5, 2.5):
        assert not judged(lone(1), "s", (*ahead(piece, distance * LENGTH[1]), 0.0)).ok


def test_pose_tolerance_inside_and_outside():
    piece = ship("s", "red", 2, 400, 400, 0)
    x, y, h = step(piece, 20, 2)
    assert judged(lone(2), "s", (x + 3.5, y, h)).ok
    assert not judged(lone(2), "s", (x + 4.5, y, h)).ok
    assert judged(lone(2), "s", (x + 4.5, y, h), pose_tolerance=5.0).ok


def test_a_ship_that_stays_put_did_not_move():
    verdict = judged(lone(2), "s", (400.5, 400.0, 0.0))
    assert not verdict.ok and "did not move" in verdict.reason


def _beside_first_step(size, gap):
    """A square 'rock' whose top edge is `gap` mm from the first step's base corner."""
    half = DEFAULT.looney_base[size] / 2
    rock = standing("rock", "green", 1, 402.0, 400.0 + half + gap + SMALL / 2, angle=0.0)
    return lone(size, extra=[rock])


@pytest.mark.parametrize("degrees", QUADRANTS)
def test_contact_at_an_intermediate_step_with_margin(degrees):
    near = _beside_first_step(2, 1.0 - 0.3)
    far = _beside_first_step(2, 1.0 + 0.3)
    for data, ok in ((far, True), (near, False)):
        turned, pose = after(data, lambda p: step(p, 0.0, 2), degrees)
        verdict = judged(turned, "s", pose)
        assert verdict.ok is ok
        if not ok:
            assert "touch rock at step 1" in verdict.reason
    turned, pose = after(near, lambda p: step(p, 0.0, 2), degrees)
    assert judged(turned, "s", pose, margin=0.0).ok


@pytest.mark.parametrize("degrees", [0, 90, 180, 270])
def test_the_edge_of_the_play_area_with_margin(degrees):
    for shift, ok in ((-0.3, True), (0.3, False)):
        data = scene([ship("s", "red", 3, 800 - LENGTH[3] - 1.0 + shift, 400.0, 0.0)])
        turned, pose = after(data, lambda p: step(p, 0.0), degrees)
        verdict = judged(turned, "s", pose)
        assert verdict.ok is ok
        if not ok:
            assert "edge of the play area" in verdict.reason


def _nosed_up(gap):
    """A Small whose tip is `gap` mm from the edge of a home card straight ahead."""
    return scene([home("blue", 500.0, 400.0), ship("s", "red", 1, 500.0 - 74.0 - gap, 400.0, 0.0)])


@pytest.mark.parametrize("degrees", QUADRANTS)
def test_a_boxed_in_ship_cannot_move(degrees):
    stuck = table(rotate(_nosed_up(3.0), degrees))
    opts = IcePiratesOptions()
    assert can_move(stuck, opts) == {"s": False}
    piece = stuck.ships["s"]
    for turn in range(-70, 71, 10):
        for steps in (1, 2):
            pose = step({"x": piece.tip[0], "y": piece.tip[1], "heading": piece.heading, "size": 1}, turn, steps)
            assert not judge_move(stuck, piece, pose[:2], pose[2], opts).ok
    assert reach(stuck, piece, opts).is_empty
    free = table(rotate(_nosed_up(25.0), degrees))
    assert can_move(free, opts) == {"s": True}


def test_a_ship_against_the_table_edge_is_stuck():
    data = scene([ship("s", "red", 2, 796.0, 400.0, 0.0)])
    assert can_move(table(data), IcePiratesOptions()) == {"s": False}


@pytest.mark.parametrize("size", [1, 2, 3])
def test_reach_of_a_lone_ship_is_its_steps_and_no_further(size):
    data = lone(size, heading=0.0)
    area = reach(table(data), table(data).ships["s"], IcePiratesOptions())
    most = {3: 1, 2: 2, 1: 4}[size] * LENGTH[size]
    assert area.contains(shapely.Point(400 + most - 2.0, 400))
    assert not area.contains(shapely.Point(400 + most + 2.0, 400))
    assert not area.contains(shapely.Point(400 - LENGTH[size] / 2, 400))     # the ship's own place
    if size == 3:
        exact = shapely.union_all([shapely.Polygon(triangles(
            [step(data["pieces"][0], t)[:2]], [t], 3, DEFAULT)[0]) for t in np.linspace(
                -turn_limit(3, 1.0), turn_limit(3, 1.0), 400)])
        assert abs(area.area - exact.area) / exact.area < 0.03


def test_reach_keeps_clear_of_an_island():
    island = standing("i1", "black", 3, 400 + 1.6 * LENGTH[2], 400.0, nested=[2, 1], angle=0.0)
    data = lone(2, extra=[island])
    area = reach(table(data), table(data).ships["s"], IcePiratesOptions())
    rock = shapely.box(400 + 1.6 * LENGTH[2] - 12.7, 387.3, 400 + 1.6 * LENGTH[2] + 12.7, 412.7)
    assert area.intersection(rock).area < 2.0
    assert area.contains(shapely.Point(400 + 0.5 * LENGTH[2], 400))



def test_judging_a_move_from_the_scenes_before_and_after():
    before = lone(2, extra=[standing("rock", "green", 1, 460.0, 400.0, angle=0.0)])
    around = dict(before, pieces=[dict(p) for p in before["pieces"]])
    x, y, h = step(before["pieces"][0], -50, 2)
    around["pieces"][0].update(x=x, y=y, heading=h)
    verdicts = judge_scenes(load(before), load(around))
    assert list(verdicts) == ["s"] and verdicts["s"].ok and verdicts["s"].steps == 2
    through = dict(before, pieces=[dict(p) for p in before["pieces"]])
    x, y, h = step(before["pieces"][0], 0, 2)
    through["pieces"][0].update(x=x, y=y, heading=h)
    assert "touch rock" in judge_scenes(load(before), load(through))["s"].reason
    assert judge_scenes(load(before), load(before)) == {}


@pytest.mark.parametrize("degrees", QUADRANTS)
def test_legal_heading_intervals(degrees):
    free = table(rotate(lone(3), degrees))
    (low, high), = heading_intervals(free, free.ships["s"], IcePiratesOptions())
    limit = turn_limit(3, 1.0)
    assert low == pytest.approx(degrees - limit) and high == pytest.approx(degrees + limit)
    # A rock to starboard: the first step may not turn right much.
    rock = standing("rock", "green", 1, 400.0 + 20.0, 400.0 + 30.0, angle=0.0)
    blocked_right = table(rotate(lone(3, extra=[rock]), degrees))
    (low, high), = heading_intervals(blocked_right, blocked_right.ships["s"], IcePiratesOptions())
    assert low == pytest.approx(degrees - limit) and degrees < high < degrees + limit - 10
    stuck = table(rotate(_nosed_up(3.0), degrees))
    assert heading_intervals(stuck, stuck.ships["s"], IcePiratesOptions()) == []
