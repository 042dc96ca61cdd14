"""Judging a move from the poses before and after it.

A move of k steps is a chain of headings h1..hk, each within the legal turn of the one before
(the first of the ship's heading), whose tips are `T_i = T_(i-1) + L * unit(h_i)`. The chain must
end within a tolerance of the given tip with the given heading as its last heading (a pose the
camera measured: `pose_tolerance`, for the hand's placement; a declared pose: DECLARED_TOLERANCE,
its rounding only), and no step's footprint may come within `margin` of another object or the
area's edge. The accepted pose is the chain's end, never the pose given.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.dimensions import DEFAULT, Dimensions
from referee.icepirates.objects import Ship, Table, build_table
from referee.icepirates.rules import STEPS, IcePiratesOptions
from referee.options import make
from referee.scene import Scene
from referee.icepirates.steps import blocked, contacts, leaves_area, max_turn, triangles, turn, units

# Resolution (degrees) of the free first heading of a four-step chain.
CHAIN_RESOLUTION = 0.25
# How far (mm) a declared end pose may lie from its chain: poses are written to 0.01 mm and degree.
DECLARED_TOLERANCE = 0.05


@dataclass(frozen=True)
class MoveVerdict:
    """Whether a move is legal, in how many steps, and why not."""

    ok: bool
    steps: int = 0
    reason: str = ""
    path: tuple = ()          # ((x, y, heading), ...) of each step, when legal


def judge_move(table: Table, ship: Ship, tip, heading: float, opts: IcePiratesOptions,
               tolerance: float | None = None) -> MoveVerdict:
    """Is there a legal chain of at most the ship's steps from its pose to (tip, heading), ending
    within `tolerance` (default `opts.pose_tolerance`, a camera's measurement)? Its `path` ends
    on the exact pose of the last step."""
    tolerance = opts.pose_tolerance if tolerance is None else tolerance
    tip = np.asarray(tip, dtype=float)
    start = np.asarray(ship.tip, dtype=float)
    if np.hypot(*(tip - start)) <= opts.pose_tolerance:
        return MoveVerdict(False, reason=f"ship {ship.id} did not move")
    length = table.dims.looney_lying_length[ship.size]
    limit = max_turn(ship.size, table.dims, opts.angle_margin)
    touched = None
    for k in range(1, STEPS[ship.size] + 1):
        chains = _chains(start, ship.heading, tip, heading, k, length)
        chains = chains[_turns_ok(ship.heading, chains, limit)]
        if not len(chains):
            continue
        tips = start + np.cumsum(units(chains) * length, axis=1)
        good = np.hypot(*(tips[:, -1] - tip).T) <= tolerance
        chains, tips = chains[good], tips[good]
        if not len(chains):
            continue
        corners = triangles(tips.reshape(-1, 2), chains.reshape(-1), ship.size, table.dims)
        hit = blocked(table, corners, opts.margin, ship.id).reshape(len(chains), k)
        free = np.flatnonzero(~hit.any(axis=1))
        if len(free):
            i = free[0]
            path = tuple((float(x), float(y), float(h) % 360) for (x, y), h in zip(tips[i], chains[i]))
            return MoveVerdict(True, k, path=path)
        touched = touched or _first_contact(table, ship, corners[:k], opts.margin)
    if touched:
        return MoveVerdict(False, reason=f"ship {ship.id} would {touched}")
    return MoveVerdict(False, reason=(
        f"no chain of at most {STEPS[ship.size]} legal step(s) takes size-{ship.size} ship "
        f"{ship.id} to that pose (turns of at most {limit:.1f} degrees per step)"))


def judge_scenes(before: Scene, after: Scene, dims: Dimensions = DEFAULT,
                 options=None) -> dict[str, MoveVerdict]:
    """A verdict for every ship of `before` whose tip moved more than `pose_tolerance` in
    `after` (a ship gone from `after`, or standing up, is not a move)."""
    opts = make(IcePiratesOptions, options)
    table = build_table(before, dims)
    now = after.by_id()
    out = {}
    for ship in table.ships.values():
        piece = now.get(ship.id)
        if piece is None or piece.pose != "lying":
            continue
        if np.hypot(piece.x - ship.tip[0], piece.y - ship.tip[1]) > opts.pose_tolerance:
            out[ship.id] = judge_move(table, ship, (piece.x, piece.y), piece.heading, opts)
    return out


def _chains(start, h0, tip, heading, k, length) -> np.ndarray:
    """Candidate heading chains (N, k) of k steps ending at (tip, heading)."""
    before_last = tip - length * units(heading)
    if k == 1:
        return np.array([[heading]], dtype=float)
    if k == 2:
        first = _bearing(before_last - start)
        return np.array([[first, heading]])
    if k == 3:
        pairs = _two_steps(start[None, :], before_last, length)
        return np.column_stack([pairs, np.full(len(pairs), heading)])
    firsts = np.arange(-90.0, 90.0, CHAIN_RESOLUTION) + h0
    mids = start + length * units(firsts)
    pairs, rows = _two_steps(mids, before_last, length, rows=True)
    return np.column_stack([firsts[rows], pairs, np.full(len(pairs), heading)])


def _two_steps(origins, target, length, rows=False):
    """Both heading pairs of two steps from each origin to `target` (tangent when too far)."""
    delta = target - origins
    dist = np.hypot(delta[:, 0], delta[:, 1])
    spread = np.degrees(np.arccos(np.clip(dist / (2 * length), 0.0, 1.0)))
    bearing = _bearing(delta)
    firsts = np.concatenate([bearing - spread, bearing + spread])
    index = np.concatenate([np.arange(len(origins))] * 2)
    middle = origins[index] + length * units(firsts)
    seconds = _bearing(target - middle)
    pairs = np.column_stack([firsts, seconds])
    return (pairs, index) if rows else pairs


def _bearing(vectors) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=float)
    return np.degrees(np.arctan2(vectors[..., 1], vectors[..., 0]))


def _turns_ok(h0, chains, limit) -> np.ndarray:
    previous = np.column_stack([np.full(len(chains), h0), chains[:, :-1]])
    return (np.abs(turn(previous, chains)) <= limit).all(axis=1)


def _first_contact(table: Table, ship: Ship, corners, margin) -> str | None:
    rows, cols = contacts(table, corners, margin, ship.id)
    if len(rows):
        step = int(rows.min())
        return f"touch {table.ids[cols[rows == step][0]]} at step {step + 1}"
    edge = np.flatnonzero(leaves_area(table, corners, margin))
    return f"cross the edge of the play area at step {edge[0] + 1}" if len(edge) else None


# Relative turns (degrees, every step alike) of the moves offered as closed choices.
SAMPLE_TURNS = (-40.0, -20.0, 0.0, 20.0, 40.0)


def sample_moves(table: Table, ships: list[Ship], opts: IcePiratesOptions) -> list[tuple[Ship, int, tuple]]:
    """Legal moves offered as closed choices: for each ship, each number of steps and each turn
    of SAMPLE_TURNS repeated at every step, the final pose (x, y, heading) when no step is blocked."""
    rows, corners, ends = [], [], []
    for ship in ships:
        length = table.dims.looney_lying_length[ship.size]
        for k in range(1, STEPS[ship.size] + 1):
            for t in SAMPLE_TURNS:
                chain = ship.heading + t * np.arange(1, k + 1)
                tips = np.asarray(ship.tip) + np.cumsum(units(chain) * length, axis=0)
                rows.append((ship, k))
                corners.append(triangles(tips, chain, ship.size, table.dims))
                ends.append((round(float(tips[-1][0]), 2), round(float(tips[-1][1]), 2),
                             round(float(chain[-1]) % 360, 2)))
    if not rows:
        return []
    flat = np.concatenate(corners)
    owner = np.concatenate([[table.index[s.id]] * k for s, k in rows])
    hit = blocked(table, flat, opts.margin, owner)
    stops = np.cumsum([k for _, k in rows])
    bad = np.add.reduceat(hit.astype(int), stops - np.array([k for _, k in rows]))
    return [(ship, k, end) for (ship, k), end, b in zip(rows, ends, bad) if not b]
