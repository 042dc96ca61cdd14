"""The committed sample images: random game positions rendered with ground truth, from seeds.

`write_set(game, out_dir)` regenerates sample_images/<game>/ exactly: for each image a JPEG and
a ground-truth scene JSON (with a `render` object: seed, camera, light, `hidden` piece ids under a
hand, and the calibration file to use), plus one calibration per camera and lighting, whose
colours were learned from a rendered photo of the palette sheet.
"""
from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.calibfile import DEFAULT_COLORS, Calibration, save
from calibration.layout import cards_layout, palette_layout
from calibration.palette import learn_colors
from referee.dimensions import DEFAULT
from referee.geometry import footprint
from referee.icepirates.layout import POSTCARD
from referee.scene import COLORS, Piece, Scene, scene_from_dict, tenth_degree
from vision.camera import intrinsics, looking_at
from vision.render import random_config, render

AREAS = {"icehouse": (600.0, 450.0), "icepirates": (700.0, 500.0)}
CAMERAS = {"cam720": ((1280, 720), 64.0), "cam1080": ((1920, 1080), 64.0)}
LIGHTS = ("daylight", "warm", "cool", "dim")
DIST = (-0.08, 0.02, 0.0, 0.0, 0.0)
JPEG_QUALITY = 90
# (camera, number of images) per game
PLAN = {"icehouse": (("cam720", 20), ("cam1080", 4)), "icepirates": (("cam720", 12), ("cam1080", 2))}


def fits(piece: Piece, placed: list, area, gap: float = 2.0) -> bool:
    shape = footprint(piece, DEFAULT)
    minx, miny, maxx, maxy = shape.bounds
    if minx < 5 or miny < 5 or maxx > area[0] - 5 or maxy > area[1] - 5:
        return False
    return all(shape.distance(other) > gap for other in placed)


def place(rng: random.Random, area, placed: list, pieces: list, make) -> bool:
    """Add `make()` to `pieces` where it `fits` among the `placed` footprints (60 tries)."""
    for _ in range(60):
        piece = make()
        if fits(piece, placed, area):
            placed.append(footprint(piece, DEFAULT))
            pieces.append(piece)
            return True
    return False


def icehouse_scene(rng: random.Random, area) -> Scene:
    """A mid-game Icehouse table: 3-4 players' defenders standing, attackers lying, most of
    them pointing at a defender from within their length."""
    colours = rng.sample(COLORS, rng.randint(3, 4))
    placed, pieces = [], []
    n = 0
    for _ in range(rng.randint(5, 9)):
        n += 1
        c, s = rng.choice(colours), rng.randint(1, 3)
        place(rng, area, placed, pieces, lambda: Piece(
            f"p{n}", "pyramid", rng.uniform(30, area[0] - 30), rng.uniform(30, area[1] - 30),
            color=c, size=s, pose="standing", angle=rng.uniform(0, 90)))
    defenders = list(pieces)
    for _ in range(rng.randint(4, 10)):
        n += 1
        c, s = rng.choice(colours), rng.randint(1, 3)

        def attacker(c=c, s=s, name=f"p{n}"):
            if defenders and rng.random() < 0.75:
                d = rng.choice(defenders)
                toward = rng.uniform(0, 360)
                reach = DEFAULT.looney_base[d.size] / 2 + rng.uniform(3, 30)
                x = d.x - reach * math.cos(math.radians(toward))
                y = d.y - reach * math.sin(math.radians(toward))
                heading = (toward + rng.uniform(-8, 8)) % 360
            else:
                x, y = rng.uniform(30, area[0] - 30), rng.uniform(30, area[1] - 30)
                heading = rng.uniform(0, 360)
            return Piece(name, "pyramid", round(x, 1), round(y, 1), color=c, size=s, pose="lying",
                         heading=tenth_degree(heading))
        place(rng, area, placed, pieces, attacker)
    return Scene("icehouse", tuple(pieces), area)


def icepirates_scene(rng: random.Random, area) -> Scene:
    """An Ice Pirates sea: treasure islands (opaque nests) and the players' ships, lying."""
    placed, pieces = [], []
    island = rng.choice(("black", "white"))
    n = 0
    for _ in range(rng.randint(4, 7)):
        n += 1
        place(rng, area, placed, pieces, lambda name=f"i{n}": Piece(
            name, "pyramid", rng.uniform(40, area[0] - 40), rng.uniform(40, area[1] - 40),
            color=island, size=3, pose="standing", nested=(2, 1), angle=rng.uniform(0, 90)))
    fleets = rng.sample([c for c in COLORS if c not in ("black", "white")], 2)
    for _ in range(rng.randint(5, 10)):
        n += 1
        c, s = rng.choice(fleets), rng.randint(1, 3)
        place(rng, area, placed, pieces, lambda name=f"s{n}", c=c, s=s: Piece(
            name, "pyramid", round(rng.uniform(30, area[0] - 30), 1), round(rng.uniform(30, area[1] - 30), 1),
            color=c, size=s, pose="lying", heading=tenth_degree(rng.uniform(0, 360))))
    for colour in fleets:       # drawn after the rest, so the pieces above keep their places
        _home(rng, area, placed, pieces, colour, island)
    return Scene("icepirates", tuple(pieces), area)


