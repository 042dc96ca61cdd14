"""The colour of the tiles' stock in a view, found by the tiles' shape, not their brightness.

Classes are judged after a white balance on the tiles (`Profile.classify`), so the stock must
be found before anything is classed. The brightest large area of a frame is not always the
tiles: a pale cloth leaves them hardly brighter than most of the view, and a bare arm under a
lamp may be brighter than they are and larger. What only tiles are is square: each tile's
stock, inside its printed border (which parts touching tiles), is a bright filled square of
the tile's inner side. The view (log ratio to the cloth) is thresholded at a few levels; at
the level that shows the most such squares, their pixels give the stock's colour. An arm
(wider than a tile, elongated, entering from the view's edge) or the cloth is never one.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.segment import level_of

LEVELS = (0.06, 0.09, 0.12, 0.16, 0.2, 0.25, 0.3)   # log ratio to the cloth: the stock lies above one
STEP_MM = 1.0              # the squares are looked for at this resolution
BORDER_MM = 1.4            # the tile's edge band its printed border hides
SIDE = (0.8, 1.15)         # a square's sides, as a share of the tile's inner side
AREA = (0.6, 1.3)          # its area, as a share of the inner side squared
FILL = 0.85                # share of its bounding rectangle it fills (holes in it filled)
EDGE_SHARE = 25            # percentile of a square's pixel levels below which they are its edge
SAMPLES = 4000             # the squares' pixels the colour is taken from (at most about this many)


def tile_squares(level: np.ndarray, side_mm: float) -> tuple[np.ndarray, int]:
    """0/1 mask of the stock pixels of the tile-shaped squares found in `level` (a view's mean
    log ratio, STEP_MM per pixel) at the best threshold, and how many squares that is."""
    inner = (side_mm - 2 * BORDER_MM) / STEP_MM
    best, count = np.zeros(level.shape, np.uint8), 0
    for t in LEVELS:
        mask = cv2.erode((level > t).astype(np.uint8), np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        squares = [c for c in contours if _is_square(c, inner, level.shape)]
        if len(squares) > count:
            best = np.zeros(level.shape, np.uint8)
            cv2.drawContours(best, squares, -1, 1, -1)
            best &= mask
            count = len(squares)
    return best, count


def _is_square(contour: np.ndarray, inner: float, shape: tuple) -> bool:
    """Whether an outline is a tile's stock: a filled square of about the inner side, clear
    of the view's edge (an arm enters from there)."""
    area = cv2.contourArea(contour)
    if not AREA[0] * inner ** 2 <= area <= AREA[1] * inner ** 2:
        return False
    x, y, w, h = cv2.boundingRect(contour)
    if x == 0 or y == 0 or x + w >= shape[1] or y + h >= shape[0]:
        return False
    _, (rw, rh), _ = cv2.minAreaRect(contour)
    return SIDE[0] * inner <= min(rw, rh) and max(rw, rh) <= SIDE[1] * inner and area >= FILL * rw * rh


def stock_colour(logratio: np.ndarray, mm_per_px: float, side_mm: float) -> np.ndarray | None:
    """The tiles' stock colour (log ratio per channel) from the tile-shaped squares of the
    view (a sample of SAMPLES of their pixels, the blurred edges left out); None when the view
    shows none."""
    k = STEP_MM / mm_per_px
    level = cv2.resize(level_of(logratio), None, fx=1 / k, fy=1 / k, interpolation=cv2.INTER_AREA)
    squares, count = tile_squares(level, side_mm)
    if not count:
        return None
    rows, cols = np.nonzero(squares)
    step = max(1, len(rows) // SAMPLES)
    rows, cols = rows[::step], cols[::step]
    lit = level[rows, cols] >= np.percentile(level[rows, cols], EDGE_SHARE)
    h, w = logratio.shape[:2]
    pixels = logratio[np.minimum((rows[lit] * k + k / 2).astype(int), h - 1),
                      np.minimum((cols[lit] * k + k / 2).astype(int), w - 1)]
    return np.median(pixels, axis=0).astype(np.float32)
