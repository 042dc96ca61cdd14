"""Footprints of pieces as shapely polygons in mm, and tolerant contact tests.

Exact `touches`/`overlaps` fail in floating point (shapely issues 346, 423, 1959): pieces that
touch on the table must not count as overlapping, so overlap is an area threshold and contact a
distance threshold.
"""
from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry

from referee.dimensions import DEFAULT, Dimensions
from referee.scene import Piece

# Overlap smaller than this area (mm^2) is measurement noise between touching pieces.
OVERLAP_AREA = 1.0
# Pieces closer than this (mm) are in contact.
CONTACT_GAP = 0.5


def unit(heading_deg: float) -> tuple[float, float]:
    """The unit vector of a heading in the table frame (0 = +x, 90 = +y)."""
    rad = math.radians(heading_deg)
    return math.cos(rad), math.sin(rad)


def square(cx: float, cy: float, side: float, angle_deg: float = 0.0) -> Polygon:
    """A square of `side` centred on (cx, cy), turned by `angle_deg`."""
    return rectangle(cx, cy, side, side, angle_deg)


def rectangle(cx: float, cy: float, width: float, height: float, angle_deg: float = 0.0) -> Polygon:
    """A width x height rectangle centred on (cx, cy), turned by `angle_deg`."""
    ux, uy = unit(angle_deg)
    vx, vy = -uy, ux
    hw, hh = width / 2, height / 2
    corners = [(cx + sx * hw * ux + sy * hh * vx, cy + sx * hw * uy + sy * hh * vy)
               for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return Polygon(corners)


def lying_triangle(tip_x: float, tip_y: float, heading_deg: float, base: float, length: float) -> Polygon:
    """The triangle a lying pyramid rests on: apex at the tip, base edge `length` behind it."""
    ux, uy = unit(heading_deg)
    bx, by = tip_x - length * ux, tip_y - length * uy
    px, py = -uy * base / 2, ux * base / 2
    return Polygon([(tip_x, tip_y), (bx + px, by + py), (bx - px, by - py)])


def footprint(piece: Piece, dims: Dimensions = DEFAULT) -> BaseGeometry:
    """The area a piece covers on the table."""
    if piece.type == "pyramid":
        if piece.pose == "lying":
            return lying_triangle(piece.x, piece.y, piece.heading, dims.looney_base[piece.size],
                                  dims.looney_lying_length[piece.size])
        return square(piece.x, piece.y, dims.looney_base[piece.size], piece.angle or 0.0)
    if piece.type == "pp_pyramid":
        return square(piece.x, piece.y, dims.pp_pyramid_base[piece.size], piece.angle or 0.0)
    if piece.type == "tile":
        return square(piece.x, piece.y, dims.tile, piece.angle or 0.0)
    if piece.type == "die":
        return square(piece.x, piece.y, dims.die, piece.angle or 0.0)
    if piece.type == "card":
        return rectangle(piece.x, piece.y, piece.width, piece.height, piece.angle)
    diameter = {"coin": dims.coin, "pawn": dims.pawn, "chit": dims.chit}[piece.type]
    return Point(piece.x, piece.y).buffer(diameter / 2, quad_segs=16)


def footprints(pieces, dims: Dimensions = DEFAULT) -> np.ndarray:
    """Footprints of many pieces at once (vectorised for Looney pyramids), as an object array."""
    out = np.empty(len(pieces), dtype=object)
    groups: dict[str, list[int]] = {"lying": [], "standing": []}
    for i, p in enumerate(pieces):
        if p.type == "pyramid":
            groups["lying" if p.pose == "lying" else "standing"].append(i)
        else:
            out[i] = footprint(p, dims)
    if groups["lying"]:
        out[groups["lying"]] = _triangles([pieces[i] for i in groups["lying"]], dims)
    if groups["standing"]:
        out[groups["standing"]] = _squares([pieces[i] for i in groups["standing"]], dims)
    return out


def _triangles(pieces, dims: Dimensions) -> np.ndarray:
    tip = np.array([(p.x, p.y) for p in pieces])
    rad = np.radians([p.heading for p in pieces])
    u = np.column_stack([np.cos(rad), np.sin(rad)])
    v = np.column_stack([-u[:, 1], u[:, 0]])
    length = np.array([dims.looney_lying_length[p.size] for p in pieces])[:, None]
    half = np.array([dims.looney_base[p.size] / 2 for p in pieces])[:, None]
    back = tip - u * length
    return shapely.polygons(np.stack([tip, back + v * half, back - v * half], axis=1))


def _squares(pieces, dims: Dimensions) -> np.ndarray:
    centre = np.array([(p.x, p.y) for p in pieces])
    rad = np.radians([p.angle or 0.0 for p in pieces])
    u = np.column_stack([np.cos(rad), np.sin(rad)])
    v = np.column_stack([-u[:, 1], u[:, 0]])
    half = np.array([dims.looney_base[p.size] / 2 for p in pieces])[:, None]
    corners = [centre + (sx * u + sy * v) * half for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return shapely.polygons(np.stack(corners, axis=1))


def overlaps(a: BaseGeometry, b: BaseGeometry, min_area: float = OVERLAP_AREA) -> bool:
    """True when two footprints share more than `min_area` mm^2 (touching is not overlapping)."""
    return a.intersects(b) and a.intersection(b).area > min_area


def in_contact(a: BaseGeometry, b: BaseGeometry, gap: float = CONTACT_GAP) -> bool:
    """True when two footprints are within `gap` mm of each other."""
    return bool(shapely.dwithin(a, b, gap))


def area_polygon(area: tuple[float, float]) -> Polygon:
    """The play area as a polygon with its top-left corner at the origin."""
    width, height = area
    return Polygon([(0, 0), (width, 0), (width, height), (0, height)])