def _touching(area, placed: list, make, target) -> Piece | None:
    """A piece `make(t)` slid along t until it touches `target` (0.1-0.6 mm apart), fitting
    among `placed` (the target excepted); None when it does not fit."""
    lo, hi = 0.0, 200.0
    for _ in range(40):
        t = (lo + hi) / 2
        gap = footprint(make(t), DEFAULT).distance(target)
        if 0.1 <= gap <= 0.6:
            break
        lo, hi = (lo, t) if gap > 0.6 else (t, hi)
    else:
        return None
    piece = make(t)
    others = [g for g in placed if g is not target]
    return piece if fits(piece, others, area) else None


def _home(rng: random.Random, area, placed: list, pieces: list, colour: str, treasure: str) -> None:
    """A player's home card (a postcard) touching one of their ships (or, when that does not
    fit, anywhere free), up to 2 more of their ships touching it (at least one ship in all), and
    sometimes a treasure pyramid lying on it."""
    width, height = rng.choice((POSTCARD, (152.0, 102.0)))
    angle = rng.uniform(0, 180)
    fleet = [g for p, g in zip(pieces, placed) if p.type == "pyramid" and p.color == colour]
    card = None
    for attempt in range(120):
        ship_shape = rng.choice(fleet) if fleet and attempt < 60 else None
        bearing = math.radians(rng.uniform(0, 360))
        if ship_shape is None:
            card = Piece(f"home-{colour}", "card", round(rng.uniform(80, area[0] - 80), 1),
                         round(rng.uniform(80, area[1] - 80), 1), owner=colour, width=width, height=height,
                         angle=round(angle, 1))
            card = card if fits(card, placed, area) else None
        else:
            cx, cy = ship_shape.centroid.x, ship_shape.centroid.y
            card = _touching(area, placed, lambda t: Piece(
                f"home-{colour}", "card", round(cx + (t + 40) * math.cos(bearing), 2),
                round(cy + (t + 40) * math.sin(bearing), 2), owner=colour, width=width, height=height,
                angle=round(angle, 1)), ship_shape)
        if card is not None:
            break
        angle = rng.uniform(0, 180)
    if card is None:
        return
    card_shape = footprint(card, DEFAULT)
    pieces.append(card)
    placed.append(card_shape)
    corners = list(card_shape.exterior.coords)[:4]
    for k in range(rng.randint(0 if ship_shape is not None else 1, 2)):
        size = rng.randint(1, 3)
        for _ in range(20):
            i, f = rng.randrange(4), rng.uniform(0.15, 0.85)
            (ax, ay), (bx, by) = corners[i], corners[(i + 1) % 4]
            px, py = ax + f * (bx - ax), ay + f * (by - ay)
            radial = math.degrees(math.atan2(py - card.y, px - card.x))
            edge = math.degrees(math.atan2(by - ay, bx - ax))
            outward = edge + (90 if math.cos(math.radians(edge + 90 - radial)) > 0 else -90)
            heading = (outward + rng.uniform(-50, 50)) % 360
            u = (math.cos(math.radians(heading)), math.sin(math.radians(heading)))
            length = DEFAULT.looney_lying_length[size]
            ship = _touching(area, placed, lambda t: Piece(
                f"s{colour}{k + 1}", "pyramid", round(px + u[0] * (length + t - 2), 2),
                round(py + u[1] * (length + t - 2), 2), color=colour, size=size, pose="lying",
                heading=tenth_degree(heading)), card_shape)
            if ship is not None:
                pieces.append(ship)
                placed.append(footprint(ship, DEFAULT))
                break
    if rng.random() < 0.5:
        size = rng.randint(1, 2)
        inner = card_shape.buffer(-4.0)
        for _ in range(30):
            gem = Piece(f"t{colour}", "pyramid", round(rng.uniform(card.x - 60, card.x + 60), 1),
                        round(rng.uniform(card.y - 60, card.y + 60), 1), color=treasure, size=size,
                        pose="lying", heading=tenth_degree(rng.uniform(0, 360)))
            shape = footprint(gem, DEFAULT)
            if inner.contains(shape) and all(shape.distance(g) > 2.0 for g in placed if g is not card_shape):
                pieces.append(gem)
                placed.append(shape)
                break


