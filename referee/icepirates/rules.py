"""Ice Pirates constants and rule options (docs/rulings/icepirates.md explains each option)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from referee.options import OptionError

ACTIONS_PER_TURN = 3
# Steps per move action, by ship size (pips): Large 1, Medium 2, Small 4.
STEPS = {3: 1, 2: 2, 1: 4}
# What a hold may carry: the sizes of cargo allowed at once, by ship size.
HOLDS = {1: (), 2: (1,), 3: (2, 1)}
# Treasure value of a piece of the treasure colour, by size (a Large is worth nothing).
TREASURE_VALUE = {1: 1, 2: 2, 3: 0}
TOTAL_TREASURE = 15
# The two opaque stashes the treasure islands are made of, when a scene does not name them.
ISLAND_COLORS = ("black", "white")


def win_threshold(players: int) -> int:
    """Treasure needed to win: more than an equal share of the 15 (2p 8, 3p 6, 4p 4, 5p 4)."""
    if not 2 <= players <= 5:
        raise ValueError(f"Ice Pirates is for 2 to 5 players, not {players}")
    return math.floor(TOTAL_TREASURE / players) + 1


@dataclass(frozen=True)
class IcePiratesOptions:
    """Rule options. Every threshold answers No within its safety margin."""

    margin: float = 1.0            # mm: contact, docking gap, cannon area, line of fire
    angle_margin: float = 1.0      # degrees: kept off the steepest legal step turn
    pose_tolerance: float = 4.0    # mm: how far a placed ship may be from an exact step pose
    cannon_slide: str = "slide"    # the Large template slides along the side, or is "centred"
    cannon_hit: str = "part"       # "part" of the target in the area, or its "whole" footprint
    friendly_fire: bool = False    # may a ship fire at its own colour's ships
    reach: bool = False            # add each ship's reachable area to the report
    reach_samples: int = 7         # headings sampled per step when drawing reachable areas

    CHOICES = {"cannon_slide": ("slide", "centred"), "cannon_hit": ("part", "whole")}

    def __post_init__(self):
        for name in ("margin", "angle_margin", "pose_tolerance"):
            if getattr(self, name) < 0:
                raise OptionError(f"option {name!r} must not be negative")
        if self.reach_samples < 2:
            raise OptionError("option 'reach_samples' must be at least 2")
