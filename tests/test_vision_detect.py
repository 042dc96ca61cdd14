"""Detection on the committed sample images against their ground truth, and bad input."""
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calibfile import load
from referee.scene import SCENE_FORMAT, scene_from_dict
from vision import samples
from vision.detector import Detector, FrameError
from vision.evaluation import HEADING_OK, MATCH_MM, Score, card_angle_error, heading_error, score
from vision.pyramids import Priors, game_rules

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_images"
# Floors a little under the figures bench/vision.py prints today (see docs/vision.md).
FLOORS = {"colour": 0.985, "size": 0.985, "pose": 0.985, "all_right": 0.98}
# today Icehouse 23 of 24, Ice Pirates 13 of 14 (a white treasure lying on a light home card)
IMAGES_RIGHT = {"icehouse": 0.85, "icepirates": 0.85}
MEDIAN_POSITION_MM = 2.0
MEDIAN_HEADING_DEG = 5.0


def _truths(game):
    return sorted((SAMPLES / game).glob(f"{game}-*.json"))


def _detect_all(game):
    total, detectors = Score(), {}
    for truth_path in _truths(game):
        data = json.loads(truth_path.read_text())
        cal = truth_path.parent / data["render"]["calibration"]
        detector = detectors.setdefault(cal, Detector(load(cal)))
        frame = cv2.imread(str(truth_path.with_suffix(".jpg")))
        detected = detector.detect(frame, game)
        total.add(score(scene_from_dict(data), detected, tuple(data["render"]["hidden"])))
    return total


@pytest.mark.parametrize("game", ["icehouse", "icepirates"])
def test_detection_on_committed_images_meets_floors(game):
    total = _detect_all(game)
    assert total.images >= 10
    for name, floor in FLOORS.items():
        assert total.rate(name) >= floor, (name, total.rate(name))
    assert total.images_right / total.images >= IMAGES_RIGHT[game]
    assert total.extra <= 0.01 * total.pieces
    assert np.median(total.position_mm) <= MEDIAN_POSITION_MM
    assert np.median(total.heading_deg) <= MEDIAN_HEADING_DEG
    if game == "icepirates":      # one home card per player; all found today, owners right
        assert total.cards >= 2 * total.images - 2
        assert total.cards_found == total.card_owner == total.cards and total.card_extra == 0
        assert np.median(total.card_position_mm) <= 1.0 and max(total.card_angle_deg) <= 1.0


@pytest.mark.parametrize("render, extra", [({}, 1), ({"arms": 1}, 0), ({"hands": 1}, 0), ({"hidden": ["b"]}, 0)])
def test_an_uncertain_detection_of_nothing_is_an_extra_unless_a_hand_is_in_view(render, extra):
    # a flood of uncertain pyramids on a patterned cloth was invisible in the figures while any
    # uncertain detection was excused; only a hand or arm can hide a piece
    pyramid = {"type": "pyramid", "color": "red", "size": 2, "pose": "standing"}
    head = {"format": SCENE_FORMAT, "game": "icehouse"}
    truth = scene_from_dict({**head, "render": {"calibration": "c.json", **render},
                             "pieces": [{**pyramid, "id": "a", "x": 100, "y": 100}]})
    detected = scene_from_dict({**head, "pieces": [
        {**pyramid, "id": "a", "x": 101, "y": 100},
        {**pyramid, "id": "b", "x": 300, "y": 200, "uncertain": True}]})
    s = score(truth, detected, tuple(render.get("hidden", ())))
    assert (s.all_right, s.uncertain, s.extra, s.images_right) == (1, 1, extra, 1 - extra)


def test_bare_table_beside_an_arm_is_no_piece():
    # a dark arm (dim light) pulls the wide median of the empty table down beside it; the bare
    # table there must not read as white pieces, not even uncertain ones
    truth_path = SAMPLES / "icehouse" / "icehouse-24.json"
    data = json.loads(truth_path.read_text())
    truth = scene_from_dict(data).pieces          # the pieces under the arm included
    detected = Detector(load(truth_path.parent / data["render"]["calibration"])).detect(
        cv2.imread(str(truth_path.with_suffix(".jpg"))), "icehouse").pieces
    far = [p.id for p in detected if min(np.hypot(p.x - t.x, p.y - t.y) for t in truth) > 15.0]
    assert far == []


def _held_out(game, base_seed, number, **options):
    """(truth, detected scene) of image `number` of `icetable render --samples DIR --base-seed
    base_seed`, rendered here and read back from its JPEG (`options`: the Detector's)."""
    return _held_out_hidden(game, base_seed, number, **options)[:2]


def _held_out_hidden(game, base_seed, number, **options):
    """`_held_out` and the ids of the pieces a hand hides in that image."""
    image = samples.plan(game, base_seed)[number - 1]
    truth, drawn, _ = samples.render_planned(game, image)
    detector = Detector(samples.planned_calibration(game, image), **options)
    detected = detector.detect(samples.read_back(drawn.image), game)
    return truth, detected, tuple(drawn.hidden)


