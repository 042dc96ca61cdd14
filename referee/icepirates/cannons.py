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


def firing_areas(table: Table, ships: list[Ship], opts: IcePiratesOptions):
    """Target areas of both long sides of every ship, rows 2i and 2i + 1 for ships[i]:
    the (start, end) of the template's base on the side, each (2N, 2), and the area's corners
    (2N, 4, 2) (a centred template repeats its apex)."""
    corners = triangles([s.tip for s in ships], [s.heading for s in ships],
                        np.array([s.size for s in ships]), table.dims)
    tip = np.repeat(corners[:, 0], 2, axis=0)
    corner = corners[:, 1:].reshape(-1, 2)
    centroid = np.repeat(corners.mean(axis=1), 2, axis=0)
    base, reach = table.dims.looney_base[3], table.dims.looney_lying_length[3]
    along = corner - tip
    side = np.hypot(along[:, 0], along[:, 1])[:, None]
    t = along / side
    n = np.stack([-t[:, 1], t[:, 0]], axis=1)
    mid = (tip + corner) / 2
    n *= np.sign(np.einsum("id,id->i", n, mid - centroid))[:, None]
    slide = (side >= base) & (opts.cannon_slide == "slide")
    start = np.where(slide, tip, mid - t * base / 2)
    end = np.where(slide, corner, mid + t * base / 2)
    apex = mid + n * reach
    far_start = np.where(slide, tip + t * base / 2 + n * reach, apex)
    far_end = np.where(slide, corner - t * base / 2 + n * reach, apex)
    return start, end, np.stack([start, end, far_end, far_start], axis=1)


def in_range(table: Table, opts: IcePiratesOptions) -> dict[str, list[str]]:
    """For every active ship, the ships its cannons can hit now (sorted ids)."""
    ships = list(table.ships.values())
    if not ships:
        return {}
    starts, ends, areas = firing_areas(table, ships, opts)
    result: dict[str, set] = {ship.id: set() for ship in ships}
    inner = shapely.buffer(shapely.polygons(areas), -opts.margin, join_style="mitre")
    predicate = "intersects" if opts.cannon_hit == "part" else "contains"
    rows, cols = table.tree.query(inner, predicate=predicate)
    for row, col in zip(rows, cols):
        ship = ships[row // 2]
        target = table.ids[col]
        if not _is_target(table, ship, target, opts) or target in result[ship.id]:
            continue
        part = shapely.intersection(table.geoms[col], inner[row])
        if clear_line(table, ship.id, target, starts[row], ends[row], part, opts.margin):
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
