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

    @property
    def centre(self) -> np.ndarray:
        return self.top.camera

    def px(self, xy) -> np.ndarray:
        return self.top.to_pixels(np.atleast_2d(xy))

    def mm(self, cols, rows) -> np.ndarray:
        x, y = self.top.to_table(cols, rows)
        return np.stack([x, y], axis=-1)


def cloth_model(image: np.ndarray, border_px: int) -> np.ndarray:
    """log(cloth + 2) per pixel, the cloth being a per-channel plane a + b x + c y fitted to
    the border band (robustly); computed coarse and enlarged (it is smooth)."""
    h, w = image.shape[:2]
    band = np.zeros((h, w), bool)
    band[:border_px], band[-border_px:], band[:, :border_px], band[:, -border_px:] = True, True, True, True
    step = 3
    ys, xs = np.nonzero(band[::step, ::step])
    ys, xs = ys * step, xs * step
    values = image[ys, xs].astype(np.float64)
    A = np.column_stack([np.ones(len(xs)), xs / w, ys / h])
    keep = np.ones(len(xs), bool)
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(A[keep], values[keep], rcond=None)
        resid = np.abs(values - A @ coef).sum(axis=1)
        keep = resid < max(12.0, 2.5 * np.median(resid[keep]))
    cw, ch = max(2, w // COARSE), max(2, h // COARSE)
    gx = np.linspace(0, 1, cw, dtype=np.float32)
    gy = np.linspace(0, 1, ch, dtype=np.float32)
    model = (coef[0][None, None, :] + gx[None, :, None] * coef[1][None, None, :]
             + gy[:, None, None] * coef[2][None, None, :])
    return cv2.resize(np.log(np.maximum(model, 8.0) + 2.0).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def plane_view(frame: np.ndarray, fit: PlaneFit, K: np.ndarray, dist, region, height: float,
               mm_per_px: float = MM_PER_PX) -> PlaneView:
    """The light-normalised top view of the plane `height` mm up over `region` (x0, y0, x1, y1)."""
    _, centre = pose_from_homography(fit.H, K)
    top = rectify(frame, lifted(fit, centre, height), region, mm_per_px, K, dist)
    top = TopView(top.image, top.origin, top.mm_per_px, centre)
    logratio = cv2.LUT(top.image, LOG) - cloth_model(top.image, max(2, int(BORDER / mm_per_px)))
    return PlaneView(top, height, logratio)


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
