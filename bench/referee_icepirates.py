"""Benchmark: a 5-player Ice Pirates table (60 ships, 10 islands) fully evaluated.

Prints the median (and best) time of `evaluate` with every ship's reachable area, on the
starting table (fleets crowded around their homes) and on a mid-game table (ships scattered
over the sea). The best run and the CPU time are the figures for an otherwise idle core.
Target: under 50 ms on one core.  Run: python bench/referee_icepirates.py [runs]
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from dataclasses import replace

import shapely

from referee.dimensions import DEFAULT
from referee.geometry import footprint
from referee.icepirates import evaluate
from referee.icepirates.layout import starting_scene

PLAYERS = ["red", "blue", "green", "yellow", "purple"]
TARGET_MS = 50.0


def scattered(scene, seed: int = 1, clearance: float = 3.0):
    """The same table with every ship moved to a random free pose in the sea."""
    rng = random.Random(seed)
    width, height = scene.area
    fixed = [p for p in scene.pieces if p.pose != "lying"]
    taken = [footprint(p).buffer(clearance) for p in fixed]
    moved = []
    for ship in (p for p in scene.pieces if p.pose == "lying"):
        while True:
            pose = replace(ship, x=rng.uniform(60, width - 60), y=rng.uniform(60, height - 60),
                           heading=rng.uniform(0, 360))
            shape = footprint(pose)
            if not any(shape.intersects(t) for t in taken):
                break
        taken.append(shape.buffer(clearance))
        moved.append(pose)
    return replace(scene, pieces=tuple(fixed + moved))


def times_ms(scene, runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds of each run."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        report = evaluate(scene, DEFAULT, {"reach": True})
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    assert len(report.status["ships"]) == 60
    return wall, cpu


def main(runs: int = 15) -> None:
    start = starting_scene(PLAYERS, seed=0)
    tables = {"starting table": start, "mid-game table": scattered(start)}
    print(f"Ice Pirates evaluate + reach, 5 players, 60 ships, 10 islands, shapely {shapely.__version__}, "
          f"median of {runs} runs")
    for name, scene in tables.items():
        wall, cpu = times_ms(scene, runs)
        ms = statistics.median(wall)
        print(f"  {name:15s} median {ms:6.1f} ms  best {min(wall):6.1f} ms  cpu median "
              f"{statistics.median(cpu):6.1f} ms  ({ms / TARGET_MS:.2f} x the {TARGET_MS:.0f} ms target)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
