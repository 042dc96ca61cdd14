"""How each piece type looks: the per-type registry of the renderer.

`DRAWERS[type](piece, dims)` returns a `Look`: the piece's solid and its material. A new piece
type (piecepack tiles, coins, ...) adds one function here; faces may carry an `art` callback that
paints printed face art into the face's image-space polygon.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from referee.dimensions import DEFAULT, Dimensions
from referee.geometry import rectangle
from vision.solids import Solid, looney


@dataclass(frozen=True)
class Material:
    """Surface reflectance `albedo` (linear RGB 0..1); `opacity` 1 for opaque plastic, lower for
    translucent, whose transmitted light is filtered by `tint`; `gloss` scales highlights."""

    albedo: tuple
    opacity: float = 1.0
    tint: tuple = (1.0, 1.0, 1.0)
    gloss: float = 0.6
    edge: float = 0.0       # brightness of the refracting edges (clear plastic)


def _translucent(rgb: tuple, opacity: float = 0.5) -> Material:
    return Material(rgb, opacity, tuple(min(1.0, 0.15 + c) for c in rgb), 0.8)


# The ten Looney colours: Rainbow (red, yellow, blue, green, black) and Xeno (purple, orange,
# clear, cyan, white); black and white opaque, the rest translucent.
LOONEY_MATERIALS = {
    "red": _translucent((0.78, 0.05, 0.07)),
    "yellow": _translucent((0.95, 0.78, 0.04)),
    "blue": _translucent((0.06, 0.20, 0.78)),
    "green": _translucent((0.06, 0.58, 0.16)),
    "black": Material((0.04, 0.04, 0.05), 1.0, gloss=0.5),
    "purple": _translucent((0.42, 0.10, 0.60)),
    "orange": _translucent((0.98, 0.40, 0.04)),
    "clear": Material((0.95, 0.96, 0.97), 0.2, (0.90, 0.92, 0.93), 1.2, edge=0.5),
    "cyan": _translucent((0.04, 0.66, 0.82)),
    "white": Material((0.92, 0.92, 0.90), 1.0, gloss=0.4),
}


@dataclass(frozen=True)
class Look:
    """A solid and its material; a `flat` look (a card) lies flat on the table: it is painted
    into the table's texture (under the pieces' shadows, before the pieces), its solid being
    only its top face."""

    solid: Solid
    material: Material
    art: Callable | None = None
    flat: bool = False


def looney_look(piece, dims: Dimensions = DEFAULT) -> Look:
    return Look(looney(piece, dims), LOONEY_MATERIALS[piece.color])


def nested_looks(piece, dims: Dimensions = DEFAULT) -> list[Look]:
    """A nest: the outer pyramid plus the smaller ones inside it (seen through translucent
    plastic), all centred on the same base."""
    looks = [looney_look(piece, dims)]
    for size in piece.nested or ():
        inner = type(piece)(id=piece.id, type="pyramid", x=piece.x, y=piece.y, color=piece.color,
                            size=size, pose="standing", angle=piece.angle)
        looks.append(looney_look(inner, dims))
    return looks


CARD_THICKNESS = 0.3      # mm: a postcard; its edge and shadow are under a pixel, not drawn
# Plain light card stock (a postcard's blank side): white, ivory, pale grey; chosen by the id.
CARD_STOCKS = ((0.80, 0.80, 0.78), (0.82, 0.78, 0.68), (0.70, 0.71, 0.72))


def card_looks(piece, dims: Dimensions = DEFAULT) -> list[Look]:
    """An Ice Pirates home card: a flat postcard of plain light stock."""
    corners = np.array(rectangle(piece.x, piece.y, piece.width, piece.height, piece.angle).exterior.coords)[:4]
    top = np.column_stack([corners, np.full(4, -CARD_THICKNESS)])
    stock = CARD_STOCKS[zlib.crc32(piece.id.encode()) % len(CARD_STOCKS)]
    return [Look(Solid(top, ((0, 1, 2, 3),)), Material(stock, gloss=0.05), flat=True)]


DRAWERS: dict[str, Callable] = {"pyramid": nested_looks, "card": card_looks}
# Called on the scene before drawing (scene, dims) -> scene, e.g. to rest pieces on tiles.
SCENE_HOOKS: list[Callable] = []

# Other packages add their piece types to DRAWERS (and SCENE_HOOKS) when imported.
import vision.piecepack.looks  # noqa: E402,F401  tile, coin, die, pawn, pp_pyramid
