"""The report of SCENE.md: warnings, per-game status and scores."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

REPORT_FORMAT = "icetable-report/1"


@dataclass(frozen=True)
class Warning:
    """One thing the players should hear. `code` is stable, `message` is for people."""

    code: str
    message: str
    pieces: tuple[str, ...] = ()
    color: str | None = None
    suit: str | None = None
    details: dict = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"code": self.code, "pieces": list(self.pieces), "message": self.message}
        if self.color is not None:
            out["color"] = self.color
        if self.suit is not None:
            out["suit"] = self.suit
        out.update(self.details)
        return out


@dataclass
class Report:
    """What the referee says about one scene."""

    game: str
    warnings: list[Warning] = field(default_factory=list)
    status: dict = field(default_factory=dict)
    scores: dict = field(default_factory=dict)

    def codes(self) -> list[str]:
        return [w.code for w in self.warnings]

    def to_dict(self) -> dict:
        return {
            "format": REPORT_FORMAT,
            "game": self.game,
            "warnings": [w.to_dict() for w in self.warnings],
            "status": self.status,
            "scores": self.scores,
        }

    def to_text(self) -> str:
        """A readable summary: one line per warning, then the scores."""
        lines = [f"{self.game}: {len(self.warnings)} warning(s)"]
        lines += [f"  [{w.code}] {w.message}" for w in self.warnings]
        if self.scores:
            lines.append("scores: " + ", ".join(f"{k} {v}" for k, v in self.scores.items()))
        return "\n".join(lines)
