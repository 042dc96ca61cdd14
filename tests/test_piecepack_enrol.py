"""Enrolment: learning a piecepack from arrangement photos, storing it, detecting with it."""
import json
import math
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import enrol
from calibration.calibfile import load
from calibration.homography import find_markers, fit_plane
from calibration.layout import cards_layout
from referee.scene import scene_from_dict
from vision.detector import Detector
from vision.evaluation import match_nearest
from vision.piecepack import profile as pp
from vision.piecepack.evaluation import Score, score
from vision.piecepack import samples
from vision.piecepack.editions import DEFAULT, EDITIONS, printed_in
from vision.piecepack.pipeline import _detector_for, view_of
from vision.piecepack.solids import square
from vision.piecepack.stock import stock_colour
from vision.piecepack.samples import enrolment_photos
from vision.render import random_config, render

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_images" / "icefloe" / "icefloe-05.jpg"
PHOTOREAL = ROOT / "tests" / "data" / "photoreal"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "icetable", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def photos():
    """Rendered photos of the arrangement under a warm light, and their camera."""
    return enrolment_photos("warm", 31)


@pytest.fixture(scope="module")
def learned(photos):
    return enrol.learn(photos[0])


@pytest.fixture(scope="module")
def game_photos():
    """Two game tables (IceFloe, Iceberg) photographed inside the enrolment area's corner
    cards, given as the faces and backs photos."""
    rng = random.Random(7)
    tables = {"faces": samples.scene_for("icefloe", 2, rng), "backs": samples.scene_for("iceberg", 1, rng)}
    return enrolment_photos("daylight", 41, scenes={kind: replace(t, area=enrol.AREA) for kind, t in tables.items()})[0]


def _without(kind, ids):
    """The arrangement of one photo with the pieces `ids` taken away."""
    scene = enrol.arrangement(kind)
    return replace(scene, pieces=tuple(p for p in scene.pieces if p.id not in ids))


def _written(photos, folder):
    """The photos (first of each kind) as PNG files in `folder`; their paths, in kind order."""
    paths = []
    for kind, frames in photos.items():
        paths.append(folder / f"{kind}.png")
        cv2.imwrite(str(paths[-1]), frames[0][1])
    return [str(p) for p in paths]


def test_a_profile_survives_its_file(learned, tmp_path):
    pp.save(learned, tmp_path / "p.json")
    back = pp.load(tmp_path / "p.json")
    assert back.colors.names == learned.colors.names
    np.testing.assert_allclose(back.colors.means, learned.colors.means, atol=1e-4)
    for part in ("tiles", "coins", "dice"):
        ours, theirs = getattr(learned, part), getattr(back, part)
        assert set(ours) == set(theirs)
        for name in ours:     # stored as 8-bit PNG: one step is 1/TEMPLATE_SCALE
            assert np.abs(ours[name] - theirs[name]).max() <= 0.6 / pp.TEMPLATE_SCALE + 1e-6


def test_enrolment_learns_every_face(learned):
    assert len(learned.tiles) == 25 and "back" in learned.tiles
    assert len(learned.coins) == 10 and len(learned.dice) == 24
    stock = learned.colors.means[learned.colors.names.index("stock")]
    suns = learned.colors.means[learned.colors.names.index("suns")]
    assert suns[2] - suns[0] > stock[2] - stock[0] + 0.5      # red: far more red than blue (BGR)


def test_a_set_enrolled_under_one_light_is_read_under_others(learned):
    total = Score()
    for name in ("icefloe-05", "icefloe-07", "iceberg-04", "iceberg-07"):
        game = name.split("-")[0]
        path = ROOT / "sample_images" / game / f"{name}.json"
        data = json.loads(path.read_text())
        cal = load(path.parent / data["render"]["calibration"])
        cal = replace(cal, extra={"piecepack": learned.to_dict()})
        detected = Detector(cal).detect(cv2.imread(str(path.with_suffix(".jpg"))), game)
        total.add(score(scene_from_dict(data), detected, tuple(data["render"]["hidden"])))
    for field in ("suit", "rank", "face", "letter"):
        assert total.rate(field) >= 0.95, (field, total.mistakes)


def test_enrolment_needs_the_faces_and_backs(photos):
    with pytest.raises(enrol.EnrolError, match="'backs' photo"):
        enrol.learn({"faces": photos[0]["faces"]})


def test_a_photo_without_the_cards_is_named(photos):
    blank = np.full((1080, 1920, 3), 128, np.uint8)
    cam = photos[1]
    with pytest.raises(enrol.EnrolError, match="empty.png: the corner cards are not in the photo"):
        enrol.learn({"faces": [("empty.png", blank, cam.K, cam.dist)], "backs": photos[0]["backs"]})


