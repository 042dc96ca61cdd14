"""Icehouse scores: each standing piece that is not iced and each attacker of an iced defender
scores its pips for its colour; a player in the icehouse scores 0."""
from __future__ import annotations

from referee.icehouse.attacks import Board
from referee.icehouse.options import IcehouseOptions
from referee.icehouse.players import Table
from referee.scene import Piece


def scores(board: Board, table: Table, opts: IcehouseOptions) -> dict[str, int]:
    """Points per player if the game ended now."""
    points = {c: 0 for c in table.players}

    def credit(piece: Piece) -> None:
        owner = table.played_by.get(piece.id, piece.color) if opts.score_for == "player" else piece.color
        points[owner] = points.get(owner, 0) + piece.size

    for defence in board.defences.values():
        if not defence.iced:
            credit(defence.piece)
        else:
            for attacker in defence.attackers:
                credit(attacker)
    for color in table.icehouse:
        points[color] = 0
    return points
