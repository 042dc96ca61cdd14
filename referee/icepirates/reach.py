"""Where ships can go in one move action, as polygons for drawing.

A ship's area is the union of the footprints of every pose it may stop at (after 1 to its
number of steps). Headings are sampled (`opts.reach_samples` per step, poses merged on a grid
of a third of a ship length); each run of legal neighbouring samples is drawn as the continuous
fan of footprints it stands for. Contact uses separating axes (conservative near sharp corners),
and the fans are merged on a raster of `PIXEL` mm. All ships are stepped together, one step
level at a time. This is a drawing aid: a move is judged exactly by `movement.judge_move`.
"""
from __future__ import annotations

import cv2
import numpy as np
import shapely

from referee.icepirates.objects import Ship, Table
from referee.icepirates.rules import STEPS, IcePiratesOptions
from referee.icepirates.steps import leaves_area, size_arrays, triangles, units

PIXEL = 1.0          # mm per raster cell
SIMPLIFY = 0.7       # pixels: outline simplification (Douglas-Peucker)
ARC_POINTS = 9       # points on the outer arc of a fan (at most 19 degrees apart)
SHIFT = 2            # sub-pixel bits for cv2.fillPoly


def reach(table: Table, ship: Ship, opts: IcePiratesOptions):
    """The reachable area of one ship as a shapely (Multi)Polygon."""
    return reach_all(table, [ship], opts)[ship.id]


def heading_intervals(table: Table, ship: Ship, opts: IcePiratesOptions) -> list[tuple[float, float]]:
    """The headings (degrees, low to high) of a first step that touches nothing, as intervals:
    the legal turn either side of the ship's heading, less the blocked parts (sampled)."""
    fleet = Fleet(table, [ship], opts)
    headings = ship.heading + fleet.limit[0] * np.linspace(-1, 1, 2 * opts.reach_samples - 1)[None, :]
    bases = np.array([ship.tip], dtype=float)
    _, hit = fleet.step(np.zeros(1, dtype=int), bases, headings)
    low, high = fleet.refine(np.zeros(1, dtype=int), bases, headings, ~hit)
    edge = np.diff(np.pad((~hit[0]).astype(np.int8), 1))
    starts, stops = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    return [(float(low[0, a]), float(high[0, b - 1])) for a, b in zip(starts, stops)]


def reach_all(table: Table, ships: list[Ship], opts: IcePiratesOptions) -> dict:
    """The reachable area of each ship, {id: shapely geometry}."""
    if not ships:
        return {}
    fleet = Fleet(table, ships, opts)
    spread = np.linspace(-1, 1, opts.reach_samples)
    owner = np.arange(len(ships))
    bases = np.array([s.tip for s in ships], dtype=float)
    heads = np.array([s.heading for s in ships], dtype=float)
    fans, fan_owner = [], []
    for level in range(int(fleet.steps.max())):
        headings = heads[:, None] + fleet.limit[owner][:, None] * spread[None, :]
        tips, hit = fleet.step(owner, bases, headings)
        legal = ~hit
        low, high = fleet.refine(owner, bases, headings, legal)
        runs, outline = fan_corners(bases, low, high, legal, fleet.length[owner], fleet.half[owner])
        fans.append(outline)
        fan_owner.append(owner[runs])
        go_on = legal & (fleet.steps[owner] > level + 1)[:, None]
        owner, bases, heads = _merge(owner[:, None].repeat(len(spread), 1)[go_on], tips[go_on],
                                     headings[go_on], fleet.length / 3, fleet.limit * 2 / (len(spread) - 1))
        if not len(owner):
            break
    fans, fan_owner = np.concatenate(fans), np.concatenate(fan_owner)
    return {ship.id: raster_union(fans[fan_owner == i], np.asarray(ship.tip), fleet.radius[i])
            for i, ship in enumerate(ships)}


