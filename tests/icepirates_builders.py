"""Helpers for the Ice Pirates tests: pieces, scenes, points relative to a ship, rotation."""
import math

import numpy as np

from referee.dimensions import DEFAULT
from referee.icepirates.objects import build_table
from referee.icepirates.steps import max_turn, triangles, units
from referee.scene import scene_from_dict

LENGTH = DEFAULT.looney_lying_length
BASE = DEFAULT.looney_base
SMALL = BASE[1]
# Rotations putting every scenario's headings in every quadrant.
QUADRANTS = (0.0, 37.0, 128.0, 215.0, 301.0)


def ship(pid, color, size, x, y, heading):
    return {"id": pid, "type": "pyramid", "color": color, "size": size, "pose": "lying",
            "x": x, "y": y, "heading": heading % 360}


def standing(pid, color, size, x, y, **extra):
    return {"id": pid, "type": "pyramid", "color": color, "size": size, "pose": "standing",
            "x": x, "y": y, **extra}


def nest(pid, x, y, color="black"):
    return standing(pid, color, 3, x, y, nested=[2, 1])


def home(color, x, y, angle=0.0, width=148.0, height=105.0):
    return {"id": f"home-{color}", "type": "card", "owner": color, "x": x, "y": y,
            "width": width, "height": height, "angle": angle % 360}


def scene(pieces, area=(800.0, 800.0), players=("red", "blue"), islands=None, **state):
    """A scene dict of `pieces`; islands default to the ids starting with 'i'."""
    if islands is None:
        islands = [p["id"] for p in pieces if p["id"].startswith("i")]
    data = {"format": "icetable-scene/1", "game": "icepirates", "pieces": list(pieces),
            "state": {"players": list(players), "islands": islands, "treasure_color": "black", **state}}
    if area is not None:
        data["area"] = {"width": area[0], "height": area[1]}
    return data


def load(data):
    return scene_from_dict(data, "<test>")


def table(data):
    return build_table(load(data))


def corners(piece):
    """Tip and base corners of a lying ship dict."""
    return triangles([(piece["x"], piece["y"])], [piece["heading"]], piece["size"], DEFAULT)[0]


def side_point(piece, side, along, out):
    """The point `along` (0 tip .. 1 base corner) the ship's long side, `out` mm outwards.
    side 1: the side of the base corner left of the heading (+90 degrees), 2: the other."""
    tip, left, right = corners(piece)
    corner = left if side == 1 else right
    t = (corner - tip) / np.hypot(*(corner - tip))
    n = np.array([-t[1], t[0]])
    centroid = (tip + left + right) / 3
    if np.dot(n, (tip + corner) / 2 - centroid) < 0:
        n = -n
    p = tip + along * (corner - tip) + out * n
    return float(p[0]), float(p[1])


def ahead(piece, distance, sideways=0.0):
    """A point `distance` mm beyond the tip along the heading, shifted `sideways` (+90 deg)."""
    u = units(piece["heading"])
    return (piece["x"] + distance * u[0] - sideways * u[1], piece["y"] + distance * u[1] + sideways * u[0])


def step(piece, turn, steps=1):
    """The pose after `steps` steps each turning by `turn` degrees: (x, y, heading)."""
    x, y, h = piece["x"], piece["y"], piece["heading"]
    for _ in range(steps):
        h += turn
        x += LENGTH[piece["size"]] * math.cos(math.radians(h))
        y += LENGTH[piece["size"]] * math.sin(math.radians(h))
    return x, y, h % 360


def turn_limit(size, margin=0.0):
    return max_turn(size, DEFAULT, margin)


def rotate(data, degrees, centre=(400.0, 400.0)):
    """The scene dict turned by `degrees` about `centre` (positions, headings, angles)."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    out = dict(data, pieces=[])
    for p in data["pieces"]:
        q = dict(p)
        dx, dy = p["x"] - centre[0], p["y"] - centre[1]
        q["x"], q["y"] = centre[0] + c * dx - s * dy, centre[1] + s * dx + c * dy
        for key in ("heading", "angle"):
            if key in p:
                q[key] = (p[key] + degrees) % 360
        out["pieces"].append(q)
    return out


def rotate_pose(pose, degrees, centre=(400.0, 400.0)):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    dx, dy = pose[0] - centre[0], pose[1] - centre[1]
    return centre[0] + c * dx - s * dy, centre[1] + s * dx + c * dy, (pose[2] + degrees) % 360