def _reading(truth, detected, pid):
    """(distance in mm, (colour, size, pose)) of the detected piece nearest truth piece `pid`."""
    t = next(p for p in truth.pieces if p.id == pid)
    near = min(detected.pieces, key=lambda p: np.hypot(p.x - t.x, p.y - t.y))
    return float(np.hypot(near.x - t.x, near.y - t.y)), (near.color, near.size, near.pose)


def test_a_clear_piece_touching_a_white_one_keeps_its_colour():
    # held-out image 6 of seed 15000: two clear pieces each touching a white one made one pale
    # blob each, named white or clear as a whole; each piece is now named from its own pixels
    truth, detected = _held_out("icehouse", 15000, 6)
    pairs = {"p3": "p11", "p10": "p5"}       # clear -> the white piece it touches
    for clear, white in pairs.items():
        for pid, colour in ((clear, "clear"), (white, "white")):
            t = next(p for p in truth.pieces if p.id == pid)
            distance, read = _reading(truth, detected, pid)
            assert distance < 5.0, pid
            assert read == (colour, t.size, t.pose), pid


# Held-out pieces each once misread, and why: (game, base seed, image, piece, mm, reading)
HELD_OUT_READINGS = [
    # a 1280x720 camera off to one side: red p2 stands 550 mm from below the camera, so its
    # apex lands 25 mm off its base and its outline is long. Only the standing fit's first yaw
    # was scored before the best few were refined, so the standing large was never refined and
    # a lying large beat it
    ("icehouse", 16000, 14, "p2", 3.0, ("red", 3, "standing")),
    # clear p10, a large lying on dark cloth, shows few bright edge lines for its size; its
    # white-or-clear score was held to the bar small pieces need and it was read white. The
    # score now grows with the piece's side beyond a medium's
    ("icehouse", 18000, 11, "p10", 5.0, ("clear", 3, "lying")),
    # clear sclear1, a large lying, shows its raised base face as a strip a little darker than
    # the cloth; counted as table, it made the piece look a medium. Such shaded pixels now count
    # neither for nor against a clear piece's outline
    ("icepirates", 20000, 2, "sclear1", 5.0, ("clear", 3, "lying")),
    # clear sclear1, a large lying, shows its raised base face as cloth ringed by bright edges,
    # the ring open by a few pixels at one corner. The face was no hole to fill, so the piece
    # fitted the triangle in front of it and read a medium. Holes left once such gaps are
    # closed now count as the piece when it stays convex
    ("icepirates", 21000, 10, "sclear1", 5.0, ("clear", 3, "lying")),
    # clear s7, a small lying, its faces brighter than the cloth and its edge lines few, scored
    # white; as white it fitted best as one lit face of a standing large. A part read as lit
    # faces alone, whose score is not far below clear's, is now clear when one clear piece
    # fits all of it
    ("icepirates", 28000, 5, "s7", 5.0, ("clear", 1, "lying")),
    # clear p12, a small lying in a blurred image: its bright edges bleed outward, and a medium
    # overlapped the blob more. Chosen again as a whole explanation, where covering the cloth
    # costs twice what leaving a blob pixel uncovered does, the small fits better
    ("icehouse", 37000, 12, "p12", 5.0, ("clear", 1, "lying")),
    # clear sclear1, a large lying whose raised base face is a notch in its blob: a medium fitted
    # the rest better. The blob's holes and notches within its convex hull now count neither
    # for nor against a clear piece in the whole explanation
    ("icepirates", 30000, 5, "sclear1", 5.0, ("clear", 3, "lying")),
    # white treasure torange, a small lying on orange's home card: the card behind it lowers
    # its faces' contrast, so it scored a little clear and, fitted as clear, its lit face read
    # a small standing. On a card a pale part now needs a higher score to be clear
    ("icepirates", 25000, 12, "torange", 5.0, ("white", 1, "lying")),
    # white treasure tclear, a medium lying on clear's home card: read clear (the home's owner
    # keeps clear cargo clear) and a size small
    ("icepirates", 42000, 3, "tclear", 5.0, ("white", 2, "lying")),
    # white treasure tblue, a medium lying on blue's home card, fitted as its lit faces; its
    # score was under a card's clear bar but over the cloth's bar for doubting lit faces, and a
    # small clear piece fitted all of it. The doubt now starts as far under a card's bar
    ("icepirates", 37000, 6, "tblue", 5.0, ("white", 2, "lying")),
    # white treasure tgreen and tred, mediums lying on home cards, each read as a large lying
    # (tred's fitted so poorly that it was dropped as the card's shading). On a home a pyramid
    # of the islands' colour is treasure, which is never a large
    ("icepirates", 21000, 3, "tgreen", 5.0, ("white", 2, "lying")),
    ("icepirates", 51000, 4, "tred", 5.0, ("white", 2, "lying")),
    # white treasure on home cards, its upper face lit and the rest as dark as the card or
    # darker: tcyan (25000), a small lying, read a small standing's two lit faces; tyellow, a
    # medium lying, read standing; tcyan (30000), a medium lying, read a whole small. On a card
    # the upper face alone is now tried, and lying lit faces even when standing ones fit well
    ("icepirates", 25000, 13, "tcyan", 5.0, ("white", 1, "lying")),
    ("icepirates", 40000, 7, "tyellow", 5.0, ("white", 2, "lying")),
    ("icepirates", 30000, 10, "tcyan", 5.0, ("white", 2, "lying")),
    # white treasure tcyan and tblue, mediums lying on home cards, each read a whole small
    # (tcyan also 12 degrees off): a whole small fitted well, so the lit faces were not tried.
    # On a card they now are, a whole piece fitting well or not
    ("icepirates", 50000, 6, "tcyan", 5.0, ("white", 2, "lying")),
    ("icepirates", 49000, 5, "tblue", 5.0, ("white", 2, "lying")),
    # clear s11 and s7, smalls lying, scored 0.41 and 0.46 (clear from 0.46) and were read as a
    # white island's lit faces; one clear piece fitted them at 0.79 and 0.80, under the 0.85 a
    # doubted part needed. The nearer the bar its score, the less a clear fit must explain
    ("icepirates", 34000, 3, "s11", 5.0, ("clear", 1, "lying")),
    ("icepirates", 48000, 9, "s7", 5.0, ("clear", 1, "lying")),
    # green p7, a medium standing beside an arm, touched its region; its faces turned from the
    # light matched no colour of the profile, so they stayed the arm's and the lit half left
    # read a small lying. A darker face keeps its piece's chroma, which skin does not have
    ("icehouse", 28000, 8, "p7", 5.0, ("green", 2, "standing")),
    # the same for cyan p5, a large standing beside an arm, read a small lying
    ("icehouse", 37000, 12, "p5", 5.0, ("cyan", 3, "standing")),
    # and purple s9, a medium lying beside a hand, read a small
    ("icepirates", 41000, 4, "s9", 5.0, ("purple", 2, "lying")),
    # green p8, a small standing touching a large lying of its colour, was missed: the blob was
    # read as the large alone. One more piece is now fitted to what the pieces leave
    ("icehouse", 38000, 17, "p8", 5.0, ("green", 1, "standing")),
    # clear p9, a medium standing beside two larges lying, read as a third large lying
    ("icehouse", 37000, 9, "p9", 5.0, ("clear", 2, "standing")),
    # white islands i1 (71000) and i2 (32000) on pale cloth: only a lit face stood out, the cloth
    # showing beside its bright edges, so it looked clear and read a small lying. The island's
    # other faces are a faint region beside it; one island fits the two together
    ("icepirates", 71000, 14, "i1", 5.0, ("white", 3, "standing")),
    # (i2: 7 mm. Its frame's fourth marker, missed before the bits were read from the cells'
    # middles, makes the plane true to 0.15 px against 0.99 px without it, and the island now
    # reads 6.2 mm off where it read 2.8 mm with the tilted plane)
    ("icepirates", 32000, 5, "i2", 7.0, ("white", 3, "standing")),
    # clear ships s11 (60000), a large lying, and s5 (68000), a medium lying, each seen as an
    # outline open on one side (bright edges round faces that look like the cloth, one edge too
    # faint to close it): each read a size small. The part's convex hull is the piece
    ("icepirates", 60000, 9, "s11", 5.0, ("clear", 3, "lying")),
    ("icepirates", 68000, 11, "s5", 5.0, ("clear", 2, "lying")),
    # white p16 (58000) and p10 (106000), smalls lying under a 1280x720 camera, so bright that
    # the camera clips them: half their clipped level took in the blurred rim, and a standing
    # large's lit faces covered more of it than the small did. Their edge is now placed nearer
    # their faces' level
    ("icehouse", 58000, 2, "p16", 5.0, ("white", 1, "lying")),
    ("icehouse", 106000, 14, "p10", 5.0, ("white", 1, "lying")),
    # white treasure tyellow, a small lying on yellow's home, its shadow joining it to a yellow
    # ship lying beside the card: most of the blob was off the card, so the treasure was read
    # in the sea, as an island. A blob's part on a card of another colour than its part off it
    # is now read on the card
    ("icepirates", 111000, 11, "tyellow", 5.0, ("white", 1, "lying")),
    # clear smalls standing, p2 (128000) and p3 (131000), each read a small lying 15 to 17 mm
    # off, p5 (130000) read a medium standing, and clear mediums lying, s7 (84000) and p9
    # (95000), read large: the blurred outline is larger than the piece, and the wrong piece
    # covered it about as well. A clear piece shows every edge as a bright line; one clear
    # piece's size and pose are now chosen by where the lines its edges cast lie too
    ("icehouse", 128000, 8, "p2", 3.0, ("clear", 1, "standing")),
    ("icehouse", 131000, 14, "p3", 3.0, ("clear", 1, "standing")),
    ("icehouse", 130000, 15, "p5", 3.0, ("clear", 1, "standing")),
    ("icepirates", 84000, 8, "s7", 3.0, ("clear", 2, "lying")),
    ("icehouse", 95000, 8, "p9", 3.0, ("clear", 2, "lying")),
    # white treasure lying on white card stock, tyellow (139000) and tblue (140000), smalls, and
    # tcyan (149000), a medium: its lit faces within a few per cent of the card, no blob showed
    # it. Its dark side (a face turned from the light, its shadow) is now fitted with lying
    # pyramids by the faces' levels and the lines its edges cast
    ("icepirates", 139000, 2, "tyellow", 3.0, ("white", 1, "lying")),
    ("icepirates", 140000, 5, "tblue", 3.0, ("white", 1, "lying")),
    ("icepirates", 149000, 11, "tcyan", 3.0, ("white", 2, "lying")),
    # coloured larges beside an arm, in its shadow: p4 (161000), a green standing, was missed and
    # s8 (128000), a blue lying, read a small standing. A piece colour differs from the table as
    # skin does, so the piece was joined to the arm's region, and the arm's core (wider than any
    # piece, arm whatever its colour) took in the part of it beside the arm. Patches of a piece
    # colour no arm matches are now left out of the core
    ("icehouse", 161000, 16, "p4", 3.0, ("green", 3, "standing")),
    ("icepirates", 128000, 12, "s8", 3.0, ("blue", 3, "lying")),
    # white standing pieces whose tips lean far from a camera off to one side: p2 (143000), a
    # large, p8 (143000), a medium, and p7 (170000), a small, each read lying 17 to 31 mm off.
    # Their outlines fit a lying piece as well as a standing one; their faces' brightness does
    # not. The other pose of the size found is now also fitted, and wins when it scores nearly
    # as well and its faces explain clearly more of the brightness
    ("icehouse", 143000, 18, "p2", 3.0, ("white", 3, "standing")),
    ("icehouse", 143000, 18, "p8", 3.0, ("white", 2, "standing")),
    ("icehouse", 170000, 17, "p7", 3.0, ("white", 1, "standing")),
    # clear standing pieces whose tips lean far from a camera off to one side: p3 (155000), a
    # large, and p2 (193000), a medium, each read lying 25 to 33 mm off; and clear sclear2
    # (178000), a small lying, read standing. The two poses cast nearly the same lines; but an
    # edge between faces turned from the camera hardly shows, and an edge now counts by the
    # faces toward the camera it bounds
    ("icehouse", 155000, 18, "p3", 3.0, ("clear", 3, "standing")),
    ("icehouse", 193000, 8, "p2", 3.0, ("clear", 2, "standing")),
    ("icepirates", 178000, 1, "sclear2", 3.0, ("clear", 1, "lying")),
    # white treasure on white home cards showing only its lit base face: tyellow (145000 and
    # 148000), smalls lying, and tred (158000), a medium lying, each read as a standing piece's
    # lit faces 25 to 36 mm away. The base face was tried only as the thin strip it casts turned
    # away from the camera, and dropped as far smaller than the blob; both sides are tried now
    ("icepirates", 145000, 9, "tyellow", 3.0, ("white", 1, "lying")),
    ("icepirates", 148000, 1, "tyellow", 3.0, ("white", 1, "lying")),
    ("icepirates", 158000, 13, "tred", 3.0, ("white", 2, "lying")),
    # white standing pieces on a cloth of nearly their shade, seen from nearly above: p4
    # (142000) and p1 (231000), smalls, missed, and p6 (155000), a medium, read as a clear
    # small. The lit face stands out, the faces turned away sit at the cloth's level, and the
    # part looked clear, but no clear piece fitted it well; one white piece now may. Not in Ice
    # Pirates' sea, where white is an island: s8 (153000), a clear small lying, stays clear
    ("icehouse", 142000, 12, "p4", 3.0, ("white", 1, "standing")),
    ("icehouse", 231000, 13, "p1", 3.0, ("white", 1, "standing")),
    ("icehouse", 155000, 5, "p6", 3.0, ("white", 2, "standing")),
    ("icepirates", 153000, 11, "s8", 3.0, ("clear", 1, "lying")),
    # white pieces on a cloth of nearly their shade showing a fragment of one face, the rest
    # of them a faint region beside it: p2 (228000), a large standing, and p3 (177000), a
    # medium standing, read as clear smalls, and p11 (170000), a large lying, read a medium.
    # One white piece is now fitted to the part and the faint region together, as an
    # island's is in Ice Pirates' sea
    ("icehouse", 228000, 9, "p2", 3.0, ("white", 3, "standing")),
    ("icehouse", 177000, 22, "p3", 3.0, ("white", 2, "standing")),
    ("icehouse", 170000, 2, "p11", 3.0, ("white", 3, "lying")),
    # p5 (170000), a white small standing on a cloth of nearly its shade, missed: the one face
    # that stood out was a blob under MIN_AREA, dropped as noise before its faint faces were
    # looked at. Such a pale fragment beside faint faces is now fitted with them
    ("icehouse", 170000, 18, "p5", 3.0, ("white", 1, "standing")),
    # white treasure lying on a home card (199000, 223000): its one lit face made a blob that
    # fitted a small standing 15 to 20 mm away. A white piece a blob shows standing on a card is
    # now read lying when a lying piece explains the card's shading around it better
    ("icepirates", 199000, 2, "tyellow", 3.0, ("white", 1, "lying")),
    ("icepirates", 223000, 6, "tpurple", 3.0, ("white", 1, "lying")),
    # white pieces standing on cloth of nearly their shade, read clear: an Ice Pirates island
    # (271000) and an Icehouse small (270000). Their faces are evenly lit, as clear plastic's are
    # not: a part read as one clear piece standing whose faces explain most of its brightness is
    # now white where the rules allow
    ("icepirates", 271000, 13, "i1", 3.0, ("white", 3, "standing")),
    ("icehouse", 270000, 23, "p1", 3.0, ("white", 1, "standing")),
    # the same for a white large lying (264000), its faces explaining 70 % or more
    ("icehouse", 264000, 19, "p15", 3.0, ("white", 3, "lying")),
    # white smalls lying on cloth showing only their lit upper face, read as the lit faces of a
    # standing large (276000) or medium (138000) 14 to 16 mm away: the outline fitted, but the
    # standing piece's faces cut across the bright face. A lit-faces reading now gives way to
    # the whole one when the whole one's faces explain far more of the brightness
    ("icehouse", 276000, 6, "p8", 3.0, ("white", 1, "lying")),
    ("icehouse", 138000, 24, "p11", 3.0, ("white", 1, "lying")),
    # tred (281000), a white small lying on its home that no blob showed, read standing by the
    # dark-side search: the grid's best few were all standing and only they were refined, and a
    # refined standing beat an unrefined lying that refined scored higher. The best few of each
    # pose are now refined
    ("icepirates", 281000, 1, "tred", 6.0, ("white", 1, "lying")),
    # tred (309000), a white medium lying on its home showing its lit base face, read as a
    # small pointing the other way 40 mm off: its body, darker than the card but not than a
    # shadow, counted as card, and the base face's other side looked as good. The side whose
    # faces explain far more of the card's shading now wins
    ("icepirates", 309000, 2, "tred", 3.0, ("white", 2, "lying")),
    # white islands on cloth of nearly their shade, read as clear mediums standing (317000,
    # 325000): the faces at the cloth's level look clear, and a clear medium fitted the part,
    # a medium no white island is. Clear plastic lights its edges; one clear piece standing in
    # the sea whose edges cast no bright lines is now a white island
    ("icepirates", 317000, 14, "i5", 3.0, ("white", 3, "standing")),
    ("icepirates", 325000, 1, "i2", 3.0, ("white", 3, "standing")),
]


