"""What a photoreal session varies, drawn from a seed, split by condition family.

A session is one table under one light seen by one camera: a palette photo and a few game
frames. Every random choice is made here, in plain Python, so a session is fully described by
its `Session` (written beside the frames) and rendering it again gives the same images.

Splits are by *conditions*, not by seed: each family of tables, lights, plastics and cameras,
and each piecepack edition (`vision.piecepack.editions`), belongs to one split, so the `test`
split shows tables, lights, plastics, lenses and piece art that no `train` or `val` image used.
"""
from __future__ import annotations

import colorsys
import math
import random
from dataclasses import asdict, dataclass, field

import numpy as np

from vision.camera import Camera, intrinsics
from vision.piecepack.editions import DEFAULT as DEFAULT_EDITION, in_split
from vision.piecepack.pipeline import GAMES as PIECEPACK_GAMES
from vision.render.config import random_camera, random_hand

SPLITS = ("train", "val", "test")

# Table families: kind -> split. Parameters are drawn per session within the family.
TABLES = {
    "cloth": "train", "laminate": "train", "oak": "train", "striped": "train",
    "linen": "val", "pine": "val",
    "felt": "test", "walnut": "test", "gingham": "test", "dark-cloth": "test",
}
# Light families: key light kind -> split.
LIGHTS = {"panel": "train", "window": "train", "spot": "train", "overcast": "val",
          "lamp": "test", "low-sun": "test", "mixed": "test"}
# Plastic families (how Looney pyramids are made): name -> split.
PLASTICS = {"glossy": "train", "matte": "train", "satin": "val", "frosted": "test", "cast": "test"}
# Lens families: name -> (split, horizontal field of view range, k1 range).
LENSES = {"webcam": ("train", (60.0, 70.0), (-0.12, 0.0)),
          "phone": ("val", (66.0, 74.0), (-0.05, 0.02)),
          "narrow": ("test", (48.0, 58.0), (-0.04, 0.04)),
          "wide": ("test", (74.0, 82.0), (-0.22, -0.10))}
SIZES = ((1280, 720), (1920, 1080))

# Nominal Looney colours as sRGB; each session shifts hue, saturation and value a little.
LOONEY_SRGB = {"red": (200, 20, 30), "yellow": (245, 200, 10), "blue": (20, 60, 200),
               "green": (20, 150, 50), "purple": (110, 30, 150), "orange": (250, 105, 10),
               "cyan": (10, 170, 210), "black": (12, 12, 14), "white": (235, 235, 230),
               "clear": (250, 250, 250)}


@dataclass
class Table:
    kind: str
    colour: tuple          # linear RGB of the main surface
    colour2: tuple         # second colour: grain, weave or pattern
    scale: float           # pattern size, mm
    roughness: float
    rotation: float        # degrees: grain or pattern direction


@dataclass
class Light:
    kind: str
    kelvin: float
    power: float           # relative to a nominal exposure; auto exposure absorbs most of it
    azimuth: float         # degrees, table frame
    elevation: float       # degrees above the table
    distance: float        # mm from the table centre
    size: float            # mm: emitter size (0 = sharp shadows)
    fill_kelvin: float     # second light (mixed) or sky colour
    fill: float            # fill strength relative to the key


@dataclass
class Plastic:
    family: str
    colours: dict          # colour -> linear RGB
    transmission: float
    roughness: float
    bevel: float           # mm
    white_subsurface: float
    tolerance: float       # relative size error of the pieces (each piece draws within it)
    scatter: float = 0.0   # volume scattering inside translucent plastic, per metre


@dataclass
class Optics:
    lens: str
    size: tuple
    hfov: float
    k1: float
    K: list
    dist: list
    R: list
    C: list
    exposure_bias: float   # stops off the auto exposure's target
    wb_error: tuple        # gains the auto white balance gets wrong
    noise: float           # sensor noise, 8-bit units
    blur: float            # px (focus or motion)
    jpeg: int

    def camera(self) -> Camera:
        return Camera(np.array(self.K), np.array(self.dist), np.array(self.R), np.array(self.C),
                      tuple(self.size))


