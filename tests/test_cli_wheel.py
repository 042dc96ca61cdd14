"""The wheel carries everything icetable needs: built from this tree, installed into a fresh
virtual environment outside it, `serve`, `demo`, `detect` and `bench --list` work from there.

Slow (a wheel build, a virtual environment, the demo's whole recording): `pytest -m slow`,
which .ci/run runs. The fresh environment borrows the test environment's libraries (numpy,
OpenCV, Flask ...) through a .pth file, so nothing is downloaded; icetable itself comes only
from the wheel.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

from tests.cli_helpers import CAL720, FRAME720, ROOT

pytestmark = pytest.mark.slow


def _sources(dest: Path) -> Path:
    """A copy of the files git tracks or would track (the tree as committed, plus new files)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """The environment of a fresh virtual environment with the wheel installed, and a folder
    outside the source tree to run in."""
    base = tmp_path_factory.mktemp("wheel")
    src = _sources(base / "src")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(base / "dist"), str(src)], check=True, capture_output=True, timeout=600)
    [wheel] = (base / "dist").glob("icetable-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    purelib = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    libraries = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"],
                               *site.getsitepackages()])
    (purelib / "borrowed_libraries.pth").write_text("\n".join(libraries) + "\n")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    run_dir = base / "elsewhere"
    run_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return {"env": env, "cwd": run_dir, "python": python, "purelib": purelib}


def _run(installed, *args, timeout=300):
    return subprocess.run(["icetable", *map(str, args)], cwd=installed["cwd"], env=installed["env"],
                          capture_output=True, text=True, timeout=timeout)


def test_icetable_comes_from_the_wheel(installed):
    where = subprocess.run([installed["python"], "-c", "import icetable, webapp; print(icetable.__file__, webapp.__file__)"],
                           cwd=installed["cwd"], env=installed["env"], capture_output=True, text=True, check=True)
    assert all(Path(p).is_relative_to(installed["purelib"]) for p in where.stdout.split())


def test_bench_lists_its_benchmarks(installed):
    result = _run(installed, "bench", "--list")
    assert result.returncode == 0, result.stderr
    assert {"vision", "webapp", "referee_icehouse"} <= set(result.stdout.split())


def test_detect_reads_a_frame(installed):
    for path in (FRAME720, CAL720):
        shutil.copy(path, installed["cwd"] / path.name)
    result = _run(installed, "detect", FRAME720.name, "-c", CAL720.name)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["pieces"]


def test_demo_prints_events_as_they_happen_and_ends(installed):
    proc = subprocess.Popen(["icetable", "demo", "--no-serve", "--until-end", "--data-dir", "demo-data"],
                            cwd=installed["cwd"], env=installed["env"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        still_playing = proc.poll() is None
        rest, err = proc.communicate(timeout=900)
    finally:
        proc.kill()
    assert "placed" in first and still_playing          # the first event before the game ends
    assert proc.returncode == 0, err
    assert rest.strip().splitlines()[-1].endswith("matched)")


def test_serve_answers_phones(installed):
    proc = subprocess.Popen(["icetable", "serve", "--bind", "127.0.0.1", "--port", "0", "--data-dir", "serve-data"],
                            cwd=installed["cwd"], env=installed["env"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"join at (\S+)", proc.stdout.readline()).group(1)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url, timeout=10) as page:
                    body = page.read().decode()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.2)
        create = urllib.request.Request(url.rstrip("/") + "/tables", data=b'{"game": "icehouse"}',
                                        headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(create, timeout=10) as made:          # the store's schema is there
            code = json.loads(made.read())["code"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "<html" in body.lower() and len(code) >= 4
    assert (installed["cwd"] / "serve-data" / "icetable.sqlite3").stat().st_size > 0
