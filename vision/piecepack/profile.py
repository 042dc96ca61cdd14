"""What detection knows about one piecepack set: its colours and the look of its faces.

A `Profile` holds a colour model (one Gaussian per class in the log-ratio-to-cloth space of
`vision.piecepack.view`) and face templates: tile faces and back (1 mm per pixel), coin sides
and die faces (0.5 mm per pixel). A template pixel is the log ratio of the face to its own
stock (tile card, coin wood, die body), so lighting cancels out. Profiles are
learned by `calibration.enrol` and stored as JSON (templates as base64 PNG).
"""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from calibration.calibfile import CalibrationError, read_json
from calibration.colors import ColorProfile
from vision.segment import level_of

FORMAT = "icetable-piecepack-profile/1"
SUITS = ("suns", "moons", "crowns", "arms")
CLASSES = ("cloth", "stock", "coin") + SUITS + ("back",)
OPTIONAL = ("back",)           # the backs' card, when it is not the faces' (coloured backs)
TABLE = ("cloth", "shade", "pattern")   # the empty cloth, lit or in a piece's shadow, and its other
                                        # colour when it has two (a gingham's checks); optional classes
UNKNOWN = 255
SHADOW_DEPTH = 1.2          # log ratio: a shadow on the tiles is no darker than this
SHADOW_CHROMA = 0.2         # ... and changes the stock's chroma this little
REJECT = 5.0                # Mahalanobis distance beyond which a pixel is of no class
POOL = 5                    # pixels (2.5 mm in a top view): cloth or not is judged on the scores' mean over this
MARGIN_CAP = 10.0           # ... square, each pixel's margin clipped to this (a pixel far from every cloth colour)
STOCK_PERCENTILES = (75, 97)   # the tiles' stock among the brightest pixels of a view
MIN_STOCK_LEVEL = 0.06      # ... which must be clearly brighter than the cloth (log ratio)
MIN_STOCK_SAMPLES = 200
LUT_LO, LUT_HI, LUT_BINS = -3.5, 1.5, 50
TEMPLATE_SCALE = 40.0       # log-ratio units -> uint8 steps in the stored PNGs
TEMPLATE_ZERO = 160
TILE_MM, COIN_MM, DIE_MM = 0.5, 0.5, 0.5      # template resolution, mm per pixel
DEFAULT_PROFILE = Path(__file__).with_name("default_profile.json")


class ProfileError(CalibrationError):
    """A profile that cannot be used; the message names the file (or section) and field."""


