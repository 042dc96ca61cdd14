"""The example scenes and records of examples/ say what their names say."""
import subprocess
import sys
from pathlib import Path

import pytest

from referee.evaluate import evaluate
from referee.record import replay
from referee.scene import load_scene

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("name, codes", [
    ("icefloe/start.json", []), ("icefloe/turned_camera.json", []),
    ("icefloe/overweight_floe.json", ["overweight_floe"]), ("icefloe/in_water.json", ["in_water"]),
    ("iceberg/start.json", []), ("iceberg/midgame.json", []), ("iceberg/stranded.json", ["stranded_tile"]),
])
def test_example_scene(name, codes):
    assert evaluate(load_scene(EXAMPLES / name)).codes() == codes


def test_turned_camera_reads_as_the_straight_table():
    straight = evaluate(load_scene(EXAMPLES / "icefloe/start.json")).status["floes"]
    turned = evaluate(load_scene(EXAMPLES / "icefloe/turned_camera.json")).status["floes"]
    assert turned == straight


@pytest.mark.parametrize("game", ["icefloe", "iceberg"])
def test_example_record_replays_to_the_end_without_warnings(game):
    result = replay(EXAMPLES / game / "record.jsonl")
    assert result.ok and result.match.is_over() and result.match.winner()
    assert all(verdict["warnings"] == [] for _, verdict in result.verdicts)


def test_example_icehouse_record_a_capture_a_crash_and_the_timer():
    result = replay(EXAMPLES / "icehouse/record.jsonl")
    assert result.ok and result.match.is_over() and result.match.winner() == ["blue"]
    assert result.match.scores() == {"red": 5, "blue": 6}
    events = {step.seq: [e["type"] for e in verdict["events"]] for step, verdict in result.verdicts}
    assert events[8] == ["captured"] and events[9] == ["placed", "crash"] and events[10] == ["penalty"]
    assert result.match.stash["blue"][("red", 1)] == 1          # the crashed piece went to blue


def test_example_ice_pirates_game_is_played_to_the_win():
    result = replay(EXAMPLES / "icepirates/record.jsonl")
    assert result.ok and result.match.is_over() and result.match.winner() == ["red"]
    assert result.match.scores()["red"] == 4 and result.verdicts[-1][1]["events"][-1]["type"] == "win"
    assert all(verdict["warnings"] == [] for _, verdict in result.verdicts)


@pytest.mark.parametrize("record, winner", [("icehouse/record.jsonl", "blue"), ("icepirates/record.jsonl", "red"),
                                            ("icefloe/record.jsonl", None), ("iceberg/record.jsonl", None)])
def test_example_records_through_icetable_replay(record, winner):
    run = subprocess.run([sys.executable, "-m", "icetable", "replay", "-q", str(EXAMPLES / record)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1].startswith("winner: " + (winner or ""))
