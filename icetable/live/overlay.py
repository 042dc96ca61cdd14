"""The referee's overlay on the camera picture: shapes in the picture's pixels.

Every shape is `{"kind": "piece" | "line" | "text" | "area", "points" or "at", "class", ...}`;
webapp/static/overlay.js draws them in SVG. Pieces carry their id and label (touch one to
confirm or correct it); Ice Pirates reach areas and cannon lines carry `ship`, shown only for
the selected ship.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import shapely

from referee.dimensions import DEFAULT
from referee.geometry import footprint
from referee.scene import Scene

Project = Callable[[np.ndarray], np.ndarray]     # table mm (N, 2) -> picture pixels (N, 2)


def _ring(geom, project: Project) -> list[list[float]]:
    coords = np.asarray(geom.exterior.coords if hasattr(geom, "exterior") else geom.coords)
    return np.round(project(coords[:, :2]), 1).tolist()


def shapes(scene: Scene, report: dict, project: Project, crashes: list[dict] = ()) -> list[dict]:
    """The overlay of a scene and its report."""
    status = report.get("status", {})
    defenders = status.get("defenders", {})
    attackers = status.get("attackers", {})
    ships = status.get("ships", {})
    pieces = scene.by_id()
    out = []
    for p in scene.pieces:
        cls = []
        if defenders.get(p.id, {}).get("iced"):
            cls.append("iced")
        if p.extra.get("uncertain"):
            cls.append("uncertain")
        entry = {"kind": "piece", "id": p.id, "label": p.label(), "class": " ".join(cls),
                 "points": _ring(footprint(p, DEFAULT), project)}
        if p.id in ships:
            entry["movable"] = True
        out.append(entry)
    for aid, a in attackers.items():
        if aid not in pieces:
            continue
        tip = pieces[aid]
        target = pieces.get(a.get("target"))
        end = (target.x, target.y) if target else _ahead(tip, 30.0)
        out.append({"kind": "line", "class": "illegal" if a.get("problem") else "attack",
                    "points": project(np.array([[tip.x, tip.y], end])).round(1).tolist()})
    for tid, floe in status.get("floes", {}).items():
        if tid in pieces:
            t = pieces[tid]
            out.append({"kind": "text", "class": "overweight" if floe["weight"] > 5 else "weight",
                        "at": project(np.array([[t.x, t.y]]))[0].round(1).tolist(), "text": str(floe["weight"])})
    for sid, ship in ships.items():
        for poly in ship.get("reach", []):
            out.append({"kind": "area", "class": "reach", "ship": sid,
                        "points": project(np.asarray(poly, np.float64)).round(1).tolist()})
        for target in ship.get("in_range", []):
            if sid in pieces and target in pieces:
                a, b = pieces[sid], pieces[target]
                out.append({"kind": "line", "class": "cannon", "ship": sid,
                            "points": project(np.array([[a.x, a.y], [b.x, b.y]])).round(1).tolist()})
    for w in crashes:
        was = w.get("was")
        if was:
            ghost = shapely.Point(was["x"], was["y"]).buffer(12.0)
            out.append({"kind": "area", "class": "crash", "points": _ring(ghost, project)})
    return out


def _ahead(piece, length: float) -> tuple[float, float]:
    rad = np.radians(piece.heading or 0.0)
    return piece.x + length * np.cos(rad), piece.y + length * np.sin(rad)
