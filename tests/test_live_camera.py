"""Camera trouble (unplugged, frozen, dark) is reported and recovers by itself, with no game state
lost; sources open from a folder or a video; the table page hears about it."""
import cv2
import numpy as np
import pytest

from icetable.live.judges import IcehouseJudge
from icetable.live.link import InProcess, open_table
from icetable.live.loop import LiveLoop
from referee.scene import Piece
from tests.live_helpers import AREA, frame, homography, read_blobs
from vision.feeds import PushSource, Watched
from vision.settle import Settler
from vision.sources import FolderSource, FrameSourceError, open_source
from vision.tracking import Tracker
from webapp import create_app

RED = Piece("r", "pyramid", 120.0, 100.0, color="red", size=3, pose="standing")
BLUE = Piece("b", "pyramid", 300.0, 200.0, color="blue", size=2, pose="standing")


def jpeg(img):
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()


def icehouse_table(tmp_path):
    """(app, code, host token, host client) of a new Icehouse table."""
    app = create_app({"DATA_DIR": str(tmp_path), "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
    return (app, *open_table(app, "icehouse"))


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_unplugged_camera_is_reported_then_recovers():
    cam = PushSource(timeout=0.01)
    clock = Clock()
    watched = Watched(cam, clock=clock)
    assert cam.push(jpeg(frame([RED], seed=1)))
    assert watched.grab().status == "ok"
    lost = watched.grab()                       # nothing pushed: the phone went away
    assert lost.status == "lost" and lost.frame is None and "retrying" not in lost.message
    clock.now += 0.1
    assert watched.grab().status == "lost"      # waiting before the next try
    clock.now += 1.0
    cam.push(jpeg(frame([RED], seed=2)))
    back = watched.grab()
    assert back.status == "ok" and back.frame is not None


def test_frozen_camera_is_reported_and_reopened():
    cam = PushSource(timeout=0.01)
    clock = Clock()
    watched = Watched(cam, clock=clock)
    still = jpeg(frame([RED], seed=3))
    statuses = []
    for _ in range(6):
        cam.push(still)
        statuses.append(watched.grab().status)
        clock.now += 0.5
    assert statuses[:4] == ["ok"] * 4 and statuses[-1] == "frozen"
    clock.now += 5
    cam.push(jpeg(frame([RED], seed=4)))
    assert watched.grab().status == "ok"


def test_dark_frames_are_refused_until_the_light_is_back():
    cam = PushSource(timeout=0.01)
    watched = Watched(cam, clock=Clock())
    cam.push(jpeg(np.full((120, 160, 3), 8, np.uint8)))
    dark = watched.grab()
    assert dark.status == "dark" and dark.frame is None
    cam.push(jpeg(frame([RED], seed=5)))
    assert watched.grab().status == "ok"


def test_push_source_refuses_bytes_that_are_not_an_image():
    assert PushSource().push(b"not a jpeg") is False


def test_folder_and_video_sources(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), frame([RED], seed=i))
    folder = FolderSource(tmp_path, fps=2.0)
    grabs = [folder.grab() for _ in range(4)]
    assert [g.status for g in grabs] == ["ok", "ok", "ok", "ended"]
    assert [g.t for g in grabs[:3]] == [0.0, 0.5, 1.0]
    video = tmp_path / "v.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 10, (640, 480))
    for i in range(5):
        writer.write(frame([RED], seed=i))
    writer.release()
    source = open_source(str(video))
    assert sum(source.grab().status == "ok" for _ in range(5)) == 5
    assert source.grab().status == "ended"
    with pytest.raises(FrameSourceError):
        open_source(str(tmp_path / "missing.mp4"))


def test_a_folder_image_that_is_broken_or_gone_is_a_lost_frame_naming_it(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), frame([RED], seed=1))
    (tmp_path / "b.png").write_bytes(b"not a png")
    cv2.imwrite(str(tmp_path / "c.png"), frame([RED], seed=2))
    folder = FolderSource(tmp_path, fps=2.0)
    (tmp_path / "c.png").unlink()        # removed after the folder was listed
    grabs = [folder.grab() for _ in range(4)]
    assert [g.status for g in grabs] == ["ok", "lost", "lost", "ended"]
    assert "b.png: not an image" in grabs[1].message
    assert "c.png: no such file" in grabs[2].message
    assert [g.t for g in grabs[:3]] == [0.0, 0.5, 1.0]      # a lost frame keeps its own time


class Script:
    """A source playing a list of frames and gaps (None = the camera gives nothing)."""

    live = True

    def __init__(self, items):
        self.items, self.i = list(items), 0

    def open(self):
        return True

    def grab(self):
        from vision.sources import Grab
        if self.i >= len(self.items):
            return Grab(None, self.i / 30, "ended")
        item = self.items[self.i]
        self.i += 1
        if item is None:
            return Grab(None, self.i / 30, "lost", "camera unplugged")
        return Grab(item, self.i / 30)


