"""Piecepack face art, as albedo textures (linear RGB 0..1, rows along -y), in any edition.

The project's own edition (`editions.DEFAULT`): suits suns red, moons black, crowns green, arms
blue; ranks 0 (null), 1 (ace, drawn "A"), 2..5. Tile faces carry the rank large at the centre,
small at the middle of two opposite edges, and the suit in two opposite corners (so pyramids
standing on the centre or the corners do not hide the tile's identity); tile backs are the same
stock with a cross splitting the four quarters and small crosses. Coins show the suit in colour
on one side and the value in black on the other, each with a direction mark; dice are solid suit
colour with a cream glyph. Every stroke is at most ~2 mm wide and every filled symbol at most
~8 mm across, so a piece (a pyramid, a die: 12.7 mm and up) is the only solid suit-coloured area
larger than that (see `vision.piecepack.detect`).

Other editions (`vision.piecepack.editions`) change the marks, colours, font, the tile layout
(`corner`: one suit mark in a corner and a large rank in the suit colour; `suit-centre`: a
large suit mark with the rank in the corners), the back pattern and the dice.
"""
from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from vision.piecepack.editions import DEFAULT, Edition

PX_PER_MM = 6.0                      # texture resolution


def _canvas(side_mm: float, colour) -> np.ndarray:
    n = int(round(side_mm * PX_PER_MM))
    return np.full((n, n, 3), colour, np.float32)


def _pt(x_mm: float, y_mm: float) -> tuple[int, int]:
    return int(round(x_mm * PX_PER_MM * 16)), int(round(y_mm * PX_PER_MM * 16))


def _poly(img: np.ndarray, pts, cx: float, cy: float, r: float, colour) -> None:
    poly = np.array([_pt(cx + x * r, cy + y * r) for x, y in pts], np.int32)
    cv2.fillPoly(img, [poly], colour, cv2.LINE_AA, 4)


def _blend(img: np.ndarray, mask: np.ndarray, colour) -> None:
    """Paint `colour` into `img` (an RGB texture or a 2D mask) where the 0/255 `mask` is set."""
    m = (mask.astype(np.float32) / 255).reshape(mask.shape + (1,) * (img.ndim - 2))
    img[:] = img * (1 - m) + np.array(colour, np.float32) * m


def _filled_mark(img: np.ndarray, suit: str, cx: float, cy: float, r: float, colour) -> None:
    """The project's marks: a rayed sun, a crescent, a crown, a shield."""
    if suit == "suns":
        cv2.circle(img, _pt(cx, cy), int(r * 0.55 * PX_PER_MM * 16), colour, -1, cv2.LINE_AA, 4)
        for k in range(8):
            a = k * math.pi / 4
            p0 = _pt(cx + 0.68 * r * math.cos(a), cy + 0.68 * r * math.sin(a))
            p1 = _pt(cx + r * math.cos(a), cy + r * math.sin(a))
            cv2.line(img, p0, p1, colour, max(1, int(0.24 * r * PX_PER_MM)), cv2.LINE_AA, 4)
    elif suit == "moons":
        mask = np.zeros(img.shape[:2], np.uint8)
        cv2.circle(mask, _pt(cx, cy), int(r * PX_PER_MM * 16), 255, -1, cv2.LINE_AA, 4)
        cv2.circle(mask, _pt(cx + 0.45 * r, cy - 0.2 * r), int(r * 0.8 * PX_PER_MM * 16), 0, -1,
                   cv2.LINE_AA, 4)
        _blend(img, mask, colour)
    elif suit == "crowns":
        _poly(img, [(-1, 0.7), (-1, -0.5), (-0.5, 0.0), (0, -0.8), (0.5, 0.0), (1, -0.5), (1, 0.7)], cx, cy, r,
              colour)
    else:
        _poly(img, [(-0.85, -0.9), (0.85, -0.9), (0.85, 0.1), (0, 1.0), (-0.85, 0.1)], cx, cy, r, colour)


def _simple_mark(mask: np.ndarray, suit: str, cx: float, cy: float, r: float, colour) -> None:
    """Another maker's marks: a star, a crescent opening left, a three-ball crown, crossed arms."""
    if suit == "suns":
        pts = [((1.0 if k % 2 == 0 else 0.5) * math.cos(k * math.pi / 6),
                (1.0 if k % 2 == 0 else 0.5) * math.sin(k * math.pi / 6)) for k in range(12)]
        _poly(mask, pts, cx, cy, r, colour)
    elif suit == "moons":
        cv2.circle(mask, _pt(cx, cy), int(r * 0.9 * PX_PER_MM * 16), colour, -1, cv2.LINE_AA, 4)
        cv2.circle(mask, _pt(cx - 0.35 * r, cy), int(r * 0.75 * PX_PER_MM * 16), 0, -1, cv2.LINE_AA, 4)
    elif suit == "crowns":
        _poly(mask, [(-0.9, 0.6), (-0.9, -0.3), (-0.45, 0.1), (0, -0.5), (0.45, 0.1), (0.9, -0.3),
                     (0.9, 0.6)], cx, cy, r, colour)
        for x, y in ((-0.9, -0.45), (0, -0.7), (0.9, -0.45)):
            cv2.circle(mask, _pt(cx + x * r, cy + y * r), int(0.2 * r * PX_PER_MM * 16), colour, -1, cv2.LINE_AA, 4)
    else:
        w = max(1, int(0.28 * r * PX_PER_MM))
        for s in (-1, 1):
            cv2.line(mask, _pt(cx - 0.8 * r, cy - s * 0.8 * r), _pt(cx + 0.8 * r, cy + s * 0.8 * r), colour, w,
                     cv2.LINE_AA, 4)
        cv2.line(mask, _pt(cx - 0.5 * r, cy + 0.5 * r), _pt(cx + 0.5 * r, cy + 0.5 * r), colour, w, cv2.LINE_AA, 4)


