"""Ice Pirates home cards (postcards) in a top view: find them, then flatten them into the cloth.

A card is a large, flat, near-rectangular region of a postcard's size that differs from the
cloth (plain card stock is lighter than a play cloth, and smooth). It is found on a ratio to a
median wider than a card (so the median is the cloth's), with textured parts (pale plastic) left
out, pieces on it filled in and pieces touching it opened away; each edge is then placed where
the brightness steps along profiles across it (the median over the profiles, so pieces and
shadows crossing part of an edge do not move it; a shadow darkens card and cloth alike, so in
log brightness the step stays).

Pieces on a card must be seen against the card, not the cloth: `flatten` rescales the card's
pixels by cloth / card, so the card looks like cloth to the segmentation (whose empty table is a
median) and a piece on it keeps its ratio to what is around it. Pixels on the card's rim, a
blend of card and cloth, are divided by the blend that explains them best.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import shapely

from calibration.colors import GAMMA, linear_levels
from calibration.homography import PlaneFit
from calibration.layout import Layout
from referee.dimensions import DEFAULT, Dimensions
from referee.geometry import footprint
from referee.scene import Piece
from vision import pattern
from vision.segment import arm_regions, chroma_of, fill_holes, level_of, running_out
from vision.topview import TopView, frame_points

CARD_SIZE = (148.0, 105.0)   # mm: a postcard, the expected home card
SIZE_TOLERANCE = 0.3         # each side may differ from the expected by this share
ARM_SIZE_TOLERANCE = 0.1     # ... and one side by no more than this, for a card an arm touches
CLOTH_WINDOW = 250.0         # mm: a median this wide over a card is the cloth's
ROUGH = 4.0                  # mm per pixel of the search for card regions
CONTRAST = math.log(1.05)    # level (log, gamma-encoded) over the cloth's that may be card stock
TEXTURE = 0.05               # log grey standard deviation over TEXTURE_WINDOW above which it is not
TEXTURE_WINDOW = 5.0         # mm (plain stock is smooth; clear plastic, as light, has edges and glints)
EDGE_SHIFT = 2.0             # mm: on a repeating cloth a profile sees a card's edge when moving it this far
EDGE_COST = 0.15             # ... either way costs this much log colour difference a sample
EVEN_SHARES = (0.2, 0.45)    # shares of a repeating cloth's spread over a period under which a card hides it
PALE_CHROMA = 0.2            # log chroma off the cloth's pale checks under which it may be white card stock
STOCK_CHROMA = 0.1           # log chroma off the cloth's under which it may be card stock
CORE = 31.0                  # mm: an opening this wide removes pieces, not a card
SPLIT = 45.0                 # mm: ... and this wide parts two cards a piece joins (not one card)
RECTANGULAR = 0.7            # share of its rectangle a card's region fills (pieces touching it bulge)
SUPPORT = 0.6                # share of the edges' profiles that must agree with a card
EDGE_REACH = (10.0, 3.0)     # mm searched on either side of an edge, per refinement pass
EDGE_STEP = 2.0              # mm between profiles along an edge
PROFILE_STEP = 0.25          # mm between samples across an edge
CORNER_SKIP = 8.0            # mm of each edge next to a corner left out (corners are rounded)
INLIER = 0.8                 # mm off the edge line beyond which a profile is an outlier
RIM = 2.5                    # mm either side of an edge whose pixels may be card and cloth blended
RING = 20.0                  # mm of cloth around a card whose median is the cloth it is made to look like
LIFT = 4.0                   # on a card, what is brighter than it is made this much more so
NOT_CARD = 0.25              # log off the card's median colour: a piece on it, not the card (nor a shadow)
CARD_WINDOW = 60.0           # mm: the median of the card's own pixels, its light
PATCH_INSET = 0.25           # share of a white patch's side left out at each edge (blurred into the print)
LINEAR = linear_levels()      # gamma-encoded level -> linear light
PIECE_FIELDS = ("type", "x", "y", "color", "size", "pose", "heading", "angle")


@dataclass(frozen=True)
class Card:
    """A card on the table: centre (mm), `width` >= `height` (mm), `angle` of the long side in
    degrees [0, 180); `support` is the share of its edges' profiles that agree with it."""

    x: float
    y: float
    width: float
    height: float
    angle: float
    support: float = 1.0

    def corners(self) -> np.ndarray:
        """Table corners (4, 2) in mm, in order around the card."""
        a = math.radians(self.angle)
        u = np.array([math.cos(a), math.sin(a)]) * self.width / 2
        v = np.array([-math.sin(a), math.cos(a)]) * self.height / 2
        c = np.array([self.x, self.y])
        return np.array([c - u - v, c + u - v, c + u + v, c - u + v])

    def mask(self, view: TopView, grow: float = 0.0) -> np.ndarray:
        """uint8 0/1 top-view mask of the card, grown by `grow` mm (shrunk when negative)."""
        card = Card(self.x, self.y, max(1.0, self.width + 2 * grow), max(1.0, self.height + 2 * grow),
                    self.angle)
        mask = np.zeros(view.image.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(view.to_pixels(card.corners()) * 8).astype(np.int32), 1, cv2.LINE_8, 3)
        return mask


