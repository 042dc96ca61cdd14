"""Running `icetable` as a user does, and the bad inputs the command-line tests share."""
from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from icetable.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_images"
CAL720 = SAMPLES / "icehouse" / "calibration-cam720-daylight.json"
FRAME720 = SAMPLES / "icehouse" / "icehouse-01.jpg"
SCENE = ROOT / "examples" / "icehouse" / "over_iced.json"


def cli(*args) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `icetable ARGS` run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def process(*args, cwd=None, timeout=120) -> subprocess.CompletedProcess:
    """`python -m icetable ARGS` in a process of its own."""
    return subprocess.run([sys.executable, "-m", "icetable", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def one_line(err: str, *named: str) -> str:
    """The single line of `err`, which names each of `named`; never a traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and lines[0].startswith("icetable ")
    for name in named:
        assert str(name) in lines[0], (name, lines[0])
    return lines[0]


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` and a hash of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def calibration_with(tmp_path: Path, name: str, change) -> Path:
    """A copy of the 720p sample calibration after `change(data)`, as tmp_path/name."""
    data = json.loads(CAL720.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
