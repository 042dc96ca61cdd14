"""Games in play: matches rebuilt from the stored actions, and every change that goes through them.

Each table has a lock (`TableLock`: greenlets of the server and plain threads alike wait on
it); an action is validated by the match (IllegalAction leaves it unchanged), then stored with
its score-sheet rows and its public event as one write job of the store's group commit. The
job is queued under the lock (so a table's actions are stored in the order they were applied)
and waited for outside it (so ballots of one table share a commit). If the write fails the
cached match is dropped and rebuilt from the store, which stays the truth.
"""
from __future__ import annotations

import json
import random
import secrets
import threading
import time
from collections import Counter

import gevent
import greenlet

from referee.match import IllegalAction, new_match
from webapp import store
from webapp.ballots import sealed_positions
from webapp.icehouse import IcehouseGame

SIDES = {
    "icefloe": ("suns", "moons", "crowns", "arms"),
    "iceberg": ("suns", "moons", "crowns", "arms"),
    # black and white make the treasure islands (referee.icepirates.layout.ISLAND_COLORS)
    "icepirates": ("red", "yellow", "blue", "green", "purple", "orange", "clear", "cyan"),
    "icehouse": ("red", "yellow", "blue", "green", "black", "purple", "orange", "clear", "cyan",
                 "white"),
}
# How many players each game takes (the rules texts; Icehouse: one colour each).
PLAYER_COUNTS = {"icefloe": (3, 4), "iceberg": (2, 4), "icepirates": (2, 3, 4, 5),
                 "icehouse": tuple(range(2, len(SIDES["icehouse"]) + 1))}
NAMES = {"icefloe": "IceFloe", "iceberg": "Iceberg", "icepirates": "Ice Pirates", "icehouse": "Icehouse"}
DIE_FACES = ("null", "ace", "2", "3", "4", "5")
TIMER_MINUTES = 10.0        # Icehouse: the tournament standard ("10 minutes")
TIMER_SPREAD = 0.25         # the deadline is drawn in [1 - spread, 1 + spread] x the minutes


def rules(options: dict) -> dict:
    """A table's rule options for the referee (the web app's own timer setting left out)."""
    return {k: v for k, v in options.items() if k != "timer_minutes"}


def counts_text(game: str) -> str:
    """'2 to 5', '3 or 4', '2 or 4'."""
    counts = PLAYER_COUNTS[game]
    if len(counts) > 2:
        return f"{counts[0]} to {counts[-1]}"
    return " or ".join(map(str, counts))


def trial_sides(game: str, options: dict) -> list[str]:
    """Players to try a new table's options with: the game's first sides, or for an Ice Pirates
    table laid out in advance (option "scene") the owners of its home cards."""
    scene = options.get("scene")
    if game == "icepirates" and isinstance(scene, dict) and isinstance(scene.get("pieces"), list):
        owners = sorted({p.get("owner") for p in scene["pieces"] if isinstance(p, dict) and p.get("type") == "card"},
                        key=str)
        return [str(o) for o in owners]
    return list(SIDES[game][:PLAYER_COUNTS[game][-1]])


def check_players(game: str, sides: list[str]) -> None:
    """IllegalAction in words unless the game can start between `sides`."""
    if len(sides) not in PLAYER_COUNTS[game]:
        joined = {0: "nobody has joined", 1: "1 player has joined"}.get(len(sides), f"{len(sides)} have joined")
        raise IllegalAction(f"{NAMES[game]} is for {counts_text(game)} players: {joined}")


def is_full(game: str, seated: int) -> bool:
    return seated >= PLAYER_COUNTS[game][-1]


def table_rules(table) -> dict:
    return rules(json.loads(table["options"]))


def make_match(game: str, sides: list[str], seed: int, options: dict):
    """The match object of `game` (Icehouse: the web app's IcehouseGame)."""
    rules_ = rules(options)
    if game == "icehouse":
        return IcehouseGame(sides, seed=seed, options=rules_)
    return new_match(game, sides, seed=seed, options=rules_)


class Session:
    """One game: its match plus the host's manual score entries."""

    def __init__(self, game_row, table_row, version: int = 0):
        self.game_id, self.version = game_row["id"], version     # the games.version it reflects
        self.match = make_match(table_row["game"], json.loads(game_row["players"]),
                                game_row["seed"], json.loads(table_row["options"]))
        self.adjust: Counter = Counter()

    def apply(self, action: dict, scene=None) -> dict:
        if action.get("type") == "host_score":
            side, points = action.get("side"), action.get("points")
            if side not in self.match.players:
                raise IllegalAction(f"unknown player {side!r}")
            if not isinstance(points, int) or isinstance(points, bool) or abs(points) > 1000:
                raise IllegalAction("points must be a whole number between -1000 and 1000")
            self.adjust[side] += points
            return {"ok": True, "events": [], "warnings": []}
        return self.match.apply(action, scene)

    def scores(self) -> dict[str, int]:
        base = self.match.scores()
        return {p: int(base.get(p, 0)) + self.adjust[p] for p in self.match.players}


