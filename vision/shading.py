"""How much of the brightness over some pixels a piece's faces explain.

Each face of an opaque piece is evenly lit: split the pixels it covers by the face they lie on,
and the faces' mean levels account for most of the level's variance when the faces are where
the piece really is. Regions are numbered 1.. (0: no face), as `PyramidFitter.faces` draws them.
"""
from __future__ import annotations

import numpy as np


class Shading:
    """The level of the `valid` pixels of a crop, against which regions are judged."""

    def __init__(self, level: np.ndarray, valid: np.ndarray):
        self.valid = valid
        self.values = level[valid].astype(np.float64)
        self.mean = float(self.values.mean()) if len(self.values) else 0.0
        self.spread = float(((self.values - self.mean) ** 2).sum()) or 1.0

    def explained(self, regions: np.ndarray) -> float:
        """The share of the level's variance the regions' means explain (region 0, the rest,
        is one group too)."""
        inside = regions[self.valid]
        groups = int(inside.max(initial=0)) + 1
        count = np.bincount(inside, minlength=groups)
        total = np.bincount(inside, weights=self.values, minlength=groups)
        seen = count > 0
        return float(((total[seen] - count[seen] * self.mean) ** 2 / count[seen]).sum()) / self.spread
