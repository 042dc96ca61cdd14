"""What the camera cannot see about Icehouse players, read from the scene's `state`:
who plays, stash counts, who is in the icehouse, placement order, the end of the game."""
from __future__ import annotations

from dataclasses import dataclass

from referee.icehouse.options import IcehouseOptions
from referee.scene import Scene


@dataclass(frozen=True)
class Table:
    """The players of a scene and their stashes."""

    players: tuple[str, ...]
    stash: dict[str, int]
    stash_known: bool  # False when counted from the table (no state.stash)
    icehouse: frozenset[str]
    order: tuple[str, ...] | None
    game_over: bool
    played_by: dict[str, str]  # piece id -> colour of the player who played it (prisoners)


def read_table(scene: Scene, opts: IcehouseOptions) -> Table:
    """The players and stashes of `scene` (from `state` where given, else from the pieces)."""
    state = scene.state
    on_table = [p.color for p in scene.pieces if p.type == "pyramid"]
    players = list(state.get("players") or [])
    for color in list(state.get("stash", {})) + on_table:
        if color not in players:
            players.append(color)
    if "stash" in state:
        stash = {c: int(state["stash"].get(c, 0)) for c in players}
    else:
        stash = {c: max(0, opts.pieces_per_colour - on_table.count(c)) for c in players}
    order = tuple(state["order"]) if "order" in state else None
    over = bool(state.get("game_over") or state.get("timer_expired")) or (
        bool(players) and all(n == 0 for n in stash.values()))
    return Table(tuple(players), stash, "stash" in state,
                 frozenset(state.get("icehouse", ())), order, over, dict(state.get("played_by", {})))