def test_two_game_photos_are_refused_naming_the_first(game_photos):
    with pytest.raises(enrol.EnrolError) as refused:
        enrol.learn(game_photos)
    message = str(refused.value)
    assert message.startswith("faces-daylight: ") and "\n" not in message
    assert "'faces' photo" in message and "not in their places" in message
    assert int(message.split(" of 24 tiles")[0].split()[-1]) >= 12, message


def test_photos_seen_through_a_lens_calibrated_from_one_view_are_enrolled(photos):
    """`calibrate` estimates the lens from one game photo, which may leave it off (here the
    focal length 20 % short and the distortion wrong), and the enrolment guide's corner cards
    then fit a few millimetres off. Those photos are still the enrolment's (their pieces lie
    where the guide puts them), so they are learned."""
    photos, cam = photos
    K, dist = cam.K.copy(), cam.dist.copy()
    K[0, 0] *= 0.8
    K[1, 1] *= 0.8
    dist[0] += 0.4
    off = {kind: [(name, frame, K, dist) for name, frame, _, _ in frames] for kind, frames in photos.items()}
    gray = cv2.cvtColor(off["faces"][0][1], cv2.COLOR_BGR2GRAY)
    assert 2.0 < fit_plane(enrol.layout(), find_markers(gray), K, dist).rms_mm < enrol.MAX_MAT_ERROR
    assert enrol.learn(off).tiles.keys() == enrol.learn(photos).tiles.keys()


@pytest.mark.parametrize("given, message", [
    (("backs", "faces"), "^backs-warm: its tiles differ less among themselves than those of faces-warm: "
                         "the faces and backs photos look swapped"),
    (("faces", "faces"), "^faces-warm: its tiles differ hardly more among themselves than those of faces-warm: "
                         "the faces photo shows the tiles face up"),
])
def test_faces_and_backs_photos_swapped_or_alike_are_named(photos, given, message):
    with pytest.raises(enrol.EnrolError, match=message):
        enrol.learn({"faces": photos[0][given[0]], "backs": photos[0][given[1]]})


REMOVED = ("t-suns-1", "t-moons-2", "t-arms-5", "t-suns-4", "t-crowns-0")


def test_a_few_missing_tiles_are_tolerated_more_are_refused(photos):
    """Three of 24 tiles missing (one in eight) still enrols; five are named by suit."""
    few, many = (enrolment_photos("warm", 31, scenes={"faces": _without("faces", REMOVED[:n])})[0]["faces"]
                 for n in (3, 5))
    enrol.learn({**photos[0], "faces": few})
    with pytest.raises(enrol.EnrolError, match=r"^faces-warm: 5 of 24 tiles \(suns 2, moons 1, crowns 1, arms 1\) "
                                               r"are not in their places: is this the 'faces' photo"):
        enrol.learn({**photos[0], "faces": many})


def test_calibrate_enrol_then_detect_with_the_enrolled_set(photos, tmp_path):
    names = _written(photos[0], tmp_path)
    cal = tmp_path / "cal.json"
    result = _cli("calibrate", str(SAMPLE), "--area", "354x354", "--views", "1", "--enrol", *names, "-o", str(cal))
    assert result.returncode == 0, result.stderr
    assert "piecepack enrolled from 3 photos" in result.stderr
    stored = json.loads(cal.read_text())["piecepack"]
    assert stored["format"] == pp.FORMAT and len(stored["tiles"]) == 25
    detected = _cli("detect", str(SAMPLE), "-c", str(cal), "--game", "icefloe")
    assert detected.returncode == 0, detected.stderr
    assert len(scene_from_dict(json.loads(detected.stdout)).of_type("tile")) >= 20


@pytest.mark.parametrize("photos_given, message", [
    (["one.png"], "2 or 3 photos"),
    (["missing-faces.png", "missing-backs.png"], "missing-faces.png: no such file"),
])
def test_calibrate_enrol_errors_are_one_line(photos_given, message, tmp_path):
    result = _cli("calibrate", str(SAMPLE), "--area", "354x354", "--views", "1", "--enrol",
                  *[str(tmp_path / p) for p in photos_given], "-o", str(tmp_path / "cal.json"))
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "cal.json").exists()


def test_a_refused_enrolment_leaves_the_calibration_file_as_it_was(game_photos, tmp_path):
    cal = tmp_path / "cal.json"
    assert _cli("calibrate", str(SAMPLE), "--area", "354x354", "--views", "1", "-o", str(cal)).returncode == 0
    before = cal.read_bytes()
    names = _written(game_photos, tmp_path)
    result = _cli("calibrate", str(SAMPLE), "--area", "354x354", "--views", "1", "--enrol", *names, "-o", str(cal))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"icetable calibrate: {names[0]}: ") and "of 24 tiles" in last, result.stderr
    assert "enrolled" not in result.stderr and cal.read_bytes() == before


