"""The Iceberg board: a donut of 24 tiles on a 5x5 grid, coins on the 10x10 grid of tile quarters.

Tiles are named by the cell they start on ("t13" = column 1, row 3); a square (col, row) lies on
the tile of cell (col // 2, row // 2). Rulings for the lost figures: docs/rulings/iceberg.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

GRID = 5
SQUARES = 2 * GRID
CENTRE = (2, 2)
# Start positions (fig. 2, lost): the outer corner squares, or the squares touching the hole's corners.
STARTS = {"corners": ((0, 0), (9, 0), (9, 9), (0, 9)), "inner": ((3, 3), (6, 3), (6, 6), (3, 6))}
# Bump direction of the coin on each quarter (qx, qy) of a flipped tile (fig. 4, lost).
BUMPS = {"diagonal": {(0, 0): (-1, -1), (1, 0): (1, -1), (1, 1): (1, 1), (0, 1): (-1, 1)},
         "pinwheel": {(0, 0): (0, -1), (1, 0): (1, 0), (1, 1): (0, 1), (0, 1): (-1, 0)}}
DIRS4 = ((0, -1), (1, 0), (0, 1), (-1, 0))
DIRS8 = tuple((dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0))

Cell = tuple[int, int]


def tile_at(cell: Cell) -> str:
    return f"t{cell[0]}{cell[1]}"


def cell_of_square(square: Cell) -> Cell:
    return square[0] // 2, square[1] // 2


@dataclass
class Board:
    """Tiles (id -> cell), their faces (None = face down, else (suit, rank)) and coins (id -> square)."""

    tiles: dict[str, Cell] = field(default_factory=dict)
    faces: dict[str, tuple[str, int] | None] = field(default_factory=dict)
    coins: dict[str, Cell] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)          # coin -> suit

    def copy(self) -> "Board":
        return Board(dict(self.tiles), dict(self.faces), dict(self.coins), dict(self.owners))

    def at(self) -> dict[Cell, str]:
        return {c: t for t, c in self.tiles.items()}

    def occupied(self) -> dict[Cell, str]:
        """Square -> coin."""
        return {s: c for c, s in self.coins.items()}

    def on_board(self, square: Cell, at: dict[Cell, str] | None = None) -> bool:
        return cell_of_square(square) in (self.at() if at is None else at)

    def coins_on(self, tid: str) -> list[str]:
        cell = self.tiles[tid]
        return sorted(c for c, s in self.coins.items() if cell_of_square(s) == cell)

    def coins_of(self, suit: str) -> list[str]:
        return sorted(c for c, o in self.owners.items() if o == suit and c in self.coins)

    def free_squares(self) -> list[Cell]:
        """Unoccupied squares on tiles, row by row."""
        taken = set(self.coins.values())
        return sorted(((2 * c + qx, 2 * r + qy) for c, r in self.tiles.values() for qx in (0, 1)
                       for qy in (0, 1) if (2 * c + qx, 2 * r + qy) not in taken), key=lambda s: (s[1], s[0]))

    def remove_tile(self, tid: str) -> list[str]:
        """Take a tile off with its coins; returns the coins lost."""
        lost = self.coins_on(tid)
        for c in lost:
            del self.coins[c]
        del self.tiles[tid]
        return lost


def donut() -> Board:
    """The 24 face-down tiles around the empty centre."""
    cells = [(c, r) for r in range(GRID) for c in range(GRID) if (c, r) != CENTRE]
    return Board({tile_at(c): c for c in cells}, {tile_at(c): None for c in cells})


def open_sides(board: Board, tid: str, gap_only: bool = False, at=None) -> list[Cell]:
    """Directions in which a tile has no neighbouring tile (with `gap_only`, the outer edge of
    the 5x5 grid does not count: only the hole or a removed tile opens a side)."""
    at = board.at() if at is None else at
    c, r = board.tiles[tid]
    out = []
    for dc, dr in DIRS4:
        n = (c + dc, r + dr)
        inside = 0 <= n[0] < GRID and 0 <= n[1] < GRID
        if n not in at and (inside or not gap_only):
            out.append((dc, dr))
    return out


def bump(board: Board, square: Cell, direction: Cell, at: dict[Cell, str]) -> list[str]:
    """Push the coin on `square` one square along `direction`, pushing any coin in the way first;
    returns the coins knocked off the board (onto no tile)."""
    coin = board.occupied().get(square)
    if coin is None:
        return []
    target = (square[0] + direction[0], square[1] + direction[1])
    if cell_of_square(target) not in at:
        del board.coins[coin]
        return [coin]
    lost = bump(board, target, direction, at)
    board.coins[coin] = target
    return lost


def flip(board: Board, tid: str, face: tuple[str, int], rule: str = "diagonal") -> list[str]:
    """Turn a tile face up and bump its coins outward; returns the coins lost."""
    board.faces[tid] = face
    at = board.at()
    c, r = board.tiles[tid]
    lost = []
    for (qx, qy), direction in BUMPS[rule].items():
        lost += bump(board, (2 * c + qx, 2 * r + qy), direction, at)
    return lost


def groups(board: Board, diagonal: bool = False) -> list[list[str]]:
    """The connected groups of tiles (sides touching; corners too with `diagonal`), largest first."""
    at = board.at()
    seen, out = set(), []
    for start in sorted(board.tiles):
        if start in seen:
            continue
        group, todo = [], [start]
        seen.add(start)
        while todo:
            tid = todo.pop()
            group.append(tid)
            c, r = board.tiles[tid]
            for dc, dr in (DIRS8 if diagonal else DIRS4):
                n = at.get((c + dc, r + dr))
                if n is not None and n not in seen:
                    seen.add(n)
                    todo.append(n)
        out.append(sorted(group))
    return sorted(out, key=lambda g: (-len(g), g))


def cut_off(board: Board, tid: str, diagonal: bool = False) -> list[str]:
    """Remove tile `tid` (with its coins) and return the tiles this removal cuts off: the group
    that held it may split, and every part smaller than its largest part drifts (parts tied for
    largest all stay). Other groups, such as the equal half left by an earlier tie, stay."""
    group = next(g for g in groups(board, diagonal) if tid in g)
    board.remove_tile(tid)
    rest = Board({t: board.tiles[t] for t in group if t != tid})
    parts = groups(rest, diagonal)
    if not parts:
        return []
    return sorted(t for part in parts if len(part) < len(parts[0]) for t in part)


def stranded(board: Board, diagonal: bool = False) -> list[str]:
    """Tiles cut off from the main iceberg: every group smaller than the largest (groups tied for
    largest all stay)."""
    found = groups(board, diagonal)
    if not found:
        return []
    top = len(found[0])
    return sorted(t for g in found if len(g) < top for t in g)
