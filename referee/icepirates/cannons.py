"""Cannon target areas and lines of fire.

The target area is a lying Large laid with its whole base edge against one of the ship's two
long sides, pointing away from the ship. With `cannon_slide="slide"` (default) it may sit
anywhere along the side, so the area is the union of every flush position: a trapezoid. With
"centred" it sits at the middle of the side. A target is hit if it lies in the area (by more than
`margin`) and some straight line of fire from the side to that part of it passes no other object
closer than `margin`.
"""
from __future__ import annotations

import numpy as np
import shapely

from referee.icepirates.objects import Ship, Table
from referee.icepirates.rules import IcePiratesOptions
from referee.icepirates.steps import triangles

SIDE_SAMPLES = 5


def firing_sides(table: Table, ship: Ship, opts: IcePiratesOptions) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """For each long side: (start, end) of the template's base on the side, and the area corners."""
    tip, left, right = triangles([ship.tip], [ship.heading], ship.size, table.dims)[0]
    centroid = (tip + left + right) / 3
    base, reach = table.dims.looney_base[3], table.dims.looney_lying_length[3]
    out = []
    for corner in (left, right):
        along = corner - tip
        side = float(np.hypot(*along))
        t = along / side
        n = np.array([-t[1], t[0]])
        if np.dot(n, (tip + corner) / 2 - centroid) < 0:
            n = -n
        if opts.cannon_slide == "slide" and side >= base:
            start, end = tip, corner
            area = np.array([start, end, end - t * base / 2 + n * reach, start + t * base / 2 + n * reach])
        else:
            mid = (tip + corner) / 2
            start, end = mid - t * base / 2, mid + t * base / 2
            area = np.array([start, end, mid + n * reach])
        out.append((start, end, area))
    return out


def in_range(table: Table, opts: IcePiratesOptions) -> dict[str, list[str]]:
    """For every active ship, the ships its cannons can hit now (sorted ids)."""
    ships = list(table.ships.values())
    sides = [(ship, s) for ship in ships for s in firing_sides(table, ship, opts)]
    result: dict[str, set] = {ship.id: set() for ship in ships}
    if not sides:
        return {}
    areas = np.array([shapely.Polygon(s[2]) for _, s in sides])
    inner = shapely.buffer(areas, -opts.margin, join_style="mitre")
    predicate = "intersects" if opts.cannon_hit == "part" else "contains"
    rows, cols = table.tree.query(inner, predicate=predicate)
    for row, col in zip(rows, cols):
        ship, (start, end, _) = sides[row]
        target = table.ids[col]
        if not _is_target(table, ship, target, opts) or target in result[ship.id]:
            continue
        part = shapely.intersection(table.geoms[col], inner[row])
        if clear_line(table, ship.id, target, start, end, part, opts.margin):
            result[ship.id].add(target)
    return {k: sorted(v) for k, v in result.items()}


def _is_target(table: Table, ship: Ship, target: str, opts: IcePiratesOptions) -> bool:
    if target == ship.id or table.kinds[target] != "ship":
        return False
    return opts.friendly_fire or table.ships[target].color != ship.color


def clear_line(table: Table, shooter: str, target: str, start, end, part, margin: float) -> bool:
    """Is some sampled segment from the firing side to `part` of the target clear of others?"""
    froms = start + np.linspace(0.1, 0.9, SIDE_SAMPLES)[:, None] * (end - start)
    tos = np.vstack([shapely.get_coordinates(part), shapely.get_coordinates(part.representative_point())])
    pairs = np.stack(np.broadcast_arrays(froms[:, None, :], tos[None, :, :]), axis=2).reshape(-1, 2, 2)
    segments = shapely.linestrings(pairs)
    rows, cols = table.tree.query(segments, predicate="dwithin", distance=max(margin, 1e-9))
    ignore = np.isin(cols, [table.index[shooter], table.index[target]])
    blocked = np.zeros(len(segments), dtype=bool)
    blocked[rows[~ignore]] = True
    return not blocked.all()
