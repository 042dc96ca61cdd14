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
MM_PER_PX = (0.2, 10.0)     # the top view's scale: finer would take minutes a frame, coarser loses pieces
MIN_SIDE, MAX_SIDE = 16, 20000     # px: the camera images a calibration may describe
MIN_AREA, MAX_AREA = 50.0, 5000.0      # mm: the play-area sides a calibration may describe


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
    except RecursionError:
        raise error(f"{path}: JSON nested too deeply to read") from None


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
        colors = _colors(data["colors"]) if data.get("colors") else default_colors()
        field = "homography"
        H = None if data.get("homography") is None else np.array(data["homography"], np.float64).reshape(3, 3)
        field = "image_size"
        size = tuple(data["image_size"])
        if not all(type(v) is int for v in size):
            raise ValueError("width and height must be whole numbers of pixels")
        field = "mm_per_px"
        mm_per_px = float(data.get("mm_per_px", 1.0))
    except (KeyError, TypeError, ValueError, OverflowError, np.linalg.LinAlgError) as exc:
        raise CalibrationError(f"{path}: field {field!r} is missing or malformed ({exc})") from None
    calibration = Calibration(layout, size, K, dist, data["camera"].get("source", "unknown"), colors, H,
                              data.get("reprojection_mm"), mm_per_px,
                              {k: v for k, v in data.items() if k not in KNOWN})
    problem = check(calibration)
    if problem:
        raise CalibrationError(f"{path}: {problem}")
    return calibration


def _colors(data: dict) -> ColorProfile:
    for name, colour in data.items():
        try:
            shapes = np.shape(colour["mean"]), np.shape(colour["cov"])
        except ValueError:
            shapes = None
        if shapes != ((3,), (3, 3)):
            raise ValueError(f"colour {name!r}: expected a 'mean' of 3 numbers and a 3 x 3 'cov'")
    return ColorProfile.from_dict(data)


def check(cal: Calibration) -> str | None:
    """What makes a calibration unusable, as "field 'name': what is wrong", or None."""
    area = cal.layout.area
    w, h = area if len(area) == 2 and not any(isinstance(v, bool) for v in area) else (0, 0)
    numbers = {"layout.area": cal.layout.area, "camera.K": cal.K, "camera.dist": cal.dist,
               "homography": cal.H if cal.H is not None else 0.0, "mm_per_px": cal.mm_per_px,
               "layout.markers": [(m.x, m.y, m.side) for m in cal.layout.markers] or 0.0,
               "colors": cal.colors.inv_covs, "colors.mean": cal.colors.means}
    for name, value in numbers.items():
        try:
            finite = np.all(np.isfinite(np.asarray(value, np.float64)))
        except (TypeError, ValueError):
            finite = False
        if not finite:
            return f"field {name!r}: must hold finite numbers"
    rules = (("layout.area", MIN_AREA <= w <= MAX_AREA and MIN_AREA <= h <= MAX_AREA,
              f"two sides of {MIN_AREA:g} to {MAX_AREA:g} mm"),
             ("layout.markers", len(cal.layout.markers) >= 1, "at least one marker"),
             ("camera.K", cal.K[0, 0] > 0 and cal.K[1, 1] > 0 and cal.K[2, 2] == 1, "a camera matrix, focal lengths over 0"),
             ("camera.dist", cal.dist.size in (4, 5, 8, 12, 14), "4, 5, 8, 12 or 14 distortion coefficients"),
             ("image_size", len(cal.image_size) == 2 and all(MIN_SIDE <= v <= MAX_SIDE for v in cal.image_size),
              f"width and height in pixels, {MIN_SIDE} to {MAX_SIDE}"),
             ("mm_per_px", MM_PER_PX[0] <= cal.mm_per_px <= MM_PER_PX[1],
              f"between {MM_PER_PX[0]:g} and {MM_PER_PX[1]:g} (the top view's mm per pixel)"),
             ("colors", cal.colors.means.ndim == 2 and cal.colors.means.shape[1:] == (3,)
              and bool(np.all(np.linalg.eigvalsh(cal.colors.inv_covs) > 0)),
              "per colour a mean of 3 numbers and a 3 x 3 covariance that is positive definite"))
    for name, ok, expected in rules:
        if not ok:
            return f"field {name!r}: expected {expected}"
    return None
