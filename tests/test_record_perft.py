"""Perft-style counts of legal actions for fixed positions (tests/data/perft/*.jsonl).

Each line: a position (`IceFloeMatch.from_position` / `IcebergMatch.from_position` arguments, or
a new match), actions applied to it, and `perft`: depth -> number of action sequences of that
length, summed over every player allowed to act at each node. Counts marked "by hand" in a
line's note were counted on paper; the others guard against unnoticed changes of the rules.
"""
import copy
import json
from pathlib import Path

import pytest

from referee.iceberg import IcebergMatch
from referee.icefloe import IceFloeMatch
from referee.match import new_match

DATA = Path(__file__).parent / "data" / "perft"
MAKERS = {"icefloe": IceFloeMatch.from_position, "iceberg": IcebergMatch.from_position}


def perft(match, depth: int) -> int:
    """Action sequences of `depth` actions from `match` (state unchanged)."""
    moves = [a for p in match.to_act() for a in match.legal_actions(p)]
    if depth == 1:
        return len(moves)
    total = 0
    for action in moves:
        child = copy.deepcopy(match)
        child.apply(action)
        total += perft(child, depth - 1)
    return total


def position(case: dict):
    if "position" in case:
        match = MAKERS[case["game"]](case["players"], **case["position"])
    else:
        match = new_match(case["game"], case["players"], seed=case.get("seed", 0), options=case.get("options"))
    for action in case.get("actions", []):
        match.apply(action)
    return match


CASES = [json.loads(line) for path in sorted(DATA.glob("*.jsonl"))
         for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_perft(case):
    match = position(case)
    for depth, count in case["perft"].items():
        assert perft(match, int(depth)) == count, f"{case['id']} depth {depth}"
