"""Piecepack pieces in a light-normalised view of the tiles' top plane.

1. Every pixel gets a class of the profile: cloth, tile stock, coin wood, or a suit colour.
2. Standing pieces (piecepack pyramids, dice, pawns) are the suit-coloured areas that survive
   an opening wider than any printed stroke; each blob (split by suit, and where pieces touch,
   at the peaks of its distance transform) is explained by the outline a shape casts from the
   camera (`vision.piecepack.shapes`), resting on a tile when it stands over one.
3. Coins are the blobs of coin wood; their centre is where the top disc is widest.
4. Tiles are the blobs of stock separated by their printed border (oversized blobs are split
   along their own axes); each is read by matching its visible pixels (pieces masked out)
   against the profile's face and back templates in four turns.
5. Coins and die tops are read the same way against their templates in many turns.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from types import SimpleNamespace

import cv2
import numpy as np
from shapely.geometry import Polygon

from referee.dimensions import DEFAULT, PP_LETTERS, Dimensions
from referee.scene import tenth_degree
from vision import segnet
from vision.piecepack import profile as pp, standnet
from vision.piecepack.shapes import SHAPES, Fitter, blob_yaw
from vision.piecepack.solids import COIN_THICKNESS
from vision.piecepack.stock import stock_colour
from vision.piecepack.view import PlaneView, on_plane, patch_to_view, raise_point, sample

OPEN_MM = 5.0              # wider than any printed stroke (and the joins of strokes)
MIN_CORE_MM2 = 60.0        # what is left of a piece after that opening is at least this
REGROW_MM = 2.5            # a piece off the board is grown back this much after the opening
GLYPH_HOLE_MM2 = 80.0      # holes this small in a suit-coloured area are printed on a piece (half a die face)
MIN_PIECE_MM2 = 110.0      # smaller suit-coloured areas are printed symbols
MIN_PART_MM2 = 60.0        # ... unless they touch a piece (the visible part of one behind it)
MIN_COIN_MM2 = 120.0
NOT_A_TILE = 0.6           # match error (1 - cosine) above which no face explains a "tile": skin,
MAX_CLOTH = 0.5            # unless this share of it at most is cloth and it is no arm's (`_mark_skin`)
SUIT_UP_MARGIN = 0.5       # where coins lie suit up, a value side must fit this much better (match error) to show
SUIT_UP = ("iceberg",)     # games whose coins are played suit side up ("face-down", docs/rulings/iceberg.md)
NOT_A_COIN = 0.4           # match error (1 - cosine) above which no coin side explains a coin-coloured disc
COIN_IOU = 0.5            # a coin-coloured area overlapping a coin's disc less than this is no coin
ISLAND_COINS = 3.0        # an island of the tiles' card no larger than this many coins may be coins
ISLAND_IOU = 0.7          # ... when it is a coin's disc this closely
ISLAND_GROUND = 0.15      # ... and lies on a coloured back or the cloth (this share of its surroundings)
MIXED_CORE = 0.7          # islands of coin wood and card together, opened by a disc this share of a coin, are coins too
MIXED = 254               # (their source while found)
MARK_SPREAD = 0.06         # log ratio: where the faces of a rank differ this much from their mean, suit marks
MIN_MARK_PX = 12           # an unsure face's suit marks (pixels, 0.5 mm) tell its suit when this many show
HIDDEN_EDGE = 0.88         # a tile's stock this much shorter than the tile is partly hidden
MIN_HIDER_PX = 40          # ... when pieces stand beyond that edge
SMALL_STOCK = 0.82         # stock this much shorter than a tile both ways, with nothing hiding the rest,
                           # is no tile (a check of a gingham cloth the card's colour)
HAND_P = 0.5               # a pixel the segmentation network reads as a hand this probably is one,
HAND_AREA = 1750.0         # mm^2: in an area this large at least
HAND_REACH = 12.0          # mm: a piece this close to one may be partly under it
HAND_EDGE = 3.0            # mm: the blur of an arm's outline at the resolution it is found
HALF_SIZE = {"tile": 25.4, "coin": 9.5}
GRID_TURN = 12.0           # degrees either way of the area's rectangle the grid's turn is searched
GRID_CELL = 24             # a tile's side in pixels of the grid search
GRID_SHOWN = 0.2           # cells this much covered may be tiles (pieces on a tile hide its stock)
GRID_FIT = 0.06            # a grid is looked for when the rectangle's cut leaves this share of its cells unexplained
GRID_GAIN = 0.8            # ... and replaces the cut when its misfit is at most this share of the cut's
FRAGMENT = 0.02            # stock areas this large (share of a tile) may be parts of one tile
MIN_TILE_SHARE = 0.3       # ... which, joined, show at least this much of it,
CROWDED_SHARE = 0.15       # or this much when pieces standing on the tile cover the rest:
CROWDED_COVER = 0.9        # this share of its middle is stock, print or pieces
COIN_TURNS = 36
TILE_FINALISTS = 6         # faces compared again at full resolution, the tile moved by up to
SHIFT = 5                  # this many pixels (2.5 mm), when the coarse match is less sure than
SURE = 0.5
SETTLE_SHIFT = 3           # an unsure tile is moved by up to this many pixels and turned by
SETTLE_TURN = 1.5          # this many degrees to fit its suit's shared art
FACE_ROUNDS = 2            # tiles read as a face another tile fits better are read again this many times
MIN_CARD = 0.2             # a tile whose card classes show less of it (a back misread) is levelled on its median
CARD_SHARE = 0.5           # ... one whose card classes show less than this is levelled on its dominant colour:
DOMINANT = 0.25            # the pixels within this (log ratio, each channel) of its median
BACK_STEP = 2.0            # mm per pixel the backs' print is looked for at
BACK_NCC = 0.45            # ... and the correlation a back shows there at least
BACK_TURN = 5.0            # ... in turns this far apart (and as the tiles found lie)
BACK_OVERLAP = 0.8         # such a back (or tile in shade) may overlap a box found by a fifth of its side
HALF_TURN = 0.03           # a face is turned round when that shows this much more of its print in its colour
LIGHT_DIE = (0.6, 2.6)     # a light die's area beside the board, in tops' areas (its top and sides)
LIGHT_DIE_SIDES = (0.8, 1.9)  # ... its rectangle's sides, in dice widths
LIGHT_DIE_FILL = 0.7       # ... the share of its rectangle it fills with its glyph
LIGHT_DIE_COVERED = 0.3    # ... the share of it a piece found may already cover
MIN_GLYPH_MM2 = 1.0        # ... showing this much of a suit's colour inside
SINGLE_IOU = 0.8           # a blob this well explained by one piece is not split
MIN_IOU = 0.7              # worse explained parts are printed art, not pieces
CLEAR_IOU = 0.93           # a piece explained this well is not hidden in part by another
BASE_OVERLAP = 0.25        # standing pieces' bases overlapping more than this of the smaller: one is a scrap
IOU_SCALE = 0.02           # a pyramid's letter: the network's log probability + the silhouette's overlap / this
NO_PIECE = 0.8             # a standing piece the network reads as no piece this probably is dropped
DOUBT_IOU = 0.5            # a part explained this well (under MIN_IOU) is kept when the network is sure it
SURE_PYRAMID = 0.9         # a piece the network reads as a pyramid this probably is one, tile found or not
SURE_PIECE = 0.1           # ... is a piece (no piece at most this probable)
RIVAL_IOU = 0.06           # shapes this close in overlap are told apart by where they stand
PYRAMIDS = tuple(sh for sh in SHAPES if sh.type == "pp_pyramid")
TOKENS = tuple(sh for sh in SHAPES if sh.type != "pp_pyramid")
# The shapes each game has on the board (on a tile or in the water between tiles) and beside it.
PLACES = {"icefloe": (PYRAMIDS, TOKENS), "iceberg": (TOKENS, TOKENS)}
INK = 0.25                 # template pixels this far from the stock are printed
SUIT_IDS = tuple(pp.CLASSES.index(s) for s in pp.SUITS)        # consecutive
STOCK, COIN, CLOTH = pp.CLASSES.index("stock"), pp.CLASSES.index("coin"), pp.CLASSES.index("cloth")
BACK = pp.CLASSES.index("back")         # tile backs on a card of another colour than the faces'
CARD = (STOCK, BACK)


def _disc(mm: float, s: float) -> np.ndarray:
    r = max(1, int(round(mm / s / 2)))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


def _in_classes(classes: np.ndarray, ids) -> np.ndarray:
    """Boolean mask of the pixels (uint8 class labels) whose class is one of `ids`: `np.isin`
    by a lookup table, many times faster over a view."""
    table = np.zeros(256, np.uint8)
    table[list(ids)] = 1
    return cv2.LUT(classes, table).reshape(classes.shape).view(bool)


def fill_holes(mask: np.ndarray, max_px: float | None = None) -> np.ndarray:
    """A 0/255 mask with the regions it encloses filled (only those under `max_px` pixels)."""
    flood = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    cv2.floodFill(flood, None, (0, 0), 255)
    holes = cv2.bitwise_not(flood)[1:-1, 1:-1]
    x, y, w, h = cv2.boundingRect(holes)
    if max_px is not None and w:        # the holes' sizes, over their bounding box only
        n, labels = cv2.connectedComponents(holes[y:y + h, x:x + w], connectivity=4)
        small = np.where(np.bincount(labels.ravel(), minlength=n) < max_px, 255, 0).astype(np.uint8)
        small[0] = 0
        holes = np.zeros_like(holes)
        holes[y:y + h, x:x + w] = small[labels]
    return mask | holes


def _paint(view_mask: np.ndarray, patch: np.ndarray, pv: PlaneView, xy, angle: float, step: float) -> None:
    """Paint a patch of labels (sampled as `sample` samples) back into a view-sized label
    image, in place, keeping the larger label where both are set."""
    n = patch.shape[0]
    M = patch_to_view(pv, xy, angle, n, step)
    corners = M[:, :2] @ np.array([[0, 0, n, n], [0, n, 0, n]]) + M[:, 2:]
    h, w = view_mask.shape
    x0, y0 = np.maximum(np.floor(corners.min(axis=1)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=1)).astype(int) + 2, (w, h))
    if x0 >= x1 or y0 >= y1:
        return
    M = M.copy()
    M[:, 2] -= (x0, y0)
    np.maximum(view_mask[y0:y1, x0:x1], cv2.warpAffine(patch, M, (x1 - x0, y1 - y0), flags=cv2.INTER_NEAREST),
               out=view_mask[y0:y1, x0:x1])


def _solid(mask: np.ndarray, s: float, core_mm2: float = MIN_CORE_MM2) -> np.ndarray:
    """The solid areas of a 0/255 mask: small holes filled (glyphs printed on a piece), then
    what survives an opening wider than any printed stroke (outlines are opened alike before
    they are compared with it), in pieces of at least `core_mm2`."""
    opened = cv2.morphologyEx(fill_holes(mask, GLYPH_HOLE_MM2 / s ** 2), cv2.MORPH_OPEN, _disc(OPEN_MM, s))
    return _drop_small(opened, core_mm2 / s ** 2) if core_mm2 else opened


def _components(mask: np.ndarray):
    """`cv2.connectedComponentsWithStats` (8-connected) by the block-based algorithm: the same
    labels, a few times faster than the default's statistics pass."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)


def _drop_small(mask: np.ndarray, min_px: float) -> np.ndarray:
    n, labels, stats, _ = _components(mask)
    keep = np.zeros(n, np.uint8)
    keep[1:] = np.where(stats[1:, cv2.CC_STAT_AREA] >= min_px, 255, 0)
    return keep[labels]