@dataclass
class Profile:
    colors: ColorProfile
    tiles: dict = field(default_factory=dict)    # "suns-3" / "back" -> (n, n, 3) float32
    coins: dict = field(default_factory=dict)    # "value-3" / "suit-suns" -> (n, n, 3)
    dice: dict = field(default_factory=dict)     # "suns-3" -> (n, n, 3)
    source: str = "default"

    def __post_init__(self):
        self._luts = None

    def classify(self, logratio: np.ndarray, stock: np.ndarray | None = None) -> np.ndarray:
        """Class index per pixel (uint8, `UNKNOWN` when no class explains it). Cloth is judged
        on the log ratio to the cloth itself; everything else after moving the frame's colours
        so that its tile stock (`stock`, the frame's stock colour, when known) has the
        profile's colour (white balance on the tiles), which cancels a cloth or a light unlike
        the enrolment's. Whether a pixel is cloth is judged on the margin between the two
        scores averaged over POOL x POOL pixels: on a cloth with the card's colour in it (a
        gingham's white checks) the cloth's colours spread over the stock's, and pixel by pixel
        the tiles came out speckled with cloth."""
        if self._luts is None:
            self._luts = self._make_luts()
        cloth_score, object_score, objects = self._luts
        raw, shifted = _bins(logratio), _bins(logratio, self.stock_shift(logratio, stock))
        margin = np.clip(np.take(object_score, shifted) - np.take(cloth_score, raw), -MARGIN_CAP, MARGIN_CAP)
        is_cloth = cv2.blur(margin, (POOL, POOL)) > 0       # float32, as the lookup tables
        return np.where(is_cloth, np.uint8(CLASSES.index("cloth")), np.take(objects, shifted))

    def shaded_stock(self, logratio: np.ndarray, stock: np.ndarray | None = None) -> np.ndarray:
        """Boolean mask of the pixels that are the tiles' stock in a shadow: darker than the
        frame's stock colour by at most SHADOW_DEPTH (log ratio, mean over the channels) and of
        nearly its chroma (within SHADOW_CHROMA). A piece's shadow across the tiles under a low
        sun is classed as a suit's colour (blue under a blue sky) and cuts the tiles' card."""
        if stock is None:
            stock = self.stock_shift(logratio) + self.colors.means[self.colors.names.index("stock")]
        d = logratio - np.asarray(stock, np.float32).reshape(1, 1, 3)
        level = level_of(d)
        chroma = cv2.transform(d * d, np.ones((1, 3), np.float32)) - 3 * level * level     # squared
        return (level < 0) & (level > -SHADOW_DEPTH) & (chroma < SHADOW_CHROMA ** 2)

    def stock_shift(self, logratio: np.ndarray, stock: np.ndarray | None = None) -> np.ndarray:
        """How far (log ratio per channel) the frame's tile stock (`stock`, its colour when
        known) lies from the profile's. In a frame where no tile's shape is seen
        (`vision.piecepack.stock`) the stock is taken to be the brightest large area (the tiles;
        the mat's white paper is brighter still but small). Zero when the frame shows too
        little of it."""
        mean = self.colors.means[self.colors.names.index("stock")]
        if stock is not None:
            return stock - mean
        pixels = logratio[::4, ::4].reshape(-1, 3).astype(np.float64)
        level = pixels.mean(axis=1)
        lo, hi = np.percentile(level, STOCK_PERCENTILES)
        near = (level >= lo) & (level <= hi)
        if lo < MIN_STOCK_LEVEL or np.count_nonzero(near) < MIN_STOCK_SAMPLES:
            return np.zeros(3, np.float32)
        return (np.median(pixels[near], axis=0) - mean).astype(np.float32)

    def _make_luts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Over a grid of features: the cloth's score (lit, shaded or its other colour), the
        best other class's score, and that class (UNKNOWN beyond REJECT); a score is the
        Gaussian's negative log likelihood."""
        step = (LUT_HI - LUT_LO) / LUT_BINS
        c = LUT_LO + (np.arange(LUT_BINS) + 0.5) * step
        grid = np.stack(np.meshgrid(c, c, c, indexing="ij"), axis=-1).reshape(-1, 3)
        dist = self.colors.distances(grid)
        score = dist ** 2 + self.colors.log_dets[None, :]
        table = [i for i, n in enumerate(self.colors.names) if n in TABLE]
        cloth = np.where(dist[:, table] <= REJECT, score[:, table], np.inf).min(axis=1)
        score[:, table] = np.inf
        best = np.argmin(score, axis=1)
        rows = np.arange(len(best))
        order = np.array([CLASSES.index(n) if n in CLASSES else UNKNOWN for n in self.colors.names], np.uint8)
        objects = np.where(dist[rows, best] <= REJECT, order[best], UNKNOWN).astype(np.uint8)
        return cloth.astype(np.float32), score[rows, best].astype(np.float32), objects

    def to_dict(self) -> dict:
        return {"format": FORMAT, "source": self.source, "colors": self.colors.to_dict(),
                "tiles": _encode(self.tiles), "coins": _encode(self.coins), "dice": _encode(self.dice)}

    @classmethod
    def from_dict(cls, data: dict, source: str = "<profile>") -> "Profile":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ProfileError(f"{source}: field 'format' must be {FORMAT!r}")
        name = "colors"
        try:
            colors = ColorProfile.from_dict(data["colors"])
            missing = [c for c in CLASSES if c not in colors.names and c not in OPTIONAL]
            if missing:
                raise ValueError(f"no colour for {', '.join(missing)}")
            parts = {}
            for name in ("tiles", "coins", "dice"):
                parts[name] = _decode(data[name])
        except (KeyError, TypeError, ValueError, np.linalg.LinAlgError, cv2.error) as exc:
            raise ProfileError(f"{source}: field {name!r} is missing or malformed ({exc})") from None
        return cls(colors, source=str(data.get("source", source)), **parts)


def _bins(features: np.ndarray, shift=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Flat lookup-table index of each feature triple (less `shift`), by two OpenCV channel
    transforms (scale and offset, then the index) in place of several numpy passes."""
    k = LUT_BINS / (LUT_HI - LUT_LO)
    scale = np.hstack([np.eye(3) * k, -(np.asarray(shift, np.float64) + LUT_LO)[:, None] * k]).astype(np.float32)
    flat = np.ascontiguousarray(features, np.float32).reshape(-1, 1, 3)
    q = np.floor(np.clip(cv2.transform(flat, scale), 0, LUT_BINS - 1))
    index = cv2.transform(q, np.array([[LUT_BINS * LUT_BINS, LUT_BINS, 1]], np.float32))
    return index.astype(np.int32).reshape(features.shape[:-1])


def _encode(templates: dict) -> dict:
    out = {}
    for name, t in templates.items():
        q = np.clip(np.round(t * TEMPLATE_SCALE + TEMPLATE_ZERO), 0, 255).astype(np.uint8)
        ok, png = cv2.imencode(".png", q)
        out[name] = base64.b64encode(png.tobytes()).decode("ascii")
    return out


def _decode(encoded: dict) -> dict:
    out = {}
    for name, text in encoded.items():
        raw = np.frombuffer(base64.b64decode(text, validate=True), np.uint8)
        img = cv2.imdecode(raw, cv2.IMREAD_UNCHANGED)
        if img is None or img.ndim != 3:
            raise ValueError(f"template {name!r} is not a colour PNG")
        out[name] = (img.astype(np.float32) - TEMPLATE_ZERO) / TEMPLATE_SCALE
    return out


def save(profile: Profile, path: str | Path) -> None:
    Path(path).write_text(json.dumps(profile.to_dict()) + "\n", encoding="utf-8")


def load(path: str | Path) -> Profile:
    """Read a profile file; ProfileError names what is wrong."""
    return Profile.from_dict(read_json(path, "profile", ProfileError), str(path))


def default() -> Profile:
    """The profile shipped with icetable: the standard suits, learned from rendered photos."""
    return load(DEFAULT_PROFILE)
