"""The icehouse rule: who is vulnerable, and what a call of "icehouse" does."""
from __future__ import annotations

from dataclasses import dataclass

from referee.icehouse.attacks import Board
from referee.icehouse.options import IcehouseOptions
from referee.icehouse.players import Table


def vulnerable(board: Board, table: Table, opts: IcehouseOptions) -> list[str]:
    """Colours with no free defender and fewer than the stash limit on their pad."""
    return [c for c in table.players
            if c not in table.icehouse
            and board.free_defenders(c) == 0 and table.stash[c] < opts.stash_limit]


@dataclass(frozen=True)
class CallOutcome:
    """The result of a call: `kind` is "true", "false" or "self"."""

    kind: str
    caller: str
    icehoused: tuple[str, ...]
    transfers: tuple[tuple[str, str, int], ...]  # (from colour, to colour, pieces)
    stash: dict[str, int]
    message: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "caller": self.caller, "icehoused": list(self.icehoused),
                "transfers": [{"from": f, "to": t, "pieces": n} for f, t, n in self.transfers],
                "stash": self.stash, "message": self.message}


def resolve_call(board: Board, table: Table, caller: str, opts: IcehouseOptions,
                 penalty_to: str | None = None) -> CallOutcome:
    """Examine every player when `caller` calls "icehouse".

    Every vulnerable player other than the caller goes to the icehouse and hands his whole stash
    to the caller. A vulnerable caller goes in himself and keeps his pieces. A call that finds
    nobody is false: the caller gives one piece of his stash to `penalty_to` (his choice).
    """
    if caller not in table.players:
        raise ValueError(f"{caller!r} is not a player at this table")
    stash = dict(table.stash)
    found = vulnerable(board, table, opts)
    others = [c for c in found if c != caller]
    transfers = []
    for victim in others:
        if stash[victim]:
            transfers.append((victim, caller, stash[victim]))
            stash[caller] += stash[victim]
            stash[victim] = 0
    if caller in found:
        kind = "self"
        message = f"{caller} called icehouse on themself: score 0, keeps their pieces"
    elif others:
        kind = "true"
        message = f"{', '.join(others)} in the icehouse: stash to {caller}"
    else:
        kind = "false"
        message = f"false call by {caller}: nobody is in the icehouse"
        if penalty_to is not None and stash[caller]:
            if penalty_to not in stash or penalty_to == caller:
                raise ValueError(f"{penalty_to!r} cannot receive the penalty piece")
            transfers.append((caller, penalty_to, 1))
            stash[caller] -= 1
            stash[penalty_to] += 1
    return CallOutcome(kind, caller, tuple(found), tuple(transfers), stash, message)