@dataclass
class Session:
    split: str
    seed: int
    game: str
    area: tuple
    table: Table
    light: Light
    plastic: Plastic
    optics: Optics
    hands: list = field(default_factory=list)      # per frame: list of arms (start, end, width, skin, height)
    edition: str = DEFAULT_EDITION.name            # piecepack games: how the pieces are printed

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Session":
        return cls(d["split"], d["seed"], d["game"], tuple(d["area"]), Table(**d["table"]),
                   Light(**d["light"]), Plastic(**d["plastic"]), Optics(**d["optics"]), d["hands"],
                   d.get("edition", DEFAULT_EDITION.name))


def srgb_to_linear(rgb) -> tuple:
    c = np.asarray(rgb, np.float64) / 255.0
    return tuple(float(v) for v in np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4))


def kelvin_rgb(kelvin: float) -> tuple:
    """Approximate linear RGB of a black body at `kelvin`, normalised to its largest channel."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.12 if t <= 66 else 288.12 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.52 * math.log(t - 10) - 305.04)
    lin = srgb_to_linear([min(255.0, max(0.0, v)) for v in (r, g, b)])
    top = max(lin)
    return tuple(v / top for v in lin)


def _family(rng: random.Random, families: dict, split: str) -> str:
    names = [n for n, s in families.items() if (s[0] if isinstance(s, tuple) else s) == split]
    return rng.choice(names)


def _shade(rng: random.Random, h: float, s: tuple, v: tuple) -> tuple:
    return srgb_to_linear([255 * c for c in colorsys.hsv_to_rgb(h % 1.0, rng.uniform(*s), rng.uniform(*v))])


def draw_table(rng: random.Random, split: str) -> Table:
    kind = _family(rng, TABLES, split)
    rot = rng.uniform(0, 180)
    if kind in ("cloth", "linen", "felt", "dark-cloth"):
        value = {"cloth": (0.35, 0.65), "linen": (0.55, 0.8), "felt": (0.3, 0.6), "dark-cloth": (0.12, 0.3)}[kind]
        sat = (0.0, 0.15) if kind == "linen" else (0.0, 0.55)
        main = _shade(rng, rng.random(), sat, value)
        return Table(kind, main, tuple(c * 0.85 for c in main), rng.uniform(0.6, 2.0),
                     rng.uniform(0.85, 1.0), rot)
    if kind in ("oak", "pine", "walnut"):
        hue, val = {"oak": (0.08, (0.45, 0.65)), "pine": (0.11, (0.6, 0.8)), "walnut": (0.06, (0.18, 0.35))}[kind]
        main = _shade(rng, hue + rng.uniform(-0.02, 0.02), (0.35, 0.6), val)
        return Table(kind, main, tuple(c * rng.uniform(0.45, 0.7) for c in main), rng.uniform(8, 30),
                     rng.uniform(0.25, 0.6), rot)
    if kind == "laminate":
        main = _shade(rng, rng.random(), (0.0, 0.1), (0.45, 0.8))
        return Table(kind, main, tuple(c * 0.95 for c in main), 5.0, rng.uniform(0.2, 0.45), rot)
    if kind == "striped":       # bands of a colour and a pale one, 4-30 mm wide
        main = _shade(rng, rng.random(), (0.2, 0.8), (0.3, 0.7))
        pale = _shade(rng, rng.random(), (0.0, 0.15), (0.75, 0.95))
        return Table(kind, main, pale, rng.uniform(4, 30), rng.uniform(0.85, 1.0), rot)
    # gingham: a two-colour checked cloth
    main = _shade(rng, rng.random(), (0.4, 0.8), (0.35, 0.7))
    return Table(kind, main, srgb_to_linear((235, 235, 230)), rng.uniform(8, 25), 0.95, rot)


def draw_light(rng: random.Random, split: str) -> Light:
    kind = _family(rng, LIGHTS, split)
    az = rng.uniform(0, 360)
    if kind == "panel":
        return Light(kind, rng.uniform(2700, 6500), 1.0, az, rng.uniform(70, 90), rng.uniform(1500, 2200),
                     rng.uniform(500, 1200), rng.uniform(5000, 6500), rng.uniform(0.1, 0.3))
    if kind == "window":
        return Light(kind, rng.uniform(4000, 7500), 1.0, az, rng.uniform(25, 50), rng.uniform(1500, 2500),
                     rng.uniform(800, 1600), rng.uniform(3000, 4000), rng.uniform(0.1, 0.35))
    if kind == "spot":          # one small light anywhere from low to high, of any white
        return Light(kind, rng.uniform(2500, 7000), 1.0, az, rng.uniform(15, 80), rng.uniform(700, 1800),
                     rng.uniform(20, 400), rng.uniform(4000, 8000), rng.uniform(0.05, 0.5))
    if kind == "overcast":
        return Light(kind, rng.uniform(6000, 7500), 1.0, az, rng.uniform(60, 85), 2000.0, 2500.0,
                     rng.uniform(6000, 8000), rng.uniform(0.4, 0.7))
    if kind == "lamp":
        return Light(kind, rng.uniform(2600, 3300), 1.0, az, rng.uniform(35, 65), rng.uniform(500, 900),
                     rng.uniform(20, 120), rng.uniform(4000, 6000), rng.uniform(0.05, 0.25))
    if kind == "low-sun":
        return Light(kind, rng.uniform(4000, 5500), 1.0, az, rng.uniform(12, 30), 10000.0,
                     rng.uniform(0, 60), rng.uniform(7000, 10000), rng.uniform(0.3, 0.6))
    # mixed: a warm lamp and a cool window
    return Light(kind, rng.uniform(2700, 3200), 1.0, az, rng.uniform(30, 60), rng.uniform(600, 1000),
                 rng.uniform(50, 200), rng.uniform(6000, 7500), rng.uniform(0.5, 1.0))


def draw_plastic(rng: random.Random, split: str) -> Plastic:
    family = _family(rng, PLASTICS, split)
    colours = {}
    for name, rgb in LOONEY_SRGB.items():
        h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
        if name not in ("black", "white", "clear"):
            h += rng.uniform(-0.02, 0.02)
            s = min(1.0, s * rng.uniform(0.8, 1.1))
            v = min(1.0, v * rng.uniform(0.8, 1.05))
        colours[name] = srgb_to_linear([255 * c for c in colorsys.hsv_to_rgb(h % 1.0, s, v)])
    transmission, roughness, scatter = {
        "glossy": ((0.85, 0.97), (0.02, 0.12), (5, 30)), "matte": ((0.55, 0.8), (0.12, 0.3), (60, 200)),
        "satin": ((0.8, 0.95), (0.15, 0.3), (20, 60)),
        "frosted": ((0.7, 0.9), (0.3, 0.5), (40, 120)), "cast": ((0.9, 1.0), (0.0, 0.06), (0, 10))}[family]
    return Plastic(family, colours, rng.uniform(*transmission), rng.uniform(*roughness),
                   rng.uniform(0.2, 0.9), rng.uniform(0.05, 0.4), rng.uniform(0.0, 0.015),
                   rng.uniform(*scatter))


def draw_optics(rng: random.Random, split: str, area: tuple) -> Optics:
    lens = _family(rng, LENSES, split)
    _, hfov_range, k1_range = LENSES[lens]
    size = rng.choice(SIZES)
    hfov, k1 = rng.uniform(*hfov_range), rng.uniform(*k1_range)
    K = intrinsics(size, hfov)
    dist = (k1, rng.uniform(-0.02, 0.04) * abs(k1) * 5, 0.0, 0.0, 0.0)
    cam = random_camera(rng, area, K, size, dist, margin=110.0, highest=2500.0)
    return Optics(lens, size, hfov, k1, cam.K.tolist(), list(cam.dist), cam.R.tolist(), cam.C.tolist(),
                  rng.uniform(-0.5, 0.4), tuple(rng.uniform(0.92, 1.08) for _ in range(3)),
                  rng.uniform(1.0, 4.0), rng.uniform(0.0, 1.2), rng.randint(70, 95))


def draw_session(split: str, seed: int, game: str, area: tuple, frames: int) -> Session:
    """Every random choice of one session; frames with arms get 1-2 of them."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (one of {', '.join(SPLITS)})")
    rng = random.Random(f"{split}-{seed}")
    session = Session(split, seed, game, tuple(area), draw_table(rng, split), draw_light(rng, split),
                      draw_plastic(rng, split), draw_optics(rng, split, area))
    for _ in range(frames):
        arms = [random_hand(rng, area) for _ in range(rng.choice((0, 0, 0, 1, 1, 2)))]
        session.hands.append([[list(a.start), list(a.end), a.width, list(a.skin), a.height] for a in arms])
    if game in PIECEPACK_GAMES:      # its own stream, so Looney sessions draw as they always have
        session.edition = random.Random(f"{split}-{seed}-edition").choice(in_split(split))
    return session