class Fleet:
    """The ships being stepped, their sizes as arrays, and the obstacles near each."""

    REFINE_ROUNDS = 2       # bisections of the heading between a legal and a blocked sample

    def __init__(self, table: Table, ships: list[Ship], opts: IcePiratesOptions):
        dims = self.dims = table.dims
        self.table, self.opts = table, opts
        self.sizes = np.array([s.size for s in ships])
        self.length, self.half, self.limit = size_arrays(self.sizes, dims, opts.angle_margin)
        self.steps = np.array([STEPS[s] for s in self.sizes])
        self.radius = self.steps * self.length + self.half + 2 * opts.margin
        self.near = near_pairs(table, ships, self.radius + self.half)
        self.obstacles = obstacle_corners(table)
        self.circles = obstacle_circles(self.obstacles)

    def step(self, owner, bases, headings) -> tuple[np.ndarray, np.ndarray]:
        """Tips (F, K, 2) of one step from each base at each of its K headings, and whether
        each step touches something (F, K)."""
        count = headings.shape[1]
        tips = bases[:, None, :] + self.length[owner][:, None, None] * units(headings)
        corners = triangles(tips.reshape(-1, 2), headings.reshape(-1),
                            np.repeat(self.sizes[owner], count), self.dims)
        base_rows, cols = candidate_pairs(bases, owner, self.length[owner] + self.half[owner] + self.opts.margin,
                                          self.near, self.circles)
        rows = (base_rows[:, None] * count + np.arange(count)).reshape(-1)
        hit = leaves_area(self.table, corners, self.opts.margin) | sat_contact(
            corners, rows, np.repeat(cols, count), self.obstacles, self.opts.margin)
        return tips, hit.reshape(headings.shape)

    def refine(self, owner, bases, headings, legal) -> tuple[np.ndarray, np.ndarray]:
        """The lowest and highest legal heading of the run each legal sample belongs to, moved
        by bisection towards a blocked neighbour: (low, high) arrays shaped like `headings`."""
        low, high = headings.copy(), headings.copy()
        rows, cols = np.nonzero(legal[:, 1:] != legal[:, :-1])
        if not len(rows):
            return low, high
        good_col = np.where(legal[rows, cols], cols, cols + 1)
        good, bad = headings[rows, good_col], headings[rows, 2 * cols + 1 - good_col]
        for _ in range(self.REFINE_ROUNDS):
            middle = (good + bad) / 2
            _, hit = self.step(owner[rows], bases[rows], middle[:, None])
            good, bad = np.where(hit[:, 0], good, middle), np.where(hit[:, 0], middle, bad)
        upper = good_col == cols           # the blocked sample is above the legal one
        high[rows[upper], good_col[upper]] = good[upper]
        low[rows[~upper], good_col[~upper]] = good[~upper]
        return low, high


def obstacle_corners(table: Table) -> np.ndarray:
    """Corners (M, 4, 2) of every obstacle (a triangle repeats a corner; a round or many-sided
    footprint is replaced by its smallest enclosing rectangle)."""
    out = np.empty((len(table.geoms), 4, 2))
    for row, geom in enumerate(table.geoms):
        ring = shapely.get_coordinates(geom)[:-1]
        if len(ring) > 4:
            ring = shapely.get_coordinates(shapely.oriented_envelope(geom))[:-1]
        out[row] = np.vstack([ring, ring[-1:].repeat(4 - len(ring), axis=0)])
    return out


def near_pairs(table: Table, ships: list[Ship], radius: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ship index, obstacle index) for every obstacle within `radius[i]` of ship i's tip,
    leaving out the ship itself, sorted by ship."""
    tips = shapely.points(np.array([s.tip for s in ships], dtype=float))
    rows, cols = table.tree.query(tips, predicate="dwithin", distance=radius)
    keep = cols != np.array([table.index[s.id] for s in ships])[rows]
    order = np.argsort(rows[keep], kind="stable")
    return rows[keep][order], cols[keep][order]


def obstacle_circles(obstacles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centre and radius of a circle around each obstacle."""
    centre = obstacles.mean(axis=1)
    return centre, np.hypot(*(obstacles - centre[:, None, :]).transpose(2, 0, 1)).max(axis=1)