@pytest.mark.slow
@pytest.mark.parametrize("game, seed, number, pid, within, reading", HELD_OUT_READINGS,
                         ids=[f"{g}-{seed}-{n}-{pid}" for g, seed, n, pid, _, _ in HELD_OUT_READINGS])
def test_held_out_pieces_once_misread_are_read_right(game, seed, number, pid, within, reading):
    distance, read = _reading(*_held_out(game, seed, number), pid)
    assert distance < within
    assert read == reading


# Held-out clusters of touching lying pieces of one colour: (game, base seed, image, pieces).
# Fitted one by one, each piece was placed by how much of it lay inside the blob, and a piece
# lying across the seam lies inside as well as one either side of it
HELD_OUT_CLUSTERS = [
    # purple large and medium side by side, tips together: read as a large across both and a
    # small beside it
    ("icepirates", 28000, 7, ("spurple1", "spurple2")),
    # green medium and large side by side, tips together: read as two small standing and two
    # large, one standing
    ("icehouse", 36000, 10, ("p7", "p8")),
    # red small and medium side by side, tips one way: read as one large across both. No split
    # by position fitted both, and chosen together they were allowed no more pieces than the
    # one found one by one
    ("icehouse", 45000, 11, ("p8", "p14")),
    # green mediums side by side: one read as a small. Fitted first while the other's pixels
    # were still in its way, a piece is now fitted again to what the others leave
    ("icepirates", 43000, 9, ("s5", "s8")),
    # cyan mediums side by side, tips apart: both read standing
    ("icepirates", 40000, 13, ("s9", "s10")),
    # black medium and large, tips touching: read as three pieces, and blue medium and large
    # side by side: read as a small and two mediums. One piece dropped and the rest fitted again
    # now explains the blob better
    ("icehouse", 42000, 15, ("p13", "p15")),
    ("icepirates", 32000, 2, ("s9", "s13")),
    # cyan larges side by side, tips 8 to 11 mm apart and bodies fanning out: read as three
    # standing (121000), and as two lying the wrong way round (134000). The right pair was no
    # set the search kept (3 per step); kept wider (10), it found a triple that looked better
    # before its pieces were moved to fit, and the pair far better after. The best 3 sets are
    # now each placed before one is kept
    ("icehouse", 121000, 5, ("p9", "p10")),
    ("icehouse", 134000, 13, ("p11", "p13")),
]


