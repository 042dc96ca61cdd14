"""The match protocol shared by the turn-based referees, `icetable replay` and the web app.

A match holds the whole state of one game between named players. Players act through
`apply(action)`; an action is a JSON object with at least `"player"` and `"type"` (each game
lists its action types in docs/records.md). Chance comes from a seeded `random.Random` inside
the match, or from an explicit `"roll"` field in the action when a real die was rolled.
"""
from __future__ import annotations

import importlib
from typing import Callable, Protocol

from referee.scene import Scene


class IllegalAction(ValueError):
    """An action the rules do not allow now; str() is the reason, one line, for people."""


class Match(Protocol):
    """One game in progress. `players` are suits (icefloe, iceberg) or colours."""

    game: str
    players: list[str]

    def to_act(self) -> list[str]:
        """Players who may act now (several during a sealed vote; none when the game is over)."""

    def legal_actions(self, player: str) -> list[dict]:
        """Every action `player` may take now, as closed choices (empty if not his turn)."""

    def apply(self, action: dict, scene: Scene | None = None) -> dict:
        """Validate (raise IllegalAction, state unchanged), then apply; returns the verdict
        `{"ok": True, "events": [...], "warnings": [...]}`. `scene` is the table seen after
        the action, when a camera saw one; disagreements become warnings."""

    def view(self, player: str | None) -> dict:
        """JSON-able state that `player` may see (None: the public table view)."""

    def scores(self) -> dict[str, int]:
        """Points per player now."""

    def is_over(self) -> bool:
        """True once the game has ended."""

    def winner(self) -> list[str] | None:
        """The winners (several = shared victory) once over, else None."""


def _lazy(module: str, cls: str) -> Callable:
    """A factory that imports `module` only when a match of that game is made."""

    def factory(players: list[str], seed: int = 0, options: dict | None = None):
        return getattr(importlib.import_module(module), cls)(players, seed=seed, options=options)

    return factory


# Game name -> factory(players, seed, options) -> Match. Add one line per game.
GAMES: dict[str, Callable] = {
    "icefloe": _lazy("referee.icefloe", "IceFloeMatch"),
    "iceberg": _lazy("referee.iceberg", "IcebergMatch"),
}


def new_match(game: str, players: list[str], seed: int = 0, options: dict | None = None) -> Match:
    """A new match of `game` (a key of GAMES) between `players`.

    Raises ValueError (IllegalAction for a bad player list) with one line naming the problem;
    OptionError for a bad rule option."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (one of {', '.join(sorted(GAMES))})")
    return GAMES[game](list(players), seed=seed, options=options)


def check_action(action: object, players: list[str]) -> tuple[str, str]:
    """The (player, type) of a well-formed action; raises IllegalAction otherwise."""
    if not isinstance(action, dict):
        raise IllegalAction("an action must be a JSON object")
    player, kind = action.get("player"), action.get("type")
    if player not in players:
        raise IllegalAction(f"unknown player {player!r} (players: {', '.join(players)})")
    if not isinstance(kind, str):
        raise IllegalAction("an action needs a string 'type'")
    return player, kind


def verdict(events: list[dict], warnings: list[dict] | None = None) -> dict:
    """The verdict of an applied action. Each event is `{"type": ..., "text": ...}` plus
    facts; each warning is a Report warning dict (`code`, `message`, `pieces`)."""
    return {"ok": True, "events": events, "warnings": warnings or []}
