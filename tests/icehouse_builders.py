"""Builders of Icehouse scenes for the tests: defenders and attackers placed by the gap between
them, so each boundary can be approached from a little inside and a little outside."""
from __future__ import annotations

import math

from referee.dimensions import DEFAULT
from referee.scene import scene_from_dict


def stand(pid, color, size, x, y, angle=None):
    piece = {"id": pid, "type": "pyramid", "color": color, "size": size, "pose": "standing",
             "x": x, "y": y}
    if angle is not None:
        piece["angle"] = angle
    return piece


def lie(pid, color, size, x, y, heading):
    return {"id": pid, "type": "pyramid", "color": color, "size": size, "pose": "lying",
            "x": x, "y": y, "heading": heading % 360}


def attack(pid, color, size, target, gap, heading=0.0, offset=0.0):
    """A lying pyramid pointing along `heading` at the face of standing `target` (a dict whose
    `angle` equals `heading`, so the face is square to the line), its tip `gap` mm away.
    `offset` moves the line sideways (mm) across the face."""
    half = DEFAULT.looney_base[target["size"]] / 2
    ux, uy = math.cos(math.radians(heading)), math.sin(math.radians(heading))
    back = half + gap
    return lie(pid, color, size, target["x"] - ux * back - uy * offset,
               target["y"] - uy * back + ux * offset, heading)


def scene(*pieces, last=None, area=(600, 600), **state):
    data = {"format": "icetable-scene/1", "game": "icehouse", "pieces": list(pieces)}
    if area:
        data["area"] = {"width": area[0], "height": area[1]}
    if last:
        data["last"] = last
    if state:
        data["state"] = state
    return scene_from_dict(data, "test")
