"""The calibration mat: where its ArUco markers, reference patches and palette spots lie.

Everything is in the table frame of SCENE.md: millimetres, origin at the top-left corner of the
play area, x to the right, y downward. A `Layout` is pure data; `draw` paints it as a top view.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

ARUCO_DICT = cv2.aruco.DICT_4X4_50
# Marker ids by role: the play area's corners (top-left, top-right, bottom-right, bottom-left)
# and the palette sheet's corners.
AREA_IDS = (0, 1, 2, 3)
PALETTE_IDS = (4, 5, 6, 7)
PAPERS = {"a4": (297.0, 210.0), "letter": (279.4, 215.9), "a3": (420.0, 297.0)}
SHEET_MARGIN = 8.0        # unprinted paper margin, mm
CARD = (90.0, 60.0)       # corner card, mm
CARD_GAP = 6.0            # from the play-area corner to the card's marker, mm

# Reference patches printed beside the markers: name -> sRGB.
GREYS = {"white": (255, 255, 255), "grey": (128, 128, 128), "black": (0, 0, 0)}
REFERENCE_COLOURS = {"red": (220, 30, 40), "green": (30, 160, 70), "blue": (30, 70, 190),
                     "cyan": (0, 170, 220), "magenta": (200, 40, 150), "yellow": (250, 215, 0)}
# The order of the palette spots (a standing pyramid of each colour, any size).
# The palette's spots lie on a mid-grey field like a neutral play cloth, so that translucent
# pieces look there as they do on the table.
FIELD_GREY = (186, 186, 186)
SPOT_FIELD = 30.0
SPOT_PITCH = 52.0
PALETTE_COLORS = ("red", "yellow", "blue", "green", "black",
                  "purple", "orange", "clear", "cyan", "white")


@dataclass(frozen=True)
class Marker:
    """A square ArUco marker: id, top-left corner (x, y) and side in mm, unrotated."""

    id: int
    x: float
    y: float
    side: float

    def corners(self) -> np.ndarray:
        """Its 4 corners in the order OpenCV reports them (clockwise from top-left), mm."""
        x, y, s = self.x, self.y, self.side
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float64)


@dataclass(frozen=True)
class Patch:
    """A printed reference rectangle of known colour."""

    name: str
    x: float
    y: float
    w: float
    h: float
    rgb: tuple

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2


@dataclass(frozen=True)
class Layout:
    """A printed calibration target. `area` is the play area (width, height) in mm."""

    name: str
    area: tuple[float, float]
    markers: tuple[Marker, ...]
    patches: tuple[Patch, ...] = ()
    spots: tuple[tuple[str, float, float], ...] = ()   # palette: (colour, x, y)
    sheets: tuple[tuple[str, float, float, float, float], ...] = field(default=())
    # sheets: printed pieces of paper (label, x, y, w, h) in table mm, for drawing and printing

    @property
    def on_paper(self) -> bool:
        """Whether the play area is the printed sheet itself (a sheet mat), not the cloth."""
        return self.name.startswith("sheet")

    def marker_points(self) -> dict[int, np.ndarray]:
        return {m.id: m.corners() for m in self.markers}

    def to_dict(self) -> dict:
        return {"name": self.name, "area": list(self.area),
                "markers": [[m.id, m.x, m.y, m.side] for m in self.markers],
                "patches": [[p.name, p.x, p.y, p.w, p.h, list(p.rgb)] for p in self.patches],
                "spots": [list(s) for s in self.spots],
                "sheets": [list(s) for s in self.sheets]}

    @classmethod
    def from_dict(cls, data: dict) -> "Layout":
        return cls(name=data["name"], area=tuple(data["area"]),
                   markers=tuple(Marker(int(i), x, y, s) for i, x, y, s in data["markers"]),
                   patches=tuple(Patch(n, x, y, w, h, tuple(rgb))
                                 for n, x, y, w, h, rgb in data["patches"]),
                   spots=tuple((c, x, y) for c, x, y in data["spots"]),
                   sheets=tuple(tuple(s) for s in data.get("sheets", ())))


def _grey_strip(x: float, y: float, side: float, vertical: bool) -> list[Patch]:
    """White, grey and black patches in a row (or column) starting at (x, y)."""
    out = []
    for i, (name, rgb) in enumerate(GREYS.items()):
        dx, dy = (0, i * side) if vertical else (i * side, 0)
        out.append(Patch(name, x + dx, y + dy, side, side, rgb))
    return out


def sheet_layout(paper: str) -> Layout:
    """A single printed mat (landscape): markers in the corners of the play area, which is the
    printable part of the sheet; grey and colour patches along the top edge between markers."""
    pw, ph = PAPERS[paper]
    w, h = pw - 2 * SHEET_MARGIN, ph - 2 * SHEET_MARGIN
    side = 30.0 if paper != "a3" else 40.0
    corners = ((0, 0), (w - side, 0), (w - side, h - side), (0, h - side))
    markers = tuple(Marker(i, x, y, side) for i, (x, y) in zip(AREA_IDS, corners))
    cell = 10.0
    patches = _grey_strip(side + 8, 2, cell, False)
    for i, (name, rgb) in enumerate(REFERENCE_COLOURS.items()):
        patches.append(Patch(name, side + 8 + (3 + i) * cell, 2, cell, cell, rgb))
    sheet = ("mat", -SHEET_MARGIN, -SHEET_MARGIN, pw, ph)
    return Layout(f"sheet-{paper}", (w, h), markers, tuple(patches), sheets=(sheet,))


def cards_layout(width: float, height: float) -> Layout:
    """Four corner cards around a play area of width x height mm: each card lies outside the
    area, its marker's inner corner CARD_GAP mm diagonally off the area's corner."""
    side, g = 40.0, CARD_GAP
    cw, ch = CARD
    markers, patches, sheets = [], [], []
    for mid, (cx, cy) in zip(AREA_IDS, ((0, 0), (width, 0), (width, height), (0, height))):
        sx = -1 if cx == 0 else 1
        sy = -1 if cy == 0 else 1
        mx = cx - g - side if sx < 0 else cx + g
        my = cy - g - side if sy < 0 else cy + g
        markers.append(Marker(mid, mx, my, side))
        # grey patches beside the marker, on the side away from the area
        px = mx - 12 if sx < 0 else mx + side + 2
        patches += [Patch(f"{p.name}{mid}", p.x, p.y, p.w, p.h, p.rgb)
                    for p in _grey_strip(px, my, 10.0, True)]
        card_x = cx - cw if sx < 0 else cx
        card_y = cy - ch if sy < 0 else cy
        sheets.append((f"card{mid}", card_x, card_y, cw, ch))
    return Layout(f"cards-{width:g}x{height:g}", (width, height), tuple(markers),
                  tuple(patches), sheets=tuple(sheets))


def palette_layout() -> Layout:
    """The A4 companion sheet for colour learning: its own corner markers and ten labelled spots,
    one per colour, where the user stands a pyramid of that colour."""
    base = sheet_layout("a4")
    w, h = base.area
    markers = tuple(Marker(pid, m.x, m.y, m.side) for pid, m in zip(PALETTE_IDS, base.markers))
    spots = []
    for i, colour in enumerate(PALETTE_COLORS):
        col, row = i % 5, i // 5
        spots.append((colour, w / 2 + (col - 2) * SPOT_PITCH, 78.0 + SPOT_PITCH * row))
    patches = _grey_strip(w / 2 - 15, 4, 10.0, False)
    return Layout("palette", (w, h), markers, tuple(patches), tuple(spots), base.sheets)


def draw(layout: Layout, px_per_mm: float, origin: tuple[float, float], size: tuple[int, int],
         image: np.ndarray | None = None, labels: bool = True) -> np.ndarray:
    """Paint `layout` as a top view: pixel (0, 0) is table point `origin`, `size` = (w, h) px.
    Sheets are white; markers, patches and spots are drawn on them. RGB uint8."""
    if image is None:
        image = np.full((size[1], size[0], 3), 255, np.uint8)

    def px(x: float, y: float) -> tuple[int, int]:
        return int(round((x - origin[0]) * px_per_mm)), int(round((y - origin[1]) * px_per_mm))

    for _, x, y, w, h in layout.sheets:
        cv2.rectangle(image, px(x, y), px(x + w, y + h), (255, 255, 255), -1)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    for m in layout.markers:
        x0, y0 = px(m.x, m.y)
        x1, y1 = px(m.x + m.side, m.y + m.side)
        tile = cv2.aruco.generateImageMarker(dictionary, m.id, x1 - x0, borderBits=1)
        _paste(image, tile[..., None].repeat(3, axis=2), x0, y0)
    for p in layout.patches:
        cv2.rectangle(image, px(p.x, p.y), px(p.x + p.w, p.y + p.h), p.rgb, -1)
    if layout.spots:
        xs, ys = [s[1] for s in layout.spots], [s[2] for s in layout.spots]
        cv2.rectangle(image, px(min(xs) - SPOT_FIELD, min(ys) - SPOT_FIELD),
                      px(max(xs) + SPOT_FIELD, max(ys) + SPOT_FIELD), FIELD_GREY, -1)
    for colour, x, y in layout.spots:
        cv2.circle(image, px(x, y), int(16 * px_per_mm), (202, 202, 202), max(1, int(px_per_mm * 0.6)))
        if labels:
            cv2.putText(image, colour, px(x - 14, y + 26), cv2.FONT_HERSHEY_SIMPLEX,
                        0.17 * px_per_mm, (202, 202, 202), max(1, int(px_per_mm * 0.4)), cv2.LINE_AA)
    return image


def _paste(image: np.ndarray, tile: np.ndarray, x0: int, y0: int) -> None:
    """Copy `tile` into `image` at (x0, y0), clipped to the image."""
    h, w = tile.shape[:2]
    ih, iw = image.shape[:2]
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, iw), min(y0 + h, ih)
    if xa < xb and ya < yb:
        image[ya:yb, xa:xb] = tile[ya - y0:yb - y0, xa - x0:xb - x0]
