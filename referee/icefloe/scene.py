"""IceFloe from the camera: the board of a scene, its report, and one turn judged from two scenes."""
from __future__ import annotations

from collections import Counter

from referee.dimensions import DEFAULT, Dimensions
from referee.icefloe.board import (GRID, MAX_WEIGHT, POINTS, Board, destinations, move_pyramid,
                                   pyramid_id, slides, tile_id, tile_name)
from referee.icefloe.options import IceFloeOptions
from referee.options import make
from referee.ppgrid import Grid, on_tile, scene_grid
from referee.report import Report, Warning
from referee.scene import Piece, Scene

MARGIN = 50.0
# Where up to five pyramids stand on one tile, as fractions of the tile side from its centre.
SPOTS = ((0, 0), (-0.27, -0.27), (0.27, 0.27), (0.27, -0.27), (-0.27, 0.27))


def board_from_scene(scene: Scene, dims: Dimensions = DEFAULT, grid: Grid | None = None):
    """(board keyed by scene ids, grid, ids of pyramids in the water)."""
    tiles = scene.of_type("tile")
    if grid is None:
        grid = scene_grid(scene, dims.tile)
    board = Board(faces={t.id: (t.suit, t.rank) for t in tiles},
                  kinds={p.id: (p.suit, p.size) for p in scene.of_type("pp_pyramid")})
    board.tiles = {t.id: grid.cell(t.x, t.y) for t in tiles}
    centres = {t.id: (t.x, t.y) for t in tiles}
    water = []
    for p in scene.of_type("pp_pyramid"):
        tid = on_tile(grid, (p.x, p.y), centres)
        if tid is None:
            water.append(p.id)
        else:
            board.pyramids[p.id] = tid
    return board, grid, water


def canonical(board: Board) -> Board:
    """The same board with match ids ("suns-2", "suns-A"); ValueError on unknown or twin faces."""
    tiles = {tile_id(*board.faces[t]): c for t, c in board.tiles.items() if board.faces[t][0] is not None}
    if len(tiles) != len(board.tiles):
        raise ValueError("every tile must be face up once (suit and rank)")
    names = {t: tile_id(*board.faces[t]) for t in board.tiles}
    pyramids = {pyramid_id(*board.kinds[p]): names[t] for p, t in board.pyramids.items()}
    if len(pyramids) != len(board.pyramids):
        raise ValueError("two pyramids of the same suit and size")
    faces = {names[t]: board.faces[t] for t in board.tiles}
    kinds = {pyramid_id(*k): k for k in board.kinds.values()}
    return Board(tiles, faces, pyramids, kinds)


def evaluate(scene: Scene, dims: Dimensions = DEFAULT, options: dict | None = None) -> Report:
    """The report of an IceFloe table: floes, overweight floes, pyramids in the water, final count."""
    make(IceFloeOptions, options)
    board, _, water = board_from_scene(scene, dims)
    report = Report("icefloe")
    labels = scene.by_id()
    floes = {}
    for tid, cell in sorted(board.tiles.items()):
        weight = board.weight(tid)
        floes[tid] = {"cell": list(cell), "weight": weight, "pyramids": board.on(tid)}
        if weight > MAX_WEIGHT:
            report.warnings.append(Warning("overweight_floe", f"the floe {_label(board, tid)} carries "
                                           f"{weight} (more than {MAX_WEIGHT}): it cracks with "
                                           f"{', '.join(board.on(tid))}", (tid, *board.on(tid))))
        if not (0 <= cell[0] < GRID and 0 <= cell[1] < GRID):
            report.warnings.append(Warning("off_grid", f"tile {tid} lies outside the 5x5 grid at {list(cell)}",
                                           (tid,)))
    for cell, count in Counter(board.tiles.values()).items():
        if count > 1:
            twins = sorted(t for t, c in board.tiles.items() if c == cell)
            report.warnings.append(Warning("off_grid", f"tiles {', '.join(twins)} share the cell {list(cell)}",
                                           tuple(twins)))
    for pid in water:
        report.warnings.append(Warning("in_water", f"{labels[pid].label()} stands on no tile: it is out",
                                       (pid,), suit=labels[pid].suit))
    for tid in [t for t in board.tiles if board.weight(t) > MAX_WEIGHT]:
        board.remove_tile(tid)
    players = scene.state.get("players") or sorted({p.suit for p in scene.of_type("pp_pyramid")})
    report.status = {"floes": floes, "game_over": _game_over(board, players)}
    report.scores = {s: board.final_count(s) for s in players}
    return report


def _label(board: Board, tid: str) -> str:
    face = board.faces[tid]
    return f"{tid} ({tile_name(face)})" if face[0] is not None else tid


def _game_over(board: Board, players: list[str]) -> bool:
    """A player has no pyramid left, or all pyramids stand on one tile."""
    if any(not board.owned(p) for p in players):
        return True
    return len(set(board.pyramids.values())) == 1


def board_to_scene(board: Board, state: dict | None = None, dims: Dimensions = DEFAULT) -> Scene:
    """A scene of a match board: tiles face up at their cells, pyramids spread on their tiles."""
    side = dims.tile
    pieces = []
    for tid, (col, row) in sorted(board.tiles.items()):
        suit, rank = board.faces[tid]
        x, y = MARGIN + (col + 0.5) * side, MARGIN + (row + 0.5) * side
        pieces.append(Piece(tid, "tile", x, y, suit=suit, rank=rank, face="up"))
        for (dx, dy), pid in zip(SPOTS, board.on(tid)):
            suit_p, size = board.kinds[pid]
            pieces.append(Piece(pid, "pp_pyramid", x + dx * side, y + dy * side, suit=suit_p, size=size,
                                pose="standing"))
    extent = 2 * MARGIN + GRID * side
    return Scene("icefloe", tuple(pieces), (extent, extent), state={"grid_origin": [MARGIN, MARGIN], **(state or {})})


