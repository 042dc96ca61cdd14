"""Cargo holds and transfers: what a ship may carry, and moving pieces between holdings.

A piece of cargo is (color, size). A Small carries nothing, a Medium one Small, a Large one
Medium and one Small (never two Smalls). Islands and homes hold any amount.
"""
from __future__ import annotations

from collections import Counter

from referee.icepirates.rules import HOLDS


def fits(ship_size: int, cargo) -> bool:
    """Can a ship of `ship_size` carry all of `cargo` at once?"""
    room = Counter(HOLDS[ship_size])
    return not Counter(size for _, size in cargo) - room


def capacity_text(ship_size: int) -> str:
    sizes = HOLDS[ship_size]
    if not sizes:
        return "a Small ship carries no cargo"
    names = {1: "one Small", 2: "one Medium"}
    return f"a size-{ship_size} ship carries at most " + " and ".join(names[s] for s in sizes)


def take_out(holding: list, pieces) -> list | None:
    """`holding` without `pieces` (each (color, size) once), or None if some piece is missing."""
    left = list(holding)
    for piece in pieces:
        if piece not in left:
            return None
        left.remove(piece)
    return left


def pieces_of(raw, what: str) -> list[tuple[str, int]]:
    """Decode a JSON list of [color, size] pairs; ValueError names `what` when malformed."""
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(
            isinstance(p, (list, tuple)) and len(p) == 2 and isinstance(p[0], str) and p[1] in (1, 2, 3)
            for p in raw):
        raise ValueError(f"'{what}' must be a list of [color, size] pairs, got {raw!r}")
    return [(str(c), int(s)) for c, s in raw]