@pytest.mark.slow
@pytest.mark.parametrize("game, seed, number, pids", HELD_OUT_CLUSTERS,
                         ids=[f"{g}-{seed}-{n}" for g, seed, n, _ in HELD_OUT_CLUSTERS])
def test_touching_lying_pieces_of_one_colour_are_each_read(game, seed, number, pids):
    truth, detected = _held_out(game, seed, number)
    cluster = [p for p in truth.pieces if p.id in pids]
    for t in cluster:
        distance, read = _reading(truth, detected, t.id)
        assert distance < 5.0 and read == (t.color, t.size, t.pose), t.id
        near = min(detected.pieces, key=lambda p: np.hypot(p.x - t.x, p.y - t.y))
        assert heading_error(near.heading, t.heading) < HEADING_OK, t.id
    around = [p for p in detected.pieces
              if min(np.hypot(p.x - t.x, p.y - t.y) for t in cluster) < 60 and p.color == cluster[0].color]
    near_truth = [t for t in truth.pieces
                  if min(np.hypot(t.x - c.x, t.y - c.y) for c in cluster) < 60 and t.color == cluster[0].color]
    assert len(around) == len(near_truth)


@pytest.mark.parametrize("seed, number", [(40000, 9), (15000, 8)])
def test_shading_on_a_home_card_is_no_piece(seed, number):
    # held-out image 9 of seed 40000: the faint shading beside a white treasure on its card
    # was read as a second white piece fitting it at IoU 0.14; image 8 of seed 15000: the print
    # of a card's corner fitted by a small standing white piece at 0.48. On a card, where white
    # faces are faint, a piece now has to fit its pixels at least CARD_MIN_IOU well
    truth, detected = _held_out("icepirates", seed, number)
    far = [p.id for p in detected.pieces if p.type == "pyramid" and not p.extra.get("uncertain")
           and min(np.hypot(p.x - t.x, p.y - t.y) for t in truth.pieces) > MATCH_MM]
    assert far == []


