"""Rule options of Iceberg: readings of the lost figures (docs/rulings/iceberg.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from referee.iceberg.board import BUMPS, STARTS


@dataclass(frozen=True)
class IcebergOptions:
    """Readings of the lost figures and the open points (docs/rulings/iceberg.md)."""

    start: str = "corners"          # start positions: outer "corners" or "inner" (around the hole)
    open_side: str = "edge_or_gap"  # an open side: no tile there ("edge_or_gap") or a hole only ("gap_only")
    bump: str = "diagonal"          # coins of a flipped tile go "diagonal"ly outward or "pinwheel"
    connect: str = "orthogonal"     # tiles hold together by sides ("orthogonal") or corners too ("diagonal")
    tiles: str = "table"            # a flip shows the real tile's face ("table") or the match's "shuffle"
    die: str = "table"              # a roll is the real die's face ("table") or the match's "virtual" die
    CHOICES: ClassVar[dict] = {"start": tuple(STARTS), "open_side": ("edge_or_gap", "gap_only"),
                               "bump": tuple(BUMPS), "connect": ("orthogonal", "diagonal"),
                               "tiles": ("table", "shuffle"), "die": ("table", "virtual")}
