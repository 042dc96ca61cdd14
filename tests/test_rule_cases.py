"""Rule cases of docs/rulings/ as data (tests/data/rules/<game>.jsonl), one verdict each.

A line is one case: `id`, `ruling` (the docs/rulings section it tests), then either
- `scene` (a SCENE.md scene) and `options`: judged by `icetable check`; `expect.codes` is the
  list of warning codes, `expect.status` maps dotted paths of the report's status to values; or
- `record` (a header and its steps, docs/records.md): re-run by `icetable replay`;
  `expect.illegal` is null or {"seq", "reason" (a part of the refusal)}, `expect.events` and
  `expect.warnings` map a step's seq to the event types / warning codes of its verdict,
  `expect.view` maps dotted paths of the match's public view to values; or
- `position` (as in tests/data/perft: `game`, `players`, `from_position` arguments) and `steps`,
  each an action with an optional `scene`, expected as a record's steps (seq = 1, 2, ...).
Each case runs in process, and each scene and record file once more through the command line.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.evaluate import evaluate
from referee.match import IllegalAction
from referee.record import ReplayResult, Step, replay
from referee.scene import scene_from_dict
from tests.test_record_perft import position

DATA = Path(__file__).parent / "data" / "rules"
CASES = [json.loads(line) for path in sorted(DATA.glob("*.jsonl"))
         for line in path.read_text().splitlines() if line.strip()]


def at(data, path: str):
    """The value at a dotted path ("ships.red-M1.docked_with"; list items by index)."""
    for key in path.split("."):
        data = data[int(key)] if isinstance(data, list) else data[key]
    return data


def write(case: dict, folder: Path) -> Path:
    path = folder / f"{case['id']}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in case["record"]))
    return path


def play(case: dict) -> ReplayResult:
    """A position case's steps applied as a replay would: verdicts until the first refusal."""
    match = position({k: v for k, v in case.items() if k != "steps"})
    result = ReplayResult({}, match)
    for seq, raw in enumerate(case["steps"], start=1):
        scene = scene_from_dict(raw["scene"], case["id"]) if raw.get("scene") else None
        step = Step(seq, seq, raw["action"]["player"], raw["action"], scene)
        try:
            result.verdicts.append((step, match.apply(step.action, scene)))
        except IllegalAction as exc:
            result.illegal = (step, str(exc))
            break
    return result


def check_record(case: dict, result) -> None:
    expect = case["expect"]
    if expect.get("illegal") is None:
        assert result.ok, f"{case['id']}: refused {result.illegal and result.illegal[1]}"
    else:
        step, reason = result.illegal
        assert step.seq == expect["illegal"]["seq"] and expect["illegal"]["reason"] in reason, reason
    verdicts = {step.seq: verdict for step, verdict in result.verdicts}
    for seq, kinds in expect.get("events", {}).items():
        assert [e["type"] for e in verdicts[int(seq)]["events"]] == kinds, f"{case['id']} step {seq}"
    for seq, codes in expect.get("warnings", {}).items():
        assert [w["code"] for w in verdicts[int(seq)]["warnings"]] == codes, f"{case['id']} step {seq}"
    view = result.match.view(None)
    for path, value in expect.get("view", {}).items():
        assert at(view, path) == value, f"{case['id']}: view {path}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rule_case(case, tmp_path):
    if "scene" in case:
        report = evaluate(scene_from_dict(case["scene"], case["id"]), options=case.get("options"))
        assert report.codes() == case["expect"]["codes"]
        for path, value in case["expect"].get("status", {}).items():
            assert at(report.status, path) == value, f"{case['id']}: status {path}"
    elif "position" in case:
        check_record(case, play(case))
    else:
        check_record(case, replay(write(case, tmp_path)))


@pytest.mark.parametrize("path", sorted(DATA.glob("*.jsonl")), ids=lambda p: p.stem)
def test_rule_cases_through_the_command_line(path, tmp_path):
    """`icetable check` gives each scene case's warnings; `icetable replay` stops each record
    case at its illegal step (exit 1) or plays it through (exit 0)."""
    for case in (json.loads(line) for line in path.read_text().splitlines() if line.strip()):
        options = [f"-o{k}={v}" for k, v in case.get("options", {}).items()]
        if "position" in case:
            continue
        if "scene" in case:
            scene = tmp_path / f"{case['id']}.json"
            scene.write_text(json.dumps(case["scene"]))
            run = subprocess.run([sys.executable, "-m", "icetable", "check", str(scene), *options],
                                 capture_output=True, text=True, timeout=120)
            codes = [w["code"] for w in json.loads(run.stdout)["warnings"]]
            assert run.returncode == 0 and codes == case["expect"]["codes"], case["id"]
        else:
            run = subprocess.run([sys.executable, "-m", "icetable", "replay", str(write(case, tmp_path))],
                                 capture_output=True, text=True, timeout=120)
            illegal = case["expect"].get("illegal")
            assert run.returncode == (1 if illegal else 0), (case["id"], run.stderr)
            if illegal:
                assert f"illegal step {illegal['seq']}" in run.stderr and illegal["reason"] in run.stderr
            lines = run.stdout.splitlines()
            for seq, codes in case["expect"].get("warnings", {}).items():
                printed = re.findall(r" ! \[(\w+)\]", lines[int(seq) - 1])
                assert printed == codes, (case["id"], seq, lines[int(seq) - 1])
