"""The scene of SCENE.md: load, validate and write what lies on the table.

A malformed scene raises `SceneError`, whose message is one line naming the file, the piece id
and the field.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCENE_FORMAT = "icetable-scene/1"
GAMES = ("icehouse", "icefloe", "iceberg", "icepirates")
COLORS = ("red", "yellow", "blue", "green", "black", "purple", "orange", "clear", "cyan", "white")
SUITS = ("suns", "moons", "crowns", "arms")
RANKS = (0, 1, 2, 3, 4, 5)
PP_SIZES = ("A", "B", "C", "D", "E", "F")
POSES = ("standing", "lying")

# Fields every piece of a type must carry, beyond id, type, x, y.
REQUIRED = {
    "pyramid": ("color", "size", "pose"),
    "pp_pyramid": ("suit", "size"),
    "tile": ("face",),
    "coin": ("face",),
    "die": ("suit", "rank"),
    "pawn": ("suit",),
    "card": ("owner", "width", "height", "angle"),
    "chit": (),
}
KNOWN = ("id", "type", "x", "y", "color", "size", "pose", "heading", "angle", "suit", "rank",
         "face", "owner", "width", "height", "on", "nested", "confidence")


def tenth_degree(angle: float) -> float:
    """An angle rounded to 0.1 degree, in [0, 360): 359.96 rounds to 360.0, which the contract
    refuses."""
    return round(angle, 1) % 360


class SceneError(ValueError):
    """A scene that does not follow SCENE.md."""

    def __init__(self, source: str, problem: str, piece: str | None = None, fld: str | None = None):
        where = [source]
        if piece is not None:
            where.append(f"piece {piece!r}")
        if fld is not None:
            where.append(f"field {fld!r}")
        super().__init__(": ".join(where + [problem]))
        self.source, self.piece, self.field, self.problem = source, piece, fld, problem


@dataclass(frozen=True)
class Piece:
    """One object on the table. Fields not used by a type stay None; unknown fields go in `extra`."""

    id: str
    type: str
    x: float
    y: float
    color: str | None = None
    size: int | str | None = None
    pose: str | None = None
    heading: float | None = None
    angle: float | None = None
    suit: str | None = None
    rank: int | None = None
    face: str | None = None
    owner: str | None = None
    width: float | None = None
    height: float | None = None
    on: str | None = None
    nested: tuple | None = None
    confidence: float | None = None
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def standing(self) -> bool:
        return self.pose != "lying"

    def to_dict(self) -> dict:
        """The JSON object of SCENE.md (None fields left out, extensions kept)."""
        out = {k: v for k, v in asdict(self).items() if v is not None and k != "extra"}
        if self.nested is not None:
            out["nested"] = list(self.nested)
        out.update(self.extra)
        return out

    def label(self) -> str:
        """A short human name, e.g. 'red 3' or 'suns 4 tile'."""
        if self.type == "pyramid":
            return f"{self.color} {self.size}"
        if self.type == "pp_pyramid":
            return f"{self.suit} {self.size}"
        return f"{self.type} {self.id}"


@dataclass(frozen=True)
class Scene:
    """A table: the game, the play area, the pieces, the last piece placed and the game state."""

    game: str
    pieces: tuple[Piece, ...]
    area: tuple[float, float] | None = None
    last: str | None = None
    state: dict = field(default_factory=dict, compare=False)
    extra: dict = field(default_factory=dict, compare=False)

    def by_id(self) -> dict[str, Piece]:
        return {p.id: p for p in self.pieces}

    def of_type(self, *types: str) -> list[Piece]:
        return [p for p in self.pieces if p.type in types]

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"format": SCENE_FORMAT, "game": self.game}
        if self.area is not None:
            out["area"] = {"width": self.area[0], "height": self.area[1]}
        out["pieces"] = [p.to_dict() for p in self.pieces]
        if self.last is not None:
            out["last"] = self.last
        if self.state:
            out["state"] = self.state
        out.update(self.extra)
        return out


def load_scene(path: str | Path, text: str | None = None) -> Scene:
    """Read a scene file (`-` or `text` given: parse that text, named `path` in errors)."""
    source = str(path)
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise SceneError(source, f"cannot read file ({exc.strerror or exc})") from None
        except UnicodeDecodeError:
            raise SceneError(source, "not a UTF-8 text file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SceneError(source, f"bad JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    return scene_from_dict(data, source)


def write_scene(scene: Scene, path: str | Path) -> None:
    """Write a scene as indented JSON."""
    Path(path).write_text(json.dumps(scene.to_dict(), indent=2) + "\n", encoding="utf-8")


def scene_from_dict(data: Any, source: str = "<scene>") -> Scene:
    """Validate a decoded JSON object and build the Scene."""
    if not isinstance(data, dict):
        raise SceneError(source, "a scene must be a JSON object")
    if data.get("format") != SCENE_FORMAT:
        raise SceneError(source, f"expected {SCENE_FORMAT!r}, got {data.get('format')!r}", fld="format")
    if "units" in data and data["units"] != "mm":
        raise SceneError(source, f"lengths must be in mm, got {data['units']!r}", fld="units")
    game = data.get("game")
    if game not in GAMES:
        raise SceneError(source, f"unknown game {game!r} (one of {', '.join(GAMES)})", fld="game")
    area = _area(data.get("area"), source)
    raw_pieces = data.get("pieces")
    if not isinstance(raw_pieces, list):
        raise SceneError(source, "missing or not a list", fld="pieces")
    pieces, seen = [], set()
    for index, raw in enumerate(raw_pieces):
        piece = _piece(raw, index, source)
        if piece.id in seen:
            raise SceneError(source, "duplicate id", piece=piece.id, fld="id")
        seen.add(piece.id)
        pieces.append(piece)
    last = data.get("last")
    if last is not None and last not in seen:
        raise SceneError(source, f"names no piece of the scene ({last!r})", fld="last")
    state = data.get("state", {})
    if not isinstance(state, dict):
        raise SceneError(source, "must be an object", fld="state")
    extra = {k: v for k, v in data.items()
             if k not in ("format", "game", "area", "pieces", "last", "state", "units")}
    return Scene(game, tuple(pieces), area, last, state, extra)


def _area(raw: Any, source: str) -> tuple[float, float] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise SceneError(source, "must be an object with width and height", fld="area")
    width = _number(raw.get("width"), source, None, "area.width", positive=True)
    height = _number(raw.get("height"), source, None, "area.height", positive=True)
    return width, height


def _number(value: Any, source: str, pid: str | None, name: str, positive: bool = False) -> float:
    if value is None:
        raise SceneError(source, "missing", pid, name)
    if isinstance(value, str):
        raise SceneError(source, f"expected a number in mm or degrees, got the text {value!r}", pid, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SceneError(source, f"expected a number, got {value!r}", pid, name)
    if positive and value <= 0:
        raise SceneError(source, f"must be positive, got {value!r}", pid, name)
    return float(value)


def _angle(value: Any, source: str, pid: str, name: str) -> float:
    number = _number(value, source, pid, name)
    if not 0 <= number < 360:
        raise SceneError(source, f"angle must be in [0, 360) degrees, got {value!r}", pid, name)
    return number


def _choice(value: Any, options: tuple, source: str, pid: str, name: str, what: str) -> Any:
    if value not in options or isinstance(value, bool):
        shown = ", ".join(str(o) for o in options)
        raise SceneError(source, f"{value!r} is not a {what} ({shown})", pid, name)
    return value


def _piece(raw: Any, index: int, source: str) -> Piece:
    if not isinstance(raw, dict):
        raise SceneError(source, f"piece #{index} is not a JSON object", fld="pieces")
    pid = raw.get("id")
    if not isinstance(pid, str) or not pid:
        raise SceneError(source, f"piece #{index} has no string id", fld="id")
    ptype = raw.get("type")
    if ptype not in REQUIRED:
        raise SceneError(source, f"unknown type {ptype!r} (one of {', '.join(REQUIRED)})", pid, "type")
    for name in REQUIRED[ptype]:
        if name not in raw:
            raise SceneError(source, "missing", pid, name)
    values: dict[str, Any] = {
        "x": _number(raw.get("x"), source, pid, "x"),
        "y": _number(raw.get("y"), source, pid, "y"),
    }
    _CHECKS[ptype](raw, values, source, pid)
    if raw.get("confidence") is not None:
        conf = _number(raw["confidence"], source, pid, "confidence")
        if not 0 <= conf <= 1:
            raise SceneError(source, f"must be in [0, 1], got {conf}", pid, "confidence")
        values["confidence"] = conf
    extra = {k: v for k, v in raw.items() if k not in KNOWN}
    return Piece(id=pid, type=ptype, extra=extra, **values)


def _check_pyramid(raw, values, source, pid):
    values["color"] = _choice(raw["color"], COLORS, source, pid, "color", "colour")
    values["size"] = _choice(raw["size"], (1, 2, 3), source, pid, "size", "Looney pyramid size")
    values["pose"] = _choice(raw["pose"], POSES, source, pid, "pose", "pose")
    if values["pose"] == "lying":
        values["heading"] = _angle(raw.get("heading"), source, pid, "heading")
    if raw.get("angle") is not None:
        values["angle"] = _angle(raw["angle"], source, pid, "angle")
    if raw.get("nested") is not None:
        nested = raw["nested"]
        if not isinstance(nested, list) or any(n not in (1, 2, 3) or n >= values["size"] for n in nested):
            raise SceneError(source, f"must list smaller sizes, got {nested!r}", pid, "nested")
        values["nested"] = tuple(nested)


def _check_pp_pyramid(raw, values, source, pid):
    values["suit"] = _choice(raw["suit"], SUITS, source, pid, "suit", "suit")
    values["size"] = _choice(raw["size"], PP_SIZES, source, pid, "size", "piecepack pyramid size")
    values["pose"] = _choice(raw.get("pose", "standing"), POSES, source, pid, "pose", "pose")
    if values["pose"] == "lying":
        values["heading"] = _angle(raw.get("heading"), source, pid, "heading")


def _check_tile(raw, values, source, pid):
    values["face"] = _choice(raw["face"], ("up", "down"), source, pid, "face", "tile face")
    if values["face"] == "up":
        for name in ("suit", "rank"):
            if name not in raw:
                raise SceneError(source, "missing (required on a face-up tile)", pid, name)
    _suit_rank(raw, values, source, pid)
    if raw.get("angle") is not None:
        values["angle"] = _angle(raw["angle"], source, pid, "angle")


def _check_coin(raw, values, source, pid):
    values["face"] = _choice(raw["face"], ("suit", "value"), source, pid, "face", "coin face")
    _suit_rank(raw, values, source, pid)


def _check_die(raw, values, source, pid):
    _suit_rank(raw, values, source, pid)


def _check_pawn(raw, values, source, pid):
    values["suit"] = _choice(raw["suit"], SUITS, source, pid, "suit", "suit")


def _check_card(raw, values, source, pid):
    values["owner"] = _choice(raw["owner"], COLORS, source, pid, "owner", "colour")
    values["width"] = _number(raw["width"], source, pid, "width", positive=True)
    values["height"] = _number(raw["height"], source, pid, "height", positive=True)
    values["angle"] = _angle(raw["angle"], source, pid, "angle")


def _check_chit(raw, values, source, pid):
    if raw.get("on") is not None:
        if not isinstance(raw["on"], str):
            raise SceneError(source, f"must be a piece id, got {raw['on']!r}", pid, "on")
        values["on"] = raw["on"]


def _suit_rank(raw, values, source, pid):
    if raw.get("suit") is not None:
        values["suit"] = _choice(raw["suit"], SUITS, source, pid, "suit", "suit")
    if raw.get("rank") is not None:
        values["rank"] = _choice(raw["rank"], RANKS, source, pid, "rank", "rank")


_CHECKS = {
    "pyramid": _check_pyramid, "pp_pyramid": _check_pp_pyramid, "tile": _check_tile,
    "coin": _check_coin, "die": _check_die, "pawn": _check_pawn, "card": _check_card,
    "chit": _check_chit,
}
