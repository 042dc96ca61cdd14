"""How pale the table is next to the mat's white paper and to white plastic, and the warning a
pale table earns.

White and clear pyramids and piecepack tiles are found by being brighter than the table. On a
table nearly as pale as white paper their faces look like the table. On the committed and five
held-out rendered sets, 22 of 197 white and clear pyramids were misread on tables at 78 % of the
paper's level or more, 8 of 133 at 76 to 78 %, and 7 of 372 below 76 % (docs/vision-log.md,
"Calibration"). Under light from overhead a white pyramid's faces, turned from it, can be
darker than a mid-grey table: on 3 of 14 photoreal train sessions (laminate under a ceiling
panel, the table at 71-75 % of the paper) the palette's white pyramid was at 0.81-0.98 of the
table's level.
"""
from __future__ import annotations

import numpy as np

from calibration.homography import PlaneFit
from calibration.layout import Layout

PALE_TABLE = 0.78     # table level / white paper level (camera levels) above which to warn
GRID = (15, 12)       # table points sampled across the play area (pieces on it do not matter)
INSET = 20.0          # mm kept clear of the area's edge (markers, cards)
WHITE_OVER_TABLE = 1.1  # white plastic / table level below which white pieces are hard to see
                        # (the segmentation's "brighter than the table" bar is 10 %)
SPOT_REACH = 5.0      # mm around a palette spot's centre: the faces of the pyramid standing on it


def _levels(frame: np.ndarray, points: np.ndarray, r: int) -> list[float]:
    """Median grey level (mean of B, G, R) of a (2r+1)-pixel square at each image point inside
    the frame."""
    h, w = frame.shape[:2]
    out = []
    for x, y in np.round(points).astype(int):
        if r <= x < w - r and r <= y < h - r:
            out.append(float(np.median(frame[y - r:y + r + 1, x - r:x + r + 1].mean(axis=2))))
    return out


def table_paleness(frame: np.ndarray, fit: PlaneFit, layout: Layout) -> float | None:
    """The play area's level as a share of the mat's white patches' (1.0: as pale as paper), or
    None when no white patch is in view."""
    whites = [p.centre for p in layout.patches if p.name.startswith("white")]
    paper = _levels(frame, fit.to_image(np.array(whites)), 2) if whites else []
    w, h = layout.area
    gx, gy = np.meshgrid(np.linspace(INSET, w - INSET, GRID[0]), np.linspace(INSET, h - INSET, GRID[1]))
    table = _levels(frame, fit.to_image(np.column_stack([gx.ravel(), gy.ravel()])), 0)
    if not paper or not table:
        return None
    return float(np.median(table)) / max(1.0, float(np.median(paper)))


def plastic_paleness(frame: np.ndarray, fit: PlaneFit, layout: Layout, colour: str = "white") -> float | None:
    """The level of the pyramid standing on `colour`'s spot of the palette sheet (its faces
    within SPOT_REACH of the spot's centre, as the camera sees them under this light) as a share
    of the sheet's white patches', or None when the spot or no white patch is in view."""
    whites = [p.centre for p in layout.patches if p.name.startswith("white")]
    spot = [(x, y) for name, x, y in layout.spots if name == colour]
    if not whites or not spot:
        return None
    paper = _levels(frame, fit.to_image(np.array(whites)), 2)
    gx, gy = np.meshgrid(np.linspace(-SPOT_REACH, SPOT_REACH, 7), np.linspace(-SPOT_REACH, SPOT_REACH, 7))
    plastic = _levels(frame, fit.to_image(np.column_stack([gx.ravel(), gy.ravel()]) + spot[0]), 0)
    if not paper or not plastic:
        return None
    return float(np.median(plastic)) / max(1.0, float(np.median(paper)))


def pale_table_warning(paleness: float | None, layout: Layout, white: float | None = None) -> str | None:
    """One line for the user when the table is too pale for white pieces, else None: paler
    than PALE_TABLE of the paper, or (`white`: `plastic_paleness` of the palette photo) white
    plastic under this light less than WHITE_OVER_TABLE times as bright as the table."""
    if paleness is None:
        return None
    advice = ("use the corner cards (--mat cards) on a darker cloth" if layout.on_paper
              else "a darker cloth helps")
    if white is not None and white < paleness * WHITE_OVER_TABLE:
        return (f"warning: white plastic is not clearly brighter than the table under this light (the "
                f"palette's white pyramid at {100 * white:.0f} % of the paper's level, the table at "
                f"{100 * paleness:.0f} %): white pyramids may be missed or misread; {advice}, or light "
                "from the side")
    if paleness <= PALE_TABLE:
        return None
    return (f"warning: the table is {100 * paleness:.0f} % as bright as the mat's white paper (above "
            f"{100 * PALE_TABLE:.0f} %): white and clear pyramids and piecepack tiles may be missed or "
            f"misread; {advice}")
