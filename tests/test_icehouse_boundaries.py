"""Every Icehouse boundary a little inside and a little outside, under each rule option."""
import pytest

from referee.dimensions import DEFAULT
from referee.icehouse import evaluate
from tests.icehouse_builders import attack, lie, scene, stand

LEN2 = DEFAULT.looney_lying_length[2]
TOL = 0.5


def aim(report, pid="a"):
    return report.status["attackers"][pid]


@pytest.mark.parametrize("heading", [0, 20, 110, 200, 290])
@pytest.mark.parametrize("rule, inside, outside", [
    ("strict", LEN2 - TOL - 0.2, LEN2 - TOL + 0.2),
    ("inclusive", LEN2 + TOL - 0.2, LEN2 + TOL + 0.2),
])
def test_range_boundary_in_every_quadrant(heading, rule, inside, outside):
    d = stand("d", "red", 1, 300, 300, angle=heading)
    for gap, expect in ((inside, None), (outside, "out_of_range")):
        report = evaluate(scene(d, attack("a", "blue", 2, d, gap, heading), last="a"),
                          options={"range_rule": rule})
        assert aim(report)["target"] == "d"
        assert aim(report)["problem"] == expect, (heading, rule, gap)
        assert report.status["defenders"]["d"]["iced"] is (expect is None)
        assert ("illegal_attack" in report.codes()) is (expect is not None)


def oblique():
    """A blue 2 whose line meets the red 2's left face at 30 degrees: the tip is 33.1 mm from
    the piece but the line runs 36.95 mm before it enters."""
    d = stand("d", "red", 2, 300, 300)
    a = lie("a", "blue", 2, 290.08 - 32, 300 - 18.475, 30)
    return scene(d, a, last="a")


@pytest.mark.parametrize("measure, expect", [
    ("footprint", None), ("tip", None), ("ray", "out_of_range")])
def test_range_measure_option(measure, expect):
    report = evaluate(oblique(), options={"range_measure": measure})
    assert aim(report)["target"] == "d"
    assert aim(report)["problem"] == expect


def grazed(distance):
    """A green 1 beside the line of a blue 3's attack on a red 2, `distance` mm from the line."""
    d = stand("d", "red", 2, 300, 300, angle=0)
    a = attack("a", "blue", 3, d, 30, 0)
    blocker = stand("g", "green", 1, 280, 300 - 7.145 - distance, angle=0)
    return scene(d, a, blocker, last="a")


@pytest.mark.parametrize("graze, distance, target", [
    ("hits", 0.1, "g"), ("passes", 0.1, "d"),      # within the line tolerance: a graze
    ("hits", 0.6, "d"), ("passes", 0.6, "d"),      # clear of the line
    ("hits", -2.0, "g"), ("passes", -2.0, "g"),    # 2 mm across the line: a real hit
])
def test_a_line_grazing_a_corner(graze, distance, target):
    report = evaluate(grazed(distance), options={"graze": graze})
    assert aim(report)["target"] == target


def seam(offset):
    """Two touching red 2s; a blue 3's line runs `offset` mm into the upper one from the seam."""
    upper = stand("u", "red", 2, 300, 300, angle=0)
    lower = stand("l", "red", 2, 300, 300 + 19.84, angle=0)
    a = lie("a", "blue", 3, 260, 300 + 9.92 - offset, 0)
    return scene(upper, lower, a, last="a")


def test_a_line_down_the_seam_of_touching_pieces_is_ambiguous_by_default():
    report = evaluate(seam(0.1))
    assert aim(report)["problem"] == "ambiguous" and aim(report)["target"] is None
    assert sorted(aim(report)["between"]) == ["l", "u"]
    assert report.warnings[0].code == "illegal_attack"


def test_seam_option_deeper_picks_the_piece_the_line_enters():
    assert aim(evaluate(seam(0.1), options={"seam": "deeper"}))["target"] == "u"
    assert aim(evaluate(seam(-0.1), options={"seam": "deeper"}))["target"] == "l"
    assert aim(evaluate(seam(1.0)))["target"] == "u"      # clearly inside: no seam at all


def test_the_edge_of_the_area_is_a_wall():
    d = stand("d", "red", 2, 300, 300, angle=0)
    a = attack("a", "blue", 3, d, 10, 0)
    assert aim(evaluate(scene(d, a, last="a")))["target"] == "d"
    # The same pieces with the table's edge between them.
    report = evaluate(scene(d, a, last="a", area=(285, 600)))
    assert aim(report)["target"] is None and aim(report)["problem"] == "nothing"


@pytest.mark.parametrize("extra, problem", [
    ([], "nothing"),
    ([lie("x", "green", 1, 300, 320, 90)], "attacker"),
    ([stand("x", "blue", 1, 300, 300)], "own_color"),
    ([stand("x", "red", 1, 330, 300)], "out_of_range"),
])
def test_illegal_placements(extra, problem):
    a = lie("a", "blue", 1, 280, 300, 0)
    report = evaluate(scene(a, *extra, last="a"))
    assert aim(report)["problem"] == problem
    (warning,) = [w for w in report.warnings if w.code == "illegal_attack"]
    assert warning.pieces == ("a",) and warning.color == "blue"
    assert "taken back" in warning.message
    squander = evaluate(scene(a, *extra, last="a"), options={"illegal_placement": "squander"})
    assert "squandered" in squander.warnings[0].message


def test_an_earlier_attack_with_a_problem_is_squandered_not_illegal():
    a = lie("a", "blue", 1, 280, 300, 0)
    d = stand("d", "red", 3, 100, 100)
    report = evaluate(scene(a, d, last="d"))
    assert aim(report)["squandered"] and "illegal_attack" not in report.codes()


def melt_scene(order):
    pieces = {"s1": stand("s1", "red", 1, 100, 100), "s2": stand("s2", "red", 2, 200, 100),
              "a": lie("a", "red", 1, 300, 300, 0)}
    return scene(*(pieces[p] for p in order), order=list(order))


@pytest.mark.parametrize("order, mode, melted", [
    (("s1", "s2", "a"), "while_short", False),
    (("s1", "a"), "while_short", True),
    (("a", "s1"), "any_time", True),
    (("s1", "a", "s2"), "while_short", False),   # two defenders now down: too late to call
    (("s1", "a", "s2"), "any_time", True),
    (("s1", "s2", "a"), "any_time", False),
])
def test_meltdown(order, mode, melted):
    report = evaluate(melt_scene(order), options={"meltdown": mode})
    warnings = [w for w in report.warnings if w.code == "meltdown"]
    assert bool(warnings) is melted
    if melted:
        assert warnings[0].color == "red" and warnings[0].pieces == ("a",)


def test_meltdown_needs_the_placement_order():
    data = melt_scene(("s1", "a"))
    assert "meltdown" not in evaluate(scene(*data.to_dict()["pieces"])).codes()