@pytest.mark.parametrize("seed, number, islands", [(76000, 3, ("i2", "i3", "i4")), (72000, 7, ("i4",))])
def test_white_islands_on_a_cloth_nearly_as_pale_are_found(seed, number, islands):
    # held-out images on a cloth at 0.77 of the paper's level: each island's faces are about
    # 6 % brighter than the cloth, under every brightness bar, and the islands were missed.
    # The cloth's own blotches are as bright, but only a piece has a sharp outline
    truth, detected, hidden = _held_out_hidden("icepirates", seed, number)
    for pid in islands:
        distance, read = _reading(truth, detected, pid)
        assert distance < 5.0 and read == ("white", 3, "standing"), pid
    assert score(truth, detected, hidden).extra == 0


def test_faint_faces_of_an_island_found_are_no_second_island():
    # held-out image 3 of seed 14000: island i2's shaded faces, a faint region apart from its
    # lit ones by a dark seam, are part of the island found, not a piece of their own
    truth, detected = _held_out("icepirates", 14000, 3)
    island = next(p for p in truth.pieces if p.id == "i2")
    near = [p for p in detected.pieces if np.hypot(p.x - island.x, p.y - island.y) < MATCH_MM]
    assert len(near) == 1


EVERY_READING = {(size, pose) for size in (1, 2, 3) for pose in ("standing", "lying")}


