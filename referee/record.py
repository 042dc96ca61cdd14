"""Game records: JSON Lines, one header line then one action per line (docs/records.md).

    {"record": "icetable-record/1", "game": "icefloe", "players": [...], "seed": 7, "options": {}}
    {"seq": 1, "player": "suns", "action": {...}, "scene": {...optional scene after it}}

`replay(path)` re-runs a record through the referee of its game.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from referee.match import GAMES, IllegalAction, Match, new_match
from referee.options import OptionError
from referee.scene import Scene, SceneError, scene_from_dict

RECORD_FORMAT = "icetable-record/1"


class RecordError(ValueError):
    """A malformed record file; the message is one line naming the file and line."""


@dataclass(frozen=True)
class Step:
    """One action line of a record."""

    line: int
    seq: int
    player: str
    action: dict
    scene: Scene | None = None

    def to_dict(self) -> dict:
        out = {"seq": self.seq, "player": self.player, "action": self.action}
        if self.scene is not None:
            out["scene"] = self.scene.to_dict()
        return out


@dataclass
class Record:
    """A decoded record: its header and its steps."""

    header: dict
    steps: list[Step] = field(default_factory=list)


@dataclass
class ReplayResult:
    """What a replay found: the verdict of each step, the match, and the first illegal step."""

    header: dict
    match: Match
    verdicts: list[tuple[Step, dict]] = field(default_factory=list)
    illegal: tuple[Step, str] | None = None

    @property
    def ok(self) -> bool:
        return self.illegal is None


def make_header(game: str, players: list[str], seed: int = 0, options: dict | None = None) -> dict:
    """The header line of a record."""
    return {"record": RECORD_FORMAT, "game": game, "players": list(players), "seed": seed,
            "options": dict(options or {})}


def step_line(seq: int, action: dict, scene: Scene | dict | None = None) -> str:
    """One action line (no newline); `scene` is the table after the action, if seen."""
    out = {"seq": seq, "player": action.get("player"), "action": action}
    if scene is not None:
        out["scene"] = scene.to_dict() if isinstance(scene, Scene) else scene
    return json.dumps(out, separators=(",", ":"))


def write_record(path: str | Path, header: dict, steps: list) -> None:
    """Write a record. Each step is an action dict, or `{"action": ..., "scene": ...}`."""
    lines = [json.dumps(header, separators=(",", ":"))]
    for seq, step in enumerate(steps, start=1):
        if isinstance(step, Step):
            step = {"action": step.action, "scene": step.scene}
        if "action" in step and "type" not in step:
            lines.append(step_line(seq, step["action"], step.get("scene")))
        else:
            lines.append(step_line(seq, step))
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_record(path: str | Path) -> Record:
    """Decode and check the shape of a record file; RecordError names the line."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"{source}: cannot read file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise RecordError(f"{source}: not a UTF-8 text file") from None
    numbered = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not numbered:
        raise RecordError(f"{source}: empty file, expected a header line")
    record = Record(_header(source, *numbered[0]))
    for n, line in numbered[1:]:
        record.steps.append(_step(source, n, line, len(record.steps) + 1, record.header["game"]))
    return record


def _json(source: str, n: int, line: str) -> dict:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source}:{n}: bad JSON at column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{source}:{n}: a line must be a JSON object")
    return data


def _header(source: str, n: int, line: str) -> dict:
    data = _json(source, n, line)
    if data.get("record") != RECORD_FORMAT:
        raise RecordError(f"{source}:{n}: field 'record': expected {RECORD_FORMAT!r}, "
                          f"got {data.get('record')!r}")
    if data.get("game") not in GAMES:
        raise RecordError(f"{source}:{n}: field 'game': unknown game {data.get('game')!r} "
                          f"(one of {', '.join(sorted(GAMES))})")
    players = data.get("players")
    if not isinstance(players, list) or not players or not all(isinstance(p, str) for p in players):
        raise RecordError(f"{source}:{n}: field 'players': expected a list of names")
    seed = data.setdefault("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError(f"{source}:{n}: field 'seed': expected an integer, got {seed!r}")
    if not isinstance(data.setdefault("options", {}), dict):
        raise RecordError(f"{source}:{n}: field 'options': expected an object")
    return data


def _step(source: str, n: int, line: str, expected_seq: int, game: str) -> Step:
    data = _json(source, n, line)
    if data.get("seq") != expected_seq:
        raise RecordError(f"{source}:{n}: field 'seq': expected {expected_seq}, got {data.get('seq')!r}")
    action = data.get("action")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise RecordError(f"{source}:{n}: field 'action': expected an object with a 'type'")
    player = data.get("player", action.get("player"))
    if player != action.get("player"):
        raise RecordError(f"{source}:{n}: field 'player': {player!r} differs from the action's "
                          f"{action.get('player')!r}")
    scene = None
    if data.get("scene") is not None:
        try:
            scene = scene_from_dict(data["scene"], f"{source}:{n}: scene")
        except SceneError as exc:
            raise RecordError(str(exc)) from None
        if scene.game != game:
            raise RecordError(f"{source}:{n}: scene of game {scene.game!r} in a {game} record")
    return Step(n, expected_seq, player, action, scene)


def start(record: Record, source: str = "<record>") -> Match:
    """The match a record's header describes; RecordError on bad players or options."""
    h = record.header
    try:
        return new_match(h["game"], h["players"], seed=h["seed"], options=h["options"])
    except (OptionError, ValueError) as exc:
        raise RecordError(f"{source}: header: {exc}") from None


def replay(path: str | Path) -> ReplayResult:
    """Re-run a record through the referee; stops at the first illegal step."""
    record = read_record(path)
    match = start(record, str(path))
    result = ReplayResult(record.header, match)
    for step in record.steps:
        try:
            result.verdicts.append((step, match.apply(step.action, step.scene)))
        except IllegalAction as exc:
            result.illegal = (step, str(exc))
            break
    return result
