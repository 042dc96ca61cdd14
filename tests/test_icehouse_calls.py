"""Icehouse vulnerability, the outcome of a call, and scoring around the icehouse."""
import pytest

from referee.icehouse import call, evaluate
from tests.icehouse_builders import attack, scene, stand

RED = stand("r", "red", 2, 300, 300, angle=0)
BLUE = stand("b", "blue", 1, 100, 100)
ICE_RED = attack("x", "blue", 3, RED, 5, 0)


def table(red_stash, blue_stash=10, **state):
    return scene(RED, ICE_RED, BLUE, stash={"red": red_stash, "blue": blue_stash}, **state)


@pytest.mark.parametrize("stash, vulnerable", [(7, True), (8, False)])
def test_vulnerable_below_the_stash_limit_with_no_free_defender(stash, vulnerable):
    report = evaluate(table(stash))
    flagged = [w.color for w in report.warnings if w.code == "icehouse_vulnerable"]
    assert flagged == (["red"] if vulnerable else [])
    assert report.status["free_defenders"] == {"red": 0, "blue": 1}


def test_prisoners_on_the_pad_count_towards_the_stash_limit():
    # Red has 5 of its own and 3 prisoners on its pad: 8, so safe.
    assert "icehouse_vulnerable" not in evaluate(table(8)).codes()


def test_true_call_hands_the_victims_stash_to_the_caller():
    outcome = call(table(6, 9), "blue")
    assert outcome.kind == "true" and outcome.icehoused == ("red",)
    assert outcome.stash == {"red": 0, "blue": 15}
    assert outcome.transfers == (("red", "blue", 6),)


def test_false_call_costs_the_caller_one_piece_to_a_player_of_his_choice():
    outcome = call(table(9, 9), "blue", penalty_to="red")
    assert outcome.kind == "false" and outcome.icehoused == ()
    assert outcome.stash == {"red": 10, "blue": 8}


def test_false_call_with_an_empty_stash_gives_nothing():
    outcome = call(table(9, 0), "blue", penalty_to="red")
    assert outcome.kind == "false" and outcome.transfers == ()


def test_self_call_puts_the_caller_in_the_icehouse_and_he_keeps_his_pieces():
    outcome = call(table(6, 9), "red")
    assert outcome.kind == "self" and outcome.icehoused == ("red",)
    assert outcome.stash == {"red": 6, "blue": 9}


def test_unknown_caller_is_refused():
    with pytest.raises(ValueError, match="green"):
        call(table(6), "green")


def test_a_player_in_the_icehouse_scores_zero_but_his_attackers_still_score():
    report = evaluate(table(0, 0, icehouse=["red"]))
    assert report.scores == {"red": 0, "blue": 3 + 1}
    assert "icehouse_vulnerable" not in report.codes()   # already in it


def test_prisoner_scoring_option():
    # Red captured a blue 3 and played it standing; by default it scores for blue.
    prisoner = stand("p", "blue", 3, 500, 500)
    s = scene(prisoner, RED, played_by={"p": "red"})
    assert evaluate(s).scores == {"blue": 3, "red": 2}
    assert evaluate(s, options={"score_for": "player"}).scores == {"blue": 0, "red": 5}


def test_game_ends_when_every_stash_is_empty_or_the_timer_fires():
    assert evaluate(table(0, 0)).status["game_over"]
    assert not evaluate(table(1, 0)).status["game_over"]
    assert evaluate(table(3, 3, timer_expired=True)).status["game_over"]
