"""The objects of an Ice Pirates table, read from a scene.

- ship: a lying pyramid of a player's colour (its size is the ship size);
- disabled ship: a standing pyramid of a player's colour, standing on nothing;
- island: a standing Large of an island colour (`state.island_colors`, default black and white)
  not lying on a home card, nested or not (a camera cannot see inside; an emptied island stays an
  island), plus any piece named in `state.islands` (treasure islands);
- home: a `card` (a player's home island);
- cargo: a standing pyramid resting on a home, an island or a disabled ship (no obstacle);
- chit: a damage marker (`on` names its ship); never an obstacle;
- any other piece is a loose object, an obstacle like the rest.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely import STRtree

from referee.dimensions import DEFAULT, Dimensions
from referee.geometry import area_polygon, footprint
from referee.icepirates.rules import ISLAND_COLORS
from referee.scene import Piece, Scene

KINDS = ("ship", "disabled", "island", "home", "loose")


@dataclass(frozen=True)
class Ship:
    """An active ship: a lying pyramid with its tip at `tip`, pointing along `heading`."""

    id: str
    color: str
    size: int
    tip: tuple[float, float]
    heading: float


@dataclass
class Table:
    """Everything the rules measure, with one spatial index over the obstacles."""

    scene: Scene
    dims: Dimensions
    players: list[str]
    ships: dict[str, Ship]
    kinds: dict[str, str]                 # obstacle id -> one of KINDS
    ids: list[str]                        # obstacle ids, in the order of `geoms`
    geoms: np.ndarray                     # obstacle footprints
    cargo: dict[str, list[Piece]]         # base id -> pieces resting on it
    damage: dict[str, int]
    area: object = None                   # play area polygon or None
    index: dict[str, int] = field(default_factory=dict)
    pieces: dict[str, Piece] = field(default_factory=dict)
    tree: STRtree | None = None

    def __post_init__(self):
        self.index = {pid: i for i, pid in enumerate(self.ids)}
        self.pieces = self.scene.by_id()
        self.tree = STRtree(self.geoms)

    def geom(self, pid: str):
        return self.geoms[self.index[pid]]

    def name(self, pid: str) -> str:
        """'red 2 ship red-M1', 'disabled red 1 ship x', 'blue home home-blue', 'island i3'."""
        kind, piece = self.kinds[pid], self.pieces[pid]
        if kind == "home":
            return f"{piece.owner} home {pid}"
        if kind in ("ship", "disabled"):
            return f"{'disabled ' if kind == 'disabled' else ''}{piece.color} {piece.size} ship {pid}"
        return f"{kind} {pid}"

    def owner(self, pid: str) -> str | None:
        """The colour of a ship or disabled ship, the owner of a home, None for the rest."""
        piece = self.pieces[pid]
        return piece.owner if piece.type == "card" else piece.color if self.kinds[pid] in (
            "ship", "disabled") else None


def players_of(scene: Scene) -> list[str]:
    """Player colours: `state.players`, else the owners of home cards, else ship colours."""
    named = scene.state.get("players")
    if named:
        return list(named)
    owners = [p.owner for p in scene.of_type("card")]
    if owners:
        return sorted(set(owners), key=owners.index)
    colors = [p.color for p in scene.pieces if p.type == "pyramid" and p.pose == "lying"]
    return sorted(set(colors), key=colors.index)


def island_colors(scene: Scene) -> list[str]:
    """The colours of the two opaque stashes: `state.island_colors`, else black and white (less
    any player's colour)."""
    named = scene.state.get("island_colors")
    if named:
        return list(named)
    players = set(players_of(scene))
    return [c for c in ISLAND_COLORS if c not in players]


def island_ids(scene: Scene, dims: Dimensions = DEFAULT) -> set[str]:
    """Treasure islands: the ids in `state.islands`, and every standing Large of an island colour
    that does not lie on a home card ("any island can hold any amount": nested or not); without
    `state.islands`, every standing nest too."""
    named = scene.state.get("islands")
    colors = island_colors(scene)
    cards = [footprint(c, dims) for c in scene.of_type("card")]
    found = {p.id for p in scene.pieces if p.type == "pyramid" and p.standing
             and ((p.size == 3 and p.color in colors) or (named is None and p.nested is not None))
             and not any(card.contains(shapely.Point(p.x, p.y)) for card in cards)}
    return found | set(named or ())


def build_table(scene: Scene, dims: Dimensions = DEFAULT) -> Table:
    """Sort the scene's pieces into ships, disabled ships, islands, homes, cargo and loose pieces."""
    players = players_of(scene)
    islands = island_ids(scene, dims)
    kinds: dict[str, str] = {}
    bases: list[tuple[Piece, object]] = []
    cargo: dict[str, list[Piece]] = {}
    ships: dict[str, Ship] = {}
    geoms: dict[str, object] = {}
    for piece in scene.pieces:
        if piece.type == "card":
            kinds[piece.id] = "home"
        elif piece.id in islands:
            kinds[piece.id] = "island"
        elif piece.type == "pyramid" and piece.pose == "lying" and piece.color in players:
            kinds[piece.id] = "ship"
            ships[piece.id] = Ship(piece.id, piece.color, piece.size, (piece.x, piece.y), piece.heading)
        else:
            continue
        geoms[piece.id] = footprint(piece, dims)
        if kinds[piece.id] in ("home", "island"):
            bases.append((piece, geoms[piece.id]))
    rest = [p for p in scene.pieces if p.id not in kinds and p.type != "chit"]
    rest.sort(key=lambda p: -(p.size if isinstance(p.size, int) else 0))
    for piece in rest:
        base = _resting_on(piece, bases)
        if base is not None:
            cargo.setdefault(base, []).append(piece)
            continue
        disabled = piece.type == "pyramid" and piece.standing and piece.color in players
        kinds[piece.id] = "disabled" if disabled else "loose"
        geoms[piece.id] = footprint(piece, dims)
        bases.append((piece, geoms[piece.id]))
    ids = list(geoms)
    area = area_polygon(scene.area) if scene.area else None
    return Table(scene, dims, players, ships, kinds, ids, np.array([geoms[i] for i in ids], dtype=object),
                 cargo, damage_of(scene), area)


def _resting_on(piece: Piece, bases) -> str | None:
    point = shapely.Point(piece.x, piece.y)
    for base, geom in bases:
        if geom.contains(point):
            return base.id
    return None


def damage_of(scene: Scene) -> dict[str, int]:
    """Damage per ship: `state.damage` where given, else the chits whose `on` names the ship."""
    damage: dict[str, int] = {}
    for chit in scene.of_type("chit"):
        if chit.on:
            damage[chit.on] = damage.get(chit.on, 0) + 1
    damage.update({k: int(v) for k, v in scene.state.get("damage", {}).items()})
    return damage
