"""`evaluate(scene)`: the Ice Pirates report of SCENE.md.

`status.ships[id]` = {"size", "docked_with", "in_range"} plus the extensions "disabled",
"damage", "can_move" and, with the option `reach`, "reach" (polygons as lists of rings of [x, y]).
"""
from __future__ import annotations

import numpy as np
import shapely

from referee.dimensions import DEFAULT, Dimensions
from referee.geometry import OVERLAP_AREA
from referee.icepirates.cannons import in_range
from referee.icepirates.docking import docked_with
from referee.icepirates.objects import Table, build_table
from referee.icepirates.reach import reach_all
from referee.icepirates.rules import IcePiratesOptions
from referee.icepirates.steps import blocked, size_arrays, triangles, units
from referee.icepirates.treasure import home_scores, winners
from referee.options import make
from referee.report import Report, Warning
from referee.scene import Scene

# Headings tried for one step when deciding whether a ship can move at all.
MOVE_PROBES = 15


def evaluate(scene: Scene, dims: Dimensions = DEFAULT, options=None) -> Report:
    """Ships' docking, targets and mobility, collisions, and the treasure at each home."""
    opts = make(IcePiratesOptions, options)
    table = build_table(scene, dims)
    report = Report(scene.game)
    report.warnings += collisions(table)
    docks = docked_with(table, opts)
    targets = in_range(table, opts)
    mobile = can_move(table, opts)
    areas = reach_all(table, list(table.ships.values()), opts) if opts.reach else {}
    ships = {}
    for pid in docks:
        piece = table.pieces[pid]
        entry = {"size": piece.size, "docked_with": docks[pid], "in_range": targets.get(pid, []),
                 "disabled": pid not in table.ships, "damage": table.damage.get(pid, 0),
                 "can_move": mobile.get(pid, False)}
        if pid in areas:
            entry["reach"] = polygon_lists(areas[pid])
        ships[pid] = entry
    report.status["ships"] = ships
    report.scores = home_scores(table)
    report.status["winner"] = winners(report.scores, len(table.players)) or None
    return report


def collisions(table: Table) -> list[Warning]:
    """Objects overlapping each other, or crossing the edge of the play area."""
    out = []
    rows, cols = table.tree.query(table.geoms, predicate="intersects")
    pairs = rows < cols
    rows, cols = rows[pairs], cols[pairs]
    shared = shapely.area(shapely.intersection(table.geoms[rows], table.geoms[cols]))
    for row, col in zip(rows[shared > OVERLAP_AREA], cols[shared > OVERLAP_AREA]):
        a, b = table.ids[row], table.ids[col]
        out.append(Warning("collision", f"{table.name(a)} overlaps {table.name(b)}", (a, b)))
    if table.area is not None:
        outside = shapely.area(shapely.difference(table.geoms, table.area))
        for i in np.flatnonzero(outside > OVERLAP_AREA):
            pid = table.ids[i]
            out.append(Warning("collision", f"{table.name(pid)} crosses the edge of the play area", (pid,)))
    return out


def can_move(table: Table, opts: IcePiratesOptions) -> dict[str, bool]:
    """Whether each active ship has at least one legal first step (MOVE_PROBES headings)."""
    ships = list(table.ships.values())
    if not ships:
        return {}
    sizes = np.array([s.size for s in ships])
    length, _, limit = size_arrays(sizes, table.dims, opts.angle_margin)
    heads = np.array([s.heading for s in ships])[:, None] + limit[:, None] * np.linspace(-1, 1, MOVE_PROBES)
    tips = np.array([s.tip for s in ships])[:, None, :] + length[:, None, None] * units(heads)
    corners = triangles(tips.reshape(-1, 2), heads.reshape(-1), np.repeat(sizes, MOVE_PROBES), table.dims)
    own = np.repeat([table.index[ship.id] for ship in ships], MOVE_PROBES)
    hit = blocked(table, corners, opts.margin, own).reshape(len(ships), MOVE_PROBES)
    return {ship.id: not hit[i].all() for i, ship in enumerate(ships)}


def polygon_lists(geom) -> list[list[list[list[float]]]]:
    """Each polygon of a (multi)polygon as rings (exterior first, then holes) of [x, y] in mm,
    rounded to 0.1 mm."""
    parts = getattr(geom, "geoms", [geom])
    return [[np.round(np.asarray(ring.coords), 1).tolist() for ring in (p.exterior, *p.interiors)]
            for p in parts if not p.is_empty]

