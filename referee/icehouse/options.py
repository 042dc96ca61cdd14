"""Contested readings of the Icehouse rules, each a named option (see docs/rulings/icehouse.md)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IcehouseOptions:
    """Rule options with their defaults."""

    # How the gap between attacker and target is measured: "footprint" (closest points of the two
    # pieces, the 1991 text), "tip" (tip to the nearest point of the target), "ray" (along the line).
    range_measure: str = "footprint"
    # "strict": in range when the gap is less than the attacker's length (1991 text);
    # "inclusive": at most its length (Overview).
    range_rule: str = "strict"
    # Measurement tolerance in mm: strict needs gap < length - tol, inclusive allows length + tol.
    range_tolerance: float = 0.5
    # A line passing within this many mm of a piece meets it.
    line_tolerance: float = 0.3
    # A piece the line only grazes (less than graze_chord mm of the line inside it):
    # "hits" stops the line there, "passes" lets it through.
    graze: str = "hits"
    graze_chord: float = 1.0
    # A line meeting two pieces at the same point (the seam of touching pieces):
    # "none" points at neither (ambiguous), "deeper" picks the piece the line goes deeper into.
    seam: str = "none"
    # An attacker placed illegally: "take_back" (1991 Rules) or "squander" (Q&A: it stays, scores 0).
    illegal_placement: str = "take_back"
    # Meltdown: "any_time" (1991 text, "The first two pyramids of each color ... MUST be
    # defensive": any attacker placed before the colour's second defender, needs state.order) or
    # "while_short" (Q&A: only until the colour has two defenders down).
    meltdown: str = "any_time"
    # A played prisoner scores for its "color" (the rules' advice to execute prisoners) or for the
    # "player" who played it (state.played_by: {piece id: colour}).
    score_for: str = "color"
    # Pieces on a stash pad at the start, per colour, when state.stash is not given.
    pieces_per_colour: int = 15
    stash_limit: int = 8

    CHOICES = {
        "range_measure": ("footprint", "tip", "ray"),
        "range_rule": ("strict", "inclusive"),
        "graze": ("hits", "passes"),
        "seam": ("none", "deeper"),
        "illegal_placement": ("take_back", "squander"),
        "meltdown": ("any_time", "while_short"),
        "score_for": ("color", "player"),
    }
