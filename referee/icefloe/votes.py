"""One sealed IceFloe vote (number or suit): ballots, voting coins, tally and leaders."""
from __future__ import annotations

from dataclasses import dataclass, field

COIN_WEIGHT = {"ace": 1, "two": 2}


@dataclass
class Vote:
    """Ballots are secret until every player has voted; `valid` are the options still on the board."""

    stage: str                      # "number" or "suit"
    valid: tuple                    # options a ballot may count for
    ballots: dict = field(default_factory=dict)       # player -> value
    coins: list = field(default_factory=list)         # {"player", "coins", "value"}
    result: object = None
    tie_break: bool = False

    def void(self) -> list[str]:
        """Players whose ballot names a value no longer on the board."""
        return [p for p, v in self.ballots.items() if v not in self.valid]

    def voted_options(self) -> list:
        """Options that received at least one valid ballot, in board order."""
        return [v for v in self.valid if v in self.ballots.values()]

    def tally(self) -> dict:
        """Option -> valid ballots plus coin weight."""
        out = {v: 0 for v in self.voted_options()}
        for value in self.ballots.values():
            if value in out:
                out[value] += 1
        for added in self.coins:
            out[added["value"]] += sum(COIN_WEIGHT[c] for c in added["coins"])
        return out

    def leaders(self) -> list:
        """The options with the highest tally (several = a tie; none = every ballot void)."""
        tally = self.tally()
        if not tally:
            return []
        top = max(tally.values())
        return [v for v, n in tally.items() if n == top]

    def revealed(self) -> dict:
        """The public record of the vote after the reveal."""
        return {"stage": self.stage, "ballots": dict(self.ballots), "void": self.void(),
                "coins": list(self.coins), "tally": [[v, n] for v, n in self.tally().items()],
                "result": self.result, "tie_break": self.tie_break}
