"""A starting table: ten islands in the middle, homes around them, fleets touching their homes.

Used by a match that starts without a camera scene, by the examples and by the benchmark.
"""
from __future__ import annotations

import math
import random

from referee.dimensions import DEFAULT, Dimensions
from referee.icepirates.rules import ISLAND_COLORS
from referee.scene import Piece, Scene

AREA = (1000.0, 1000.0)
POSTCARD = (148.0, 105.0)
# Islands: 7 on a ring of radius 190 mm and 3 on a ring of 85 mm (gaps over 4 inches).
RINGS = ((190.0, 7, 0.0), (85.0, 3, 30.0))
HOME_RADIUS = 370.0
# Along the home's edge facing the centre (pointing at it) and along each short edge.
INNER_FLEET, SIDE_FLEET = (3, 2, 1, 1, 2, 3), (3, 2, 1)
FLEET_GAP = 5.0


def ship_id(color: str, size: int, k: int) -> str:
    return f"{color}-{'SML'[size - 1]}{k}"


def island_nests(seed: int, colors=ISLAND_COLORS) -> list[list[tuple[str, int]]]:
    """Ten random nests [(color, 3), (color, 2), (color, 1)] from two stashes of 5 per size."""
    rng = random.Random(seed)
    by_size = {}
    for size in (3, 2, 1):
        stash = [c for c in colors for _ in range(5)]
        rng.shuffle(stash)
        by_size[size] = stash
    return [[(by_size[s][i], s) for s in (3, 2, 1)] for i in range(10)]


def starting_scene(players: list[str], seed: int = 0, dims: Dimensions = DEFAULT,
                   treasure_color: str = ISLAND_COLORS[0]) -> Scene:
    """The table at the start: islands (nests named in `state.islands`), homes, fleets."""
    cx, cy = AREA[0] / 2, AREA[1] / 2
    pieces, islands = [], []
    nests = island_nests(seed)
    k = 0
    for radius, count, offset in RINGS:
        for j in range(count):
            a = math.radians(offset + 360 * j / count)
            color = nests[k][0][0]
            k += 1
            pieces.append(Piece(f"i{k}", "pyramid", round(cx + radius * math.cos(a), 2),
                                round(cy + radius * math.sin(a), 2), color=color, size=3,
                                pose="standing", nested=(2, 1)))
            islands.append(f"i{k}")
    for n, color in enumerate(players):
        a = 90 + 360 * n / len(players)
        pieces += home_and_fleet(color, a, (cx, cy), dims)
    state = {"players": list(players), "islands": islands, "island_colors": list(ISLAND_COLORS),
             "treasure_color": treasure_color}
    return Scene("icepirates", tuple(pieces), AREA, None, state)


def home_and_fleet(color: str, bearing: float, centre, dims: Dimensions) -> list[Piece]:
    """A home card at `bearing` degrees from the centre and twelve ships touching its edges."""
    r = math.radians(bearing)
    out_x, out_y = math.cos(r), math.sin(r)        # away from the centre
    tan_x, tan_y = -out_y, out_x
    hx, hy = centre[0] + HOME_RADIUS * out_x, centre[1] + HOME_RADIUS * out_y
    width, height = POSTCARD
    pieces = [Piece(f"home-{color}", "card", round(hx, 2), round(hy, 2), owner=color,
                    width=width, height=height, angle=round(bearing + 90, 6) % 360)]
    count = {1: 0, 2: 0, 3: 0}

    def place(along: float, across: float, direction: tuple, size: int):
        count[size] += 1
        length = dims.looney_lying_length[size]
        bx = hx + along * tan_x + across * out_x
        by = hy + along * tan_y + across * out_y
        dx = direction[0] * tan_x + direction[1] * out_x
        dy = direction[0] * tan_y + direction[1] * out_y
        heading = math.degrees(math.atan2(dy, dx)) % 360
        pieces.append(Piece(ship_id(color, size, count[size]), "pyramid", round(bx + length * dx, 3),
                            round(by + length * dy, 3), color=color, size=size, pose="lying",
                            heading=round(heading, 4) % 360))

    bases = [dims.looney_base[s] for s in INNER_FLEET]
    x = -(sum(bases) + FLEET_GAP * (len(bases) - 1)) / 2
    for size, base in zip(INNER_FLEET, bases):
        place(x + base / 2, -height / 2, (0, -1), size)
        x += base + FLEET_GAP
    for sign in (-1, 1):
        y = -height / 2 + FLEET_GAP
        for size in SIDE_FLEET:
            base = dims.looney_base[size]
            place(sign * width / 2, y + base / 2, (sign, 0), size)
            y += base + FLEET_GAP
    return pieces
