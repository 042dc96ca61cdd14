"""The bundled demo recordings, played end to end through the live loop and the real web app:
the events and final scores must be the recording's ground truth."""
import math

import cv2
import numpy as np
import pytest

from icetable.live.demo import Demo, bundled
from webapp import create_app


def played(tmp_path, game):
    app = create_app({"DATA_DIR": str(tmp_path), "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
    demo = Demo(app, bundled(game), picture_every=2.0)
    state = demo.play()
    return demo, state


@pytest.fixture(scope="module")
def icehouse(tmp_path_factory):
    return played(tmp_path_factory.mktemp("icehouse"), "icehouse")


def same_piece(event, step):
    got, want = event["piece"], step["piece"]
    keys = ("color", "size", "pose") if want["type"] == "pyramid" else ("suit", "size", "rank", "face")
    if any(got.get(k) != want.get(k) for k in keys):
        return False
    return math.dist((got["x"], got["y"]), (want["x"], want["y"])) < 4.0


def test_icehouse_events_are_the_recorded_steps(icehouse):
    demo, _ = icehouse
    events = [entry.event for entry in demo.loop.log]
    steps = demo.truth["steps"]
    assert [e["kind"] for e in events] == [s["kind"] for s in steps]
    for event, step in zip(events, steps):
        assert same_piece(event, step), (event, step)


def test_icehouse_events_come_soon_after_each_piece_is_let_go(icehouse):
    demo, _ = icehouse
    for entry, step in zip(demo.loop.log, demo.truth["steps"]):
        assert 0 <= entry.t - step["let_go"] < 1.0


def test_icehouse_warnings_illegal_attack_and_crash_then_cleared(icehouse):
    demo, state = icehouse
    codes = [sorted({w["code"] for w in entry.warnings}) for entry in demo.loop.log]
    kinds = [s["kind"] for s in demo.truth["steps"]]
    illegal = kinds.index("removed") - 1                # the attack its player takes back
    crash = kinds.index("moved")
    assert "illegal_attack" in codes[illegal]
    assert codes[crash] == ["crash"]
    assert "crash" not in codes[crash + 1]              # put back where it was
    assert state["warnings"] == []


def test_icehouse_final_scores_are_the_ground_truth(icehouse):
    demo, state = icehouse
    assert state["game"]["status"] == "over"
    assert state["game"]["scores"] == demo.truth["final_scores"]


def test_table_page_gets_the_picture_and_the_overlay(icehouse):
    demo, _ = icehouse
    host = demo.host
    overlay = host.get(f"/t/{demo.code}/camera/overlay.json").get_json()
    assert overlay["status"] == "ok"
    pieces = [s for s in overlay["overlay"]["shapes"] if s["kind"] == "piece"]
    assert len(pieces) == len(demo.truth["final_scene"].pieces)
    lines = [s for s in overlay["overlay"]["shapes"] if s["kind"] == "line"]
    assert len(lines) == sum(p.pose == "lying" for p in demo.truth["final_scene"].pieces)
    jpeg = host.get(f"/t/{demo.code}/camera/image.jpg").data
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[1] == overlay["size"][0] and img.shape[0] == overlay["size"][1]
    w, h = overlay["size"]
    assert all(0 <= x <= w and 0 <= y <= h for s in pieces for x, y in s["points"])
    page = host.get(f"/t/{demo.code}/camera/view")
    assert page.status_code == 200 and b"overlay.js" in page.data


def test_demo_command_headless_prints_events_and_matching_scores(tmp_path, capsys):
    from icetable.cli import main
    assert main(["demo", "--no-serve", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "placed" in out and "warnings: crash" in out
    assert out.strip().splitlines()[-1].endswith("matched)")


def test_demo_command_refuses_a_folder_that_is_not_a_recording(tmp_path, capsys):
    from icetable.cli import main
    assert main(["demo", "--no-serve", "--recording", str(tmp_path), "--data-dir", str(tmp_path)]) == 2
    assert "not a recording" in capsys.readouterr().err


class Bumped:
    """The recording's frames, the camera knocked sideways and turned a little halfway through."""

    def __init__(self, source, at_frame: int):
        self.source, self.at, self.n = source, at_frame, 0
        self.live, self.fps = False, source.fps

    def open(self):
        return True

    def grab(self):
        g = self.source.grab()
        self.n += 1
        if g.frame is not None and self.n > self.at:
            h, w = g.frame.shape[:2]
            M = cv2.getRotationMatrix2D((w / 2, h / 2), 1.5, 1.0)
            M[:, 2] += (24, -15)
            g.frame = cv2.warpAffine(g.frame, M, (w, h), borderMode=cv2.BORDER_REPLICATE)
        return g


def test_a_bumped_camera_changes_nothing_on_the_table(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
    demo = Demo(app, bundled("icehouse"), picture_every=None)
    bump = demo.truth["steps"][5]["let_go"] + 1.0          # between two steps, the table quiet
    demo.loop.source.source = Bumped(demo.loop.source.source, int(bump * demo.truth["fps"]))
    state = demo.play()
    assert [e.event["kind"] for e in demo.loop.log] == [s["kind"] for s in demo.truth["steps"]]
    assert state["game"]["scores"] == demo.truth["final_scores"]
