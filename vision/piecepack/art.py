"""The piecepack's own printed face art, as albedo textures (linear RGB 0..1, rows along -y).

Suits: suns red, moons black, crowns green, arms blue. Ranks 0 (null), 1 (ace, drawn "A"),
2..5. Tile faces carry the rank large at the centre, small at the middle of two opposite edges, and
the suit in two opposite corners (so pyramids standing on the centre or the corners do not
hide the tile's identity); tile backs
are the same stock with a cross splitting the four quarters and small crosses. Coins show the
suit in colour on one side and the value in black on the other, each with a direction mark;
dice are solid suit colour with a cream glyph. Every stroke is at most ~2 mm wide and every
filled symbol at most ~8 mm across, so a piece (a pyramid, a die: 12.7 mm and up) is the only
solid suit-coloured area larger than that (see `vision.piecepack.detect`).
"""
from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

PX_PER_MM = 6.0                      # texture resolution
SUIT_RGB = {"suns": (0.72, 0.05, 0.03), "moons": (0.03, 0.03, 0.035),
            "crowns": (0.02, 0.40, 0.12), "arms": (0.03, 0.13, 0.62)}
STOCK = (0.86, 0.83, 0.74)           # tile faces and backs (cream)
EDGE = (0.28, 0.20, 0.12)            # printed tile border
COIN_STOCK = (0.74, 0.52, 0.28)      # coin faces (light wood)
INK = (0.03, 0.03, 0.03)
RANK_TEXT = {0: "", 1: "A", 2: "2", 3: "3", 4: "4", 5: "5"}


def _canvas(side_mm: float, colour) -> np.ndarray:
    n = int(round(side_mm * PX_PER_MM))
    return np.full((n, n, 3), colour, np.float32)


def _pt(x_mm: float, y_mm: float) -> tuple[int, int]:
    return int(round(x_mm * PX_PER_MM * 16)), int(round(y_mm * PX_PER_MM * 16))


def suit_symbol(img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour=None) -> None:
    """Draw a filled suit symbol `size` mm across centred at (cx, cy) mm."""
    c = colour if colour is not None else SUIT_RGB[suit]
    r = size / 2
    if suit == "suns":
        cv2.circle(img, _pt(cx, cy), int(r * 0.55 * PX_PER_MM * 16), c, -1, cv2.LINE_AA, 4)
        for k in range(8):
            a = k * math.pi / 4
            p0 = _pt(cx + 0.68 * r * math.cos(a), cy + 0.68 * r * math.sin(a))
            p1 = _pt(cx + r * math.cos(a), cy + r * math.sin(a))
            cv2.line(img, p0, p1, c, max(1, int(0.12 * size * PX_PER_MM)), cv2.LINE_AA, 4)
    elif suit == "moons":
        mask = np.zeros(img.shape[:2], np.uint8)
        cv2.circle(mask, _pt(cx, cy), int(r * PX_PER_MM * 16), 255, -1, cv2.LINE_AA, 4)
        cv2.circle(mask, _pt(cx + 0.45 * r, cy - 0.2 * r), int(r * 0.8 * PX_PER_MM * 16), 0, -1,
                   cv2.LINE_AA, 4)
        m = mask.astype(np.float32)[..., None] / 255
        img[:] = img * (1 - m) + np.array(c, np.float32) * m
    elif suit == "crowns":
        pts = [(-1, 0.7), (-1, -0.5), (-0.5, 0.0), (0, -0.8), (0.5, 0.0), (1, -0.5), (1, 0.7)]
        poly = np.array([_pt(cx + x * r, cy + y * r) for x, y in pts], np.int32)
        cv2.fillPoly(img, [poly], c, cv2.LINE_AA, 4)
    else:   # arms: a shield
        pts = [(-0.85, -0.9), (0.85, -0.9), (0.85, 0.1), (0, 1.0), (-0.85, 0.1)]
        poly = np.array([_pt(cx + x * r, cy + y * r) for x, y in pts], np.int32)
        cv2.fillPoly(img, [poly], c, cv2.LINE_AA, 4)


def glyph(img: np.ndarray, text: str, cx: float, cy: float, height: float, colour, stroke: float,
          angle: float = 0.0) -> None:
    """Draw `text` `height` mm tall centred at (cx, cy) mm, turned by `angle` degrees."""
    if not text:
        return
    font = cv2.FONT_HERSHEY_SIMPLEX
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


def _border(img: np.ndarray, width_mm: float) -> None:
    w = max(1, int(round(width_mm * PX_PER_MM)))
    n = img.shape[0]
    cv2.rectangle(img, (0, 0), (n - 1, n - 1), EDGE, w)


