"""`icetable mat`, `icetable calibrate` and `icetable render` from the command line."""
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.calibfile import load

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_images" / "icehouse"


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "icetable", *args], capture_output=True, text=True, cwd=cwd)


def test_calibrate_from_still_images_writes_a_usable_file(tmp_path):
    out = tmp_path / "cal.json"
    images = tmp_path / "views"
    images.mkdir()
    for name in ("icehouse-01.jpg", "icehouse-02.jpg"):
        (images / name).write_bytes((SAMPLES / name).read_bytes())
    result = _cli("calibrate", str(images), "--area", "600x450", "--views", "2", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "views 2/2" in result.stderr            # the progress line
    assert "reprojection error" in result.stdout
    calibration = load(out)
    assert calibration.layout.area == (600.0, 450.0) and calibration.intrinsics == "estimated"
    assert calibration.rms_mm < 3.0


def test_calibrate_learns_colours_from_a_palette_photo(tmp_path):
    from vision.samples import palette_photo
    photo, _ = palette_photo("cam720", "daylight", 3)
    cv2.imwrite(str(tmp_path / "palette.png"), photo)
    out = tmp_path / "cal.json"
    result = _cli("calibrate", str(SAMPLES / "icehouse-01.jpg"), "--views", "1",
                  "--palette", str(tmp_path / "palette.png"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert len(load(out).colors.names) == 10
    assert "not learned" not in result.stderr


def test_calibrate_names_the_colours_it_could_not_learn_and_still_reads_them(tmp_path):
    from vision.samples import palette_photo
    photo, _ = palette_photo("cam720", "daylight", 3, leave_out=("white", "clear"))
    cv2.imwrite(str(tmp_path / "palette.png"), photo)
    out = tmp_path / "cal.json"
    result = _cli("calibrate", str(SAMPLES / "icehouse-01.jpg"), "--views", "1",
                  "--palette", str(tmp_path / "palette.png"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if "not learned" in line]
    assert len(said) == 1 and "clear, white:" in said[0] and "shipped profile" in said[0]
    assert set(load(out).colors.names) == {"red", "yellow", "blue", "green", "black", "purple",
                                           "orange", "clear", "cyan", "white"}


def test_calibrate_warns_when_the_table_is_too_pale_for_white_pieces(tmp_path):
    from dataclasses import replace
    from calibration.layout import cards_layout
    from referee.scene import scene_from_dict
    from vision.render import random_config, render
    layout = cards_layout(600, 450)
    empty = scene_from_dict({"format": "icetable-scene/1", "game": "icehouse", "pieces": []})
    said = {}
    for name, cloth in (("tablecloth", (0.82, 0.82, 0.80)), ("grey", (0.42, 0.44, 0.42))):
        config = replace(random_config(5, layout.area, (1280, 720)), cloth=cloth)
        cv2.imwrite(str(tmp_path / f"{name}.png"), render(empty, layout, config).image)
        result = _cli("calibrate", str(tmp_path / f"{name}.png"), "--views", "1", "-o", str(tmp_path / f"{name}.json"))
        assert result.returncode == 0, result.stderr
        said[name] = result.stderr
    assert "white and clear pyramids" in said["tablecloth"] and "darker cloth" in said["tablecloth"]
    assert "warning" not in said["grey"]


def test_calibrate_refuses_corner_cards_laid_out_for_another_area(tmp_path):
    from calibration.layout import cards_layout
    from referee.scene import scene_from_dict
    from vision.render import random_config, render
    layout = cards_layout(700, 500)
    empty = scene_from_dict({"format": "icetable-scene/1", "game": "icepirates", "pieces": []})
    cv2.imwrite(str(tmp_path / "table.png"), render(empty, layout, random_config(7, layout.area, (1280, 720))).image)
    out = tmp_path / "cal.json"
    kept = (SAMPLES / "calibration-cam720-daylight.json").read_text()     # an earlier calibration
    out.write_text(kept)
    wrong = _cli("calibrate", str(tmp_path / "table.png"), "--views", "1", "-o", str(out))   # 600x450
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    said = wrong.stderr.strip().splitlines()[-1]
    assert "reprojection error" in said and "--area 600x450" in said and "not written" in said
    assert out.read_text() == kept
    right = _cli("calibrate", str(tmp_path / "table.png"), "--views", "1", "--area", "700x500", "-o", str(out))
    assert right.returncode == 0, right.stderr
    calibration = load(out)
    assert calibration.layout.area == (700.0, 500.0) and calibration.rms_mm < 1.0


def test_calibrate_bad_sources_get_one_line(tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    (tmp_path / "bad.jpg").write_text("nope")
    (tmp_path / "bad.mp4").write_text("nope")
    (tmp_path / "empty").mkdir()
    cases = [(str(tmp_path / "missing.jpg"), "no such file"), (str(blank), "no calibration mat found"),
             (str(tmp_path / "bad.jpg"), "not an image"), ("9", "no camera at index 9"),
             (str(tmp_path / "bad.mp4"), "bad.mp4: not a video"), (str(tmp_path / "empty"), "empty: no images")]
    for source, message in cases:
        result = _cli("calibrate", source, "-o", str(tmp_path / "c.json"))
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2, source
        assert message in lines[-1] and "Traceback" not in result.stderr
        assert len(lines) == 1, result.stderr      # no OpenCV or FFmpeg warnings about what it cannot open


def test_mat_writes_every_kind(tmp_path):
    result = _cli("mat", "-o", str(tmp_path), "--dpi", "80")      # -o as calibrate and render take it
    assert result.returncode == 0, result.stderr
    names = {p.name for p in tmp_path.iterdir()}
    for stem in ("mat-a4", "mat-letter", "mat-a3", "card0", "card3", "cards", "palette", "charuco"):
        assert {f"{stem}.png", f"{stem}.pdf"} <= names
    assert _cli("mat", "--dpi", "5").returncode == 2


def test_render_writes_a_frame_and_its_truth(tmp_path):
    scene = {"format": "icetable-scene/1", "game": "icehouse", "area": {"width": 500, "height": 400},
             "pieces": [{"id": "r1", "type": "pyramid", "color": "red", "size": 3, "pose": "lying",
                         "x": 200, "y": 150, "heading": 30}]}
    (tmp_path / "s.json").write_text(json.dumps(scene))
    result = _cli("render", str(tmp_path / "s.json"), "-o", str(tmp_path / "f.jpg"), "--size", "640x360")
    assert result.returncode == 0, result.stderr
    assert cv2.imread(str(tmp_path / "f.jpg")).shape == (360, 640, 3)
    truth = json.loads((tmp_path / "f.json").read_text())
    assert truth["pieces"] == scene["pieces"] and truth["render"]["hidden"] == []
    del scene["area"]
    (tmp_path / "s.json").write_text(json.dumps(scene))
    result = _cli("render", str(tmp_path / "s.json"), "--out", str(tmp_path / "f.jpg"))
    assert result.returncode == 2 and "area" in result.stderr


def test_calibrate_warns_when_one_view_cannot_tell_the_focal_length(tmp_path):
    # straight down, the mat's plane does not tell the focal length (one view): say so;
    # seen at a slant it does, and nothing is said
    from calibration.layout import cards_layout
    from referee.scene import scene_from_dict
    from vision.camera import intrinsics, looking_at
    from vision.render import random_config, render
    layout = cards_layout(600, 450)
    empty = scene_from_dict({"format": "icetable-scene/1", "game": "icehouse", "pieces": []})
    K = intrinsics((1280, 720), 83.0)
    said = {}
    for name, centre in (("straight", (300, 225, -560)), ("slant", (300, 420, -560))):
        cam = looking_at(K, (-0.05, 0, 0, 0, 0), (1280, 720), centre, (300, 225, 0))
        frame = render(empty, layout, random_config(7, layout.area, (1280, 720), camera=cam)).image
        cv2.imwrite(str(tmp_path / f"{name}.png"), frame)
        result = _cli("calibrate", str(tmp_path / f"{name}.png"), "--views", "1", "-o", str(tmp_path / f"{name}.json"))
        assert result.returncode == 0, result.stderr
        said[name] = result.stderr
        if name == "slant":
            assert abs(load(tmp_path / "slant.json").K[0, 0] / K[0, 0] - 1) < 0.05
    assert "focal length" in said["straight"] and "--charuco" in said["straight"]
    assert "focal length" not in said["slant"]
