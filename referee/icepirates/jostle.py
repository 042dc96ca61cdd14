"""Pieces jostled during a turn, and where they belong.

> "In general, ships and islands should not be moved or jostled outside of actually moving them
> as part of your turn options. If something does get moved accidentally, you should attempt to
> put it back in its original position."

Ships (active or disabled), islands and homes are compared between the table before an action
and the camera's table after it; one that moved more than `pose_tolerance` or turned more than
JOSTLE_TURN degrees, or stood up or lay down, was jostled, unless the action itself moved it.
"""
from __future__ import annotations

import math

from referee.dimensions import DEFAULT, Dimensions
from referee.icepirates.objects import Table, build_table
from referee.icepirates.rules import IcePiratesOptions
from referee.report import Warning
from referee.scene import Piece, Scene

JOSTLE_TURN = 5.0      # degrees: a ship or a home card turned more than this was jostled


def jostled(before: Scene, after: Scene, skip, opts: IcePiratesOptions,
            dims: Dimensions = DEFAULT) -> list[dict]:
    """A `jostled` warning (dict) for each ship, island or home of `before` that the camera sees
    moved in `after` (pieces in `skip`, moved by the action, and pieces not seen are left out);
    its `was` is the piece where it belongs."""
    table = build_table(before, dims)
    now = after.by_id()
    found = (jostle(table, pid, now[pid], opts) for pid, kind in table.kinds.items()
             if kind != "loose" and pid not in skip and pid in now)
    return [w for w in found if w is not None]


def jostle(table: Table, pid: str, seen: Piece, opts: IcePiratesOptions) -> dict | None:
    """The `jostled` warning (dict) when the piece `pid` of `table` is seen moved as `seen`."""
    was = table.pieces[pid]
    shift = math.dist((was.x, was.y), (seen.x, seen.y))
    if shift <= opts.pose_tolerance and seen.pose == was.pose and _turn(was, seen) <= JOSTLE_TURN:
        return None
    return Warning("jostled", f"{table.name(pid)} was moved {shift:.0f} mm: put it back at "
                   f"({was.x:.0f}, {was.y:.0f}) mm", (pid,), details={"was": was.to_dict()}).to_dict()


def _turn(was: Piece, seen: Piece) -> float:
    """Degrees a lying ship's heading or a card's angle turned (a card's turn modulo 180)."""
    if was.type == "card":
        a, b, period = was.angle or 0.0, seen.angle or 0.0, 180.0
    elif was.pose == "lying" and seen.pose == "lying":
        a, b, period = was.heading, seen.heading, 360.0
    else:
        return 0.0
    d = (b - a) % period
    return min(d, period - d)
