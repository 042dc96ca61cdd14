"""White pyramids on a light home card that barely differ from its stock.

A white pyramid on white card stock may show no face much brighter than the card: its lit
faces are within a few per cent of it, under the card's grain even after `cards.flatten`'s lift,
and no blob is found. What shows is its dark side, a face turned from the light and its
shadow, far darker than the card's grain (within 2 %), and the lines its edges draw. Such a dark
mark on a card, away from every piece found and from the card's rim (a piece beside the card
casts its shadow across the rim), is explained by a pyramid, lying or standing: each hypothesis
splits the card around the mark into its four faces and the rest, and is scored by the share of
the level's variance those regions explain (`Shading`: each face is evenly lit) plus how strong
the level's gradient is along the lines its edges cast (`PyramidFitter.edges`), over the card's
median.

The same score gives a second look at a white piece a blob showed standing on a card
(`lying_instead`): a lying piece's lit faces alone may look like a standing one's, and its dark
faces and shadow tell the two apart.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from referee.dimensions import Dimensions
from vision.cards import Card
from vision.pyramids import (FACES as PYRAMID_FACES, SUB, Found, PyramidFitter, pasted, piece_fields, refine,
                             silhouette_mask)
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
GRID = (4.0, 15.0)     # mm, degrees between the first hypotheses tried; the best REFINED are refined
REFINED = 5            # (with 3, a few pixels more or less near the mark could miss the best)
FACES = {"lying": PYRAMID_FACES["lying"][-1:] + PYRAMID_FACES["lying"][:-1],   # base face first,
         "standing": PYRAMID_FACES["standing"]}                               # under the others
TURNS = {"lying": 360.0, "standing": 90.0}   # degrees of heading (yaw) that differ
EDGE_SHARE = 0.1       # weight of the edge term (mean gradient over the card's median)
EDGE_CONTRAST = 2.5    # ... which a piece's edges must reach
EXPLAINED = 0.15       # share of the level's variance a piece's faces must explain
OVERLAP = 0.1          # share of its silhouette over a piece found (or fitted) that drops a fit


def faint_on_cards(view: TopView, features: np.ndarray, cards: list[Card], taken: np.ndarray,
                   dims: Dimensions, sizes: tuple) -> list[Found]:
    """White pyramids of `sizes` (of `dims`) on `cards` that no blob showed; `features` are the
    log ratios of the (flattened) top view to the table, `taken` (uint8) the pixels of pieces
    found and of hands."""
    level = level_of(features)
    dark = cv2.blur(level, (3, 3)) < -SHADE
    marked = [(card, *found) for card in cards for found in [_marks(view, card, dark)] if found[2]]
    if not marked:          # what follows is worked out over the whole view
        return []
    table = CardShading(view, level, taken, dims)
    near, fits = table.near_to([]), []
    for card, box, inner, marks in marked:
        rim = (card.mask(view, -RIM[0]) > 0) & ~(card.mask(view, -RIM[1]) > 0)
        free = np.zeros_like(near)
        free[box] = inner & ~near[box]
        scale = table.scale(free)
        for mark, centre in marks:
            window = None if (mark & (near[box] | rim[box])).any() else table.window(free, scale, centre)
            fits += [] if window is None else _kept_fit(window, window.best(sizes, tuple(FACES)))
    return _kept(table.fitter, fits, taken)


def lying_instead(view: TopView, features: np.ndarray, cards: list[Card], cargo: list[Found],
                  taken: np.ndarray, dims: Dimensions, sizes: tuple) -> list[Found]:
    """`cargo` with each white piece of `sizes` a blob showed standing on a card read lying
    instead when a lying piece explains the card around it better; `taken` are the pixels of
    the other pieces found (not `cargo`) and of hands. A lying piece's lit faces alone may look
    like a standing one's. Not the other way round: a blob read lying shows the piece's length,
    and asked there this score was wrong more often than the blob."""
    table, inner, out = None, None, []
    for item in cargo:
        f = item.fields
        if f.get("color") != "white" or f["pose"] != "standing" or f["size"] not in sizes:
            out.append(item)
            continue
        if table is None:
            table = CardShading(view, level_of(features), taken, dims)
            inner = np.any([card.mask(view, -INSET) > 0 for card in cards], axis=0)
        out.append(_laid(table, inner & ~table.near_to([o for o in cargo if o is not item]), item, sizes))
    return out


def _laid(table: CardShading, free: np.ndarray, item: Found, sizes: tuple) -> Found:
    """`item` (standing), or the lying piece that explains the `free` pixels around it better."""
    f = item.fields
    window = table.window(free, table.scale(free), table.view.to_pixels(np.array([[f["x"], f["y"]]]))[0])
    if window is None:
        return item
    best, pose, size, params = window.best(sizes, ("lying",))
    if best <= window.best_turned("standing", f["size"], (f["x"], f["y"])):
        return item
    mask = silhouette_mask(table.fitter, np.zeros(window.shape, np.uint8), window.box, pose, size, params)
    fields = {**piece_fields(pose, size, params), "color": "white", "confidence": f.get("confidence", 0.5)}
    return Found(fields, mask, window.box, window.explained(pose, size, params))


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


class CardShading:
    """The level of a top view with cards, its gradient, and the pixels near pieces found."""

    def __init__(self, view: TopView, level: np.ndarray, taken: np.ndarray, dims: Dimensions):
        self.view, self.level = view, level
        self.side = int(2 * CLEAR_OF / view.mm_per_px) | 1
        self.taken = taken
        smooth = cv2.GaussianBlur(level, (0, 0), 0.8)
        self.gradient = cv2.magnitude(cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1))
        self.fitter = PyramidFitter(view, dims)

    def near_to(self, found: list[Found]) -> np.ndarray:
        """The pixels within CLEAR_OF of the `taken` ones or of the pieces `found`."""
        return cv2.dilate(pasted(self.taken, found, 255), np.ones((self.side, self.side), np.uint8)) > 0

    def scale(self, free: np.ndarray) -> float:
        """The median gradient over the `free` pixels of a card (0 when none)."""
        return float(np.median(self.gradient[free])) if free.any() else 0.0

    def window(self, free: np.ndarray, scale: float, centre: np.ndarray):
        """The `Window` of the `free` pixels around `centre` (view pixels), whose gradient is
        judged against `scale`; None when it does not fit in the view, holds no free pixels or
        the scale is 0."""
        half = int(round(WINDOW / self.view.mm_per_px))
        c0, r0 = int(centre[0]) - half, int(centre[1]) - half
        if c0 < 0 or r0 < 0 or c0 + 2 * half > self.level.shape[1] or r0 + 2 * half > self.level.shape[0]:
            return None
        crop = (slice(r0, r0 + 2 * half), slice(c0, c0 + 2 * half))
        if np.count_nonzero(free[crop]) < 2 or scale <= 0:
            return None
        return Window(self, (c0, r0), free[crop], scale, centre)


class Window:
    """A square of a card around a mark, and the score of pyramid hypotheses over it."""

    def __init__(self, table: CardShading, box: tuple, valid: np.ndarray, scale: float, centre: np.ndarray):
        self.fitter, self.box, self.shape = table.fitter, box, valid.shape
        crop = (slice(box[1], box[1] + valid.shape[0]), slice(box[0], box[0] + valid.shape[1]))
        self.contrast = np.where(valid, table.gradient[crop] / scale, 0.0)
        self.shading = Shading(table.level[crop], valid)
        self.regions = np.zeros(valid.shape, np.uint8)
        tx, ty = table.view.to_table(np.array([centre[0]]), np.array([centre[1]]))
        self.centre = (float(tx[0]), float(ty[0]))

    def explained(self, pose: str, size: int, params: tuple) -> float:
        """The share of the level's variance the hypothesis' faces explain."""
        pts = self.fitter.in_crop(pose, size, params, self.box)
        self.regions[:] = 0
        for k, face in enumerate(FACES[pose]):
            cv2.fillConvexPoly(self.regions, pts[list(face)], k + 1, cv2.LINE_8, SUB)
        return self.shading.explained(self.regions)

    def edged(self, pose: str, size: int, params: tuple) -> float:
        """The mean contrast of the level's gradient along the hypothesis' edges."""
        lines = self.fitter.edges(pose, size, params, self.box, self.shape) > 0
        return float(self.contrast[lines].mean()) if lines.any() else 0.0

    def score(self, pose: str, size: int, params: tuple) -> float:
        """`explained` plus EDGE_SHARE of `edged`."""
        return self.explained(pose, size, params) + EDGE_SHARE * self.edged(pose, size, params)

    def best(self, sizes: tuple, poses: tuple) -> tuple:
        """(score, pose, size, params) of the best hypothesis whose middle lies within REACH of
        the window's centre: a grid (`GRID`), the best few of each pose refined (a pose whose
        grid points fall less well would otherwise never be refined)."""
        return max((self._best_of(sizes, pose) for pose in poses), key=lambda t: t[0])

    def _best_of(self, sizes: tuple, pose: str) -> tuple:
        """`best` of one pose."""
        tried = []
        for size in sizes:
            for turn in np.arange(0.0, TURNS[pose], GRID[1]):
                offset = self._middle(pose, size, turn)
                for dx in np.arange(-REACH, REACH + 1e-6, GRID[0]):
                    for dy in np.arange(-REACH, REACH + 1e-6, GRID[0]):
                        params = (self.centre[0] + dx + offset[0], self.centre[1] + dy + offset[1], turn)
                        tried.append((self.score(pose, size, params), pose, size, params))
        tried.sort(key=lambda t: -t[0])
        return max((refine(self.score, *t) for t in tried[:REFINED]), key=lambda t: t[0])

    def best_turned(self, pose: str, size: int, at: tuple) -> float:
        """The best score of a piece at `at`, over its headings (yaws), refined."""
        start = max((self.score(pose, size, (*at, turn)), pose, size, (*at, turn))
                    for turn in np.arange(0.0, TURNS[pose], GRID[1] / 2))
        return refine(self.score, *start)[0]

    def _middle(self, pose: str, size: int, turn: float) -> tuple:
        """Where a hypothesis' position lies from its middle: a lying piece's tip is 2/3 of its
        length ahead of it."""
        if pose != "lying":
            return 0.0, 0.0
        back = self.fitter.dims.looney_lying_length[size] * 2 / 3
        return back * math.cos(math.radians(turn)), back * math.sin(math.radians(turn))


def _kept_fit(window: Window, best: tuple) -> list:
    """[(score, explained share, pose, size, params, box, crop shape)] of a search's best, or []
    when it does not pass EDGE_CONTRAST and EXPLAINED."""
    score, pose, size, params = best
    share = window.explained(pose, size, params)
    if window.edged(pose, size, params) < EDGE_CONTRAST or share < EXPLAINED:
        return []
    return [(score, share, pose, size, params, window.box, window.shape)]


def _kept(fitter: PyramidFitter, fits: list, taken: np.ndarray) -> list[Found]:
    """The fits as found white pieces, best first, each dropped when OVERLAP of it lies on a
    piece found or on a fit kept before (a piece's dark side may show as two marks)."""
    covered = (taken > 0).astype(np.uint8)
    found = []
    for best, share, pose, size, params, box, shape in sorted(fits, key=lambda f: -f[0]):
        mask = silhouette_mask(fitter, np.zeros(shape, np.uint8), box, pose, size, params)
        under = covered[box[1]:box[1] + shape[0], box[0]:box[0] + shape[1]]
        if np.count_nonzero(mask & under) > OVERLAP * np.count_nonzero(mask):
            continue
        under |= mask
        fields = {**piece_fields(pose, size, params), "color": "white",
                  "confidence": round(float(np.clip(best / 2, 0.05, 0.8)), 2)}
        found.append(Found(fields, mask, box, share))
    return found
