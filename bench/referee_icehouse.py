"""Benchmark: evaluating full Icehouse tables (targets: 60 pyramids < 2 ms, 600 < 20 ms, one core).

Run: python bench/referee_icehouse.py
"""
from __future__ import annotations

import math
import random
import statistics
import time

from referee.icehouse import evaluate
from referee.scene import scene_from_dict

COLORS = ("red", "blue", "green", "yellow", "purple", "orange", "black", "white", "cyan", "clear")


def table(n_pyramids: int, seed: int = 1) -> dict:
    """A table of `n_pyramids`: per colour 15 pieces, about half standing on a jittered grid and
    half lying near them pointing roughly at a neighbour."""
    rng = random.Random(seed)
    colors = COLORS[: max(1, n_pyramids // 15)]
    side = math.ceil(math.sqrt(n_pyramids)) + 1
    cells = [(i, j) for i in range(side) for j in range(side)]
    rng.shuffle(cells)
    pieces = []
    for k in range(n_pyramids):
        i, j = cells[k]
        x, y = 40 + i * 70 + rng.uniform(-5, 5), 40 + j * 70 + rng.uniform(-5, 5)
        color, size = colors[k % len(colors)], rng.choice((1, 2, 3))
        piece = {"id": f"p{k}", "type": "pyramid", "color": color, "size": size, "x": x, "y": y}
        if k % 2:
            piece.update(pose="lying", heading=rng.choice((0, 90, 180, 270)) + rng.uniform(-10, 10) % 360)
            piece["heading"] %= 360
        else:
            piece.update(pose="standing")
        pieces.append(piece)
    area = {"width": 80 + side * 70, "height": 80 + side * 70}
    return {"format": "icetable-scene/1", "game": "icehouse", "area": area, "pieces": pieces,
            "last": pieces[-1]["id"]}


def median_ms(scene, runs: int) -> float:
    evaluate(scene)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        evaluate(scene)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    for n, target, runs in ((60, 2.0, 200), (600, 20.0, 50)):
        scene = scene_from_dict(table(n), "bench")
        ms = median_ms(scene, runs)
        print(f"icehouse evaluate, {n} pyramids: median {ms:.2f} ms over {runs} runs "
              f"(target {target} ms, ratio {ms / target:.2f})")


if __name__ == "__main__":
    main()
