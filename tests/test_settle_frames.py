"""Settled frames on synthetic images: hands are never read, half-placed pieces never appear,
the last settled scene survives a blocked view, and a bumped camera is followed."""
import numpy as np

from referee.scene import Piece
from tests.live_helpers import AREA, frame, homography, read_blobs
from vision.settle import SettleConfig, Settler

RED = Piece("r", "pyramid", 120.0, 100.0, color="red", size=3, pose="standing")
BLUE = Piece("b", "pyramid", 300.0, 200.0, color="blue", size=2, pose="standing")
GREEN = Piece("g", "pyramid", 200.0, 150.0, color="green", size=1, pose="standing")


def settler(shift=None, **cfg):
    shift = shift or [(0.0, 0.0)]
    locate = lambda img: homography(shift[0])          # noqa: E731
    read = lambda img: read_blobs(img, homography(shift[0]))   # noqa: E731
    return Settler(locate, read, AREA, SettleConfig(**cfg))


def run(s, frames):
    return [s.step(f) for f in frames]


def colours(reading):
    return sorted((p.color, p.size) for p in reading.scene.pieces)


def test_still_table_is_read_once_after_the_still_frames():
    s = settler()
    out = run(s, [frame([RED, BLUE], seed=i) for i in range(10)])
    first = next(i for i, r in enumerate(out) if r.updated)
    assert first == s.still_frames
    assert colours(out[-1]) == [("blue", 2), ("red", 3)]
    assert s.reads == 1
    red = next(p for p in out[-1].scene.pieces if p.color == "red")
    assert abs(red.x - RED.x) < 2 and abs(red.y - RED.y) < 2


def test_piece_under_a_moving_hand_is_not_read_until_the_hand_has_gone():
    s = settler()
    run(s, [frame([RED], seed=i) for i in range(8)])
    arm = [((200 + 10 * k, 400.0), (200.0, 170.0 - 3 * k)) for k in range(6)]
    # the hand comes in, puts the green piece down, and stays moving over it
    during = run(s, [frame([RED, GREEN], arm=a, seed=20 + k) for k, a in enumerate(arm)])
    assert all(colours(r) == [("red", 3)] for r in during)
    after = run(s, [frame([RED, GREEN], seed=40 + k) for k in range(8)])
    assert colours(after[-1]) == [("green", 1), ("red", 3)]
    assert sum(r.updated for r in after) == 1


def test_half_placed_piece_never_appears():
    """A piece held in the hand (moving with it) is never read, even over many frames."""
    s = settler()
    run(s, [frame([RED], seed=i) for i in range(8)])
    out = []
    for k in range(20):
        held = Piece("g", "pyramid", 150.0 + 5 * k, 180.0, color="green", size=1, pose="standing")
        out.append(s.step(frame([RED, held], arm=((150.0 + 5 * k, 400.0), (150.0 + 5 * k, 215.0)), seed=k)))
    assert all(("green", 1) not in colours(r) for r in out)


def test_resting_arm_keeps_the_pieces_under_it():
    """An arm lying still over a piece is not read as the piece being gone."""
    s = settler()
    run(s, [frame([RED, BLUE], seed=i) for i in range(8)])
    arm = ((120.0, 400.0), (120.0, 90.0))      # covers the red piece, then rests
    out = run(s, [frame([RED, BLUE], arm=arm, seed=50 + k) for k in range(30)])
    assert all(colours(r) == [("blue", 2), ("red", 3)] for r in out)
    assert max(r.blocked for r in out) > 0.05


def test_change_far_from_a_resting_arm_is_read():
    s = settler()
    run(s, [frame([RED, BLUE], seed=i) for i in range(8)])
    arm = ((120.0, 400.0), (120.0, 90.0))
    run(s, [frame([RED, BLUE], arm=arm, seed=60 + k) for k in range(8)])
    moved_blue = Piece("b", "pyramid", 330.0, 60.0, color="blue", size=2, pose="standing")
    out = run(s, [frame([RED, moved_blue], arm=arm, seed=70 + k) for k in range(10)])
    blue = next(p for p in out[-1].scene.pieces if p.color == "blue")
    assert abs(blue.x - 330) < 3 and abs(blue.y - 60) < 3
    assert ("red", 3) in colours(out[-1])


def test_bumped_camera_is_followed_without_a_change_of_scene():
    shift = [(0.0, 0.0)]
    s = settler(shift)
    run(s, [frame([RED, BLUE], seed=i) for i in range(8)])
    shift[0] = (25.0, -18.0)
    out = run(s, [frame([RED, BLUE], shift=shift[0], seed=80 + k) for k in range(10)])
    assert any(r.status == "bumped" for r in out)
    assert s.reads == 1          # the view followed the mat: nothing new to read
    assert colours(out[-1]) == [("blue", 2), ("red", 3)]
    red = next(p for p in out[-1].scene.pieces if p.color == "red")
    assert abs(red.x - RED.x) < 2 and abs(red.y - RED.y) < 2


def test_no_mat_is_reported_and_nothing_is_read():
    def lost(img):
        raise ValueError("no markers")
    s = Settler(lost, read_blobs, AREA)
    out = s.step(frame([RED]))
    assert out.status == "no_mat" and out.scene is None and s.reads == 0


def test_hand_passing_over_without_change_does_not_re_read():
    s = settler()
    run(s, [frame([RED, BLUE], seed=i) for i in range(8)])
    run(s, [frame([RED, BLUE], arm=((250.0, 400.0), (250.0, 150.0 + 5 * k)), seed=k) for k in range(5)])
    run(s, [frame([RED, BLUE], seed=90 + k) for k in range(10)])
    assert s.reads == 1
    assert np.isfinite(s.still).all()


def test_mat_hidden_keeps_the_last_position_and_says_so():
    seen = [True]

    def locate(img):
        if not seen[0]:
            raise ValueError("markers covered")
        return homography()
    s = Settler(locate, read_blobs, AREA, SettleConfig(relocate_every=3))
    run(s, [frame([RED], seed=i) for i in range(6)])
    seen[0] = False
    out = run(s, [frame([RED, BLUE], seed=10 + i) for i in range(8)])
    assert [r.status for r in out[-3:]] == ["mat_hidden"] * 3 and "hidden" in out[-1].message
    assert colours(out[-1]) == [("blue", 2), ("red", 3)]
    seen[0] = True
    assert run(s, [frame([RED, BLUE], seed=30 + i) for i in range(4)])[-1].status == "ok"
