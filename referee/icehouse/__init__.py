"""The Icehouse referee: judge a table of Looney pyramids (rules: shared/rules/icehouse.txt).

`evaluate(scene)` gives the report of SCENE.md; `call(scene, caller)` resolves an icehouse call.
"""
from __future__ import annotations

from referee import options as rule_options
from referee.dimensions import DEFAULT, Dimensions
from referee.icehouse.attacks import Attack, Board, judge
from referee.icehouse.calls import CallOutcome, resolve_call, vulnerable
from referee.icehouse.options import IcehouseOptions
from referee.icehouse.players import Table, read_table
from referee.icehouse.scoring import scores
from referee.report import Report, Warning
from referee.scene import Scene

__all__ = ["evaluate", "call", "IcehouseOptions", "CallOutcome"]

PROBLEM_TEXT = {
    "nothing": "points at nothing",
    "attacker": "points at an attacking piece",
    "own_color": "points at a piece of its own colour",
    "out_of_range": "is out of range",
    "ambiguous": "points exactly between two pieces",
}


def evaluate(scene: Scene, dims: Dimensions = DEFAULT, options=None) -> Report:
    """The report of an Icehouse table."""
    opts = rule_options.make(IcehouseOptions, options)
    board = judge(scene, dims, opts)
    table = read_table(scene, opts)
    report = Report("icehouse")
    report.warnings += _illegal_attack(scene, board, opts)
    report.warnings += _meltdowns(scene, table, opts)
    if not table.game_over:
        report.warnings += _over_iced(board)
        report.warnings += _vulnerable(board, table, opts)
    report.status = _status(scene, board, table)
    report.scores = scores(board, table, opts)
    return report


def call(scene: Scene, caller: str, dims: Dimensions = DEFAULT, options=None,
         penalty_to: str | None = None) -> CallOutcome:
    """Resolve `caller`'s call of "icehouse" on the table of `scene`."""
    opts = rule_options.make(IcehouseOptions, options)
    return resolve_call(judge(scene, dims, opts), read_table(scene, opts), caller, opts, penalty_to)


def _illegal_attack(scene: Scene, board: Board, opts: IcehouseOptions) -> list[Warning]:
    attack = board.attacks.get(scene.last)
    if attack is None or attack.valid:
        return []
    remedy = "must be taken back" if opts.illegal_placement == "take_back" else "stays, squandered"
    return [Warning("illegal_attack", f"{attack.piece.label()} {PROBLEM_TEXT[attack.problem]}: {remedy}",
                    (attack.piece.id,), color=attack.piece.color,
                    details={"problem": attack.problem})]


def _meltdowns(scene: Scene, table: Table, opts: IcehouseOptions) -> list[Warning]:
    pyramids = [p for p in scene.pieces if p.type == "pyramid"]
    out = []
    for color in table.players:
        mine = [p for p in pyramids if p.color == color]
        attackers = [p for p in mine if not p.standing]
        if attackers and _melted(mine, table.order, opts):
            out.append(Warning("meltdown", f"meltdown: {color} attacked before two defenders; "
                               f"take back every {color} attacker", tuple(p.id for p in attackers),
                               color=color))
    return out


def _melted(mine, order, opts: IcehouseOptions) -> bool:
    """Whether an attacker of this colour came before its second defender in `order`
    ("while_short": and the colour still has fewer than two defenders on the table)."""
    if order is None:
        return False
    by_id = {p.id: p for p in mine}
    placed = [by_id[pid] for pid in order if pid in by_id]
    if all(p.standing for p in placed[:2]):
        return False
    return opts.meltdown == "any_time" or sum(1 for p in mine if p.standing) < 2


def _over_iced(board: Board) -> list[Warning]:
    return [Warning("over_iced", f"{d.piece.label()} is over-iced: {d.piece.color} may capture one of "
                    + ", ".join(d.capturable), (d.piece.id, *d.capturable), color=d.piece.color,
                    details={"capturable": list(d.capturable)})
            for d in board.defences.values() if d.over_iced]


def _vulnerable(board: Board, table: Table, opts: IcehouseOptions) -> list[Warning]:
    return [Warning("icehouse_vulnerable", f"{c} has no free defender and {table.stash[c]} in stash: "
                    "open to an icehouse call", (), color=c,
                    details={"stash": table.stash[c], "stash_known": table.stash_known})
            for c in vulnerable(board, table, opts)]


def _status(scene: Scene, board: Board, table: Table) -> dict:
    return {
        "attackers": {pid: _attack_status(a, scene.last) for pid, a in board.attacks.items()},
        "defenders": {pid: {"iced": d.iced, "attackers": [a.id for a in d.attackers],
                            "over_iced": d.over_iced, "capturable": list(d.capturable)}
                      for pid, d in board.defences.items()},
        "free_defenders": {c: board.free_defenders(c) for c in table.players},
        "stash": table.stash,
        "icehouse": sorted(table.icehouse),
        "game_over": table.game_over,
    }


def _attack_status(attack: Attack, last: str | None) -> dict:
    out = {"target": attack.target.id if attack.target else None, "problem": attack.problem,
           "gap": None if attack.gap is None else round(attack.gap, 2),
           "squandered": attack.problem is not None and attack.piece.id != last}
    if attack.between:
        out["between"] = list(attack.between)
    return out
