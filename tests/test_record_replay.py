"""Game records: golden playthroughs replayed by the real `icetable replay`, errors and exit codes."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.record import RecordError, make_header, read_record, replay, write_record
from tests.piecepack_builders import FOUR, THREE, play_random

GAMES = [("icefloe", THREE, 7, None), ("icefloe", FOUR, 11, {"lost_all_ends": "end_of_round"}),
         ("iceberg", ["suns", "moons"], 5, None), ("iceberg", FOUR, 9, {"bump": "pinwheel"})]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "icetable", "replay", *args], capture_output=True,
                          text=True, timeout=60)


def recorded(tmp_path, game, players, seed, options, scenes=True):
    match, steps = play_random(game, players, seed, options, scenes=scenes)
    path = tmp_path / f"{game}-{seed}.jsonl"
    write_record(path, make_header(game, players, seed, options), steps)
    return match, steps, path


@pytest.mark.parametrize("game, players, seed, options", GAMES)
def test_golden_playthrough_replays_to_the_same_end(tmp_path, game, players, seed, options):
    match, steps, path = recorded(tmp_path, game, players, seed, options)
    assert match.is_over()
    result = cli(str(path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(steps) + 2 and "[scene_mismatch]" not in result.stdout
    scores = match.scores()
    assert lines[-2] == "scores: " + ", ".join(f"{p} {scores[p]}" for p in players)
    assert lines[-1] == "winner: " + ", ".join(match.winner())
    again = replay(path).match
    assert again.view(None) == match.view(None)
    assert all(again.view(p) == match.view(p) for p in players)


def test_record_lines_carry_who_what_and_the_scene(tmp_path):
    _, steps, path = recorded(tmp_path, "icefloe", THREE, 3, None)
    lines = path.read_text().splitlines()
    header, first = json.loads(lines[0]), json.loads(lines[1])
    assert header == {"record": "icetable-record/1", "game": "icefloe", "players": THREE, "seed": 3,
                      "options": {}}
    assert first["seq"] == 1 and first["player"] == first["action"]["player"]
    assert first["scene"]["format"] == "icetable-scene/1"
    record = read_record(path)
    assert [s.action for s in record.steps] == [s["action"] for s in steps]


def test_a_scene_that_disagrees_is_a_warning_not_an_error(tmp_path):
    _, _, path = recorded(tmp_path, "icefloe", THREE, 4, None)
    lines = path.read_text().splitlines()
    step = json.loads(lines[30])
    gone = next(p["id"] for p in step["scene"]["pieces"] if p["type"] == "tile")
    step["scene"]["pieces"] = [p for p in step["scene"]["pieces"] if p["id"] != gone]
    lines[30] = json.dumps(step)
    path.write_text("\n".join(lines) + "\n")
    result = cli(str(path))
    assert result.returncode == 0
    assert f"[scene_mismatch] the table differs from the game: tile {gone} is missing" in \
        result.stdout.splitlines()[29]


def test_an_illegal_step_exits_1_naming_its_line(tmp_path):
    _, _, path = recorded(tmp_path, "iceberg", ["suns", "moons"], 5, None, scenes=False)
    lines = path.read_text().splitlines()
    step = json.loads(lines[5])
    step["action"] = {"player": step["player"], "type": "play", "square": [4, 4]}
    lines[5] = json.dumps(step)
    path.write_text("\n".join(lines) + "\n")
    result = cli(str(path))
    assert result.returncode == 1
    assert f"{path}:6: illegal step 5 by {step['player']}" in result.stderr
    assert "game not over after 4 step(s)" in result.stdout


@pytest.mark.parametrize("content, problem", [
    ("", "empty file"),
    ("not json\n", ":1: bad JSON"),
    ('{"record": "other/1", "game": "icefloe", "players": ["suns"]}\n', ":1: field 'record'"),
    ('{"record": "icetable-record/1", "game": "chess", "players": ["suns"]}\n', ":1: field 'game'"),
    ('{"record": "icetable-record/1", "game": "iceberg", "players": ["suns", "moons"]}\n'
     '{"seq": 2, "player": "suns", "action": {"player": "suns", "type": "roll"}}\n', ":2: field 'seq'"),
    ('{"record": "icetable-record/1", "game": "iceberg", "players": ["suns", "moons"]}\n'
     '{"seq": 1, "player": "moons", "action": {"player": "suns", "type": "roll"}}\n', ":2: field 'player'"),
    ('{"record": "icetable-record/1", "game": "iceberg", "players": ["suns", "moons"]}\n'
     '{"seq": 1, "player": "suns", "action": {"player": "suns", "type": "roll"}, "scene": {"format": 1}}\n',
     ":2: scene: field 'format'"),
    ('{"record": "icetable-record/1", "game": "iceberg", "players": ["suns", "moons", "crowns"]}\n',
     "header: Iceberg needs 2 or 4"),
    ('{"record": "icetable-record/1", "game": "iceberg", "players": ["suns", "moons"], '
     '"options": {"bump": "sideways"}}\n', "header: option 'bump'"),
])
def test_a_malformed_record_exits_2_with_one_line(tmp_path, content, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(RecordError, match=problem.replace("(", "\\(")):
        replay(path)
    result = cli(str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and problem in result.stderr


def test_a_missing_file_exits_2(tmp_path):
    result = cli(str(tmp_path / "none.jsonl"))
    assert result.returncode == 2 and "cannot read file" in result.stderr


def test_the_ppgames_ice_floe_game_replays_to_its_true_scores(tmp_path):
    """A real recorded game (piecepackr/ppgames' ice-floe.ppn, corrected final score): arms loses
    his last pyramid at the round 4 vote, the round is played out (the extra empty tile) and the
    final count is Suns 3, Moons 2, Crowns 3, Arms 0; the Torch Bearer is left to break the tie.
    With lost_all_ends=at_once the game is over before that extra tile."""
    path = Path(__file__).parent / "data" / "records" / "icefloe-ppgames.jsonl"
    run = cli("-q", str(path))
    assert run.returncode == 0, run.stderr
    assert "scores: suns 3, moons 2, crowns 3, arms 0" in run.stdout
    result = replay(path)
    assert result.ok and result.match.phase == "final_tie" and result.match.tie_options == ["suns", "crowns"]
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["options"] = {"lost_all_ends": "at_once"}
    at_once = tmp_path / "at_once.jsonl"
    at_once.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    stopped = replay(at_once)
    assert stopped.illegal[0].seq == len(lines) - 1 and "final_tie" in stopped.illegal[1]