@pytest.mark.parametrize("game, treasure, on_card, colour, allowed", [
    ("icepirates", (), False, "white", {(3, "standing")}),      # an island: a nest under a large
    ("", ("white",), True, "white", {(size, pose) for size, pose in EVERY_READING if size < 3}),
    ("", ("white",), True, "black", EVERY_READING),
    ("icehouse", (), False, "white", EVERY_READING),
], ids=["island", "treasure-on-a-home", "other-opaque-colour-on-a-home", "icehouse"])
def test_the_rules_say_which_sizes_and_poses_a_pyramid_can_have(game, treasure, on_card, colour,
                                                                 allowed):
    # "The Large pieces of that color do not count as treasure": on a home, a pyramid of the
    # islands' colour is small or medium; a player's own spare pieces there keep every size
    known = Priors(game_rules(game, treasure), on_card).known(colour, None, None)
    assert {(size, pose) for size, pose in EVERY_READING if known.allows((pose, size))} == allowed
    assert known.card == on_card


def test_a_treasure_showing_only_its_lit_base_face_is_found_lying():
    # held-out image 7 of seed 21000: white treasure tblue lies on its white home card, where
    # only its lit base face stands out from the card; no whole pyramid fitted that strip and a
    # small standing piece was read beside it. The base face alone is now tried, with the body
    # on whichever side of it the pixels say more for. It was read a large: a medium's base
    # face, a thin strip, covers less than half the blob its blurred rim makes, and was not tried
    truth, detected = _held_out("icepirates", 21000, 7)
    t = next(p for p in truth.pieces if p.id == "tblue")
    near = [p for p in detected.pieces if np.hypot(p.x - t.x, p.y - t.y) < MATCH_MM]
    assert [(p.color, p.size, p.pose) for p in near] == [("white", 2, "lying")]
    assert heading_error(near[0].heading, t.heading) < HEADING_OK


