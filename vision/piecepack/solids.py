"""Piecepack pieces as 3D solids (world frame of `vision.camera`: z into the table, up is -z).

Tiles and dice are boxes, coins and pawns are many-sided prisms, piecepack pyramids stand on
their base. Every solid may rest on something: `z0` is the height of its bottom above the
table (a pyramid or coin on a tile rests 6.35 mm up). The last face of a prism is its top.
"""
from __future__ import annotations

import math

import numpy as np

from vision.solids import Solid

COIN_THICKNESS = 3.175       # 1/8" (Mesomorph's piecepack anatomy)
PAWN_HEIGHT = 22.0           # a peg pawn, 12.7 mm across
ROUND_SIDES = 20


def square(x: float, y: float, side: float, angle_deg: float = 0.0) -> np.ndarray:
    """Corners (4, 2) of a square centred at (x, y), turned by `angle_deg`, in the order
    top-left, top-right, bottom-right, bottom-left of its unturned art."""
    a = math.radians(angle_deg)
    u = np.array([math.cos(a), math.sin(a)]) * side / 2
    v = np.array([-u[1], u[0]])
    return np.array([[x, y] - u - v, [x, y] + u - v, [x, y] + u + v, [x, y] - u + v])


def circle(x: float, y: float, diameter: float, angle_deg: float = 0.0, sides: int = ROUND_SIDES) -> np.ndarray:
    a0 = math.radians(angle_deg)
    t = a0 + np.arange(sides) * 2 * math.pi / sides
    return np.stack([x + diameter / 2 * np.cos(t), y + diameter / 2 * np.sin(t)], axis=1)


def prism(outline: np.ndarray, z0: float, height: float) -> Solid:
    """A vertical prism over `outline` (N, 2) from z0 to z0 + height mm above the table."""
    n = len(outline)
    bottom = np.column_stack([outline, np.full(n, -z0)])
    top = np.column_stack([outline, np.full(n, -(z0 + height))])
    faces = tuple((i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n))
    return Solid(np.vstack([bottom, top]), faces + (tuple(range(n, 2 * n)),))


def top_anchors(x: float, y: float, side: float, angle_deg: float, z: float) -> np.ndarray:
    """World corners (4, 3) of a square texture lying at height z, art's top-left first."""
    return np.column_stack([square(x, y, side, angle_deg), np.full(4, -z)])


def pp_pyramid(x: float, y: float, base: float, height: float, angle_deg: float = 0.0,
               z0: float = 0.0) -> Solid:
    """A piecepack pyramid standing on its base centred at (x, y), the base z0 mm up."""
    corners = square(x, y, base, angle_deg)
    verts = np.vstack([np.column_stack([corners, np.full(4, -z0)]), [[x, y, -(z0 + height)]]])
    return Solid(verts, ((0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)))


def face_anchors(solid: Solid, face: int) -> np.ndarray:
    """World corners (4, 3) of the texture of a pyramid's triangular face (base edge at the
    texture's bottom)."""
    a, b, apex = solid.vertices[list(solid.faces[face])]
    rise = apex - (a + b) / 2
    return np.array([a + rise, b + rise, b, a])
