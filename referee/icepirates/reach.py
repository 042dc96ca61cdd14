"""Where a ship can go in one move action, as polygons for drawing.

The area is the union of the footprints of every pose the ship may stop at (after 1 to its
number of steps). Headings are sampled (`opts.reach_samples` per step, poses merged on a grid
of a third of a ship length); each run of legal neighbouring samples is drawn as the continuous
fan of footprints it stands for. Contact uses separating axes against the obstacles near the
ship (conservative near sharp corners), and the fans are merged on a raster of `PIXEL` mm.
This is a drawing aid: a move is judged exactly by `movement.judge_move`.
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
ARC_POINTS = 5       # points on the outer arc of a fan
SHIFT = 2            # sub-pixel bits for cv2.fillPoly


def reach(table: Table, ship: Ship, opts: IcePiratesOptions):
    """The reachable area of `ship` as a shapely (Multi)Polygon."""
    dims = table.dims
    length, half = dims.looney_lying_length[ship.size], dims.looney_base[ship.size] / 2
    limit = max_turn(ship.size, dims, opts.angle_margin)
    offsets = np.linspace(-limit, limit, opts.reach_samples)
    radius = STEPS[ship.size] * length + half + opts.margin
    obstacles = nearby_obstacles(table, ship, radius + opts.margin)
    bases, heads = np.array([ship.tip], dtype=float), np.array([ship.heading], dtype=float)
    fans = []
    for _ in range(STEPS[ship.size]):
        headings = heads[:, None] + offsets[None, :]
        tips = bases[:, None, :] + length * units(headings)
        corners = triangles(tips.reshape(-1, 2), headings.reshape(-1), ship.size, dims)
        hit = leaves_area(table, corners, opts.margin) | sat_contact(corners, obstacles, opts.margin)
        legal = ~hit.reshape(headings.shape)
        fans.append(fan_corners(bases, headings, legal, length, half))
        bases, heads = _merge(tips[legal], headings[legal], length / 3, offsets[1] - offsets[0])
        if not len(bases):
            break
    return raster_union(np.concatenate(fans), np.asarray(ship.tip), radius)


def nearby_obstacles(table: Table, ship: Ship, radius: float) -> np.ndarray:
    """Corners (M, 4, 2) of the obstacles within `radius` of the ship's tip (not the ship)."""
    found = table.tree.query(shapely.Point(ship.tip), predicate="dwithin", distance=radius)
    found = [i for i in found if table.ids[i] != ship.id]
    out = np.empty((len(found), 4, 2))
    for row, i in enumerate(found):
        geom = table.geoms[i]
        ring = shapely.get_coordinates(geom)[:-1]
        if len(ring) > 4:
            ring = shapely.get_coordinates(shapely.oriented_envelope(geom))[:-1]
        out[row] = np.vstack([ring, ring[-1:].repeat(4 - len(ring), axis=0)])
    return out


def sat_contact(corners: np.ndarray, obstacles: np.ndarray, margin: float) -> np.ndarray:
    """True where a triangle is not separated by more than `margin` from some convex obstacle.

    Only pairs whose bounding boxes come within `margin` are tested (separating axes: the edge
    normals of both shapes)."""
    out = np.zeros(len(corners), dtype=bool)
    if not len(obstacles) or not len(corners):
        return out
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    olo, ohi = obstacles.min(axis=1) - margin, obstacles.max(axis=1) + margin
    near = ((lo[:, None, :] <= ohi[None]) & (hi[:, None, :] >= olo[None])).all(axis=2)
    rows, cols = np.nonzero(near)
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


def fan_corners(bases, headings, legal, length: float, half: float) -> np.ndarray:
    """(F, ARC_POINTS + 3, 2) outlines of the fans of each run of legal headings per base."""
    edge = np.diff(np.pad(legal.astype(np.int8), ((0, 0), (1, 1))), axis=1)
    rows, starts = np.nonzero(edge == 1)
    _, stops = np.nonzero(edge == -1)
    low, high = headings[rows, starts], headings[rows, stops - 1]
    base = bases[rows][:, None, :]
    arc = low[:, None] + (high - low)[:, None] * np.linspace(0, 1, ARC_POINTS)[None, :]
    return np.concatenate([
        base,
        base + half * units(low - 90)[:, None, :],
        base + length * units(arc),
        base + half * units(high + 90)[:, None, :],
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
    return shapely.MultiPolygon(polygons) if len(polygons) != 1 else polygons[0]


def _ring(contour, origin) -> np.ndarray:
    contour = cv2.approxPolyDP(contour, SIMPLIFY, True)
    return origin + (contour.reshape(-1, 2) + 0.5) * PIXEL


def _merge(tips, headings, cell: float, bin_angle: float):
    """Poses merged when they share a `cell` mm square and a `bin_angle` heading bin."""
    keys = np.column_stack([np.floor(tips / cell), np.round(headings / bin_angle)]).astype(np.int64)
    packed = ((keys[:, 0] & 0xFFFFF) << 40) | ((keys[:, 1] & 0xFFFFF) << 20) | (keys[:, 2] & 0xFFFFF)
    _, first = np.unique(packed, return_index=True)
    return tips[first], headings[first]
