"""Treasure: what pieces are worth and what each player holds at home."""
from __future__ import annotations

from referee.icepirates.objects import Table
from referee.icepirates.rules import TREASURE_VALUE, win_threshold


def value(pieces, treasure_color: str | None) -> int:
    """Treasure value of (color, size) pairs: Medium 2, Small 1, Large 0, other colours 0."""
    return sum(TREASURE_VALUE[size] for color, size in pieces if color == treasure_color)


def home_scores(table: Table) -> dict[str, int]:
    """Treasure on each player's home: `state.home_treasure` where given, else the pieces on the card."""
    state = table.scene.state
    color = state.get("treasure_color")
    scores = {player: 0 for player in table.players}
    for pid, kind in table.kinds.items():
        if kind == "home":
            owner = table.pieces[pid].owner
            stored = [(p.color, p.size) for p in table.cargo.get(pid, []) if p.type == "pyramid"]
            scores[owner] = scores.get(owner, 0) + value(stored, color)
    scores.update({k: int(v) for k, v in state.get("home_treasure", {}).items()})
    return scores


def winners(scores: dict[str, int], players: int) -> list[str]:
    """Players whose treasure reaches the win threshold for this many players."""
    if not 2 <= players <= 5:
        return []
    need = win_threshold(players)
    return sorted(p for p, s in scores.items() if s >= need)
