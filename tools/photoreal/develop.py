"""From the path tracer's linear light to what a webcam writes: lens distortion, blur, auto white
balance and exposure, sensor noise, JPEG. Also the ground truth that comes with a frame."""
from __future__ import annotations

import math

import cv2
import numpy as np

from tools.photoreal.conditions import Optics
from vision.camera import Camera
from vision.render.frame import distort, padded

SRGB_TARGET = 0.18        # linear mean luminance auto exposure aims at
HIDDEN_SHARE = 0.5        # a piece showing less than this share of its silhouette is hidden


def canvas(cam: Camera) -> tuple[Camera, tuple[int, int]]:
    """The undistorted camera to render, just wide enough for `cam`'s distortion."""
    w, h = cam.size
    border = [(x, y) for x in np.linspace(0, w - 1, 33) for y in (0, h - 1)]
    border += [(x, y) for y in np.linspace(0, h - 1, 19) for x in (0, w - 1)]
    und = cv2.undistortPoints(np.array(border, np.float64).reshape(-1, 1, 2), cam.K, cam.dist, P=cam.K)
    und = und.reshape(-1, 2)
    ox = max(0.0, -und[:, 0].min(), und[:, 0].max() - (w - 1))
    oy = max(0.0, -und[:, 1].min(), und[:, 1].max() - (h - 1))
    return padded(cam, (int(math.ceil(ox)) + 4, int(math.ceil(oy)) + 4))


def srgb(linear: np.ndarray) -> np.ndarray:
    c = np.clip(linear, 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(c, 1 / 2.4) - 0.055)


def develop(linear: np.ndarray, optics: Optics, offset: tuple[int, int], seed: int) -> np.ndarray:
    """A BGR uint8 frame (before JPEG) from the padded linear RGB render."""
    cam = optics.camera()
    image = distort(linear.astype(np.float32), cam, offset)
    if optics.blur > 0.05:
        image = cv2.GaussianBlur(image, (0, 0), optics.blur)
    means = image.reshape(-1, 3).mean(axis=0) + 1e-6
    grey = float(means.mean())
    gains = np.power(grey / means, 0.8) * np.array(optics.wb_error)
    image = image * gains
    luminance = image @ np.array([0.2126, 0.7152, 0.0722])
    image = image * (SRGB_TARGET * 2 ** optics.exposure_bias / max(float(np.mean(luminance)), 1e-6))
    out = 255.0 * srgb(image)
    rng = np.random.default_rng(seed)
    out = out + rng.normal(0.0, 1.0, out.shape) * optics.noise * np.sqrt(np.maximum(out, 16.0) / 128.0)
    return np.clip(out, 0, 255).astype(np.uint8)[..., ::-1].copy()


def piece_ids(ids: np.ndarray, optics: Optics, offset: tuple[int, int]) -> np.ndarray:
    """The index pass distorted like the frame (nearest), as uint16 (0 table, i piece i)."""
    out = distort(ids.astype(np.float32), optics.camera(), offset, cv2.INTER_NEAREST)
    return np.rint(out).astype(np.uint16)


def hidden(ids: np.ndarray, silhouettes: dict[int, np.ndarray], names: dict[int, str]) -> list[str]:
    """Ids of the pieces that show less than HIDDEN_SHARE of their silhouette (frame pixels of
    each piece's projected vertices): under an arm, or out of view."""
    h, w = ids.shape
    out = []
    for index, pts in silhouettes.items():
        mask = np.zeros((h, w), np.uint8)
        hull = cv2.convexHull(np.round(pts).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1)
        expected = int(mask.sum()) or 1
        seen = int(np.count_nonzero(ids == index))
        if seen < HIDDEN_SHARE * expected or cv2.contourArea(hull) > 1.5 * expected:
            out.append(names[index])
    return out
