"""Enrolment: learn the user's piecepack from photos of it laid out in a known arrangement.

The arrangement lies inside the four corner cards of `icetable mat --kind cards` placed around
a 400 x 400 mm area (`AREA`), and is photographed three times:

- `faces`: the 24 tiles face up in four rows (suns, moons, crowns, arms) of six columns (null,
  ace, 2..5), upright; the 24 coins value side up in the same order, below them; the four dice
  (a row, in suit order) showing null, ace, 2 and 3.
- `backs`: the tiles face down, the coins suit side up, the dice showing 4, 5, null and ace.
- `pyramids` (optional): the piecepack pyramids standing in four rows (suits) of six (A..F),
  each row's pawn at its right end.

From them it learns a `vision.piecepack.profile.Profile`: the colour of the cloth, the tile
stock, the coin wood and each suit (ink, pyramids, dice) in the light-normalised space, and the
templates of every tile face and back, coin side and die face. `arrangement(kind)` is the
scene of each photo (also used to render the default profile's photos).

Each photo is checked against its arrangement before anything is learned from it: every
piece's outline must show as a step where the arrangement puts it (`check_places`), and the
faces photo's tiles must differ among themselves far more than the backs photo's (`variety`).
"""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from calibration.colors import ColorProfile
from calibration.homography import MatNotFound, find_markers, fit_plane
from calibration.layout import cards_layout
from referee.dimensions import DEFAULT, PP_LETTERS, Dimensions
from referee.scene import Piece, Scene
from vision.piecepack import profile as pp
from vision.piecepack.detect import die_body, flatten
from vision.piecepack.shapes import Shape, outline, raster
from vision.piecepack.solids import COIN_THICKNESS, circle, square
from vision.piecepack.view import PATTERN_TRIM, PlaneView, on_plane, plane_view, sample

AREA = (400.0, 400.0)
KINDS = ("faces", "backs", "pyramids")
DICE_SHOWN = {"faces": (0, 1, 2, 3), "backs": (4, 5, 0, 1)}
TILE_N, COIN_N, DIE_N = 96, 36, 22           # template sizes in pixels
NEAR = 0.15                                  # log-ratio distance of a pixel to its stock
INK = 0.35                                   # ... beyond which it is ink
MAX_SAMPLES = 4000
SHADE = (-0.45, -0.08)                       # log ratio of cloth in a shadow (no darker: a piece)
MAX_MAT_ERROR = 5.0                          # mm: cards laid out for another area fit worse (a lens calibrated
                                             # from one view fits the right ones up to 3 mm off; check_places tells the rest)
REACH = 0.68                                 # a piece laid by hand is looked for this many sizes round its place
TILE_TOLERANCE = 0.1                         # a face's coloured area is its top when its sides are this close to
OUTLINE_REACH = (4.0, 4.0)                   # a tile's (share); else its top's outline is looked for this far
OUTLINE_STEP = (0.5, 1.0)                    # (mm, degrees) round its place in these steps, then round the
OUTLINE_FINE = (0.125, 0.25)                 # best one step either way in these
BACK_APART = 0.3                             # log ratio: backs this far from the faces' card are a colour of their own
DIE_REACH = 1.2                              # ... a die (the dice lie far apart)
STEP = 0.03              # log ratio: the least step across a piece's outline (3 %) ...
BASE = 1.5               # mm: ... from this far inside it to this far outside
LEEWAY = 4.0             # mm: how far from its place a piece's outline may lie for the check
OUTLINED = 0.6           # the share of a piece's outline that must show that step
MISSING = 1 / 8          # the share of each kind of piece that may be hidden or off its place
SIDES = 1.5              # face up the tiles differ at least this many times more than face down
BLOCKS = 4               # ... in the part of a tile's middle (of BLOCKS x BLOCKS) where they differ most
INNER = np.pad(np.ones((TILE_N - 12,) * 2, bool), 6)     # a tile's patch inside its 3 mm border
CLIPPED = 250            # a channel at this level or above is at the camera's limit
OVEREXPOSED = 0.5        # the share of the tiles' middles at that limit beyond which a photo is overexposed
PLURAL = {"tile": "tiles", "coin": "coins", "die": "dice", "pp_pyramid": "pyramids", "pawn": "pawns"}


