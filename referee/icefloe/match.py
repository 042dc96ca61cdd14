"""IceFloeMatch: the rounds of IceFloe as a state machine (protocol of referee/match.py).

Phases: rolloff -> place -> [move -> vote (number) -> coins -> tie -> vote (suit) -> coins -> tie
-> extra -> pick] per round -> final_tie -> over. The Torch Bearer starts each round and breaks
ties; ballots stay secret until every player has voted. Rulings: docs/rulings/icefloe.md.
"""
from __future__ import annotations

import random

from referee.icefloe.board import (POINTS, SIZES, SUITS, destinations, move_pyramid,
                                   pyramid_id, slides, standard_board, tile_id, tile_name)
from referee.icefloe.options import IceFloeOptions
from referee.icefloe.scene import board_to_scene, compare_with_scene
from referee.icefloe.votes import COIN_WEIGHT, Vote
from referee.match import DIE_FACES, PhaseMachine, event, roll_die, suit_players
from referee.options import make
from referee.scene import Scene

COIN_SETS = (["ace"], ["two"], ["ace", "two"])


class IceFloeMatch(PhaseMachine):
    """One game of IceFloe between 3 or 4 suits, listed clockwise."""

    game = "icefloe"

    def __init__(self, players: list[str], seed: int = 0, options: dict | None = None):
        self.players = suit_players("IceFloe", players, (3, 4))
        self.options = make(IceFloeOptions, options)
        self.rng = random.Random(seed)
        self.board = standard_board(len(players))
        self.board.kinds = {k: v for k, v in self.board.kinds.items() if v[0] in players}
        self.phase = "rolloff"
        self.rolling, self.rolls, self.rolloffs = list(players), {}, []
        self.first = None
        self.round = 0
        self.torch = None
        self.queue: list[str] = []
        self.coins = {p: ["ace", "two"] for p in players}
        self.running = {p: 0 for p in players}
        self.final = None
        self.history: list[dict] = []
        self.current: dict = {}
        self.vote: Vote | None = None
        self.tie_options: list = []
        self.passed: set[str] = set()
        self.barred: set[str] = set()        # sitting out this round's votes (commentary penalty)
        self.winners: list[str] | None = None
        self.end_reason = None

    @classmethod
    def from_position(cls, players: list[str], pyramids: dict[str, str], round: int = 1,
                      removed: tuple = (), moved: dict | None = None, coins: dict | None = None,
                      scores: dict | None = None, seed: int = 0, options: dict | None = None) -> "IceFloeMatch":
        """A match at the movement of round `round`, `players[0]` having won the roll-off.

        `pyramids` maps pyramid ids ("suns-A") to tile ids ("moons-2"), the others are lost;
        `removed` tiles are gone, `moved` maps tiles to other cells [col, row]; `coins` and
        `scores` say what each player still holds and has scored."""
        match = cls(players, seed=seed, options=options)
        board = match.board
        for tid in removed:
            del board.tiles[tid]
        for tid, cell in (moved or {}).items():
            board.tiles[tid] = tuple(cell)
        for pid, tid in pyramids.items():
            if pid not in board.kinds or tid not in board.tiles:
                raise ValueError(f"position: no pyramid {pid!r} of the players, or no tile {tid!r}")
        board.pyramids = dict(pyramids)
        heavy = [t for t in board.tiles if board.weight(t) > 5]
        if heavy or len(set(board.tiles.values())) != len(board.tiles):
            raise ValueError(f"position: overweight floes {heavy} or two tiles on one cell")
        match.first, match.rolling = players[0], [players[0]]
        match.coins.update({p: list(c) for p, c in (coins or {}).items()})
        match.running.update(scores or {})
        match.round = round - 1
        match._start_round()
        return match

    # ---- protocol -------------------------------------------------------------------------
    def to_act(self) -> list[str]:
        if self.phase == "rolloff":
            return [p for p in self.rolling if p not in self.rolls]
        if self.phase == "vote":
            return [p for p in self.players if p not in self.vote.ballots and p not in self.barred]
        if self.phase in ("tie", "extra", "final_tie"):
            return [self.torch]
        return self.queue[:1]

    def view(self, player: str | None = None) -> dict:
        board = {"tiles": {t: {"cell": list(c), "suit": self.board.faces[t][0], "rank": self.board.faces[t][1]}
                           for t, c in sorted(self.board.tiles.items())},
                 "pyramids": {p: {"suit": self.board.kinds[p][0], "size": self.board.kinds[p][1], "tile": t}
                              for p, t in sorted(self.board.pyramids.items())}}
        out = {"game": self.game, "players": self.players, "phase": self.phase, "round": self.round,
               "torch_bearer": self.torch, "first_player": self.first, "to_act": self.to_act(),
               "rolloffs": self.rolloffs + ([dict(self.rolls)] if self.rolls else []),
               "board": board, "coins": {p: list(c) for p, c in self.coins.items()},
               "this_round": dict(self.current), "history": self.history, "barred": sorted(self.barred),
               "scores": self.scores(), "final_count": self.final,
               "over": self.is_over(), "winner": self.winner(), "end_reason": self.end_reason}
        if self.phase == "vote":
            out["vote"] = {"stage": self.vote.stage, "voted": sorted(self.vote.ballots),
                           "options": list(self.vote.valid)}
            if player in self.vote.ballots:
                out["vote"]["mine"] = self.vote.ballots[player]
        elif self.vote is not None:
            out["vote"] = self.vote.revealed()
        if self.phase in ("tie", "final_tie"):
            out["tie_options"] = list(self.tie_options)
        return out

    def scores(self) -> dict[str, int]:
        final = self.final or {}
        return {p: self.running[p] + final.get(p, 0) for p in self.players}

    def is_over(self) -> bool:
        return self.phase == "over"

    def winner(self) -> list[str] | None:
        return list(self.winners) if self.winners is not None else None

    # ---- set-up ---------------------------------------------------------------------------
    def _legal_rolloff(self, player):
        return [{"type": "roll"}]

    def _do_rolloff(self, player, action):
        roll = roll_die(action, self.rng)
        self.rolls[player] = roll
        events = [event("roll", f"{player} rolls {roll}", player=player, roll=roll)]
        if self.to_act():
            return events
        top = max(self.rolls.values())
        self.rolloffs.append(dict(self.rolls))
        self.rolling = [p for p in self.rolling if self.rolls[p] == top]
        self.rolls = {}
        if len(self.rolling) > 1:
            return events + [event("reroll", f"tie at {top}: {', '.join(self.rolling)} roll again")]
        self.first = self.rolling[0]
        self.torch = self.first
        self.phase, self.queue = "place", [p for _ in SIZES for p in self.clockwise(self.first)]
        return events + [event("first_player", f"{self.first} wins the roll and holds the torch",
                                player=self.first)]

    def _legal_place(self, player):
        size = SIZES[len(self.board.owned(player))]
        return [{"type": "place", "size": size, "tile": t} for t in self.board.unoccupied()]

    def _do_place(self, player, action):
        pid = pyramid_id(player, action["size"])
        self.board.pyramids[pid] = action["tile"]
        self.queue.pop(0)
        events = [event("place", f"{player} places {action['size']} on the {self._tname(action['tile'])}",
                         pyramid=pid, tile=action["tile"])]
        if not self.queue:
            events += self._start_round()
        return events

    # ---- movement -------------------------------------------------------------------------
    def _legal_move(self, player):
        at = self.board.at()
        limit = self.options.midway_weight == "limit"
        out = [{"type": "move", "pyramid": p, "to": list(cell)} for p in self.board.owned(player)
               for cell in destinations(self.board, p, at, limit)]
        out += [{"type": "slide", "tile": t, "to": list(cell)} for t, cell in slides(self.board, player, at)]
        return out or [{"type": "pass"}]

    def _do_move(self, player, action):
        self.queue.pop(0)
        if action["type"] == "pass":
            events = [event("pass", f"{player} cannot move and passes", player=player)]
        elif action["type"] == "slide":
            tid, to = action["tile"], tuple(action["to"])
            self.board.tiles[tid] = to
            events = [event("slide", f"{player} slides the {self._tname(tid)} to {list(to)}", tile=tid, to=list(to))]
        else:
            pid, to = action["pyramid"], tuple(action["to"])
            tid = self.board.at()[to]
            lost = move_pyramid(self.board, pid, to)
            events = [event("move", f"{player} moves {pid} to {list(to)}", pyramid=pid, to=list(to))]
            if lost:
                events.append(event("crack", f"the {self._tname(tid)} cracks under more than 5: "
                                     f"{', '.join(lost)} fall in", tile=tid, pyramids=lost))
                self.current.setdefault("lost", []).extend(lost)
        if self._lost_all() and self.options.lost_all_ends == "at_once":
            return events + self._end_game("a player has lost all his pyramids")
        if self.queue:
            return events
        if len(set(self.board.pyramids.values())) == 1:
            return events + self._end_game("all pyramids stand on one tile")
        return events + self._start_vote("number", tuple(sorted({f[1] for f in self._faces()})))

    # ---- votes ----------------------------------------------------------------------------
    def _start_vote(self, stage, valid):
        self.phase, self.vote = "vote", Vote(stage, valid)
        events = [event("vote_open", f"vote on the {stage} of the tile to remove", stage=stage)]
        return events + (self._reveal() if not self.to_act() else [])

    def _legal_vote(self, player):
        choices = DIE_FACES if self.vote.stage == "number" else SUITS
        return [{"type": f"vote_{self.vote.stage}", "value": v} for v in choices] + [{"type": "sit_out"}]

    def _do_vote(self, player, action):
        if action["type"] == "sit_out":
            self.barred.add(player)
            events = [event("sit_out", f"{player} broke the rules of commentary: no vote until the next "
                            "round", player=player)]
        else:
            self.vote.ballots[player] = action["value"]
            events = [event("voted", f"{player} has voted", player=player)]
        return events + (self._reveal() if not self.to_act() else [])

    def _reveal(self):
        """Every ballot is in: show them, then open the coin window or resolve the vote."""
        shown = ", ".join(f"{p} {self.vote.ballots[p]}" for p in self.players if p in self.vote.ballots)
        events = [event("reveal", f"{self.vote.stage} ballots: {shown or 'none'}" +
                        (f" (void: {', '.join(self.vote.void())})" if self.vote.void() else ""),
                        stage=self.vote.stage, ballots=dict(self.vote.ballots), void=self.vote.void())]
        holders = [p for p in self.clockwise(self.torch) if self.coins[p] and p not in self.barred]
        if len(self.vote.voted_options()) < 2 or not holders:
            return events + self._resolve()
        self.phase, self.queue, self.passed = "coins", holders[:1], set()
        return events

    def _legal_coins(self, player):
        return [{"type": "pass"}] + [{"type": "add_coins", "coins": c, "value": v}
                                     for c in COIN_SETS if set(c) <= set(self.coins[player])
                                     for v in self.vote.voted_options()]

    def _do_coins(self, player, action):
        if action["type"] == "pass":
            self.passed.add(player)
            events = [event("pass", f"{player} adds no coin", player=player)]
        else:
            coins = sorted(action["coins"])
            for c in coins:
                self.coins[player].remove(c)
            self.vote.coins.append({"player": player, "coins": coins, "value": action["value"]})
            self.passed = set()
            weight = sum(COIN_WEIGHT[c] for c in coins)
            events = [event("coins", f"{player} adds {' and '.join(coins)} (+{weight}) to {action['value']}",
                             player=player, coins=coins, value=action["value"])]
        after = self.clockwise(player)[1:] + [player]
        nxt = [p for p in after if self.coins[p] and p not in self.passed and p not in self.barred]
        if not nxt:
            return events + self._resolve()
        self.queue = nxt[:1]
        return events

    def _resolve(self):
        leaders = self.vote.leaders()
        if len(leaders) == 1:
            return self._decided(leaders[0])
        if not leaders and self.options.all_void == "no_removal":
            self._close_vote()
            return [event("no_removal", "every ballot is void: no tile is removed")] + self._after_removal()
        self.phase, self.tie_options = "tie", leaders or list(self.vote.valid)
        why = "tie" if leaders else "every ballot is void"
        return [event("tie", f"{why}: the Torch Bearer {self.torch} chooses among "
                       f"{', '.join(map(str, self.tie_options))}", options=list(self.tie_options))]

    def _legal_tie(self, player):
        return [{"type": "break_tie", "value": v} for v in self.tie_options]

    def _do_tie(self, player, action):
        self.vote.tie_break = True
        return [event("tie_break", f"{player} breaks the tie: {action['value']}", value=action["value"])] + \
            self._decided(action["value"])

    def _close_vote(self):
        self.current[self.vote.stage] = self.vote.revealed()
        self.vote = None

    def _decided(self, value):
        self.vote.result = value
        stage = self.vote.stage
        self._close_vote()
        events = [event("result", f"{stage}: {value}", stage=stage, value=value)]
        if stage == "number":
            return events + self._start_vote("suit", tuple(s for s, r in self._faces() if r == value))
        tid = tile_id(value, self.current["number"]["result"])
        lost = self.board.remove_tile(tid)
        self.current["removed"] = tid
        self.current.setdefault("lost", []).extend(lost)
        events.append(event("remove", f"{self.torch} blows up the {self._tname(tid)}" +
                             (f": {', '.join(lost)} fall in" if lost else ""), tile=tid, pyramids=lost))
        if self._lost_all() and self.options.lost_all_ends == "at_once":
            return events + self._end_game("a player has lost all his pyramids")
        if len(self.board.unoccupied()) > 1:
            self.phase = "extra"
            return events
        return events + self._after_removal()

    # ---- extra empty tile, scoring, end of round ------------------------------------------------
    def _legal_extra(self, player):
        return [{"type": "pass"}] + [{"type": "remove_empty", "tile": t} for t in self.board.unoccupied()]

    def _do_extra(self, player, action):
        if action["type"] == "pass":
            events = [event("pass", f"{player} removes no empty tile", player=player)]
        else:
            self.board.remove_tile(action["tile"])
            self.current["extra"] = action["tile"]
            events = [event("remove_empty", f"{player} also blows up the empty {self._tname(action['tile'])}",
                             tile=action["tile"])]
        return events + self._after_removal()

    def _after_removal(self):
        if self.round > len(self.players):
            self.phase, self.queue = "pick", self.clockwise(self.torch)
            self.current["picks"], self.current["points"] = {}, {p: 0 for p in self.players}
            return [event("scoring", "scoring: each player picks a tile")]
        return self._end_round()

    def _legal_pick(self, player):
        return [{"type": "pick", "tile": t} for t in sorted(self.board.tiles)]

    def _do_pick(self, player, action):
        tid = action["tile"]
        self.queue.pop(0)
        self.current["picks"][player] = tid
        gained = {}
        for pid in self.board.on(tid):
            suit, size = self.board.kinds[pid]
            gained[suit] = gained.get(suit, 0) + POINTS[size]
        for suit, points in gained.items():
            self.running[suit] += points
            self.current["points"][suit] += points
        text = ", ".join(f"{s} +{n}" for s, n in gained.items()) or "nobody scores"
        events = [event("pick", f"{player} picks the {self._tname(tid)}: {text}", tile=tid, points=gained)]
        return events + (self._end_round() if not self.queue else [])

    def _start_round(self):
        self.round += 1
        self.torch = self.clockwise(self.first)[(self.round - 1) % len(self.players)]
        self.current = {"round": self.round, "torch_bearer": self.torch}
        self.barred = set()
        self.phase, self.queue = "move", self.clockwise(self.torch)
        return [event("round", f"round {self.round}: {self.torch} holds the torch",
                       round=self.round, torch_bearer=self.torch)]

    def _end_round(self):
        self.current["scores"] = dict(self.running)
        self.history.append(self.current)
        if self._lost_all():
            return self._end_game("a player has lost all his pyramids")
        return self._start_round()

    # ---- end of game ----------------------------------------------------------------------
    def _lost_all(self) -> bool:
        return any(not self.board.owned(p) for p in self.players)

    def _end_game(self, reason):
        if self.current and not any(h is self.current for h in self.history):
            self.current["scores"] = dict(self.running)
            self.history.append(self.current)
        self.end_reason = reason
        self.final = {p: self.board.final_count(p) for p in self.players}
        totals = self.scores()
        top = max(totals.values())
        tied = [p for p in self.players if totals[p] == top]
        events = [event("game_over", f"game over ({reason}); final count " +
                         ", ".join(f"{p} +{self.final[p]}" for p in self.players),
                         final_count=dict(self.final), scores=totals)]
        if len(tied) == 1:
            return events + self._crown(tied)
        self.phase, self.tie_options = "final_tie", tied
        return events + [event("final_tie", f"tie between {', '.join(tied)}: the Torch Bearer "
                                f"{self.torch} decides", options=tied)]

    def _legal_final_tie(self, player):
        return [{"type": "choose_winner", "winners": [p]} for p in self.tie_options] + \
            [{"type": "choose_winner", "winners": list(self.tie_options)}]

    def _do_final_tie(self, player, action):
        return self._crown(list(action["winners"]))

    def _crown(self, winners):
        self.phase, self.winners, self.queue = "over", winners, []
        return [event("winner", ("shared victory: " if len(winners) > 1 else "winner: ") + ", ".join(winners),
                       winners=winners)]

    # ---- helpers --------------------------------------------------------------------------
    def _faces(self):
        return sorted(self.board.faces[t] for t in self.board.tiles)

    def _tname(self, tid):
        return tile_name(self.board.faces[tid])

    def _reason(self, action: dict, legal: list[dict]) -> str:
        if action["type"] == "move" and action.get("pyramid") not in self.board.owned(action["player"]):
            return f"{action.get('pyramid')!r} is not a pyramid of {action['player']} on the board"
        return super()._reason(action, legal)

    def _compare(self, scene: Scene) -> list[dict]:
        return compare_with_scene(self.board, scene)

    def scene(self) -> Scene:
        """The table as a scene (tiles and pyramids at their cells' centres)."""
        return board_to_scene(self.board, {"players": self.players, "round": self.round})