def test_a_home_card_a_hand_touches_is_found_with_the_treasure_on_it():
    # held-out image 12 of seed 33000: a hand covers a corner of red's ivory home card. Card
    # stock differs from the cloth in colour as skin does, so the card was joined to the arm
    # and lost, and with it the white treasure on it. Stock that does not run out of the view
    # is now no arm
    truth, detected = _held_out("icepirates", 33000, 12)
    home = next(p for p in truth.pieces if p.id == "home-red")
    cards = [p for p in detected.pieces if p.type == "card" and np.hypot(p.x - home.x, p.y - home.y) < 5]
    assert len(cards) == 1 and card_angle_error(cards[0], home) < 2
    distance, read = _reading(truth, detected, "tred")
    assert distance < 5 and read == ("white", 2, "lying")


def test_a_frame_gives_the_same_scene_whatever_came_before():
    # held-out image 8 of seed 22000: a hand over touching green pieces. Their blob was cut in
    # two by k-means from a random start (OpenCV's global generator), so one detector read the
    # same frame as 21 pieces, then as 20; the live loop and the benchmark reuse a detector
    image = samples.plan("icepirates", 22000)[7]
    _, drawn, _ = samples.render_planned("icepirates", image)
    frame = samples.read_back(drawn.image)
    detector = Detector(samples.planned_calibration("icepirates", image))
    first, second = (detector.detect(frame, "icepirates") for _ in range(2))
    assert second.pieces == first.pieces


@pytest.mark.parametrize("network", [False, True], ids=["thresholds", "network"])
def test_what_the_view_s_edge_cuts_is_reported_uncertain(network):
    # held-out image 24 of seed 18000: a pale arm reaches in from the table's left edge, and
    # the strip of it the arm test missed was read as two white lying pieces, one off the
    # table (x -13 mm); a blob that runs out of the view may be anything, and is now uncertain.
    # The segmentation network reads the strip as a hand: nothing is read there at all
    truth, detected = _held_out("icehouse", 18000, 24, **({} if network else {"segment_model": None}))
    assert min(p.x for p in truth.pieces) > 50
    edge = [p for p in detected.pieces if p.x < 20]
    assert (edge or network) and all(p.extra.get("uncertain") and p.confidence <= 0.3 for p in edge)
    s = score(truth, detected)
    assert s.extra == 0 and s.all_right == s.pieces


def test_wood_grain_running_out_of_the_view_is_no_piece():
    # a committed photoreal frame of the train split (oak under a window, an arm in view): the
    # grain's pale stripes run out of the view, and each was kept whole as what the view's edge
    # cuts, 40 uncertain pyramids of nothing; the network reads them as table. What is left
    # is beside the arm: 5, and 6 since a coloured piece's other pose is tried (a fragment of
    # the arm, read red, is fitted as two lying pieces, not one standing)
    photoreal = ROOT / "tests" / "data" / "photoreal"
    truth = scene_from_dict(json.loads((photoreal / "s0009-f0.json").read_text()))
    detected = Detector(load(photoreal / "calibration-s0009.json")).detect(
        cv2.imread(str(photoreal / "s0009-f0.jpg")), truth.game)
    s = score(truth, detected, tuple(truth.extra["render"]["hidden"]))
    assert s.uncertain <= 6 and s.pieces >= 30


def test_translucent_pieces_keep_their_faces_turned_from_the_light():
    # a committed photoreal frame of the train split (glossy translucent pieces on laminate under
    # a ceiling panel): a face turned from the light keeps a third to a half of the lit faces'
    # contrast, and the cut at half took it away. The orange medium standing p10 was read a
    # small, the yellow medium lying p15 a small; the orange small lying p4 was read standing
    # and the green small lying p29 was not read at all
    photoreal = ROOT / "tests" / "data" / "photoreal"
    truth = scene_from_dict(json.loads((photoreal / "s0003-f1.json").read_text()))
    detected = Detector(load(photoreal / "calibration-s0003.json")).detect(
        cv2.imread(str(photoreal / "s0003-f1.jpg")), truth.game)
    for pid in ("p4", "p10", "p15", "p29"):
        t = next(p for p in truth.pieces if p.id == pid)
        distance, read = _reading(truth, detected, pid)
        assert distance < 3.0 and read == (t.color, t.size, t.pose), pid


def test_a_coloured_piece_standing_is_told_from_one_lying_by_its_faces():
    # a committed photoreal frame of the train split: orange standing pieces, a medium p8 and
    # a small p39, whose tips lean away from the camera, cast outlines that a lying piece fits
    # about as well; p8 was read lying 16 mm off and p39 not at all. The faces of the pose a
    # piece is in explain its brightness, as a white piece's did before
    photoreal = ROOT / "tests" / "data" / "photoreal"
    truth = scene_from_dict(json.loads((photoreal / "s0017-f1.json").read_text()))
    detected = Detector(load(photoreal / "calibration-s0017.json")).detect(
        cv2.imread(str(photoreal / "s0017-f1.jpg")), truth.game)
    for pid in ("p8", "p39"):
        t = next(p for p in truth.pieces if p.id == pid)
        distance, read = _reading(truth, detected, pid)
        assert distance < 5.0 and read == (t.color, t.size, t.pose), pid