def paper_white(frame: np.ndarray, fit: PlaneFit, layout: Layout, K: np.ndarray | None,
                dist: np.ndarray | None) -> np.ndarray | None:
    """The BGR colour of the mat's white paper under this light: the median over its white
    patches in view of the frame's pixels under each patch's middle (a grid a millimetre
    apart), or None when none is in view."""
    h, w = frame.shape[:2]
    colours = []
    for p in layout.patches:
        if not p.name.startswith("white"):
            continue
        inset = PATCH_INSET * min(p.w, p.h)
        gx, gy = np.meshgrid(np.arange(p.x + inset + 0.5, p.x + p.w - inset),
                             np.arange(p.y + inset + 0.5, p.y + p.h - inset))
        px = np.round(frame_points(np.column_stack([gx.ravel(), gy.ravel()]), fit, K, dist)).astype(int)
        if np.all((px >= 0) & (px < (w, h))):
            colours.append(np.median(frame[px[:, 1], px[:, 0]], axis=0))
    return np.median(colours, axis=0).astype(np.float32) if colours else None


def find_cards(view: TopView, ignore: np.ndarray | None = None, expected: tuple[float, float] = CARD_SIZE,
               white: np.ndarray | None = None, steps: np.ndarray | None = None) -> list[Card]:
    """The cards in a top view; `ignore` masks printed parts of the mat, `white` is the mat's
    paper colour (`paper_white`), when known, `steps` the lattice of a cloth that repeats
    (`vision.pattern.lattice`). Regions are looked for at about ROUGH mm per pixel, edges
    placed at full resolution."""
    step = max(1, int(round(ROUGH / view.mm_per_px)))
    s = view.mm_per_px * step
    small = cv2.resize(view.image, (view.image.shape[1] // step, view.image.shape[0] // step),
                       interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY)
    if steps is None:
        looks = [_stock(small, gray, view.mm_per_px, s, white)]
        plain = _steps(LINEAR[gray])     # linear light: a blurred edge is halfway up at the edge

        def edges(region):
            return plain
    else:
        logs = cv2.log(view.image.astype(np.float32) + 2.0)
        empty = _empty(logs, steps, view.mm_per_px, max(expected))
        period = float(np.linalg.norm(steps, axis=1).min()) * view.mm_per_px
        looks = _smooth(small, s, period, _pale(empty))

        def edges(region):
            inside = cv2.resize(region.astype(np.uint8), view.image.shape[1::-1], interpolation=cv2.INTER_NEAREST)
            return _between(logs, empty, np.median(logs[inside > 0], axis=0))
    printed = None if ignore is None else cv2.resize(ignore, small.shape[1::-1], interpolation=cv2.INTER_NEAREST) > 0
    cards = []
    for stock, arms in looks:
        if printed is not None:
            stock &= ~printed
        for card in _found(view, stock, arms, step, expected, edges):
            if all(math.hypot(card.x - c.x, card.y - c.y) > min(expected) / 2 for c in cards):
                cards.append(card)
    return cards


def _found(view: TopView, stock: np.ndarray, arms: np.ndarray, step: int, expected: tuple[float, float],
           edges) -> list[Card]:
    """The cards whose regions `stock` (bool, at 1 / `step` of the view's size) holds, beside
    `arms` (uint8); `edges(region)` gives the way profiles place a card's edges (`_refine`)."""
    s = view.mm_per_px * step
    k = int(CORE / s) | 1
    core = cv2.morphologyEx(fill_holes(stock.astype(np.uint8) * 255), cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # the opening pulls a card's region back from an arm it touches: reach as far to find it
    near_arm = cv2.dilate(arms, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    area = expected[0] * expected[1] / s ** 2
    cards = []
    for region in _regions(core, (1 - SIZE_TOLERANCE) ** 2 * area, (1 + SIZE_TOLERANCE) ** 2 * area,
                           int(SPLIT / s) | 1):
        rows, cols = np.nonzero(region)
        if not (1 - SIZE_TOLERANCE) ** 2 * area < len(rows) < (1 + SIZE_TOLERANCE) ** 2 * area:
            continue
        (cx, cy), (w, h), angle = cv2.minAreaRect(np.stack([cols, rows], axis=1).astype(np.float32))
        if len(rows) < RECTANGULAR * w * h:
            continue
        tx, ty = view.to_table(np.array([(cx + 0.5) * step - 0.5]), np.array([(cy + 0.5) * step - 0.5]))
        card = _upright(Card(float(tx[0]), float(ty[0]), w * s, h * s, angle))
        # a piece touching the card bulges its region: the first search reaches past the bulge
        bulge = max(card.width - expected[0], card.height - expected[1], 0.0)
        placed = edges(region)
        for reach in (EDGE_REACH[0] + bulge,) + EDGE_REACH[1:]:
            card = _refine(card, placed, view, reach)
        sides = [abs(got / want - 1) for got, want in zip((card.width, card.height), expected)]
        # beside an arm, an edge found may be the hand's: one side at least must be whole
        whole = min(sides) <= ARM_SIZE_TOLERANCE or not near_arm[region].any()
        if card.support >= SUPPORT and max(sides) <= SIZE_TOLERANCE and whole:
            cards.append(card)
    return cards


def _regions(core: np.ndarray, fewest: float, most: float, k: int):
    """Bool masks of the regions of `core` (uint8) that may each be a card: none of `fewest`
    pixels or fewer. One of `most` or more may be cards touching, or joined by a piece between
    them: it is opened again with a `k`-pixel ellipse (`SPLIT` mm), and its parts are the
    regions."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    for index in np.nonzero(stats[1:, cv2.CC_STAT_AREA] > fewest)[0] + 1:
        region = labels == index
        if stats[index, cv2.CC_STAT_AREA] < most:
            yield region
            continue
        parts = cv2.morphologyEx(region.astype(np.uint8), cv2.MORPH_OPEN,
                                 cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        m, split = cv2.connectedComponents(parts, connectivity=8)
        yield from (split == j for j in range(1, m))


def _stock(small: np.ndarray, gray: np.ndarray, mm_per_px: float, s: float,
           white: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bool masks, at the search scale (`small`, `s` mm per pixel), of what may be plain card
    stock and of arms. Stock is brighter than the cloth and of its tint or of the mat's paper
    (`white`): a white card on a tinted cloth has the cloth's tint the other way round, and
    the paper's light-tint only. A pale sleeve may look like stock, but it runs out of the
    view; stock that does not is no arm, even where a hand touches it."""
    cloth = cv2.medianBlur(small, min(int(CLOTH_WINDOW / s) | 1, 255))
    logs = cv2.log(small.astype(np.float32) + 2.0)
    ratio = logs - cv2.log(cloth.astype(np.float32) + 2.0)
    level = level_of(ratio)
    plain = chroma_of(ratio, level) < STOCK_CHROMA
    paper_tint = np.zeros_like(plain)
    if white is not None:
        paper = logs - np.log(white + 2.0).astype(np.float32)
        paper_tint = chroma_of(paper, level_of(paper)) < STOCK_CHROMA
    stock = (level > CONTRAST) & (plain | paper_tint) & (_textured(gray, mm_per_px, small.shape[1::-1]) == 0)
    # stock of the paper's tint is judged apart: a pale grain of wood (stock of the cloth's own
    # tint) may join a card to the view's edge
    arms = arm_regions(logs, s, _no_arm(stock) | _no_arm(stock & paper_tint))
    stock &= arms == 0
    return stock, arms


def _no_arm(stock: np.ndarray) -> np.ndarray:
    """The regions of `stock` that do not run out of the view: no arm, whatever their colour."""
    return stock & ~running_out(stock)


def _pale(empty: np.ndarray) -> np.ndarray:
    """The log colour of the empty cloth's paler checks (`empty`: its lattice's table): the
    median of its pixels brighter than its median."""
    grey = cv2.cvtColor(empty, cv2.COLOR_BGR2GRAY)
    return np.median(empty[grey > np.median(grey)], axis=0).astype(np.float32)


def _smooth(small: np.ndarray, s: float, period: float, pale: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """`_stock` on a cloth whose pattern repeats every `period` mm (a gingham), whose pale checks
    look like card stock, once for each evenness bound of EVEN_SHARES (a card in an arm's
    shadow is less even): stock is where a card hides the pattern (`vision.pattern.even`) and
    the colour is that of the cloth's pale checks (`pale`, log colour: white card stock under
    the same light). An even region of another colour, or of stock, running out of the view is
    an arm."""
    logs = cv2.log(small.astype(np.float32) + 2.0)
    grey = cv2.cvtColor(logs, cv2.COLOR_BGR2GRAY)
    k = int(period / s)
    ratio = logs - pale
    paper = chroma_of(ratio, level_of(ratio)) < PALE_CHROMA
    looks = []
    for share in EVEN_SHARES:
        even = pattern.even(grey, k, share)
        stock, other = pattern.grown(even & paper, k), pattern.grown(even & ~paper, k)
        arms = running_out(stock) | running_out(other)
        looks.append((stock & ~arms, arms.astype(np.uint8) * 255))
    return looks


def _textured(gray: np.ndarray, mm_per_px: float, size: tuple[int, int]) -> np.ndarray:
    """uint8 0/1 mask, at `size`, of where the top view (`gray`, uint8) is textured like a
    piece, not card stock: pale pieces touching a card would otherwise widen its region. A
    card's own edge, a thin line at this scale, is opened away."""
    grey = cv2.log(gray.astype(np.float32) + 2.0)
    k = max(3, int(TEXTURE_WINDOW / mm_per_px) | 1)
    mean, square = cv2.blur(grey, (k, k)), cv2.blur(grey * grey, (k, k))
    spread = cv2.sqrt(cv2.max(square - mean * mean, 0.0))
    rough = (cv2.resize(spread, size, interpolation=cv2.INTER_AREA) > TEXTURE).astype(np.uint8)
    return cv2.morphologyEx(rough, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _empty(logs: np.ndarray, steps: np.ndarray, mm_per_px: float, longest: float) -> np.ndarray:
    """The empty repeating cloth (`vision.pattern.table`, log colour) with its lattice points
    further apart than `longest` mm, so that no two lie on the same card: a card's edge shows
    against it where the card covers checks of the other colour, and the checks' own edges do not."""
    far = np.array([v * math.ceil(longest / (np.linalg.norm(v) * mm_per_px)) for v in steps])
    return pattern.table(logs, far, mm_per_px)


def _upright(card: Card) -> Card:
    """The same card with width the long side and angle in [0, 180)."""
    if card.height > card.width:
        card = Card(card.x, card.y, card.height, card.width, card.angle + 90.0, card.support)
    return Card(card.x, card.y, card.width, card.height, card.angle % 180.0, card.support)


def _refine(card: Card, edges, view: TopView, reach: float) -> Card:
    """Move each edge to where profiles across it place it (`edges`: `_steps` or `_between`),
    and turn the card by the edges' common slope; each edge's profiles vote by their median,
    those that see the edge only."""
    a = math.radians(card.angle)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-u[1], u[0]])
    centre = np.array([card.x, card.y])
    half = (card.width / 2, card.height / 2)
    size = [card.width, card.height]
    moved, slopes, agree = centre.copy(), [], []
    for normal, axis in ((u, 0), (-u, 0), (v, 1), (-v, 1)):
        tangent = np.array([normal[1], -normal[0]])     # a turn by +t moves a point at s by t*s outward
        s = np.arange(-half[1 - axis] + CORNER_SKIP, half[1 - axis] - CORNER_SKIP + 1e-6, EDGE_STEP)
        if not len(s):          # an edge no longer than its two corners: nothing to measure
            continue
        d = np.arange(-reach, reach + 1e-6, PROFILE_STEP)
        pts = centre + half[axis] * normal + s[:, None, None] * tangent + d[None, :, None] * normal
        px = view.to_pixels(pts.reshape(-1, 2)).astype(np.float32).reshape(len(s), len(d), 2)
        offset, seen = edges(np.ascontiguousarray(px[..., 0]), np.ascontiguousarray(px[..., 1]))
        fit = _line(s[seen], offset[seen] * PROFILE_STEP - reach + PROFILE_STEP / 2)
        if fit is None:
            continue
        shift, slope, share = fit
        moved += normal * shift / 2
        size[axis] += shift
        slopes.append(slope)
        agree.append(share)
    if not slopes:
        return card
    turn = math.degrees(math.atan(float(np.median(slopes))))
    return _upright(Card(float(moved[0]), float(moved[1]), size[0], size[1], card.angle + turn,
                         float(np.mean(agree)) * len(agree) / 4))


def _steps(grey: np.ndarray):
    """Edges on a plain cloth: each profile (rows of pixel coordinates `mx`, `my`, from inside
    the card outward) places the edge where `grey` steps most, the card's way (sub-sample
    index between samples); every profile sees it."""
    def edges(mx: np.ndarray, my: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        prof = cv2.remap(grey, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        step = np.diff(prof, axis=1) * np.sign(prof[:, :3].mean() - prof[:, -3:].mean())
        return _peaks(-step), np.ones(len(prof), bool)
    return edges


def _between(logs: np.ndarray, empty: np.ndarray, colour: np.ndarray):
    """Edges on a repeating cloth (`empty`: its pattern, log colour) of a card of log `colour`:
    each profile places the edge where the card's colour inside and the pattern outside
    explain it best. A profile sees the edge when moving it EDGE_SHIFT either way costs
    EDGE_COST a sample or more: beside a check of the card's shade, or over one under the card,
    the edge could lie anywhere."""
    def edges(mx: np.ndarray, my: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sampled = cv2.remap(logs, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        cloth = cv2.remap(empty, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        inside = np.abs(sampled - colour).mean(axis=2)
        outside = np.abs(sampled - cloth).mean(axis=2)
        # cost of the edge after sample k: card up to k, cloth beyond
        cost = np.cumsum(inside, axis=1) + outside[:, ::-1].cumsum(axis=1)[:, ::-1] - outside
        k = np.argmin(cost, axis=1)
        n = int(round(EDGE_SHIFT / PROFILE_STEP))
        rows = np.arange(len(cost))
        rise = np.minimum(cost[rows, np.maximum(k - n, 0)], cost[rows, np.minimum(k + n, cost.shape[1] - 1)])
        return k.astype(np.float64), rise - cost[rows, k] >= EDGE_COST * n
    return edges


def _peaks(step: np.ndarray) -> np.ndarray:
    """Per row, the sub-sample position of the largest value (parabolic interpolation)."""
    i = np.clip(np.argmax(step, axis=1), 1, step.shape[1] - 2)
    rows = np.arange(len(step))
    a, b, c = step[rows, i - 1], step[rows, i], step[rows, i + 1]
    denom = a - 2 * b + c
    return i + np.where(np.abs(denom) > 1e-9, 0.5 * (a - c) / np.where(denom == 0, 1, denom), 0.0)


def _line(s: np.ndarray, offset: np.ndarray):
    """(offset at s = 0, slope, share of profiles on it) of a line through the profiles' edge
    positions, outliers (a piece or shadow on the edge) left out; None when too few agree."""
    if not len(s):
        return None
    keep = np.abs(offset - np.median(offset)) < 2 * INLIER
    for _ in range(2):
        if keep.sum() < max(4, len(s) // 3):
            return None
        slope, intercept = np.polyfit(s[keep], offset[keep], 1)
        keep = np.abs(offset - (intercept + slope * s)) < INLIER
    return float(intercept), float(slope), float(keep.mean())


def flatten(view: TopView, cards: list[Card]) -> np.ndarray:
    """The top view (uint8 BGR) with each card rescaled by cloth / card, so that it looks like
    the cloth around it (the median of a ring outside it) and what lies on it keeps its
    contrast with the card (what is brighter than the card, LIFT times more); rim pixels (a
    blend of card and cloth, in linear light) are divided by the blend nearest to them."""
    out = view.image.astype(np.float32)
    for card in cards:
        outer, inner = card.mask(view, RIM), card.mask(view, -RIM)
        x, y, w, h = cv2.boundingRect(card.mask(view, RIM + RING))
        box = (slice(y, y + h), slice(x, x + w))
        crop, ring = out[box], outer[box] == 0
        under = np.median(view.image[box][ring], axis=0).astype(np.float32)
        stock = _card_light(view.image[box], inner[box], view.mm_per_px)
        ratio = (crop + 2.0) / (stock + 2.0)
        flat = (under + 2.0) * np.where(ratio > 1, ratio ** LIFT, ratio) - 2.0
        rows, cols = np.nonzero(outer[box] > inner[box])
        lin = LINEAR[view.image[box][rows, cols]]
        a, b = ((np.maximum(c, 0) / 255.0) ** GAMMA for c in (under, stock[rows, cols]))
        t = np.clip(((lin - a) * (b - a)).sum(axis=1) / np.maximum(((b - a) ** 2).sum(axis=1), 1e-9), 0, 1)
        flat[rows, cols] = 255.0 * (a * lin / np.maximum(a + t[:, None] * (b - a), 1e-6)) ** (1 / GAMMA)
        out[box] = np.where(outer[box][..., None] > 0, flat, crop)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _card_light(crop: np.ndarray, inner: np.ndarray, mm_per_px: float) -> np.ndarray:
    """The bare card under its pieces (float32 BGR): a median of the card's own pixels, narrow
    enough to follow an arm's soft shadow; the card's outside and pixels far from its colour (a
    dark or coloured piece, which near a corner would outweigh the card) are filled in first."""
    step = max(1, int(round(ROUGH / mm_per_px)))
    size = (max(1, crop.shape[1] // step), max(1, crop.shape[0] // step))
    small = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    inside = cv2.resize(inner, size, interpolation=cv2.INTER_NEAREST) > 0
    logs = np.log(small.astype(np.float32) + 2.0)
    odd = np.abs(logs - np.median(logs[inside], axis=0)).max(axis=2) > NOT_CARD   # a dark or coloured piece
    unknown = (~inside | odd).astype(np.uint8)
    own = cv2.inpaint(small, cv2.dilate(unknown, np.ones((3, 3), np.uint8)), 2, cv2.INPAINT_TELEA)
    k = min(int(CARD_WINDOW / (mm_per_px * step)) | 1, 255)
    return cv2.resize(cv2.medianBlur(own, k), (crop.shape[1], crop.shape[0]),
                      interpolation=cv2.INTER_LINEAR).astype(np.float32)


def on_cards(labels: np.ndarray, n: int, colours: np.ndarray, cards: list[Card], view: TopView, min_px: float,
             width_px: int) -> tuple[np.ndarray, np.ndarray]:
    """(labels, deck): `labels` (of blobs 1..n-1) with each blob that holds a piece's worth of
    pixels (`min_px`) on a card and off it, of different colours (`colours`, an index per
    pixel, the commonest on each side), and no piece's worth of the card side's colour off
    the card, cut: its pixels of that colour on the card under a new label (a treasure on a
    home touching a ship beside it, which may reach onto the card); and per label whether most
    of its blob lies on a card. Pixels count only where an opening `width_px` wide leaves them:
    the blurred rim of a piece beside the card is no piece on it."""
    inside = np.zeros(labels.shape, bool)
    for card in cards:
        inside |= card.mask(view) > 0
    total = np.bincount(labels.ravel(), minlength=n)
    on = np.bincount(labels[inside], minlength=n)
    deck = list(on > 0.5 * np.maximum(total, 1))
    out = labels.copy()
    kernel = np.ones((width_px, width_px), np.uint8)

    def opened(mask):
        return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, kernel) > 0

    for label in np.nonzero((on >= min_px) & (total - on >= min_px))[0]:
        blob = labels == label
        sides = [opened(blob & side) for side in (inside, ~inside)]
        if not label or any(np.count_nonzero(side) < min_px for side in sides):
            continue
        own, other = (_commonest(colours[side]) for side in sides)
        if own != other and np.count_nonzero(opened(blob & ~inside & (colours == own))) < min_px:
            out[blob & inside & (colours == own)] = len(deck)
            deck[label] = False
            deck.append(True)
    return out, np.array(deck)


def _commonest(values: np.ndarray) -> int:
    """The most frequent non-negative value (-1 when there is none)."""
    values = values[values >= 0]
    return int(np.bincount(values).argmax()) if len(values) else -1


def card_under(cards: list[Card], x: float, y: float) -> int | None:
    """The index of the card the table point (x, y) mm lies on, or None."""
    point = shapely.Point(x, y)
    return next((k for k, card in enumerate(cards) if shapely.Polygon(card.corners()).contains(point)), None)


def owners(cards: list[Card], pieces: list[dict], islands: tuple, colours: tuple,
           dims: Dimensions = DEFAULT) -> list[tuple[str, bool]]:
    """(owner, guessed) per card. The camera cannot read a plain card's owner: a player's ships
    are placed touching their home and their cargo is stored on it, so each card goes to the
    colour with the most pyramids on it or within docking reach of it (an upright small's
    width), one card per colour, most votes first (ties: the nearer piece). A card no piece
    votes for is `guessed`: the nearest colour still without a card, else the first of
    `colours` without one."""
    outlines = [shapely.Polygon(card.corners()) for card in cards]
    votes: dict = {}
    for fields in pieces:
        colour = fields.get("color")
        if fields.get("type") != "pyramid" or colour in islands:
            continue
        shape = footprint(Piece(id="", **{k: v for k, v in fields.items() if k in PIECE_FIELDS}), dims)
        for k, outline in enumerate(outlines):
            gap = outline.distance(shape)
            count, nearest = votes.get((k, colour), (0, math.inf))
            votes[k, colour] = (count + (gap <= dims.looney_base[1]), min(nearest, gap))
    result: dict[int, tuple[str, bool]] = {}
    for (k, colour), (count, nearest) in sorted(votes.items(), key=lambda kv: (-kv[1][0], kv[1][1])):
        if k not in result and colour not in {c for c, _ in result.values()}:
            result[k] = (colour, count == 0)
    spare = [c for c in colours if c not in islands and c not in {c for c, _ in result.values()}]
    return [result.get(k) or (spare.pop(0) if spare else colours[0], True) for k in range(len(cards))]
