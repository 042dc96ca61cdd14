"""Property-based: every command fed generated bad input (scenes, calibrations, records,
images, options, files in the way of an output) answers with its documented exit code and one
stderr line naming the file (or option) and the field, never a traceback, and changes no file;
a calibration of another lens is warned of."""
from __future__ import annotations

import copy
import json
import math
import tempfile
from pathlib import Path

import cv2
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli_helpers import CAL720, FRAME720, ROOT, SCENE, cli, one_line, snapshot

SETTINGS = settings(max_examples=100, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
RECORD = ROOT / "examples" / "icefloe" / "record.jsonl"

not_finite = st.sampled_from([math.nan, math.inf, -math.inf])
text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
words = text.filter(lambda s: not _is_number(s))
containers = st.one_of(st.lists(words, min_size=1, max_size=3), st.dictionaries(text, st.integers(), max_size=3))
not_a_number = st.one_of(not_finite, words, st.none(), st.booleans(), containers)


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _in_fresh_folder(files: dict[str, bytes | str], args_of):
    """Write `files` into a new folder, run `icetable` with `args_of(folder)`, and return
    (code, stdout, stderr) after checking that no file there changed or appeared."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for fname, content in files.items():
            (folder / fname).write_bytes(content if isinstance(content, bytes) else content.encode())
        before = snapshot(folder)
        result = cli(*args_of(folder))
        assert snapshot(folder) == before, "a file changed"
        return result


def _set(data, path, value):
    data = copy.deepcopy(data)
    node = data
    for key in path[:-1]:
        node = node[key]
    if value is _DROP:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


_DROP = object()
_scene = json.loads(SCENE.read_text(encoding="utf-8"))

# (path in the scene, values that cannot be right there, the field the message names)
SCENE_FIELDS = [
    (("format",), st.one_of(words.filter(lambda s: s != "icetable-scene/1"), not_a_number), "format"),
    (("game",), st.one_of(words.filter(lambda s: s not in ("icehouse", "icefloe", "iceberg", "icepirates")),
                         not_a_number), "game"),
    (("area", "width"), st.one_of(not_a_number.filter(lambda v: v is not None),
                                  st.floats(max_value=0), st.integers(max_value=0)), "area.width"),
    (("pieces", 0, "x"), st.one_of(not_a_number, st.just(_DROP)), "'x'"),
    (("pieces", 0, "y"), not_a_number, "'y'"),
    (("pieces", 0, "size"), st.one_of(st.integers().filter(lambda n: n not in (1, 2, 3)), words,
                                      st.floats(allow_nan=True).filter(lambda f: f not in (1, 2, 3))), "size"),
    (("pieces", 0, "color"), st.one_of(words.filter(lambda s: s.isdigit() or s.upper() == s and s != ""),
                                       st.integers(), st.none()), "color"),
    (("pieces",), st.one_of(words, st.integers(), st.none()), "pieces"),
]


@st.composite
def bad_scenes(draw):
    path, values, field = draw(st.sampled_from(SCENE_FIELDS))
    return _set(_scene, path, draw(values)), field


@SETTINGS
@given(bad=bad_scenes(), command=st.sampled_from(["check", "render"]))
def test_a_bad_scene(bad, command):
    data, field = bad
    code, out, err = _in_fresh_folder({"s.json": json.dumps(data)},
                                      lambda d: [command, d / "s.json"] + (["-o", d / "f.jpg"] if command == "render" else []))
    assert code == 2 and out == ""
    one_line(err, "s.json", field)


_cal = json.loads(CAL720.read_text(encoding="utf-8"))
bad_pairs = st.one_of(st.lists(st.integers(1, 4000), min_size=0, max_size=1), st.lists(st.integers(1, 4000), min_size=3, max_size=4),
                      st.tuples(st.integers(max_value=0), st.integers(1, 4000)).map(list),
                      st.tuples(not_a_number, st.integers(1, 4000)).map(list), not_a_number)
CALIBRATION_FIELDS = [
    (("format",), not_a_number, "format"),
    (("mm_per_px",), st.one_of(st.floats(max_value=0.19), st.floats(min_value=10.01), not_finite, words,
                               containers), "mm_per_px"),
    (("image_size",), bad_pairs, "image_size"),
    (("layout", "area"), bad_pairs, "layout"),
    (("camera", "K"), st.one_of(st.lists(st.floats(), max_size=8), not_a_number,
                                st.just([[math.nan, 0, 640], [0, 1000, 360], [0, 0, 1]])), "camera"),
    (("camera", "dist"), st.one_of(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=6, max_size=7),
                                   st.lists(not_finite, min_size=5, max_size=5), words), "camera"),
    (("colors", "red", "mean"), st.one_of(st.lists(st.floats(-2, 2), max_size=2), st.lists(not_finite, min_size=3, max_size=3),
                                          not_a_number), "colors"),
]


@st.composite
def bad_calibrations(draw):
    path, values, field = draw(st.sampled_from(CALIBRATION_FIELDS))
    return _set(_cal, path, draw(values)), field


CALIBRATION_USERS = {   # the commands that read a calibration, and how
    "detect": lambda d: ["detect", FRAME720, "-c", d / "c.json"],
    "live": lambda d: ["live", "--game", "icehouse", "--calibration", d / "c.json", "--bind", "127.0.0.1",
                       "--port", "0", "--data-dir", d / "data", "--camera", d / "no-such-video.mp4"],
}


@SETTINGS
@given(bad=bad_calibrations(), command=st.sampled_from(sorted(CALIBRATION_USERS)))
def test_a_bad_calibration(bad, command):
    data, field = bad
    code, out, err = _in_fresh_folder({"c.json": json.dumps(data)}, CALIBRATION_USERS[command])
    assert code == 2 and out == ""
    one_line(err, "c.json", field)


_record = RECORD.read_text(encoding="utf-8").splitlines()


@st.composite
def bad_records(draw):
    header = json.loads(_record[0])
    field = draw(st.sampled_from(["record", "game", "players", "line"]))
    if field == "line":     # a step that is not a JSON object
        lines = list(_record)
        at = draw(st.integers(1, len(lines) - 1))
        lines[at] = draw(st.one_of(words.filter(lambda s: s.strip() and s.splitlines() == [s]),
                                   st.just("[1, 2]"), st.just('"text"')))
        return "\n".join(lines) + "\n", f"r.jsonl:{at + 1}"
    values = {"record": not_a_number, "game": st.one_of(words, st.integers()),
              "players": st.one_of(words, st.integers(), st.none())}[field]
    header[field] = draw(values)
    return "\n".join([json.dumps(header)] + _record[1:]) + "\n", field


@SETTINGS
@given(bad=bad_records())
def test_a_bad_record(bad):
    content, named = bad
    code, out, err = _in_fresh_folder({"r.jsonl": content}, lambda d: ["replay", d / "r.jsonl"])
    assert code == 2 and out == ""
    one_line(err, "r.jsonl", named)


@SETTINGS
@given(data=st.binary(max_size=2000))
def test_bytes_that_are_not_an_image(data):
    code, out, err = _in_fresh_folder({"frame.jpg": data}, lambda d: ["detect", d / "frame.jpg", "-c", CAL720])
    assert code == 2 and out == ""
    assert "not an image" in one_line(err, "frame.jpg")


@SETTINGS
@given(w=st.integers(1, 200), h=st.integers(1, 200), level=st.integers(0, 255), noise=st.integers(0, 80))
def test_an_image_without_a_mat(w, h, level, noise):
    rng = np.random.default_rng(w * 1000 + h)
    image = np.clip(level + rng.normal(0, noise + 0.01, (h, w, 3)), 0, 255).astype(np.uint8)
    ok, png = cv2.imencode(".png", image)
    code, out, err = _in_fresh_folder({"frame.png": png.tobytes()}, lambda d: ["detect", d / "frame.png", "-c", CAL720])
    assert code == 3 and out == ""       # README: exit 3, the frame cannot be read (no mat, dark, blurred)
    one_line(err, "frame.png")


def _bad_size(low: int, high: int):
    side = st.one_of(st.integers(max_value=low - 1), st.integers(min_value=high + 1))
    return st.one_of(st.tuples(side, st.integers(low, high)).map(lambda t: f"{t[0]}x{t[1]}"),
                     st.tuples(st.integers(low, high), side).map(lambda t: f"{t[0]}x{t[1]}"),
                     words.filter(lambda s: s.count("x") != 1 and not s.startswith("-")))


OPTIONS = [     # (command, option, bad values, where the command would write)
    (["render", SCENE], "--size", _bad_size(64, 4096), "--out=f.jpg"),
    (["render", SCENE], "--seed", st.one_of(st.integers(max_value=-1), st.integers(min_value=2**32)), "--out=f.jpg"),
    (["calibrate", FRAME720], "--area", _bad_size(100, 3000), "--out=c.json"),
    (["calibrate", FRAME720], "--views", st.one_of(st.integers(max_value=0), st.integers(min_value=51)), "--out=c.json"),
    (["demo", "--no-serve"], "--speed", st.one_of(not_finite, st.floats(max_value=0.0099), st.floats(min_value=100.01)),
     "--data-dir=data"),
    (["serve"], "--port", st.one_of(st.integers(max_value=-1), st.integers(min_value=65536)), "--data-dir=data"),
    (["mat"], "--dpi", st.one_of(st.integers(max_value=71), st.integers(min_value=601)), "--out=mat"),
    (["serve"], "--bind", st.tuples(*[st.integers(0, 999)] * 4).filter(lambda t: max(t) > 255)
     .map(lambda t: ".".join(map(str, t))), "--data-dir=data"),
]


@SETTINGS
@given(case=st.sampled_from(OPTIONS), data=st.data())
def test_a_bad_option(case, data):
    command, option, values, output = case
    value = data.draw(values)
    name, target = output.split("=")
    code, out, err = _in_fresh_folder({}, lambda d: [*command, f"{option}={value}", f"{name}={d / target}"])
    assert code == 2 and out == ""
    one_line(err, option)


UNRELATED = st.one_of(st.binary(max_size=200), text.map(str.encode)).filter(
    lambda b: b"render" not in b and b"icetable" not in b)
OUTPUTS = {     # a command, the file in its way (written first), and where it is told to write
    "render": (["render", SCENE], "f.json", "--out=f.png"),
    "render image": (["render", SCENE], "f.png", "--out=f.png"),
    "calibrate": (["calibrate", FRAME720], "c.json", "--out=c.json"),
    "mat": (["mat", "--kind", "a4"], "mat-a4.pdf", "--out=."),
}


@SETTINGS
@given(case=st.sampled_from(sorted(OUTPUTS)), content=UNRELATED)
def test_an_unrelated_file_in_the_way_of_an_output(case, content):
    """Whatever the file holds, it is not icetable's: refused in one line naming it, exit 2,
    nothing written (`_in_fresh_folder` checks that no file changed or appeared)."""
    command, name, output = OUTPUTS[case]
    option, target = output.split("=")
    code, out, err = _in_fresh_folder({name: content}, lambda d: [*command, f"{option}={d / target}"])
    assert code == 2 and out == ""
    assert "not written by icetable" in one_line(err, name, "--force")


@settings(SETTINGS, max_examples=6)
@given(zoom=st.one_of(st.floats(0.5, 0.75), st.floats(1.35, 2.0)))
def test_a_calibration_of_another_lens_of_the_same_size(zoom):
    """The frame's own calibration with the focal length of another lens: the scene is still
    read, with one warning naming the file and the lens (the right one gives none, in
    test_cli_detect)."""
    data = copy.deepcopy(_cal)
    data["camera"]["K"][0][0] *= zoom
    data["camera"]["K"][1][1] *= zoom
    code, out, err = _in_fresh_folder({"c.json": json.dumps(data)}, lambda d: ["detect", FRAME720, "-c", d / "c.json"])
    assert code == 0 and '"pieces"' in out
    assert "lens does not fit" in one_line(err, "c.json", "warning")
