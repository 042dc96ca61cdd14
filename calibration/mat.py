"""Printable pages of the calibration targets, at true scale (PNG and PDF via Pillow)."""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Callable

import cv2
import numpy as np
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from calibration.enrol import KINDS as ENROL_PHOTOS, guide_sheet
from calibration.intrinsics import SQUARE_MM, board_image
from calibration.layout import (CARD, PAPERS, SHEET_MARGIN, Layout, cards_layout, draw,
                                palette_layout, sheet_layout)

MM_PER_INCH = 25.4
KINDS = ("a4", "letter", "a3", "cards", "palette", "charuco", "enrol")
EXTENSIONS = ("png", "pdf")
CREATOR = "icetable mat"    # in each page's PNG text and PDF info: the pages `mat` may replace
MARK_BYTES = 4096           # how much of each end of a file is searched for CREATOR


def _caption(image: np.ndarray, text: str, x: float, y: float, ppm: float) -> None:
    cv2.putText(image, text, (int(x * ppm), int(y * ppm)), cv2.FONT_HERSHEY_SIMPLEX,
                0.12 * ppm, (0, 0, 0), max(1, int(ppm * 0.25)), cv2.LINE_AA)


def _scale_bar(image: np.ndarray, x: float, y: float, ppm: float) -> None:
    """A 50 mm bar to check the print scale with a ruler."""
    p0, p1 = (int(x * ppm), int(y * ppm)), (int((x + 50) * ppm), int((y + 2) * ppm))
    cv2.rectangle(image, p0, p1, (0, 0, 0), -1)
    _caption(image, "50 mm", x + 52, y + 2.5, ppm)


def sheet_page(layout: Layout, paper: tuple[float, float], dpi: int, title: str) -> np.ndarray:
    """One page whose top-left corner is the layout's table point (-margin, -margin)."""
    ppm = dpi / MM_PER_INCH
    size = (int(round(paper[0] * ppm)), int(round(paper[1] * ppm)))
    page = draw(layout, ppm, (-SHEET_MARGIN, -SHEET_MARGIN), size)
    _caption(page, title + " - print at 100% (no fit-to-page)", SHEET_MARGIN + 45, paper[1] - 3, ppm)
    _scale_bar(page, SHEET_MARGIN + 45, paper[1] - SHEET_MARGIN - 14, ppm)
    return page


def card_page(mid: int, dpi: int) -> np.ndarray:
    """Corner card `mid` (0 top-left .. 3 bottom-left, clockwise) with its corner mark."""
    ppm = dpi / MM_PER_INCH
    layout = cards_layout(1000.0, 1000.0)
    label, x, y, w, h = layout.sheets[mid]
    page = draw(layout, ppm, (x, y), (int(round(w * ppm)), int(round(h * ppm))))
    # the play-area corner is one corner of the card: mark it with an L
    cx = 0 if x >= 0 else w
    cy = 0 if y >= 0 else h
    sx, sy = (1 if cx == 0 else -1), (1 if cy == 0 else -1)
    corner = (int(round(cx * ppm)), int(round(cy * ppm)))
    thick = max(2, int(ppm * 0.8))
    cv2.line(page, corner, (corner[0] + int(sx * 15 * ppm), corner[1]), (0, 0, 0), thick)
    cv2.line(page, corner, (corner[0], corner[1] + int(sy * 15 * ppm)), (0, 0, 0), thick)
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    _caption(page, f"icetable corner card {mid}: {names[mid]}", 3 if sx < 0 else 20, h - 3, ppm)
    cv2.rectangle(page, (0, 0), (page.shape[1] - 1, page.shape[0] - 1), (170, 170, 170), 1)
    return page


def _cards_sheet(dpi: int) -> np.ndarray:
    """All four cards on one A4 portrait page, with cut outlines."""
    ppm = dpi / MM_PER_INCH
    page = np.full((int(round(297 * ppm)), int(round(210 * ppm)), 3), 255, np.uint8)
    for mid in range(4):
        card = card_page(mid, dpi)
        x = int(round((12 + (mid % 2) * (CARD[0] + 6)) * ppm))
        y = int(round((15 + (mid // 2) * (CARD[1] + 10)) * ppm))
        page[y:y + card.shape[0], x:x + card.shape[1]] = card
    _scale_bar(page, 12, 160, ppm)
    _caption(page, "cut out the cards; put each card's L on a corner of the play area, card outside",
             12, 175, ppm)
    return page


def _makers(kind: str, dpi: int) -> dict[str, Callable[[], np.ndarray]]:
    """How to draw each page of one kind of target, by file stem (drawn only when called)."""
    if kind in PAPERS:
        return {f"mat-{kind}": partial(sheet_page, sheet_layout(kind), PAPERS[kind], dpi,
                                       f"icetable mat {kind.upper()}")}
    if kind == "palette":
        return {"palette": partial(sheet_page, palette_layout(), PAPERS["a4"], dpi,
                                   "icetable palette: stand one pyramid of each colour on its spot")}
    if kind == "charuco":
        return {"charuco": partial(_charuco_page, dpi)}
    if kind == "enrol":     # where the pieces go for each enrolment photo (a guide, not to scale)
        return {f"enrol-{photo}": partial(guide_sheet, photo) for photo in ENROL_PHOTOS}
    if kind == "cards":
        out = {f"card{mid}": partial(card_page, mid, dpi) for mid in range(4)}
        out["cards"] = partial(_cards_sheet, dpi)
        return out
    raise ValueError(f"unknown mat kind {kind!r} (one of {', '.join(KINDS)})")


def _charuco_page(dpi: int) -> np.ndarray:
    board = cv2.cvtColor(board_image(dpi / MM_PER_INCH), cv2.COLOR_GRAY2RGB)
    _caption(board, f"icetable ChArUco board: {SQUARE_MM:g} mm squares", 3, 8, dpi / MM_PER_INCH)
    return board


def pages(kind: str, dpi: int) -> dict[str, np.ndarray]:
    """The pages of one kind of target, by file stem."""
    return {stem: draw_page() for stem, draw_page in _makers(kind, dpi).items()}


def paths(kind: str, out_dir: Path) -> list[Path]:
    """The files `write` writes for a target kind into `out_dir`."""
    return [out_dir / f"{stem}.{ext}" for stem in _makers(kind, 72) for ext in EXTENSIONS]


def write(kind: str, out_dir: Path, dpi: int = 200) -> list[Path]:
    """Write PNG and PDF files of a target kind at `dpi`, each marked as made by icetable
    (`made_here`); returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    mark = PngInfo()
    mark.add_text("Software", CREATOR)
    for stem, draw_page in _makers(kind, dpi).items():
        image = Image.fromarray(draw_page())
        image.save(out_dir / f"{stem}.png", dpi=(dpi, dpi), pnginfo=mark)
        image.save(out_dir / f"{stem}.pdf", resolution=float(dpi), creator=CREATOR)
    return paths(kind, out_dir)


def made_here(path: Path) -> bool:
    """Whether `path` is a page an earlier `write` made: its PNG text or PDF creator (UTF-16,
    as Pillow writes it) names icetable. Only the file's ends are read."""
    try:
        with open(path, "rb") as f:
            head = f.read(MARK_BYTES)
            f.seek(max(0, f.seek(0, 2) - MARK_BYTES))
            tail = f.read()
    except OSError:
        return False
    return CREATOR.encode() in head or CREATOR.encode("utf-16-be") in tail
