"""IcehouseMatch: the match protocol (referee/match.py) for real-time Icehouse.

The camera sees the table; the match adds what it cannot see: each player's stash pad (by colour
and size, prisoners included), the order of play, who is in the icehouse, calls and the timer.
Action types (docs/records.md): place, capture, take_back, call, pay_penalty, time_up.
"""
from __future__ import annotations

import math
from collections import Counter

from referee import options as rule_options
from referee.dimensions import DEFAULT
from referee.icehouse import call as judge_call
from referee.icehouse import evaluate
from referee.icehouse.options import IcehouseOptions
from referee.match import IllegalAction, admit, event, verdict
from referee.scene import COLORS, Piece, Scene, SceneError, scene_from_dict

# A played piece seen further than this (mm) from where it was placed has been jarred.
CRASH_SHIFT = 4.0


class IcehouseMatch:
    """One game of Icehouse between colours."""

    game = "icehouse"

    def __init__(self, players: list[str], seed: int = 0, options: dict | None = None):
        if len(set(players)) != len(players) or not players or any(p not in COLORS for p in players):
            raise IllegalAction(f"players must be distinct colours ({', '.join(COLORS)}), got {players}")
        opts = dict(options or {})
        area = opts.pop("area", None)
        self.area = tuple(area) if area else None
        self.opts = rule_options.make(IcehouseOptions, opts)
        self.players = list(players)
        self.pieces: dict[str, Piece] = {}
        self.played_by: dict[str, str] = {}
        self.stash = {p: Counter({(p, size): 5 for size in (1, 2, 3)}) for p in players}
        self.icehouse: set[str] = set()
        self.penalty_due: str | None = None
        self.crashed: Piece | None = None     # the piece a crash made its player give away
        self.jarred: set[str] = set()          # played pieces the last scene showed moved
        self.time_up = False
        self.last: str | None = None

    # -- the protocol -------------------------------------------------------------------
    def to_act(self) -> list[str]:
        return [] if self.is_over() else list(self.players)

    def legal_actions(self, player: str) -> list[dict]:
        """The closed choices of `player` (placements are geometric and judged on `apply`)."""
        if self.is_over() or player not in self.players:
            return []
        if self.penalty_due == player:
            owed = [(self.crashed.color, self.crashed.size)] if self.crashed else \
                [key for key, n in sorted(self.stash[player].items()) if n]
            return [{"player": player, "type": "pay_penalty", "to": to, "color": c, "size": s}
                    for c, s in owed for to in self.players if to != player]
        report = self.report()
        out = [{"player": player, "type": "call"}, {"player": player, "type": "time_up"}]
        for pid, d in report.status["defenders"].items():
            if self.pieces[pid].color == player:
                out += [{"player": player, "type": "capture", "piece": a} for a in d["capturable"]]
        if any(w.code == "meltdown" and w.color == player for w in report.warnings):
            out.append({"player": player, "type": "take_back"})
        return out

    def apply(self, action: dict, scene: Scene | None = None) -> dict:
        player, kind = admit(self, action)
        if self.penalty_due == player and kind != "pay_penalty":
            raise IllegalAction(f"{player} must first give a penalty piece for the false call")
        handler = getattr(self, f"_{kind}", None)
        if handler is None:
            raise IllegalAction(f"unknown Icehouse action {kind!r}")
        events = handler(player, action)
        jarred = self.crashes(scene) if scene is not None else []
        fresh = [w for w in jarred if w["pieces"][0] not in self.jarred]
        if scene is not None:
            self.jarred = {w["pieces"][0] for w in jarred}
        if kind == "place" and fresh:
            events += self._crash(player, fresh)
        return verdict(events, [w.to_dict() for w in self.report().warnings] + jarred)

    def view(self, player: str | None) -> dict:
        """Everything is public in Icehouse (the hidden timer is kept by the web app)."""
        return {"game": self.game, "players": self.players, "over": self.is_over(),
                "stash": self._totals(),
                "stash_pieces": {p: [{"color": c, "size": s, "count": n}
                                     for (c, s), n in sorted(self.stash[p].items()) if n]
                                 for p in self.players},
                "icehouse": sorted(self.icehouse), "penalty_due": self.penalty_due,
                "crashed": self.crashed.id if self.crashed else None,
                "scene": self.scene().to_dict(), "report": self.report().to_dict()}

    def scores(self) -> dict[str, int]:
        scores = self.report().scores
        return {p: scores.get(p, 0) for p in self.players}

    def is_over(self) -> bool:
        return self.time_up or all(sum(s.values()) == 0 for s in self.stash.values())

    def winner(self) -> list[str] | None:
        if not self.is_over():
            return None
        scores = self.scores()
        best = max(scores.values())
        return [p for p in self.players if scores[p] == best]

    # -- the table ----------------------------------------------------------------------
    def scene(self) -> Scene:
        """The table as the match knows it, with its state (stashes, order, icehouse)."""
        state = {"players": self.players, "stash": self._totals(), "order": list(self.pieces),
                 "icehouse": sorted(self.icehouse), "played_by": dict(self.played_by),
                 "game_over": self.is_over()}
        return Scene("icehouse", tuple(self.pieces.values()), self.area, self.last, state)

    def report(self):
        return evaluate(self.scene(), DEFAULT, self.opts)

    def crashes(self, seen: Scene) -> list[dict]:
        """Played pieces the camera sees moved or gone: a crash. Each warning says where the
        piece was, so it can be put back."""
        found = seen.by_id()
        out = []
        for pid, piece in self.pieces.items():
            now = found.get(pid)
            if now is None or math.dist((now.x, now.y), (piece.x, piece.y)) > CRASH_SHIFT or (
                    now.pose != piece.pose):
                out.append({"code": "crash", "pieces": [pid], "color": piece.color,
                            "message": f"{piece.label()} was moved: put it back",
                            "was": piece.to_dict()})
        return out

    def _totals(self) -> dict[str, int]:
        return {p: sum(self.stash[p].values()) for p in self.players}

    # -- actions ------------------------------------------------------------------------
    def _place(self, player: str, action: dict) -> list[dict]:
        piece = self._piece(action.get("piece"))
        key = (piece.color, piece.size)
        if not self.stash[player][key]:
            raise IllegalAction(f"{player} has no {piece.color} {piece.size} on the stash pad")
        before = (dict(self.pieces), self.last)
        self.pieces[piece.id] = piece
        self.last = piece.id
        illegal = [w for w in self.report().warnings if w.code == "illegal_attack"]
        if illegal and self.opts.illegal_placement == "take_back":
            self.pieces, self.last = before
            raise IllegalAction(illegal[0].message)
        self.stash[player][key] -= 1
        self.played_by[piece.id] = player
        return [event("placed", f"{player} played {piece.label()} {piece.pose}", piece=piece.id)]

    def _crash(self, player: str, jarred: list[dict]) -> list[dict]:
        """ "A player who crashes the setup ... must give away the piece he was trying to play, to
        the opponent of his choice": he owes that piece (`pay_penalty`) before anything else."""
        piece = self.pieces[self.last]
        self.penalty_due, self.crashed = player, piece
        moved = [w["pieces"][0] for w in jarred]
        return [event("crash", f"{player} crashed the table playing {piece.label()}: give it to an "
                      f"opponent of your choice; put back {', '.join(moved)}", piece=piece.id,
                      jarred=moved)]

    def _piece(self, raw) -> Piece:
        if not isinstance(raw, dict) or raw.get("type", "pyramid") != "pyramid":
            raise IllegalAction("a placement needs a 'piece': a pyramid of SCENE.md")
        try:
            (piece,) = scene_from_dict({"format": "icetable-scene/1", "game": "icehouse",
                                        "pieces": [{"type": "pyramid", **raw}]}, "placement").pieces
        except SceneError as exc:
            raise IllegalAction(str(exc)) from None
        if piece.id in self.pieces:
            raise IllegalAction(f"piece id {piece.id!r} is already on the table")
        return piece

    def _capture(self, player: str, action: dict) -> list[dict]:
        if {"player": player, "type": "capture", "piece": action.get("piece")} not in self.legal_actions(player):
            raise IllegalAction(f"{action.get('piece')!r} is not a redundant attacker on a {player} defender")
        piece = self._lift(action["piece"])
        self.stash[player][(piece.color, piece.size)] += 1
        return [event("captured", f"{player} captured {piece.label()}", piece=piece.id)]

    def _lift(self, pid: str) -> Piece:
        """Take a played piece off the table (the scene's `last` names only pieces still on it)."""
        self.played_by.pop(pid, None)
        self.jarred.discard(pid)
        if self.last == pid:
            self.last = None
        return self.pieces.pop(pid)

    def _take_back(self, player: str, action: dict) -> list[dict]:
        if {"player": player, "type": "take_back"} not in self.legal_actions(player):
            raise IllegalAction(f"{player} has no meltdown to take back")
        taken = [p for p in self.pieces.values() if p.color == player and not p.standing]
        for piece in taken:
            self._lift(piece.id)
            self.stash[player][(piece.color, piece.size)] += 1
        return [event("meltdown_taken_back", f"{player} took back {len(taken)} attacker(s)",
                      pieces=[p.id for p in taken])]

    def _call(self, player: str, action: dict) -> list[dict]:
        outcome = judge_call(self.scene(), player, DEFAULT, self.opts)
        for victim in outcome.icehoused:
            self.icehouse.add(victim)
            if victim != player:
                self.stash[player] += self.stash[victim]
                self.stash[victim] = Counter()
        if outcome.kind == "false" and sum(self.stash[player].values()):
            self.penalty_due = player
        return [event("icehouse_call", outcome.message, call=outcome.to_dict())]

    def _pay_penalty(self, player: str, action: dict) -> list[dict]:
        if self.penalty_due != player:
            raise IllegalAction(f"{player} owes no penalty")
        choice = {k: action.get(k) for k in ("player", "type", "to", "color", "size")}
        if choice not in self.legal_actions(player):
            raise IllegalAction(f"{player} cannot give {action.get('color')} {action.get('size')} "
                                f"to {action.get('to')!r}")
        key = (choice["color"], choice["size"])
        if self.crashed is not None:           # the crashed piece leaves the table, not the pad
            if self.crashed.id in self.pieces:
                self._lift(self.crashed.id)
            self.crashed = None
        else:
            self.stash[player][key] -= 1
        self.stash[choice["to"]][key] += 1
        self.penalty_due = None
        return [event("penalty", f"{player} gave a {key[0]} {key[1]} to {choice['to']}", player=player,
                      to=choice["to"], color=key[0], size=key[1])]

    def _time_up(self, player: str, action: dict) -> list[dict]:
        self.time_up = True
        return [event("time_up", "time is up: the game is over", scores=self.scores())]
