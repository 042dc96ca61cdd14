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

from calibration.colors import ColorProfile

FORMAT = "icetable-piecepack-profile/1"
SUITS = ("suns", "moons", "crowns", "arms")
CLASSES = ("cloth", "stock", "coin") + SUITS
UNKNOWN = 255
REJECT = 5.0                # Mahalanobis distance beyond which a pixel is of no class
LUT_LO, LUT_HI, LUT_BINS = -3.5, 1.5, 50
TEMPLATE_SCALE = 40.0       # log-ratio units -> uint8 steps in the stored PNGs
TEMPLATE_ZERO = 160
TILE_MM, COIN_MM, DIE_MM = 0.5, 0.5, 0.5      # template resolution, mm per pixel
DEFAULT_PROFILE = Path(__file__).with_name("default_profile.json")


class ProfileError(ValueError):
    """A profile file that cannot be used; the message names the file and field."""


@dataclass
class Profile:
    colors: ColorProfile
    tiles: dict = field(default_factory=dict)    # "suns-3" / "back" -> (n, n, 3) float32
    coins: dict = field(default_factory=dict)    # "value-3" / "suit-suns" -> (n, n, 3)
    dice: dict = field(default_factory=dict)     # "suns-3" -> (n, n, 3)
    source: str = "default"

    def __post_init__(self):
        self._lut = None

    def classify(self, logratio: np.ndarray) -> np.ndarray:
        """Class index per pixel (uint8, `UNKNOWN` when no class explains it)."""
        if self._lut is None:
            self._lut = self._make_lut()
        step = (LUT_HI - LUT_LO) / LUT_BINS
        q = np.clip(((logratio - LUT_LO) / step).astype(np.int32), 0, LUT_BINS - 1)
        return self._lut[q[..., 0], q[..., 1], q[..., 2]]

    def _make_lut(self) -> np.ndarray:
        step = (LUT_HI - LUT_LO) / LUT_BINS
        c = LUT_LO + (np.arange(LUT_BINS) + 0.5) * step
        grid = np.stack(np.meshgrid(c, c, c, indexing="ij"), axis=-1).reshape(-1, 3)
        best, dist = self.colors.classify(grid)
        order = np.array([CLASSES.index(n) for n in self.colors.names], np.uint8)
        out = np.where(dist <= REJECT, order[best], UNKNOWN).astype(np.uint8)
        return out.reshape(LUT_BINS, LUT_BINS, LUT_BINS)

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
            missing = [c for c in CLASSES if c not in colors.names]
            if missing:
                raise ValueError(f"no colour for {', '.join(missing)}")
            parts = {}
            for name in ("tiles", "coins", "dice"):
                parts[name] = _decode(data[name])
        except (KeyError, TypeError, ValueError, np.linalg.LinAlgError, cv2.error) as exc:
            raise ProfileError(f"{source}: field {name!r} is missing or malformed ({exc})") from None
        return cls(colors, source=str(data.get("source", source)), **parts)


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
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(f"{path}: not a JSON profile file ({exc})") from None
    return Profile.from_dict(data, str(path))


def default() -> Profile:
    """The profile shipped with icetable: the standard suits, learned from rendered photos."""
    return load(DEFAULT_PROFILE)