def _aligned(board: Board, reference: Board) -> Board:
    """`board` shifted by the cell offset most tiles share with `reference` (same tile ids)."""
    shifts = Counter((reference.tiles[t][0] - c[0], reference.tiles[t][1] - c[1])
                     for t, c in board.tiles.items() if t in reference.tiles)
    if not shifts:
        return board
    dc, dr = shifts.most_common(1)[0][0]
    return Board({t: (c + dc, r + dr) for t, (c, r) in board.tiles.items()}, board.faces,
                 board.pyramids, board.kinds)


def differences(expected: Board, seen: Board) -> list[str]:
    """What differs between two boards with the same ids, one phrase each."""
    out = []
    for tid in sorted(set(expected.tiles) | set(seen.tiles)):
        a, b = expected.tiles.get(tid), seen.tiles.get(tid)
        if a != b:
            out.append(f"tile {tid} " + ("is missing" if b is None else "should not be there" if a is None
                                         else f"is at {list(b)}, expected {list(a)}"))
    for pid in sorted(set(expected.pyramids) | set(seen.pyramids)):
        a, b = expected.pyramids.get(pid), seen.pyramids.get(pid)
        if a != b:
            out.append(f"pyramid {pid} " + ("is missing" if b is None else "should not be there" if a is None
                                            else f"is on {b}, expected {a}"))
    return out


def compare_with_scene(board: Board, scene: Scene, dims: Dimensions = DEFAULT) -> list[dict]:
    """Warnings (dicts) where the camera's table differs from the match's board."""
    try:
        seen = _aligned(canonical(board_from_scene(scene, dims)[0]), board)
    except ValueError as exc:
        return [Warning("scene_mismatch", f"the scene cannot be read as an IceFloe board: {exc}").to_dict()]
    for tid in [t for t in seen.tiles if seen.weight(t) > MAX_WEIGHT and t not in board.tiles]:
        seen.remove_tile(tid)                      # cracked: the players have yet to clear it
    diffs = differences(board, seen)
    if not diffs:
        return []
    return [Warning("scene_mismatch", "the table differs from the game: " + "; ".join(diffs[:4]) +
                    (f" (+{len(diffs) - 4} more)" if len(diffs) > 4 else "")).to_dict()]


def judge_turn(before: Scene, after: Scene, player: str, dims: Dimensions = DEFAULT,
               midway_limit: bool = True) -> list[Warning]:
    """`illegal_turn` warnings when `after` does not follow from `before` by one legal action of
    `player` (a pyramid move or a tile slide, a cracked floe removed); empty when legal."""
    first, grid, _ = board_from_scene(before, dims)
    try:
        old = canonical(first)
        new = _aligned(canonical(board_from_scene(after, dims, grid)[0]), old)
    except ValueError as exc:
        return [Warning("illegal_turn", f"cannot judge the turn: {exc}", suit=player)]
    at = old.at()
    for pid in old.owned(player):
        for to in destinations(old, pid, at, midway_limit):
            landed = old.copy()
            landed.pyramids[pid] = at[to]          # seen before the players clear a cracked floe
            cracked = landed.copy()
            move_pyramid(cracked, pid, to)
            if not differences(cracked, new) or not differences(landed, new):
                return []
    for tid, to in slides(old, player, at):
        trial = old.copy()
        trial.tiles[tid] = to
        if not differences(trial, new):
            return []
    return [Warning("illegal_turn", f"{player}: {_diagnose(old, new, player)}", suit=player)]


def _diagnose(old: Board, new: Board, player: str) -> str:
    """Why the change from `old` to `new` is not one legal action of `player`."""
    moved_tiles = [t for t in old.tiles if t in new.tiles and old.tiles[t] != new.tiles[t]]
    moved = [p for p in old.pyramids if p in new.pyramids and old.pyramids[p] != new.pyramids[p]
             and not (old.pyramids[p] in moved_tiles and new.pyramids[p] == old.pyramids[p])]
    gone = sorted(set(old.pyramids) - set(new.pyramids))
    changes = len(moved_tiles) + len(moved)
    if changes == 0:
        return ("pyramids vanished without a move: " + ", ".join(gone)) if gone else \
            "nothing moved: a player must move one of his pyramids or slide a tile"
    if changes > 1:
        return "more than one action: " + "; ".join(differences(old, new)[:4])
    if moved:
        pid = moved[0]
        if old.kinds[pid][0] != player:
            return f"{pid} is not a pyramid of {player}"
        return (f"{pid} cannot go from {list(old.cell_of(pid))} to {list(new.cell_of(pid))}: a pyramid "
                "steps or jumps onto a tile, once or twice, at most three spaces")
    tid = moved_tiles[0]
    if not any(old.kinds[p][0] == player for p in old.on(tid)):
        return f"tile {tid} carries no pyramid of {player}: it may not slide"
    return (f"tile {tid} cannot slide from {list(old.tiles[tid])} to {list(new.tiles[tid])}: one space "
            "orthogonally, into an empty space inside the 5x5 grid")
