"""Sealed ballots: which stored actions are ballots of a vote not yet revealed.

A ballot is sealed from the moment it is cast until its vote's reveal. The public view of the
match says how many ballots the open vote holds (`vote.voted`); during a vote no other action
is legal, so they are the last ballots among the game's live actions. Whatever ends or
changes the game (the host ending it, removing a player, an undo) leaves them sealed: the
record leaves them out, and a removed player's sealed ballot is withdrawn so that whoever
takes the freed seat starts with none.
"""
from __future__ import annotations


def is_ballot(action: dict) -> bool:
    return str(action.get("type", "")).startswith("vote_")


def sealed_count(match) -> int:
    """How many ballots the match's open vote holds (0 when no vote is open)."""
    return len(match.view(None).get("vote", {}).get("voted", []))


def sealed_positions(actions: list[dict], match) -> set[int]:
    """Indexes in `actions` (the game's live actions, in order) of the sealed ballots."""
    left, out = sealed_count(match), set()
    for i in range(len(actions) - 1, -1, -1):
        if left == 0:
            break
        if is_ballot(actions[i]):
            out.add(i)
            left -= 1
    return out


def unsealed(actions: list[dict], match) -> list[dict]:
    """The actions with the sealed ballots left out."""
    sealed = sealed_positions(actions, match)
    return [a for i, a in enumerate(actions) if i not in sealed]
