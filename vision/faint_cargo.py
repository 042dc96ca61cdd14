"""White pyramids lying on a light home card that barely differ from its stock.

A white pyramid lying on white card stock may show no face much brighter than the card: its lit
faces are within a few per cent of it, under the card's grain even after `cards.flatten`'s lift,
and no blob is found. What shows is its dark side, a face turned from the light and its
shadow, far darker than the card's grain (within 2 %), and the lines its edges draw. Such a dark
mark on a card, away from every piece found and from the card's rim (a piece beside the card
casts its shadow across the rim), is explained by a lying pyramid: each hypothesis splits the
card around the mark into its four faces and the rest, and is scored by the share of the level's
variance those regions explain (`Shading`: each face is evenly lit) plus how strong the level's
gradient is along the lines its edges cast (`PyramidFitter.edges`), over the card's median.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from referee.dimensions import Dimensions
from vision.cards import Card
from vision.pyramids import SUB, Found, PyramidFitter, piece_fields, refine, silhouette_mask
from vision.segment import level_of
from vision.shading import Shading
from vision.topview import TopView

SHADE = 0.05           # log under the card's level: a face turned from the light or a shadow
MARK_AREA = 6.0        # mm^2: smaller dark marks are grain
INSET = 3.0            # mm inside a card's edge where marks are looked for
RIM = (2.0, 5.0)       # mm inside the edge: a mark reaching this band is a shadow from outside
CLEAR_OF = 6.0         # mm from a piece found (or a hand): its shadow, not another piece
WINDOW = 45.0          # mm: half the side of the card region a mark's hypotheses are scored on
REACH = 14.0           # mm: the piece's middle lies this near the mark's centroid at most
GRID = (4.0, 15.0)     # mm, degrees between the first hypotheses tried; the best few are refined
FACES = ((0, 1, 2, 3), (1, 2, 4), (2, 3, 4), (3, 0, 4))   # a lying pyramid's, drawn in this order
EDGE_SHARE = 0.1       # weight of the edge term (mean gradient over the card's median)
EDGE_CONTRAST = 2.5    # ... which a piece's edges must reach
EXPLAINED = 0.15       # share of the level's variance a piece's faces must explain
OVERLAP = 0.1          # share of its silhouette over a piece found (or fitted) that drops a fit


def faint_on_cards(view: TopView, features: np.ndarray, cards: list[Card], taken: np.ndarray,
                   dims: Dimensions, sizes: tuple) -> list[Found]:
    """White lying pyramids of `sizes` (of `dims`) on `cards` that no blob showed; `features`
    are the log ratios of the (flattened) top view to the table, `taken` (uint8) the pixels of
    pieces found and of hands."""
    mpp = view.mm_per_px
    level = level_of(features)
    dark = cv2.blur(level, (3, 3)) < -SHADE
    marked = [(card, *found) for card in cards for found in [_marks(view, card, dark)] if found[2]]
    if not marked:          # what follows is worked out over the whole view
        return []
    side = int(2 * CLEAR_OF / mpp) | 1
    near = cv2.dilate(taken, np.ones((side, side), np.uint8)) > 0
    smooth = cv2.GaussianBlur(level, (0, 0), 0.8)
    gradient = cv2.magnitude(cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1))
    fitter, fits = PyramidFitter(view, dims), []
    for card, box, inner, marks in marked:
        rim = (card.mask(view, -RIM[0]) > 0) & ~(card.mask(view, -RIM[1]) > 0)
        free = np.zeros_like(near)
        free[box] = inner & ~near[box]
        scale = float(np.median(gradient[free])) if free.any() else 0.0
        for mark, centre in marks:
            if scale > 0 and not (mark & (near[box] | rim[box])).any():
                fits += _fit(fitter, level, gradient, scale, free, centre, sizes)
    return _kept(fitter, fits, taken)


def _marks(view: TopView, card: Card, dark: np.ndarray) -> tuple[tuple, np.ndarray, list]:
    """(the card's bounding box as slices, its inside INSET from its edge there, [(mask there,
    centre in view pixels)] of the dark marks inside of MARK_AREA or more)."""
    inner = card.mask(view, -INSET)
    x, y, w, h = cv2.boundingRect(inner)
    box = (slice(y, y + h), slice(x, x + w))
    inner = inner[box] > 0
    n, labels, stats, centres = cv2.connectedComponentsWithStats((dark[box] & inner).astype(np.uint8),
                                                                 connectivity=8)
    return box, inner, [(labels == i, centres[i] + (x, y)) for i in range(1, n)
                        if stats[i, cv2.CC_STAT_AREA] * view.mm_per_px ** 2 >= MARK_AREA]


def _fit(fitter: PyramidFitter, level: np.ndarray, gradient: np.ndarray, scale: float, free: np.ndarray,
         centre: np.ndarray, sizes: tuple) -> list:
    """[(score, explained share, size, params, box, crop shape)] of the best lying pyramid
    explaining the dark mark at `centre` (pixels), or [] when none passes EDGE_CONTRAST and
    EXPLAINED; the edges' contrast is `gradient` over the card's median `scale`."""
    view = fitter.view
    half = int(round(WINDOW / view.mm_per_px))
    c0, r0 = int(centre[0]) - half, int(centre[1]) - half
    if c0 < 0 or r0 < 0 or c0 + 2 * half > level.shape[1] or r0 + 2 * half > level.shape[0]:
        return []
    box, crop = (c0, r0), (slice(r0, r0 + 2 * half), slice(c0, c0 + 2 * half))
    valid = free[crop]
    if np.count_nonzero(valid) < 2:
        return []
    edges_contrast = np.where(valid, gradient[crop] / scale, 0.0)
    shading = Shading(level[crop], valid)
    regions = np.zeros(valid.shape, np.uint8)

    def explained(size, params):
        pts = fitter.in_crop("lying", size, params, box)
        regions[:] = 0
        for k, face in enumerate(FACES):
            cv2.fillConvexPoly(regions, pts[list(face)], k + 1, cv2.LINE_8, SUB)
        return shading.explained(regions)

    def edged(size, params):
        lines = fitter.edges("lying", size, params, box, valid.shape) > 0
        return float(edges_contrast[lines].mean()) if lines.any() else 0.0

    def score(_pose, size, params):
        return explained(size, params) + EDGE_SHARE * edged(size, params)

    tx, ty = view.to_table(np.array([centre[0]]), np.array([centre[1]]))
    tried = []
    for size in sizes:
        back = fitter.dims.looney_lying_length[size] * 2 / 3      # the middle, from the tip
        for heading in np.arange(0.0, 360.0, GRID[1]):
            u = np.array([math.cos(math.radians(heading)), math.sin(math.radians(heading))])
            for dx in np.arange(-REACH, REACH + 1e-6, GRID[0]):
                for dy in np.arange(-REACH, REACH + 1e-6, GRID[0]):
                    params = (tx[0] + dx + u[0] * back, ty[0] + dy + u[1] * back, heading)
                    tried.append((score("lying", size, params), "lying", size, params))
    tried.sort(key=lambda t: -t[0])
    best, _, size, params = max((refine(score, *t) for t in tried[:3]), key=lambda t: t[0])
    share = explained(size, params)
    if edged(size, params) < EDGE_CONTRAST or share < EXPLAINED:
        return []
    return [(best, share, size, params, box, valid.shape)]


def _kept(fitter: PyramidFitter, fits: list, taken: np.ndarray) -> list[Found]:
    """The fits as found white pieces, best first, each dropped when OVERLAP of it lies on a
    piece found or on a fit kept before (a piece's dark side may show as two marks)."""
    covered = (taken > 0).astype(np.uint8)
    found = []
    for best, share, size, params, box, shape in sorted(fits, key=lambda f: -f[0]):
        mask = silhouette_mask(fitter, np.zeros(shape, np.uint8), box, "lying", size, params)
        under = covered[box[1]:box[1] + shape[0], box[0]:box[0] + shape[1]]
        if np.count_nonzero(mask & under) > OVERLAP * np.count_nonzero(mask):
            continue
        under |= mask
        fields = {**piece_fields("lying", size, params), "color": "white",
                  "confidence": round(float(np.clip(best / 2, 0.05, 0.8)), 2)}
        found.append(Found(fields, mask, box, share))
    return found
