"""Printed art on a face: a texture warped into the face's image polygon and lit like it.

A `Look.art(face)` callback returns `(texture, anchors)`: the texture (linear RGB albedo, float)
and the world corners (4, 3) its top-left, top-right, bottom-right and bottom-left corners lie
on. The renderer projects the anchors and calls `paint`.
"""
from __future__ import annotations

import cv2
import numpy as np

SUB = 4


def paint(image: np.ndarray, texture: np.ndarray, anchors_px: np.ndarray, polygon_px: np.ndarray,
          gain: np.ndarray, add: np.ndarray) -> None:
    """image = texture * gain + add inside the anti-aliased `polygon_px`, in place."""
    h, w = image.shape[:2]
    x0, y0 = np.floor(polygon_px.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(polygon_px.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x0 >= x1 or y0 >= y1:
        return
    th, tw = texture.shape[:2]
    src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]]) - 0.5
    M = cv2.getPerspectiveTransform(src, (anchors_px - (x0, y0)).astype(np.float32))
    scale = np.sqrt(abs(np.linalg.det(M[:2, :2]))) if abs(M[2, 2]) > 1e-12 else 1.0
    if scale < 0.7:   # shrink the texture first: a warp only samples, it does not average
        factor = max(1, int(round(1 / max(scale, 1e-3))))
        small = cv2.resize(texture, (max(1, tw // factor), max(1, th // factor)), interpolation=cv2.INTER_AREA)
        src = np.float32([[0, 0], [small.shape[1], 0], [small.shape[1], small.shape[0]], [0, small.shape[0]]]) - 0.5
        M = cv2.getPerspectiveTransform(src, (anchors_px - (x0, y0)).astype(np.float32))
        texture = small
    warped = cv2.warpPerspective(texture, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pts = ((polygon_px - (x0, y0)) * (1 << SUB)).round().astype(np.int32)
    cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA, SUB)
    m = mask.astype(np.float32)[..., None] / 255.0
    crop = image[y0:y1, x0:x1]
    image[y0:y1, x0:x1] = crop * (1 - m) + m * (warped * gain + add)
