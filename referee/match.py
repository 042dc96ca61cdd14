"""The match protocol shared by the turn-based referees, `icetable replay` and the web app.

A match holds the whole state of one game between named players. Players act through
`apply(action)`; an action is a JSON object with at least `"player"` and `"type"` (each game
lists its action types in docs/records.md). Chance comes from a seeded `random.Random` inside
the match, or from an explicit `"roll"` field in the action when a real die was rolled.
"""
from __future__ import annotations

import importlib
from typing import Callable, Protocol

from referee.scene import SUITS, Scene


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
    "icepirates": _lazy("referee.icepirates.match", "IcePiratesMatch"),
    "icehouse": _lazy("referee.icehouse.match", "IcehouseMatch"),
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


def suit_players(game: str, players: list[str], counts: tuple[int, ...]) -> list[str]:
    """The players of a piecepack game (suits, clockwise), or ValueError unless they are
    `counts` different suits."""
    if len(players) not in counts or len(set(players)) != len(players) or not set(players) <= set(SUITS):
        raise ValueError(f"{game} needs {' or '.join(map(str, counts))} different suits of "
                         f"{', '.join(SUITS)}, got {players}")
    return list(players)


def admit(match, action: object, note: str = "") -> tuple[str, str]:
    """The (player, type) of an action `match` can take now: well formed, the game not over,
    and the player among those who may act (`note` follows the turn message)."""
    player, kind = check_action(action, match.players)
    if match.is_over():
        raise IllegalAction("the game is over")
    if player not in match.to_act():
        raise IllegalAction(f"not {player}'s turn: waiting for {', '.join(match.to_act())}{note}")
    return player, kind


def verdict(events: list[dict], warnings: list[dict] | None = None) -> dict:
    """The verdict of an applied action. Each event is `{"type": ..., "text": ...}` plus
    facts; each warning is a Report warning dict (`code`, `message`, `pieces`)."""
    return {"ok": True, "events": events, "warnings": warnings or []}


def same_choice(choice: dict, action: dict) -> bool:
    """True when `action` names the legal `choice` (every key of the choice equal; lists and
    tuples alike; a list of coins in any order). Extra keys of the action (a "roll") are allowed."""
    for key, value in choice.items():
        given = action.get(key)
        if isinstance(given, tuple):
            given = list(given)
        if key == "coins" and isinstance(given, list):
            given = sorted(given, key=str)
        if given != value:
            return False
    return True


DIE_FACES = (0, 1, 2, 3, 4, 5)


def roll_die(action: dict, rng) -> int:
    """The piecepack die face of an action: its explicit "roll" field (a real die rolled at the
    table), else the match's seeded die."""
    if "roll" not in action:
        return rng.choice(DIE_FACES)
    if action["roll"] not in DIE_FACES or isinstance(action["roll"], bool):
        raise IllegalAction(f"a piecepack die shows 0 (null) to 5, not {action['roll']!r}")
    return action["roll"]


def event(kind: str, text: str, **facts) -> dict:
    """One event of a verdict: a type, a sentence for people, and facts for programs."""
    return {"type": kind, "text": text, **facts}


class PhaseMachine:
    """A base for matches whose state is a `phase`: `legal_actions` calls `_legal_<phase>(player)`
    (choices without the player) and `apply` validates against it, then calls
    `_do_<phase>(player, action) -> events`; `_compare(scene) -> warnings` checks the camera."""

    phase: str
    players: list[str]

    def legal_actions(self, player: str) -> list[dict]:
        if player not in self.to_act():
            return []
        return [{"player": player, **a} for a in getattr(self, f"_legal_{self.phase}")(player)]

    def apply(self, action: dict, scene: Scene | None = None) -> dict:
        player, kind = admit(self, action, f" ({self.phase})")
        legal = self.legal_actions(player)
        if not any(same_choice(choice, action) for choice in legal):
            raise IllegalAction(self._reason(action, legal))
        events = getattr(self, f"_do_{self.phase}")(player, action)
        return verdict(events, self._compare(scene) if scene is not None else [])

    def _reason(self, action: dict, legal: list[dict]) -> str:
        """Why an action is not among the legal choices, one line."""
        kinds = sorted({c["type"] for c in legal})
        if action["type"] not in kinds:
            return f"{action['type']!r} is not allowed now (phase {self.phase}: {', '.join(kinds)})"
        what = {k: v for k, v in action.items() if k not in ("player", "type")}
        return f"{action['type']} {what} is not a legal choice now"

    def _compare(self, scene: Scene) -> list[dict]:
        return []

    def clockwise(self, start: str) -> list[str]:
        """The players in seating order beginning with `start`."""
        i = self.players.index(start)
        return self.players[i:] + self.players[:i]
