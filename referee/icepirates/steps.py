"""Step geometry: ship footprints as arrays, the legal turn of one step, contact tests.

One step puts a same-size piece with the centre of its base on the old tip: the new tip is
`old tip + length * unit(new heading)`. The new footprint must not overlap the old one, which
allows a turn of at most 90 degrees minus the footprint's half apex angle either way.
"""
from __future__ import annotations

import math

import numpy as np
import shapely

from referee.dimensions import Dimensions
from referee.icepirates.objects import Table


def max_turn(size: int, dims: Dimensions, angle_margin: float = 0.0) -> float:
    """The largest legal turn (degrees) of one step, less the safety margin."""
    return 90.0 - math.degrees(dims.lying_half_angle(size)) - angle_margin


def size_arrays(sizes, dims: Dimensions, angle_margin: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per ship of `sizes`: lying length, half base and largest legal turn (with the margin)."""
    sizes = np.asarray(sizes)
    length = np.array([dims.looney_lying_length[s] for s in (1, 2, 3)])[sizes - 1]
    half = np.array([dims.looney_base[s] / 2 for s in (1, 2, 3)])[sizes - 1]
    limit = np.array([max_turn(s, dims, angle_margin) for s in (1, 2, 3)])[sizes - 1]
    return length, half, limit


def units(headings) -> np.ndarray:
    """Unit vectors (N, 2) of headings in degrees."""
    rad = np.radians(np.asarray(headings, dtype=float))
    return np.stack([np.cos(rad), np.sin(rad)], axis=-1)


def triangles(tips, headings, size, dims: Dimensions) -> np.ndarray:
    """Footprint corners (N, 3, 2) of lying pyramids: tip, then the two base corners.

    `size` is one size for all, or an array of sizes (one per tip)."""
    tips = np.asarray(tips, dtype=float).reshape(-1, 2)
    u = units(np.asarray(headings, dtype=float).reshape(-1))
    if np.ndim(size):
        length, half, _ = size_arrays(size, dims, 0.0)
        length, half = length[:, None], half[:, None]
    else:
        length, half = dims.looney_lying_length[size], dims.looney_base[size] / 2
    side = np.stack([-u[:, 1], u[:, 0]], axis=-1) * half
    base = tips - u * length
    return np.stack([tips, base + side, base - side], axis=1)


def polygons(corners: np.ndarray) -> np.ndarray:
    """Shapely polygons from an (N, K, 2) array of corners."""
    return shapely.polygons(corners)


def leaves_area(table: Table, corners: np.ndarray, margin: float) -> np.ndarray:
    """True where a footprint comes within `margin` of the play area's edge (no area: never)."""
    if table.scene.area is None:
        return np.zeros(len(corners), dtype=bool)
    width, height = table.scene.area
    x, y = corners[..., 0], corners[..., 1]
    out = (x < margin) | (y < margin) | (x > width - margin) | (y > height - margin)
    return out.any(axis=-1)


def contacts(table: Table, corners: np.ndarray, margin: float, own) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (footprint index, obstacle index) closer than `margin`.

    `own` is the id of the moving ship, or an array giving each footprint's own obstacle index:
    a ship never blocks itself.
    """
    if len(corners) == 0:
        return np.empty(0, dtype=int), np.empty(0, dtype=int)
    rows, cols = table.tree.query(polygons(corners), predicate="dwithin", distance=max(margin, 1e-9))
    own = np.full(len(corners), table.index.get(own, -1)) if isinstance(own, str) else np.asarray(own)
    keep = cols != own[rows]
    return rows[keep], cols[keep]


def blocked(table: Table, corners: np.ndarray, margin: float, own) -> np.ndarray:
    """True where a footprint touches an obstacle or the area's edge (within `margin`)."""
    out = leaves_area(table, corners, margin)
    rows, _ = contacts(table, corners, margin, own)
    out[rows] = True
    return out


def turn(a, b):
    """Signed smallest difference b - a of headings, in (-180, 180]."""
    return (np.asarray(b) - np.asarray(a) + 180.0) % 360.0 - 180.0
