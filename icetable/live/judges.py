"""From tracked table changes to referee actions and warnings, one judge per kind of game.

`IcehouseJudge` keeps its own `IcehouseMatch` (the camera is the only witness of placements):
a placed piece becomes a `place` action of the player whose stash holds it, a removed redundant
attacker a `capture`, and played pieces that moved or vanished a `crash` warning saying where
they were. `TurnJudge` serves the turn-based games, whose match lives in the web app: it finds
the one legal action of the player to act whose result is the table the camera sees, and warns
when no legal action explains it.
"""
from __future__ import annotations

import copy
import math
from collections import Counter
from dataclasses import dataclass, field, replace

from referee.iceberg.scene import face_seen
from referee.icepirates.jostle import jostle
from referee.icepirates.objects import build_table
from referee.icefloe.scene import board_from_scene, judge_turn
from referee.icehouse.match import IcehouseMatch
from referee.match import IllegalAction
from referee.scene import Piece, Scene
from vision.tracking import Event

# Actions the camera sees; a roll of the real die (with its "roll") shows as the tile it melts.
PHYSICAL = {"place", "move", "slide", "remove_empty", "play", "flip", "remove", "roll"}
SHIP_MATCH = 25.0     # mm: a moved Ice Pirates ship is the match's ship this close to where it was


@dataclass
class Outcome:
    """What the judge makes of a settled change: actions for the match (already applied by the
    Icehouse judge, to be performed by the web app for turn games), warnings, the scene to post."""

    actions: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)
    scene: Scene | None = None
    recheck: bool = False            # look again before believing this table


class IcehouseJudge:
    """Placements, captures and crashes of real-time Icehouse, judged as they are let go."""

    game = "icehouse"

    def __init__(self, players: list[str], area: tuple[float, float] | None = None, options: dict | None = None):
        self.match = IcehouseMatch(players, options={**(options or {}), **({"area": list(area)} if area else {})})
        self.illegal: dict[str, dict] = {}

    @property
    def inventory(self) -> dict[tuple, int]:
        """Every piece in play: five of each size per player's colour."""
        return {("pyramid", c, s): 5 for c in self.match.players for s in (1, 2, 3)}

    def judge(self, events: list[Event], seen: Scene, match=None) -> Outcome:
        out = Outcome()
        placed = []
        for e in events:
            if e.kind == "placed":
                placed += self._place(e, out)
            elif e.kind == "removed":
                self.illegal.pop(e.piece.id, None)
                self._capture(e, out)
        out.warnings += list(self.illegal.values())
        jarred = self.match.crashes(seen)
        fresh = [w for w in jarred if w["pieces"][0] not in self.match.jarred]
        self.match.jarred = {w["pieces"][0] for w in jarred}
        out.warnings += [self._penalty(w, placed) if w in fresh and placed else w for w in jarred]
        out.scene = self.match.scene()
        return out

    @staticmethod
    def _penalty(warning: dict, placed: list[tuple[str, Piece]]) -> dict:
        """A crash while pieces were being played: "He must give away the piece he was trying to
        play, to the opponent of his choice" (the camera cannot see whom; the players settle it)."""
        player, piece = placed[-1]
        return {**warning, "crashed_by": player, "message": warning["message"] +
                f"; crash by {player}: give {piece.label()} to an opponent of your choice"}

    def correct(self, was: Piece, now: Piece) -> None:
        """The host's correction of a played piece: the misread piece goes back to its stash pad
        and the real one is taken from the pad that holds it."""
        if was.id not in self.match.pieces:
            return
        if (now.color, now.size) != (was.color, was.size):
            owner = self._owner(now.color, now.size)
            if owner is None:
                return
            self.match.stash[self.match.played_by[was.id]][(was.color, was.size)] += 1
            self.match.stash[owner][(now.color, now.size)] -= 1
            self.match.played_by[was.id] = owner
        self.match.pieces[was.id] = replace(self.match.pieces[was.id], color=now.color, size=now.size,
                                            pose=now.pose, heading=now.heading)

    def _owner(self, color: str, size: int) -> str | None:
        """The player whose stash holds a piece of this colour and size (its colour first)."""
        holders = [p for p in self.match.players if self.match.stash[p][(color, size)]]
        return color if color in holders else (holders[0] if holders else None)

    def _place(self, e: Event, out: Outcome) -> list[tuple[str, Piece]]:
        """The placement as a `place` action; returns [(player, piece)] when the match took it."""
        piece = e.piece
        player = self._owner(piece.color, piece.size)
        if player is None:
            out.warnings.append({"code": "not_in_stash", "pieces": [piece.id], "color": piece.color,
                                 "message": f"{piece.label()}: no player has it on the stash pad"})
            return []
        raw = {k: v for k, v in piece.to_dict().items() if k not in ("type", "confidence")}
        action = {"player": player, "type": "place", "piece": raw}
        try:
            self.match.apply(action)
        except IllegalAction as exc:
            self.illegal[piece.id] = {"code": "illegal_attack", "pieces": [piece.id], "color": player,
                                      "message": f"{exc}: take it back"}
            return []
        out.actions.append(action)
        return [(player, piece)]

    def _capture(self, e: Event, out: Outcome) -> None:
        for player in self.match.players:
            action = {"player": player, "type": "capture", "piece": e.piece.id}
            if action in self.match.legal_actions(player):
                self.match.apply(action)
                out.actions.append(action)
                return


