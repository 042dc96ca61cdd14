"""Tracking: settled scenes become placed / moved / removed / slid / flipped events with stable
ids, and readings that contradict the game are held until confirmed."""
from referee.scene import Piece, Scene
from vision.tracking import Tracker, identity


def pyr(color, size, x, y, pose="standing", heading=None, pid="x"):
    return Piece(pid, "pyramid", x, y, color=color, size=size, pose=pose, heading=heading)


def tile(suit, rank, x, y, face="up", pid="t"):
    return Piece(pid, "tile", x, y, suit=suit if face == "up" else None,
                 rank=rank if face == "up" else None, face=face)


def scene(*pieces, game="icehouse"):
    return Scene(game, tuple(pieces), (600.0, 400.0))


def kinds(events):
    return [(e.kind, e.piece.id) for e in events]


def test_a_placed_piece_gets_a_stable_id_through_moves():
    t = Tracker()
    ev = t.update(scene(pyr("red", 3, 100, 100, pid="d1")))
    assert kinds(ev) == [("placed", "red-3-1")]
    # the detector's ids change from reading to reading; the tracker's do not
    ev = t.update(scene(pyr("red", 3, 101, 100.5, pid="d7"), pyr("blue", 1, 300, 200, pid="d2")))
    assert kinds(ev) == [("placed", "blue-1-1")]
    ev = t.update(scene(pyr("blue", 1, 300, 200, pid="q"), pyr("red", 3, 160, 140, "lying", 90, pid="z")))
    assert kinds(ev) == [("moved", "red-3-1")]
    assert ev[0].before.x == 100 and ev[0].piece.pose == "lying"


def test_two_pieces_of_the_same_kind_keep_their_ids_by_nearness():
    t = Tracker()
    t.update(scene(pyr("red", 1, 100, 100), pyr("red", 1, 400, 100)))
    before = {pid: p.x for pid, p in t.pieces.items()}
    ev = t.update(scene(pyr("red", 1, 402, 101), pyr("red", 1, 99, 100)))
    assert ev == []
    assert all(abs(t.pieces[pid].x - x) < 5 for pid, x in before.items())


def test_a_removed_piece_is_an_event_and_leaves_the_table():
    t = Tracker()
    t.update(scene(pyr("red", 2, 100, 100), pyr("blue", 2, 200, 100)))
    ev = t.update(scene(pyr("blue", 2, 200, 100)))
    assert kinds(ev) == [("removed", "red-2-1")]
    assert list(t.pieces) == ["blue-2-1"]


def test_a_small_turn_or_jitter_is_not_a_move_but_a_real_turn_is():
    t = Tracker()
    t.update(scene(pyr("red", 2, 100, 100, "lying", 10.0)))
    assert t.update(scene(pyr("red", 2, 102, 99, "lying", 15.0))) == []
    assert kinds(t.update(scene(pyr("red", 2, 102, 99, "lying", 60.0)))) == [("moved", "red-2-1")]


def test_tiles_slide_flip_and_are_removed_with_canonical_ids():
    t = Tracker()
    ev = t.update(scene(tile("suns", 2, 100, 100), tile("moons", 0, 151, 100), game="icefloe"))
    assert sorted(kinds(ev)) == [("placed", "moons-0"), ("placed", "suns-2")]
    ev = t.update(scene(tile("suns", 2, 100, 151), tile("moons", 0, 151, 100), game="icefloe"))
    assert kinds(ev) == [("slid", "suns-2")]
    ev = t.update(scene(tile("suns", 2, 100, 151, face="down"), tile("moons", 0, 151, 100), game="icefloe"))
    assert kinds(ev) == [("flipped", "suns-2")]
    assert t.pieces["suns-2"].face == "down"
    ev = t.update(scene(tile("moons", 0, 151, 100), game="icefloe"))
    assert kinds(ev) == [("removed", "suns-2")]


def test_a_piece_that_seems_to_change_colour_is_held_until_readings_agree():
    t = Tracker(hold=3)
    t.update(scene(pyr("red", 3, 100, 100)))
    misread = scene(pyr("orange", 3, 101, 100))
    assert t.update(misread) == [] and t.holding
    assert list(t.pieces) == ["red-3-1"]
    # a second look sees red again: the misreading is forgotten
    assert t.update(scene(pyr("red", 3, 100, 100))) == []
    assert not t.holding
    # a real swap, seen three times in a row, goes through
    assert t.update(misread) == [] and t.update(misread) == []
    ev = t.update(misread)
    assert sorted(e.kind for e in ev) == ["placed", "removed"]
    assert [p.color for p in t.pieces.values()] == ["orange"]


def test_inventory_holds_a_piece_the_game_does_not_have():
    inv = {("pyramid", "red", 1): 1}
    t = Tracker(inventory=inv, hold=2)
    assert kinds(t.update(scene(pyr("red", 1, 50, 50)))) == [("placed", "red-1-1")]
    two = scene(pyr("red", 1, 50, 50), pyr("red", 1, 300, 300))
    assert t.update(two) == [] and t.holding
    assert [e.kind for e in t.update(two)] == ["placed"]


def test_identity_keys():
    assert identity(pyr("red", 3, 0, 0)) == ("pyramid", "red", 3)
    assert identity(tile("suns", 2, 0, 0, face="down")) == ("tile", "down", None)
    assert identity(Piece("p", "pp_pyramid", 0, 0, suit="arms", size="C")) == ("pp_pyramid", "arms", "C")
