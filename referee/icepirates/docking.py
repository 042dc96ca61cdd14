"""Docking: a gap too narrow for an upright Small between a ship and another object.

A ship is docked with an island, a home or another ship (active or disabled) when the narrowest
gap between their footprints is less than the base of a Small less the safety `margin`.
"""
from __future__ import annotations

from referee.icepirates.objects import Table
from referee.icepirates.rules import IcePiratesOptions

DOCKABLE = ("ship", "disabled", "island", "home")


def dock_gap(table: Table, opts: IcePiratesOptions) -> float:
    """Largest gap (mm) that still counts as docked: a Small's base less the margin."""
    return table.dims.looney_base[1] - opts.margin


def docked_with(table: Table, opts: IcePiratesOptions, ids=None) -> dict[str, list[str]]:
    """For each ship or disabled ship in `ids` (default all), the ids it is docked with, sorted."""
    if ids is None:
        ids = [i for i in table.ids if table.kinds[i] in ("ship", "disabled")]
    result: dict[str, list[str]] = {i: [] for i in ids}
    if not ids:
        return result
    geoms = table.geoms[[table.index[i] for i in ids]]
    gap = dock_gap(table, opts)
    if gap <= 0:
        return result
    rows, cols = table.tree.query(geoms, predicate="dwithin", distance=gap)
    for row, col in zip(rows, cols):
        other = table.ids[col]
        if other != ids[row] and table.kinds[other] in DOCKABLE:
            result[ids[row]].append(other)
    return {pid: sorted(found) for pid, found in result.items()}
