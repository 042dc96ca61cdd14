"""IcePiratesMatch: turns of up to three actions (protocol of referee/match.py).

Geometry is judged on the match's current scene (the table as last seen or as the match
expects it). A move names its ship and its end pose (`to`) or comes with the scene after it;
firing, docking and transfers are measured on the current scene. A move is whole steps: a
declared `to` must be the end of a chain of steps (to its rounding), a pose the camera measured
(the scene after it, or `"seen": true` from the live judge) may be off by `pose_tolerance`, and
either way the ship is kept at the chain's exact end. Ships, islands and homes the camera sees
moved by anything else were jostled: a `jostled` warning says where each belongs, and the match
keeps it there. Island contents are hidden:
a player sees an island's contents once one of his ships has explored it.
Action types: docs/records.md; rulings: docs/rulings/icepirates.md.
"""
from __future__ import annotations

import math
from dataclasses import replace

from referee.dimensions import DEFAULT
from referee.geometry import footprint
from referee.icepirates.cannons import in_range
from referee.icepirates.cargo import capacity_text, fits, pieces_of, take_out
from referee.icepirates.docking import docked_with
from referee.icepirates.jostle import jostled
from referee.icepirates.layout import island_nests, starting_scene
from referee.icepirates.movement import DECLARED_TOLERANCE, judge_move, sample_moves
from referee.icepirates.objects import build_table, damage_of, island_ids
from referee.icepirates.report import evaluate
from referee.icepirates.rules import ACTIONS_PER_TURN, IcePiratesOptions, win_threshold
from referee.icepirates.treasure import value
from referee.match import IllegalAction, admit, event, verdict
from referee.options import make
from referee.scene import Scene, SceneError, scene_from_dict

ACTION_TYPES = ("move", "fire", "repair", "transfer")   # each costs one of the three actions
MATCH_OPTIONS = ("scene", "nests")


