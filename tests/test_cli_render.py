"""`icetable render`: options checked before work, no input or unrelated file overwritten, and
the bundled examples render."""
from __future__ import annotations

import json
import shutil

import cv2
import pytest

from tests.cli_helpers import ROOT, SCENE, cli, one_line, snapshot

SMALL = "320x180"       # frames the tests only write, not read


@pytest.fixture
def scene(tmp_path):
    path = tmp_path / "S.json"
    shutil.copy(SCENE, path)
    return path


@pytest.mark.parametrize("options, named", [
    (["--size", "0x0"], "--size 0x0"),
    (["--size", "40000x30000"], "--size 40000x30000"),
    (["--size", "infx720"], "--size"),
    (["--seed", "-5"], "--seed -5"),
    (["--hands", "-1"], "--hands"),
    (["-o", "frame"], "--out frame"),
])
def test_a_bad_option_is_one_line_and_nothing_is_written(tmp_path, scene, options, named):
    before = snapshot(tmp_path)
    code, out, err = cli("render", scene, *options)
    assert code == 2 and out == ""
    one_line(err, named)
    assert snapshot(tmp_path) == before


def test_a_folder_as_output_is_refused(tmp_path, scene):
    (tmp_path / "bad.jpg").mkdir()
    code, _, err = cli("render", scene, "-o", tmp_path / "bad.jpg")
    assert code == 2 and "is a folder" in one_line(err, "bad.jpg")


def test_the_input_scene_is_not_overwritten_by_its_truth(tmp_path, scene):
    before = scene.read_bytes()
    code, _, err = cli("render", scene, "-o", tmp_path / "S.jpg")
    assert code == 2 and "input" in one_line(err, "S.json", "--force")
    assert scene.read_bytes() == before and not (tmp_path / "S.jpg").exists()


def test_an_unrelated_file_is_not_overwritten_unless_forced(tmp_path, scene):
    notes = tmp_path / "notes.json"
    notes.write_text("my notes\n")
    code, _, err = cli("render", scene, "-o", tmp_path / "notes.png")
    assert code == 2 and "not written by icetable" in one_line(err, "notes.json")
    assert notes.read_text() == "my notes\n" and not (tmp_path / "notes.png").exists()
    code, _, _ = cli("render", scene, "-o", tmp_path / "notes.png", "--force", "--size", SMALL)
    assert code == 0 and json.loads(notes.read_text())["render"]["seed"] == 1


def test_an_earlier_render_is_replaced(tmp_path, scene):
    out = tmp_path / "frame.png"
    assert cli("render", scene, "-o", out, "--size", SMALL)[0] == 0
    assert cli("render", scene, "-o", out, "--seed", "2", "--size", SMALL)[0] == 0
    assert json.loads(out.with_suffix(".json").read_text())["render"]["seed"] == 2


def test_the_bundled_harbour_example_renders_without_its_chits(tmp_path):
    code, out, err = cli("render", ROOT / "examples" / "icepirates" / "harbour.json", "-o", tmp_path / "f.jpg")
    assert code == 0 and "chit" in one_line(err, "harbour.json", "warning")
    truth = json.loads((tmp_path / "f.json").read_text())
    assert truth["pieces"] and all(p["type"] != "chit" for p in truth["pieces"])
    assert cv2.imread(str(tmp_path / "f.jpg")).shape == (720, 1280, 3)


def test_a_scene_of_100000_pieces_is_refused_not_rendered_for_hours(tmp_path, scene):
    data = json.loads(scene.read_text())
    piece = dict(data["pieces"][0])
    data["pieces"] = [dict(piece, id=f"p{i}") for i in range(100_000)]
    data.pop("last", None)
    big = tmp_path / "big.json"
    big.write_text(json.dumps(data))
    code, _, err = cli("render", big, "-o", tmp_path / "big-frame.jpg")
    assert code == 2 and "100000" in one_line(err, "big.json", "'pieces'")


def test_samples_into_a_file_is_refused(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("read me\n")
    code, _, err = cli("render", "--samples", readme)
    assert code == 2 and "not a folder" in one_line(err, "README.md")
