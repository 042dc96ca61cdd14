"""Benchmark: IceFloe and Iceberg referees (targets: all legal actions of a position < 5 ms;
1,000 random self-play games < 1 minute; one core).

Run: python bench/referee_piecepack.py
"""
from __future__ import annotations

import random
import statistics
import time

from referee.iceberg import IcebergMatch
from referee.icefloe import IceFloeMatch
from referee.match import new_match

GAMES = 1000
FOUR = ["suns", "moons", "crowns", "arms"]
# Every pyramid alone on a tile of the standard board: the busiest movement position.
FULL_FLOE = {f"{suit}-{size}": tile for suit, tiles in zip(FOUR, (
    "crowns-1 suns-2 suns-3 moons-2 moons-3 suns-4", "suns-5 arms-1 moons-4 moons-5 moons-0 crowns-0",
    "suns-0 arms-0 arms-2 arms-3 moons-1 crowns-2", "crowns-3 arms-4 arms-5 suns-1 crowns-4 crowns-5"))
    for size, tile in zip("ABCDEF", tiles.split())}


def median_ms(fn, runs: int = 300) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


# Self-play has no real tiles: the seeded shuffle gives a flipped Iceberg tile its face.
SELF_PLAY = {"iceberg": {"tiles": "shuffle"}}


def self_play(game: str, players: list[str], games: int) -> tuple[float, int]:
    """Seconds for `games` seeded random games to the end, and the actions they took."""
    actions = 0
    start = time.perf_counter()
    for seed in range(games):
        match, rng = new_match(game, players, seed=seed, options=SELF_PLAY.get(game)), random.Random(seed)
        while not match.is_over():
            match.apply(rng.choice(match.legal_actions(rng.choice(match.to_act()))))
            actions += 1
    return time.perf_counter() - start, actions


def main() -> None:
    floe = IceFloeMatch.from_position(FOUR, FULL_FLOE)
    berg = IcebergMatch.from_position(FOUR, {"suns": [[0, 0]], "moons": [[9, 0]], "crowns": [[9, 9]],
                                             "arms": [[0, 9]]})
    for name, match in (("icefloe (24 pyramids, movement)", floe), ("iceberg (start of play)", berg)):
        player = match.to_act()[0]
        count = len(match.legal_actions(player))
        ms = median_ms(lambda: match.legal_actions(player))
        print(f"{name}: {count} legal actions listed, median {ms:.3f} ms (target 5 ms, ratio {ms / 5:.3f})")
    for game, players in (("icefloe", FOUR), ("iceberg", FOUR[:2])):
        seconds, actions = self_play(game, players, GAMES)
        print(f"{game}: {GAMES} random self-play games, {actions} actions, {seconds:.1f} s "
              f"(target 60 s, ratio {seconds / 60:.3f})")


if __name__ == "__main__":
    main()
