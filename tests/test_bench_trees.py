"""bench/trees.py, the side-by-side frame time of commits, refuses what it cannot compare in
one line and leaves no worktree behind."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _worktrees() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True).stdout


def test_an_unknown_commit_is_named_in_one_line_and_no_worktree_is_left():
    before = _worktrees()
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "trees.py"), "HEAD", "no-such-commit",
                          "--games", "iceberg"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [run.stderr.strip()] and "no-such-commit" in run.stderr
    assert "Traceback" not in run.stderr
    assert _worktrees() == before


def test_a_game_without_frames_is_named_in_one_line():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "trees.py"), "--games", "chess"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "chess" in run.stderr
