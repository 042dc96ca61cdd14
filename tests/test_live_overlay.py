"""The overlay: shapes in picture pixels for each game's referee report."""
import numpy as np

from icetable.live.overlay import pirate_areas, shapes
from referee.evaluate import evaluate
from referee.icefloe.match import IceFloeMatch
from referee.match import new_match
from referee.scene import Piece, Scene


def half(pts):
    return np.asarray(pts, np.float64) / 2.0


def test_icehouse_attack_lines_iced_defenders_and_crash_ghost():
    d = Piece("d", "pyramid", 100.0, 100.0, color="red", size=2, pose="standing")
    a = Piece("a", "pyramid", 80.0, 100.0, color="blue", size=3, pose="lying", heading=0.0)
    b = Piece("b", "pyramid", 300.0, 300.0, color="blue", size=1, pose="lying", heading=90.0)
    scene = Scene("icehouse", (d, a, b), (600.0, 450.0), last="b")
    report = evaluate(scene).to_dict()
    crash = [{"code": "crash", "was": {"x": 200.0, "y": 200.0}}]
    out = shapes(scene, report, half, crash)
    pieces = {s["id"]: s for s in out if s["kind"] == "piece"}
    assert "iced" in pieces["d"]["class"] and "iced" not in pieces["a"]["class"]
    lines = [s for s in out if s["kind"] == "line"]
    assert sorted(s["class"] for s in lines) == ["attack", "illegal"]
    attack = next(s for s in lines if s["class"] == "attack")
    assert attack["points"] == [[40.0, 50.0], [50.0, 50.0]]      # tip to target, at half scale
    ghost = next(s for s in out if s["kind"] == "area" and s["class"] == "crash")
    assert all(abs(np.hypot(x - 100, y - 100) - 6) < 0.2 for x, y in ghost["points"])


def test_icefloe_floe_weights():
    match = IceFloeMatch.from_position(["suns", "moons", "crowns"],
                                       {"suns-A": "suns-3", "suns-F": "suns-3", "moons-A": "moons-2"})
    scene = match.scene()
    out = shapes(scene, evaluate(scene).to_dict(), half)
    weights = {s["text"] for s in out if s["kind"] == "text"}
    assert weights == {"0", "1", "4"}


def test_ice_pirates_reach_and_cannon_areas_belong_to_their_ship():
    scene = new_match("icepirates", ["red", "blue"], seed=1).scene()
    report, cannons = pirate_areas(scene)
    out = shapes(scene, report, half, cannons=cannons)
    ships = set(report["status"]["ships"])
    reach = [s for s in out if s["kind"] == "region" and s["class"] == "reach"]
    cannon = [s for s in out if s["kind"] == "area" and s["class"] == "cannon"]
    assert reach and {s["ship"] for s in reach} <= ships
    active = {s for s, v in report["status"]["ships"].items() if not v["disabled"]}
    assert {s["ship"] for s in cannon} == active and len(cannon) == 2 * len(active)
