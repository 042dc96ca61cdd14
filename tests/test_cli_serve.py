"""`icetable serve`, `demo` and `live`: the address, port and store checked before anything is
written; another program's file never written into; live says what it waits for."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
import time

import pytest

from tests.cli_helpers import CAL720, FRAME720, SAMPLES, calibration_with, cli, one_line, snapshot


@pytest.mark.parametrize("options, named", [
    (["--bind", "999.1.1.1"], "--bind 999.1.1.1"),
    (["--bind", "no such host!"], "--bind"),
    (["--port", "70000"], "--port 70000"),
    (["--port", "-1"], "--port -1"),
])
def test_a_bad_server_option_is_one_line_and_no_store_is_made(tmp_path, options, named):
    code, out, err = cli("serve", "--data-dir", tmp_path / "data", *options)
    assert code == 2 and out == ""
    one_line(err, named)
    assert not (tmp_path / "data").exists()


def test_a_store_file_that_is_not_a_database_is_left_alone(tmp_path):
    (tmp_path / "icetable.sqlite3").write_text("my shopping list\n")
    before = snapshot(tmp_path)
    code, _, err = cli("serve", "--port", "0", "--data-dir", tmp_path)
    assert code == 2 and "cannot be read (file is not a database)" in one_line(err, "icetable.sqlite3")
    assert snapshot(tmp_path) == before


def test_another_program_s_database_gets_no_tables(tmp_path):
    db = sqlite3.connect(tmp_path / "icetable.sqlite3")
    db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    db.commit()
    db.close()
    before = snapshot(tmp_path)
    code, _, err = cli("demo", "--no-serve", "--data-dir", tmp_path)
    assert code == 2 and "invoices" in one_line(err, "icetable.sqlite3", "not an icetable store")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("speed", ["nan", "0", "-2", "inf"])
def test_demo_speed_must_be_a_positive_finite_number(tmp_path, speed):
    code, _, err = cli("demo", "--no-serve", "--speed", speed, "--data-dir", tmp_path)
    assert code == 2
    one_line(err, f"--speed {speed}")


def test_a_bad_recording_names_its_file_and_field(tmp_path):
    from icetable.live.demo import bundled
    for name in ("recording.mp4", "calibration.json"):
        (tmp_path / name).write_bytes((bundled("icehouse") / name).read_bytes())
    (tmp_path / "truth.json").write_text("{not json")
    code, _, err = cli("demo", "--no-serve", "--recording", tmp_path, "--data-dir", tmp_path / "data")
    assert code == 2 and "truth.json" in one_line(err)
    (tmp_path / "truth.json").write_text('{"format": "icetable-recording/1", "game": "icehouse"}')
    code, _, err = cli("demo", "--no-serve", "--recording", tmp_path, "--data-dir", tmp_path / "data")
    assert code == 2
    one_line(err, "truth.json", "'players'")


def _stderr_until(proc, wanted: list[str], limit: float = 60.0) -> list[str]:
    """Lines of the process's stderr until one holds each of `wanted` (or `limit` seconds)."""
    seen, lines, end = set(), [], time.monotonic() + limit
    while len(seen) < len(wanted) and time.monotonic() < end:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        seen |= {w for w in wanted if w in line}
    return lines


def test_live_says_what_it_waits_for(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "icetable", "live", "--game", "icehouse", "--calibration",
                             str(CAL720), "--camera", "7", "--bind", "127.0.0.1", "--port", "0",
                             "--data-dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lines = _stderr_until(proc, ["--camera 7", "waiting for the host"])
    finally:
        proc.kill()
        proc.wait()
    said = "".join(lines)
    assert "--camera 7: no camera there yet" in said and "waiting for the host to start a game" in said
    assert "Traceback" not in said


def _live_warnings(tmp_path, capsys, frame, cal, game: str = "icehouse") -> list[str]:
    """The terminal lines of live's camera over three copies of `frame`, read as `game`."""
    from calibration.calibfile import load
    from icetable.commands.live import _Checked
    from vision.sources import FolderSource
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(3):
        (frames / f"f{i}.jpg").write_bytes(frame.read_bytes())
    source = _Checked(FolderSource(frames), load(cal), cal.name, game)
    grabs = [source.grab() for _ in range(3)]
    assert all(g.frame is not None for g in grabs) and source.live is False
    return capsys.readouterr().err.strip().splitlines()


def test_live_warns_once_when_the_calibration_does_not_fit_the_camera(tmp_path, capsys):
    """Another camera's calibration: the first picture of the game brings one warning line."""
    cal = SAMPLES / "icehouse" / "calibration-cam1080-daylight.json"
    [line] = _live_warnings(tmp_path, capsys, FRAME720, cal)
    assert "warning" in line and "1920x1080" in line and cal.name in line


def test_live_warns_of_a_calibration_of_another_lens_of_the_same_size(tmp_path, capsys):
    """The 720p camera's calibration with a longer focal length (1500 px, not 1024)."""
    def zoom(data):
        data["camera"]["K"][0][0] = data["camera"]["K"][1][1] = 1500.0
    cal = calibration_with(tmp_path, "zoomed.json", zoom)
    [line] = _live_warnings(tmp_path, capsys, FRAME720, cal)
    assert "warning" in line and "zoomed.json" in line and "lens" in line and "focal length 1500 px" in line


@pytest.mark.parametrize("frame, cal, game, said", [
    (SAMPLES / "icefloe" / "icefloe-01.jpg", SAMPLES / "icefloe" / "icefloe-01.calibration.json", "icehouse",
     "piecepack tiles seen"),
    (FRAME720, CAL720, "iceberg", "no piecepack tiles seen"),
    (FRAME720, CAL720, "icepirates", "no home cards seen"),
])
def test_live_warns_once_when_the_table_does_not_look_like_the_game(tmp_path, capsys, frame, cal, game, said):
    [line] = _live_warnings(tmp_path, capsys, frame, cal, game)
    assert "icetable live: warning" in line and f"--game {game}" in line and said in line


def test_live_with_a_missing_video_stores_nothing(tmp_path):
    code, _, err = cli("live", "--game", "icehouse", "--calibration", CAL720, "--camera", tmp_path / "nope.mp4",
                       "--port", "0", "--data-dir", tmp_path / "data")
    assert code == 2 and "no such file" in one_line(err, "--camera", "nope.mp4")
    assert not (tmp_path / "data").exists()
