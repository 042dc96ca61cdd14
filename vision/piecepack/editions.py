"""Piecepack editions: how one maker prints the same 24 tiles, 24 coins, 4 dice, pawns and
pyramids.

The piecepack is public domain and made by many people, so the art differs: suit marks,
colours, fonts, where the rank and suit go on a tile, what the backs show, the colour of the
card and the coins. An `Edition` holds those choices; `vision.piecepack.art` draws every face
from one. `DEFAULT` is the project's own art (its samples and its default profile). The others
exist so that the photoreal generator (`tools/photoreal`) can show the detector art it was not
built on; each belongs to one split, so the test split's editions are never used in training.

A piece carries its edition's name in `extra["edition"]` (absent: `DEFAULT`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import cv2

SUITS = ("suns", "moons", "crowns", "arms")


@dataclass(frozen=True)
class Edition:
    """The printing choices of one edition (colours linear RGB 0..1)."""

    name: str
    split: str
    suit_rgb: tuple            # ((suit, rgb), ...) in SUITS order
    stock: tuple = (0.86, 0.83, 0.74)        # tile faces
    back_stock: tuple = (0.86, 0.83, 0.74)   # tile backs
    back_ink: tuple = (0.03, 0.03, 0.03)
    edge: tuple | None = (0.28, 0.20, 0.12)  # printed tile border (None: none)
    coin_stock: tuple = (0.74, 0.52, 0.28)
    ink: tuple = (0.03, 0.03, 0.03)          # black print (coin values, indices)
    marks: str = "filled"      # suit marks: filled, simple, outline
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    ace: str = "A"             # how rank 1 is printed
    null: str = ""             # how rank 0 is printed on a tile's centre
    layout: str = "centre"     # tile face: centre, corner, suit-centre
    rank_in_suit: bool = True  # the tile's rank in the suit colour (else black ink)
    back: str = "cross"        # back pattern: cross, grid, stripes, dots, ring
    die: str = "solid"         # solid: suit body, stock glyph; light: stock body, suit glyph

    def suit(self, suit: str) -> tuple:
        return dict(self.suit_rgb)[suit]

    def rank_text(self, rank: int) -> str:
        return {0: self.null, 1: self.ace}.get(rank, str(rank))

    def die_body(self, suit: str) -> tuple:
        return self.suit(suit) if self.die == "solid" else self.stock


def _suits(suns, moons, crowns, arms) -> tuple:
    return tuple(zip(SUITS, (suns, moons, crowns, arms)))


DEFAULT = Edition("default", "train", _suits((0.72, 0.05, 0.03), (0.03, 0.03, 0.035),
                                             (0.02, 0.40, 0.12), (0.03, 0.13, 0.62)))

EDITIONS = {e.name: e for e in (
    DEFAULT,
    Edition("marks", "train", _suits((0.80, 0.12, 0.02), (0.05, 0.05, 0.18), (0.05, 0.35, 0.05),
                                     (0.02, 0.20, 0.50)),
            stock=(0.90, 0.90, 0.88), back_stock=(0.10, 0.16, 0.38), back_ink=(0.80, 0.80, 0.75),
            edge=None, coin_stock=(0.55, 0.55, 0.55), marks="simple", font=cv2.FONT_HERSHEY_DUPLEX,
            ace="1", rank_in_suit=False, back="grid"),
    Edition("bold", "train", _suits((0.85, 0.30, 0.02), (0.20, 0.05, 0.35), (0.30, 0.45, 0.03),
                                    (0.02, 0.30, 0.60)),
            stock=(0.80, 0.78, 0.70), back_stock=(0.80, 0.78, 0.70), back_ink=(0.45, 0.10, 0.10),
            coin_stock=(0.20, 0.20, 0.22), ink=(0.85, 0.85, 0.80), layout="suit-centre",
            back="stripes", die="light"),
    Edition("wood", "val", _suits((0.65, 0.08, 0.05), (0.04, 0.04, 0.06), (0.10, 0.38, 0.10),
                                  (0.05, 0.10, 0.45)),
            stock=(0.62, 0.45, 0.26), back_stock=(0.45, 0.30, 0.16), back_ink=(0.20, 0.12, 0.05),
            edge=(0.15, 0.10, 0.05), coin_stock=(0.62, 0.45, 0.26), marks="outline",
            font=cv2.FONT_HERSHEY_COMPLEX, null="0", rank_in_suit=False, back="ring"),
    Edition("corner", "test", _suits((0.75, 0.02, 0.10), (0.02, 0.04, 0.10), (0.03, 0.45, 0.20),
                                     (0.10, 0.10, 0.65)),
            stock=(0.92, 0.92, 0.92), back_stock=(0.92, 0.92, 0.92), back_ink=(0.35, 0.35, 0.40),
            edge=None, coin_stock=(0.80, 0.70, 0.45), marks="simple", font=cv2.FONT_HERSHEY_TRIPLEX,
            layout="corner", back="dots"),
    Edition("ivory", "test", _suits((0.60, 0.03, 0.03), (0.10, 0.10, 0.12), (0.05, 0.30, 0.20),
                                    (0.05, 0.25, 0.55)),
            stock=(0.88, 0.85, 0.70), back_stock=(0.30, 0.05, 0.05), back_ink=(0.88, 0.85, 0.70),
            edge=(0.55, 0.45, 0.10), coin_stock=(0.88, 0.85, 0.70), marks="outline",
            font=cv2.FONT_HERSHEY_COMPLEX_SMALL, ace="1", null="N", back="cross", die="light"),
)}


def edition_of(piece) -> Edition:
    """The edition a piece is printed in (`extra["edition"]`; default the project's own)."""
    return EDITIONS[piece.extra.get("edition", DEFAULT.name)]


def in_split(split: str) -> list[str]:
    return [name for name, e in EDITIONS.items() if e.split == split]


def printed_in(scene, edition: str):
    """The scene with every piece printed in `edition` (what a renderer draws)."""
    return replace(scene, pieces=tuple(replace(p, extra={**p.extra, "edition": edition}) for p in scene.pieces))
