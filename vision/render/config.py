"""What a rendered frame looks like: camera, light, hands and sensor effects."""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np

from vision.camera import Camera, intrinsics, looking_at


@dataclass(frozen=True)
class LightConfig:
    """A distant key light (azimuth/elevation in degrees, colour as RGB gains) plus ambient.
    `shadow` is how much of the key light a shadow removes; `gradient` a linear falloff across
    the table (fraction per metre along `gradient_dir` degrees)."""

    azimuth: float = 30.0
    elevation: float = 65.0
    colour: tuple = (1.0, 1.0, 1.0)
    key: float = 0.55
    ambient: float = 0.5
    shadow: float = 0.35
    gradient: float = 0.0
    gradient_dir: float = 0.0

    def direction(self) -> np.ndarray:
        """Unit vector from the table toward the light (world frame, z into the table)."""
        az, el = math.radians(self.azimuth), math.radians(self.elevation)
        return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), -math.sin(el)])


@dataclass(frozen=True)
class HandConfig:
    """An arm reaching in from the image border: entry and end points in table mm, width mm."""

    start: tuple[float, float]
    end: tuple[float, float]
    width: float = 80.0
    skin: tuple = (0.80, 0.58, 0.46)
    height: float = 120.0


@dataclass(frozen=True)
class RenderConfig:
    """Everything about one frame except the scene."""

    camera: Camera
    light: LightConfig = LightConfig()
    hands: tuple[HandConfig, ...] = ()
    cloth: tuple = (0.50, 0.50, 0.49)
    white_balance: tuple = (1.0, 1.0, 1.0)
    exposure: float = 1.0
    blur: float = 0.0
    noise: float = 0.0
    texture_px_per_mm: float = 2.5
    seed: int = 0
    extra: dict = field(default_factory=dict)


def random_camera(rng: random.Random, area: tuple[float, float], K: np.ndarray, size: tuple[int, int],
                  dist=(-0.08, 0.02, 0.0, 0.0, 0.0), margin: float = 70.0, highest: float = 1200.0) -> Camera:
    """A camera with intrinsics K up to 25 degrees off vertical, as high as it must be (50 cm
    to `highest` mm) to see the whole area plus `margin` mm (the corner cards)."""
    w, h = area
    tilt = math.radians(rng.uniform(0, 25))
    heading = rng.uniform(0, 2 * math.pi)
    target = np.array([w / 2 + rng.uniform(-20, 20), h / 2 + rng.uniform(-20, 20), 0.0])
    roll = rng.uniform(-4, 4)
    corners = np.array([[x, y, 0] for x in (-margin, w + margin) for y in (-margin, h + margin)])

    def camera(height: float) -> Camera:
        offset = height * math.tan(tilt)
        centre = target + np.array([offset * math.cos(heading), offset * math.sin(heading), -height])
        return looking_at(K, dist, size, centre, target, roll)

    probe = camera(1000.0)
    pix = probe.project(corners, distort=False) - probe.K[:2, 2]
    needed = max(np.max(np.abs(pix[:, 0])) / (size[0] / 2), np.max(np.abs(pix[:, 1])) / (size[1] / 2))
    return camera(float(np.clip(1000.0 * needed * 1.1, 500.0, highest)))


def random_light(rng: random.Random, kind: str) -> LightConfig:
    """A light of a named kind: 'daylight', 'warm' (tungsten), 'cool' (fluorescent), 'dim'."""
    colours = {"daylight": (1.0, 1.0, 1.0), "warm": (1.0, 0.82, 0.60),
               "cool": (0.88, 0.97, 1.0), "dim": (1.0, 0.93, 0.85)}
    level = 0.55 if kind == "dim" else 1.0
    return LightConfig(azimuth=rng.uniform(0, 360), elevation=rng.uniform(50, 80),
                       colour=colours[kind], key=0.4 * level, ambient=0.65 * level,
                       shadow=rng.uniform(0.25, 0.45), gradient=rng.uniform(0, 0.25),
                       gradient_dir=rng.uniform(0, 360))


def random_hand(rng: random.Random, area: tuple[float, float]) -> HandConfig:
    """An arm from a random edge of the play area reaching 10-45% of the way across."""
    w, h = area
    side = rng.randrange(4)
    t = rng.uniform(0.15, 0.85)
    start = [(t * w, -250.0), (w + 250.0, t * h), (t * w, h + 250.0), (-250.0, t * h)][side]
    inward = [(0, 1), (-1, 0), (0, -1), (1, 0)][side]
    reach = 250.0 + rng.uniform(0.1, 0.45) * (h if side % 2 == 0 else w)
    skew = rng.uniform(-0.3, 0.3)
    end = (start[0] + reach * (inward[0] + skew * inward[1]), start[1] + reach * (inward[1] + skew * inward[0]))
    skins = ((0.85, 0.65, 0.52), (0.72, 0.52, 0.40), (0.48, 0.33, 0.24), (0.93, 0.75, 0.64))
    return HandConfig(start, end, rng.uniform(70, 95), rng.choice(skins), rng.uniform(60, 200))


def random_config(seed: int, area: tuple[float, float], size: tuple[int, int], light: str = "daylight",
                  hands: int = 0, camera: Camera | None = None, hfov: float = 64.0) -> RenderConfig:
    """A reproducible random frame setup: same seed, same config."""
    rng = random.Random(seed)
    cam = camera or random_camera(rng, area, intrinsics(size, hfov), size)
    wb = tuple(rng.uniform(0.9, 1.1) for _ in range(3))
    cloth = rng.choice(((0.50, 0.50, 0.49), (0.45, 0.46, 0.47), (0.55, 0.53, 0.50), (0.42, 0.44, 0.42)))
    return RenderConfig(camera=cam, light=random_light(rng, light),
                        hands=tuple(random_hand(rng, area) for _ in range(hands)),
                        cloth=cloth, white_balance=wb, exposure=rng.uniform(0.9, 1.1),
                        blur=rng.uniform(0.3, 1.0), noise=rng.uniform(1.0, 3.0), seed=seed)
