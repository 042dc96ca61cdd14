"""IcebergMatch: Iceberg for 2 or 4 players (protocol of referee/match.py).

Phases: start (each player places one coin on a start position) -> play (play, move, flip or
roll) -> choose (the roller picks among several matching tiles) -> over. The table is the truth:
a flip takes the face the real tile shows (the action's `face`, or the camera's scene after it)
and a roll the face of the real die (`roll`); the options `tiles=shuffle` and `die=virtual` use
the match's seeded shuffle and die instead.
"""
from __future__ import annotations

import random

from referee.iceberg.board import DIRS4, STARTS, cell_of_square, cut_off, donut, flip, open_sides
from referee.iceberg.options import IcebergOptions
from referee.iceberg.scene import board_to_scene, compare_with_scene, face_seen
from referee.match import DIE_FACES, IllegalAction, PhaseMachine, event, roll_die, suit_players
from referee.options import make
from referee.scene import RANKS, SUITS, Scene

COINS_PER_PLAYER = 6


class IcebergMatch(PhaseMachine):
    """One game of Iceberg; `players` are suits in clockwise order, the oldest first."""

    game = "iceberg"

    def __init__(self, players: list[str], seed: int = 0, options: dict | None = None):
        self.players = suit_players("Iceberg", players, (2, 4))
        self.options = make(IcebergOptions, options)
        self.rng = random.Random(seed)
        self.board = donut()
        faces = [(s, r) for s in SUITS for r in RANKS]
        self.rng.shuffle(faces)
        self.hidden = dict(zip(sorted(self.board.tiles), faces))
        self.hands = {p: COINS_PER_PLAYER for p in players}
        self.phase, self.turn = "start", players[0]
        self.choices: list[str] = []
        self.last_roll = None
        self.out: list[str] = []
        self.winners: list[str] | None = None

    @classmethod
    def from_position(cls, players: list[str], coins: dict[str, list], faces: dict | None = None,
                      removed: tuple = (), hands: dict | None = None, turn: str | None = None,
                      seed: int = 0, options: dict | None = None) -> "IcebergMatch":
        """A match in the play phase: `coins` maps suits to squares [col, row], `faces` face-up
        tiles to [suit, rank], `removed` tiles are gone, `hands` counts coins not yet played
        (default: 6 less those on the board), `turn` is the player to act (default the first)."""
        match = cls(players, seed=seed, options=options)
        for tid, face in (faces or {}).items():
            match.board.faces[tid] = match._reveal(tid, tuple(face))
        for tid in removed:
            match.board.remove_tile(tid)
        for suit, squares in coins.items():
            for square in squares:
                if tuple(square) in match.board.coins.values() or not match.board.on_board(tuple(square)):
                    raise ValueError(f"position: square {square} is taken or on no tile")
                match._play(suit, tuple(square))
        match.hands.update(hands or {})
        match.phase, match.turn = "play", turn or players[0]
        return match

    # ---- protocol -------------------------------------------------------------------------
    def apply(self, action: dict, scene: Scene | None = None) -> dict:
        """As PhaseMachine.apply; a flip without a `face` takes the face the scene shows."""
        if isinstance(action, dict) and action.get("type") == "flip" and "face" not in action \
                and scene is not None and action.get("tile") in self.board.tiles:
            face = face_seen(self.board, scene, action["tile"])
            if face is not None:
                action = {**action, "face": list(face)}
        return super().apply(action, scene)

    def to_act(self) -> list[str]:
        return [] if self.phase == "over" else [self.turn]

    def view(self, player: str | None = None) -> dict:
        at = self.board.at()
        gap_only = self.options.open_side == "gap_only"
        tiles = {}
        for tid, cell in sorted(self.board.tiles.items()):
            face = self.board.faces[tid]
            tiles[tid] = {"cell": list(cell), "face": "down" if face is None else "up",
                          "open": bool(open_sides(self.board, tid, gap_only, at))}
            if face is not None:
                tiles[tid].update(suit=face[0], rank=face[1])
        return {"game": self.game, "players": self.players, "phase": self.phase, "turn": self.turn,
                "to_act": self.to_act(), "tiles": tiles,
                "coins": {c: {"suit": self.board.owners[c], "square": list(s)} for c, s in sorted(self.board.coins.items())},
                "hands": dict(self.hands), "out": list(self.out), "last_roll": self.last_roll,
                "choices": list(self.choices), "scores": self.scores(), "over": self.is_over(),
                "winner": self.winner(), "options": vars(self.options)}

    def scores(self) -> dict[str, int]:
        """Survivors: coins in hand plus coins on the iceberg."""
        return {p: self.hands[p] + len(self.board.coins_of(p)) for p in self.players}

    def is_over(self) -> bool:
        return self.phase == "over"

    def winner(self) -> list[str] | None:
        return list(self.winners) if self.winners is not None else None

    # ---- phases ---------------------------------------------------------------------------
    def _legal_start(self, player):
        taken = set(self.board.coins.values())
        return [{"type": "play", "square": list(s)} for s in STARTS[self.options.start] if s not in taken]

    def _do_start(self, player, action):
        events = self._play(player, tuple(action["square"]))
        if len(self.board.coins) == len(self.players):
            self.phase = "play"
        self.turn = self.clockwise(player)[1]
        return events

    def _legal_play(self, player):
        out = []
        if self.hands[player]:
            out += [{"type": "play", "square": list(s)} for s in self.board.free_squares()]
        at, taken = self.board.at(), self.board.occupied()
        for coin in self.board.coins_of(player):
            c, r = self.board.coins[coin]
            for dc, dr in DIRS4:
                to = (c + dc, r + dr)
                if to not in taken and cell_of_square(to) in at:
                    out.append({"type": "move", "coin": coin, "to": list(to)})
        gap_only = self.options.open_side == "gap_only"
        out += [{"type": "flip", "tile": t} for t in sorted(self.board.tiles)
                if self.board.faces[t] is None and open_sides(self.board, t, gap_only, at)]
        if self.options.die == "virtual":
            return out + [{"type": "roll"}]
        return out + [{"type": "roll", "roll": face} for face in DIE_FACES]

    def _do_play(self, player, action):
        before = self._alive()
        kind = action["type"]
        if kind == "play":
            events = self._play(player, tuple(action["square"]))
        elif kind == "move":
            self.board.coins[action["coin"]] = tuple(action["to"])
            events = [event("move", f"{player} moves {action['coin']} to {action['to']}",
                            coin=action["coin"], to=list(action["to"]))]
        elif kind == "flip":
            events = self._flip(action["tile"], self._face(action))
        else:
            events = self._roll(player, action)
            if self.phase == "choose":
                return events
        return events + self._after(before)

    def _reason(self, action: dict, legal: list[dict]) -> str:
        if action["type"] == "roll" and "roll" not in action and self.options.die == "table":
            return "roll the real die and say what it shows ('roll': 0 for the null to 5)"
        return super()._reason(action, legal)

    def _legal_choose(self, player):
        return [{"type": "remove", "tile": t} for t in self.choices]

    def _do_choose(self, player, action):
        before = self._alive()
        self.phase, self.choices = "play", []
        return self._remove(action["tile"]) + self._after(before)

    # ---- actions --------------------------------------------------------------------------
    def _play(self, player, square):
        coin = f"{player}-{COINS_PER_PLAYER - self.hands[player] + 1}"
        self.hands[player] -= 1
        self.board.coins[coin], self.board.owners[coin] = square, player
        return [event("play", f"{player} plays a coin on {list(square)}", coin=coin, square=list(square))]

    def _face(self, action) -> tuple[str, int]:
        """The face a flipped tile shows: as the action says (the real table), else (`tiles=shuffle`)
        the shuffle's."""
        tid, named = action["tile"], action.get("face")
        if named is None and self.options.tiles == "shuffle":
            return self.hidden[tid]
        if named is None:
            raise IllegalAction(f"flip {tid}: say which face the real tile shows "
                                "('face': {\"suit\", \"rank\"}) or show it to the camera")
        if isinstance(named, dict):
            return self._reveal(tid, (named.get("suit"), named.get("rank")))
        if isinstance(named, list) and len(named) == 2:
            return self._reveal(tid, tuple(named))
        raise IllegalAction(f"face {named!r}: expected {{\"suit\": ..., \"rank\": ...}}")

    def _reveal(self, tid: str, face: tuple) -> tuple[str, int]:
        """Make the shuffle give `face` to tile `tid` (swapping with the tile that had it)."""
        holder = next((t for t, f in self.hidden.items() if f == face), None)
        if holder is None:
            raise IllegalAction(f"face {list(face)!r} is not a piecepack tile")
        if self.board.faces.get(holder) is not None:
            raise IllegalAction(f"the {face[1]} of {face[0]} is no longer face down")
        self.hidden[holder], self.hidden[tid] = self.hidden[tid], face
        return face

    def _flip(self, tid, face):
        lost = flip(self.board, tid, face, self.options.bump)
        text = f"tile {tid} flips: {face[1]} of {face[0]}"
        return [event("flip", text + (f"; {', '.join(lost)} knocked off" if lost else ""),
                      tile=tid, suit=face[0], rank=face[1], lost=lost)]

    def _roll(self, player, action):
        roll = roll_die(action, self.rng)
        self.last_roll = roll
        matches = sorted(t for t, f in self.board.faces.items() if t in self.board.tiles and f and f[1] == roll)
        events = [event("roll", f"{player} rolls {roll}", roll=roll, matches=matches)]
        if len(matches) > 1:
            self.phase, self.choices = "choose", matches
            return events + [event("choose", f"{player} chooses which tile to remove", options=matches)]
        if not matches:
            return events + [event("no_match", "no face-up tile matches: the turn ends")]
        return events + self._remove(matches[0])

    def _remove(self, tid):
        lost = self.board.coins_on(tid)
        drift = cut_off(self.board, tid, self.options.connect == "diagonal")
        events = [event("remove", f"tile {tid} melts" + (f" with {', '.join(lost)}" if lost else ""),
                        tile=tid, lost=lost)]
        for t in drift:
            gone = self.board.remove_tile(t)
            events.append(event("stranded", f"tile {t} is stranded and drifts away" +
                                (f" with {', '.join(gone)}" if gone else ""), tile=t, lost=gone))
        return events

    # ---- turns and the end ----------------------------------------------------------------
    def _alive(self) -> list[str]:
        return [p for p in self.players if self.hands[p] or self.board.coins_of(p)]

    def _after(self, before: list[str]) -> list[dict]:
        """Players out, the winner, or the next player's turn."""
        alive = self._alive()
        events = [event("out", f"{p} has no survivor left and is out", player=p)
                  for p in before if p not in alive]
        self.out += [p for p in before if p not in alive]
        winners = self._winners(alive, before)
        if winners:
            self.phase, self.winners = "over", winners
            return events + [event("winner", ("shared victory: " if len(winners) > 1 else "winner: ") +
                                   ", ".join(winners), winners=winners)]
        self.turn = next(p for p in self.clockwise(self.turn)[1:] + [self.turn] if p in alive)
        return events

    def _winners(self, alive: list[str], before: list[str]) -> list[str] | None:
        if len(alive) == 1:
            return alive
        if not alive:
            return before
        if not self.board.tiles:
            return alive
        if len(self.board.tiles) == 1:
            owners = {self.board.owners[c] for c in self.board.coins}
            if len(owners) == 1:
                return sorted(owners)
        return None

    def _compare(self, scene: Scene) -> list[dict]:
        return compare_with_scene(self.board, scene)

    def scene(self) -> Scene:
        """The table as a scene."""
        return board_to_scene(self.board, {"players": self.players, "hands": dict(self.hands)})
