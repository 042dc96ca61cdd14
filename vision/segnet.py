"""A learned split of the top view into table, pieces and hands.

The thresholds of `vision.segment` take what is much darker than the table for a piece, so a long
shadow under a low sun or a lamp is read as pieces, and wood grain as white islands. A small
convolutional network (an encoder-decoder), trained on photoreal images with per-pixel truth by
`tools/learn` (docs/vision.md), reads the log ratios to the empty table (`Segmentation.features`)
at NET_MM per pixel and gives each pixel a probability of table (and shadow), piece and hand. It
runs on the CPU with OpenCV's DNN module; the weights ship in `vision/models/`.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

CLASSES = ("table", "piece", "hand")
NET_MM = 2.0          # mm per pixel the network sees
STRIDE = 8            # the input's sides are padded to a multiple of this
CLIP = 3.0            # log ratios are clipped to +-CLIP (a black piece on white paper is about -3)
MODEL = Path(__file__).with_name("models") / "segnet.onnx"
PIECEPACK = MODEL.with_name("ppsegnet.onnx")     # the same classes on the piecepack's top view
ARM_ID = 1000         # the photoreal generator's id of an arm in its per-pixel piece ids


def net_size(shape: tuple, mm_per_px: float) -> tuple[int, int]:
    """(width, height) of a top view of `shape` at NET_MM per pixel, before padding."""
    scale = mm_per_px / NET_MM
    return max(1, round(shape[1] * scale)), max(1, round(shape[0] * scale))


def net_input(features: np.ndarray, mm_per_px: float) -> np.ndarray:
    """(1, 3, h, w) float32: the log ratios at NET_MM per pixel, padded (edge values) to STRIDE."""
    small = cv2.resize(features, net_size(features.shape, mm_per_px), interpolation=cv2.INTER_AREA)
    small = np.clip(small, -CLIP, CLIP)
    ph, pw = -small.shape[0] % STRIDE, -small.shape[1] % STRIDE
    small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(small.transpose(2, 0, 1)[None], np.float32)


def classes_of(ids: np.ndarray, flat: tuple = ()) -> np.ndarray:
    """Per-pixel class index (CLASSES) of the generator's piece ids (0 table, ARM_ID an arm);
    the ids in `flat` (cards) are table."""
    out = np.where(ids > 0, 1, 0).astype(np.uint8)
    out[np.isin(ids, flat)] = 0
    out[ids == ARM_ID] = 2
    return out


def probabilities(features: np.ndarray, mm_per_px: float, model: Path = MODEL) -> np.ndarray:
    """(h, w, 3) float32 probabilities of CLASSES for each pixel of the top view."""
    h, w = features.shape[:2]
    x = net_input(features, mm_per_px)
    net = _net(str(model))
    net.setInput(x)
    logits = net.forward()[0].transpose(1, 2, 0)
    e = np.exp(logits - logits.max(axis=2, keepdims=True))
    p = e / e.sum(axis=2, keepdims=True)
    sw, sh = net_size(features.shape, mm_per_px)
    return cv2.resize(np.ascontiguousarray(p[:sh, :sw]), (w, h), interpolation=cv2.INTER_LINEAR)


def channel(p: np.ndarray, name: str) -> np.ndarray:
    """The probability image of class `name` (CLASSES) of `probabilities`' output."""
    return np.ascontiguousarray(p[..., CLASSES.index(name)])


def available(path: Path = MODEL) -> bool:
    return path.exists()


@lru_cache(maxsize=2)
def _net(path: str):
    return cv2.dnn.readNetFromONNX(path)
