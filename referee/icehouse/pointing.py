"""Where each attacker points: the first object met by the line from its tip along its heading.

The line is a strip `line_tolerance` wide either side, starting at the tip (flat ends): only what
lies ahead of the tip counts, and a piece must reach more than the tolerance beyond the tip, so a
piece beside or behind the tip (another attacker's side, the tip of a converging attacker) is
never met. All rays are judged together: one STRtree query gives every (ray, piece) candidate pair, and the
entry points along each ray are computed with vectorised shapely calls (no all-pairs loops).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely

from referee.icehouse.options import IcehouseOptions

# How far a ray reaches when the scene has no play area (mm).
UNBOUNDED = 10_000.0
# Rays are first searched this far (mm); only those that meet nothing are searched to the edge.
NEAR = 80.0


@dataclass(frozen=True)
class Aim:
    """What one attacker's line meets first: `target` index into the pieces, or None."""

    target: int | None
    distance: float | None  # along the line from the tip to the target, mm
    ambiguous: tuple[int, ...] = ()  # pieces met at the same point (a seam), when unresolved


def ray_length(x: float, y: float, heading: float, area: tuple[float, float] | None) -> float:
    """Distance from (x, y) along `heading` to the edge of the area (0 when outside it)."""
    if area is None:
        return UNBOUNDED
    width, height = area
    if not (0 <= x <= width and 0 <= y <= height):
        return 0.0
    ux, uy = math.cos(math.radians(heading)), math.sin(math.radians(heading))
    limits = []
    if ux > 1e-12:
        limits.append((width - x) / ux)
    elif ux < -1e-12:
        limits.append(-x / ux)
    if uy > 1e-12:
        limits.append((height - y) / uy)
    elif uy < -1e-12:
        limits.append(-y / uy)
    return min(limits)


def aim_all(tips: np.ndarray, headings: np.ndarray, own: np.ndarray, footprints: np.ndarray,
            area: tuple[float, float] | None, opts: IcehouseOptions) -> list[Aim]:
    """The aim of each ray. `own[i]` is the index of ray i's own piece in `footprints`."""
    if len(tips) == 0:
        return []
    rad = np.radians(headings)
    direction = np.column_stack([np.cos(rad), np.sin(rad)])
    lengths = np.array([ray_length(x, y, h, area) for (x, y), h in zip(tips, headings)])
    tree = shapely.STRtree(footprints)
    aims = _aim(tips, direction, np.minimum(lengths, NEAR), own, footprints, tree, opts)
    # A hit close to the end of a short ray might tie with a piece just beyond it.
    again = [i for i, a in enumerate(aims)
             if lengths[i] > NEAR and (a.distance is None or a.distance > NEAR - 2 * opts.line_tolerance)]
    if again:
        far = _aim(tips[again], direction[again], lengths[again], own[again], footprints, tree, opts)
        for i, aim in zip(again, far):
            aims[i] = aim
    return aims


def _aim(tips, direction, lengths, own, footprints, tree, opts) -> list[Aim]:
    ends = tips + direction * lengths[:, None]
    rays = shapely.linestrings(np.stack([tips, ends], axis=1))
    strips = shapely.buffer(rays, opts.line_tolerance, cap_style="flat")
    ray_idx, piece_idx = tree.query(strips, predicate="intersects")
    keep = piece_idx != own[ray_idx]
    ray_idx, piece_idx = ray_idx[keep], piece_idx[keep]
    entry, reach = _entries(strips[ray_idx], footprints[piece_idx], tips[ray_idx], direction[ray_idx])
    ahead = reach > opts.line_tolerance
    ray_idx, piece_idx, entry = ray_idx[ahead], piece_idx[ahead], entry[ahead]
    chord = shapely.length(shapely.intersection(rays[ray_idx], footprints[piece_idx]))
    if opts.graze == "passes":
        solid = chord >= opts.graze_chord
        ray_idx, piece_idx, entry, chord = ray_idx[solid], piece_idx[solid], entry[solid], chord[solid]
    order = np.argsort(ray_idx, kind="stable")
    ray_idx, piece_idx, entry, chord = ray_idx[order], piece_idx[order], entry[order], chord[order]
    starts = np.searchsorted(ray_idx, np.arange(len(tips) + 1))
    return [_first_hit(piece_idx[a:b], entry[a:b], chord[a:b], opts)
            for a, b in zip(starts[:-1], starts[1:])]


def _entries(strips, polys, tips, direction):
    """Where along each strip its polygon begins and how far beyond the tip it reaches (mm)."""
    part = shapely.intersection(strips, polys)
    coords, index = shapely.get_coordinates(part, return_index=True)
    along = np.einsum("ij,ij->i", coords - tips[index], direction[index])
    entry, reach = np.full(len(strips), np.inf), np.full(len(strips), -np.inf)
    np.minimum.at(entry, index, along)
    np.maximum.at(reach, index, along)
    return np.maximum(entry, 0.0), reach


def _first_hit(piece_idx, entry, chord, opts) -> Aim:
    found = np.isfinite(entry)
    if not found.any():
        return Aim(None, None)
    nearest = entry[found].min()
    tied = np.nonzero(found & (entry <= nearest + opts.line_tolerance))[0]
    if len(tied) == 1:
        return Aim(int(piece_idx[tied[0]]), float(nearest))
    if opts.seam == "deeper":
        return Aim(int(piece_idx[tied[np.argmax(chord[tied])]]), float(nearest))
    return Aim(None, float(nearest), tuple(sorted(int(piece_idx[k]) for k in tied)))