class StaleGame(Exception):
    """The stored game is not the version an action was judged on (another server acted)."""


class TableLock:
    """A re-entrant lock held by one greenlet or thread at a time. A waiter retries after a short
    gevent sleep (which yields to the server's other greenlets, or just sleeps in a plain thread),
    so the server's greenlets and plain threads (the clock, the live loop) exclude each other."""

    def __init__(self):
        self._lock = threading.Lock()
        self._owner = None
        self._depth = 0

    def __enter__(self):
        me = greenlet.getcurrent()
        if self._owner is me:
            self._depth += 1
            return self
        delay = 0.0005
        while not self._lock.acquire(blocking=False):
            gevent.sleep(delay)
            delay = min(2 * delay, 0.01)
        self._owner, self._depth = me, 1
        return self

    def __exit__(self, *exc) -> None:
        self._depth -= 1
        if not self._depth:
            self._owner = None
            self._lock.release()


class Games:
    """The cache of sessions and the per-table locks, shared by every request thread."""

    def __init__(self, notifier, store):
        self.notifier, self.store = notifier, store
        self._guard = threading.Lock()
        self._locks: dict[int, TableLock] = {}
        self._sessions: dict[int, Session] = {}

    def lock(self, table_id: int) -> TableLock:
        with self._guard:
            return self._locks.setdefault(table_id, TableLock())

    def session(self, db, game_row, table_row) -> Session:
        """The game's session, rebuilt from its live actions when not cached, or when the store
        holds a newer version of the game (another server, sharing a PostgreSQL store, acted)."""
        with self.lock(table_row["id"]):
            cached = self._sessions.get(game_row["id"])
            if cached is None or game_row["version"] > cached.version:
                version = store.game_version(db, game_row["id"])
                cached = Session(game_row, table_row, version)
                for action in store.live_actions(db, game_row["id"]):
                    cached.apply(action)
                self._sessions[game_row["id"]] = cached
            return cached

    def sealed_ballot(self, db, table, side: str) -> int | None:
        """The action id of `side`'s ballot in the current game's open vote, if he cast one."""
        game = store.current_game(db, table["id"])
        if game is None:
            return None
        rows = store.live_action_rows(db, game["id"])
        actions = [json.loads(r["action"]) for r in rows]
        sealed = sealed_positions(actions, self.session(db, game, table).match)
        return next((rows[i]["id"] for i in sealed if actions[i].get("player") == side), None)

    def drop(self, game_id: int) -> None:
        self._sessions.pop(game_id, None)

    def publish(self, table_id: int, event_id: int) -> None:
        self.notifier.published(table_id, event_id)

    def perform(self, db, table, game, action: dict, reason: str = "", answer=None) -> dict:
        """Validate and apply `action`, store it with its ledger rows and public event (and
        the request's `answer(result)`, webapp.replies). If another server changed the game
        meanwhile, the action is judged again on the new state."""
        for _ in range(3):
            try:
                return self._perform(db, table, game, action, reason, answer)
            except StaleGame:
                game = store.game_by_id(db, game["id"])
        raise IllegalAction("the table changed at the same moment: try again")

    def _perform(self, db, table, game, action: dict, reason: str, answer) -> dict:
        with self.lock(table["id"]):
            if store.game_by_id(db, game["id"])["status"] != "playing":   # fresh: it may just have ended
                raise IllegalAction("this game is over")
            session = self.session(db, game, table)
            before = session.scores()
            try:
                result = session.apply(action)
            except IllegalAction:
                raise
            except Exception:
                self.drop(game["id"])       # a referee bug may have left the match half-changed
                raise
            after = session.scores()
            deltas = {p: after[p] - before.get(p, 0) for p in after if after[p] != before.get(p, 0)}
            over, round_ = session.match.is_over(), round_of(session.match)
            ending = {"game": game["number"], "scores": after,
                      "winner": session.match.winner()} if over else None
            expected, session.version = session.version, session.version + 1

            def job(w):
                if not store.bump_version(w, game["id"], expected):
                    raise StaleGame()
                action_id = store.add_action(w, game["id"], action)
                if deltas:
                    source = "host" if action["type"] == "host_score" else "game"
                    store.add_ledger(w, game["id"], action_id, round_, deltas, source, reason or action["type"])
                event_id = store.add_event(w, table["id"], "action", public_action(action, result))
                if ending:
                    store.end_game(w, game["id"])
                    event_id = store.add_event(w, table["id"], "game_over", ending)
                return event_id
            pending = self.store.submit(job, backup=over, answer=answer and (lambda _: answer(result)))
        try:
            event_id = pending.result()
        except Exception:
            self.drop(game["id"])
            raise
        self.publish(table["id"], event_id)
        return result

    def undo(self, db, table, game, answer=None) -> dict | None:
        """Take back the game's last live action (the host's correction) and return it (the
        request's `answer(it)` is stored with it); None if there is none."""
        with self.lock(table["id"]):
            if self._ended_early(db, table, game):
                undone, last = {"type": "end"}, None
            else:
                last = store.last_action(db, game["id"])
                if last is None:
                    return None
                undone = json.loads(last["action"])

            def job(w):
                if last is not None:
                    store.undo_action(w, last["id"])
                return reopen(w, table, game)
            event_id = self.store.write(job, answer=answer and (lambda _: answer(undone)))
            if last is not None:
                self.drop(game["id"])
        self.publish(table["id"], event_id)
        return undone

    def _ended_early(self, db, table, game) -> bool:
        """Whether the game was ended by the host (not by its rules): an undo then reopens it
        and takes back no action."""
        return (store.game_by_id(db, game["id"])["status"] == "over"
                and not self.session(db, game, table).match.is_over())

    def start(self, db, table, sides: list[str], seed: int | None = None, answer=None):
        """Start a new game at the table between `sides` (seat order); the request's
        `answer(game row)` is stored with it."""
        seed = secrets.randbits(31) if seed is None else seed
        check_players(table["game"], sides)
        options = json.loads(table["options"])
        make_match(table["game"], sides, seed, options)      # raises IllegalAction if impossible
        deadline = None
        if table["game"] == "icehouse":
            minutes = float(options.get("timer_minutes", TIMER_MINUTES))
            spread = random.SystemRandom().uniform(1 - TIMER_SPREAD, 1 + TIMER_SPREAD)
            deadline = time.time() + minutes * 60 * spread
        with self.lock(table["id"]):
            current = store.current_game(db, table["id"])
            if current is not None and current["status"] == "playing":
                raise IllegalAction("a game is already being played at this table")
            def job(w):
                row = store.add_game(w, table["id"], sides, seed, deadline)
                return row, store.add_event(w, table["id"], "game_started",
                                            {"game": row["number"], "players": sides})
            game, event_id = self.store.write(job, answer=answer and (lambda value: answer(value[0])))
        self.publish(table["id"], event_id)
        return game

    def end(self, db, table, game, who: str, answer=None) -> None:
        """End the game now: the host's decision, or the Icehouse timer going off (the
        request's `answer(None)` is stored with it)."""
        if table["game"] == "icehouse":
            scene, _ = store.latest_scene(db, table["id"])
            session = self.session(db, game, table)
            action = {"player": who, "type": "end"}
            if scene is not None:
                action["scores"] = icehouse_scores(scene, session.match, table_rules(table))
            self.perform(db, table, game, action, reason="final count",
                         answer=answer and (lambda _: answer(None)))
            return
        def job(w):
            store.end_game(w, game["id"])
            return store.add_event(w, table["id"], "game_over", {"game": game["number"], "by": who})
        with self.lock(table["id"]):
            event_id = self.store.write(job, backup=True, answer=answer and (lambda _: answer(None)))
        self.publish(table["id"], event_id)

    def fire_due_timers(self, db, now: float | None = None) -> int:
        """End every Icehouse game whose hidden deadline has passed; returns how many."""
        fired = 0
        for game in store.due_games(db, time.time() if now is None else now):
            table = store.table_by_id(db, game["table_id"])
            try:
                self.end(db, table, game, "clock")
                fired += 1
            except IllegalAction:
                pass
        return fired


