"""The calibration file (JSON): the mat layout, the camera, the table plane and the colours."""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from calibration.colors import ColorProfile
from calibration.layout import Layout

FORMAT = "icetable-calibration/1"
DEFAULT_COLORS = Path(__file__).with_name("default_colors.json")
KNOWN = ("format", "layout", "image_size", "camera", "homography", "reprojection_mm", "mm_per_px", "colors")


class CalibrationError(ValueError):
    """A calibration file that cannot be used; the message names the file and field."""


@dataclass(frozen=True)
class Calibration:
    """`K`/`dist` the camera intrinsics (`intrinsics` says where they came from: 'charuco',
    'estimated' from the mat's homography, or 'rendered'); `H` maps table mm to undistorted
    pixels of the last view, `rms_mm` its reprojection error; `colors` the colour profile."""

    layout: Layout
    image_size: tuple[int, int]
    K: np.ndarray
    dist: np.ndarray
    intrinsics: str
    colors: ColorProfile
    H: np.ndarray | None = None
    rms_mm: float | None = None
    mm_per_px: float = 1.0
    extra: dict = field(default_factory=dict)    # sections other parts add, e.g. "piecepack"

    def with_colors(self, colors: ColorProfile) -> "Calibration":
        return replace(self, colors=colors)

    def to_dict(self) -> dict:
        return {"format": FORMAT, "layout": self.layout.to_dict(),
                "image_size": list(self.image_size),
                "camera": {"K": self.K.tolist(), "dist": self.dist.ravel().tolist(),
                           "source": self.intrinsics},
                "homography": None if self.H is None else self.H.tolist(),
                "reprojection_mm": self.rms_mm, "mm_per_px": self.mm_per_px,
                "colors": self.colors.to_dict(), **self.extra}


def default_colors() -> ColorProfile:
    """The colour profile shipped with icetable (learned from a rendered palette photo)."""
    return ColorProfile.from_dict(json.loads(DEFAULT_COLORS.read_text(encoding="utf-8")))


def save(calibration: Calibration, path: str | Path) -> None:
    Path(path).write_text(json.dumps(calibration.to_dict(), indent=1) + "\n", encoding="utf-8")


def read_json(path: str | Path, what: str = "calibration", error=CalibrationError):
    """The JSON in a file; `error` names the file when it cannot be read or parsed."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path}: not a JSON {what} file ({exc})") from None


def load(path: str | Path) -> Calibration:
    """Read a calibration file; CalibrationError names what is wrong."""
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CalibrationError(f"{path}: field 'format' must be {FORMAT!r}")
    field = "layout"
    try:
        layout = Layout.from_dict(data["layout"])
        field = "camera"
        K = np.array(data["camera"]["K"], np.float64).reshape(3, 3)
        dist = np.array(data["camera"]["dist"], np.float64).ravel()
        field = "colors"
        colors = ColorProfile.from_dict(data["colors"]) if data.get("colors") else default_colors()
        field = "homography"
        H = None if data.get("homography") is None else np.array(data["homography"], np.float64).reshape(3, 3)
        field = "image_size"
        size = tuple(int(v) for v in data["image_size"])
    except (KeyError, TypeError, ValueError, np.linalg.LinAlgError) as exc:
        raise CalibrationError(f"{path}: field {field!r} is missing or malformed ({exc})") from None
    return Calibration(layout, size, K, dist, data["camera"].get("source", "unknown"), colors, H,
                       data.get("reprojection_mm"), float(data.get("mm_per_px", 1.0)),
                       {k: v for k, v in data.items() if k not in KNOWN})
