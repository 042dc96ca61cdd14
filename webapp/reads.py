"""A table's state as read from the store, and per process one such read shared by all the
table's event streams.

A snapshot (webapp.state) is made of one `TableRead`: the seated players, the current game, the
camera's latest scene and report, the score sheet, the last die and the newest event id. A
table changes only together with an event (every write adds one, webapp.store), so a read stays
true until a newer event exists. `TableReads` keeps the latest read of each table and the events
that came after it: when an event wakes a table's streams (8 phones or more), the first one to
ask reads the table once and the others take that read, instead of each re-reading it (on
PostgreSQL each read is a round trip to another process, and the server's thread waits for it).
A stream asks for a read at least as new as the newest event it has heard of (the notifier's);
with no news, the table's events are still checked once per poll interval, for writers that
announce nothing.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

from webapp import store

KEEP_EVENTS = 200       # recent events kept per table; a stream further behind reads its own
PAGE = 200              # events read, or sent to a stream, at a time
IDLE = 600.0            # seconds after which a table nobody asked about is forgotten


@dataclass
class TableRead:
    table_id: int
    upto: int                       # the newest event id when it was read
    players: list
    game: object                    # the current games row, or None
    scene: dict | None
    report: dict | None
    last_die: dict | None
    sheet: list[dict] = field(default_factory=list)
    at: float = field(default_factory=time.monotonic)
    public: dict = field(default_factory=dict)     # state messages of unseated pages, by host flag

    @classmethod
    def load(cls, db, table_id: int) -> "TableRead":
        """The table now, in four queries (each is a round trip on PostgreSQL)."""
        row = db.execute(SUMMARY, (table_id,) * 3).fetchone()
        game = store.current_game(db, table_id)
        scene, report, die = (json.loads(row[k]) if row[k] else None for k in ("scene", "report", "die"))
        return cls(table_id, row["upto"], store.players(db, table_id), game, scene, report, die,
                   store.ledger(db, game["id"]) if game else [])

    def player(self, token: str | None):
        """The seated player holding `token`, or None."""
        digest = store.token_hash(token) if token else None
        return next((p for p in self.players if p["token_hash"] == digest), None)


# The newest event id, the latest scene and its report, and the latest die roll (shown to a
# phone that was away when it was rolled).
SUMMARY = """SELECT (SELECT COALESCE(MAX(id), 0) FROM events WHERE table_id = ?) AS upto,
    scenes.scene AS scene, scenes.report AS report,
    (SELECT payload FROM events WHERE table_id = ? AND kind = 'dice' ORDER BY id DESC LIMIT 1) AS die
FROM (SELECT 1) AS one LEFT JOIN scenes ON scenes.table_id = ?"""


class TableReads:
    """The latest read of each table and the events since (oldest first), shared by streams."""

    def __init__(self, poll: float):
        self.poll = poll
        self._guard = threading.Lock()      # reads never yield to another greenlet meanwhile
        self._reads: dict[int, TableRead] = {}
        self._events: dict[int, tuple[int, list]] = {}   # table -> (id the list starts after, rows)

    def read(self, db, table_id: int, newer_than: int) -> TableRead:
        """A read of the table that includes event `newer_than` (if the store has it) and is at
        most a poll interval old."""
        with self._guard:
            cached = self._reads.get(table_id)
            now = time.monotonic()
            if cached is not None and cached.upto >= newer_than and now - cached.at < self.poll:
                return cached
            if cached is not None and not self._more_events(db, table_id):
                cached.at = now
                return cached
            fresh = TableRead.load(db, table_id)
            if cached is None:
                self._forget_idle(now)
                self._events[table_id] = (fresh.upto, [])
            elif self._last_kept(table_id) < fresh.upto:        # events came meanwhile
                self._more_events(db, table_id)
            self._reads[table_id] = fresh
            return fresh

    def _forget_idle(self, now: float) -> None:
        for table_id in [t for t, r in self._reads.items() if now - r.at > IDLE]:
            del self._reads[table_id], self._events[table_id]

    def _last_kept(self, table_id: int) -> int:
        start, rows = self._events[table_id]
        return rows[-1]["id"] if rows else start

    def _more_events(self, db, table_id: int) -> bool:
        """Keep the table's events newer than those kept; whether there were any."""
        start, rows = self._events[table_id]
        before = len(rows)
        while True:
            batch = store.events_after(db, table_id, rows[-1]["id"] if rows else start, PAGE)
            rows = rows + list(batch)
            if len(batch) < PAGE:
                break
        added = len(rows) > before
        if len(rows) > KEEP_EVENTS:
            start, rows = rows[-KEEP_EVENTS - 1]["id"], rows[-KEEP_EVENTS:]
        self._events[table_id] = (start, rows)
        return added

    def events_after(self, table_id: int, after: int, upto: int) -> list | None:
        """The kept events with after < id <= upto, or None when `after` is older than those kept
        (the stream then reads its own)."""
        with self._guard:
            start, rows = self._events.get(table_id, (upto, []))
        if after < start:
            return None
        return [r for r in rows if after < r["id"] <= upto][:PAGE]
