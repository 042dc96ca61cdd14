"""Piecepack detection on the committed IceFloe and Iceberg sample images, against their truth."""
import json
import math
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import enrol
from calibration.calibfile import load
from referee.scene import scene_from_dict
from vision import segnet
from vision.detector import Detector
from vision.piecepack import profile as pp, samples
from vision.piecepack.detect import SHIFT, PiecepackDetector, _hands, _is_tile, _mark_skin
from vision.piecepack.evaluation import FIELDS, GAMES, Score, floes, score
from vision.piecepack.view import PlaneView
from vision.samples import read_back
from vision.topview import TopView

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_images"
# Floors a little under what bench/vision.py prints today (docs/vision-piecepack.md).
FLOORS = {"suit": 0.99, "rank": 0.99, "face": 0.99, "letter": 0.99}     # targets 0.995
IMAGES_RIGHT = 0.85                                                        # target 0.90
FLOES_SAME = 0.85


def _truths(game):
    return sorted((SAMPLES / game).glob(f"{game}-*[0-9].json"))


@pytest.fixture(scope="module")
def results():
    """(game, truth, detected, ids under a hand) for every sample image."""
    out = []
    for game in GAMES:
        for path in _truths(game):
            data = json.loads(path.read_text())
            detector = Detector(load(path.parent / data["render"]["calibration"]))
            frame = cv2.imread(str(path.with_suffix(".jpg")))
            out.append((game, scene_from_dict(data, str(path)), detector.detect(frame, game),
                        tuple(data["render"]["hidden"])))
    return out


@pytest.mark.slow
def test_the_sample_sets_cover_what_the_games_show(results):
    truths = [t for _, t, _, _ in results]
    assert len([t for t in truths if t.game == "icefloe"]) >= 12 and len(truths) >= 24
    faces = {p.face for t in truths for p in t.of_type("tile")}
    assert faces == {"up", "down"}
    assert any(t.of_type("pp_pyramid") and len(t.of_type("tile")) < 24 for t in truths)   # floes removed
    assert any(len(t.of_type("coin")) > 10 for t in truths)                              # coins on quarters
    assert {t.of_type("die")[0].suit for t in truths if t.of_type("die")} >= {"suns", "moons"}


@pytest.mark.slow
def test_every_field_is_read_right_for_nearly_every_piece(results):
    total = Score()
    for _, truth, detected, hidden in results:
        total.add(score(truth, detected, hidden))
    for name in FIELDS:
        assert total.rate(name) >= FLOORS[name], (name, total.rate(name), total.mistakes)
    assert total.missing + total.extra <= 0.005 * total.pieces


@pytest.mark.slow
def test_most_images_are_entirely_right(results):
    right = sum(score(truth, detected, hidden).images_right for _, truth, detected, hidden in results)
    assert right >= IMAGES_RIGHT * len(results)


@pytest.mark.slow
def test_icefloe_reports_give_the_truths_floes_and_weights(results):
    icefloe = [(t, d) for game, t, d, hidden in results if game == "icefloe" and not hidden]
    same = sum(floes(t) == floes(d) for t, d in icefloe)
    assert same >= FLOES_SAME * len(icefloe)


