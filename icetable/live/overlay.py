"""The referee's overlay on the camera picture: shapes in the picture's pixels.

Every shape is `{"kind": "piece" | "line" | "text" | "area" | "region", "points" (or "at" for a
text, "rings" for a region with holes), "class", ...}`;
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


def pirate_areas(scene: Scene) -> tuple[dict, dict]:
    """Ice Pirates: the report with every ship's reachable area, and each ship's cannon areas
    (both long sides) as {ship id: [polygon, polygon]}."""
    from referee.icepirates.cannons import firing_areas
    from referee.icepirates.objects import build_table
    from referee.icepirates.report import evaluate
    from referee.icepirates.rules import IcePiratesOptions

    report = evaluate(scene, DEFAULT, {"reach": True}).to_dict()
    table = build_table(scene, DEFAULT)
    ships = list(table.ships.values())
    if not ships:
        return report, {}
    corners = firing_areas(table, ships, IcePiratesOptions())[2]
    return report, {s.id: corners[2 * i:2 * i + 2].tolist() for i, s in enumerate(ships)}


def shapes(scene: Scene, report: dict, project: Project, crashes: list[dict] = (),
           cannons: dict | None = None) -> list[dict]:
    """The overlay of a scene and its report (Ice Pirates: with `cannons` from pirate_areas)."""
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
        for rings in ship.get("reach", []):       # exterior, then holes
            out.append({"kind": "region", "class": "reach", "ship": sid,
                        "rings": [project(np.asarray(r, np.float64)).round(1).tolist() for r in rings]})
        for area in (cannons or {}).get(sid, []):
            out.append({"kind": "area", "class": "cannon", "ship": sid,
                        "points": project(np.asarray(area, np.float64)).round(1).tolist()})
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


def marks(warnings: list[dict], seen: Scene, project: Project) -> list[dict]:
    """The pieces the warnings name, outlined as offending, with the warning's words above the
    first one ("ILLEGAL ATTACK"). Drawn from the table as seen: a refused attack is not in the
    referee's scene but stays on the table until it is taken back."""
    pieces = seen.by_id()
    out = []
    for w in warnings:
        named = [pieces[pid] for pid in w.get("pieces", []) if pid in pieces]
        for p in named:
            out.append({"kind": "piece", "id": p.id, "label": f"{p.label()}: {w.get('message', '')}",
                        "class": "offending", "points": _ring(footprint(p, DEFAULT), project)})
        if named:
            top = min(_ring(footprint(named[0], DEFAULT), project), key=lambda xy: xy[1])
            out.append({"kind": "text", "class": "offending", "at": [top[0], top[1] - 12],
                        "text": str(w.get("code", "")).replace("_", " ").upper()})
    return out


def _ahead(piece, length: float) -> tuple[float, float]:
    rad = np.radians(piece.heading or 0.0)
    return piece.x + length * np.cos(rad), piece.y + length * np.sin(rad)