class TurnJudge:
    """IceFloe, Iceberg, Ice Pirates: the camera's table checked against the web app's match."""

    def __init__(self, game: str):
        self.game = game
        self.inventory = None
        self.doubted = False          # the last reading was a table no legal action explains

    def judge(self, events: list[Event], seen: Scene, match=None) -> Outcome:
        """`match` is a copy of the web app's match; the action found is not applied to it."""
        out = Outcome(scene=seen)
        if match is None or match.is_over():
            return out
        if self.game == "icepirates":
            out.actions, out.warnings = self._ship_moves(events, match)
            return out
        doubted, self.doubted = self.doubted, False
        mismatch = self._mismatch(match, seen)
        if not mismatch:
            return out
        if self.game == "icefloe" and same_floes(match.scene(), seen):
            out.scene = relabel(match.scene(), seen)
            return out
        action = self._explain(match, seen)
        if action is not None:
            out.actions.append(action)
            if self.game == "icefloe":
                after = copy.deepcopy(match)
                after.apply(action)
                out.scene = relabel(after.scene(), seen) if same_floes(after.scene(), seen) else seen
            return out
        if not doubted:              # a hand may still be at work: a second look first
            self.doubted, out.recheck = True, True
            return out
        out.warnings += self._broken_turn(match, seen) or mismatch
        return out

    def _broken_turn(self, match, seen: Scene) -> list[dict]:
        """IceFloe during the moves: why the change is not a legal turn of the player to act."""
        if self.game != "icefloe" or match.phase != "move":
            return []
        found = judge_turn(match.scene(), seen, match.to_act()[0],
                           midway_limit=match.options.midway_weight == "limit")
        return [w.to_dict() for w in found if "cannot judge" not in w.message]

    @staticmethod
    def _mismatch(match, seen: Scene) -> list[dict]:
        """The match's own comparison of its board with the camera's table."""
        return match._compare(seen) if hasattr(match, "_compare") else []

    @staticmethod
    def _ship_moves(events: list[Event], match) -> tuple[list[dict], list[dict]]:
        """Ice Pirates: (moves, jostles). A ship of the player to act seen moved is a `move` to
        where the camera sees it (`"seen": true`: the match judges its steps with the hand's
        tolerance); any other ship, island or home seen moved was jostled. A piece is the match's
        nearest of its type, colour and size."""
        table = build_table(match.scene())
        moves, jolts = [], []
        for e in events:
            if e.kind != "moved" or e.before is None:
                continue
            pid = _match_piece(table, e.before)
            if pid is None:
                continue
            if table.kinds[pid] == "ship" and e.piece.color in match.to_act() and e.piece.pose == "lying":
                moves.append({"player": e.piece.color, "type": "move", "ship": pid, "seen": True,
                              "to": {"x": e.piece.x, "y": e.piece.y, "heading": e.piece.heading}})
            elif (warning := jostle(table, pid, e.piece, match.opts)) is not None:
                jolts.append(warning)
        return moves, jolts

    def _explain(self, match, seen: Scene) -> dict | None:
        """The single physical legal action after which the match agrees with the camera. For
        IceFloe, when none agrees exactly, the game checks vision: the single one after which
        every floe carries the same suits (a pyramid's size misread is forgiven)."""
        trials = []
        for player in match.to_act():
            for action in match.legal_actions(player):
                if action["type"] not in PHYSICAL or (action["type"] == "roll" and "roll" not in action):
                    continue
                action = _as_seen(match, action, seen)
                trial = copy.deepcopy(match)
                try:
                    trial.apply(action)
                except IllegalAction:
                    continue
                trials.append((action, trial))
        exact = [a for a, t in trials if not self._mismatch(t, seen)]
        if len(exact) == 1:
            return exact[0]
        if not exact and self.game == "icefloe":
            loose = [a for a, t in trials if same_floes(t.scene(), seen)]
            if len(loose) == 1:
                return loose[0]
        return None