def flatten(patch: np.ndarray, stock: np.ndarray, least: int = 30) -> np.ndarray:
    """`patch` minus a plane (per channel) fitted to its `stock` pixels: the printed art
    relative to the card it is printed on, with any light falloff across the piece removed;
    minus its median colour (the card, under a print that covers less of it) when fewer than
    `least` pixels are stock."""
    n, m = patch.shape[:2]
    at = np.flatnonzero(stock)
    if len(at) < max(30, least):
        return patch - np.median(patch.reshape(-1, 3), axis=0)
    ys, xs = np.divmod(at[::max(1, len(at) // 600)], m)
    A = np.column_stack([np.ones(len(xs)), xs / m - 0.5, ys / n - 0.5])
    coef = np.linalg.solve(A.T @ A + 1e-9 * np.eye(3), A.T @ patch[ys, xs]).astype(np.float32)
    along = (coef[0] + (np.arange(m, dtype=np.float32) / m - 0.5)[:, None] * coef[1]).T     # (3, m)
    down = ((np.arange(n, dtype=np.float32) / n - 0.5)[:, None] * coef[2]).T                # (3, n)
    # the plane built a channel at a time (numpy is slow over a last axis of 3)
    return patch - cv2.merge([along[c][None, :] + down[c][:, None] for c in range(3)])


@dataclass
class Blob:
    mask: np.ndarray       # uint8 0/1 crop (opened: no printed strokes)
    box: tuple             # x0, y0, x1, y1 in view px
    label: str             # suit or "coin"
    full: np.ndarray | None = None   # the same piece grown back to its whole outline


def _blobs(mask: np.ndarray, min_px: float, label: str, pad: int = 12, max_px: float = math.inf):
    """The 8-connected parts of a mask of `min_px` to `max_px` pixels, each in its box grown by
    `pad`, in the labelling's order. Labelled over the mask's bounding box (so grown) only, from
    an even corner: the block-based labelling numbers the parts as over the whole mask."""
    h, w = mask.shape
    bx, by, bw, bh = cv2.boundingRect(mask)
    x0, y0 = max(0, bx - pad) & ~1, max(0, by - pad) & ~1
    n, labels, stats, _ = _components(mask[y0:min(h, by + bh + pad), x0:min(w, bx + bw + pad)])
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if not min_px <= area <= max_px:
            continue
        x, y = x + x0, y + y0
        box = (max(0, x - pad), max(0, y - pad), min(w, x + bw + pad), min(h, y + bh + pad))
        yield Blob((labels[box[1] - y0:box[3] - y0, box[0] - x0:box[2] - x0] == i).astype(np.uint8), box, label)


def split(blob: Blob, min_gap_px: float, min_peak_px: float) -> list[Blob]:
    """A blob cut at the valleys between the peaks of its distance transform (touching pieces),
    peaks within half of `min_gap_px` of each other counting as one."""
    dt = cv2.distanceTransform(blob.mask, cv2.DIST_L2, 5)
    k = max(3, int(min_gap_px) | 1)
    peaks = (dt >= cv2.dilate(dt, np.ones((k, k), np.uint8))) & (dt >= min_peak_px)
    # peaks closer than half the gap lie on one piece's ridge of equal distances: one marker
    peaks = cv2.dilate(peaks.astype(np.uint8), np.ones((k // 2 | 1,) * 2, np.uint8)) & blob.mask
    n, markers = cv2.connectedComponents(peaks)
    if n <= 2:
        return [blob]
    markers = markers.astype(np.int32)
    markers[blob.mask == 0] = 0
    shed = cv2.watershed(cv2.cvtColor(blob.mask * 255, cv2.COLOR_GRAY2BGR), markers.copy())
    return [Blob(((shed == i) & (blob.mask > 0)).astype(np.uint8), blob.box, blob.label) for i in range(1, n)]


def _cut_edges(pieces: list[Blob], whole: Blob, s: float) -> list[Blob]:
    """Parts cut from `whole` with their edges at the half-way level too: each takes the pixels
    of the whole's outline (`whole.full`, opened as the parts are) within a pixel of it that no
    other part holds. The cut runs through the opened core, whose edge the colour classes
    leave up to a pixel short of a dark piece's (see `_half_edge`)."""
    if whole.full is None or len(pieces) < 2:
        return pieces
    opened = cv2.morphologyEx(whole.full, cv2.MORPH_OPEN, _disc(OPEN_MM, s))
    held = np.sum([p.mask for p in pieces], axis=0)
    return [Blob(opened & cv2.dilate(p.mask, np.ones((3, 3), np.uint8)) & (held - p.mask == 0), p.box, p.label)
            for p in pieces]


@dataclass
class Places:
    """The shapes that may stand on the board (`on`) and beside it (`off`), the view pixels
    near a hand or arm (`arm`), where a piece off every tile seen may stand on a tile the arm
    hides: there any shape may be, and the arms' own pixels (`hands`, None without any), where
    a piece's outline may run under the arm."""
    on: tuple
    off: tuple
    arm: np.ndarray | None
    hands: np.ndarray | None

    def shapes(self, blob: Blob, on_board: bool) -> tuple[tuple, bool | None]:
        """(the shapes a blob may be, whether a piecepack pyramid is preferred among close fits:
        None for no preference)."""
        if on_board:
            return self.on, True
        x0, y0, x1, y1 = blob.box
        if self.arm is not None and np.any(self.arm[y0:y1, x0:x1][blob.mask > 0]):
            return tuple(dict.fromkeys(self.on + self.off)), None
        return self.off, False


class PiecepackDetector:
    """Finds tiles, coins, dice, pawns and piecepack pyramids in a `PlaneView`."""

    def __init__(self, profile: pp.Profile, dims: Dimensions = DEFAULT):
        self.profile, self.dims = profile, dims
        tiles, self._suit_art = shared_art(profile.tiles)
        self._looks = {(suit, t): _look(mean, shared, t) for suit, (mean, shared) in self._suit_art.items()
                       for t in range(4)}
        self._tiles = _turned({k: cv2.resize(t, (t.shape[1] // 2, t.shape[0] // 2), interpolation=cv2.INTER_AREA)
                               for k, t in tiles.items()}, (0, 1, 2, 3))
        self._tiles_fine = _turned(tiles, (0, 1, 2, 3))
        self._ink = {(name, turn): np.ascontiguousarray(np.rot90(np.abs(t).max(axis=2) > INK, turn)).astype(np.uint8)
                     for name, t in profile.tiles.items() for turn in range(4)}
        self._print_class = {name: _print_class(profile, t) for name, t in profile.tiles.items() if name != "back"}
        self._printed_in = {c: {n for n, k in self._print_class.items() if k == c} for c in set(self._print_class.values())}
        self._marks = _suit_marks(profile.tiles)
        self._marked_ranks = {r for r in self._marks if len({self._print_class.get(f"{su}-{r}") for su in pp.SUITS}) == 1}
        self._coins = _turned(profile.coins, tuple(range(COIN_TURNS)), fine=True)
        self._dice = _turned(profile.dice, (0, 1, 2, 3))

    def detect(self, pv: PlaneView, game: str | None = None) -> list[dict]:
        """The pieces in the view, as SCENE.md fields (without ids). `game` narrows the standing
        pieces: IceFloe has only piecepack pyramids on its tiles, Iceberg has none at all."""
        s = pv.top.mm_per_px
        stock = stock_colour(pv.logratio, s, self.dims.tile)
        classes = self.profile.classify(pv.logratio, stock)
        hands = _hands(classes, pv.logratio, s)
        near = _round_arms(hands, classes, s)
        classes[hands > 0] = pp.UNKNOWN
        suited = _solid(_suit_coloured(classes).astype(np.uint8) * 255, s, 0.0)
        tiles = self._tile_boxes(pv, classes, suited | hands * 255)
        tiles += self._shaded_boxes(pv, classes, suited | hands * 255, hands, stock, tiles)
        under_coins = np.zeros(classes.shape, np.uint8)
        coins = self._coins_found(pv, classes, tiles, under_coins, game in SUIT_UP)
        rough = cv2.dilate(suited, _disc(2 * REGROW_MM, s)) | under_coins   # where pieces may stand
        for tile in tiles:
            self._read_tile(pv, tile, classes, rough)
        tiles = [t for t in tiles if not (t.get("_shaded") and t["_error"] > NOT_A_TILE)]
        _mark_skin(tiles, hands, pv, self.dims.tile)
        if game != "icefloe":       # IceFloe's tiles lie face up
            tiles = self._backs_found(pv, tiles, classes, under_coins)
        skin = _skin(pv, tiles, classes, self.dims.tile)
        arms = hands.copy() if hands.any() else None     # not skin: that may be tile stock
        hands |= skin
        near |= skin
        classes[skin > 0] = pp.UNKNOWN
        places, tiles = tiles, [t for t in tiles if _is_tile(t)]
        printed, turned = np.zeros(classes.shape, np.uint8), np.zeros(classes.shape, np.uint8)
        for tile in tiles:
            for view, patch in zip((printed, turned), tile["_print"]):
                _paint(view, patch, pv, (tile["x"], tile["y"]), tile["_angle"], pp.TILE_MM)
        on, off = PLACES.get(game, (SHAPES, SHAPES))
        where = Places(on, off, _reach(near, HAND_REACH / s), arms)
        # skin cut like tiles still tells where pieces may stand: on a tile the arm hides in part
        standing, under_pieces = self._standing(pv, classes, suited, places, (printed, turned), where)
        standing = self._read_again(pv, standing, places, {sh.type for sh in on})
        standing += self._light_dice(pv, classes, places, standing + coins, under_pieces | under_coins)
        found_hide = under_pieces | under_coins
        for tile in tiles:      # read again, unsure tiles, with only the pieces found hidden
            if tile["confidence"] < SURE:
                self._read_tile(pv, tile, classes, found_hide)
            if "_turned" in tile and abs((tile.pop("_turned") - tile["angle"] + 180) % 360 - 180) < 90:
                tile["angle"] = (tile["angle"] + 180.0) % 360.0      # the half turn a piece's fit chose
        self._one_of_each(pv, tiles, classes, found_hide)
        for tile in tiles:
            if tile["_error"] > NOT_A_TILE:          # a tile, but no face explains it well
                tile.update(uncertain=True, confidence=min(tile["confidence"], 0.3))
            for key in ("_angle", "_error", "_print", "_settled", "_label", "_cloth", "_skin", "_shaded"):
                tile.pop(key, None)
            tile["x"], tile["y"] = round(tile["x"], 1), round(tile["y"], 1)
        found = tiles + standing + coins
        _mark_near_hands(found, near, pv)
        return found

    # --- tiles -------------------------------------------------------------------------------
    def _tile_boxes(self, pv: PlaneView, classes: np.ndarray, pieces: np.ndarray, shade=False) -> list[dict]:
        """Tile centres and turns (mod 90) from the areas of stock (and the coins lying on it,
        and the pixels of `shade`): one area per tile, as the printed borders part touching
        tiles; an area of several tiles (borders not seen) is cut along its own axes, or laid
        on the grid of cells that explains it much better (`_grid`); pieces of
        one tile (a back's cross and coins at both ends of it cut its stock in two) are joined
        while they fit in one tile."""
        s = pv.top.mm_per_px
        card = _in_classes(classes, CARD + (COIN,)) | shade     # coins lie on the tiles' quarters
        stock = cv2.erode(card.astype(np.uint8) * 255, np.ones((3, 3), np.uint8))
        side = self.dims.tile
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fill_holes(stock), connectivity=4)
        areas = stats[:, cv2.CC_STAT_AREA] * s * s
        outlines = {i: self._outline(labels, stats, i) for i in range(1, n) if areas[i] >= FRAGMENT * side * side}
        wholes = [i for i in outlines if areas[i] >= 0.4 * side * side]
        groups = [[i] for i in wholes] + _group_fragments([i for i in outlines if i not in wholes], outlines,
                                                         1.12 * side / s)
        out = []
        on_table = None
        for group in groups:
            shown = sum(areas[i] for i in group) / (side * side)
            if shown < CROWDED_SHARE:
                continue
            points = np.vstack([outlines[i] for i in group])
            (cx, cy), (w, h), angle = cv2.minAreaRect(points)
            cols, rows = max(1, round(w * s / side)), max(1, round(h * s / side))
            if cols * rows == 1:
                cx, cy, seen = _unhide(points, pieces, (cx, cy), (w, h), angle, side / s)
                if not seen and max(w, h) < SMALL_STOCK * side / s:
                    continue
            if shown < MIN_TILE_SHARE:
                if on_table is None:
                    on_table = ((classes != pp.CLASSES.index("cloth")) & (classes != pp.UNKNOWN)).astype(np.uint8)
                if cols * rows > 1 or not self._covered(on_table, (cx, cy), angle, side / s, CROWDED_COVER):
                    continue
            centres = [np.array([cx, cy])]
            if cols * rows > 1:
                component = labels == group[0]
                grid = _grid(component, ((cx, cy), (w, h), angle), (cols, rows), side / s)
                if grid is not None:
                    angle, centres = grid
                else:       # the rectangle cut along its axes
                    a = math.radians(angle)
                    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
                    centres = [centres[0] + u * (ci - (cols - 1) / 2) * w / cols + v * (ri - (rows - 1) / 2) * h / rows
                               for ci in range(cols) for ri in range(rows)]
                centres = [p for p in centres if self._covered(component, p, angle, side / s)]
            for p in centres:
                x, y = pv.mm(p[0], p[1])
                out.append({"type": "tile", "x": float(x), "y": float(y), "_angle": angle % 90.0})
        return out

    def _backs_found(self, pv: PlaneView, tiles: list[dict], classes, covered) -> list[dict]:
        """The tile boxes with the face-down tiles found by their backs' print (normalised
        cross-correlation with the back's template, at BACK_STEP mm per pixel, turned as the
        tiles found lie, or in the turn, by BACK_TURN degrees, where the print fits best: the
        boxes found may be few, or none where every tile lies face down, its card misread)
        where the colour classes missed their card (a back near the cloth's colour, a shadow
        over it), each read and kept when it reads as a back. A box no face explains that
        such a back overlaps (a box cut across two backs) is left out."""
        s = pv.top.mm_per_px
        known = [t for t in tiles if not t["_skin"]]
        if "back" not in self.profile.tiles:
            return tiles
        back = self.profile.tiles["back"]
        n = int(round(back.shape[0] * pp.TILE_MM / BACK_STEP))
        small = cv2.resize(back, (n, n), interpolation=cv2.INTER_AREA)
        flat = small.reshape(-1, 3) - small.reshape(-1, 3).mean(axis=0)
        axis = np.linalg.eigh(flat.T @ flat)[1][:, -1]          # the print's strongest contrast
        k = BACK_STEP / s
        view = (cv2.resize(pv.logratio, None, fx=1 / k, fy=1 / k, interpolation=cv2.INTER_AREA) @ axis).astype(np.float32)
        if view.shape[0] <= n or view.shape[1] <= n:
            return tiles

        def fit_at(angle: float) -> np.ndarray:
            art = cv2.warpAffine((small @ axis).astype(np.float32), cv2.getRotationMatrix2D(
                ((n - 1) / 2, (n - 1) / 2), angle, 1.0), (n, n), borderMode=cv2.BORDER_REFLECT)
            return cv2.matchTemplate(view, art, cv2.TM_CCOEFF_NORMED)

        turns = list(np.arange(0.0, 90.0, BACK_TURN)) + ([float(np.median([t["_angle"] for t in known]))] if known else [])
        # the turn whose correlation peaks show the most backs, most clearly
        fit, angle = max(((fit_at(a), float(a)) for a in turns), key=lambda fa: float(np.sum(fa[0][fa[0] >= BACK_NCC])))
        peaks = (fit >= BACK_NCC) & (fit >= cv2.dilate(fit, np.ones((n // 2 | 1,) * 2, np.uint8)))
        fine = cv2.warpAffine((back @ axis).astype(np.float32), cv2.getRotationMatrix2D(
            ((back.shape[1] - 1) / 2, (back.shape[0] - 1) / 2), angle, 1.0), back.shape[:2][::-1], borderMode=cv2.BORDER_REFLECT)
        out, doubtful = [], []
        for r, c in sorted(zip(*np.nonzero(peaks)), key=lambda rc: -fit[rc]):
            xy = self._back_at(pv, axis, fine, ((c + (n - 1) / 2) * k, (r + (n - 1) / 2) * k))
            if xy is None:
                continue
            near = [t for t in known + out if _within(xy, t, angle, BACK_OVERLAP * self.dims.tile)]
            if any(t["_error"] <= NOT_A_TILE for t in near):
                continue
            tile = {"type": "tile", "x": float(xy[0]), "y": float(xy[1]), "_angle": angle % 90.0}
            self._read_tile(pv, tile, classes, covered)
            if tile["face"] == "down" and tile["_error"] <= NOT_A_TILE:
                tile["_skin"] = False
                out.append(tile)
                doubtful += near
        return [t for t in tiles if not any(t is d for d in doubtful)] + out

    @staticmethod
    def _back_at(pv: PlaneView, axis: np.ndarray, art: np.ndarray, centre):
        """The table point where the back's print `art` (view pixels, turned; the log ratio
        along `axis`) fits the view best within BACK_STEP mm of the view pixel `centre`; None
        at the view's edge."""
        reach = int(math.ceil(BACK_STEP / pv.top.mm_per_px))
        h, w = art.shape
        x0, y0 = int(round(centre[0] - (w - 1) / 2)) - reach, int(round(centre[1] - (h - 1) / 2)) - reach
        if x0 < 0 or y0 < 0 or x0 + w + 2 * reach > pv.logratio.shape[1] or y0 + h + 2 * reach > pv.logratio.shape[0]:
            return None
        grey = (pv.logratio[y0:y0 + h + 2 * reach, x0:x0 + w + 2 * reach] @ axis).astype(np.float32)
        fit = cv2.matchTemplate(grey, art, cv2.TM_CCOEFF_NORMED)
        r, c = np.unravel_index(int(np.argmax(fit)), fit.shape)
        return pv.mm(x0 + c + (w - 1) / 2, y0 + r + (h - 1) / 2)

    def _shaded_boxes(self, pv: PlaneView, classes, pieces, hands, stock, tiles: list[dict]) -> list[dict]:
        """Tile boxes found again with the tiles' stock in shadow taken for card (a low sun's
        shadows of the pieces, classed as a suit's colour, cut the tiles' card in parts the
        boxes miss), where no box lies yet, marked `_shaded`: `detect` drops those no face or
        back explains once read. Not with the first boxes: the shade of the printed borders
        between tiles joins the tiles, whose boxes are then cut along the joined area's axes,
        a few millimetres off."""
        shade = self.profile.shaded_stock(pv.logratio, stock) & ~_in_classes(classes, (CLOTH,) + CARD + (COIN,)) & (hands == 0)
        reach = BACK_OVERLAP * self.dims.tile
        return [{**t, "_shaded": True} for t in self._tile_boxes(pv, classes, pieces, shade)
                if not any(_within((t["x"], t["y"]), k, k["_angle"], reach) for k in tiles)]

    @staticmethod
    def _outline(labels: np.ndarray, stats: np.ndarray, i: int) -> np.ndarray:
        x0, y0, bw, bh = stats[i, :4]
        crop = (labels[y0:y0 + bh, x0:x0 + bw] == i).astype(np.uint8)
        contours, _ = cv2.findContours(crop, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        return np.vstack(contours).reshape(-1, 2) + (x0, y0)

    @staticmethod
    def _covered(component: np.ndarray, p, angle: float, side_px: float, share: float = 0.5) -> bool:
        """Whether more than `share` of the middle of a tile at `p` lies in `component`."""
        box = cv2.boxPoints(((float(p[0]), float(p[1])), (side_px * 0.8, side_px * 0.8), angle))
        mask = np.zeros(component.shape, np.uint8)
        cv2.fillConvexPoly(mask, box.astype(np.int32), 1)
        return np.count_nonzero(mask & component) > share * np.count_nonzero(mask)

    def _read_tile(self, pv: PlaneView, tile: dict, classes, covered, allowed: set | None = None) -> None:
        """Match the tile's visible pixels (not `covered`): all faces (or those `allowed`)
        coarsely (1 mm per pixel), then, unless sure, the best few at full resolution, moved
        by up to 2.5 mm, after settling the tile's pose on its suit's shared art. Besides the
        SCENE.md fields, the tile gets `_error` (of the match) and `_print` (the face's print,
        a patch labelled with the suit class its ink shows where it is seen)."""
        n = self.profile.tiles["back"].shape[0]
        angle = tile["_angle"]
        xy = (tile["x"], tile["y"])
        def patches(xy, angle):      # classes and seen over the tile, log ratio SHIFT pixels wider
            cls, seen, big = self._tile_patches(pv, xy, angle, classes, covered, SHIFT)
            return cls[SHIFT:-SHIFT, SHIFT:-SHIFT], seen[SHIFT:-SHIFT, SHIFT:-SHIFT], big

        cls, seen, big = patches(xy, angle)
        half = cv2.resize(big[SHIFT:-SHIFT, SHIFT:-SHIFT], (n // 2, n // 2), interpolation=cv2.INTER_AREA)
        seen_half = cv2.resize(seen.astype(np.uint8), (n // 2, n // 2), interpolation=cv2.INTER_NEAREST) > 0
        first = _match(half, seen_half, self._tiles, allowed)
        settled = None if first[2] >= SURE or first[0] == "back" or tile.get("_settled") else \
            self._settle(pv, xy, angle, first[0].split("-")[0], first[1], classes, covered)
        if settled is not None:
            xy, angle = settled
            tile.update(x=xy[0], y=xy[1], _angle=angle, _settled=True)
            cls, seen, big = patches(xy, angle)
        name, turn, conf, error, moved = (*first[:4], (0, 0)) if first[2] >= SURE else \
            self._finalists(big, seen, first)
        label = _ink_class(cls, self._ink[name, turn], seen)
        among = self._printed_in.get(label)
        if among and allowed is not None:
            among = among & allowed
        if conf < SURE and label and name != "back" and label != self._print_class[name] and among:
            # unsure, and the print is in another colour than this face's: the best face printed so
            name, turn, _, error, moved = self._finalists(big, seen, first, among)
            label = _ink_class(cls, self._ink[name, turn], seen)
        if moved != (0, 0):         # where the face fits best
            c, si = math.cos(math.radians(angle)), math.sin(math.radians(angle))
            tile["x"] += (c * moved[0] - si * moved[1]) * pp.TILE_MM
            tile["y"] += (si * moved[0] + c * moved[1]) * pp.TILE_MM
        tile.update(_error=error, _label=label, _cloth=float(np.mean(cls == CLOTH)))
        if label and name != "back":
            turn = self._half_turn(name, turn, cls, label)
        if name != "back" and conf < SURE:
            name = self._suit_by_marks(name, turn, big, seen)
        tile["_print"] = tuple(self._ink[name, t] * np.uint8(label) for t in (turn, (turn + 2) % 4))
        tile["angle"] = tenth_degree(angle - 90.0 * turn)
        if name == "back":
            tile["face"] = "down"
            tile["angle"] = round(angle, 1) % 90.0
            tile.pop("suit", None), tile.pop("rank", None)
        else:
            suit, rank = name.split("-")
            tile.update(face="up", suit=suit, rank=int(rank))
        tile["confidence"] = conf

    def _one_of_each(self, pv: PlaneView, tiles: list[dict], classes, covered) -> None:
        """A piecepack has one tile of each face. Of tiles read as the same face, the one that
        fits it best (least match error) keeps it; the others are read again among the faces
        no tile has kept and the back, up to FACE_ROUNDS times (a face read again may be
        taken too)."""
        for _ in range(FACE_ROUNDS):
            claims: dict[str, list[dict]] = {}
            for tile in tiles:
                if tile.get("face") == "up":
                    claims.setdefault(f"{tile['suit']}-{tile['rank']}", []).append(tile)
            twins = [sorted(group, key=lambda t: t["_error"])[1:] for group in claims.values() if len(group) > 1]
            if not twins:
                return
            free = set(self._tiles[0]) - set(claims)
            for tile in itertools.chain.from_iterable(twins):
                self._read_tile(pv, tile, classes, covered, free)

    def _tile_patches(self, pv: PlaneView, xy, angle: float, classes, covered, pad: int):
        """(classes, seen, log ratio) patches of a tile, `pad` pixels wider on each side than
        the templates; the log ratio flattened on the stock seen inside the tile, or where the
        card classes show less than half of it (a back whose print is the faces' stock, its
        own card taken for a suit's colour), on its dominant colour."""
        n = self.profile.tiles["back"].shape[0] + 2 * pad
        cls = sample(classes, pv, xy, angle, n, pp.TILE_MM)
        seen = (sample(covered, pv, xy, angle, n, pp.TILE_MM) == 0) & (cls != pp.UNKNOWN)
        inside = np.zeros((n, n), bool)
        inside[pad:n - pad, pad:n - pad] = True
        patch = sample(pv.logratio, pv, xy, angle, n, pp.TILE_MM)
        shown = seen & inside
        card = _in_classes(cls, CARD) & shown
        if np.count_nonzero(card) < CARD_SHARE * np.count_nonzero(shown):    # the card's colour misread
            card = shown & (np.abs(patch - np.median(patch[shown], axis=0)).max(axis=2) < DOMINANT)
        return cls, seen, flatten(patch, card, int(MIN_CARD * inside.sum()))

    def _settle(self, pv: PlaneView, xy, angle: float, suit: str, turn: int, classes, covered):
        """The tile's centre and turn (xy, angle) moved by up to SETTLE_SHIFT pixels, then turned
        by SETTLE_TURN degrees either way (and moved two pixels more), to where the art its suit's
        faces share (the corner symbols, in the face's quarter turn `turn` or the opposite
        one: the match may take one for the other) fits best: a tile whose stock outline a
        piece on it cuts may be placed 1.5 mm and 2 degrees off, which misaligns the small
        numerals that must tell its face. None when the shared art is mostly hidden."""
        n, r = self._suit_art[suit][0].shape[0], SETTLE_SHIFT
        dy, dx = _SETTLE_DY, _SETTLE_DX
        looks = [self._looks[suit, t] for t in (turn, (turn + 2) % 4)]
        _, seen, big = self._tile_patches(pv, xy, angle, classes, covered, r)
        fits = [_art_fit(big, seen, look, slice(None)) for look in looks]
        chosen = int(np.argmax([f.max() for f in fits]))
        look, best = looks[chosen], fits[chosen]
        k = int(np.argmax(best))
        shift, cos, turned = (dx[k], dy[k]), best[k], 0.0
        near = np.nonzero((np.abs(dx - dx[k]) <= 2) & (np.abs(dy - dy[k]) <= 2))[0]
        for step in (-SETTLE_TURN, SETTLE_TURN):
            _, seen, big = self._tile_patches(pv, xy, angle + step, classes, covered, r)
            fit = _art_fit(big, seen, look, near)
            j = int(np.argmax(fit))
            if fit[j] > cos:
                shift, cos, turned = (dx[near[j]], dy[near[j]]), fit[j], step
        if cos <= -1.0:
            return None
        M = patch_to_view(pv, xy, angle + turned, n, pp.TILE_MM)
        col, row = M[:, :2] @ np.array([shift[0] + n / 2 - 0.5, shift[1] + n / 2 - 0.5]) + M[:, 2]
        return tuple(float(v) for v in pv.mm(col, row)), angle + turned

    def _suit_by_marks(self, name: str, turn: int, big: np.ndarray, seen: np.ndarray) -> str:
        """An unsure face's suit told by its suit marks alone (where the four faces of its rank
        differ): the suit whose enrolled face matches the patch best there (cosine, the face
        moved by up to SHIFT pixels). An edition that prints every rank in black tells the
        suits apart by small marks only, faint at a webcam's resolution, which the match over
        the whole face weighs little against the large numeral all four share. `big`: the
        face's log ratio to its stock, SHIFT pixels wider on each side than `seen`."""
        rank = name.split("-")[1]
        marks = np.rot90(self._marks.get(rank, np.zeros(seen.shape, bool)), turn) & seen
        if np.count_nonzero(marks) < MIN_MARK_PX or rank not in self._marked_ranks:
            return name
        n = seen.shape[0]
        windows = np.array([big[dy:dy + n, dx:dx + n][marks] for dy in range(2 * SHIFT + 1)
                            for dx in range(2 * SHIFT + 1)]).reshape(-1, 3 * np.count_nonzero(marks))
        windows /= np.maximum(np.linalg.norm(windows, axis=1, keepdims=True), 1e-6)
        best, fit = name, -1.0
        for suit in pp.SUITS:
            face = self.profile.tiles.get(f"{suit}-{rank}")
            if face is None:
                continue
            art = np.rot90(face, turn)[marks].ravel()
            cos = float((windows @ art).max()) / max(float(np.linalg.norm(art)), 1e-6)
            if cos > fit:
                best, fit = f"{suit}-{rank}", cos
        return best

    def _half_turn(self, name: str, turn: int, cls: np.ndarray, label: int) -> int:
        """Of a face's `turn` and the opposite one, the one whose print shows in its colour
        (`label`) the more: the art is nearly symmetric under a half turn, and the template
        match hardly tells them apart when a piece hides the centre numeral."""
        shown = [float(np.mean(cls[self._ink[name, t] > 0] == label)) for t in (turn, (turn + 2) % 4)]
        return (turn + 2) % 4 if shown[1] > shown[0] + HALF_TURN else turn

    def _finalists(self, big: np.ndarray, seen: np.ndarray, first,
                   among: set | None = None) -> tuple[str, int, float, float, tuple[int, int]]:
        """The best of the coarse match's finalists at full resolution, the tile moved by up to
        SHIFT pixels: (name, turn, confidence, error, (dx, dy) the move in pixels). Finalists
        are the faces the coarse match could not tell from the best (or, given `among`, every
        face named there), each at its best quarter turn and the opposite one (the art is
        nearly symmetric under a half turn: with the centre numeral hidden, a tile placed a
        millimetre off may match better turned round)."""
        if among is None:
            close = {name: turn for name, turn, err in first[4][:TILE_FINALISTS] if err <= first[3] * (1 + SURE)}
        else:
            close = {name: turn for name, turn, _ in first[4] if name in among}
        names, stack, squares = self._tiles_fine
        rows = [4 * names.index(name) + t for name, turn in close.items() for t in (turn, (turn + 2) % 4)]
        name, half, conf, error, _, at = _match_window(big, seen, (list(close), stack[rows], squares[rows]))
        dy, dx = divmod(at, 2 * SHIFT + 1)
        return name, (close[name] + 2 * half) % 4, conf, error, (dx - SHIFT, dy - SHIFT)

    # --- standing pieces -----------------------------------------------------------------------
    def _standing(self, pv: PlaneView, classes, suited, tiles, prints, where: Places) -> tuple[list[dict], np.ndarray]:
        """Standing pieces, and the view pixels they cover. The tiles' print in a piece's own
        colour (`prints`: suit class labels of the print as read, and of the print turned
        round) counts neither for nor against its shape; of the two, the one that leaves the
        piece the better explained (a piece hiding its own suit's centre numeral hides what
        tells the tile's half turn). Blobs are explained once; then every piece that touches
        another (unless explained almost perfectly), and every part left unexplained (pieces
        partly hidden behind others), again with the other pieces left out too."""
        s = pv.top.mm_per_px
        found, pending = [], []      # (blob, (fields, fit), the tiles' print it ignores)
        for blob in _blobs(suited, MIN_PIECE_MM2 / s ** 2, ""):
            for part in self._by_suit(blob, classes, pv.logratio, s):
                whole, own_print = self._fit_over_print(pv, part, tiles, classes, prints, where)
                if whole is not None and whole[1].iou >= SINGLE_IOU:
                    found.append((part, whole, own_print))
                    continue
                for piece in _cut_edges(split(part, 9.0 / s, 4.0 / s), part, s):
                    fit = self._fit_standing(pv, piece, tiles, own_print, where)
                    (found if fit is not None and fit[1].iou >= MIN_IOU else pending).append((piece, fit, own_print))
        covered = _painted(found, classes.shape)
        for i, (blob, fit, own_print) in enumerate(found):
            if fit[1].iou >= CLEAR_IOU:
                continue
            x0, y0, x1, y1 = blob.box
            others = _painted([item for item in found[:i] + found[i + 1:] if _overlap(item[0].box, blob.box)],
                              classes.shape)
            if np.any(others[y0:y1, x0:x1] & cv2.dilate(fit[1].mask, np.ones((7, 7), np.uint8))):
                again = self._fit_standing(pv, blob, tiles, others | own_print, where)
                if again is not None and again[1].iou > fit[1].iou:
                    found[i] = (blob, again, own_print)
                    _paint_fit(covered, blob, again[1])
        for part, _, own_print in pending:
            fit = self._fit_standing(pv, part, tiles, covered | own_print, where)
            if fit is not None and fit[1].iou >= MIN_IOU:
                found.append((part, fit, own_print))
                _paint_fit(covered, part, fit[1])
            elif fit is not None and fit[1].iou >= DOUBT_IOU:
                fit[0]["_doubtful"] = True
                found.append((part, fit, own_print))
        scraps = self._scraps([fit[1] for _, fit, _ in found])
        if scraps:
            found = [item for k, item in enumerate(found) if k not in scraps]
            covered = _painted(found, classes.shape)
        return [fit[0] for _, fit, _ in found], covered

    def _read_again(self, pv: PlaneView, standing: list[dict], tiles: list[dict], board: set) -> list[dict]:
        """The standing pieces as the standing-piece network reads them: a piecepack pyramid's
        letter the one that the network and the silhouette's overlap with each letter's
        outline agree on best (log probability + overlap / IOU_SCALE), the letters of one suit's
        pyramids distinct (`_letters`); a piece's type (pyramid, die or pawn, among those that
        may stand there, and a pyramid wherever the network is sure of one where the game's
        board has them, `board`: its tile may be one not found) the one the network finds
        likeliest; a piece the network
        reads as no piece with probability NO_PIECE or more left out, and a doubtful one (a
        part its shape explains less well than MIN_IOU) unless the network is sure it is a
        piece. Without the network doubtful pieces are left out."""
        ious = [f.pop("_ious", None) for f in standing]
        doubtful = [f.pop("_doubtful", False) for f in standing]
        types, yaws = [f.pop("_types") for f in standing], [f.pop("_yaw") for f in standing]
        if not standing or not standnet.available():
            return [f for f, d in zip(standing, doubtful) if not d]
        z0s = [self.dims.tile_thickness if _over_tile((f["x"], f["y"]), tiles, self.dims.tile) else 0.0 for f in standing]
        crops = [standnet.crop(pv, f["x"], f["y"], z0) for f, z0 in zip(standing, z0s)]
        kept, fits = [], {}
        for f, p, iou, doubt, allowed, yaw, z0 in zip(standing, standnet.probabilities(np.stack(crops)), ious,
                                                      doubtful, types, yaws, z0s):
            if p[standnet.NONE] >= (SURE_PIECE if doubt else NO_PIECE):
                continue
            belief = {"pp_pyramid": p[:len(PP_LETTERS)].sum(), "die": p[standnet.CLASSES.index("die")],
                      "pawn": p[standnet.CLASSES.index("pawn")]}
            if belief["pp_pyramid"] >= SURE_PYRAMID and "pp_pyramid" in board:   # on a tile not found
                allowed = allowed | {"pp_pyramid"}
            kind = max(sorted(allowed), key=belief.get)
            if kind != f["type"]:
                self._retype(pv, f, kind, SimpleNamespace(x=f["x"], y=f["y"], yaw=yaw), z0, belief[kind])
            if kind == "pp_pyramid":
                shape = np.array(iou) / IOU_SCALE if iou is not None else 0.0
                fits.setdefault(f["suit"], []).append((f, np.log(p[:len(PP_LETTERS)] + 1e-6) + shape))
            kept.append(f)
        for pyramids in fits.values():
            for (f, _), k in zip(pyramids, _letters(np.array([fit for _, fit in pyramids]))):
                f["size"] = PP_LETTERS[k]
        return kept

    def _retype(self, pv: PlaneView, f: dict, kind: str, fit, z0: float, belief: float) -> None:
        """Make a standing piece's fields those of a piece of type `kind` at its place (a die's
        rank read there; a pyramid's letter is set with its suit's others)."""
        for key in ("size", "pose", "rank"):
            f.pop(key, None)
        f["type"] = kind
        if kind == "pp_pyramid":
            f["pose"] = "standing"
        if kind == "die":
            f["rank"], conf = self._read_die(pv, fit, z0, f["suit"])
            belief = min(belief, conf)
        f["confidence"] = round(min(f["confidence"], float(belief)), 2)

    def _scraps(self, fits: list) -> set[int]:
        """Indices of the fits that are the smaller of two whose bases overlap by more than
        BASE_OVERLAP of the smaller base: solid pieces cannot, so it is a scrap (a part of the
        larger piece or the print beside it cut off as a piece of its own)."""
        bases: dict[int, Polygon] = {}

        def base(k: int) -> Polygon:
            if k not in bases:
                f = fits[k]
                bases[k] = Polygon(f.shape.footprint(f.x, f.y, f.yaw, self.dims))
            return bases[k]

        reach = max(self.dims.pp_pyramid_base.values()) * math.sqrt(2)     # two bases' half-diagonals
        gone = set()
        for i, j in itertools.combinations(range(len(fits)), 2):
            a, b = fits[i], fits[j]
            if math.hypot(a.x - b.x, a.y - b.y) >= reach or not base(i).intersects(base(j)):
                continue
            small = min((i, j), key=lambda k: (base(k).area, fits[k].iou))
            if small not in gone and base(i).intersection(base(j)).area > BASE_OVERLAP * base(small).area:
                gone.add(small)
        return gone

    def _fit_over_print(self, pv: PlaneView, blob: Blob, tiles, classes, prints, where: Places):
        """(fit, print ignored) of a blob as one piece, the tiles' print of its colour ignored
        as read or, unless that explains the piece almost perfectly and the turned print
        explains it better, turned round."""
        own = [_own_print(p, classes, blob) for p in prints]
        whole = self._fit_standing(pv, blob, tiles, own[0], where)
        x0, y0, x1, y1 = blob.box       # the prints are empty beyond the blob's box
        if (whole is not None and whole[1].iou >= CLEAR_IOU) or np.array_equal(own[0][y0:y1, x0:x1], own[1][y0:y1, x0:x1]):
            return whole, own[0]
        other = self._fit_standing(pv, blob, tiles, own[1], where)
        if other is None or (whole is not None and other[1].iou <= whole[1].iou):
            return whole, own[0]
        tile = _tile_at((other[1].x, other[1].y), tiles, self.dims.tile)
        if tile is not None:
            tile["_turned"] = tile["angle"]      # the print under the piece is this tile's, turned round
        return other, own[1]

    @staticmethod
    def _by_suit(blob: Blob, classes: np.ndarray, logratio: np.ndarray, s: float) -> list[Blob]:
        """The blob's pixels of each suit it mostly holds, as solid parts labelled with the
        suit (pieces of several suits may touch; printed strokes of other suits may too), each
        with its whole outline out to its edge's half-way level (`_half_edge`)."""
        x0, y0, x1, y1 = blob.box
        cls = classes[y0:y1, x0:x1]
        inside = blob.mask > 0
        counts = np.array([np.count_nonzero(inside & (cls == c)) for c in SUIT_IDS])
        total = max(1, int(counts.sum()))
        major = [i for i in np.argsort(-counts) if counts[i] >= max(MIN_PART_MM2 / s ** 2, 0.1 * total)]
        parts = []
        grow = _disc(REGROW_MM, s)
        for i in major:
            own = _solid((inside & (cls == SUIT_IDS[i])).astype(np.uint8) * 255, s, MIN_PART_MM2 / 2)
            raw = fill_holes((cls == SUIT_IDS[i]).astype(np.uint8) * 255, GLYPH_HOLE_MM2 / s ** 2) > 0
            for b in _blobs(own, MIN_PART_MM2 / s ** 2, ""):
                box = (x0 + b.box[0], y0 + b.box[1], x0 + b.box[2], y0 + b.box[3])
                full = (cv2.dilate(b.mask, grow) & raw[b.box[1]:b.box[3], b.box[0]:b.box[2]]).astype(np.uint8)
                full = _half_edge(full, logratio[box[1]:box[3], box[0]:box[2]], classes[box[1]:box[3], box[0]:box[2]])
                parts.append(Blob(b.mask, box, pp.SUITS[i], full))
        return parts

    def _fit_standing(self, pv: PlaneView, blob: Blob, tiles, hidden, where: Places):
        """(fields, fit) of the best shape for a blob, or None. `hidden`: view pixels that count
        neither way; `where`: the shapes that may stand where the blob is."""
        rows, cols = np.nonzero(blob.mask)
        if len(rows) * pv.top.mm_per_px ** 2 < MIN_PART_MM2:
            return None
        centre = pv.mm(cols.mean() + blob.box[0], rows.mean() + blob.box[1])
        z0 = self.dims.tile_thickness if _over_tile(centre, tiles, self.dims.tile) else 0.0
        x0, y0, x1, y1 = blob.box
        ignore = hidden[y0:y1, x0:x1]
        if where.hands is not None:     # an arm over part of a piece is no evidence against its size
            ignore = ignore | where.hands[y0:y1, x0:x1]
        if blob.full is not None:       # the whole piece; the tile's print of its colour ignored
            fitter = Fitter(pv, blob.full, blob.box, z0, self.dims, ignore)
        else:                           # a part cut from a blob: compare outlines opened alike
            fitter = Fitter(pv, blob.mask, blob.box, z0, self.dims, ignore, _disc(OPEN_MM, pv.top.mm_per_px))
        shapes, pyramid = where.shapes(blob, z0 > 0 or _within_board(centre, tiles, self.dims.tile))
        fits = fitter.ranked(shapes, blob_yaw(blob.mask))
        if not fits:
            return None
        # Shapes about as good (any game): on the board a piecepack pyramid, beside it a die or pawn.
        close = [f for f in fits if f.iou > fits[0].iou - RIVAL_IOU]
        preferred = [f for f in close if (f.shape.type == "pp_pyramid") == pyramid]
        fit = preferred[0] if preferred else fits[0]
        fields = {"type": fit.shape.type, "suit": blob.label, "x": round(fit.x, 1), "y": round(fit.y, 1),
                  "_types": {sh.type for sh in shapes}, "_yaw": fit.yaw}
        if fit.shape.type == "pp_pyramid":
            fields.update(size=fit.shape.size, pose="standing")
            fields["_ious"] = [fitter.score(sh, *fitter.place(sh, fit.yaw), fit.yaw).iou for sh in PYRAMIDS]
        elif fit.shape.type == "die":
            fields["rank"], conf = self._read_die(pv, fit, z0, blob.label)
            fields["confidence"] = round(min(conf, _iou_conf(fit.iou)), 2)
        fields.setdefault("confidence", round(_iou_conf(fit.iou), 2))
        return fields, fit

    def _light_dice(self, pv: PlaneView, classes, tiles, found: list[dict], covered) -> list[dict]:
        """Dice of card-coloured stock (an edition's light dice, their glyph in the suit's
        colour) beside the board: the suit-coloured blobs standing pieces are found from lose
        their thin glyph to the opening. Areas of stock or coin wood shaped like a die (its top
        and the sides that show: 0.6 to 2.6 tops' area, sides 0.8 to 1.9 tops', filling 70 % of
        their rectangle with the glyph, which may cut the card's outline) off every tile and
        clear of the pieces found, with a suit's colour in that rectangle, where the
        standing-piece network reads a die more probably than not; the suit is the colour most
        of the glyph shows, the rank read as any die's."""
        if not standnet.available():
            return []
        s, d = pv.top.mm_per_px, self.dims.die
        card = fill_holes(_in_classes(classes, (STOCK, COIN)).astype(np.uint8) * 255)
        nadir = np.asarray(pv.centre[:2], np.float64)
        # the blob is the top and the sides: seen about half-way up, where the base shows moved out
        lean = np.mean([(pv.centre[2] + pv.height) / (pv.centre[2] + z) for z in (0.0, d)])
        out = []
        for blob in _blobs(card, LIGHT_DIE[0] * d * d / s ** 2, "die", max_px=LIGHT_DIE[1] * d * d / s ** 2):
            ys, xs = np.nonzero(blob.mask)
            rect = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
            (cx, cy), (w, h), turn = rect
            if not (LIGHT_DIE_SIDES[0] * d <= min(w, h) * s and max(w, h) * s <= LIGHT_DIE_SIDES[1] * d):
                continue
            x0, y0, x1, y1 = blob.box
            inside = np.zeros_like(blob.mask)
            cv2.fillPoly(inside, [np.round(cv2.boxPoints(rect)).astype(np.int32)], 1)
            box = classes[y0:y1, x0:x1]             # the glyph may cut the card's outline
            glyph = [np.count_nonzero((box == k) & (inside > 0)) for k in SUIT_IDS]
            if np.count_nonzero((inside > 0) & ((blob.mask > 0) | _suit_coloured(box))) < LIGHT_DIE_FILL * w * h:
                continue
            xy = nadir + (pv.mm(cx + x0, cy + y0) - nadir) / lean
            if _over_tile(xy, tiles, self.dims.tile) \
                    or covered[y0:y1, x0:x1][blob.mask > 0].mean() > LIGHT_DIE_COVERED \
                    or any(math.hypot(f["x"] - xy[0], f["y"] - xy[1]) < d for f in found + out):
                continue
            if max(glyph) < MIN_GLYPH_MM2 / s ** 2:
                continue
            p = standnet.probabilities(standnet.crop(pv, xy[0], xy[1], 0.0)[None])[0]
            if p[standnet.CLASSES.index("die")] < 0.5:      # more probably a die than not
                continue
            suit = pp.SUITS[int(np.argmax(glyph))]
            rank, conf = self._read_die(pv, SimpleNamespace(x=xy[0], y=xy[1], yaw=turn % 90.0), 0.0, suit)
            out.append({"type": "die", "x": round(float(xy[0]), 1), "y": round(float(xy[1]), 1), "suit": suit,
                        "rank": rank, "angle": tenth_degree(turn % 90.0), "confidence": round(min(conf, float(p.max())), 2)})
        return out

    def _read_die(self, pv: PlaneView, fit, z0: float, suit: str) -> tuple[int, float]:
        n = next(iter(self.profile.dice.values())).shape[0]
        top = on_plane(np.array([[fit.x, fit.y]]), pv.centre, z0 + self.dims.die, pv.height)[0]
        own = {name for name in self._dice[0] if name.startswith(suit + "-")}
        centre = sample(pv.logratio, pv, top, fit.yaw, n, pp.DIE_MM)
        name, _, conf = _match_shifted(pv.logratio, pv, top, fit.yaw, n, pp.DIE_MM, np.ones((n, n), bool),
                                       self._dice, own or None, 3, die_body(centre), cosine=False)[:3]
        return int(name.split("-")[1]), conf

    # --- coins -----------------------------------------------------------------------------------
    def _coins_found(self, pv: PlaneView, classes, tiles, covered, suit_up: bool = False) -> list[dict]:
        """Coins (their areas are marked in `covered`): discs of the coins' colour, islands
        of the tiles' card no larger than a few coins (an edition whose coins are printed on
        the tiles' card: on a coloured back or the cloth, a coin shows as such an island), and
        then islands of both together (a coin the classes part between wood and card, or whose
        card touches a back's light print), opened by a disc MIXED_CORE of a coin wide.
        `suit_up`: the game's coins are played suit side up (`_read_coin`)."""
        s = pv.top.mm_per_px
        r = self.dims.coin / 2
        largest = ISLAND_COINS * math.pi * r * r / s ** 2
        wood = cv2.morphologyEx(fill_holes((classes == COIN).astype(np.uint8) * 255), cv2.MORPH_OPEN, _disc(OPEN_MM, s))
        card = _islands(fill_holes((classes == STOCK).astype(np.uint8) * 255), largest)
        out = []
        for kind, part, centre in self._discs(wood, COIN, s) + self._discs(card, STOCK, s):
            self._add_coin(pv, classes, tiles, covered, kind, part, centre, out, suit_up=suit_up)
        either = fill_holes((_in_classes(classes, (COIN, STOCK)) & (covered == 0)).astype(np.uint8) * 255)
        half = cv2.resize(either, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_NEAREST)   # wide: coarse will do
        half = _islands(cv2.morphologyEx(half, cv2.MORPH_OPEN, _disc(MIXED_CORE * self.dims.coin, 2 * s)), largest / 4)
        either &= cv2.resize(cv2.dilate(half, np.ones((3, 3), np.uint8)), either.shape[::-1],
                             interpolation=cv2.INTER_NEAREST)       # the edge as the full view shows it
        for _, part, centre in self._discs(either, MIXED, s):
            cls = classes[part.box[1]:part.box[3], part.box[0]:part.box[2]][part.mask > 0]
            kind = COIN if np.count_nonzero(cls == COIN) > np.count_nonzero(cls == STOCK) else STOCK
            self._add_coin(pv, classes, tiles, covered, kind, part, centre, out, MIXED, suit_up)
        return out

    def _add_coin(self, pv: PlaneView, classes, tiles, covered, kind: int, part, centre, out: list,
                  source: int | None = None, suit_up: bool = False) -> None:
        """The coin of stock class `kind` shaped by `part` (`centre` in its box) added to
        `out` (its area to `covered`) when it lies as a coin (`_ground_share`, for card) and a
        coin's side explains it (`_read_coin`); `source` the class of the mask it came from,
        when other than `kind`."""
        s = pv.top.mm_per_px
        x0, y0, x1, y1 = part.box
        if (source or kind) != COIN and _ground_share(part, classes, s) < ISLAND_GROUND:
            return                  # card cut off a face by the pieces on it
        seen_at = pv.mm(centre[0] + x0, centre[1] + y0)
        on = _over_tile(seen_at, tiles, self.dims.tile)
        height = (self.dims.tile_thickness if on else 0.0) + COIN_THICKNESS
        fields = self._read_coin(pv, seen_at, classes, kind, suit_up)
        if fields is None:
            return                  # the colour and size of a coin, but no coin's face
        x, y = raise_point(seen_at, pv.centre, pv.height, height)
        fields.update(x=round(float(x), 1), y=round(float(y), 1))
        out.append(fields)
        covered[y0:y1, x0:x1] |= cv2.dilate(part.mask, np.ones((5, 5), np.uint8))

    def _discs(self, mask: np.ndarray, kind: int, s: float) -> list[tuple]:
        """(kind, part, its disc's centre in the part's box) for each part of the mask shaped
        like a coin (a disc's IoU at least COIN_IOU, ISLAND_IOU for islands of card, or of card
        and wood); a part larger than one and a half coins is split first."""
        r, least = self.dims.coin / 2, COIN_IOU if kind == COIN else ISLAND_IOU
        out = []
        for blob in _blobs(mask, MIN_COIN_MM2 / s ** 2, "coin"):
            parts = split(blob, 14.0 / s, 6.0 / s) if np.count_nonzero(blob.mask) * s * s > 1.5 * math.pi * r * r \
                else [blob]
            for part in parts:
                centre = _disc_centre(part.mask, self.dims.coin / s)
                if _disc_iou(part.mask, centre, self.dims.coin / s) >= least:
                    out.append((kind, part, centre))
        return out

    def _read_coin(self, pv: PlaneView, xy, classes, kind: int = COIN, suit_up: bool = False) -> dict | None:
        """The coin at `xy` (moved by up to a millimetre: a disc's centre is found to about that),
        its stock of colour class `kind`: its side, suit or rank and turn; None when no side
        explains it (match error over NOT_A_COIN: plain card of the coins' colour, as some
        editions' tiles are). With `suit_up` (a game whose coins are played suit side up) a
        coin shows its value only where that fits clearly better than any suit: the best suit
        side's match error more than SUIT_UP_MARGIN over the value side's."""
        n = self.profile.coins[next(iter(self.profile.coins))].shape[0]
        patch = sample(pv.logratio, pv, xy, 0.0, n, pp.COIN_MM)
        cls = sample(classes, pv, xy, 0.0, n, pp.COIN_MM)
        wood = cls == kind
        level = np.median(patch[wood], axis=0) if np.count_nonzero(wood) > 20 else np.median(
            patch.reshape(-1, 3), axis=0)
        yy, xx = np.mgrid[0:n, 0:n] - (n - 1) / 2
        inside = np.hypot(xx, yy) * pp.COIN_MM < self.dims.coin / 2 - 1.2
        name, turn, conf, error, ranked = _match_shifted(pv.logratio, pv, xy, 0.0, n, pp.COIN_MM, inside,
                                                         self._coins, level=level)[:5]
        if error > NOT_A_COIN:
            return None
        if suit_up and not name.startswith("suit-"):
            suit = next(((nm, t, e) for nm, t, e in ranked if nm.startswith("suit-")), None)
            if suit is not None and suit[2] <= (1 + SUIT_UP_MARGIN) * error:
                name, turn, conf = suit[0], suit[1], min(conf, 0.5)
        side, what = name.split("-")
        fields = {"type": "coin", "face": side, "angle": tenth_degree(turn * 360.0 / COIN_TURNS),
                  "confidence": conf}
        if side == "suit":
            fields["suit"] = what
        else:
            fields["rank"] = int(what)
        return fields


_SETTLE_DY, _SETTLE_DX = (a.ravel() for a in np.mgrid[-SETTLE_SHIFT:SETTLE_SHIFT + 1, -SETTLE_SHIFT:SETTLE_SHIFT + 1])


def _letters(fits: np.ndarray) -> tuple:
    """Each pyramid's letter (index) from its fit to each letter (pyramids x letters, higher
    better): a piecepack has one pyramid of each letter in a suit, so the letters of one
    suit's pyramids are the distinct ones of the best total fit; each its best fit alone when
    there are more pyramids than letters."""
    n, letters = fits.shape
    if n > letters:
        return tuple(fits.argmax(axis=1))
    rows = np.arange(n)
    return max(itertools.permutations(range(letters), n), key=lambda ks: fits[rows, ks].sum())


def _look(mean: np.ndarray, shared: np.ndarray, turn: int) -> tuple:
    """A suit's shared art in a quarter turn, as `_art_fit` compares it: (index of its pixels
    in a patch SETTLE_SHIFT pixels wider on each side, per shifted window (row-major), the
    art, its squares per pixel)."""
    ys, xs = np.nonzero(np.rot90(shared, turn))
    art = np.rot90(mean, turn)[ys, xs]
    width = mean.shape[1] + 2 * SETTLE_SHIFT
    flat = (ys[None, :] + SETTLE_SHIFT + _SETTLE_DY[:, None]) * width + xs[None, :] + SETTLE_SHIFT + _SETTLE_DX[:, None]
    return flat, art.ravel(), (art * art).sum(axis=1)


def _art_fit(big: np.ndarray, seen: np.ndarray, look, windows) -> np.ndarray:
    """Cosine similarity of the shared art of a `look` (see `_look`) with the seen pixels of
    `big`, per window in `windows`; -1 where the art is mostly hidden."""
    flat, art, art2 = look
    index = flat[windows]
    w = np.take(seen.reshape(-1), index).astype(np.float32)
    f = np.take((big * seen[..., None]).reshape(-1, 3), index, axis=0)
    cos = (f.reshape(len(f), -1) @ art) / np.sqrt(np.maximum(np.einsum("spc,spc->s", f, f) * (w @ art2), 1e-12))
    cos[w.sum(axis=1) < 0.5 * len(art2)] = -1.0
    return cos


def shared_art(tiles: dict) -> tuple[dict, dict]:
    """(templates, suit art): tile templates whose art common to every face of a suit is the
    suit's mean, and per suit that mean with the 0/1 mask of where it is shared. Shared art
    is each blot of print (ink on any face) that is mostly ink on every face (the corner
    symbols; the numerals are ink on few), with the blur round it. Each template is learned
    from one photo; left apart, their copies of the same symbol differ a little in contrast
    and blur, and with the centre numeral hidden those differences outweighed the small
    numerals that tell the faces apart."""
    out, art = dict(tiles), {}
    grow = np.ones((3, 3), np.uint8)
    for suit in pp.SUITS:
        names = [n for n in tiles if n.split("-")[0] == suit]
        if len(names) < 2:
            continue
        stack = np.array([tiles[n] for n in names])
        ink = (np.abs(stack).max(axis=3) > INK).astype(np.uint8)
        n, labels = cv2.connectedComponents(cv2.dilate(ink.max(axis=0), grow))
        share = np.bincount(labels[ink.min(axis=0) > 0], minlength=n) / np.maximum(
            np.bincount(labels[ink.max(axis=0) > 0], minlength=n), 1)
        shared = cv2.dilate(((share >= 0.5) & (np.arange(n) > 0))[labels].astype(np.uint8), grow)
        mean = stack.mean(axis=0)
        art[suit] = (mean, shared)
        for name in names:
            out[name] = np.where(shared[..., None] > 0, mean, tiles[name]).astype(np.float32)
    return out, art


def die_body(patch: np.ndarray) -> np.ndarray:
    """The colour of a die's face around its glyph: the median of the patch's outer ring (a
    glyph, however large, stays clear of the face's edge; the patch's middle may be mostly
    glyph)."""
    ring = np.ones(patch.shape[:2], bool)
    ring[2:-2, 2:-2] = False
    return np.median(patch[ring], axis=0)


def _suit_coloured(classes: np.ndarray) -> np.ndarray:
    """Boolean mask of the pixels classed as one of the suits' colours."""
    return (classes >= SUIT_IDS[0]) & (classes <= SUIT_IDS[-1])


def _half_edge(mask: np.ndarray, logratio: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """A piece's 0/1 `mask` (crops of a view) with its edge moved to the half-way level: the
    pixels just outside it that lie nearer the piece's colour than the ground's around it,
    in linear light, are added, and its rim pixels nearer the ground's are taken off. A
    blurred edge is a mix of the two, and the colour classes, judged on log ratios, do not
    cut it half way: a black pyramid on a bright tile kept only its pixels three quarters
    dark (its outline shrank by about a pixel all round, one letter), a pawn on the cloth
    or a pyramid over its own suit's numeral took in a pixel beyond its edge."""
    def grown(k: int) -> np.ndarray:
        return cv2.dilate(mask, np.ones((k, k), np.uint8)) > 0

    plain = ~_suit_coloured(cls)
    ring = grown(3) & (mask == 0) & plain
    core = cv2.erode(mask, np.ones((5, 5), np.uint8)) > 0
    ground = grown(7) & ~grown(5) & plain & (cls != pp.UNKNOWN)
    if not core.any() or not ground.any() or not ring.any():
        return mask
    piece, bare = _median(np.exp(logratio[core])), _median(np.exp(logratio[ground]))
    span = piece - bare
    edge = ring | ((mask > 0) & (cv2.erode(mask, np.ones((3, 3), np.uint8)) == 0))
    out = (mask > 0).astype(np.uint8)
    out[edge] = (np.exp(logratio[edge]) - bare) @ span / max(float(span @ span), 1e-6) >= 0.5
    return out


def _median(values: np.ndarray) -> np.ndarray:
    """`np.median(values, axis=0)` of rows of values (the same result), without its checks."""
    k = len(values) // 2
    if len(values) % 2:
        return np.partition(values, k, axis=0)[k]
    return np.partition(values, (k - 1, k), axis=0)[k - 1:k + 1].mean(axis=0)


def _suit_marks(tiles: dict) -> dict:
    """Per rank, the 0/1 mask of where its faces' print differs from suit to suit (a face
    further than MARK_SPREAD from their mean, clear of the print all four share): the suit
    marks. Thin marks at a webcam's resolution are faint, short of the ink's contrast."""
    out = {}
    for rank in {n.split("-")[1] for n in tiles if n != "back"}:
        faces = np.array([tiles[f"{suit}-{rank}"] for suit in pp.SUITS if f"{suit}-{rank}" in tiles])
        ink = np.abs(faces).max(axis=3) > INK
        shared = cv2.dilate(ink.all(axis=0).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        out[rank] = (np.abs(faces - faces.mean(axis=0)).max(axis=(0, 3)) > MARK_SPREAD) & ~shared
    return out


def _print_class(profile: pp.Profile, template: np.ndarray) -> int:
    """The suit class most of a tile face's print is classed as (0 when none): the colour a
    frame shows it in. The project's faces print in their suit's colour; other editions print
    the rank in black (the moons' class) or another suit's colour."""
    stock = profile.colors.means[profile.colors.names.index("stock")]
    ink = (np.abs(template).max(axis=2) > INK).astype(np.uint8)
    cls = profile.classify((template + stock).astype(np.float32), stock)
    return _ink_class(cls, ink, np.ones(ink.shape, bool))


def _ink_class(cls: np.ndarray, ink: np.ndarray, seen: np.ndarray) -> int:
    """The suit class most of a tile's seen print shows (`cls`, `ink`, `seen`: its patches),
    0 when no suit class holds most of it."""
    counts = np.bincount(cls[(ink > 0) & seen], minlength=256)
    suits = counts[list(SUIT_IDS)]
    best = int(np.argmax(suits))
    return SUIT_IDS[best] if suits[best] > 0.5 * max(1, int(suits.sum())) else 0


def _is_tile(tile: dict) -> bool:
    """Whether a tile box is a tile (once `_mark_skin` has run): see there."""
    return not tile["_skin"]


def _mark_skin(tiles: list[dict], hands: np.ndarray, pv: PlaneView, side: float) -> None:
    """Set each tile box's `_skin`: whether it is no tile but skin the profile takes for card.
    A box is a tile when a face or the back explains it (match error at most NOT_A_TILE), or
    little of it is cloth (a gap in the board is cloth) and either its print is in a suit's
    colour class (a face or back of an edition the profile knows badly: skin shows no such
    print) or it is not part of an arm: an arm comes in from beyond the view, so skin lies
    within HAND_REACH of an arm the network found, of the view's edge, or of another such box
    (the arm's skin taken for card runs on to the edge). A nearly blank face (a null with one
    small mark) away from any arm is a tile."""
    s = pv.top.mm_per_px
    h, w = hands.shape
    reach = (side / 2 + HAND_REACH) / s
    blank = []
    for tile in tiles:
        tile["_skin"] = tile["_error"] > NOT_A_TILE and (tile["_cloth"] > MAX_CLOTH or not tile["_label"])
        if tile["_skin"] and tile["_cloth"] <= MAX_CLOTH:
            blank.append(tile)
    armed = set()
    for k, tile in enumerate(blank):
        cx, cy = pv.px((tile["x"], tile["y"]))[0]
        x0, y0, x1, y1 = (int(max(0, cx - reach)), int(max(0, cy - reach)), int(min(w, cx + reach)),
                          int(min(h, cy + reach)))
        if x0 == 0 or y0 == 0 or x1 == w or y1 == h or hands[y0:y1, x0:x1].any():
            armed.add(k)
    while True:         # boxes next to a box of the arm are of the arm too
        more = {k for k, t in enumerate(blank) if k not in armed and any(
            math.hypot(t["x"] - blank[a]["x"], t["y"] - blank[a]["y"]) < side + HAND_REACH for a in armed)}
        if not more:
            break
        armed |= more
    for k, tile in enumerate(blank):
        tile["_skin"] = k in armed


def _skin(pv: PlaneView, tiles: list[dict], classes: np.ndarray, side: float) -> np.ndarray:
    """0/1 view mask of the pixels, not suit-coloured, of the "tiles" that are not tiles (see
    `_mark_skin`): skin, a hand or an arm whose colour the profile takes for the tiles' stock."""
    skin = np.zeros(classes.shape, np.uint8)
    for tile in tiles:
        if not _is_tile(tile):
            box = cv2.boxPoints((tuple(pv.px((tile["x"], tile["y"]))[0]), (side / pv.top.mm_per_px,) * 2, tile["_angle"]))
            cv2.fillConvexPoly(skin, np.round(box).astype(np.int32), 1)
    skin[_suit_coloured(classes)] = 0
    return skin


def _own_print(printed: np.ndarray, classes: np.ndarray, blob: Blob) -> np.ndarray:
    """0/1 view mask of the tiles' print in the blob's suit colour, over the blob's box."""
    x0, y0, x1, y1 = blob.box
    k = SUIT_IDS[pp.SUITS.index(blob.label)]
    out = np.zeros(printed.shape, np.uint8)
    out[y0:y1, x0:x1] = (printed[y0:y1, x0:x1] == k) & (classes[y0:y1, x0:x1] == k)
    return out


def _over_tile(xy, tiles: list[dict], side: float) -> bool:
    return _tile_at(xy, tiles, side) is not None


def _within(xy, tile: dict, angle: float, reach: float) -> bool:
    """Whether `xy` lies within `reach` of `tile`'s centre along both axes turned `angle`
    degrees: under the tile (`reach` half its side, its own turn), or where a tile would
    overlap it (`reach` a share of the side)."""
    a = math.radians(angle)
    dx, dy = xy[0] - tile["x"], xy[1] - tile["y"]
    return abs(dx * math.cos(a) + dy * math.sin(a)) <= reach and abs(-dx * math.sin(a) + dy * math.cos(a)) <= reach


def _tile_at(xy, tiles: list[dict], side: float) -> dict | None:
    """The tile under a point, if any."""
    return next((t for t in tiles if _within(xy, t, t.get("_angle", t.get("angle", 0.0)) or 0.0, side / 2)), None)


def _unhide(points: np.ndarray, pieces: np.ndarray, centre, size, angle: float, side_px: float):
    """(x, y, seen) of a tile whose stock shows shorter than the tile along an axis (pieces
    standing near an edge hide it): the edge away from the pieces is the tile's edge. `seen`
    is False when nothing hides what is missing along some short axis."""
    c = np.array(centre, np.float64)
    if min(size) >= HIDDEN_EDGE * side_px:
        return float(c[0]), float(c[1]), True
    a = math.radians(angle)
    axes = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    seen = True
    x0, y0 = np.maximum(points.min(axis=0) - int(side_px * 0.4), 0)
    x1, y1 = points.max(axis=0) + int(side_px * 0.4)
    rows, cols = np.nonzero(pieces[y0:y1, x0:x1])
    near = np.column_stack([cols + x0, rows + y0]).astype(np.float64)
    for k, extent in enumerate(size):
        if extent >= HIDDEN_EDGE * side_px:
            continue
        u = axes[k]
        lo, hi = -extent / 2, extent / 2
        t = (near - c) @ u if len(near) else np.zeros(0)
        across = np.abs((near - c) @ axes[1 - k]) < 0.5 * side_px if len(near) else np.zeros(0, bool)
        below, above = np.count_nonzero(across & (t < lo) & (t > lo - side_px / 2)), \
            np.count_nonzero(across & (t > hi) & (t < hi + side_px / 2))
        if max(above, below) < MIN_HIDER_PX:
            seen = False
        else:
            c = c + u * ((lo + side_px / 2) if above >= below else (hi - side_px / 2))
    return float(c[0]), float(c[1]), seen


def _grid(component: np.ndarray, rect: tuple, cells: tuple, side_px: float) -> tuple[float, list] | None:
    """(angle, centres in px of the cells covered by GRID_SHOWN or more) of the grid of
    tile-sized cells that explains an area of touching tiles best, when the area's rectangle
    `rect` cut into `cells` (cols, rows) leaves more than GRID_FIT of them unexplained and the
    grid explains it much better (GRID_GAIN); else None. A grid's misfit: in each cell, the
    area covered or the area not, whichever is less, summed. Grids turned within GRID_TURN
    degrees of the rectangle and moved by any offset are tried: every 2 degrees with cells
    half as fine, then every half degree about the best, offsets near its best. Parts that
    are no tile (a cloth's checks of the card's colour joined to the board) pull the
    rectangle askew and cover no whole cell."""
    ys, xs = np.nonzero(component)
    x0, y0 = xs.min(), ys.min()
    step = side_px / GRID_CELL                  # px of the component per grid pixel
    crop = component[y0:ys.max() + 1, x0:xs.max() + 1].astype(np.float32)
    small = cv2.resize(crop, (max(1, round(crop.shape[1] / step)), max(1, round(crop.shape[0] / step))),
                       interpolation=cv2.INTER_AREA)
    p = GRID_CELL
    u, v = _turn_map(small.shape, rect[2], p)[0] @ np.array([*((np.asarray(rect[0]) - (x0, y0) + 0.5) / step - 0.5), 1.0])
    own = _cell_misfits(small, rect[2], p, [round(v - cells[1] * p / 2 + 0.5) % p],
                        [round(u - cells[0] * p / 2 + 0.5) % p])[0][0, 0]
    if own < GRID_FIT * cells[0] * cells[1] * p * p:
        return None
    coarse = cv2.resize(small, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    rough = [(_cell_misfits(coarse, t, p // 2)[0], t) for t in rect[2] + np.arange(-GRID_TURN, GRID_TURN + 1e-9, 2.0)]
    misfit, turn = min(rough, key=lambda r: r[0].min())
    near = [np.arange(2 * o - 3, 2 * o + 4) % p for o in np.unravel_index(int(np.argmin(misfit)), misfit.shape)]
    misfit, sums, M, turn = min(((*_cell_misfits(small, t, p, *near), t) for t in turn + np.arange(-1.5, 1.6, 0.5)),
                                key=lambda r: r[0].min())
    i, j = np.unravel_index(int(np.argmin(misfit)), misfit.shape)
    if misfit[i, j] > GRID_GAIN * own:
        return None
    back = cv2.invertAffineTransform(M)
    centres = []
    for ky, kx in zip(*np.nonzero(sums[i, j] > GRID_SHOWN * p * p)):
        sx, sy = back @ np.array([near[1][j] + p * kx + p / 2 - 0.5, near[0][i] + p * ky + p / 2 - 0.5, 1.0])
        centres.append(np.array([x0 + (sx + 0.5) * step - 0.5, y0 + (sy + 0.5) * step - 0.5]))
    return turn, centres


def _turn_map(shape: tuple, turn: float, p: int) -> tuple[np.ndarray, int]:
    """(affine map, side) that turns an image of `shape` by `turn` degrees about its middle
    into the middle of a square wide enough for it and a cell of `p` pixels each side."""
    size = int(np.ceil(np.hypot(*shape))) + 2 * p
    middle = np.array([(shape[1] - 1) / 2, (shape[0] - 1) / 2])
    M = cv2.getRotationMatrix2D(tuple(middle), float(turn), 1.0)
    M[:, 2] += (size - 1) / 2 - middle
    return M, size


def _cell_misfits(small: np.ndarray, turn: float, p: int, oys=None, oxs=None) -> tuple:
    """(misfit per offset (oy, ox), cell sums per offset (oy, ox, ky, kx), the turn's affine
    map) of the grid of p x p cells over a coverage image `small` turned by `turn` degrees,
    its offsets those in `oys` and `oxs` (all by default)."""
    M, size = _turn_map(small.shape, turn, p)
    integral = cv2.integral(cv2.warpAffine(small, M, (size, size), flags=cv2.INTER_LINEAR), sdepth=cv2.CV_64F)
    k = p * np.arange(size // p + 2)[None, :]
    rows, cols = (np.minimum(np.asarray(o if o is not None else np.arange(p))[:, None] + k, size) for o in (oys, oxs))
    corner = integral[rows[:, None, :, None], cols[None, :, None, :]]    # (oy, ox, ky, kx)
    sums = corner[:, :, 1:, 1:] - corner[:, :, :-1, 1:] - corner[:, :, 1:, :-1] + corner[:, :, :-1, :-1]
    return np.minimum(sums, p * p - sums).sum(axis=(2, 3)), sums, M


def _group_fragments(ids: list, outlines: dict, limit_px: float) -> list[list]:
    """Fragments joined greedily while their outlines fit in a `limit_px` square."""
    groups: list[list] = []
    for i in ids:
        for group in groups:
            _, (w, h), _ = cv2.minAreaRect(np.vstack([outlines[j] for j in group + [i]]))
            if max(w, h) <= limit_px:
                group.append(i)
                break
        else:
            groups.append([i])
    return groups


def _ground_share(blob: Blob, classes: np.ndarray, s: float) -> float:
    """The share of a ring 1 to 3 mm round the blob that is coloured backs or cloth."""
    x0, y0, x1, y1 = blob.box
    near, far = (cv2.dilate(blob.mask, _disc(2 * mm, s)) for mm in (1.0, 3.0))
    ring = (far > 0) & (near == 0)
    return float(np.mean(_in_classes(classes[y0:y1, x0:x1][ring], (BACK, CLOTH)))) if ring.any() else 0.0


def _islands(mask: np.ndarray, max_px: float) -> np.ndarray:
    """The 0/255 mask's 4-connected parts of at most `max_px` pixels."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    keep = np.where(stats[:, cv2.CC_STAT_AREA] <= max_px, 255, 0).astype(np.uint8)
    keep[0] = 0
    return keep[labels]


def _disc_iou(mask: np.ndarray, centre, diameter_px: float) -> float:
    """Overlap (intersection over union) of a mask (0 / non-zero) with a disc at `centre` (col, row)."""
    disc = np.zeros(mask.shape, np.uint8)
    cv2.circle(disc, (int(round(centre[0])), int(round(centre[1]))), int(round(diameter_px / 2)), 255, -1)
    both, either = np.count_nonzero(disc & mask), np.count_nonzero(disc | mask)
    return both / either if either else 0.0


def _disc_centre(mask: np.ndarray, diameter_px: float) -> tuple[float, float]:
    """Where a disc of the coin's size fits the blob best (its side, seen beyond the top on
    one side, does not pull the centre as it pulls the centroid): (col, row) in the crop."""
    r = int(math.ceil(diameter_px / 2))
    disc = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    cv2.circle(disc, (r * 8, r * 8), int(round(diameter_px / 2 * 8)), 1.0, -1, cv2.LINE_AA, 3)
    padded = cv2.copyMakeBorder(mask.astype(np.float32), r, r, r, r, cv2.BORDER_CONSTANT, value=0)
    fit = cv2.matchTemplate(padded, disc, cv2.TM_SQDIFF)
    row, col = np.unravel_index(int(np.argmin(fit)), fit.shape)
    return float(col), float(row)


def _hands(classes: np.ndarray, logratio: np.ndarray, s: float) -> np.ndarray:
    """Hands and arms (uint8 mask of their pixels): where the piecepack segmentation network
    (`vision.segnet.PIECEPACK`, trained on photoreal frames of this view: `tools/learn`) reads
    a hand more probably than HAND_P, in parts of at least HAND_AREA that reach within
    HAND_REACH of the view's edge (an arm comes in from beyond the view: a part all inside it
    is a light pool on the cloth or the board), grown by HAND_EDGE (their outline's blur at
    the network's resolution), less the solid pieces beside an arm. No hands without the
    network. A colour rule found them before: skin is as near the colour of some editions'
    backs as of their cards, and it took a board of dark red backs for part of the arm."""
    h, w = classes.shape
    if not segnet.available(segnet.PIECEPACK):
        return np.zeros((h, w), np.uint8)
    hand = segnet.channel(segnet.probabilities(logratio, s, segnet.PIECEPACK), "hand") > HAND_P
    n, labels, stats, _ = _components(hand.astype(np.uint8))
    x, y, bw, bh, area = (stats[:, k] for k in range(5))
    m = HAND_REACH / s
    keep = (area * s * s >= HAND_AREA) & ((x <= m) | (y <= m) | (x + bw >= w - m) | (y + bh >= h - m))
    keep[0] = False
    if not keep.any():
        return np.zeros((h, w), np.uint8)
    arms = cv2.dilate(np.where(keep, 1, 0).astype(np.uint8)[labels], _disc(HAND_EDGE, s))
    return arms & (1 - _beside(classes, cv2.dilate(arms, _disc(HAND_EDGE, s)), s))


def _round_arms(hands: np.ndarray, classes: np.ndarray, s: float) -> np.ndarray:
    """The hands' pixels and those within HAND_REACH of them that are neither cloth nor card
    (an arm's shadow, the pieces it half hides, the tile it covers): where pieces are judged
    as near an arm."""
    if not hands.any():
        return hands.copy()
    things = ((classes != CLOTH) & ~_in_classes(classes, CARD)).astype(np.uint8)
    return hands | (cv2.dilate(hands, _disc(HAND_REACH, s)) & things)


def _beside(classes: np.ndarray, arm: np.ndarray, s: float) -> np.ndarray:
    """0/1 mask of the solid suit-coloured or coin-wood areas that lie mostly outside `arm`
    (pieces beside it, not its edge), where they do."""
    pieces = _suit_coloured(classes) | (classes == COIN)
    n, labels, stats, _ = _components(_solid(pieces.astype(np.uint8) * 255, s, 0.0))
    outside = labels * (arm == 0)
    keep = (np.bincount(outside.ravel(), minlength=n) * s * s >= MIN_PIECE_MM2).astype(np.uint8)
    keep[0] = 0
    return keep[outside]


def _reach(mask: np.ndarray, px: float) -> np.ndarray | None:
    """The pixels within `px` of the nonzero pixels of `mask`, or None when there are none."""
    if not mask.any():
        return None
    return cv2.distanceTransform((mask == 0).astype(np.uint8), cv2.DIST_L2, 3) <= px


def _mark_near_hands(found: list[dict], hands: np.ndarray, pv: PlaneView) -> None:
    """Flag pieces within HAND_REACH of a hand or arm as `uncertain`, with confidence at most
    0.3: part of them may be under it."""
    if not hands.any():
        return
    s = pv.top.mm_per_px
    h, w = hands.shape
    for piece in found:
        r = int((HAND_REACH + HALF_SIZE.get(piece["type"], 8.0)) / s)
        col, row = pv.px((piece["x"], piece["y"]))[0].round().astype(int)
        x0, y0, x1, y1 = max(0, col - r), max(0, row - r), min(w, col + r + 1), min(h, row + r + 1)
        if x0 < x1 and y0 < y1 and hands[y0:y1, x0:x1].any():
            piece["uncertain"] = True
            piece["confidence"] = min(piece.get("confidence", 1.0), 0.3)


def _paint_fit(mask: np.ndarray, blob: Blob, fit) -> None:
    """Mark a fitted piece's outline (grown 2 px) in a view-sized mask."""
    x0, y0, x1, y1 = blob.box
    mask[y0:y1, x0:x1] |= cv2.dilate(fit.mask, np.ones((5, 5), np.uint8))


def _painted(found: list, shape: tuple) -> np.ndarray:
    """A view-sized mask of the fitted outlines of `found` (items (blob, (fields, fit), ...))."""
    mask = np.zeros(shape, np.uint8)
    for blob, fit, *_ in found:
        _paint_fit(mask, blob, fit[1])
    return mask


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _within_board(xy, tiles: list[dict], side: float) -> bool:
    """Whether a point lies among the tiles: within a tile's side of tiles on both sides of it
    along x or along y (the water between floes, not the table beside the board)."""
    def between(k: int) -> bool:      # tiles on both sides along axis k, in line with the point
        line = [t for t in tiles if abs((t["y"], t["x"])[k] - xy[1 - k]) < side / 2
                and abs((t["x"], t["y"])[k] - xy[k]) < 1.6 * side]
        return any((t["x"], t["y"])[k] < xy[k] for t in line) and any((t["x"], t["y"])[k] > xy[k] for t in line)
    return between(0) or between(1)


def _iou_conf(iou: float) -> float:
    return float(np.clip((iou - 0.5) / 0.35, 0.05, 1.0))


def _turned(templates: dict, turns: tuple, fine: bool = False) -> tuple[list, np.ndarray, np.ndarray]:
    """(names, stack, squares): every template turned by each of `turns` (quarter turns, or for
    `fine`, steps of 360/len(turns) degrees) as rows of `stack`, name index = row // len(turns)."""
    names, rows = list(templates), []
    for name in names:
        t = templates[name]
        n = t.shape[0]
        if fine:
            M = [cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), -k * 360.0 / len(turns), 1.0) for k in turns]
            rows += [cv2.warpAffine(t, m, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(-1)
                     for m in M]
        else:
            rows += [np.ascontiguousarray(np.rot90(t, k)).reshape(-1) for k in turns]
    stack = np.array(rows, np.float32)
    return names, stack, stack ** 2


def _subset(turned, allowed):
    names, stack, squares = turned
    if allowed is None:
        return turned
    turns = len(stack) // len(names)
    keep = [i for i, name in enumerate(names) if name in allowed]
    rows = (np.array(keep)[:, None] * turns + np.arange(turns)[None, :]).ravel()
    return [names[i] for i in keep], stack[rows], squares[rows]


def _match_many(patches: np.ndarray, seen: np.ndarray, turned, allowed=None, cosine: bool = True) -> tuple:
    """The template nearest any of `patches` (S, n, n, 3) over the `seen` pixels, by 1 - cosine
    similarity (blind to the contrast of the print) or, for faces that may be blank, by mean
    squared difference: (name, turn, confidence, error, [(name, turn, error)] best first, the
    patch it fits best); confidence from the margin to the best other name."""
    names, stack, squares = _subset(turned, allowed)
    turns = len(stack) // len(names)
    w = np.repeat(seen.reshape(-1, 1).astype(np.float32), 3, axis=1).reshape(-1)
    f = patches.reshape(len(patches), -1).astype(np.float32, copy=False)
    num = (f * w) @ stack.T if len(f) <= len(stack) else f @ (stack * w).T     # mask the smaller side
    if cosine:
        norms = np.sqrt(np.maximum(((f * f) @ w)[:, None] * (squares @ w)[None, :], 1e-12))
        err = 1.0 - num / norms
    else:
        err = (((f * f) @ w)[:, None] - 2 * num + (squares @ w)[None, :]) / max(1.0, float(w.sum()))
    return _ranked(err, names, turns)


def _match_window(big: np.ndarray, seen: np.ndarray, turned) -> tuple:
    """`_match_many` (cosine) of every n x n patch of `big` (n + 2 r pixels a side) against
    `turned`, by correlation over the window (the same sums, without a copy of each patch)."""
    names, stack, squares = turned
    n = seen.shape[0]
    w = np.repeat(seen[..., None].astype(np.float32), 3, axis=2)
    big = np.ascontiguousarray(big, np.float32)
    power = cv2.matchTemplate(big * big, w, cv2.TM_CCORR).ravel()
    err = np.empty((len(power), len(stack)), np.float32)
    for k, (t, t2) in enumerate(zip(stack, squares)):
        num = cv2.matchTemplate(big, t.reshape(n, n, 3) * w, cv2.TM_CCORR).ravel()
        err[:, k] = 1.0 - num / np.sqrt(np.maximum(power * float(t2 @ w.ravel()), 1e-12))
    return _ranked(err, names, len(stack) // len(names))


def _ranked(err: np.ndarray, names: list, turns: int) -> tuple:
    """`_match_many`'s answer from the errors of each patch (rows) against each name's turns
    (columns, `turns` per name)."""
    per_name = err.min(axis=0).reshape(len(names), turns)
    best, best_turn = per_name.min(axis=1), per_name.argmin(axis=1).tolist()
    order = np.argsort(best).tolist()
    first = order[0]
    second = best[order[1]] if len(order) > 1 else best[first] * 2 + 1e-3
    conf = float(np.clip((second - best[first]) / max(best[first], 1e-3), 0.0, 1.0))
    errors = best.tolist()
    return (names[first], best_turn[first], round(conf, 2), errors[first],
            [(names[i], best_turn[i], errors[i]) for i in order],
            int(err[:, first * turns + best_turn[first]].argmin()))


def _match(patch: np.ndarray, seen: np.ndarray, turned, allowed=None) -> tuple:
    """`_match_many` of one patch."""
    return _match_many(patch[None], seen, turned, allowed)


def _match_shifted(image: np.ndarray, pv: PlaneView, xy, angle: float, n: int, step: float, seen, turned,
                   allowed=None, reach: int = 2, level=0.0, cosine: bool = True):
    """`_match_many` of the patch at `xy` (minus `level`) moved by up to `reach` pixels each way
    (the centre of a small piece is known to a millimetre or so)."""
    big = sample(image, pv, xy, angle, n + 2 * reach, step) - level
    patches = [big[dy:dy + n, dx:dx + n] for dy in range(2 * reach + 1) for dx in range(2 * reach + 1)]
    return _match_many(np.array(patches), seen, turned, allowed, cosine)


AREA_MARGIN = 12.0


def with_ids(found: list[dict]) -> list[dict]:
    """Number the pieces per type in reading order (top to bottom, left to right)."""
    counts: dict[str, int] = {}
    out = []
    for piece in sorted(found, key=lambda f: (round(f["y"] / 10), f["x"])):
        counts[piece["type"]] = counts.get(piece["type"], 0) + 1
        out.append({"id": f"{piece['type']}{counts[piece['type']]}", **piece})
    return out