@pytest.mark.slow
def test_positions_are_within_a_few_millimetres(results):
    total = Score()
    for _, truth, detected, hidden in results:
        total.add(score(truth, detected, hidden))
    distances = sorted(total.position_mm)
    assert distances[len(distances) // 2] <= 1.5 and distances[int(0.95 * len(distances))] <= 4.0


@pytest.mark.slow
def test_pieces_by_an_arm_are_flagged_uncertain(results):
    near = [(t, d, hidden) for _, t, d, hidden in results if hidden]
    assert near
    for truth, detected, hidden in near:
        flagged = [p for p in detected.pieces if p.extra.get("uncertain")]
        assert flagged and all(p.confidence <= 0.3 for p in flagged)
        seen = score(truth, detected, hidden)
        assert len(seen.mistakes) <= 2


@pytest.mark.slow
def test_pyramids_beside_an_arm_are_found(results):
    for _, truth, detected, hidden in results:
        if hidden:
            missing = [m for m in score(truth, detected, hidden).mistakes if m.startswith("missing pp_pyramid")]
            assert not missing, missing


@pytest.mark.slow
def test_tiles_whose_centre_numeral_a_large_pyramid_hides_are_read_from_what_shows(results):
    covered = 0
    for game, truth, detected, hidden in results:
        big = [p for p in truth.of_type("pp_pyramid") if p.size in "DEF"]
        tiles = {t.id for t in truth.of_type("tile") if t.face == "up" and t.id not in hidden
                 and any(math.hypot(p.x - t.x, p.y - t.y) < 6.0 for p in big)}
        covered += len(tiles)
        wrong = [m for m in score(truth, detected, hidden).mistakes
                 if m.split(":")[0] in tiles or m.startswith("missing tile") and m.split()[-1] in tiles]
        assert not wrong, wrong
    assert covered >= 20


def test_detect_command_prints_an_icefloe_scene_the_referee_reads(tmp_path):
    image = SAMPLES / "icefloe" / "icefloe-05.jpg"
    cal = image.parent / json.loads(image.with_suffix(".json").read_text())["render"]["calibration"]
    result = subprocess.run([sys.executable, "-m", "icetable", "detect", str(image), "-c", str(cal),
                             "--game", "icefloe"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    scene = scene_from_dict(json.loads(result.stdout))
    assert len(scene.of_type("tile")) >= 20 and scene.of_type("pp_pyramid")
    path = tmp_path / "scene.json"
    path.write_text(result.stdout)
    check = subprocess.run([sys.executable, "-m", "icetable", "check", str(path)], capture_output=True,
                           text=True, cwd=ROOT)
    report = json.loads(check.stdout)
    assert set(report["status"]["floes"]) == {t.id for t in scene.of_type("tile")}


def _held_out(base_seed: int, number: int):
    """IceFloe image `number` of `icetable render --samples DIR --base-seed base_seed`, rendered
    here: (truth, what the detector reads from its JPEG, ids the arm hides)."""
    truth, drawn, cam, _ = samples.render_one("icefloe", 6000 + base_seed, number - 1)
    frame = read_back(drawn.image, samples.JPEG_QUALITY)
    return truth, Detector(samples.calibration(cam, truth.area)).detect(frame, "icefloe"), tuple(drawn.hidden)


def test_an_arm_the_view_s_edge_cuts_narrow_is_read_as_no_pieces():
    """Held-out image 6 of seed 25000: an arm reaches in at the view's left edge with only
    17 mm of it inside, too narrow there to pass for an arm; its skin was read as three blank
    moons dice at x = -5 mm. The view's edge now carries an arm on beyond it."""
    truth, detected, hidden = _held_out(25000, 6)
    result = score(truth, detected, hidden)
    assert result.extra == 0
    assert result.missing == 0
    assert not [p for p in detected.pieces if p.type == "die" and p.x < 0]


def test_a_pyramid_over_its_own_suits_hidden_numeral_is_read_from_its_outline():
    """Held-out image 10 of seed 11000: arms-B stands on arms-4, hiding most of the centre
    numeral; the tile's half turn was read wrong, so the numeral's visible ends were taken for
    the pyramid (read as C)."""
    truth, detected, _ = _held_out(11000, 10)
    on_own = [p for p in truth.of_type("pp_pyramid")
              if any(t.suit == p.suit and math.hypot(t.x - p.x, t.y - p.y) < 4 for t in truth.of_type("tile"))]
    assert "arms-B" in {p.id for p in on_own}
    mistakes = score(truth, detected).mistakes
    assert not [m for m in mistakes if m.split(":")[0] in {p.id for p in on_own}], mistakes
    assert not mistakes, mistakes


def test_a_cloth_nearly_as_pale_as_the_tiles_leaves_the_tiles_found_by_their_shape():
    """Held-out image 5 of seed 15000, daylight on a pale cloth: the tiles cover less of the
    view than the brightest quarter the old white balance looked in, so none was applied and
    the tiles were classed as unknown (30 pieces missed). Their stock is found as squares."""
    truth, detected, hidden = _held_out(15000, 5)
    assert not hidden and len(truth.of_type("tile")) >= 15
    assert not score(truth, detected).mistakes


def test_an_arm_brighter_than_the_tiles_does_not_take_their_white_balance():
    """Held-out image 6 of seed 15000, warm light: a pale arm covers more of the view than the
    tiles and is brighter, so the old white balance was taken on the skin and every tile was
    classed as suns (pieces read as dice, 18 missed and 17 extra)."""
    truth, detected, hidden = _held_out(15000, 6)
    assert hidden
    seen = score(truth, detected, hidden)
    assert seen.missing == 0 and seen.extra == 0, seen.mistakes
    assert len(seen.mistakes) <= 1, seen.mistakes       # a moons pyramid in the arm's shadow may read one letter small


def test_a_tile_whose_centre_numeral_a_pyramid_hides_is_read_from_its_small_numerals():
    """Held-out image 5 of seed 16000: crowns-C stands on crowns-3 and hides its centre numeral.
    The tile's stock outline, cut by the pyramid, placed it 1.4 mm and 1.6 degrees off, and
    the corner symbols of the learned 5 fitted that misplaced patch better than the 3's: the
    small numerals that tell a 3 from a 5 were outweighed (read as a 5)."""
    truth, detected, _ = _held_out(16000, 5)
    tile = truth.by_id()["crowns-3"]
    assert any(p.type == "pp_pyramid" and math.hypot(p.x - tile.x, p.y - tile.y) < 4 for p in truth.pieces)
    mistakes = score(truth, detected).mistakes
    assert not mistakes, mistakes


def test_an_unsure_tile_takes_the_suit_its_print_is_coloured():
    """Held-out image 16 of seed 17000, dim light: suns-D stands on moons-4. No face matched the
    tile well, and of the close ones all were crowns, though its print is classed moons (dark)
    nearly throughout; read as crowns-4 before, it is now read among the moons faces."""
    truth, detected, _ = _held_out(17000, 16)
    tile = truth.by_id()["moons-4"]
    assert any(p.type == "pp_pyramid" and math.hypot(p.x - tile.x, p.y - tile.y) < 6 for p in truth.pieces)
    read = min(detected.of_type("tile"), key=lambda t: math.hypot(t.x - tile.x, t.y - tile.y))
    assert (read.suit, read.rank) == ("moons", 4)
    assert not score(truth, detected).mistakes, score(truth, detected).mistakes


def test_a_pyramid_over_its_own_suits_numeral_settles_the_tiles_half_turn():
    """Held-out image 5 of seed 12000: suns-A stands on the centre numeral of suns-4, whose
    symbols are the same under a half turn. The tile was read turned round, so the numeral's
    visible foot was not ignored as print but counted as pyramid (read as B); the print turned
    round explains the pyramid better, and the tile is reported the right way round."""
    truth, detected, _ = _held_out(12000, 5)
    assert not score(truth, detected).mistakes, score(truth, detected).mistakes
    tile = min(detected.of_type("tile"), key=lambda t: math.hypot(t.x - 76.3, t.y - 125.0))
    true_tile = truth.by_id()["suns-4"]
    assert (tile.suit, tile.rank) == ("suns", 4)
    assert abs((tile.angle - true_tile.angle + 180) % 360 - 180) < 5


def test_a_black_pyramid_on_a_bright_tile_is_read_out_to_its_blurred_edge():
    """Held-out image 10 of seed 16000: moons-E stands on a pale suns tile; the colour classes
    gave the black pyramid only its edge pixels three quarters dark, so its outline shrank by
    about a pixel all round and it was read as D."""
    truth, detected, _ = _held_out(16000, 10)
    moons = {p.id for p in truth.of_type("pp_pyramid") if p.suit == "moons"}
    assert "moons-E" in moons
    mistakes = score(truth, detected).mistakes
    assert not [m for m in mistakes if m.split(":")[0] in moons], mistakes
    assert not mistakes, mistakes


def test_two_touching_black_pyramids_are_cut_into_two():
    """Held-out image 12 of seed 15000: moons-B touches moons-C; the larger one's distance
    transform had peaks a few pixels apart on one ridge, so the pair was cut in more than two
    parts and moons-B was read as A."""
    truth, detected, hidden = _held_out(15000, 12)
    moons = {p.id for p in truth.of_type("pp_pyramid") if p.suit == "moons"}
    assert {"moons-B", "moons-C"} <= moons
    mistakes = score(truth, detected, hidden).mistakes
    assert not [m for m in mistakes if m.split(":")[0] in moons], mistakes


def test_a_black_pyramid_cut_from_a_touching_one_keeps_its_blurred_edge():
    """Held-out image 12 of seed 18000: moons-D touches moons-A; the cut through their opened
    core left moons-D's part up to a pixel short of its blurred edge (the edge the half-way
    level gives a whole piece), and it was read as C."""
    truth, detected, hidden = _held_out(18000, 12)
    moons = {p.id for p in truth.of_type("pp_pyramid") if p.suit == "moons"}
    assert {"moons-A", "moons-D"} <= moons
    mistakes = score(truth, detected, hidden).mistakes
    assert not [m for m in mistakes if m.split(":")[0] in moons], mistakes
    assert not mistakes, mistakes


def test_a_pawn_beside_an_arm_is_not_read_as_a_die():
    """Held-out image 6 of seed 11000: pawn-arms stands on the cloth beside an arm; its blob
    took in its blurred edge, about a pixel all round beyond the pawn, and a die's outline
    explained it better."""
    truth, detected, hidden = _held_out(11000, 6)
    assert "pawn-arms" not in hidden
    mistakes = score(truth, detected, hidden).mistakes
    assert not [m for m in mistakes if "pawn" in m or "die" in m], mistakes


def test_a_small_pyramid_over_its_own_suits_numeral_is_read_from_its_edge():
    """Held-out image 16 of seed 17000: suns-A stands on suns-5 over the centre numeral; the
    blurred edge round the numeral's ink counted against the small letter (read as B)."""
    truth, detected, _ = _held_out(17000, 16)
    assert "suns-A" in {p.id for p in truth.of_type("pp_pyramid")}
    mistakes = score(truth, detected).mistakes
    assert not [m for m in mistakes if m.startswith("suns-A")], mistakes


def test_a_tile_crowded_by_three_pyramids_is_found_with_them():
    """Held-out image 6 of seed 14000: three large pyramids stand on moons-5 and overhang its
    edges, so only a quarter of its stock shows, in two pieces. It was taken for scraps and the
    tile and all three pyramids were missed; stock, print and pieces cover the tile's middle."""
    truth, detected, hidden = _held_out(14000, 6)
    tile = truth.by_id()["moons-5"]
    on = {p.id for p in truth.of_type("pp_pyramid") if math.hypot(p.x - tile.x, p.y - tile.y) < 26}
    assert len(on) == 3 and "moons-5" not in hidden
    mistakes = score(truth, detected, hidden).mistakes
    assert not [m for m in mistakes if m.split(":")[0] in on | {"moons-5"} or m.split()[-1] in on | {"moons-5"}], \
        mistakes


def test_pyramids_on_a_tile_the_arm_hides_are_read_as_pyramids():
    """Held-out image 6 of seed 12000: an arm hides arms-5 but not crowns-B and suns-C standing
    on it. Off every tile found, they were taken for pieces beside the board and read as dice;
    near an arm any shape may stand, and the pyramids' outlines fit best."""
    truth, detected, hidden = _held_out(12000, 6)
    assert "arms-5" in hidden and not {"crowns-B", "suns-C"} & set(hidden)
    mistakes = score(truth, detected, hidden).mistakes
    assert not [m for m in mistakes if "crowns-B" in m or "suns-C" in m], mistakes
    for pid in ("crowns-B", "suns-C"):
        t = truth.by_id()[pid]
        near = min(detected.pieces, key=lambda p: math.hypot(p.x - t.x, p.y - t.y))
        assert (near.type, near.suit, near.size) == ("pp_pyramid", t.suit, t.size)
        assert near.extra.get("uncertain")


def test_a_pyramid_the_arm_cuts_into_keeps_its_letter():
    """Held-out image 12 of seed 16000: an arm covers a corner of suns-D. The arm's pixels
    counted against the true outline, and the smaller C fitted what showed; now a shape's
    pixels under an arm count neither way."""
    truth, detected, hidden = _held_out(16000, 12)
    assert "suns-D" not in hidden
    t = truth.by_id()["suns-D"]
    near = min(detected.of_type("pp_pyramid"), key=lambda p: math.hypot(p.x - t.x, p.y - t.y))
    assert math.hypot(near.x - t.x, near.y - t.y) < 2
    assert (near.suit, near.size) == ("suns", "D") and near.extra.get("uncertain")


def test_a_scrap_cut_from_a_pyramid_and_its_numeral_is_no_second_pyramid():
    """Held-out image 5 of seed 14000: suns-B touches the suns numeral 3 it stands beside. The
    blob was cut in two through the pyramid, and its right side with the numeral's stroke fitted
    a pyramid A whose base overlapped suns-B's by 40 %; solid pieces cannot overlap."""
    truth, detected, hidden = _held_out(14000, 5)
    assert not hidden
    t = truth.by_id()["suns-B"]
    near = [p for p in detected.pieces if math.hypot(p.x - t.x, p.y - t.y) < 12]
    assert [(p.type, p.suit, p.size) for p in near] == [("pp_pyramid", "suns", "B")]
    assert not score(truth, detected).mistakes


@pytest.mark.parametrize("edition, blur", [("marks", 0.0), ("wood", 1.5)])
def test_a_face_read_as_another_suit_takes_the_suit_its_marks_show(edition, blur):
    """An edition that prints every rank in black tells the suits apart by small coloured marks
    only: an unsure face read as another suit of its rank, and placed a pixel off, is put right
    by its marks, also where a coarser camera blurs thin outlined marks faint, short of the
    ink's contrast (`blur`: pixels of 0.5 mm; 48 of 60 faces of 'wood' were wrong at 1.0 with
    the marks taken where the faces show ink). Null faces are left out: those of 'marks' show
    their marks alone, and their print's colour tells them."""
    learned = enrol.learn(samples.enrolment_photos("daylight", 11, by_hand=True, edition=edition)[0])
    if blur:
        learned.tiles = {k: cv2.GaussianBlur(t, (0, 0), blur) for k, t in learned.tiles.items()}
    detector = PiecepackDetector(learned)
    assert detector._marked_ranks >= {"1", "2", "3", "4", "5"}
    wrong = []
    for name, art in learned.tiles.items():
        suit, rank = name.split("-") if name != "back" else (None, None)
        if rank == "0":
            continue
        for other in (s for s in pp.SUITS if suit and s != suit):
            big = np.pad(art, ((SHIFT + 1, SHIFT - 1), (SHIFT, SHIFT), (0, 0)), mode="edge")
            seen = detector._suit_by_marks(f"{other}-{rank}", 0, big, np.ones(art.shape[:2], bool))
            if seen != name:
                wrong.append((name, other, seen))
    assert not wrong


def test_faces_printed_in_their_suit_s_colour_are_not_told_by_their_marks():
    """Where each suit prints its rank in its own colour (the project's art), the colour of the
    whole face tells the suit better than a few small marks: no face's suit is read from them."""
    assert PiecepackDetector(pp.default())._marked_ranks == set()


@pytest.mark.parametrize("at_edge", [False, True])
def test_an_arm_comes_in_from_the_view_s_edge(monkeypatch, at_edge):
    """A large area the network reads as a hand is an arm only when it reaches the view's edge
    (the players sit round the table): all inside it, it is a light pool on the cloth or the
    board the network misreads, and the pieces on it are not flagged."""
    s = 0.5
    area = np.zeros((800, 800, 3), np.float32)
    area[..., 0] = 1.0                                 # table
    x0 = 0 if at_edge else 300
    area[300:500, x0:x0 + 200] = (0.0, 0.0, 1.0)       # 100 x 100 mm read as a hand
    monkeypatch.setattr(segnet, "probabilities", lambda features, mm_per_px, model: area)
    hands = _hands(np.zeros((800, 800), np.uint8), np.zeros((800, 800, 3), np.float32), s)
    assert bool(hands.any()) == at_edge


def _box(x, y, error=0.9, label=0, cloth=0.0):
    return {"x": x, "y": y, "_error": error, "_label": label, "_cloth": cloth}


def test_a_blank_unexplained_tile_is_skin_only_as_part_of_an_arm():
    """A box no face explains and with no suit-coloured print is skin only when it belongs to an
    arm: near one found by colour, at the view's edge, or next to such a box. A nearly blank face
    (a null with one small mark) in the middle of the table is a tile; a gap in the board is not."""
    s = 0.5
    pv = PlaneView(TopView(np.zeros((800, 800, 3), np.uint8), (0.0, 0.0), s, np.array([200.0, 200.0, -800.0])),
                   6.35, np.zeros((800, 800, 3), np.float32))
    hands = np.zeros((800, 800), np.uint8)
    hands[700:, 380:420] = 1                                          # an arm coming in at the bottom
    blank, gap, printed = _box(100, 100), _box(200, 100, cloth=0.9), _box(300, 100, label=4)
    edge, chain = _box(20, 200), _box(72, 205)                        # at the left edge, and its neighbour
    near_arm = _box(200, 330)
    tiles = [blank, gap, printed, edge, chain, near_arm]
    _mark_skin(tiles, hands, pv, 50.8)
    assert [_is_tile(t) for t in tiles] == [True, False, True, False, False, False]


def test_the_tiles_card_in_a_shadow_is_told_from_their_print():
    """The stock in a piece's shadow under a low sun and a blue sky (darker, a little bluer)
    is card in shadow; a suit's blue print and black print are not. (The cloth is told apart
    by its own class before.)"""
    profile = pp.default()
    stock = profile.colors.means[profile.colors.names.index("stock")].astype(np.float32)
    pixels = np.array([[stock,                                   # lit card
                        stock + np.array([-0.5, -0.6, -0.75]),   # card in shadow (BGR: blue least dimmed)
                        stock + np.array([0.1, -1.0, -2.2]),     # blue print
                        stock - 3.0]], np.float32)               # black print
    assert profile.shaded_stock(pixels, stock).tolist() == [[False, True, False, False]]


def test_checks_of_a_gingham_cloth_the_card_s_colour_are_no_tiles():
    """Checks two thirds of a tile wide, the card's colour, on a gingham cloth: each shows as
    a square of stock too small both ways with nothing hiding the rest, so none is a tile box.
    A whole tile beside them is, and so is a tile whose far third pieces hide."""
    s, side = 0.5, 50.8
    classes = np.zeros((800, 800), np.uint8)                 # cloth
    pieces = np.zeros((800, 800), np.uint8)
    check = int(0.68 * side / s)
    for r in range(4):
        for c in range(4):
            if (r + c) % 2 == 0:
                classes[20 + r * check:20 + (r + 1) * check, 20 + c * check:20 + (c + 1) * check] = pp.CLASSES.index("stock")
    tile = int(side / s)
    classes[500:500 + tile, 500:500 + tile] = pp.CLASSES.index("stock")          # a whole tile
    classes[500:500 + tile, 300:300 + int(0.7 * tile)] = pp.CLASSES.index("stock")
    pieces[500:500 + tile, 300 + int(0.7 * tile):300 + tile] = 255               # ... its third under pieces
    pv = PlaneView(TopView(np.zeros((800, 800, 3), np.uint8), (0.0, 0.0), s, np.array([200.0, 200.0, -800.0])),
                   6.35, np.zeros((800, 800, 3), np.float32))
    boxes = PiecepackDetector(pp.default())._tile_boxes(pv, classes, pieces)
    found = sorted((b["x"], b["y"]) for b in boxes)
    assert len(found) == 2 and np.allclose(found, [(175.4, 275.4), (275.4, 275.4)], atol=2.0), found


@pytest.mark.parametrize("grid", [True, False])
def test_touching_tiles_joined_by_a_check_of_the_card_s_colour_are_laid_on_their_grid(monkeypatch, grid):
    """Nine touching tiles (no border between them seen) turned 4 degrees, and a check of a
    gingham the card's colour, turned 45 degrees, joined to the board's side: the area's
    rectangle is pulled askew and its cut misplaces the tiles, while the grid of tile-sized
    cells that explains the area best puts a box within 2 mm of every tile's centre and
    none on the check."""
    s, side, turn = 0.5, 50.8, 4.0
    classes = np.zeros((1000, 1000), np.uint8)
    centres = [(250 + side * (c * math.cos(math.radians(turn)) - r * math.sin(math.radians(turn))),
                250 + side * (c * math.sin(math.radians(turn)) + r * math.cos(math.radians(turn))))
               for r in (-1, 0, 1) for c in (-1, 0, 1)]
    for x, y in centres + [(250 + 1.5 * side + 14, 250 + 0.8 * side)]:
        size, angle = (side, turn) if (x, y) in centres else (40.0, 45.0)
        box = cv2.boxPoints(((x / s, y / s), (size / s, size / s), angle))
        cv2.fillPoly(classes, [np.round(box).astype(np.int32)], pp.CLASSES.index("stock"))
    if not grid:
        monkeypatch.setattr("vision.piecepack.detect.GRID_FIT", math.inf)
    pv = PlaneView(TopView(np.zeros((1000, 1000, 3), np.uint8), (0.0, 0.0), s, np.array([250.0, 250.0, -800.0])),
                   6.35, np.zeros((1000, 1000, 3), np.float32))
    boxes = PiecepackDetector(pp.default())._tile_boxes(pv, classes, np.zeros((1000, 1000), np.uint8))
    near = [min(math.hypot(b["x"] - x, b["y"] - y) for b in boxes) for x, y in centres]
    if grid:
        assert len(boxes) == 9 and max(near) < 2.0, (len(boxes), near)
    else:
        assert max(near) > 3.0, near