def candidate_pairs(bases: np.ndarray, owner: np.ndarray, reach: np.ndarray, near: tuple,
                    circles: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(base index, obstacle index) pairs: the obstacles of ship `owner[i]` (from `near`) whose
    `circles` (centres, radii) a footprint reaching `reach[i]` from `bases[i]` could touch."""
    ship_of, obstacle = near
    count = np.bincount(ship_of, minlength=int(owner.max()) + 1)
    first = np.cumsum(count) - count
    repeat = count[owner]
    rows = np.repeat(np.arange(len(bases)), repeat)
    within = np.arange(len(rows)) - np.repeat(np.cumsum(repeat) - repeat, repeat)
    cols = obstacle[np.repeat(first[owner], repeat) + within]
    centre, spread = circles
    gap = np.hypot(*(bases[rows] - centre[cols]).T)
    close = gap <= reach[rows] + spread[cols]
    return rows[close], cols[close]


def sat_contact(corners: np.ndarray, rows: np.ndarray, cols: np.ndarray, obstacles: np.ndarray,
                margin: float) -> np.ndarray:
    """True where triangle `corners[rows[k]]` is not separated by more than `margin` from
    obstacle `cols[k]` for some k (bounding boxes first, then separating axes: the edge normals
    of both shapes)."""
    out = np.zeros(len(corners), dtype=bool)
    lo, hi = _extent(corners, np.minimum), _extent(corners, np.maximum)
    olo, ohi = _extent(obstacles, np.minimum) - margin, _extent(obstacles, np.maximum) + margin
    boxed = ((lo[rows] <= ohi[cols]) & (hi[rows] >= olo[cols])).all(axis=1)
    rows, cols = rows[boxed], cols[boxed]
    if len(rows):
        a, b = corners[rows], obstacles[cols]
        apart = _separated(a, b, margin) | _separated(b, a, margin)
        out[rows[~apart]] = True
    return out


def _separated(shapes: np.ndarray, others: np.ndarray, margin: float) -> np.ndarray:
    """Pairwise: some edge normal of shapes[i] separates it from others[i] by more than `margin`."""
    edges = np.roll(shapes, -1, axis=1) - shapes
    norms = np.stack([-edges[..., 1], edges[..., 0]], axis=-1)
    length = np.hypot(norms[..., 0], norms[..., 1])
    norms = norms / np.where(length > 0, length, 1.0)[..., None]
    own = np.einsum("pad,pvd->pav", norms, shapes)
    theirs = np.einsum("pad,pvd->pav", norms, others)
    gap = _extent(theirs, np.minimum, 2) - _extent(own, np.maximum, 2) > margin
    gap |= _extent(own, np.minimum, 2) - _extent(theirs, np.maximum, 2) > margin
    return gap.any(axis=1)


def _extent(values: np.ndarray, pick, axis: int = 1) -> np.ndarray:
    """`pick` (np.minimum or np.maximum) over a short axis, faster than a reduction."""
    values = np.moveaxis(values, axis, 0)
    out = values[0]
    for more in values[1:]:
        out = pick(out, more)
    return out


def fan_corners(bases, low, high, legal, length, half) -> tuple[np.ndarray, np.ndarray]:
    """The base row of each run of legal headings, and the run's fan outline
    (F, ARC_POINTS + 3, 2) from the run's first `low` to its last `high` heading."""
    edge = np.diff(np.pad(legal.astype(np.int8), ((0, 0), (1, 1))), axis=1)
    rows, starts = np.nonzero(edge == 1)
    _, stops = np.nonzero(edge == -1)
    low, high = low[rows, starts], high[rows, stops - 1]
    base = bases[rows][:, None, :]
    arc = low[:, None] + (high - low)[:, None] * np.linspace(0, 1, ARC_POINTS)[None, :]
    return rows, np.concatenate([
        base,
        base + half[rows, None, None] * units(low - 90)[:, None, :],
        base + length[rows, None, None] * units(arc),
        base + half[rows, None, None] * units(high + 90)[:, None, :],
    ], axis=1)


def raster_union(fans: np.ndarray, centre: np.ndarray, radius: float):
    """The union of fan outlines, drawn on a raster around `centre` and traced back."""
    size = int(np.ceil(2 * radius / PIXEL)) + 2
    origin = centre - radius
    mask = np.zeros((size, size), dtype=np.uint8)
    points = np.round((fans - origin) / PIXEL * (1 << SHIFT)).astype(np.int32)
    for outline in points:
        cv2.fillPoly(mask, [outline], 1, lineType=cv2.LINE_8, shift=SHIFT)
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    rings = [_ring(c, origin) for c in contours]
    polygons = []
    for i, ring in enumerate(rings):
        if hierarchy[0][i][3] == -1 and len(ring) >= 3:
            holes = [h for j, h in enumerate(rings) if hierarchy[0][j][3] == i and len(h) >= 3]
            polygons.append(shapely.Polygon(ring, holes))
    if len(polygons) == 1 and polygons[0].is_valid:
        return polygons[0]
    return shapely.union_all(shapely.buffer(polygons, 0))


def _ring(contour, origin) -> np.ndarray:
    contour = cv2.approxPolyDP(contour, SIMPLIFY, True)
    return origin + (contour.reshape(-1, 2) + 0.5) * PIXEL


def _merge(owner, tips, headings, cell, bin_angle):
    """Poses of one ship merged when they share a `cell[ship]` mm square and a heading bin."""
    keys = np.column_stack([owner, np.floor(tips / cell[owner][:, None]),
                            np.round(headings / bin_angle[owner])]).astype(np.int64)
    packed = (keys[:, 0] << 48) | ((keys[:, 1] & 0xFFFF) << 32) | ((keys[:, 2] & 0xFFFF) << 16) \
        | (keys[:, 3] & 0xFFFF)
    _, first = np.unique(packed, return_index=True)
    return owner[first], tips[first], headings[first]