def reopen(w, table, game) -> int:
    """Play on after an undo: the game is no longer over; the id of the public `undo` event."""
    store.reopen_game(w, game["id"])
    return store.add_event(w, table["id"], "undo", {"game": game["number"]})


def round_of(match) -> int:
    """The round a score-sheet row belongs to, when the match's public view says."""
    value = match.view(None).get("round")
    return value if isinstance(value, int) else 0


def public_action(action: dict, result: dict) -> dict:
    """What everyone may learn of an accepted action: who did what kind of thing, and the
    sentences of the verdict's events. The action's values are left out (during a sealed vote
    they are the secret); the referee's event sentences name a ballot only in the reveal, once
    every ballot is in, and are written for everyone at the table."""
    return {"player": action.get("player"), "type": action.get("type"),
            "log": [e["text"] for e in result.get("events", []) if isinstance(e.get("text"), str)]}


def icehouse_scene(scene: dict, match) -> dict:
    """The posted scene with what the web app knows and the camera cannot see: who plays and
    who is in the icehouse (stash counts stay the scene's, or are counted from the table)."""
    state = dict(scene.get("state") or {})
    state["players"] = list(match.players)
    state["icehouse"] = sorted(set(state.get("icehouse", [])) | set(match.icehouse))
    return {**scene, "state": state}


def icehouse_scores(scene: dict, match, rule_options: dict) -> dict[str, int]:
    """Final Icehouse scores of the scene, the icehouse's inmates at 0."""
    from referee.icehouse import evaluate
    from referee.scene import scene_from_dict
    report = evaluate(scene_from_dict(icehouse_scene(scene, match), "scene"), options=rule_options)
    return {c: int(report.scores.get(c, 0)) for c in match.players}
