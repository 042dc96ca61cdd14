"""The square grid of a piecepack board seen by the camera (IceFloe, Iceberg).

Tiles lie edge to edge, so the grid's pitch is the tile side. `fit_grid` finds the grid's
turn and offset from the tile centres, tolerating a few mm and degrees of misplacement; cells
are counted from 0 at the top-left tile column and row, and a grid of tile quarters (squares,
pitch / 2) lies on it for coins.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

# A piece whose centre lies this far (mm) outside a tile's edge still stands on it.
EDGE_TOLERANCE = 3.0


@dataclass(frozen=True)
class Grid:
    """A grid turned by `angle` degrees whose cell (0, 0) is centred at (u0, v0) in the turned frame."""

    angle: float
    u0: float
    v0: float
    pitch: float

    def local(self, x: float, y: float) -> tuple[float, float]:
        """Table point -> (u, v) in the grid's turned frame."""
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        return x * c + y * s, -x * s + y * c

    def cell_float(self, x: float, y: float) -> tuple[float, float]:
        """Fractional (col, row) of a table point (cell centres are whole numbers)."""
        u, v = self.local(x, y)
        return (u - self.u0) / self.pitch, (v - self.v0) / self.pitch

    def cell(self, x: float, y: float) -> tuple[int, int]:
        """The (col, row) of the cell holding a table point."""
        fc, fr = self.cell_float(x, y)
        return round(fc), round(fr)

    def square(self, x: float, y: float) -> tuple[int, int]:
        """The (col, row) of the tile quarter holding a table point (two per cell each way)."""
        fc, fr = self.cell_float(x, y)
        return math.floor(2 * fc + 1), math.floor(2 * fr + 1)

    def centre(self, col: float, row: float) -> tuple[float, float]:
        """Table point of a cell centre (fractions allowed: square centres are at +-1/4)."""
        u, v = self.u0 + col * self.pitch, self.v0 + row * self.pitch
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        return u * c - v * s, u * s + v * c

    def square_centre(self, col: int, row: int) -> tuple[float, float]:
        """Table point of the centre of a tile quarter."""
        return self.centre((col - 0.5) / 2, (row - 0.5) / 2)


def fit_grid(points: list[tuple[float, float, float | None]], pitch: float,
             origin: tuple[float, float] | None = None) -> Grid:
    """The grid through tile centres `(x, y, angle or None)`. Cell (0, 0) is the cell whose
    top-left corner is nearest `origin` (the 5x5 grid's corner, when the scene knows it),
    else the top-left tile's column and row."""
    angle = _grid_angle(points, pitch)
    probe = Grid(angle, 0.0, 0.0, pitch)
    local = [probe.local(x, y) for x, y, _ in points]
    u_off = _phase([u for u, _ in local], pitch)
    v_off = _phase([v for _, v in local], pitch)
    if origin is not None:
        ou, ov = probe.local(*origin)
        return Grid(angle, _snap(u_off, ou + pitch / 2, pitch), _snap(v_off, ov + pitch / 2, pitch), pitch)
    cols = [round((u - u_off) / pitch) for u, _ in local]
    rows = [round((v - v_off) / pitch) for _, v in local]
    return Grid(angle, u_off + min(cols) * pitch, v_off + min(rows) * pitch, pitch)


def _snap(phase: float, near: float, pitch: float) -> float:
    """The value `phase + k * pitch` nearest `near`."""
    return phase + round((near - phase) / pitch) * pitch


def scene_grid(scene, pitch: float) -> Grid:
    """The grid of a scene's tiles; `state.grid_origin` [x, y], when present, fixes cell (0, 0)."""
    tiles = scene.of_type("tile")
    if not tiles:
        return Grid(0.0, 0.0, 0.0, pitch)
    origin = scene.state.get("grid_origin")
    return fit_grid([(t.x, t.y, t.angle) for t in tiles], pitch, tuple(origin) if origin else None)


def _circular_mean(angles_rad: list[float]) -> float:
    return math.atan2(sum(math.sin(a) for a in angles_rad), sum(math.cos(a) for a in angles_rad))


def _grid_angle(points, pitch: float) -> float:
    """The grid's turn in (-45, 45] degrees: from the tiles' angles, else from neighbour pairs."""
    seen = [a for _, _, a in points if a is not None]
    if not seen:
        for i, (x1, y1, _) in enumerate(points):
            for x2, y2, _ in points[i + 1:]:
                if 0.8 * pitch < math.hypot(x2 - x1, y2 - y1) < 1.2 * pitch:
                    seen.append(math.degrees(math.atan2(y2 - y1, x2 - x1)))
    if not seen:
        return 0.0
    return math.degrees(_circular_mean([math.radians(4 * a) for a in seen])) / 4


def _phase(values: list[float], pitch: float) -> float:
    """The offset in [0, pitch) that the values sit at, modulo the pitch."""
    mean = _circular_mean([2 * math.pi * v / pitch for v in values])
    return (mean / (2 * math.pi) * pitch) % pitch


def on_tile(grid: Grid, point: tuple[float, float], tiles: dict[str, tuple[float, float]],
            tolerance: float = EDGE_TOLERANCE) -> str | None:
    """The id of the tile (id -> centre) a point stands on, or None (in the water)."""
    fc, fr = grid.cell_float(*point)
    best, best_d = None, None
    limit = 0.5 + tolerance / grid.pitch
    for tid, centre in tiles.items():
        tc, tr = grid.cell_float(*centre)
        dc, dr = abs(fc - tc), abs(fr - tr)
        if dc <= limit and dr <= limit and (best_d is None or max(dc, dr) < best_d):
            best, best_d = tid, max(dc, dr)
    return best
