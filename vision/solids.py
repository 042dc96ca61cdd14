"""Pieces as 3D solids in the world frame of `vision.camera` (z into the table, h up = -h).

Shared by the renderer (what to draw) and the detector (what silhouette a hypothesis casts).
A solid is its vertices (N, 3) and its faces (index tuples, outward counter-clockwise seen from
outside); faces resting on the table are left out.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from referee.dimensions import DEFAULT, Dimensions


@dataclass(frozen=True)
class Solid:
    vertices: np.ndarray
    faces: tuple[tuple[int, ...], ...]


def standing_pyramid(x: float, y: float, base: float, height: float, angle_deg: float = 0.0) -> Solid:
    """A square pyramid standing on its base centred at (x, y)."""
    a = math.radians(angle_deg)
    u = np.array([math.cos(a), math.sin(a)]) * base / 2
    v = np.array([-u[1], u[0]])
    corners = [np.array([x, y]) + su * u + sv * v for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    verts = np.array([[c[0], c[1], 0.0] for c in corners] + [[x, y, -height]])
    return Solid(verts, ((0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)))


def lying_pyramid(tip_x: float, tip_y: float, heading_deg: float, base: float, height: float) -> Solid:
    """A square pyramid lying on one face, its apex on the table at the tip, pointing along
    `heading_deg`. The base square rises from the resting edge at the face-to-base dihedral angle."""
    a = math.radians(heading_deg)
    u = np.array([math.cos(a), math.sin(a), 0.0])
    v = np.array([-u[1], u[0], 0.0])
    up = np.array([0.0, 0.0, -1.0])
    slant = math.hypot(height, base / 2)
    alpha = math.atan2(height, base / 2)
    tip = np.array([tip_x, tip_y, 0.0])
    mid = tip - slant * u
    e0, e1 = mid - v * base / 2, mid + v * base / 2
    rise = base * (math.cos(alpha) * u + math.sin(alpha) * up)
    verts = np.array([e0, e1, e1 + rise, e0 + rise, tip])
    return Solid(verts, ((1, 2, 4), (2, 3, 4), (3, 0, 4), (0, 1, 2, 3)))


def looney(piece, dims: Dimensions = DEFAULT) -> Solid:
    """The solid of a Looney `pyramid` piece of a scene."""
    base, height = dims.looney_base[piece.size], dims.looney_height[piece.size]
    if piece.pose == "lying":
        return lying_pyramid(piece.x, piece.y, piece.heading, base, height)
    return standing_pyramid(piece.x, piece.y, base, height, piece.angle or 0.0)


def shadow_on_table(points: np.ndarray, towards: np.ndarray, point_light: bool) -> np.ndarray:
    """Project world points (N, 3) onto the table z = 0 away from a light: `towards` is the
    light position (point light) or the direction to the light (distant light). Returns (N, 2)."""
    pts = np.asarray(points, np.float64)
    if point_light:
        d = pts - towards
    else:
        d = np.broadcast_to(-np.asarray(towards, np.float64), pts.shape)
    t = -pts[:, 2] / np.where(np.abs(d[:, 2]) < 1e-9, 1e-9, d[:, 2])
    return pts[:, :2] + t[:, None] * d[:, :2]
