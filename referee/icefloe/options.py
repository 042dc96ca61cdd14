"""Rule options of IceFloe: contested readings of the rules (docs/rulings/icefloe.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class IceFloeOptions:
    """Contested readings of the IceFloe rules (docs/rulings/icefloe.md)."""

    midway_weight: str = "limit"       # a two-hop move's first landing cracks an overloaded floe ("limit") or is "ignore"d
    all_void: str = "torch_bearer"     # every ballot void: Torch Bearer picks, or "no_removal"
    lost_all_ends: str = "at_once"     # a player without pyramids ends the game "at_once" or at "end_of_round"
    CHOICES: ClassVar[dict] = {"midway_weight": ("limit", "ignore"),
                               "all_void": ("torch_bearer", "no_removal"),
                               "lost_all_ends": ("at_once", "end_of_round")}
