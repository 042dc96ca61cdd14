"""Wake-up hints for event streams: the events table is the truth, this only saves polling.

A writer calls `published(table_id, event_id)` after its transaction commits; streams of that
table wait in `wait(table_id, after, timeout)`. Events written by another process are still
found, by the streams' periodic re-read of the table.
"""
from __future__ import annotations

import threading


class Notifier:
    def __init__(self):
        self._guard = threading.Lock()
        self._conds: dict[int, threading.Condition] = {}
        self._latest: dict[int, int] = {}

    def _cond(self, table_id: int) -> threading.Condition:
        with self._guard:
            return self._conds.setdefault(table_id, threading.Condition())

    def published(self, table_id: int, event_id: int) -> None:
        cond = self._cond(table_id)
        with cond:
            self._latest[table_id] = max(event_id, self._latest.get(table_id, 0))
            cond.notify_all()

    def wait(self, table_id: int, after: int, timeout: float) -> bool:
        """Block until an event newer than `after` is announced, or `timeout` seconds pass."""
        cond = self._cond(table_id)
        with cond:
            return cond.wait_for(lambda: self._latest.get(table_id, 0) > after, timeout)