def test_trouble_reaches_the_table_page_and_no_game_state_is_lost(tmp_path):
    app, code, token, host = icehouse_table(tmp_path)
    for side in ("red", "blue"):
        app.test_client().post(f"/t/{code}/join", json={"name": side, "side": side})
    assert host.post(f"/t/{code}/host/start", json={"seed": 1}).status_code == 201
    frames = [frame([RED], seed=i) for i in range(8)] + [None] * 3 + \
             [frame([RED, BLUE], seed=20 + i) for i in range(8)]
    clock = Clock()
    watched = Watched(Script(frames), clock=clock, retry=0.0)
    settler = Settler(lambda img: homography(), read_blobs, AREA)
    link = InProcess(app, code, token)
    loop = LiveLoop(watched, settler, Tracker(), IcehouseJudge(["red", "blue"], AREA), link, "icehouse",
                    picture_every=None)
    seen = []
    while loop.step():
        seen.append(host.get(f"/t/{code}/camera/overlay.json").get_json()["status"])
    assert "lost" in seen and seen[-1] == "ok"
    kinds = [(e.event["kind"], e.event["id"]) for e in loop.log]
    assert kinds == [("placed", "red-3-1"), ("placed", "blue-2-1")]
    scene = host.get(f"/t/{code}/state").get_json()
    assert scene["warnings"] == []
    assert loop.judge.match.stash["red"][("red", 3)] == 4 and loop.judge.match.stash["blue"][("blue", 2)] == 4


def test_host_corrects_a_misread_piece_and_the_referee_follows(tmp_path):
    app, code, token, host = icehouse_table(tmp_path)
    judge = IcehouseJudge(["red", "blue"], AREA)
    frames = [frame([RED], seed=i) for i in range(40)]
    loop = LiveLoop(Watched(Script(frames), clock=Clock()), Settler(lambda img: homography(), read_blobs, AREA),
                    Tracker(), judge, InProcess(app, code, token), "icehouse", picture_every=None)
    for _ in range(10):
        loop.step()
    assert judge.match.pieces["red-3-1"].color == "red"
    r = host.post(f"/t/{code}/camera/correct", json={"id": "red-3-1", "color": "blue", "size": 3})
    assert r.status_code == 202
    loop.last_contact = -1e9          # the loop asks for corrections now
    loop.step()
    assert judge.match.pieces["red-3-1"].color == "blue"
    assert judge.match.stash["red"][("red", 3)] == 5 and judge.match.stash["blue"][("blue", 3)] == 4
    assert judge.match.played_by["red-3-1"] == "blue"
    assert loop.tracker.pieces["red-3-1"].color == "blue"
    loop.settler.recheck()            # the camera reads it again (still as red): the host's word stays
    for _ in range(6):
        loop.step()
    assert loop.settler.reads >= 2
    assert loop.tracker.pieces["red-3-1"].color == "blue" and len(loop.tracker.pieces) == 1
    posted = host.get(f"/t/{code}/state").get_json()
    assert posted["camera_scores"] == {"red": 0, "blue": 3}
    stranger = app.test_client().post(f"/t/{code}/camera/correct", json={"id": "red-3-1", "color": "red"})
    assert stranger.status_code == 403


def test_phone_camera_frames_reach_the_loop(tmp_path):
    app, code, token, host = icehouse_table(tmp_path)
    url = f"/t/{code}/camera/frame"
    assert host.post(url, data=jpeg(frame([RED])), content_type="image/jpeg").status_code == 409
    phone = PushSource(timeout=0.5)
    InProcess(app, code, token).phone_frames(phone.push)
    sent = frame([RED, BLUE], seed=7)
    assert host.post(url, data=jpeg(sent), content_type="image/jpeg").status_code == 200
    got = phone.grab()
    assert got.status == "ok" and got.frame.shape == sent.shape
    assert np.abs(got.frame.astype(int) - sent).mean() < 3
    assert host.post(url, data=b"nonsense", content_type="image/jpeg").status_code == 400
    assert app.test_client().post(url, data=jpeg(sent), content_type="image/jpeg").status_code == 403
    page = app.test_client().get(f"/t/{code}/camera")
    assert page.status_code == 200 and b"camera.js" in page.data


def test_host_link_makes_this_browser_the_host(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path)})
    code, token, _ = open_table(app, "icefloe")
    laptop = app.test_client()
    assert laptop.get(f"/t/{code}/camera/host?token=wrong").status_code == 403
    r = laptop.get(f"/t/{code}/camera/host?token={token}")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{code}/table")
    assert laptop.get(f"/t/{code}/state").get_json()["host"] is True


def test_live_command_refuses_a_bad_calibration_file(tmp_path, capsys):
    from icetable.cli import main
    bad = tmp_path / "cal.json"
    bad.write_text("{}")
    assert main(["live", "--game", "icehouse", "--calibration", str(bad), "--data-dir", str(tmp_path)]) == 2
    assert str(bad) in capsys.readouterr().err
