"""Wrong options and arguments, as a user types them: one line on stderr and exit code 2."""
import subprocess
import sys

import pytest


@pytest.mark.parametrize("args, named", [
    (["detect", "frame.jpg", "-c", "cal.json", "--game", "nosuch"], "nosuch"),
    (["mat", "--kind", "poster"], "poster"),
    (["check", "--nosuch", "scene.json"], "--nosuch"),
    (["render", "--seed", "seven", "scene.json"], "seven"),
    ([], "COMMAND"),
])
def test_a_wrong_option_is_told_in_one_line(tmp_path, args, named):
    result = subprocess.run([sys.executable, "-m", "icetable", *args], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and lines[0].startswith("icetable")
