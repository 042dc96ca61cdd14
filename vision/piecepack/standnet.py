"""A learned reading of each standing piecepack piece (pyramid and its letter, die, pawn) from a
crop of the top view.

A pyramid's letter is its size, 1.75 mm of base from the next: one pixel of outline. The
silhouette fit reads it from the pixels classed as its suit, and a face the light washes out,
or the shadow the piece casts, moves that outline by a pixel or more. The crop shows the whole
piece (faces, ridges, printed letter, shadow) at CROP_MM / CROP_PX mm per pixel, turned so that
the piece leans along +x (away from the camera's nadir), as log ratios to the cloth (the plane
view's, which cancel the light's level and colour). A small convolutional network, trained on
photoreal images of piecepack editions and conditions apart from those it is tested on
(`tools/learn`, docs/vision-piecepack.md), gives a probability per class; it runs on the CPU
with OpenCV's DNN module. The weights ship in `vision/models/`.
"""
from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from referee.dimensions import PP_LETTERS
from vision.piecepack.view import PlaneView, on_plane, sample

CLASSES = PP_LETTERS + ("die", "pawn", "none")
NONE = CLASSES.index("none")
CROP_MM = 40.0             # side of the square crop, mm
CROP_PX = 64               # its side in pixels
MID_HEIGHT = 15.0          # mm: the crop is centred half-way up a piece this tall
CLIP = 3.0                 # log ratios are clipped to +-CLIP
MODEL = Path(__file__).parents[1] / "models" / "standnet.onnx"


def crop(pv: PlaneView, x: float, y: float, z0: float) -> np.ndarray:
    """The (3, CROP_PX, CROP_PX) float32 input for a piece standing at table (x, y), its base
    `z0` mm up (on a tile, or on the table)."""
    base = on_plane(np.array([x, y]), pv.centre, z0, pv.height)
    top = on_plane(np.array([x, y]), pv.centre, z0 + MID_HEIGHT, pv.height)
    lean = base - np.asarray(pv.centre[:2], np.float64)
    turn = math.degrees(math.atan2(lean[1], lean[0])) if np.hypot(*lean) > 1e-6 else 0.0
    patch = sample(pv.logratio, pv, (base + top) / 2, turn, CROP_PX, CROP_MM / CROP_PX)
    return np.ascontiguousarray(np.clip(patch, -CLIP, CLIP).transpose(2, 0, 1), np.float32)


def probabilities(crops: np.ndarray, model: Path = MODEL) -> np.ndarray:
    """(N, len(CLASSES)) probabilities for a stack of `crop`s (N, 3, CROP_PX, CROP_PX)."""
    net = _net(str(model))
    net.setInput(np.ascontiguousarray(crops, np.float32))
    logits = net.forward().reshape(len(crops), -1)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def available(path: Path = MODEL) -> bool:
    return path.exists()


@lru_cache(maxsize=2)
def _net(path: str):
    return cv2.dnn.readNetFromONNX(path)