def test_a_dark_ship_read_as_an_island_is_fitted_again_as_a_ship():
    # a committed photoreal frame of the validation split (overcast, linen): dark green ships,
    # read black in the sea, were fitted as islands (standing larges); the colour network reads
    # them green, and they were reported as green standing larges. They are fitted again as
    # ships, lying as they are, two touching ships (s11, sgreen2) as two
    photoreal = ROOT / "tests" / "data" / "photoreal"
    truth = scene_from_dict(json.loads((photoreal / "val-s0001-f1.json").read_text()))
    frame = cv2.imread(str(photoreal / "val-s0001-f1.jpg"))
    detected = Detector(load(photoreal / "calibration-val-s0001.json")).detect(frame, truth.game)
    for pid in ("s11", "sgreen2", "s15"):
        t = next(p for p in truth.pieces if p.id == pid)
        distance, read = _reading(truth, detected, pid)
        assert distance < 5.0 and read == (t.color, t.size, t.pose), pid
    assert not [p for p in detected.pieces if p.color == "green" and p.pose == "standing"]


def test_clear_pieces_under_an_overcast_sky_are_found():
    # a committed photoreal frame of the validation split: clear plastic under diffuse light dims
    # the linen seen through it evenly, to about 0.75 of it, under every threshold, and the
    # pieces were not reported (one was read purple); the segmentation network reads them as piece
    photoreal = ROOT / "tests" / "data" / "photoreal"
    truth = scene_from_dict(json.loads((photoreal / "val-s0000-f1.json").read_text()))
    frame = cv2.imread(str(photoreal / "val-s0000-f1.jpg"))
    detected = Detector(load(photoreal / "calibration-val-s0000.json")).detect(frame, truth.game)
    clear = [p for p in truth.pieces if p.color == "clear"]
    assert len(clear) == 7
    right = []
    for t in clear:
        distance, read = _reading(truth, detected, t.id)
        if distance < 8.0 and read == (t.color, t.size, t.pose):
            right.append(t.id)
    assert len(right) >= 6, right


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "icetable", *args], capture_output=True, text=True, cwd=ROOT)


def test_detect_prints_a_valid_scene():
    image = SAMPLES / "icehouse" / "icehouse-01.jpg"
    cal = SAMPLES / "icehouse" / json.loads(image.with_suffix(".json").read_text())["render"]["calibration"]
    result = _cli("detect", str(image), "-c", str(cal))
    assert result.returncode == 0, result.stderr
    scene = scene_from_dict(json.loads(result.stdout))
    assert scene.pieces and all(0 <= p.confidence <= 1 for p in scene.pieces)


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_text("not an image"), "not an image"),
    (lambda p: cv2.imwrite(str(p), np.full((720, 1280, 3), 10, np.uint8)), "too dark"),
    (lambda p: cv2.imwrite(str(p), cv2.GaussianBlur(cv2.imread(str(SAMPLES / "icehouse" / "icehouse-01.jpg")),
                                                    (0, 0), 5)), "too blurred"),
    (lambda p: cv2.imwrite(str(p), np.full((720, 1280, 3), 128, np.uint8)), "no calibration mat"),   # blank
])
def test_bad_frames_get_one_clear_line(tmp_path, make, message):
    path = tmp_path / "frame.png"
    make(path)
    cal = SAMPLES / "icehouse" / "calibration-cam720-daylight.json"
    result = _cli("detect", str(path), "-c", str(cal))
    assert result.returncode != 0
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("spoil, message", [
    (lambda d: d["pieces"][0].update(pose="lying", heading=360.0), "field 'heading': angle must be in [0, 360)"),
    (lambda d: d["render"].pop("calibration"), "field 'render': names no calibration file"),
])
def test_the_benchmark_names_a_bad_truth_file_in_one_line(tmp_path, spoil, message):
    folder = tmp_path / "icehouse"
    folder.mkdir()
    truth = json.loads((SAMPLES / "icehouse" / "icehouse-01.json").read_text())
    spoil(truth)
    (folder / "icehouse-01.json").write_text(json.dumps(truth))
    (folder / "icehouse-01.jpg").write_bytes((SAMPLES / "icehouse" / "icehouse-01.jpg").read_bytes())
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "vision.py"), "--images", str(tmp_path)],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode != 0
    assert message in result.stderr and "icehouse-01.json" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_frame_without_the_mat_is_refused():
    rng = np.random.default_rng(3)
    frame = cv2.GaussianBlur(rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8), (0, 0), 1.0)
    detector = Detector(load(SAMPLES / "icehouse" / "calibration-cam720-daylight.json"))
    with pytest.raises(FrameError, match="no calibration mat"):
        detector.detect(frame)
