"""`icetable check` as a user runs it: a real process, real files, exit codes and messages."""
import json
import subprocess
import sys

import pytest

from tests.icehouse_builders import attack, stand

D = stand("d", "red", 2, 300, 300, angle=0)


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "icetable", "check", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def write(tmp_path, data, name="scene.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def good():
    return {"format": "icetable-scene/1", "game": "icehouse", "area": {"width": 600, "height": 600},
            "pieces": [dict(D), attack("a", "blue", 1, D, 50, 0)], "last": "a"}


def test_report_is_json_and_warnings_do_not_fail_the_check(tmp_path):
    result = run(str(write(tmp_path, good())))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["format"] == "icetable-report/1"
    assert report["warnings"][0]["code"] == "illegal_attack"
    assert report["status"]["attackers"]["a"]["problem"] == "out_of_range"


def test_text_summary_has_one_line_per_warning(tmp_path):
    result = run("--text", str(write(tmp_path, good())))
    lines = result.stdout.splitlines()
    assert result.returncode == 0
    assert sum(1 for line in lines if line.strip().startswith("[illegal_attack]")) == 1


def test_reads_standard_input():
    result = run("-", stdin=json.dumps(good()))
    assert result.returncode == 0 and json.loads(result.stdout)["game"] == "icehouse"


def test_rule_option_changes_the_verdict(tmp_path):
    path = write(tmp_path, good())
    assert json.loads(run(str(path)).stdout)["warnings"]
    # 50 mm is out of a small's range whatever the rule; the option is parsed and applied.
    result = run("-o", "range_rule=inclusive", str(path))
    assert result.returncode == 0
    result = run("-o", "range_rule=sometimes", str(path))
    assert result.returncode == 2 and "range_rule" in result.stderr


def mutate(change):
    data = good()
    change(data)
    return data


@pytest.mark.parametrize("data, words", [
    ("{not json", ["bad JSON", "line 1"]),
    (mutate(lambda d: d["pieces"][0].update(type="meeple")), ["piece 'd'", "'type'", "meeple"]),
    (mutate(lambda d: d["pieces"][0].pop("size")), ["piece 'd'", "'size'", "missing"]),
    (mutate(lambda d: d["pieces"][0].update(x="30cm")), ["piece 'd'", "'x'", "30cm"]),
    (mutate(lambda d: d.update(units="inch")), ["'units'", "mm"]),
    (mutate(lambda d: d["pieces"][1].update(id="d")), ["piece 'd'", "duplicate"]),
    (mutate(lambda d: d["pieces"][0].update(size=4)), ["piece 'd'", "'size'", "4"]),
    (mutate(lambda d: d["pieces"][1].pop("heading")), ["piece 'a'", "'heading'"]),
    (mutate(lambda d: d.update(game="chess")), ["'game'", "chess"]),
])
def test_malformed_scene_is_refused_in_one_line(tmp_path, data, words):
    path = write(tmp_path, data)
    result = run(str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    assert str(path) in message
    for word in words:
        assert word in message


def test_missing_file_is_one_line(tmp_path):
    result = run(str(tmp_path / "nope.json"))
    assert result.returncode == 2 and "nope.json" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("content", ["{nope", '{"looney_base": 3}', '{"colour": 1}'])
def test_a_bad_dimensions_file_is_named_in_one_line(tmp_path, content):
    dims = write(tmp_path, content, "dims.json")
    result = run("--dims", str(dims), str(write(tmp_path, good())))
    assert result.returncode == 2 and result.stdout == ""
    assert str(dims) in result.stderr and len(result.stderr.strip().splitlines()) == 1
