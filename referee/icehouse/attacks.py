"""Attacks on a table: what each attacker points at, whether that is a legal attack, and which
defenders are iced or over-iced."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Point

from referee.dimensions import Dimensions
from referee.geometry import footprints
from referee.icehouse.options import IcehouseOptions
from referee.icehouse.pointing import aim_all
from referee.scene import Piece, Scene

# Problems of an attacker (SCENE.md, plus "ambiguous": the line meets two pieces at one point).
NOTHING, ATTACKER, OWN_COLOR, OUT_OF_RANGE, AMBIGUOUS = (
    "nothing", "attacker", "own_color", "out_of_range", "ambiguous")


@dataclass(frozen=True)
class Attack:
    """One lying pyramid: what it points at, the gap to it, and what (if anything) is wrong."""

    piece: Piece
    target: Piece | None
    gap: float | None
    problem: str | None
    between: tuple[str, ...] = ()  # the pieces of a seam, when ambiguous

    @property
    def valid(self) -> bool:
        return self.problem is None


@dataclass(frozen=True)
class Defence:
    """One standing pyramid and the valid attacks on it."""

    piece: Piece
    attackers: tuple[Piece, ...]

    @property
    def force(self) -> int:
        return sum(a.size for a in self.attackers)

    @property
    def iced(self) -> bool:
        return self.force > self.piece.size

    @property
    def capturable(self) -> tuple[str, ...]:
        """The redundant attackers: without any one of them the defender stays iced."""
        force = self.force
        return tuple(a.id for a in self.attackers if force - a.size > self.piece.size)

    @property
    def over_iced(self) -> bool:
        return bool(self.capturable)


@dataclass(frozen=True)
class Board:
    """The attacks and defences of an Icehouse table."""

    attacks: dict[str, Attack]
    defences: dict[str, Defence]

    def free_defenders(self, color: str) -> int:
        return sum(1 for d in self.defences.values() if d.piece.color == color and not d.iced)


def judge(scene: Scene, dims: Dimensions, opts: IcehouseOptions) -> Board:
    """Judge every attack and defence of the scene."""
    pieces = list(scene.pieces)
    polys = footprints(pieces, dims)
    lying = [i for i, p in enumerate(pieces) if p.type == "pyramid" and not p.standing]
    tips = np.array([[pieces[i].x, pieces[i].y] for i in lying], dtype=float).reshape(-1, 2)
    headings = np.array([pieces[i].heading for i in lying], dtype=float)
    aims = aim_all(tips, headings, np.array(lying, dtype=int), polys, scene.area, opts)
    attacks = {}
    for i, aim in zip(lying, aims):
        target = pieces[aim.target] if aim.target is not None else None
        between = tuple(pieces[k].id for k in aim.ambiguous)
        attacks[pieces[i].id] = _classify(pieces[i], polys[i], target,
                                          polys[aim.target] if target else None, aim.distance,
                                          between, dims, opts)
    return Board(attacks, _defences(pieces, attacks))


def _classify(piece, poly, target, target_poly, along, between, dims, opts) -> Attack:
    if between:
        return Attack(piece, None, along, AMBIGUOUS, between)
    if target is None or target.type != "pyramid":
        return Attack(piece, target, along, NOTHING)
    if not target.standing:
        return Attack(piece, target, along, ATTACKER)
    if target.color == piece.color:
        return Attack(piece, target, along, OWN_COLOR)
    gap = _gap(piece, poly, target_poly, along, opts)
    if not in_range(gap, dims.looney_lying_length[piece.size], opts):
        return Attack(piece, target, gap, OUT_OF_RANGE)
    return Attack(piece, target, gap, None)


def _gap(piece, poly, target_poly, along, opts) -> float:
    if opts.range_measure == "ray":
        return along
    if opts.range_measure == "tip":
        return float(shapely.distance(Point(piece.x, piece.y), target_poly))
    return float(shapely.distance(poly, target_poly))


def in_range(gap: float, length: float, opts: IcehouseOptions) -> bool:
    """Whether a gap is within an attacker's range, under the range rule and its tolerance."""
    if opts.range_rule == "inclusive":
        return gap <= length + opts.range_tolerance
    return gap < length - opts.range_tolerance


def _defences(pieces: list[Piece], attacks: dict[str, Attack]) -> dict[str, Defence]:
    on = {p.id: [] for p in pieces if p.type == "pyramid" and p.standing}
    for attack in attacks.values():
        if attack.valid:
            on[attack.target.id].append(attack.piece)
    return {p.id: Defence(p, tuple(on[p.id])) for p in pieces if p.id in on}