def test_a_broken_piecepack_section_is_reported_not_raised(tmp_path):
    path = SAMPLE.with_suffix(".json")
    cal = json.loads((SAMPLE.parent / json.loads(path.read_text())["render"]["calibration"]).read_text())
    cal["piecepack"] = {"format": pp.FORMAT, "colors": {}, "tiles": {}, "coins": {}, "dice": {}}
    (tmp_path / "cal.json").write_text(json.dumps(cal))
    result = _cli("detect", str(SAMPLE), "-c", str(tmp_path / "cal.json"), "--game", "icefloe")
    assert result.returncode == 2
    assert "field 'colors'" in result.stderr and "Traceback" not in result.stderr


def test_mat_writes_a_guide_per_enrolment_photo(tmp_path):
    result = _cli("mat", "--kind", "enrol", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    for kind in enrol.KINDS:
        assert (tmp_path / f"enrol-{kind}.pdf").stat().st_size > 0
        guide = cv2.imread(str(tmp_path / f"enrol-{kind}.png"))
        assert guide is not None and guide.shape[0] == guide.shape[1]
    assert not np.array_equal(cv2.imread(str(tmp_path / "enrol-faces.png")),
                              cv2.imread(str(tmp_path / "enrol-pyramids.png")))


def test_a_set_laid_out_by_eye_is_learned_where_each_piece_lies():
    """People lay the arrangement a few millimetres and degrees off the guide: the templates
    are taken where each tile, coin and die lies, so the small numerals still tell the faces."""
    learned = enrol.learn(enrolment_photos("daylight", 11, by_hand=True)[0])
    total = Score()
    for name in ("icefloe-01", "icefloe-05", "icefloe-09", "iceberg-04"):
        game = name.split("-")[0]
        path = ROOT / "sample_images" / game / f"{name}.json"
        data = json.loads(path.read_text())
        cal = replace(load(path.parent / data["render"]["calibration"]), extra={"piecepack": learned.to_dict()})
        detected = Detector(cal).detect(cv2.imread(str(path.with_suffix(".jpg"))), game)
        total.add(score(scene_from_dict(data), detected, tuple(data["render"]["hidden"])))
    for field in ("suit", "rank", "face", "letter"):
        assert total.rate(field) >= 0.95, (field, total.mistakes)


def test_a_set_with_backs_of_another_colour_learns_their_card_and_finds_them(monkeypatch):
    """An edition whose backs are printed on dark green card (the faces on cream): enrolment
    keeps the backs' card as a colour of its own, and an Iceberg game in that edition (tiles
    face down and up, coins on them) is read piece for piece."""
    monkeypatch.setitem(EDITIONS, "green-backs", replace(DEFAULT, name="green-backs", back_stock=(0.04, 0.22, 0.08),
                                                         back_ink=(0.86, 0.83, 0.74)))
    learned = enrol.learn(enrolment_photos("daylight", 11, edition="green-backs")[0])
    assert "back" in learned.colors.names
    rng = random.Random(5)
    scene = samples.scene_for("iceberg", 1, rng)
    table_cam = samples.camera(rng, scene.area)
    frame = render(printed_in(scene, "green-backs"), cards_layout(*scene.area),
                   random_config(5, scene.area, samples.SIZE, light="warm", camera=table_cam)).image
    cal = replace(samples.calibration(table_cam, scene.area), extra={"piecepack": learned.to_dict()})
    seen = score(scene, Detector(cal).detect(frame, "iceberg"))
    assert len(scene.of_type("tile", "coin")) > 24 and any(t.face == "down" for t in scene.of_type("tile"))
    assert seen.missing == 0 and seen.extra == 0 and seen.rate("face") == 1.0, seen.mistakes


def test_coins_printed_on_the_tiles_card_are_found_on_the_backs():
    """An edition whose coins are printed on the tiles' card and whose backs are dark red: the
    coins on the face-down tiles of an Iceberg game are islands of card, found and read."""
    edition = replace(DEFAULT, name="card-coins", back_stock=(0.30, 0.05, 0.05), back_ink=(0.86, 0.83, 0.74),
                      coin_stock=DEFAULT.stock)
    EDITIONS[edition.name] = edition
    try:
        learned = enrol.learn(enrolment_photos("daylight", 11, edition=edition.name)[0])
        rng = random.Random(5)
        scene = samples.scene_for("iceberg", 1, rng)
        table_cam = samples.camera(rng, scene.area)
        frame = render(printed_in(scene, edition.name), cards_layout(*scene.area),
                       random_config(5, scene.area, samples.SIZE, light="warm", camera=table_cam)).image
    finally:
        del EDITIONS[edition.name]
    cal = replace(samples.calibration(table_cam, scene.area), extra={"piecepack": learned.to_dict()})
    seen = score(scene, Detector(cal).detect(frame, "iceberg"))
    coins = scene.of_type("coin")
    assert len([c for c in coins if _under(c, scene).face == "down"]) >= 3
    assert not [m for m in seen.mistakes if "coin" in m], seen.mistakes


def test_backs_the_colour_of_the_cloth_are_found_by_their_print():
    """An edition whose backs are printed on card nearly the colour of the cloth, with a light
    pattern: the colour classes take the backs for cloth, so the face-down tiles of an Iceberg
    game are found by their pattern (even with coins over part of it), and read as backs."""
    cloth = (0.30, 0.12, 0.08)
    edition = replace(DEFAULT, name="cloth-backs", back_stock=(0.32, 0.11, 0.07), back_ink=(0.86, 0.83, 0.74))
    EDITIONS[edition.name] = edition
    try:
        learned = enrol.learn(enrolment_photos("daylight", 11, edition=edition.name, cloth=cloth)[0])
        rng = random.Random(5)
        scene = samples.scene_for("iceberg", 1, rng)
        table_cam = samples.camera(rng, scene.area)
        config = replace(random_config(5, scene.area, samples.SIZE, light="daylight", camera=table_cam), cloth=cloth)
        frame = render(printed_in(scene, edition.name), cards_layout(*scene.area), config).image
    finally:
        del EDITIONS[edition.name]
    cal = replace(samples.calibration(table_cam, scene.area), extra={"piecepack": learned.to_dict()})
    seen = score(scene, Detector(cal).detect(frame, "iceberg"))
    assert len([t for t in scene.of_type("tile") if t.face == "down"]) >= 20
    assert not [m for m in seen.mistakes if "tile" in m or "face" in m], seen.mistakes    # 6 tiles missed before


def _under(piece, scene):
    """The tile a piece lies on."""
    return min(scene.of_type("tile"), key=lambda t: math.hypot(t.x - piece.x, t.y - piece.y))


def test_a_set_whose_backs_share_the_faces_card_has_no_backs_colour(learned):
    assert "back" not in learned.colors.names


@pytest.fixture(scope="module")
def gingham():
    """A set enrolled on a gingham whose white checks are near the card's colour (committed
    photoreal photos of the test split, 'ivory' edition), a game frame on it and the tiles it
    shows."""
    cal, warnings = enrol.enrol_into(load(PHOTOREAL / "calibration-s0062.json"),
                                     [PHOTOREAL / f"s0062-enrol-{kind}.jpg" for kind in ("faces", "backs")])
    assert warnings == []
    data = json.loads((PHOTOREAL / "s0062-f0.json").read_text())
    tiles = [p for p in scene_from_dict(data).of_type("tile") if p.id not in data["render"]["hidden"]]
    return cal, cv2.imread(str(PHOTOREAL / "s0062-f0.jpg")), tiles


def test_a_set_enrolled_on_a_gingham_is_read(gingham):
    """A face's colour runs on into the checks, so each tile is placed by its outline instead,
    and the faces are read on the table. Taken at the guide's places, the templates held the
    cloth in their border and read under a third of the faces in view."""
    cal, frame, tiles = gingham
    faces = [p for p in tiles if p.face == "up"]
    detected = Detector(cal).detect(frame, "icefloe").of_type("tile")
    pairs, _ = match_nearest(faces, detected)
    read = [i for i, j in pairs.items() if (detected[j].suit, detected[j].rank) == (faces[i].suit, faces[i].rank)]
    assert len(read) >= len(faces) / 2, (len(read), len(faces))


def test_tiles_on_a_gingham_are_not_classed_as_cloth(gingham):
    """The cloth's colours (both checks) spread over the card's: judged pixel by pixel, the
    tiles' middles were speckled with cloth (5 % of them here); judged over 2.5 mm, hardly."""
    cal, frame, tiles = gingham
    detector = Detector(cal)
    view = view_of(detector, frame)
    profile = _detector_for(cal, detector.dims).profile
    classes = profile.classify(view.logratio, stock_colour(view.logratio, view.top.mm_per_px, detector.dims.tile))
    middles = np.zeros(classes.shape, np.uint8)
    for p in tiles:
        cv2.fillPoly(middles, [np.round(view.px(square(p.x, p.y, 40.0, p.angle or 0.0))).astype(np.int32)], 1)
    assert np.mean(classes[middles > 0] == pp.CLASSES.index("cloth")) <= 0.02
