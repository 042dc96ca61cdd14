"""Piece tracking: consecutive settled scenes become events with stable piece ids.

Pieces are matched between two scenes by identity (type and what cannot change: a pyramid's
colour and size, a piecepack pyramid's suit and size, a face-up tile's suit and rank) and then
greedily by distance. What is left over becomes events: `placed`, `removed`, `moved` (a piece
whose position or pose changed), `slid` (a tile that moved), `flipped` (a tile turned over where
it lay).

The game is a check on vision: a piece cannot change colour or size where it lies (and a piece
the host confirmed or corrected keeps what the host said), and the
number of pieces of each identity is known (`inventory`). A reading that contradicts either is
held: it becomes an event only after `hold` consecutive readings agree, so a misread that a
second look corrects never reaches the referee.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace

from referee.scene import Piece, Scene

MOVE_TOL = 5.0        # mm: a piece seen closer than this to where it was has not moved
TURN_TOL = 12.0       # degrees: a lying pyramid turned by less than this has not moved
SAME_SPOT = 12.0      # mm: two readings this close are the same place (flip, identity change)
UNIQUE = ("pp_pyramid", "tile", "coin", "die", "pawn", "card")


def identity(piece: Piece) -> tuple:
    """What cannot change about a piece, as a hashable key."""
    if piece.type == "pyramid":
        return ("pyramid", piece.color, piece.size)
    if piece.type in ("pp_pyramid", "pawn"):
        return (piece.type, piece.suit, piece.size)
    if piece.type == "tile":
        return ("tile", piece.suit, piece.rank) if piece.face == "up" else ("tile", "down", None)
    if piece.type == "card":
        return ("card", piece.owner, None)
    return (piece.type, piece.suit, piece.rank)


def base_id(key: tuple) -> str:
    """The readable id stem of an identity: 'red-3', 'suns-A', 'moons-2', 'tile-down'."""
    kind, a, b = key
    if kind == "tile" and a == "down":
        return "tile-down"
    parts = [str(v) for v in (a, b) if v is not None]
    return "-".join(parts) if parts else kind


@dataclass(frozen=True)
class Event:
    """One change on the table: `kind`, the piece as it is now (as it was, when removed) with its
    tracked id, and the piece before (moved, slid, flipped)."""

    kind: str
    piece: Piece
    before: Piece | None = None

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "id": self.piece.id, "piece": self.piece.to_dict()}
        if self.before is not None:
            out["before"] = self.before.to_dict()
        return out


@dataclass
class Tracker:
    """Tracked pieces with stable ids; feed settled scenes to `update`."""

    inventory: dict[tuple, int] | None = None
    hold: int = 3
    pieces: dict[str, Piece] = field(default_factory=dict)
    held: dict[tuple, int] = field(default_factory=dict)
    _counts: Counter = field(default_factory=Counter)

    def scene(self, template: Scene) -> Scene:
        """The tracked table as a scene (game and area from `template`)."""
        return replace(template, pieces=tuple(self.pieces.values()), last=None)

    def update(self, scene: Scene) -> list[Event]:
        """The events from the tracked table to `scene`; held contradictions come out once
        `hold` readings in a row show them."""
        old = dict(self.pieces)
        pairs, gone, new = _match(list(old.values()), list(scene.pieces))
        for o in [o for o in gone if o.extra.get("confirmed")]:
            twin = next((n for n in new if _same_spot(o, n)), None)
            if twin is not None:         # the host said what this piece is: a reading does not change it
                gone.remove(o)
                new.remove(twin)
                pairs.append((o, replace(o, x=twin.x, y=twin.y, heading=twin.heading)))
        events = []
        for before, now in pairs:
            piece = replace(now, id=before.id)
            if _moved(before, piece):
                events.append(Event("slid" if piece.type == "tile" else "moved", piece, before))
        flips, gone, new = _pair_flips(gone, new)
        events += [Event("flipped", replace(now, id=before.id), before) for before, now in flips]
        swaps = {id(n): o for o in gone for n in new if _same_spot(o, n)}
        events += [Event("removed", p) for p in gone]
        events += [Event("placed", self._name(n), swaps.get(id(n))) for n in new]
        accepted = self._vet(events, old)
        for e in accepted:
            if e.kind == "removed":
                self.pieces.pop(e.piece.id, None)
            else:
                self.pieces[e.piece.id] = e.piece
        return accepted

    def _name(self, piece: Piece) -> Piece:
        """A new piece with a fresh stable id."""
        key = identity(piece)
        stem = base_id(key)
        taken = set(self.pieces)
        if piece.type in UNIQUE and stem not in taken and key[1] != "down":
            return replace(piece, id=stem)
        while True:
            self._counts[stem] += 1
            pid = f"{stem}-{self._counts[stem]}"
            if pid not in taken:
                return replace(piece, id=pid)

    def _vet(self, events: list[Event], old: dict[str, Piece]) -> list[Event]:
        """Events that contradict the game are held until `hold` readings agree."""
        counts = Counter(identity(p) for p in old.values())
        for e in events:
            if e.kind == "removed":
                counts[identity(e.piece)] -= 1
        out, seen = [], set()
        for e in events:
            doubt = self._doubt(e, counts)
            if e.kind == "placed":
                counts[identity(e.piece)] += 1
            if not doubt:
                out.append(e)
                continue
            key = (e.kind, identity(e.piece), round(e.piece.x / SAME_SPOT), round(e.piece.y / SAME_SPOT))
            seen.add(key)
            self.held[key] = self.held.get(key, 0) + 1
            if self.held[key] >= self.hold:
                out.append(e)
        self.held = {k: v for k, v in self.held.items() if k in seen and v < self.hold}
        if any(e.kind == "placed" and e.before is not None for e in events):
            # an identity change is held as a whole: keep the old piece until it is confirmed
            held_swaps = [e.before.id for e in events if e.kind == "placed" and e.before is not None
                          and e not in out]
            out = [e for e in out if not (e.kind == "removed" and e.piece.id in held_swaps)]
        return out

    def _doubt(self, e: Event, counts: Counter) -> bool:
        if e.kind == "placed" and e.before is not None:
            return True            # a piece seemed to change colour or size where it lay
        if e.kind == "placed" and self.inventory is not None:
            return counts[identity(e.piece)] + 1 > self.inventory.get(identity(e.piece), 0)
        return False

    @property
    def holding(self) -> bool:
        """True while a contradiction waits for more readings."""
        return bool(self.held)


def _match(old: list[Piece], new: list[Piece]):
    """(pairs (old, new), unmatched old, unmatched new): same identity, nearest first."""
    cands = sorted((math.dist((o.x, o.y), (n.x, n.y)), i, j)
                   for i, o in enumerate(old) for j, n in enumerate(new) if identity(o) == identity(n))
    used_o, used_n, pairs = set(), set(), []
    for _, i, j in cands:
        if i not in used_o and j not in used_n:
            used_o.add(i)
            used_n.add(j)
            pairs.append((old[i], new[j]))
    return (pairs, [o for i, o in enumerate(old) if i not in used_o],
            [n for j, n in enumerate(new) if j not in used_n])


def _pair_flips(gone: list[Piece], new: list[Piece]):
    """Tiles that vanished and tiles that appeared at the same spot with the other face up."""
    flips = []
    for o in [p for p in gone if p.type == "tile"]:
        for n in new:
            if n.type == "tile" and n.face != o.face and _same_spot(o, n):
                flips.append((o, n))
                new = [p for p in new if p is not n]
                break
    flipped = {id(o) for o, _ in flips}
    return flips, [p for p in gone if id(p) not in flipped], new


def _same_spot(a: Piece, b: Piece) -> bool:
    return a.type == b.type and math.dist((a.x, a.y), (b.x, b.y)) < SAME_SPOT


def _moved(a: Piece, b: Piece) -> bool:
    if math.dist((a.x, a.y), (b.x, b.y)) > MOVE_TOL or a.pose != b.pose:
        return True
    if a.heading is not None and b.heading is not None:
        turn = abs((a.heading - b.heading + 180) % 360 - 180)
        return turn > TURN_TOL
    return False
