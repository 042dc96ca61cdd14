"""Helpers for the IceFloe, Iceberg and record tests: positions, actions, seeded random play."""
import random

from referee.icefloe import IceFloeMatch
from referee.match import new_match
from referee.scene import RANKS, SUITS

FOUR = ["suns", "moons", "crowns", "arms"]
THREE = ["suns", "moons", "crowns"]


def pyramids(**by_suit):
    """pyramids(suns="crowns-1 suns-2 ...") -> {"suns-A": "crowns-1", ...} in size order A..F."""
    out = {}
    for suit, tiles in by_suit.items():
        out.update({f"{suit}-{size}": tile for size, tile in zip("ABCDEF", tiles.split())})
    return out


# Every pyramid alone on a tile of the standard 4-player board; suns-A on the ace of crowns (2, 0).
STANDARD4 = pyramids(suns="crowns-1 suns-2 suns-3 moons-2 moons-3 suns-4",
                     moons="suns-5 arms-1 moons-4 moons-5 moons-0 crowns-0",
                     crowns="suns-0 arms-0 arms-2 arms-3 moons-1 crowns-2",
                     arms="crowns-3 arms-4 arms-5 suns-1 crowns-4 crowns-5")


def floe(players=FOUR, placed=STANDARD4, **kwargs) -> IceFloeMatch:
    return IceFloeMatch.from_position(players, placed, **kwargs)


def act(match, player, kind, **fields):
    """Apply one action; returns the verdict."""
    return match.apply({"player": player, "type": kind, **fields})


def vote_all(match, stage, ballots):
    """Every player votes; `ballots` maps players to values."""
    for player, value in ballots.items():
        act(match, player, f"vote_{stage}", value=value)


def play_random(game, players, seed, options=None, scenes=False, cap=20000):
    """Seeded random legal play to the end: (match, steps) where steps are record steps."""
    match = new_match(game, players, seed=seed, options=options)
    rng = random.Random(seed)
    faces = table_tiles(seed)
    steps = []
    while not match.is_over() and len(steps) < cap:
        action = rng.choice(match.legal_actions(rng.choice(match.to_act())))
        if action["type"] == "flip":             # the real tile shows its face
            action = {**action, "face": faces[action["tile"]]}
        match.apply(action)
        steps.append({"action": action, "scene": match.scene() if scenes else None})
    return match, steps


def table_tiles(seed: int) -> dict[str, list]:
    """The faces under the 24 face-down tiles of a real Iceberg table, dealt at random."""
    faces = [[s, r] for s in SUITS for r in RANKS]
    random.Random(seed).shuffle(faces)
    return dict(zip(sorted(f"t{c}{r}" for c in range(5) for r in range(5) if (c, r) != (2, 2)), faces))


def quiet_movement(match):
    """Each player still to move moves his first pyramid that can reach an empty tile (no floe
    cracks, no two pyramids meet), else takes his first legal action."""
    while match.phase == "move":
        player = match.to_act()[0]
        legal = match.legal_actions(player)
        empty = set(match.board.unoccupied())
        calm = [a for a in legal if a["type"] == "move" and match.board.at()[tuple(a["to"])] in empty]
        match.apply((calm or legal)[0])
