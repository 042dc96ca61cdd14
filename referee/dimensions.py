"""Physical sizes of the pieces in mm (defaults of SCENE.md; a user's set may override them)."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

PP_LETTERS = ("A", "B", "C", "D", "E", "F")


@dataclass(frozen=True)
class Dimensions:
    """Sizes of one set of pieces. Looney sizes are keyed by pips, piecepack pyramids by letter."""

    looney_base: dict = field(default_factory=lambda: {1: 14.29, 2: 19.84, 3: 25.40})
    looney_height: dict = field(default_factory=lambda: {1: 25.40, 2: 34.93, 3: 44.45})
    looney_lying_length: dict = field(default_factory=lambda: {1: 26.39, 2: 36.31, 3: 46.23})
    pp_pyramid_base: dict = field(default_factory=lambda: dict(zip(
        PP_LETTERS, (12.70, 14.45, 16.19, 17.94, 19.68, 21.43))))
    pp_pyramid_height: dict = field(default_factory=lambda: dict(zip(
        PP_LETTERS, (18.48, 21.02, 23.57, 26.11, 28.65, 31.19))))
    tile: float = 50.8
    tile_thickness: float = 6.35
    coin: float = 19.05
    die: float = 12.7
    pawn: float = 12.7
    chit: float = 12.7

    def lying_half_angle(self, size: int) -> float:
        """Half the apex angle (radians) of a lying Looney pyramid's footprint triangle."""
        return math.atan2(self.looney_base[size] / 2, self.looney_lying_length[size])

    def with_overrides(self, data: dict) -> "Dimensions":
        """A copy with the fields of `data` replaced (dict fields merged key by key)."""
        known = {f.name for f in fields(self)}
        changes = {}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"unknown dimension {key!r}")
            current = getattr(self, key)
            if isinstance(current, dict):
                merged = dict(current)
                for k, v in value.items():
                    merged[int(k) if isinstance(next(iter(current)), int) else k] = float(v)
                changes[key] = merged
            else:
                changes[key] = float(value)
        return replace(self, **changes)


DEFAULT = Dimensions()


def load_dimensions(path: str | Path) -> Dimensions:
    """Read a JSON file of overrides (same field names as `Dimensions`)."""
    with open(path, encoding="utf-8") as fh:
        return DEFAULT.with_overrides(json.load(fh))
