"""`icetable replay RECORD.jsonl`: re-run a game record through the referee."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from icetable import checks
from icetable.cli import UserError
from referee.record import RecordError, replay
from referee.scene import SCENE_FORMAT


def register(sub) -> None:
    p = sub.add_parser("replay", help="re-run a game record (JSON Lines) through the referee")
    p.add_argument("record", help="record file (docs/records.md)")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the outcome")
    p.set_defaults(run=run)


def run(args) -> int:
    try:
        with checks.deep_json(args.record):
            result = replay(args.record)
    except RecordError as exc:
        if checks.json_with(Path(args.record), lambda d: d.get("format") == SCENE_FORMAT):
            raise UserError(f"{args.record}: a scene file, not a game record (JSON Lines, docs/records.md); "
                            f"`icetable check` reads scenes") from None
        raise UserError(str(exc)) from None
    if not args.quiet:
        for step, verdict in result.verdicts:
            print(_step_text(step, verdict))
    match = result.match
    if result.illegal:
        step, reason = result.illegal
        print(f"{args.record}:{step.line}: illegal step {step.seq} by {step.player}: {reason}",
              file=sys.stderr)
    scores = match.scores()
    print("scores: " + ", ".join(f"{p} {scores.get(p, 0)}" for p in match.players))
    if match.is_over():
        print("winner: " + (", ".join(match.winner() or []) or "none"))
    else:
        print(f"game not over after {len(result.verdicts)} step(s)")
    return 1 if result.illegal else 0


def _step_text(step, verdict: dict) -> str:
    action = {k: v for k, v in step.action.items() if k not in ("player", "type")}
    parts = [f"{step.seq:>4} {step.player} {step.action['type']}"]
    if action:
        parts.append(json.dumps(action, separators=(",", ":")))
    for event in verdict.get("events", []):
        parts.append(f"| {event.get('text', event.get('type'))}")
    for warning in verdict.get("warnings", []):
        parts.append(f"! [{warning.get('code')}] {warning.get('message')}")
    return " ".join(parts)