def suit_symbol(img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour=None,
                ed: Edition = DEFAULT) -> None:
    """Draw a suit mark `size` mm across centred at (cx, cy) mm in the edition's style."""
    colour = colour if colour is not None else ed.suit(suit)
    if ed.marks == "filled":
        _filled_mark(img, suit, cx, cy, size / 2, colour)
        return
    mask = np.zeros(img.shape[:2], np.uint8)
    (_simple_mark if ed.marks == "simple" else _filled_mark)(mask, suit, cx, cy, size / 2, 255)
    if ed.marks == "outline":
        inner = max(1, int(round(0.16 * size * PX_PER_MM)))
        mask = cv2.subtract(mask, cv2.erode(mask, np.ones((inner, inner), np.uint8)))
    _blend(img, mask, colour)


def glyph(img: np.ndarray, text: str, cx: float, cy: float, height: float, colour, stroke: float,
          angle: float = 0.0, font: int = cv2.FONT_HERSHEY_SIMPLEX) -> None:
    """Draw `text` `height` mm tall centred at (cx, cy) mm, turned by `angle` degrees."""
    if not text:
        return
    scale = 1.0
    (tw, th), _ = cv2.getTextSize(text, font, scale, 1)
    scale = height * PX_PER_MM / th
    thick = max(1, int(round(stroke * PX_PER_MM)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    pad = thick + 2
    layer = np.zeros((th + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(layer, text, (pad, th + pad), font, scale, 255, thick, cv2.LINE_AA)
    centre = (layer.shape[1] / 2, layer.shape[0] / 2)
    M = cv2.getRotationMatrix2D(centre, -angle, 1.0)
    M[:, 2] += (cx * PX_PER_MM - centre[0], cy * PX_PER_MM - centre[1])
    mask = cv2.warpAffine(layer, M, (img.shape[1], img.shape[0])).astype(np.float32)[..., None] / 255
    img[:] = img * (1 - mask) + np.array(colour, np.float32) * mask


def _border(img: np.ndarray, width_mm: float, colour) -> None:
    if colour is None:
        return
    w = max(1, int(round(width_mm * PX_PER_MM)))
    n = img.shape[0]
    cv2.rectangle(img, (0, 0), (n - 1, n - 1), colour, w)


@lru_cache(maxsize=None)
def tile_face(suit: str, rank: int, side: float = 50.8, ed: Edition = DEFAULT) -> np.ndarray:
    """A tile's face in the edition's layout (the default described in the module's docstring)."""
    img = _canvas(side, ed.stock)
    _border(img, 0.8, ed.edge)
    text, colour = ed.rank_text(rank), ed.suit(suit)
    rank_colour = colour if ed.rank_in_suit else ed.ink
    if ed.layout == "corner":
        suit_symbol(img, suit, 7.5, 7.5, 8.0, ed=ed)
        glyph(img, text, side / 2 + 2.0, side / 2 + 2.0, 26.0, colour, 3.2, font=ed.font)
    elif ed.layout == "suit-centre":
        suit_symbol(img, suit, side / 2, side / 2, 22.0, ed=ed)
        for turn, (ix, iy) in ((0, (6.0, 6.5)), (180, (side - 6.0, side - 6.5))):
            glyph(img, text or "-", ix, iy, 6.5, rank_colour, 1.3, turn, ed.font)
            glyph(img, text or "-", side - ix, iy, 6.5, rank_colour, 1.3, turn, ed.font)
    else:
        glyph(img, text, side / 2, side / 2, 20.0, rank_colour, 2.0, font=ed.font)
        for turn, (ix, iy) in ((0, (6.5, 6.5)), (180, (side - 6.5, side - 6.5))):
            suit_symbol(img, suit, ix, iy, 6.5, ed=ed)
            glyph(img, text or "o", side / 2, iy, 7.5, rank_colour, 1.5, turn, ed.font)
    return img


def _cross_back(img: np.ndarray, side: float, ink, w: int) -> None:
    """A cross marking the four quarters (stopping 5 mm short of the border, so the back's stock
    stays one piece), a small cross at each quarter's centre."""
    c, reach = side / 2, side / 2 - 5.0
    cv2.line(img, _pt(c, c - reach), _pt(c, c + reach), ink, w, cv2.LINE_AA, 4)
    cv2.line(img, _pt(c - reach, c), _pt(c + reach, c), ink, w, cv2.LINE_AA, 4)
    for fx in (0.25, 0.75):
        for fy in (0.25, 0.75):
            cx, cy = fx * side, fy * side
            for dx, dy in ((3, 0), (0, 3)):
                cv2.line(img, _pt(cx - dx, cy - dy), _pt(cx + dx, cy + dy), ink, w, cv2.LINE_AA, 4)


def _pattern_back(img: np.ndarray, side: float, kind: str, ink, w: int) -> None:
    """Grid, diagonal stripes, dots or concentric rings over the whole back."""
    if kind == "grid":
        for t in np.arange(side / 8, side, side / 8):
            cv2.line(img, _pt(t, 3), _pt(t, side - 3), ink, w, cv2.LINE_AA, 4)
            cv2.line(img, _pt(3, t), _pt(side - 3, t), ink, w, cv2.LINE_AA, 4)
    elif kind == "stripes":
        for t in np.arange(-side, side, 5.0):
            cv2.line(img, _pt(t, 0), _pt(t + side, side), ink, w, cv2.LINE_AA, 4)
    elif kind == "dots":
        for x in np.arange(side / 12, side, side / 6):
            for y in np.arange(side / 12, side, side / 6):
                cv2.circle(img, _pt(x, y), int(1.2 * PX_PER_MM * 16), ink, -1, cv2.LINE_AA, 4)
    else:
        for r in (6.0, 12.0, 18.0):
            cv2.circle(img, _pt(side / 2, side / 2), int(r * PX_PER_MM * 16), ink, w, cv2.LINE_AA, 4)


@lru_cache(maxsize=None)
def tile_back(side: float = 50.8, ed: Edition = DEFAULT) -> np.ndarray:
    """A tile's back: the edition's stock and pattern (the default: a cross, see `_cross_back`)."""
    img = _canvas(side, ed.back_stock)
    _border(img, 0.8, ed.edge)
    w = max(1, int(round(1.2 * PX_PER_MM)))
    if ed.back == "cross":
        _cross_back(img, side, ed.back_ink, w)
    else:
        _pattern_back(img, side, ed.back, ed.back_ink, w)
    return img


def _direction_mark(img: np.ndarray, diameter: float, ink) -> None:
    """A small bar near the top edge showing which way the coin faces."""
    c = diameter / 2
    cv2.line(img, _pt(c - 1.5, 1.6), _pt(c + 1.5, 1.6), ink, max(1, int(0.8 * PX_PER_MM)), cv2.LINE_AA, 4)


@lru_cache(maxsize=None)
def coin_value(rank: int, diameter: float = 19.05, ed: Edition = DEFAULT) -> np.ndarray:
    """A coin's value side: the rank in the edition's ink (null: a small ring)."""
    img = _canvas(diameter, ed.coin_stock)
    c = diameter / 2
    if rank:
        glyph(img, ed.rank_text(rank), c, c + 0.4, 9.0, ed.ink, 1.6, font=ed.font)
    else:
        cv2.circle(img, _pt(c, c), int(2.5 * PX_PER_MM * 16), ed.ink, max(1, int(1.2 * PX_PER_MM)), cv2.LINE_AA, 4)
    _direction_mark(img, diameter, ed.ink)
    return img


@lru_cache(maxsize=None)
def coin_suit(suit: str, diameter: float = 19.05, ed: Edition = DEFAULT) -> np.ndarray:
    """A coin's suit side: the suit mark in colour."""
    img = _canvas(diameter, ed.coin_stock)
    suit_symbol(img, suit, diameter / 2, diameter / 2 + 0.6, 8.0, ed=ed)
    _direction_mark(img, diameter, ed.ink)
    return img


@lru_cache(maxsize=None)
def die_face(suit: str, rank: int, side: float = 12.7, ed: Edition = DEFAULT) -> np.ndarray:
    """A die face: solid suit colour with the rank in cream, or (light dice) the rank in the
    suit colour on the stock (null: blank)."""
    img = _canvas(side, ed.die_body(suit))
    ink = ed.stock if ed.die == "solid" else ed.suit(suit)
    glyph(img, ed.rank_text(rank) if rank else "", side / 2, side / 2, 8.5, ink, 1.5, font=ed.font)
    return img


@lru_cache(maxsize=None)
def pyramid_face(suit: str, letter: str, base: float, ed: Edition = DEFAULT) -> np.ndarray:
    """One triangular face of a piecepack pyramid (the texture spans the face's bounding box,
    base edge along the bottom): suit colour with the letter in cream near the base."""
    img = _canvas(base, ed.suit(suit))
    glyph(img, letter, base / 2, base * 0.72, base * 0.28, ed.stock, base * 0.05, font=ed.font)
    return img


def pawn_top(suit: str, diameter: float, ed: Edition = DEFAULT) -> np.ndarray:
    """A pawn's head seen from above: suit colour with a dot of the stock's colour."""
    img = _canvas(diameter, ed.suit(suit))
    c = diameter / 2
    cv2.circle(img, _pt(c, c), int(1.7 * PX_PER_MM * 16), ed.stock, -1, cv2.LINE_AA, 4)
    return img