class EnrolError(ValueError):
    """A photo that does not show the arrangement; the message names the photo."""


def layout():
    return cards_layout(*AREA)


def tile_at(suit: int, rank: int) -> tuple[float, float]:
    return 45.0 + 62.0 * rank, 45.0 + 62.0 * suit


def coin_at(suit: int, rank: int) -> tuple[float, float]:
    return 40.0 + 27.0 * rank, 290.0 + 27.0 * suit


def die_at(suit: int) -> tuple[float, float]:
    return 250.0 + 32.0 * suit, 300.0


def pyramid_at(suit: int, letter: int) -> tuple[float, float]:
    return 45.0 + 60.0 * letter, 60.0 + 80.0 * suit


def pawn_at(suit: int) -> tuple[float, float]:
    return 380.0, 60.0 + 80.0 * suit


def arrangement(kind: str) -> Scene:
    """The scene of one enrolment photo."""
    pieces = []
    if kind == "pyramids":
        for si, suit in enumerate(pp.SUITS):
            for li, letter in enumerate(PP_LETTERS):
                pieces.append(Piece(f"{suit}-{letter}", "pp_pyramid", *pyramid_at(si, li), suit=suit,
                                    size=letter, pose="standing"))
            pieces.append(Piece(f"pawn-{suit}", "pawn", *pawn_at(si), suit=suit))
        return Scene("icefloe", tuple(pieces), AREA)
    up = kind == "faces"
    for si, suit in enumerate(pp.SUITS):
        for rank in range(6):
            face = {"face": "up", "suit": suit, "rank": rank} if up else {"face": "down"}
            pieces.append(Piece(f"t-{suit}-{rank}", "tile", *tile_at(si, rank), angle=0.0, **face))
            coin = {"face": "value", "rank": rank} if up else {"face": "suit", "suit": suit}
            pieces.append(Piece(f"c-{suit}-{rank}", "coin", *coin_at(si, rank), angle=0.0, **coin))
        pieces.append(Piece(f"d-{suit}", "die", *die_at(si), suit=suit, rank=DICE_SHOWN[kind][si], angle=0.0))
    return Scene("iceberg", tuple(pieces), AREA)


