"""The top view piecepack detection works on: the plane of the tiles' tops, light-normalised.

Tiles are 6.35 mm thick, so the plane the camera should be rectified to is their top, not the
table: `lifted` turns the table homography into the homography of a plane h mm up (a scaling
about the camera's nadir). Pixel values are then divided by a smooth model of the empty cloth
(fitted on the border of the view, where no piece lies), which cancels the light's colour,
level and falloff: every pixel becomes a log ratio to the cloth under the same light.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.homography import PlaneFit
from vision.camera import pose_from_homography
from vision.topview import TopView, rectify

BORDER = 9.0          # mm: the band along the view's edge taken as empty cloth
MM_PER_PX = 0.5
COARSE = 16           # the cloth model is computed on a grid this much coarser
LOG = np.log(np.arange(256, dtype=np.float32) + 2.0)     # log(value + 2) of an 8-bit pixel
SEPARATION = 0.35     # log: a cloth whose border falls in two colours this far apart (any channel),
PATTERN_SHARE = 0.15  # ... each on this share of it at least, has two colours (a gingham)
PATTERN_TRIM = 0.25   # log: border pixels further than this from both colours are pieces
PATTERN_RUN = 60.0    # mm: ... and whose colours alternate along the border once in this on average


def lifted(fit: PlaneFit, centre: np.ndarray, height: float) -> PlaneFit:
    """The homography of the horizontal plane `height` mm above the table (same pixels)."""
    cx, cy, cz = centre
    t = cz / (cz + height)          # cz < 0: the camera is above the table
    S = np.array([[t, 0, (1 - t) * cx], [0, t, (1 - t) * cy], [0, 0, 1.0]])
    return PlaneFit(fit.H @ S, fit.rms_mm, fit.ids)


def raise_point(xy, centre: np.ndarray, seen_at: float, height: float) -> np.ndarray:
    """Where a point `height` mm up really is, given where it shows on the plane `seen_at` mm
    up (seen from camera `centre`)."""
    c = np.asarray(centre[:2], np.float64)
    cz = centre[2]
    return c + (np.asarray(xy, np.float64) - c) * (cz + height) / (cz + seen_at)


def on_plane(xy, centre: np.ndarray, height: float, plane: float) -> np.ndarray:
    """Where a point at (x, y, `height` mm up) shows on the plane `plane` mm up."""
    c = np.asarray(centre[:2], np.float64)
    cz = centre[2]
    return c + (np.asarray(xy, np.float64) - c) * (cz + plane) / (cz + height)


@dataclass
class PlaneView:
    """A rectified view of one plane: the top view, its plane height and the log-ratio image."""

    top: TopView
    height: float
    logratio: np.ndarray          # float32 (h, w, 3), log(pixel / cloth)
    other_cloth: np.ndarray | None = None   # a two-coloured cloth's other colour (log ratio)

    @property
    def centre(self) -> np.ndarray:
        return self.top.camera

    def px(self, xy) -> np.ndarray:
        return self.top.to_pixels(np.atleast_2d(xy))

    def mm(self, cols, rows) -> np.ndarray:
        x, y = self.top.to_table(cols, rows)
        return np.stack([x, y], axis=-1)


def cloth_model(image: np.ndarray, border_px: int) -> tuple[np.ndarray, np.ndarray | None]:
    """log(cloth + 2) per pixel, and the cloth's other colour (log ratio to it) when it has
    two (`two_colours`: a gingham's checks); None for a cloth of one colour. The cloth is a
    smooth field fitted to the border band (robustly): a per-channel plane a + b x + c y, or
    for two colours the brighter one's level under one light field (its log a plane). The
    model is computed coarse and enlarged (it is smooth)."""
    h, w = image.shape[:2]
    values, x, y, around = _border(image, border_px)
    two = _two(values, x, y, around, border_px)
    cw, ch = max(2, w // COARSE), max(2, h // COARSE)
    gx = np.linspace(0, 1, cw, dtype=np.float32)[None, :, None]
    gy = np.linspace(0, 1, ch, dtype=np.float32)[:, None, None]
    if two is not None:
        (a, b, c), other = two
        model = a + gx * b + gy * c
    else:
        a, b, c = _plane(values.astype(np.float64), x, y)
        model = np.log(np.maximum(a + gx * b + gy * c, 8.0) + 2.0)
        other = None
    return cv2.resize(model.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR), other


def patterned(image: np.ndarray, border_px: int) -> bool:
    """Whether the view's border band shows a cloth of two colours (`two_colours`)."""
    return _two(*_border(image, border_px), border_px) is not None


def _border(image: np.ndarray, border_px: int) -> tuple:
    """Every third pixel of the band `border_px` wide along the view's edge: their values,
    their places over the view (x, y from 0 to 1) and how far along the border each lies."""
    h, w = image.shape[:2]
    band = np.zeros((h, w), bool)
    band[:border_px], band[-border_px:], band[:, :border_px], band[:, -border_px:] = True, True, True, True
    step = 3
    ys, xs = np.nonzero(band[::step, ::step])
    ys, xs = ys * step, xs * step
    around = np.where(ys < border_px, xs, np.where(xs >= w - border_px, w + ys,
                      np.where(ys >= h - border_px, 2 * w + h - xs, 2 * (w + h) - ys)))
    return image[ys, xs], xs / w, ys / h, around


def _two(values: np.ndarray, x: np.ndarray, y: np.ndarray, around: np.ndarray, border_px: int):
    """`two_colours` of a border band's samples (`_border`)."""
    return two_colours(LOG[values].astype(np.float64), x, y, around, PATTERN_RUN * border_px / BORDER,
                       border_px / 4)


def _plane(values: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-channel plane a + b x + c y through the values, outliers (pieces) left out."""
    A = np.column_stack([np.ones(len(x)), x, y])
    keep = np.ones(len(x), bool)
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(A[keep], values[keep], rcond=None)
        resid = np.abs(values - A @ coef).sum(axis=1)
        keep = resid < max(12.0, 2.5 * np.median(resid[keep]))
    return coef


def two_colours(logs: np.ndarray, x: np.ndarray, y: np.ndarray, around: np.ndarray, run: float, step: float):
    """((a, b, c), other) when the border's logs (N x 3; `x`, `y` their places over the view,
    0 to 1; `around` how far along the border each lies, in pixels) fall in two colours at
    least SEPARATION apart, each on PATTERN_SHARE of it, that alternate along the border (as
    judged every `step` pixels) at least once every `run` pixels on average: a pattern, not
    a light's pool or a shadow. Then the brighter colour's log is a + b x + c y (per
    channel; one light field over both), and `other` is the other colour's log ratio to it.
    None for a cloth of one colour. A plane fitted through both colours tilts wherever the
    border shows more of one than of the other, and the tiles' card then read as a suit's
    colour on one side of the board and as card on the other."""
    if (np.percentile(logs, 90, axis=0) - np.percentile(logs, 10, axis=0)).max() < SEPARATION:
        return None         # one colour, as most cloths: no need to part it
    level = logs.mean(axis=1)
    centres = logs[[np.argmin(np.abs(level - np.percentile(level, q))) for q in (10, 90)]]
    for _ in range(10):
        label = (np.abs(logs - centres[1]).max(axis=1) < np.abs(logs - centres[0]).max(axis=1))
        if label.all() or not label.any():
            return None
        centres = np.array([np.median(logs[~label], axis=0), np.median(logs[label], axis=0)])
    if np.abs(centres[1] - centres[0]).max() < SEPARATION or min(label.mean(), 1 - label.mean()) < PATTERN_SHARE:
        return None
    keep = np.ones(len(x), bool)
    for _ in range(4):
        A = np.column_stack([~label, label, x, y]).astype(np.float64)
        coef, *_ = np.linalg.lstsq(A[keep], logs[keep], rcond=None)
        light = np.outer(x, coef[2]) + np.outer(y, coef[3])
        off = [np.abs(logs - light - coef[k]).max(axis=1) for k in (0, 1)]
        label = off[1] < off[0]
        keep = np.minimum(off[0], off[1]) < PATTERN_TRIM
    if np.abs(coef[1] - coef[0]).max() < SEPARATION or _changes(around, label, step) < around.max() / run:
        return None
    bright = int(coef[1].mean() > coef[0].mean())
    return (coef[bright], coef[2], coef[3]), (coef[1 - bright] - coef[bright]).astype(np.float32)


def _changes(around: np.ndarray, label: np.ndarray, step: float) -> int:
    """How often the label (boolean) changes along the border, judged by the majority over
    each `step` of it (a change back after one step is noise)."""
    bins = (around / step).astype(int)
    count = np.bincount(bins)
    major = (np.bincount(bins, label) / np.maximum(count, 1) > 0.5)[count > 0]
    major = cv2.medianBlur(major.astype(np.uint8)[None, :], 3)[0] if len(major) > 2 else major
    return int(np.count_nonzero(major[1:] != major[:-1]))


def plane_view(frame: np.ndarray, fit: PlaneFit, K: np.ndarray, dist, region, height: float,
               mm_per_px: float = MM_PER_PX) -> PlaneView:
    """The light-normalised top view of the plane `height` mm up over `region` (x0, y0, x1, y1)."""
    _, centre = pose_from_homography(fit.H, K)
    top = rectify(frame, lifted(fit, centre, height), region, mm_per_px, K, dist)
    top = TopView(top.image, top.origin, top.mm_per_px, centre)
    cloth, other = cloth_model(top.image, max(2, int(BORDER / mm_per_px)))
    return PlaneView(top, height, cv2.LUT(top.image, LOG) - cloth, other)


def patch_to_view(pv: PlaneView, xy, angle: float, n: int, step: float) -> np.ndarray:
    """The affine map (2x3) from a patch's pixels to the view's (see `sample`)."""
    c, si = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    k = step / pv.top.mm_per_px
    A = np.array([[k * c, -k * si], [k * si, k * c]])
    off = pv.px(xy)[0] - A @ np.array([n / 2 - 0.5, n / 2 - 0.5])
    return np.hstack([A, off[:, None]])


def sample(image: np.ndarray, pv: PlaneView, xy, angle: float, n: int, step: float) -> np.ndarray:
    """An n x n patch of `image` (a view-sized array) centred at table point `xy`, its x axis
    along `angle` degrees, `step` mm per pixel."""
    if step / pv.top.mm_per_px > 1.5 and image.dtype != np.uint8:     # coarser than the view: average
        return cv2.resize(sample(image, pv, xy, angle, 2 * n, step / 2), (n, n), interpolation=cv2.INTER_AREA)
    M = patch_to_view(pv, xy, angle, n, step)
    return cv2.warpAffine(image, M, (n, n), flags=(cv2.INTER_NEAREST if image.dtype == np.uint8 else cv2.INTER_LINEAR)
                          | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
