"""The Icehouse game as the web app runs it: real time, so no turns; what the app tracks is the
hidden end timer, icehouse calls, crash penalties and who sits in the icehouse.

`IcehouseGame` follows the match protocol of referee/match.py. Calls are resolved by the
referee (`referee.icehouse.call`) on the latest scene the camera posted; the web app stores the
resolved outcome in the action, so a rebuild after a restart gives the same result. With no
scene, a call waits for the host to confirm its outcome. A player who crashed the table says so
on his phone (`crash`: the size of the piece he was trying to play and the opponent he gives
it to); the app announces the penalty and the players hand the piece over and put the jarred
pieces back (docs/rulings/icehouse.md). The deadline itself never enters this object: the web
app keeps it in the store and applies an `end` action when it fires.
"""
from __future__ import annotations

from referee.match import IllegalAction, check_action, event, verdict

KINDS = ("true", "false", "self")
SYSTEM = ("host", "clock")
SIZES = {1: "small", 2: "medium", 3: "large"}


class IcehouseGame:
    game = "icehouse"

    def __init__(self, players: list[str], seed: int = 0, options: dict | None = None):
        if len(players) < 2:
            raise IllegalAction("icehouse needs at least 2 players")
        self.players = list(players)
        self.icehouse: list[str] = []
        self.calls: list[dict] = []          # resolved calls, oldest first
        self.crashes: list[dict] = []        # crash penalties, oldest first: player, size, to
        self.pending: str | None = None      # caller waiting for the host's ruling
        self.over = False
        self.ended_by: str | None = None
        self.final: dict[str, int] | None = None

    def to_act(self) -> list[str]:
        return [] if self.over or self.pending else list(self.players)

    def legal_actions(self, player: str) -> list[dict]:
        """A call, and the crash penalty: each size of piece he may have been playing, to each
        opponent (a player in the icehouse still plays captured and received pieces)."""
        if player not in self.to_act():
            return []
        return [{"player": player, "type": "call"}] + [
            {"player": player, "type": "crash", "size": size, "to": to}
            for size in SIZES for to in self.players if to != player]

    def apply(self, action: dict, scene=None) -> dict:
        player, kind = check_action(action, self.players + list(SYSTEM))
        if self.over:
            raise IllegalAction("the game is over")
        handler = {"call": self._call, "confirm_call": self._confirm, "crash": self._crash,
                   "end": self._end}.get(kind)
        if handler is None:
            raise IllegalAction(f"unknown action type {kind!r}")
        return handler(player, action)

    def _call(self, player: str, action: dict) -> dict:
        if player in SYSTEM:
            raise IllegalAction("only a player can call icehouse")
        if self.pending:
            raise IllegalAction(f"{self.pending}'s call is being resolved")
        outcome = action.get("outcome")
        if outcome is None:
            self.pending = player
            return verdict([event("call", f"{player} calls icehouse: the host rules on it",
                                  caller=player, pending=True)])
        return self._resolve(player, outcome["kind"], outcome["icehoused"], outcome["message"])

    def _confirm(self, player: str, action: dict) -> dict:
        if player != "host":
            raise IllegalAction("only the host confirms a call")
        if not self.pending:
            raise IllegalAction("no call is waiting for a ruling")
        caller, kind = self.pending, action.get("kind")
        if kind not in KINDS:
            raise IllegalAction(f"kind must be one of {', '.join(KINDS)}")
        icehoused = action.get("icehoused", [])
        if kind == "self":
            icehoused = [caller]
        elif kind == "false":
            icehoused = []
        elif not icehoused or not set(icehoused) <= set(self.players) - {caller}:
            raise IllegalAction("a true call names the players put in the icehouse (not the caller)")
        message = {"true": f"{', '.join(icehoused)} in the icehouse: stash to {caller}",
                   "false": f"false call by {caller}: one piece of their stash to another player",
                   "self": f"{caller} called icehouse on themself: score 0, keeps their pieces"}[kind]
        self.pending = None
        return self._resolve(caller, kind, icehoused, message)

    def _resolve(self, caller: str, kind: str, icehoused: list[str], message: str) -> dict:
        for colour in icehoused:
            if colour not in self.icehouse:
                self.icehouse.append(colour)
        record = {"caller": caller, "kind": kind, "icehoused": list(icehoused), "message": message}
        self.calls.append(record)
        return verdict([event("call_resolved", message, caller=caller, outcome=kind,
                              icehoused=list(icehoused))])

    def _crash(self, player: str, action: dict) -> dict:
        """ "He must give away the piece he was trying to play, to the opponent of his choice.
        Also, the pieces that were jarred should be put back the way they were." """
        choice = {"player": player, "type": "crash", "size": action.get("size"), "to": action.get("to")}
        if choice not in self.legal_actions(player):
            raise IllegalAction(f"{player} cannot give a piece of size {action.get('size')!r} to "
                                f"{action.get('to')!r} for a crash")
        self.crashes.append({k: choice[k] for k in ("player", "size", "to")})
        size = SIZES[choice["size"]]
        return verdict([event("crash", f"{player} crashed the table playing a {size}: it goes to "
                              f"{choice['to']}; put the jarred pieces back", player=player,
                              size=choice["size"], to=choice["to"])])

    def _end(self, player: str, action: dict) -> dict:
        if player not in SYSTEM:
            raise IllegalAction("only the host or the timer ends the game")
        self.over, self.ended_by, self.pending = True, player, None
        final = action.get("scores")
        if final is not None:
            self.final = {c: 0 if c in self.icehouse else int(final.get(c, 0)) for c in self.players}
        why = "the timer has gone off" if player == "clock" else "the host ended the game"
        return verdict([event("game_over", f"Stop! {why}")])

    def view(self, player: str | None) -> dict:
        return {"icehouse": list(self.icehouse), "calls": list(self.calls), "crashes": list(self.crashes),
                "pending_call": self.pending, "over": self.over, "ended_by": self.ended_by,
                "timer": "rang" if self.ended_by == "clock" else ("stopped" if self.over else "hidden")}

    def scores(self) -> dict[str, int]:
        return dict(self.final) if self.final else {c: 0 for c in self.players}

    def is_over(self) -> bool:
        return self.over

    def winner(self) -> list[str] | None:
        if not self.over or not self.final:
            return None
        best = max(self.final.values())
        return [c for c, v in self.final.items() if v == best]
