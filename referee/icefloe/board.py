"""The IceFloe board: tiles on a 5x5 grid, piecepack pyramids standing on them, and movement.

A `Board` maps tile ids to cells (col, row) and pyramid ids to the tile they stand on. Match
boards use canonical ids ("suns-2" for the 2 of suns tile, "suns-A" for the A pyramid of suns);
boards read from a scene keep the scene's ids and carry each piece's face.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from referee.scene import SUITS

SIZES = ("A", "B", "C", "D", "E", "F")
WEIGHT = {"A": 1, "B": 1, "C": 2, "D": 2, "E": 3, "F": 3}
POINTS = {"A": 1, "B": 2, "C": 3, "D": 4, "E": 5, "F": 6}
MAX_WEIGHT = 5
GRID = 5
RANK_NAMES = {0: "null", 1: "ace", 2: "2", 3: "3", 4: "4", 5: "5"}
DIRS8 = tuple((dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0))
DIRS4 = ((0, -1), (1, 0), (0, 1), (-1, 0))

# The rules' diagram with the suits of piecepackr's ppdf `piecepack_ice_floe()`
# (S suns, M moons, C crowns, A arms; n null, a ace), rows top to bottom.
STANDARD_LAYOUT = ("S2 S3 Ca M2 M3", "S4 S5 Aa M4 M5", "Mn Cn .. Sn An",
                   "A2 A3 Ma C2 C3", "A4 A5 Sa C4 C5")
THREE_PLAYER_REMOVED = ("suns-2", "moons-3", "arms-4", "crowns-5")
_SUIT_LETTER = {"S": "suns", "M": "moons", "C": "crowns", "A": "arms"}
_RANK_LETTER = {"n": 0, "a": 1, "2": 2, "3": 3, "4": 4, "5": 5}

Cell = tuple[int, int]


def tile_id(suit: str, rank: int) -> str:
    return f"{suit}-{rank}"


def pyramid_id(suit: str, size: str) -> str:
    return f"{suit}-{size}"


def tile_name(face: tuple[str, int]) -> str:
    """'2 of suns', 'ace of moons', 'null of arms'."""
    return f"{RANK_NAMES[face[1]]} of {face[0]}"


@dataclass
class Board:
    """Where the tiles and pyramids are. Mutable; `copy()` before trying moves."""

    tiles: dict[str, Cell] = field(default_factory=dict)
    faces: dict[str, tuple[str, int]] = field(default_factory=dict)   # tile -> (suit, rank)
    pyramids: dict[str, str] = field(default_factory=dict)            # pyramid -> tile
    kinds: dict[str, tuple[str, str]] = field(default_factory=dict)   # pyramid -> (suit, size)

    def copy(self) -> "Board":
        return Board(dict(self.tiles), self.faces, dict(self.pyramids), self.kinds)

    def at(self) -> dict[Cell, str]:
        """Cell -> tile id."""
        return {cell: tid for tid, cell in self.tiles.items()}

    def on(self, tid: str) -> list[str]:
        """The pyramids standing on a tile, in id order."""
        return sorted(p for p, t in self.pyramids.items() if t == tid)

    def weight(self, tid: str) -> int:
        return sum(WEIGHT[self.kinds[p][1]] for p, t in self.pyramids.items() if t == tid)

    def owned(self, suit: str) -> list[str]:
        """The pyramids of a suit still on the board."""
        return sorted(p for p in self.pyramids if self.kinds[p][0] == suit)

    def cell_of(self, pid: str) -> Cell:
        return self.tiles[self.pyramids[pid]]

    def unoccupied(self) -> list[str]:
        held = set(self.pyramids.values())
        return sorted(t for t in self.tiles if t not in held)

    def remove_tile(self, tid: str) -> list[str]:
        """Take a tile and its pyramids off the board; returns the pyramids lost."""
        lost = self.on(tid)
        for p in lost:
            del self.pyramids[p]
        del self.tiles[tid]
        return lost

    def final_count(self, suit: str) -> int:
        """The points of a suit's pyramids still on the board (A1 .. F6)."""
        return sum(POINTS[self.kinds[p][1]] for p in self.owned(suit))


def standard_board(players: int = 4) -> Board:
    """The set-up board of the rules (24 tiles; 20 with 3 players), no pyramids yet."""
    board = Board(faces={})
    for row, line in enumerate(STANDARD_LAYOUT):
        for col, code in enumerate(line.split()):
            if code == "..":
                continue
            suit, rank = _SUIT_LETTER[code[0]], _RANK_LETTER[code[1]]
            tid = tile_id(suit, rank)
            if players == 3 and tid in THREE_PLAYER_REMOVED:
                continue
            board.tiles[tid] = (col, row)
            board.faces[tid] = (suit, rank)
    board.kinds = {pyramid_id(s, z): (s, z) for s in SUITS for z in SIZES}
    return board


def _hops(cell: Cell, at: dict[Cell, str]):
    """Landing cells of one step or one jump (over anything, onto a tile): (cell, spaces)."""
    c, r = cell
    for dc, dr in DIRS8:
        if (c + dc, r + dr) in at:
            yield (c + dc, r + dr), 1
        if (c + 2 * dc, r + 2 * dr) in at:
            yield (c + 2 * dc, r + 2 * dr), 2


def destinations(board: Board, pid: str, at: dict[Cell, str] | None = None,
                 midway_limit: bool = False) -> list[Cell]:
    """Cells a pyramid may end on: one or two hops, at most three spaces, not where it began.

    With `midway_limit`, a first hop may not land on a tile it would overload."""
    at = board.at() if at is None else at
    start = board.cell_of(pid)
    weight = WEIGHT[board.kinds[pid][1]]
    found = set()
    for first, spaces in _hops(start, at):
        found.add(first)
        if midway_limit and board.weight(at[first]) + weight > MAX_WEIGHT:
            continue
        for second, more in _hops(first, at):
            if spaces + more <= 3:
                found.add(second)
    found.discard(start)
    return sorted(found)


def slides(board: Board, suit: str, at: dict[Cell, str] | None = None) -> list[tuple[str, Cell]]:
    """(tile, cell) of every one-space orthogonal slide of a tile carrying a pyramid of `suit`."""
    at = board.at() if at is None else at
    carriers = sorted({board.pyramids[p] for p in board.owned(suit)})
    out = []
    for tid in carriers:
        c, r = board.tiles[tid]
        for dc, dr in DIRS4:
            to = (c + dc, r + dr)
            if 0 <= to[0] < GRID and 0 <= to[1] < GRID and to not in at:
                out.append((tid, to))
    return out


def move_pyramid(board: Board, pid: str, to: Cell) -> list[str]:
    """Put a pyramid on the tile at `to`; if that floe is now over 5 it cracks.

    Returns the pyramids lost with a cracked floe (empty when it holds)."""
    tid = board.at()[to]
    board.pyramids[pid] = tid
    if board.weight(tid) > MAX_WEIGHT:
        return board.remove_tile(tid)
    return []