class Samples:
    """Colour samples per class and template sums, pooled over photos."""

    def __init__(self):
        self.colours: dict[str, list] = {c: [] for c in pp.CLASSES + pp.TABLE}
        self.sums: dict[tuple, list] = {}
        self.rng = np.random.default_rng(0)

    def colour(self, cls: str, pixels: np.ndarray) -> None:
        pixels = pixels.reshape(-1, 3)
        if len(pixels) > MAX_SAMPLES // 8:
            pixels = pixels[self.rng.choice(len(pixels), MAX_SAMPLES // 8, replace=False)]
        self.colours[cls].append(pixels)

    def template(self, key: tuple, patch: np.ndarray) -> None:
        self.sums.setdefault(key, []).append(patch)

    def mean(self, key: tuple) -> np.ndarray:
        return np.mean(self.sums[key], axis=0).astype(np.float32)


def _view(frame: np.ndarray, K, dist, height: float, name: str) -> PlaneView:
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    try:
        fit = fit_plane(layout(), find_markers(gray), K, dist)
    except MatNotFound as exc:
        raise EnrolError(f"{name}: the corner cards are not in the photo ({exc})") from None
    if fit.rms_mm > MAX_MAT_ERROR:
        raise EnrolError(f"{name}: not an enrolment photo: the corner cards are not around the "
                         f"{AREA[0]:g} x {AREA[1]:g} mm area of the enrolment guide (markers {fit.rms_mm:.0f} mm off)")
    w, h = AREA
    return plane_view(frame, fit, K, dist, (-12.0, -12.0, w + 12.0, h + 12.0), height)


def _stock_level(patch: np.ndarray, inside: np.ndarray) -> np.ndarray:
    return np.median(patch[inside], axis=0)


def _cloth(pv: PlaneView, scene: Scene, samples: Samples, dims: Dimensions) -> None:
    """Cloth samples from everywhere outside the pieces' outlines: lit, and in the pieces'
    shadows (a class of its own, so that a dark shadow is not taken for a black piece)."""
    h, w = pv.logratio.shape[:2]
    busy = np.zeros((h, w), np.uint8)
    for p in scene.pieces:
        if p.type in ("tile", "coin"):
            size = dims.tile if p.type == "tile" else dims.coin
            c = pv.px((p.x, p.y))[0]
            r = int((size * 0.75 + 3) / pv.top.mm_per_px)
            cv2.rectangle(busy, (int(c[0]) - r, int(c[1]) - r), (int(c[0]) + r, int(c[1]) + r), 1, -1)
        else:
            busy |= raster(_outline(p, pv, dims), pv, (0, 0, w, h))
    busy = cv2.dilate(busy, np.ones((11, 11), np.uint8))
    table = pv.logratio[busy == 0]
    if pv.other_cloth is not None:      # a two-coloured cloth: its other colour is a class of its own
        other = np.abs(table - pv.other_cloth).max(axis=1) < PATTERN_TRIM
        samples.colour("pattern", table[other])
        table = table[~other]
    level = table.mean(axis=1)
    samples.colour("cloth", table[level > SHADE[1]])
    samples.colour("shade", table[(level <= SHADE[1]) & (level > SHADE[0])])


def _laid(pv: PlaneView, xy, size: float, square: bool, reach: float = REACH) -> tuple[np.ndarray, float]:
    """Where a tile or die (`square`) or a coin of `size` mm laid by hand near its place `xy`
    lies: (centre, turn in degrees, as the view's pixels turn), by `_coloured_area`; the place
    itself (turn 0) where that finds none. People lay the arrangement a few millimetres and
    degrees off the guide, and a template taken at the guide's place is the face moved and
    turned: its small numerals land off the ones they are compared with."""
    return _coloured_area(pv, xy, size, square, reach) or (np.asarray(xy, np.float64), 0.0)


def _coloured_area(pv: PlaneView, xy, size: float, square: bool, reach: float,
                   tolerance: float = 0.15) -> tuple[np.ndarray, float] | None:
    """(centre, turn) of the area within `reach` sizes of `xy` that is the colour of the piece
    at the place; None when no such area has the piece's size (a card the colour of the
    cloth, or of part of it: a gingham's white checks; a piece missing)."""
    s = pv.top.mm_per_px
    c = pv.px(xy)[0]
    r, inner = int(round(reach * size / s)), int(round(0.45 * size / s))
    x0, y0 = int(round(c[0])) - r, int(round(c[1])) - r
    h, w = pv.logratio.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + 2 * r >= w or y0 + 2 * r >= h:
        return None
    window = pv.logratio[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1]
    level = np.median(window[r - inner:r + inner, r - inner:r + inner].reshape(-1, 3), axis=0)
    if np.abs(level).max() < NEAR:          # the card is the cloth's colour: no outline to go by
        return None
    card = (np.abs(window - level).max(axis=2) < NEAR).astype(np.uint8)
    card = cv2.morphologyEx(card, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(card)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    points = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.float32)
    (cx, cy), (bw, bh), angle = cv2.minAreaRect(points)
    if not all(abs(d * s / size - 1.0) < tolerance for d in (bw, bh)):
        return None
    turn = (angle + 45.0) % 90.0 - 45.0 if square else 0.0
    return pv.mm(cx + x0, cy + y0), turn


def _edges(pv: PlaneView) -> np.ndarray:
    """The view's gradient magnitude (log ratio per pixel, the largest of the channels'),
    smoothed over 0.5 mm."""
    smooth = _smoothed(pv)
    gx, gy = cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1)
    return np.sqrt(gx ** 2 + gy ** 2).max(axis=2)


def _outline_fit(edges: np.ndarray, centre, turn: float, side: float, reach, step) -> tuple[np.ndarray, float]:
    """The square of `side` pixels, moved by up to reach[0] pixels and turned by up to
    reach[1] degrees from (centre, turn) in steps `step`, whose outline shows the strongest
    `edges` on average: (centre, turn)."""
    shifts = np.arange(-reach[0], reach[0] + 1e-6, step[0])
    dx, dy = (v.ravel() for v in np.meshgrid(shifts, shifts))
    best = (-1.0, np.asarray(centre, np.float64), turn)
    for t in turn + np.arange(-reach[1], reach[1] + 1e-6, step[1]):
        points = _across(cv2.boxPoints(((0.0, 0.0), (side, side), t)))[0]
        mx = (centre[0] + dx[:, None] + points[None, :, 0]).astype(np.float32)
        my = (centre[1] + dy[:, None] + points[None, :, 1]).astype(np.float32)
        shown = cv2.remap(edges, mx, my, cv2.INTER_LINEAR).mean(axis=1)
        k = int(np.argmax(shown))
        if shown[k] > best[0]:
            best = (float(shown[k]), np.array([centre[0] + dx[k], centre[1] + dy[k]]), float(t))
    return best[1], best[2]


def _tile_patch(pv: PlaneView, si: int, rank: int, dims: Dimensions,
                edges: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The patch of the tile laid near its place (its art upright) and each pixel's distance to
    the tile's stock. The tile is put where `_laid` finds it or, given the view's `edges`,
    where its colour shows an area of its size (`_coloured_area`, within TILE_TOLERANCE),
    else where its top's outline shows in the edges near its place: on a cloth with the
    card's colour in it (a gingham's white checks) the colour runs on beyond the tile, and a
    template taken at the guide's place was the face moved by millimetres, the cloth in its
    border."""
    s = pv.top.mm_per_px
    place = tile_at(si, rank)
    if edges is None:
        return _sampled_tile(pv, *_laid(pv, place, dims.tile, True))
    found = _coloured_area(pv, place, dims.tile, True, REACH, TILE_TOLERANCE)
    if found:
        return _sampled_tile(pv, *found)
    centre, side, turn = pv.px(place)[0], dims.tile / s, 0.0
    centre, turn = _outline_fit(edges, centre, turn, side, (OUTLINE_REACH[0] / s, OUTLINE_REACH[1]),
                                (OUTLINE_STEP[0] / s, OUTLINE_STEP[1]))
    centre, turn = _outline_fit(edges, centre, turn, side, (OUTLINE_STEP[0] / s, OUTLINE_STEP[1]),
                                (OUTLINE_FINE[0] / s, OUTLINE_FINE[1]))
    return _sampled_tile(pv, pv.mm(*centre), turn)


def _sampled_tile(pv: PlaneView, xy, turn: float) -> tuple[np.ndarray, np.ndarray]:
    patch = sample(pv.logratio, pv, xy, turn, TILE_N, pp.TILE_MM)
    return patch, np.abs(patch - _stock_level(patch, INNER)).max(axis=2)


def _tiles_and_coins(pv: PlaneView, kind: str, samples: Samples, dims: Dimensions) -> None:
    yy, xx = np.mgrid[0:COIN_N, 0:COIN_N] - (COIN_N - 1) / 2
    disc = np.hypot(xx, yy) * pp.COIN_MM < dims.coin / 2 - 1.2
    edges = _edges(pv) if kind == "faces" else None     # the backs, all alike, have no numerals to align
    for si, suit in enumerate(pp.SUITS):
        for rank in range(6):
            patch, off = _tile_patch(pv, si, rank, dims, edges)
            samples.colour("stock" if kind == "faces" else "back", patch[INNER & (off < NEAR)])
            if kind == "faces":
                samples.colour(suit, patch[INNER & (off > INK)])
            samples.template(("tiles", f"{suit}-{rank}" if kind == "faces" else "back"),
                             flatten(patch, INNER & (off < NEAR)))
            coin_xy = on_plane(np.array([coin_at(si, rank)]), pv.centre, COIN_THICKNESS, pv.height)[0]
            coin_xy, _ = _laid(pv, coin_xy, dims.coin, False)
            patch = sample(pv.logratio, pv, coin_xy, 0.0, COIN_N, pp.COIN_MM)
            level = _stock_level(patch, disc)
            off = np.abs(patch - level).max(axis=2)
            samples.colour("coin", patch[disc & (off < NEAR)])
            if kind == "backs":
                samples.colour(suit, patch[disc & (off > INK)])
            key = f"value-{rank}" if kind == "faces" else f"suit-{suit}"
            samples.template(("coins", key), np.where(disc[..., None], patch - level, 0.0))


def _dice(pv: PlaneView, kind: str, samples: Samples, dims: Dimensions) -> None:
    for si, suit in enumerate(pp.SUITS):
        top = on_plane(np.array([die_at(si)]), pv.centre, dims.die, pv.height)[0]
        patch = sample(pv.logratio, pv, *_laid(pv, top, dims.die, True, DIE_REACH), DIE_N, pp.DIE_MM)
        body = die_body(patch)
        glyph = np.abs(patch - body).max(axis=2) > INK
        samples.colour(suit, patch[~glyph])
        if glyph.any():
            ink = np.median(patch[glyph], axis=0)
            d = ink - body
            soft = np.clip((patch - body) @ d / float(d @ d), 0.0, 1.0)   # how much glyph, 0..1
            samples.template(("glyph", DICE_SHOWN[kind][si]), soft.astype(np.float32))
            samples.template(("ink", suit), ink - body)
        else:
            samples.template(("glyph", DICE_SHOWN[kind][si]), np.zeros(glyph.shape, np.float32))


def _pyramids(pv: PlaneView, samples: Samples, dims: Dimensions) -> None:
    """Suit colours from the pyramids' and pawns' shaded sides."""
    s = pv.top.mm_per_px
    h, w = pv.logratio.shape[:2]
    for si, suit in enumerate(pp.SUITS):
        standing = [(Shape("pp_pyramid", letter), pyramid_at(si, li)) for li, letter in enumerate(PP_LETTERS)]
        for shape, (x, y) in standing + [(Shape("pawn"), pawn_at(si))]:
            mask = raster(outline(shape, x, y, 0.0, 0.0, pv, dims), pv, (0, 0, w, h))
            mask = cv2.erode(mask, np.ones((max(3, int(2.0 / s)) | 1,) * 2, np.uint8))
            samples.colour(suit, pv.logratio[mask > 0])


# --- the check: each photo shows its arrangement ----------------------------------------------
def photo_view(frame: np.ndarray, K, dist, kind: str, name: str, dims: Dimensions = DEFAULT) -> PlaneView:
    """A photo's view on the plane its arrangement is learned on: the tiles' tops, or the table
    for the pyramids."""
    return _view(frame, K, dist, 0.0 if kind == "pyramids" else dims.tile_thickness, name)


def _checked_view(frame: np.ndarray, K, dist, kind: str, name: str, dims: Dimensions) -> PlaneView:
    """`photo_view`, once `check_places` passes."""
    pv = photo_view(frame, K, dist, kind, name, dims)
    check_places(pv, kind, name, dims)
    return pv


def _outline(p: Piece, pv: PlaneView, dims: Dimensions) -> np.ndarray:
    """A piece's outline (N, 2) in mm on the view's plane: a tile's or coin's top, a standing
    piece's silhouette."""
    if p.type == "tile":
        return on_plane(square(p.x, p.y, dims.tile), pv.centre, dims.tile_thickness, pv.height)
    if p.type == "coin":
        return on_plane(circle(p.x, p.y, dims.coin), pv.centre, COIN_THICKNESS, pv.height)
    shape = Shape(p.type, p.size if p.type == "pp_pyramid" else None)
    return outline(shape, p.x, p.y, p.angle or 0.0, 0.0, pv, dims)


def _smoothed(pv: PlaneView) -> np.ndarray:
    """The view's log ratio smoothed over 0.5 mm (its noise, not its edges)."""
    return cv2.GaussianBlur(pv.logratio, (0, 0), 0.5 / pv.top.mm_per_px)


def _across(poly: np.ndarray, step: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Points every `step` mm or so along a closed outline, and the unit normal at each."""
    points, normals = [], []
    for a, b in zip(poly, np.roll(poly, -1, axis=0)):
        length = float(np.hypot(*(b - a)))
        n = max(1, int(length / step))
        points.append(a + (b - a) * (np.arange(n) / n)[:, None])
        normals.append(np.repeat([[b[1] - a[1], a[0] - b[0]]], n, axis=0) / length)
    return np.vstack(points), np.vstack(normals)


def _outlined(poly: np.ndarray, pv: PlaneView, smooth: np.ndarray) -> float:
    """The share of an outline's points with a step across it (STEP, over 2 BASE mm) within
    LEEWAY mm."""
    points, normals = _across(poly)
    s = pv.top.mm_per_px
    base = int(round(BASE / s))
    offsets = np.arange(-LEEWAY - BASE, LEEWAY + BASE + 1e-6, s)
    at = points[:, None, :] + offsets[None, :, None] * normals[:, None, :]
    px = pv.px(at.reshape(-1, 2)).astype(np.float32).reshape(at.shape)
    values = cv2.remap(smooth, px[..., 0], px[..., 1], cv2.INTER_LINEAR)
    steps = np.abs(values[:, 2 * base:] - values[:, :-2 * base]).max(axis=2)
    return float(np.mean(steps.max(axis=1) > STEP))


def _suit(p: Piece) -> str:
    return next(s for s in pp.SUITS if s in p.id)      # every id of an arrangement names its suit


def outline_shares(pv: PlaneView, kind: str, dims: Dimensions = DEFAULT) -> list[tuple[Piece, float]]:
    """Each piece of `arrangement(kind)` and the share of its outline that shows in the view."""
    smooth = _smoothed(pv)
    return [(p, _outlined(_outline(p, pv, dims), pv, smooth)) for p in arrangement(kind).pieces]


def check_places(pv: PlaneView, kind: str, name: str, dims: Dimensions = DEFAULT) -> None:
    """EnrolError naming the photo when more than MISSING of a kind of piece is not where
    `arrangement(kind)` puts it (less than OUTLINED of its outline shows): hidden, off its
    place, or not there."""
    shares = outline_shares(pv, kind, dims)
    over = []
    for type_ in PLURAL:
        of_type = [p for p, _ in shares if p.type == type_]
        missing = [p for p, share in shares if p.type == type_ and share < OUTLINED]
        if len(missing) > MISSING * len(of_type):
            suits = ", ".join(f"{s} {sum(_suit(p) == s for p in missing)}" for s in pp.SUITS)
            over.append(f"{len(missing)} of {len(of_type)} {PLURAL[type_]} ({suits})")
    if over:
        what = over[0] if len(over) == 1 else ", ".join(over[:-1]) + " and " + over[-1]
        raise EnrolError(f"{name}: {what} are not in their places: is this the '{kind}' photo, laid out "
                         "as its guide sheet shows (icetable mat --kind enrol), on a cloth the pieces stand out from?")


def variety(pv: PlaneView, dims: Dimensions = DEFAULT) -> float:
    """How much the 24 tiles' print differs among themselves (log ratio): the median over pairs
    of the RMS difference between one tile's middle and the best-aligned part of another
    (within LEEWAY), blurred over 2 mm, in the BLOCKS x BLOCKS part of the middle where they
    differ most. Faces differ (suits, ranks), where their marks and numerals are: an
    edition's faces may be blank card but for a small numeral, and over the whole middle
    they differed hardly more than its backs do by the light's fall-off and the print's
    edges. Backs are alike everywhere."""
    m = int(LEEWAY / pp.TILE_MM)
    patches = (_tile_patch(pv, si, rank, dims) for si in range(len(pp.SUITS)) for rank in range(6))
    prints = [cv2.GaussianBlur(flatten(patch, INNER & (off < NEAR)), (0, 0), 2.0 / pp.TILE_MM)
              for patch, off in patches]
    middles = [p[m:-m, m:-m] for p in prints]
    n = middles[0].shape[0] // BLOCKS
    squared = []
    for i, c in enumerate(middles):
        for j, p in enumerate(prints):
            if i != j:
                r, q = np.unravel_index(int(np.argmin(cv2.matchTemplate(p, c, cv2.TM_SQDIFF))), (2 * m + 1, 2 * m + 1))
                d = ((p[r:r + c.shape[0], q:q + c.shape[1]] - c) ** 2).sum(axis=2)
                squared.append(d[:n * BLOCKS, :n * BLOCKS].reshape(BLOCKS, n, BLOCKS, n).mean(axis=(1, 3)).max())
    return float(np.sqrt(np.median(squared)))


def _check_sides(views: dict[str, list], dims: Dimensions) -> None:
    """EnrolError unless the tiles of every faces photo differ among themselves SIDES times as
    much as those of every backs photo, naming the two photos (as swapped when the backs'
    differ SIDES times as much as the faces')."""
    faces, face_name = min((variety(pv, dims), name) for name, pv in views["faces"])
    backs, back_name = max((variety(pv, dims), name) for name, pv in views["backs"])
    if faces >= SIDES * backs:
        return
    if backs >= SIDES * faces:
        raise EnrolError(f"{face_name}: its tiles differ less among themselves than those of {back_name}: the "
                         "faces and backs photos look swapped (faces first: the tiles face up, all different)")
    raise EnrolError(f"{face_name}: its tiles differ hardly more among themselves than those of {back_name}: the "
                     "faces photo shows the tiles face up (all different), the backs photo face down (all alike)")


def learn(photos: dict[str, list], dims: Dimensions = DEFAULT, source: str = "enrolment") -> pp.Profile:
    """A profile from photos by kind (`faces`, `backs`, optional `pyramids`): each a list of
    (name, BGR frame, K, dist). EnrolError names a photo that does not show the arrangement."""
    return learn_views(checked_views(photos, dims), dims, source)


def checked_views(photos: dict[str, list], dims: Dimensions = DEFAULT) -> dict[str, list]:
    """Each photo's view (`photo_view`) by kind, as (name, view), once it shows its arrangement
    (`check_places`); EnrolError naming the photo otherwise, or the kind of photo missing."""
    for kind in ("faces", "backs"):
        if not photos.get(kind):
            raise EnrolError(f"enrolment needs a '{kind}' photo")
    return {kind: [(name, _checked_view(frame, K, dist, kind, name, dims)) for name, frame, K, dist in frames]
            for kind, frames in photos.items()}


def learn_views(views: dict[str, list], dims: Dimensions = DEFAULT, source: str = "enrolment") -> pp.Profile:
    """`learn` from the photos' `checked_views`."""
    _check_sides(views, dims)
    samples = Samples()
    for kind, named in views.items():
        for _, pv in named:
            _cloth(pv, arrangement(kind), samples, dims)
            if kind == "pyramids":
                _pyramids(pv, samples, dims)
            else:
                _tiles_and_coins(pv, kind, samples, dims)
                _dice(pv, kind, samples, dims)
    return _profile(samples, source)


def _backs_apart(colours: dict) -> dict:
    """The colour samples with the backs' card kept as a class of its own only when it is
    not the faces' card (coloured backs): a back printed on the faces' card is stock."""
    back = colours.pop("back", None)
    if back is None or "stock" not in colours:
        return colours
    if np.abs(np.median(back, axis=0) - np.median(colours["stock"], axis=0)).max() < BACK_APART:
        colours["stock"] = np.concatenate([colours["stock"], back])
    else:
        colours["back"] = back
    return colours


def _profile(samples: Samples, source: str) -> pp.Profile:
    colours = _backs_apart({c: np.concatenate(v) for c, v in samples.colours.items() if v})
    colours = {c: v for c, v in colours.items() if c in pp.CLASSES or len(v) >= 50}
    missing = [c for c in pp.CLASSES if c not in pp.OPTIONAL and (c not in colours or len(colours[c]) < 20)]
    if missing:
        raise EnrolError(f"the photos show too little of: {', '.join(missing)}")
    tiles = {k[1]: samples.mean(k) for k in samples.sums if k[0] == "tiles"}
    coins = {k[1]: samples.mean(k) for k in samples.sums if k[0] == "coins"}
    dice = {}
    for suit in pp.SUITS:
        ink = samples.mean(("ink", suit)) if ("ink", suit) in samples.sums else np.full(3, 0.8, np.float32)
        for rank in range(6):
            dice[f"{suit}-{rank}"] = (ink * samples.mean(("glyph", rank))[..., None]).astype(np.float32)
    return pp.Profile(ColorProfile.fit(colours, floor=0.04), tiles, coins, dice, source)


def guide_sheet(kind: str, px_per_mm: float = 3.0) -> np.ndarray:
    """A picture (RGB, not to scale) of where each piece goes in one photo, inside the corner
    cards: `icetable mat --kind enrol` writes one per photo."""
    from calibration.layout import draw
    w, h = AREA
    origin = (-60.0, -60.0)
    img = draw(layout(), px_per_mm, origin, (int((w + 120) * px_per_mm), int((h + 120) * px_per_mm)))
    for p in arrangement(kind).pieces:
        label = {"tile": f"{p.suit} {p.rank}" if p.face == "up" else "back",
                 "coin": p.suit or f"{p.rank}", "die": f"{p.suit} {p.rank}",
                 "pp_pyramid": f"{p.suit} {p.size}", "pawn": f"{p.suit} pawn"}[p.type]
        r = {"tile": 25.4, "coin": 9.5, "die": 6.35, "pp_pyramid": 10.0, "pawn": 6.35}[p.type]
        x, y = (p.x - origin[0]) * px_per_mm, (p.y - origin[1]) * px_per_mm
        cv2.rectangle(img, (int(x - r * px_per_mm), int(y - r * px_per_mm)),
                      (int(x + r * px_per_mm), int(y + r * px_per_mm)), (150, 150, 150), 1)
        scale = px_per_mm * (0.2 if p.type == "tile" else 0.1)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        cv2.putText(img, label, (int(x - tw / 2), int(y + th / 2)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (60, 60, 60), 1, cv2.LINE_AA)
    cv2.putText(img, f"icetable enrolment photo '{kind}'", (int(70 * px_per_mm), int(25 * px_per_mm)),
                cv2.FONT_HERSHEY_SIMPLEX, px_per_mm * 0.25, (0, 0, 0), 2, cv2.LINE_AA)
    return img


def overexposed(pv: PlaneView, name: str) -> str | None:
    """A one-line warning when most of the tiles' middles in photo `name` (faces or backs) are
    at the camera's limit: the faint print there is lost, so faces may be learned blank."""
    shares = [(sample(pv.top.image, pv, tile_at(si, rank), 0.0, TILE_N, pp.TILE_MM)[INNER] >= CLIPPED)
              .any(axis=1).mean() for si in range(len(pp.SUITS)) for rank in range(6)]
    share = float(np.median(shares))
    if share < OVEREXPOSED:
        return None
    return (f"warning: {name}: {100 * share:.0f} % of the tiles' card is at the camera's limit (overexposed): faint "
            "print is lost and faces may be misread; take the photo again with less light or a lower exposure")


def enrol_into(calibration, paths: list):
    """The calibration with the piecepack profile learned from photos (faces, backs and
    optionally pyramids, in that order) in its `piecepack` section, using its intrinsics, and
    the warnings of overexposed photos."""
    from vision.sources import read_image
    if not 2 <= len(paths) <= len(KINDS):
        raise EnrolError(f"enrolment takes 2 or 3 photos (faces, backs, pyramids), got {len(paths)}")
    photos = {kind: [(str(path), read_image(path), calibration.K, calibration.dist)]
              for kind, path in zip(KINDS, paths)}
    views = checked_views(photos)
    profile = learn_views(views, source="enrolled from " + ", ".join(str(p) for p in paths))
    warnings = [overexposed(pv, name) for kind, named in views.items() if kind != "pyramids" for name, pv in named]
    return replace(calibration, extra={**calibration.extra, "piecepack": profile.to_dict()}), \
        [w for w in warnings if w]
