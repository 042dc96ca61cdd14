"""How piecepack pieces look to the renderer: a solid, a material, and printed art per face.

Each drawer takes `(piece, dims)` and returns a list of `Look`s; importing this module adds
them to the renderer's registry `vision.render.pieces.DRAWERS` (and `rest_on_tiles` to its
`SCENE_HOOKS`). `Look.art(face)` returns `(texture, anchors)` for a
face that carries printed art (texture: linear RGB albedo; anchors: the world corners (4, 3) of
the texture, its top-left first) or None. A piece resting on a tile carries the tile's
thickness in `extra["z0"]` (set by `rest_on_tiles`, the renderer's scene hook).
"""
from __future__ import annotations

from dataclasses import replace

from referee.dimensions import DEFAULT, Dimensions
from referee.ppgrid import on_tile, scene_grid
from vision.piecepack import art
from vision.piecepack.editions import edition_of
from vision.piecepack.solids import (COIN_THICKNESS, PAWN_HEIGHT, circle, face_anchors, pp_pyramid,
                                     prism, square, top_anchors)
from vision.render import pieces

TILE_SIDE = pieces.Material((0.70, 0.66, 0.56), gloss=0.1)     # the card's cut edge
COIN_SIDE = pieces.Material((0.50, 0.34, 0.17), gloss=0.1)
PAPER = 0.06      # gloss of printed card and painted wood
RESTING = ("pp_pyramid", "coin", "die", "pawn")


def _painted(rgb) -> pieces.Material:
    return pieces.Material(rgb, gloss=PAPER)


def _top_art(texture, anchors, top_face: int):
    return lambda face: (texture, anchors) if face == top_face else None


def _z0(piece) -> float:
    return float(piece.extra.get("z0", 0.0))


def tile_looks(piece, dims: Dimensions = DEFAULT) -> list[pieces.Look]:
    side, angle = dims.tile, piece.angle or 0.0
    solid = prism(square(piece.x, piece.y, side, angle), 0.0, dims.tile_thickness)
    ed = edition_of(piece)
    texture = art.tile_face(piece.suit, piece.rank, side, ed) if piece.face == "up" else art.tile_back(side, ed)
    anchors = top_anchors(piece.x, piece.y, side, angle, dims.tile_thickness)
    return [pieces.Look(solid, TILE_SIDE, _top_art(texture, anchors, len(solid.faces) - 1))]


def coin_looks(piece, dims: Dimensions = DEFAULT) -> list[pieces.Look]:
    d, angle, z0 = dims.coin, piece.angle or 0.0, _z0(piece)
    solid = prism(circle(piece.x, piece.y, d, angle), z0, COIN_THICKNESS)
    ed = edition_of(piece)
    texture = art.coin_suit(piece.suit, d, ed) if piece.face == "suit" else art.coin_value(piece.rank, d, ed)
    anchors = top_anchors(piece.x, piece.y, d, angle, z0 + COIN_THICKNESS)
    return [pieces.Look(solid, COIN_SIDE, _top_art(texture, anchors, len(solid.faces) - 1))]


def die_looks(piece, dims: Dimensions = DEFAULT) -> list[pieces.Look]:
    side, angle, z0 = dims.die, piece.angle or 0.0, _z0(piece)
    solid = prism(square(piece.x, piece.y, side, angle), z0, side)
    anchors = top_anchors(piece.x, piece.y, side, angle, z0 + side)
    ed = edition_of(piece)
    return [pieces.Look(solid, _painted(ed.die_body(piece.suit)),
                 _top_art(art.die_face(piece.suit, piece.rank, side, ed), anchors, len(solid.faces) - 1))]


def pawn_looks(piece, dims: Dimensions = DEFAULT) -> list[pieces.Look]:
    d, z0 = dims.pawn, _z0(piece)
    solid = prism(circle(piece.x, piece.y, d), z0, PAWN_HEIGHT)
    anchors = top_anchors(piece.x, piece.y, d, 0.0, z0 + PAWN_HEIGHT)
    ed = edition_of(piece)
    return [pieces.Look(solid, _painted(ed.suit(piece.suit)),
                        _top_art(art.pawn_top(piece.suit, d, ed), anchors, len(solid.faces) - 1))]


def pyramid_looks(piece, dims: Dimensions = DEFAULT) -> list[pieces.Look]:
    base, height = dims.pp_pyramid_base[piece.size], dims.pp_pyramid_height[piece.size]
    solid = pp_pyramid(piece.x, piece.y, base, height, piece.angle or 0.0, _z0(piece))
    ed = edition_of(piece)
    texture = art.pyramid_face(piece.suit, piece.size, base, ed)
    return [pieces.Look(solid, _painted(ed.suit(piece.suit)), lambda face: (texture, face_anchors(solid, face)))]




def rest_on_tiles(scene, dims: Dimensions = DEFAULT):
    """The scene with every piece that stands on a tile lifted by the tile's thickness."""
    tiles = scene.of_type("tile")
    if not tiles or not scene.of_type(*RESTING):
        return scene
    grid = scene_grid(scene, dims.tile)
    centres = {t.id: (t.x, t.y) for t in tiles}
    out = []
    for p in scene.pieces:
        if p.type in RESTING and on_tile(grid, (p.x, p.y), centres, tolerance=0.0) is not None:
            p = replace(p, extra={**p.extra, "z0": dims.tile_thickness})
        out.append(p)
    return replace(scene, pieces=tuple(out))


DRAWERS = {"tile": tile_looks, "coin": coin_looks, "die": die_looks, "pawn": pawn_looks,
           "pp_pyramid": pyramid_looks}
pieces.DRAWERS.update(DRAWERS)
pieces.SCENE_HOOKS.append(rest_on_tiles)
