"""Rectify a frame onto the table plane: a top view at a fixed mm per pixel.

Pixel (i, j) of a top view covers table x in [x0 + i*s, x0 + (i+1)*s] (s = mm per pixel), so its
centre is at x0 + (i + 0.5) * s. The camera centre (from the homography and the intrinsics) comes
along: pieces stand up from the plane, so their silhouettes lean away from the camera's nadir.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.homography import PlaneFit
from vision.camera import pose_from_homography

GRID = 16   # the pixel map is computed exactly on a grid this coarse, then interpolated


@dataclass(frozen=True)
class TopView:
    image: np.ndarray            # BGR uint8, rows along y
    origin: tuple[float, float]  # table mm of the top-left corner of pixel (0, 0)
    mm_per_px: float
    camera: np.ndarray           # camera centre in the world frame (z < 0 above the table)

    def to_table(self, cols: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Table mm of (fractional) pixel centres."""
        s = self.mm_per_px
        return self.origin[0] + (np.asarray(cols) + 0.5) * s, self.origin[1] + (np.asarray(rows) + 0.5) * s

    def to_pixels(self, xy: np.ndarray) -> np.ndarray:
        """Pixel coordinates (continuous, pixel centres at integers) of table points (N, 2)."""
        return (np.asarray(xy, np.float64) - self.origin) / self.mm_per_px - 0.5


def frame_points(table: np.ndarray, fit: PlaneFit, K, dist) -> np.ndarray:
    """Frame pixel coordinates (N, 2), the lens's distortion applied, of table points (N, 2)."""
    pts = fit.to_image(table)
    if K is not None and dist is not None and np.any(dist):
        norm = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(K)).reshape(-1, 2)
        obj = np.concatenate([norm, np.ones((len(norm), 1))], axis=1)
        pts = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), K, dist)[0].reshape(-1, 2)
    return pts


def _pixel_map(region, mm_per_px, fit: PlaneFit, K, dist, shrink: float):
    x0, y0, x1, y1 = region
    w, h = int(round((x1 - x0) / mm_per_px)), int(round((y1 - y0) / mm_per_px))
    gx = np.linspace(0, w - 1, max(2, w // GRID + 2))
    gy = np.linspace(0, h - 1, max(2, h // GRID + 2))
    xs, ys = np.meshgrid(x0 + (gx + 0.5) * mm_per_px, y0 + (gy + 0.5) * mm_per_px)
    pts = frame_points(np.stack([xs.ravel(), ys.ravel()], axis=1), fit, K, dist)
    coarse = (pts.reshape(len(gy), len(gx), 2) / shrink - 0.5 + 0.5 / shrink).astype(np.float32)
    ux = np.broadcast_to((np.arange(w, dtype=np.float32) * (len(gx) - 1) / max(1, w - 1))[None, :], (h, w))
    uy = np.broadcast_to((np.arange(h, dtype=np.float32) * (len(gy) - 1) / max(1, h - 1))[:, None], (h, w))
    full = cv2.remap(coarse, np.ascontiguousarray(ux), np.ascontiguousarray(uy), cv2.INTER_LINEAR)
    return full[..., 0], full[..., 1]


def rectify(frame: np.ndarray, fit: PlaneFit, region: tuple[float, float, float, float],
            mm_per_px: float, K: np.ndarray, dist: np.ndarray | None) -> TopView:
    """The top view of table `region` (x0, y0, x1, y1 mm) seen in `frame`."""
    scale = np.linalg.norm(fit.H[:2, 0] / fit.H[2, 2]) * mm_per_px   # image px per top-view px
    shrink = 1.0
    source = frame
    while scale / shrink > 2.4:
        source = cv2.pyrDown(source)
        shrink *= 2
    mx, my = _pixel_map(region, mm_per_px, fit, K, dist, shrink)
    image = cv2.remap(source, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    _, centre = pose_from_homography(fit.H, K)
    return TopView(image, (region[0], region[1]), mm_per_px, centre)


def warp_labels(labels: np.ndarray, fit: PlaneFit, region: tuple[float, float, float, float],
                mm_per_px: float, K: np.ndarray, dist: np.ndarray | None) -> np.ndarray:
    """A per-pixel label image of the frame (piece ids, classes) on the top view's pixels, each
    taking the label under its centre (no blending of labels)."""
    mx, my = _pixel_map(region, mm_per_px, fit, K, dist, 1.0)
    return cv2.remap(labels, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)

