"""`icetable calibrate`: options in range, no input or unrelated file overwritten, and
enrolment photos that are not the enrolment arrangement refused."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.cli_helpers import FRAME720, SAMPLES, cli, one_line, snapshot

PHOTOREAL = Path(__file__).parent / "data" / "photoreal"


@pytest.mark.parametrize("options, named", [
    (["--area", "infx450"], "--area infx450"),
    (["--area", "600x-450"], "--area"),
    (["--max-error", "-1"], "--max-error -1"),
    (["--max-error", "nan"], "--max-error nan"),
    (["--views", "0"], "--views 0"),
])
def test_a_bad_option_is_one_line_and_nothing_is_written(tmp_path, options, named):
    code, out, err = cli("calibrate", FRAME720, *options, "-o", tmp_path / "cal.json")
    assert code == 2 and out == ""
    one_line(err, named)
    assert snapshot(tmp_path) == {}


def test_the_output_is_not_an_input_nor_an_unrelated_file(tmp_path):
    frame = tmp_path / "table.jpg"
    frame.write_bytes(FRAME720.read_bytes())
    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": true}')
    before = snapshot(tmp_path)
    code, _, err = cli("calibrate", frame, "--views", "1", "-o", frame)
    assert code == 2 and "input" in one_line(err, "table.jpg")
    code, _, err = cli("calibrate", frame, "--views", "1", "-o", notes)
    assert code == 2 and "not written by icetable" in one_line(err, "notes.json", "--force")
    assert snapshot(tmp_path) == before


def test_an_earlier_calibration_is_replaced(tmp_path):
    out = tmp_path / "cal.json"
    for _ in range(2):
        code, stdout, _ = cli("calibrate", FRAME720, "--views", "1", "-o", out)
        assert code == 0 and "wrote" in stdout
    assert json.loads(out.read_text())["format"] == "icetable-calibration/1"


def test_two_game_photos_are_not_enrolled(tmp_path):
    games = [SAMPLES / "icefloe" / "icefloe-01.jpg", SAMPLES / "icefloe" / "icefloe-02.jpg"]
    code, _, err = cli("calibrate", games[0], "--area", "354x354", "--views", "1", "--enrol", *games,
                       "-o", tmp_path / "cal.json")
    assert code == 2 and "not an enrolment photo" in err.splitlines()[-1] and "icefloe-01.jpg" in err
    assert "Traceback" not in err and not (tmp_path / "cal.json").exists()


def test_an_overexposed_faces_photo_is_enrolled_with_a_warning_naming_it(tmp_path):
    """A faces photo whose tiles' card is mostly at the camera's limit has lost its faint
    print: the user is told which photo to take again. The backs photo, well exposed, is not
    named."""
    faces = cv2.imread(str(PHOTOREAL / "s0062-enrol-faces.jpg")).astype(np.float32)
    cv2.imwrite(str(tmp_path / "bright-faces.jpg"), np.clip(2 * faces, 0, 255).astype(np.uint8))
    code, _, err = cli("calibrate", PHOTOREAL / "s0062-f0.jpg", "--mat", "cards", "--area", "354x354",
                       "--enrol", tmp_path / "bright-faces.jpg", PHOTOREAL / "s0062-enrol-backs.jpg",
                       "-o", tmp_path / "cal.json")
    warned = [line for line in err.splitlines() if "overexposed" in line]
    assert code == 0 and (tmp_path / "cal.json").exists()
    assert len(warned) == 1 and "bright-faces.jpg" in warned[0] and "s0062-enrol-backs" not in warned[0]
