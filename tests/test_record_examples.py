"""The example scenes and records of examples/icefloe and examples/iceberg say what their names say."""
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
