"""Iceberg from the camera: tiles on the 5x5 grid, coins on tile quarters, stranded tiles, winner."""
from __future__ import annotations

from collections import Counter

from referee.dimensions import DEFAULT, Dimensions
from referee.iceberg.board import Board, cell_of_square, stranded
from referee.iceberg.options import IcebergOptions
from referee.options import make
from referee.ppgrid import scene_grid
from referee.report import Report, Warning
from referee.scene import Piece, Scene

MARGIN = 50.0


def board_from_scene(scene: Scene, dims: Dimensions = DEFAULT) -> tuple[Board, list[str]]:
    """(board keyed by scene ids, ids of coins on no tile)."""
    tiles = scene.of_type("tile")
    grid = scene_grid(scene, dims.tile)
    board = Board({t.id: grid.cell(t.x, t.y) for t in tiles},
                  {t.id: (t.suit, t.rank) if t.face == "up" else None for t in tiles})
    at = board.at()
    water = []
    for coin in scene.of_type("coin"):
        square = grid.square(coin.x, coin.y)
        if cell_of_square(square) in at:
            board.coins[coin.id], board.owners[coin.id] = square, coin.suit
        else:
            water.append(coin.id)
    return board, water


def evaluate(scene: Scene, dims: Dimensions = DEFAULT, options: dict | None = None) -> Report:
    """The report of an Iceberg table: tiles, coins on quarters, stranded tiles, the winner."""
    diagonal = make(IcebergOptions, options).connect == "diagonal"
    board, water = board_from_scene(scene, dims)
    cut = set(stranded(board, diagonal))
    report = Report("iceberg")
    tiles = {}
    for tid, cell in sorted(board.tiles.items()):
        face = board.faces[tid]
        tiles[tid] = {"cell": list(cell), "face": "down" if face is None else "up", "stranded": tid in cut}
        if face is not None:
            tiles[tid].update(suit=face[0], rank=face[1])
    if cut:
        report.warnings.append(Warning("stranded_tile", f"{', '.join(sorted(cut))} no longer connect to the "
                                       "main iceberg: remove them with their coins", tuple(sorted(cut))))
    for cid in water:
        report.warnings.append(Warning("coin_in_water", f"coin {cid} lies on no tile: it is lost", (cid,),
                                       suit=scene.by_id()[cid].suit))
    coins = {c: {"square": list(s), "suit": board.owners[c]} for c, s in sorted(board.coins.items())}
    at = board.at()
    survivors = Counter(board.owners[c] for c, s in board.coins.items() if at[cell_of_square(s)] not in cut)
    players = scene.state.get("players") or sorted({c.suit for c in scene.of_type("coin") if c.suit})
    hands = scene.state.get("hands", {})
    report.status = {"tiles": tiles, "coins": coins, "winner": _winner(board, players, hands, survivors)}
    report.scores = {p: survivors.get(p, 0) + hands.get(p, 0) for p in players}
    return report


def _winner(board: Board, players: list[str], hands: dict, survivors: Counter) -> str | None:
    """The last survivor, when the table shows one: one tile left held by one suit, or one suit
    with coins when `state.hands` tells that nobody else holds any."""
    alive = [p for p in players if survivors.get(p, 0) or hands.get(p, 0)]
    if len(board.tiles) == 1 and len(survivors) == 1:
        return next(iter(survivors))
    if hands and len(alive) == 1:
        return alive[0]
    return None


def board_to_scene(board: Board, state: dict | None = None, dims: Dimensions = DEFAULT) -> Scene:
    """A scene of a match board: tiles at their cells, coins (suit side up) on their quarters."""
    side = dims.tile
    pieces = []
    for tid, (col, row) in sorted(board.tiles.items()):
        face = board.faces[tid]
        extra = {"face": "up", "suit": face[0], "rank": face[1]} if face else {"face": "down"}
        pieces.append(Piece(tid, "tile", MARGIN + (col + 0.5) * side, MARGIN + (row + 0.5) * side, **extra))
    for cid, (sc, sr) in sorted(board.coins.items()):
        pieces.append(Piece(cid, "coin", MARGIN + (sc + 0.5) * side / 2, MARGIN + (sr + 0.5) * side / 2,
                            face="suit", suit=board.owners[cid]))
    extent = 2 * MARGIN + 5 * side
    return Scene("iceberg", tuple(pieces), (extent, extent), state={"grid_origin": [MARGIN, MARGIN], **(state or {})})


def _aligned(board: Board, scene: Scene, dims: Dimensions) -> tuple[Board, int, int]:
    """The scene's board and the cell shift (dc, dr) that most of its tiles share with `board`."""
    seen, _ = board_from_scene(scene, dims)
    shift = Counter((board.tiles[t][0] - c[0], board.tiles[t][1] - c[1]) for t, c in seen.tiles.items()
                    if t in board.tiles).most_common(1)
    return (seen, *shift[0][0]) if shift else (seen, 0, 0)


def face_seen(board: Board, scene: Scene, tid: str, dims: Dimensions = DEFAULT) -> tuple[str, int] | None:
    """The face the camera sees up on the match's tile `tid` (None: face down, or no tile there)."""
    seen, dc, dr = _aligned(board, scene, dims)
    cell = board.tiles.get(tid)
    return next((seen.faces[t] for t, (c, r) in seen.tiles.items() if (c + dc, r + dr) == cell), None)


def compare_with_scene(board: Board, scene: Scene, dims: Dimensions = DEFAULT) -> list[dict]:
    """Warnings (dicts) where the camera's table differs from the match's board: tiles by cell
    and face, coins by suit and square (coins of one suit are alike)."""
    seen, dc, dr = _aligned(board, scene, dims)
    expected_tiles = {c: board.faces[t] for t, c in board.tiles.items()}
    seen_tiles = {(c + dc, r + dr): seen.faces[t] for t, (c, r) in seen.tiles.items()}
    expected_coins = Counter((board.owners[c], s) for c, s in board.coins.items())
    seen_coins = Counter((seen.owners[c], (s[0] + 2 * dc, s[1] + 2 * dr)) for c, s in seen.coins.items())
    diffs = [f"cell {list(c)}: expected {_face(expected_tiles.get(c))}, seen {_face(seen_tiles.get(c))}"
             for c in sorted(set(expected_tiles) | set(seen_tiles)) if expected_tiles.get(c, 0) != seen_tiles.get(c, 0)]
    diffs += [f"missing {suit} coin on {list(s)}" for (suit, s) in sorted(expected_coins - seen_coins)]
    diffs += [f"unexpected {suit} coin on {list(s)}" for (suit, s) in sorted(seen_coins - expected_coins)]
    if not diffs:
        return []
    return [Warning("scene_mismatch", "the table differs from the game: " + "; ".join(diffs[:4]) +
                    (f" (+{len(diffs) - 4} more)" if len(diffs) > 4 else "")).to_dict()]


def _face(face) -> str:
    if face == 0:
        return "no tile"
    return "a face-down tile" if face is None else f"the {face[1]} of {face[0]}"
