"""Wake-up hints for event streams: the events table is the truth, this only saves polling.

A writer calls `published(table_id, event_id)` after its transaction commits (from any thread;
with PostgreSQL also the LISTEN thread, for events written by other servers); streams of that
table wait in `wait(table_id, after, timeout)`. The wait is a gevent event: under the gevent
server a waiting stream is a parked greenlet, no thread; in a plain thread it simply blocks.
Streams still check the table every poll, for writers that announce nothing.
"""
from __future__ import annotations

import threading

import gevent.event


class Notifier:
    def __init__(self):
        self._guard = threading.Lock()          # held only for dict updates, never across a wait
        self._events: dict[int, gevent.event.Event] = {}
        self._latest: dict[int, int] = {}

    def published(self, table_id: int, event_id: int) -> None:
        with self._guard:
            self._latest[table_id] = max(event_id, self._latest.get(table_id, 0))
            event = self._events.pop(table_id, None)
        if event is not None:
            event.set()

    def latest(self, table_id: int) -> int:
        """The newest event id announced for the table (0: none yet)."""
        with self._guard:
            return self._latest.get(table_id, 0)

    def wait(self, table_id: int, after: int, timeout: float) -> bool:
        """Block until an event newer than `after` is announced, or `timeout` seconds pass."""
        with self._guard:
            if self._latest.get(table_id, 0) > after:
                return True
            event = self._events.setdefault(table_id, gevent.event.Event())
        return event.wait(timeout)