SCENES = {"icehouse": icehouse_scene, "icepirates": icepirates_scene}


def palette_photo(camera_name: str, light: str, seed: int, leave_out: tuple = ()):
    """A rendered photo of the palette sheet with a large pyramid of each colour (but those
    left out) on its spot."""
    layout = palette_layout()
    size, hfov = CAMERAS[camera_name]
    K = intrinsics(size, hfov)
    pieces = [{"id": c, "type": "pyramid", "color": c, "size": 3, "pose": "standing", "x": x, "y": y}
              for c, x, y in layout.spots if c not in leave_out]
    scene = scene_from_dict({"format": "icetable-scene/1", "game": "icehouse", "pieces": pieces})
    w, h = layout.area
    cam = looking_at(K, DIST, size, (w / 2 + 60, h / 2 - 40, -480.0), (w / 2, h / 2, 0))
    config = random_config(seed, layout.area, size, light=light, camera=cam)
    return render(scene, layout, config).image, cam


def calibration_for(camera_name: str, light: str, area, seed: int) -> Calibration:
    """The calibration a user of this camera would make: intrinsics (as ChArUco would give
    them), colours learned from the palette photo under this light."""
    photo, cam = palette_photo(camera_name, light, seed)
    colors = learn_colors(photo, cam.K, cam.dist)
    return Calibration(cards_layout(*area), cam.size, cam.K, cam.dist, "rendered", colors)


def write_default_colors(path: Path = DEFAULT_COLORS) -> None:
    """The shipped colour profile: learned from a rendered palette photo in daylight."""
    photo, cam = palette_photo("cam720", "daylight", 5)
    path.write_text(json.dumps(learn_colors(photo, cam.K, cam.dist).to_dict(), indent=1) + "\n",
                    encoding="utf-8")


def read_back(image: np.ndarray, quality: int = JPEG_QUALITY) -> np.ndarray:
    """A rendered frame as a detector reads it back from a sample JPEG of this quality."""
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def plan(game: str, base_seed: int = 1000) -> list[dict]:
    """The images of the sample set of `game`: for each, its file stem, seed, camera name,
    light, number of arms and calibration file (made from the first seed that needs it)."""
    out, seed, first = [], base_seed + (0 if game == "icehouse" else 500), {}
    for camera_name, count in PLAN[game]:
        for i in range(count):
            seed += 1
            light = LIGHTS[i % len(LIGHTS)]
            cal_name = f"calibration-{camera_name}-{light}.json"
            first.setdefault(cal_name, seed)
            out.append({"stem": f"{game}-{len(out) + 1:02d}", "seed": seed, "camera": camera_name,
                        "light": light, "hands": 1 if i % 4 == 3 else 0,
                        "calibration": cal_name, "calibration_seed": first[cal_name]})
    return out


def render_planned(game: str, image: dict):
    """(scene, rendered frame, render config) of one image of `plan`; the scene carries the
    truth file's `render` block (seed, camera, light, hands, hidden pieces, calibration)."""
    area = AREAS[game]
    size, hfov = CAMERAS[image["camera"]]
    rng = random.Random(image["seed"])
    scene = SCENES[game](rng, area)
    config = random_config(image["seed"], area, size, light=image["light"], hands=image["hands"], hfov=hfov)
    frame = render(scene, cards_layout(*area), config)
    info = {"seed": image["seed"], "camera": image["camera"], "light": image["light"],
            "hands": image["hands"], "height_mm": round(-float(config.camera.C[2]), 1),
            "hidden": frame.hidden, "calibration": image["calibration"]}
    return replace(scene, extra={**scene.extra, "render": info}), frame, config


def planned_calibration(game: str, image: dict) -> Calibration:
    """The calibration file's contents of one image of `plan`."""
    return calibration_for(image["camera"], image["light"], AREAS[game], image["calibration_seed"] * 7)


def write_set(game: str, out_dir: Path, base_seed: int = 1000, report=None) -> list[Path]:
    """Render the sample set of `game` into `out_dir`; returns the images written (each also
    given to `report`, when given, as it is written)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for image in plan(game, base_seed):
        scene, frame, _ = render_planned(game, image)
        if image["seed"] == image["calibration_seed"]:
            save(planned_calibration(game, image), out_dir / image["calibration"])
        cv2.imwrite(str(out_dir / f"{image['stem']}.jpg"), frame.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        (out_dir / f"{image['stem']}.json").write_text(json.dumps(scene.to_dict(), indent=1) + "\n",
                                                       encoding="utf-8")
        written.append(out_dir / f"{image['stem']}.jpg")
        if report:
            report(written[-1])
    return written
