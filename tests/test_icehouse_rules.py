"""The Icehouse rules' own examples as scenarios (shared/rules/icehouse.txt)."""
import math

import pytest

from referee.icehouse import evaluate
from tests.icehouse_builders import attack, lie, scene, stand

D = stand("d", "red", 2, 300, 300, angle=0)


def iced(report, pid):
    return report.status["defenders"][pid]["iced"]


@pytest.mark.parametrize("sizes, expect", [
    ((3,), True),          # "a single 3 point pyramid"
    ((2, 1), True),        # "a 2 pointer and a 1 pointer"
    ((1, 1, 1), True),     # "even three 1 point pyramids"
    ((2,), False),         # value must exceed the defender's
    ((1, 1), False),
])
def test_two_point_defender_iced_only_when_attack_exceeds_it(sizes, expect):
    headings = [0, 90, 180]
    pieces = [D] + [attack(f"a{i}", "blue", s, dict(D, angle=headings[i]), 5, headings[i])
                    for i, s in enumerate(sizes)]
    report = evaluate(scene(*pieces))
    assert iced(report, "d") is expect
    assert sorted(report.status["defenders"]["d"]["attackers"]) == [f"a{i}" for i in range(len(sizes))]


def test_joint_icing_pays_each_attacker_its_own_pips():
    red = stand("r3", "red", 3, 300, 300, angle=0)
    blue = attack("b2", "blue", 2, red, 4, 0)
    green = attack("g2", "green", 2, dict(red, angle=90), 4, 90)
    report = evaluate(scene(red, blue, green))
    assert iced(report, "r3")
    assert report.scores == {"red": 0, "blue": 2, "green": 2}


def test_two_threes_on_a_two_over_ice_it_and_either_may_be_captured():
    a = attack("a", "blue", 3, D, 5, 0)
    b = attack("b", "green", 3, dict(D, angle=180), 5, 180)
    report = evaluate(scene(D, a, b))
    assert report.status["defenders"]["d"]["over_iced"]
    assert sorted(report.status["defenders"]["d"]["capturable"]) == ["a", "b"]
    (warning,) = [w for w in report.warnings if w.code == "over_iced"]
    assert warning.color == "red" and set(warning.pieces) == {"d", "a", "b"}


def test_three_on_a_two_is_iced_but_not_over_iced():
    a = attack("a", "blue", 3, D, 5, 0)
    report = evaluate(scene(D, a))
    assert iced(report, "d") and not report.status["defenders"]["d"]["over_iced"]
    assert "over_iced" not in report.codes()


def test_over_ice_created_by_the_last_play_does_not_count_at_game_end():
    a = attack("a", "blue", 3, D, 5, 0)
    b = attack("b", "green", 3, dict(D, angle=180), 5, 180)
    report = evaluate(scene(D, a, b, last="b", stash={"red": 0, "blue": 0, "green": 0}))
    assert report.status["game_over"]
    assert "over_iced" not in report.codes()


def fortress(gap):
    """A red 1 inside a ring of eight blue 3s, with `gap` mm between neighbouring walls."""
    inner = stand("in", "red", 1, 300, 300)
    step = 25.40 + gap
    walls = [stand(f"w{i}{j}", "blue", 3, 300 + i * step, 300 + j * step)
             for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0)]
    return inner, walls


def test_fortress_without_gaps_protects_the_piece_inside():
    inner, walls = fortress(0.0)
    # A green 3 aimed at the inner piece through the seam between two walls.
    aimer = lie("g", "green", 3, 300 + 25.4 / 2, 200, 90)
    report = evaluate(scene(inner, *walls, aimer, last="g"))
    assert report.status["attackers"]["g"]["target"] != "in"
    assert not iced(report, "in")


def test_fortress_with_a_gap_lets_an_attack_through():
    inner, walls = fortress(22.0)
    step = 25.40 + 22.0
    gap_mid = (300 - step / 2, 300 - step)       # between the top-left and the top wall
    ux, uy = 300 - gap_mid[0], 300 - gap_mid[1]
    norm = math.hypot(ux, uy)
    ux, uy = ux / norm, uy / norm
    tip_along = norm - 14.29 / 2 / uy - 15       # 15 mm short of the inner piece's top face
    aimer = lie("g", "green", 2, gap_mid[0] + ux * tip_along, gap_mid[1] + uy * tip_along,
                math.degrees(math.atan2(uy, ux)))
    report = evaluate(scene(inner, *walls, aimer, last="g"))
    assert report.status["attackers"]["g"]["target"] == "in"
    assert report.status["attackers"]["g"]["problem"] is None
    assert iced(report, "in")
    closed = evaluate(scene(*fortress(0.0)[0:1], *fortress(0.0)[1], aimer, last="g"))
    assert closed.status["attackers"]["g"]["target"] != "in"


def test_squandered_attack_of_figure_2():
    """A legal attack later spoiled: a piece placed in front of it makes it point at an
    attacker. The original scores 0 but is not illegal; the interceptor is judged on its own."""
    red = stand("r", "red", 1, 300, 300, angle=0)
    green = attack("g", "green", 2, red, 30, 0)           # legal: in range (30 < 36.31)
    before = evaluate(scene(red, green, last="g"))
    assert before.status["attackers"]["g"]["problem"] is None and iced(before, "r")
    # Blue attacks a green defender below, its triangle lying across green's line of fire.
    green_def = stand("gd", "green", 2, 278, 335)
    interceptor = lie("b", "blue", 1, 278, 310, 90)
    after = evaluate(scene(red, green, green_def, interceptor, last="b"))
    g = after.status["attackers"]["g"]
    assert g["target"] == "b" and g["problem"] == "attacker" and g["squandered"]
    assert not iced(after, "r")
    assert before.scores == {"red": 0, "green": 2}
    assert after.scores == {"red": 1, "green": 2, "blue": 0}   # green: its free defender only
    assert after.status["attackers"]["b"]["problem"] is None
    assert "illegal_attack" not in after.codes()
