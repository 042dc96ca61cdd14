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
from referee.icepirates.steps import leaves_area, max_turn, triangles, units

PIXEL = 1.0          # mm per raster cell
SIMPLIFY = 0.7       # pixels: outline simplification (Douglas-Peucker)
ARC_POINTS = 16      # points on the outer arc of a fan (at most 10 degrees apart)
SHIFT = 2            # sub-pixel bits for cv2.fillPoly


def reach(table: Table, ship: Ship, opts: IcePiratesOptions):
    """The reachable area of one ship as a shapely (Multi)Polygon."""
    return reach_all(table, [ship], opts)[ship.id]


def reach_all(table: Table, ships: list[Ship], opts: IcePiratesOptions) -> dict:
    """The reachable area of each ship, {id: shapely geometry}."""
    if not ships:
        return {}
    dims = table.dims
    sizes = np.array([s.size for s in ships])
    length = np.array([dims.looney_lying_length[s] for s in sizes])
    half = np.array([dims.looney_base[s] / 2 for s in sizes])
    limit = np.array([max_turn(s, dims, opts.angle_margin) for s in sizes])
    steps = np.array([STEPS[s] for s in sizes])
    radius = steps * length + half + 2 * opts.margin
    near = near_pairs(table, ships, radius + half)
    spread = np.linspace(-1, 1, opts.reach_samples)
    obstacles = obstacle_corners(table)
    owner = np.arange(len(ships))
    bases = np.array([s.tip for s in ships], dtype=float)
    heads = np.array([s.heading for s in ships], dtype=float)
    fans, fan_owner = [], []
    for level in range(int(steps.max())):
        headings = heads[:, None] + limit[owner][:, None] * spread[None, :]
        tips = bases[:, None, :] + length[owner][:, None, None] * units(headings)
        corners = triangles(tips.reshape(-1, 2), headings.reshape(-1),
                            np.repeat(sizes[owner], len(spread)), dims)
        base_rows, cols = candidate_pairs(bases, owner, length[owner] + half[owner] + opts.margin,
                                          near, obstacles)
        rows = (base_rows[:, None] * len(spread) + np.arange(len(spread))).reshape(-1)
        hit = leaves_area(table, corners, opts.margin) | sat_contact(
            corners, rows, np.repeat(cols, len(spread)), obstacles, opts.margin)
        legal = ~hit.reshape(headings.shape)
        runs, outline = fan_corners(bases, headings, legal, length[owner], half[owner])
        fans.append(outline)
        fan_owner.append(owner[runs])
        go_on = legal & (steps[owner] > level + 1)[:, None]
        owner, bases, heads = _merge(owner[:, None].repeat(len(spread), 1)[go_on], tips[go_on],
                                     headings[go_on], length / 3, limit * 2 / (len(spread) - 1))
        if not len(owner):
            break
    fans, fan_owner = np.concatenate(fans), np.concatenate(fan_owner)
    return {ship.id: raster_union(fans[fan_owner == i], np.asarray(ship.tip), radius[i])
            for i, ship in enumerate(ships)}


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


def candidate_pairs(bases: np.ndarray, owner: np.ndarray, reach: np.ndarray, near: tuple,
                    obstacles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(base index, obstacle index) pairs: the obstacles of ship `owner[i]` that a footprint
    reaching `reach[i]` from `bases[i]` could touch."""
    ship_of, obstacle = near
    count = np.bincount(ship_of, minlength=int(owner.max()) + 1)
    first = np.cumsum(count) - count
    repeat = count[owner]
    rows = np.repeat(np.arange(len(bases)), repeat)
    within = np.arange(len(rows)) - np.repeat(np.cumsum(repeat) - repeat, repeat)
    cols = obstacle[np.repeat(first[owner], repeat) + within]
    centre = obstacles.mean(axis=1)
    spread = np.hypot(*(obstacles - centre[:, None, :]).transpose(2, 0, 1)).max(axis=1)
    gap = np.hypot(*(bases[rows] - centre[cols]).T)
    close = gap <= reach[rows] + spread[cols]
    return rows[close], cols[close]


def sat_contact(corners: np.ndarray, rows: np.ndarray, cols: np.ndarray, obstacles: np.ndarray,
                margin: float) -> np.ndarray:
    """True where triangle `corners[rows[k]]` is not separated by more than `margin` from
    obstacle `cols[k]` for some k (bounding boxes first, then separating axes: the edge normals
    of both shapes)."""
    out = np.zeros(len(corners), dtype=bool)
    lo, hi = corners[rows].min(axis=1), corners[rows].max(axis=1)
    olo, ohi = obstacles.min(axis=1) - margin, obstacles.max(axis=1) + margin
    boxed = ((lo <= ohi[cols]) & (hi >= olo[cols])).all(axis=1)
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
    gap = (theirs.min(axis=2) - own.max(axis=2) > margin) | (own.min(axis=2) - theirs.max(axis=2) > margin)
    return gap.any(axis=1)


def fan_corners(bases, headings, legal, length, half) -> tuple[np.ndarray, np.ndarray]:
    """The base row of each run of legal headings, and the run's fan outline (F, ARC_POINTS + 3, 2)."""
    edge = np.diff(np.pad(legal.astype(np.int8), ((0, 0), (1, 1))), axis=1)
    rows, starts = np.nonzero(edge == 1)
    _, stops = np.nonzero(edge == -1)
    low, high = headings[rows, starts], headings[rows, stops - 1]
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
