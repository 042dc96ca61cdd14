"""Games for the recordings: what happens on the table, step by step, and what the phones do.

A `Script` is the tables before and after each step (each step one hand changing the table),
the phone actions in the order the game asks for them, the physical actions the camera should
find (turn games), and the final scores. `icehouse_script()` is a short scripted game;
`icefloe_script()` plays an IceFloe match with a simple policy (the last player gathers his
pyramids, everyone votes to sink his floes), so the whole game fits in a minute of video.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from referee.dimensions import DEFAULT
from referee.evaluate import evaluate
from referee.icefloe.board import MAX_WEIGHT, WEIGHT, pyramid_id
from referee.icefloe.match import IceFloeMatch
from referee.icefloe.scene import MARGIN, SPOTS
from referee.scene import Piece, Scene

PHYSICAL = ("place", "move", "slide", "remove_empty")
TILE_GAP = 3.0        # mm between neighbouring IceFloe tiles: real tiles never lie perfectly flush


@dataclass(frozen=True)
class Step:
    """One hand changing the table: `kind` placed / moved / removed, the piece the hand goes
    to (as it ends up, or as it was when removed) and the side the arm comes from."""

    kind: str
    piece: Piece
    side: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "piece": self.piece.to_dict(), "side": self.side}


@dataclass
class Script:
    game: str
    players: list[str]
    area: tuple[float, float]
    steps: list[Step]
    scenes: list[Scene]                 # before the first step, then after each step
    final_scores: dict
    seed: int = 0
    options: dict = field(default_factory=dict)
    phone: list[dict] = field(default_factory=list)
    actions: list[dict] = field(default_factory=list)


# -- Icehouse ---------------------------------------------------------------------------------
def _lying(pid, color, size, x, y, heading) -> Piece:
    return Piece(pid, "pyramid", x, y, color=color, size=size, pose="lying", heading=heading)


def _standing(pid, color, size, x, y) -> Piece:
    return Piece(pid, "pyramid", x, y, color=color, size=size, pose="standing")


def icehouse_script() -> Script:
    """A short two-player Icehouse game: defenders, attacks, an illegal attack taken back, a
    crash put right, and a last attack."""
    players, area, gap = ["red", "blue"], (600.0, 450.0), 7.0
    b3 = _standing("b3", "blue", 3, 450.0, 300.0)
    r3 = _standing("r3", "red", 3, 150.0, 150.0)
    r2 = _standing("r2", "red", 2, 200.0, 330.0)
    b2 = _standing("b2", "blue", 2, 430.0, 120.0)
    half = DEFAULT.looney_base
    wrong = _lying("b2x", "blue", 2, 300.0, 400.0, 90.0)
    steps = [
        Step("placed", r3, "left"), Step("placed", b3, "right"),
        Step("placed", r2, "left"), Step("placed", b2, "right"),
        Step("placed", _lying("r1a", "red", 1, b3.x - half[3] / 2 - gap, b3.y, 0.0), "bottom"),
        Step("placed", _lying("b1a", "blue", 1, r3.x + half[3] / 2 + gap, r3.y, 180.0), "top"),
        Step("placed", wrong, "bottom"), Step("removed", wrong, "bottom"),
        Step("moved", _standing("r3", "red", 3, 166.0, 168.0), "top"), Step("moved", r3, "top"),
        Step("placed", _lying("r2a", "red", 2, b2.x - half[2] / 2 - gap, b2.y, 0.0), "top"),
        Step("placed", _lying("b3a", "blue", 3, r2.x + half[2] / 2 + gap, r2.y, 180.0), "bottom"),
    ]
    pieces: dict[str, Piece] = {}
    scenes = [Scene("icehouse", (), area, state={"players": players})]
    for s in steps:
        if s.kind == "removed":
            pieces.pop(s.piece.id)
        else:
            pieces[s.piece.id] = s.piece
        scenes.append(Scene("icehouse", tuple(pieces.values()), area, state={"players": players}))
    return Script("icehouse", players, area, steps, scenes, evaluate(scenes[-1]).scores)


# -- IceFloe ----------------------------------------------------------------------------------
class _Table:
    """Where each IceFloe piece physically lies, kept stable as the match changes its board."""

    def __init__(self, match: IceFloeMatch):
        self.side = DEFAULT.tile
        self.pitch = DEFAULT.tile + TILE_GAP
        self.pieces: dict[str, Piece] = {}
        self.on: dict[str, str] = {}            # pyramid -> the tile it stands on
        for tid, cell in match.board.tiles.items():
            suit, rank = match.board.faces[tid]
            x, y = self._centre(cell)
            self.pieces[tid] = Piece(tid, "tile", x, y, suit=suit, rank=rank, face="up")

    def _centre(self, cell) -> tuple[float, float]:
        return MARGIN + (cell[0] + 0.5) * self.pitch, MARGIN + (cell[1] + 0.5) * self.pitch

    def _spot(self, tid: str) -> tuple[float, float]:
        t = self.pieces[tid]
        taken = {(p.x, p.y) for pid, p in self.pieces.items() if self.on.get(pid) == tid}
        for dx, dy in SPOTS:
            spot = (round(t.x + dx * self.side, 1), round(t.y + dy * self.side, 1))
            if spot not in taken:
                return spot
        raise ValueError(f"no free spot on {tid}")

    def follow(self, action: dict, before, board) -> list[tuple[str, Piece]]:
        """Do on the table what `action` did to the board (`before` -> `board`): the
        (kind, piece) changes in the order hands make them."""
        changes, kind = [], action["type"]
        if kind in ("place", "move"):
            pid = action["pyramid"] if kind == "move" else pyramid_id(action["player"], action["size"])
            tid = before.at()[tuple(action["to"])] if kind == "move" else action["tile"]
            self.on.pop(pid, None)
            x, y = self._spot(tid)
            suit, size = before.kinds[pid]
            self.pieces[pid] = Piece(pid, "pp_pyramid", x, y, suit=suit, size=size, pose="standing")
            self.on[pid] = tid
            changes.append(("moved" if kind == "move" else "placed", self.pieces[pid]))
        if kind == "slide":
            tid = action["tile"]
            x, y = self._centre(tuple(action["to"]))
            dx, dy = x - self.pieces[tid].x, y - self.pieces[tid].y
            for pid in [tid] + [p for p, t in self.on.items() if t == tid]:
                p = self.pieces[pid]
                self.pieces[pid] = replace(p, x=round(p.x + dx, 1), y=round(p.y + dy, 1))
            changes.append(("moved", self.pieces[tid]))
        for tid in [t for t in before.tiles if t not in board.tiles]:
            gone = self.pieces.pop(tid)
            for pid in [p for p, t in self.on.items() if t == tid]:
                self.pieces.pop(pid)
                del self.on[pid]
            changes.append(("removed", gone))
        return changes

    def scene(self, players) -> Scene:
        extent = 2 * MARGIN + 5 * self.pitch
        return Scene("icefloe", tuple(self.pieces.values()), (extent, extent),
                     state={"players": list(players), "grid_origin": [MARGIN, MARGIN]})


def _side(piece: Piece, extent: float) -> str:
    """The table edge nearest the piece: where the hand comes from."""
    d = {"left": piece.x, "right": extent - piece.x, "top": piece.y, "bottom": extent - piece.y}
    return min(d, key=d.get)


def _choose(match: IceFloeMatch, player: str, legal: list[dict], victim: str, rng: random.Random) -> dict:
    """A simple policy that ends the game soon: the victim gathers his pyramids on few floes,
    everyone votes to sink the floe carrying most of the victim's weight."""
    kinds = {a["type"] for a in legal}
    board = match.board
    if "move" in kinds and player == victim:
        gather = [a for a in legal if a["type"] == "move" and
                  (t := board.at()[tuple(a["to"])]) and any(board.kinds[p][0] == victim for p in board.on(t))
                  and board.weight(t) + WEIGHT[board.kinds[a["pyramid"]][1]] <= MAX_WEIGHT]
        if gather:
            return rng.choice(gather)
    if match.phase in ("vote", "tie"):
        target = max(board.tiles, key=lambda t: (sum(WEIGHT[board.kinds[p][1]] for p in board.on(t)
                                                     if board.kinds[p][0] == victim), t))
        suit, rank = board.faces[target]
        want = rank if match.vote.stage == "number" else suit
        chosen = [a for a in legal if a.get("value") == want]
        if chosen:
            return chosen[0]
    for kind in ("roll", "pass", "pick", "choose_winner"):
        if kind in kinds:
            return next(a for a in legal if a["type"] == kind)
    moves = [a for a in legal if a["type"] == "move"]
    return rng.choice(moves or legal)


def icefloe_script(players=("suns", "moons", "crowns"), seed: int = 0, max_steps: int = 200,
                   options: dict | None = None) -> Script:
    """Play an IceFloe match with the policy; the physical steps, phone actions and scores."""
    rng = random.Random(seed)
    match = IceFloeMatch(list(players), seed=seed, options=options)
    table = _Table(match)
    scenes, steps, phone, actions = [table.scene(players)], [], [], []
    extent = table.scene(players).area[0]
    while not match.is_over() and len(steps) < max_steps:
        player = match.to_act()[0]
        action = _choose(match, player, match.legal_actions(player), players[-1], rng)
        before = match.board.copy()
        match.apply(action)
        (actions if action["type"] in PHYSICAL else phone).append(action)
        for kind, piece in table.follow(action, before, match.board):
            steps.append(Step(kind, piece, _side(piece, extent)))
            scenes.append(table.scene(players))
    return Script("icefloe", list(players), scenes[0].area, steps, scenes, match.scores(), seed,
                  phone=phone, actions=actions)
