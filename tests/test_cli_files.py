"""`check`, `replay` and any command's output: input files that are not what the command
reads are told as such in one line; a closed pipe ends quietly; a wrong option names the
subcommand."""
from __future__ import annotations

import subprocess
import sys

from tests.cli_helpers import ROOT, SCENE, cli, one_line, process


def test_a_scene_nested_100000_deep_is_one_line(tmp_path):
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000)
    code, _, err = cli("check", nested)
    assert code == 2 and "nested too deeply" in one_line(err, "nested.json")
    code, _, err = cli("check", SCENE, "--dims", nested)
    assert code == 2
    one_line(err, "nested.json")


def test_replay_of_a_scene_file_says_it_is_a_scene():
    code, _, err = cli("replay", SCENE)
    line = one_line(err, SCENE.name)
    assert code == 2 and "a scene file, not a game record" in line and "column" not in line


def test_output_into_a_closed_pipe_ends_quietly():
    """`icetable replay ... | head -1`: the reader goes away; no BrokenPipeError traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "icetable", "replay", str(ROOT / "examples" / "icefloe" / "record.jsonl")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and err == ""


def test_a_wrong_option_after_a_subcommand_names_it(tmp_path):
    result = process("check", SCENE, "--nosuch", cwd=tmp_path)
    assert result.returncode == 2
    assert one_line(result.stderr, "--nosuch").startswith("icetable check:")