class IcePiratesMatch:
    """One game of Ice Pirates between 2 to 5 colours, in turn order.

    Options: the rule options of IcePiratesOptions, plus "scene" (the starting table as a
    scene object; default: `layout.starting_scene`) and "nests" ({island id: [[color, size],
    ...]} the pieces inside each island; default: random nests from the seed)."""

    game = "icepirates"

    def __init__(self, players: list[str], seed: int = 0, options: dict | None = None):
        options = dict(options or {})
        if not 2 <= len(players) <= 5 or len(set(players)) != len(players):
            raise ValueError(f"Ice Pirates needs 2 to 5 different colours, got {players}")
        self.players = list(players)
        self.opts = make(IcePiratesOptions, {k: v for k, v in options.items() if k not in MATCH_OPTIONS})
        self._scene = self._start_scene(options.get("scene"), seed)
        self.treasure_color = self._scene.state.get("treasure_color", "black")
        self.islands = self._nests(options.get("nests"), seed)
        self.homes: dict[str, list] = {p: [] for p in players}
        self.holds: dict[str, list] = {}
        self.damage: dict[str, int] = damage_of(self._scene)
        self.known: dict[str, dict] = {p: {} for p in players}
        self.turn, self.used = 0, 0
        self.moved, self.repaired, self.acted = set(), set(), set()
        self.shots: dict[str, int] = {}
        self.winners: list[str] | None = None
        self._moved_now: dict[str, bool] = {}   # pieces the action in progress moved itself

    def _start_scene(self, raw, seed: int) -> Scene:
        if raw is None:
            return starting_scene(self.players, seed)
        try:
            scene = scene_from_dict(raw, "options.scene")
        except SceneError as exc:
            raise ValueError(str(exc)) from None
        owners = {p.owner for p in scene.of_type("card")}
        if owners != set(self.players):
            raise ValueError(f"options.scene: home cards belong to {sorted(owners)}, not to the players")
        return scene

    def _nests(self, raw, seed: int) -> dict[str, list]:
        ids = sorted(island_ids(self._scene), key=lambda i: (len(i), i))
        if raw is not None:
            if set(raw) != set(ids):
                raise ValueError(f"options.nests: expected contents for islands {ids}")
            return {i: pieces_of(raw[i], f"nests.{i}") for i in ids}
        nests = island_nests(seed)
        return {i: [tuple(p) for p in nests[n % len(nests)][1:]] for n, i in enumerate(ids)}

    # ---- protocol -------------------------------------------------------------------------
    def scene(self) -> Scene:
        """The table as the match sees it now, with damage and home treasure in `state`."""
        state = {**self._scene.state, "damage": {k: v for k, v in self.damage.items() if v},
                 "home_treasure": self.scores()}
        return replace(self._scene, state=state)

    def to_act(self) -> list[str]:
        return [] if self.is_over() else [self.players[self.turn]]

    def scores(self) -> dict[str, int]:
        return {p: value(self.homes[p], self.treasure_color) for p in self.players}

    def is_over(self) -> bool:
        return self.winners is not None

    def winner(self) -> list[str] | None:
        return list(self.winners) if self.winners is not None else None

    def view(self, player: str | None = None) -> dict:
        table = build_table(self._scene, DEFAULT)
        islands = sorted(set(self.islands) | {i for i, k in table.kinds.items() if k == "island"},
                         key=lambda i: (len(i), i))
        ships = {}
        for pid, kind in table.kinds.items():
            if kind in ("ship", "disabled"):
                ships[pid] = {"color": table.pieces[pid].color, "size": table.pieces[pid].size,
                              "damage": self.damage.get(pid, 0), "disabled": kind == "disabled",
                              "moved": pid in self.moved, "shots": self.shots.get(pid, 0),
                              "repaired": pid in self.repaired,
                              "cargo": [list(c) for c in self.holds.get(pid, [])]}
        known = self.known.get(player, {})
        return {"game": self.game, "players": self.players, "to_act": self.to_act(),
                "actions_left": ACTIONS_PER_TURN - self.used, "scene": self.scene().to_dict(),
                "ships": ships, "homes": {p: [list(c) for c in h] for p, h in self.homes.items()},
                "islands": {i: ({"explored": True, "contents": [list(c) for c in known[i]]}
                                if i in known else {"explored": False}) for i in islands},
                "treasure_color": self.treasure_color, "win_threshold": win_threshold(len(self.players)),
                "scores": self.scores(), "over": self.is_over(), "winner": self.winner()}

    def legal_actions(self, player: str) -> list[dict]:
        """Closed choices: every shot, repair, explore and single-piece transfer, and a sample
        of moves (movement.sample_moves); any other legal move is accepted by `apply` too."""
        if player not in self.to_act():
            return []
        table = build_table(self._scene, DEFAULT)
        mine = [s for s in table.ships.values() if s.color == player]
        docks = docked_with(table, self.opts, [s.id for s in mine])
        out = [{"type": "end_turn"}]
        out += [{"type": "explore", "ship": s.id, "island": i} for s in mine
                for i in docks[s.id] if table.kinds[i] == "island" and s.id not in self.repaired]
        if self.used < ACTIONS_PER_TURN:
            out += self._legal_fire(table, mine) + self._legal_repair(table, player)
            free = [s for s in mine if s.id not in self.moved and s.id not in self.repaired]
            out += [{"type": "move", "ship": s.id, "to": {"x": x, "y": y, "heading": h}}
                    for s, _, (x, y, h) in sample_moves(table, free, self.opts)]
            out += [a for s in mine if s.id not in self.repaired
                    for other in docks[s.id] for a in self._legal_transfers(table, s, other)]
        return [{"player": player, **a} for a in out]

    def apply(self, action: dict, scene: Scene | None = None) -> dict:
        player, kind = admit(self, action)
        handler = getattr(self, f"_do_{kind}", None)
        if handler is None:
            raise IllegalAction(f"unknown action type {kind!r} (move, fire, repair, transfer, "
                                f"explore, end_turn)")
        if kind in ACTION_TYPES and self.used >= ACTIONS_PER_TURN:
            raise IllegalAction(f"{player} has used all {ACTIONS_PER_TURN} actions this turn")
        before, self._moved_now = self._scene, {}
        events = handler(player, action, scene)
        if kind in ACTION_TYPES:
            self.used += 1
        if scene is None:
            return verdict(events)
        jolts = jostled(before, scene, self._moved_now, self.opts)
        self._scene = self._settle(scene, {w["pieces"][0] for w in jolts})
        return verdict(events, [w.to_dict() for w in evaluate(scene, DEFAULT, self.opts).warnings] + jolts)

    def _settle(self, scene: Scene, jostled_ids: set[str]) -> Scene:
        """The camera's table as the match keeps it: jostled pieces where they belong, a moved
        ship on its step (`_moved_now`: id -> True when the match placed it), the rest as seen."""
        expected = self._scene.by_id()
        keep = jostled_ids | {pid for pid, placed in self._moved_now.items() if placed}
        pieces = tuple(expected.get(p.id, p) if p.id in keep else p for p in scene.pieces)
        return replace(scene, pieces=pieces, state={**self._scene.state, **scene.state})

    # ---- actions --------------------------------------------------------------------------
    def _do_move(self, player, action, scene):
        table = build_table(self._scene, DEFAULT)
        ship = self._own_ship(table, player, action)
        if ship.id in self.moved:
            raise IllegalAction(f"ship {ship.id} has already moved this turn")
        x, y, heading, seen = self._destination(action, scene, ship.id)
        judged = judge_move(table, ship, (x, y), heading, self.opts,
                            self.opts.pose_tolerance if seen else DECLARED_TOLERANCE)
        if not judged.ok:
            raise IllegalAction(judged.reason)
        self.moved.add(ship.id)
        self.acted.add(ship.id)
        x, y, heading = (round(v, 2) for v in judged.path[-1])
        self._scene = _with_piece(self._scene, ship.id, x=x, y=y, heading=heading % 360)
        self._moved_now[ship.id] = True
        docks = docked_with(build_table(self._scene, DEFAULT), self.opts, [ship.id])[ship.id]
        text = f"{player} moves {ship.id} {judged.steps} step(s)"
        return [event("move", text + (f", docked with {', '.join(docks)}" if docks else ""),
                      ship=ship.id, steps=judged.steps, docked_with=docks,
                      to={"x": x, "y": y, "heading": heading % 360})]

    def _do_fire(self, player, action, scene):
        table = build_table(self._scene, DEFAULT)
        ship = self._own_ship(table, player, action)
        if self.shots.get(ship.id, 0) >= ship.size:
            raise IllegalAction(f"ship {ship.id} has fired all {ship.size} shot(s) this turn")
        target = action.get("target")
        if target not in in_range(table, self.opts).get(ship.id, []):
            raise IllegalAction(f"{target!r} is not in range of an unobstructed cannon of {ship.id}")
        self.shots[ship.id] = self.shots.get(ship.id, 0) + 1
        self.acted.add(ship.id)
        self.damage[target] = self.damage.get(target, 0) + 1
        size = table.ships[target].size
        events = [event("hit", f"{ship.id} hits {target} ({self.damage[target]} of {size} damage)",
                        ship=ship.id, target=target, damage=self.damage[target])]
        if self.damage[target] >= size:
            centre = table.geom(target).centroid
            self._scene = _with_piece(self._scene, target, pose="standing", heading=None,
                                      x=round(centre.x, 2), y=round(centre.y, 2))
            self._moved_now[target] = False         # stood up where the players put it
            events.append(event("disabled", f"{target} is disabled: stand it up, cargo on top",
                                ship=target))
        return events

    def _do_repair(self, player, action, scene):
        table = build_table(self._scene, DEFAULT)
        pid = action.get("ship")
        if table.kinds.get(pid) not in ("ship", "disabled") or table.owner(pid) != player:
            raise IllegalAction(f"{pid!r} is not a ship of {player}")
        if not self.damage.get(pid):
            raise IllegalAction(f"ship {pid} has no damage to repair")
        if pid in self.acted:
            raise IllegalAction(f"ship {pid} has acted this turn and cannot be repaired")
        size = table.pieces[pid].size
        was_disabled = self.damage[pid] >= size
        self.damage[pid] -= 1
        self.repaired.add(pid)
        events = [event("repair", f"{player} repairs {pid} ({self.damage[pid]} damage left)",
                        ship=pid, damage=self.damage[pid])]
        if was_disabled and self.damage[pid] < size:
            self._scene = self._lay_down(table, pid, action.get("heading", 0.0))
            self._moved_now[pid] = False            # laid down where the players put it
            events.append(event("relaunched", f"{pid} is laid back down, its cargo in its hold", ship=pid))
        return events

    def _do_transfer(self, player, action, scene):
        table = build_table(self._scene, DEFAULT)
        ship = self._own_ship(table, player, action)
        other = action.get("with")
        if other not in docked_with(table, self.opts, [ship.id])[ship.id]:
            raise IllegalAction(f"ship {ship.id} is not docked with {other!r}")
        try:
            take, give = pieces_of(action.get("take"), "take"), pieces_of(action.get("give"), "give")
        except ValueError as exc:
            raise IllegalAction(str(exc)) from None
        if not take and not give:
            raise IllegalAction("a transfer must take or give at least one piece")
        holding = self._holding(table, other)
        ship_left, other_left = take_out(self.holds.get(ship.id, []), give), take_out(holding, take)
        if ship_left is None:
            raise IllegalAction(f"ship {ship.id} does not carry all of {give}")
        if other_left is None:
            raise IllegalAction(f"{other} does not hold all of {take}")
        new_hold, new_other = ship_left + take, other_left + give
        if not fits(ship.size, new_hold):
            raise IllegalAction(f"{ship.id} cannot carry {new_hold}: {capacity_text(ship.size)}")
        if table.kinds[other] in ("ship", "disabled") and not fits(table.pieces[other].size, new_other):
            raise IllegalAction(f"{other} cannot carry {new_other}: {capacity_text(table.pieces[other].size)}")
        self.holds[ship.id] = new_hold
        self._set_holding(table, other, new_other)
        if other in self.islands:
            self.known[player][other] = list(new_other)
        self.acted.add(ship.id)
        events = [event("transfer", f"{ship.id} takes {_names(take)} from {other} and gives "
                        f"{_names(give)}", ship=ship.id, other=other,
                        take=[list(p) for p in take], give=[list(p) for p in give])]
        return events + self._check_win()

    def _do_explore(self, player, action, scene):
        table = build_table(self._scene, DEFAULT)
        ship = self._own_ship(table, player, action)
        island = action.get("island")
        if table.kinds.get(island) != "island":
            raise IllegalAction(f"{island!r} is not a treasure island")
        if island not in docked_with(table, self.opts, [ship.id])[ship.id]:
            raise IllegalAction(f"ship {ship.id} is not docked with island {island}")
        self.known[player][island] = list(self.islands.setdefault(island, []))
        return [event("explore", f"{player} explores island {island} from {ship.id}",
                      ship=ship.id, island=island)]

    def _do_end_turn(self, player, action, scene):
        self.turn = (self.turn + 1) % len(self.players)
        self.used = 0
        self.moved, self.repaired, self.acted, self.shots = set(), set(), set(), {}
        return [event("end_turn", f"{player} ends the turn; {self.players[self.turn]} to play",
                      next=self.players[self.turn])]

    # ---- helpers --------------------------------------------------------------------------
    def _own_ship(self, table, player, action):
        pid = action.get("ship")
        if table.kinds.get(pid) == "disabled" and table.owner(pid) == player:
            raise IllegalAction(f"ship {pid} is disabled: it can only be repaired")
        if pid not in table.ships or table.ships[pid].color != player:
            raise IllegalAction(f"{pid!r} is not an active ship of {player}")
        if pid in self.repaired:
            raise IllegalAction(f"ship {pid} was repaired this turn and can do nothing else")
        return table.ships[pid]

    def _destination(self, action, scene, pid) -> tuple[float, float, float, bool]:
        """Where the move ends, and whether the camera measured it (the scene after the move, a
        `to` the scene shows the ship at, or a `to` the live judge marked `"seen": true`) rather
        than a player declaring it."""
        to = action.get("to")
        piece = scene.by_id().get(pid) if scene is not None else None
        if to is None and scene is not None:
            if piece is None or piece.pose != "lying":
                raise IllegalAction(f"the scene after the move shows no lying ship {pid}")
            return piece.x, piece.y, piece.heading, True
        if not isinstance(to, dict) or not all(isinstance(to.get(k), (int, float)) for k in ("x", "y", "heading")):
            raise IllegalAction("a move needs 'to': {x, y, heading} (mm, degrees) or a scene after it")
        x, y = float(to["x"]), float(to["y"])
        seen = action.get("seen") is True or (piece is not None and piece.pose == "lying" and
                                               math.dist((piece.x, piece.y), (x, y)) <= self.opts.pose_tolerance)
        return x, y, float(to["heading"]) % 360, seen

    def _holding(self, table, other) -> list:
        kind = table.kinds[other]
        if kind == "island":                     # one the match never knew holds what it is given
            return self.islands.setdefault(other, [])
        if kind == "home":
            return self.homes[table.pieces[other].owner]
        return self.holds.get(other, [])

    def _set_holding(self, table, other, pieces) -> None:
        kind = table.kinds[other]
        if kind == "island":
            self.islands[other] = pieces
        elif kind == "home":
            self.homes[table.pieces[other].owner] = pieces
        else:
            self.holds[other] = pieces

    def _check_win(self) -> list[dict]:
        need = win_threshold(len(self.players))
        best = [p for p, s in self.scores().items() if s >= need]
        if not best:
            return []
        self.winners = best
        return [event("win", f"{', '.join(best)} has {need} or more treasure at home and wins",
                      winners=best)]

    def _lay_down(self, table, pid, heading: float) -> Scene:
        """The disabled ship lying again over the area it stood on, pointing along `heading`."""
        piece = table.pieces[pid]
        lying = replace(piece, pose="lying", heading=float(heading) % 360)
        offset = footprint(lying, DEFAULT).centroid
        x, y = piece.x + (piece.x - offset.x), piece.y + (piece.y - offset.y)
        return _with_piece(self._scene, pid, pose="lying", heading=float(heading) % 360,
                           x=round(x, 2), y=round(y, 2))

    def _legal_fire(self, table, mine) -> list[dict]:
        targets = in_range(table, self.opts)
        return [{"type": "fire", "ship": s.id, "target": t} for s in mine
                if s.id not in self.repaired and self.shots.get(s.id, 0) < s.size
                for t in targets.get(s.id, [])]

    def _legal_repair(self, table, player) -> list[dict]:
        return [{"type": "repair", "ship": pid} for pid, kind in table.kinds.items()
                if kind in ("ship", "disabled") and table.owner(pid) == player
                and self.damage.get(pid) and pid not in self.acted]

    def _legal_transfers(self, table, ship, other) -> list[dict]:
        hold = self.holds.get(ship.id, [])
        out = [{"type": "transfer", "ship": ship.id, "with": other, "take": [list(p)], "give": []}
               for p in sorted(set(self._holding(table, other))) if fits(ship.size, hold + [p])]
        out += [{"type": "transfer", "ship": ship.id, "with": other, "take": [], "give": [list(p)]}
                for p in sorted(set(hold))]
        return out


def _names(pieces) -> str:
    """'black 2 and white 1', or 'nothing'."""
    return " and ".join(f"{color} {size}" for color, size in pieces) or "nothing"


def _with_piece(scene: Scene, pid: str, **changes) -> Scene:
    """The scene with one piece's fields changed."""
    pieces = tuple(replace(p, **changes) if p.id == pid else p for p in scene.pieces)
    return replace(scene, pieces=pieces)