@lru_cache(maxsize=None)
def tile_face(suit: str, rank: int, side: float = 50.8) -> np.ndarray:
    """A tile's face: rank at the centre, repeated small at the middle of the top and (turned)
    bottom edges, with the suit symbol in the top-left and bottom-right corners."""
    img = _canvas(side, STOCK)
    _border(img, 0.8)
    colour = SUIT_RGB[suit]
    glyph(img, RANK_TEXT[rank], side / 2, side / 2, 20.0, colour, 2.0)
    for turn, (ix, iy) in ((0, (6.5, 6.5)), (180, (side - 6.5, side - 6.5))):
        suit_symbol(img, suit, ix, iy, 6.5)
        glyph(img, RANK_TEXT[rank] or "o", side / 2, iy, 7.5, colour, 1.5, turn)
    return img


@lru_cache(maxsize=None)
def tile_back(side: float = 50.8) -> np.ndarray:
    """A tile's back: a cross marking the four quarters (stopping 5 mm short of the border,
    so the back's stock stays one piece), a small cross at each quarter's centre."""
    img = _canvas(side, STOCK)
    _border(img, 0.8)
    w = max(1, int(round(1.2 * PX_PER_MM)))
    c, reach = side / 2, side / 2 - 5.0      # the cross stops short of the border
    cv2.line(img, _pt(c, c - reach), _pt(c, c + reach), INK, w, cv2.LINE_AA, 4)
    cv2.line(img, _pt(c - reach, c), _pt(c + reach, c), INK, w, cv2.LINE_AA, 4)
    for fx in (0.25, 0.75):
        for fy in (0.25, 0.75):
            cx, cy = fx * side, fy * side
            for dx, dy in ((3, 0), (0, 3)):
                cv2.line(img, _pt(cx - dx, cy - dy), _pt(cx + dx, cy + dy), INK, w, cv2.LINE_AA, 4)
    return img


def _direction_mark(img: np.ndarray, diameter: float) -> None:
    """A small bar near the top edge showing which way the coin faces."""
    c = diameter / 2
    cv2.line(img, _pt(c - 1.5, 1.6), _pt(c + 1.5, 1.6), INK, max(1, int(0.8 * PX_PER_MM)), cv2.LINE_AA, 4)


def _disc(diameter: float) -> np.ndarray:
    img = _canvas(diameter, COIN_STOCK)
    return img


@lru_cache(maxsize=None)
def coin_value(rank: int, diameter: float = 19.05) -> np.ndarray:
    """A coin's value side: the rank in black (null: a small ring)."""
    img = _disc(diameter)
    c = diameter / 2
    if rank:
        glyph(img, RANK_TEXT[rank], c, c + 0.4, 9.0, INK, 1.6)
    else:
        cv2.circle(img, _pt(c, c), int(2.5 * PX_PER_MM * 16), INK, max(1, int(1.2 * PX_PER_MM)), cv2.LINE_AA, 4)
    _direction_mark(img, diameter)
    return img


@lru_cache(maxsize=None)
def coin_suit(suit: str, diameter: float = 19.05) -> np.ndarray:
    """A coin's suit side: the suit symbol in colour."""
    img = _disc(diameter)
    suit_symbol(img, suit, diameter / 2, diameter / 2 + 0.6, 8.0)
    _direction_mark(img, diameter)
    return img


@lru_cache(maxsize=None)
def die_face(suit: str, rank: int, side: float = 12.7) -> np.ndarray:
    """A die face: solid suit colour, the rank in cream (null: blank)."""
    img = _canvas(side, SUIT_RGB[suit])
    glyph(img, RANK_TEXT[rank], side / 2, side / 2, 8.5, STOCK, 1.5)
    return img


@lru_cache(maxsize=None)
def pyramid_face(suit: str, letter: str, base: float) -> np.ndarray:
    """One triangular face of a piecepack pyramid (the texture spans the face's bounding box,
    base edge along the bottom): suit colour with the letter in cream near the base."""
    img = _canvas(base, SUIT_RGB[suit])
    glyph(img, letter, base / 2, base * 0.72, base * 0.28, STOCK, base * 0.05)
    return img


def pawn_top(suit: str, diameter: float) -> np.ndarray:
    """A pawn's head seen from above: suit colour with a cream dot."""
    img = _canvas(diameter, SUIT_RGB[suit])
    c = diameter / 2
    cv2.circle(img, _pt(c, c), int(1.7 * PX_PER_MM * 16), STOCK, -1, cv2.LINE_AA, 4)
    return img