def _match_piece(table, piece: Piece) -> str | None:
    """The ship, island or home of an Ice Pirates table that `piece` (as the camera saw it) is:
    the nearest of the same type, colour, size and owner, within SHIP_MATCH mm."""
    same = [pid for pid, kind in table.kinds.items() if kind != "loose" and
            (table.pieces[pid].type, table.pieces[pid].color, table.pieces[pid].size, table.pieces[pid].owner)
            == (piece.type, piece.color, piece.size, piece.owner)]
    near = min(same, key=lambda pid: math.dist((table.pieces[pid].x, table.pieces[pid].y), (piece.x, piece.y)),
               default=None)
    if near is None or math.dist((table.pieces[near].x, table.pieces[near].y), (piece.x, piece.y)) > SHIP_MATCH:
        return None
    return near


def _as_seen(match, action: dict, seen: Scene) -> dict:
    """Iceberg: a flip with the face the real tile shows on the camera's table."""
    if action["type"] != "flip" or "face" in action:
        return action
    face = face_seen(match.board, seen, action["tile"])
    return {**action, "face": list(face)} if face else action


def _floes(scene: Scene):
    """An IceFloe table read loosely: its board (scene ids), tiles as (face, cell), pyramids as
    a count of (cell, suit)."""
    board, _, water = board_from_scene(scene)
    tiles = [(board.faces[t], c) for t, c in board.tiles.items()]
    return board, tiles, Counter((board.tiles[t], board.kinds[p][0]) for p, t in board.pyramids.items()), len(water)


def _loose_shift(expected: Scene, seen: Scene):
    """The cell shift that maps `seen` onto `expected` when it has tiles on the same cells and
    pyramids of the same suits on each (aligned on the tiles whose faces agree: a misread tile
    face or pyramid size is forgiven, in IceFloe neither ever changes); else None."""
    _, tiles_a, pyr_a, water_a = _floes(expected)
    _, tiles_b, pyr_b, water_b = _floes(seen)
    cells_b = dict(tiles_b)
    shifts = Counter((ca[0] - cells_b[f][0], ca[1] - cells_b[f][1]) for f, ca in tiles_a if f in cells_b)
    if not shifts or water_a != water_b:
        return None
    dc, dr = shifts.most_common(1)[0][0]
    same = Counter(c for _, c in tiles_a) == Counter((c[0] + dc, c[1] + dr) for _, c in tiles_b) and \
        pyr_a == Counter({((c[0] + dc, c[1] + dr), suit): n for (c, suit), n in pyr_b.items()})
    return (dc, dr) if same else None


def same_floes(expected: Scene, seen: Scene) -> bool:
    """True when `seen` is `expected` up to misread tile faces and pyramid sizes."""
    return _loose_shift(expected, seen) is not None


def relabel(expected: Scene, seen: Scene) -> Scene:
    """`seen` (where the camera sees each piece) with what each piece is taken from `expected`
    (the match): tile faces by cell, pyramid sizes by cell and suit. `seen` must be the same
    floes (same_floes)."""
    dc, dr = _loose_shift(expected, seen)
    board_a, _, _, _ = _floes(expected)
    board_b, _, _, _ = _floes(seen)
    face_at = {c: board_a.faces[t] for t, c in board_a.tiles.items()}
    sizes = {}
    for p, t in board_a.pyramids.items():
        sizes.setdefault((board_a.tiles[t], board_a.kinds[p][0]), []).append(board_a.kinds[p][1])
    fixed = {}
    for t, c in board_b.tiles.items():
        suit, rank = face_at[(c[0] + dc, c[1] + dr)]
        fixed[t] = {"suit": suit, "rank": rank, "face": "up"}
    groups = {}
    for p, t in board_b.pyramids.items():
        c = board_b.tiles[t]
        groups.setdefault(((c[0] + dc, c[1] + dr), board_b.kinds[p][0]), []).append(p)
    for key, ids in groups.items():
        for p, size in zip(sorted(ids, key=lambda i: board_b.kinds[i][1]), sorted(sizes[key])):
            fixed[p] = {"size": size}
    return replace(seen, pieces=tuple(replace(p, **fixed.get(p.id, {})) for p in seen.pieces))


def judge_for(game: str, players: list[str], area=None, options: dict | None = None):
    """The judge of a game."""
    if game == "icehouse":
        return IcehouseJudge(players, area, options)
    return TurnJudge(game)
