"""Server-sent events: `/t/<code>/events`, one stream per page.

Each message carries an event of the table's log (its SSE id is the row id, so a phone that
reconnects with Last-Event-ID gets exactly what it missed), and each batch ends with a `state`
message: the recipient's snapshot, computed for him at send time from the table's read that
all its streams share (webapp.reads: one read per event, not one per phone). Under the gevent server an
open stream is a greenlet parked in the notifier, no thread; a phone that went away is noticed
at the next write (the heartbeat at the latest). Streams are capped per client and per table
(security.StreamCaps).
"""
from __future__ import annotations

import json
import sqlite3
import time

from flask import Blueprint, Response, abort, current_app, request

from webapp import store
from webapp.api import app_games, table_or_404
from webapp.db import UNAVAILABLE, StoreError, app_store, get_db, tell_operator
from webapp.security import PLAYER_COOKIE, client_key, is_host
from webapp.state import event_message, snapshot

bp = Blueprint("stream", __name__)


def sse(data: dict, event: str, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


@bp.get("/t/<code>/events")
def events(code: str):
    table = table_or_404(code)
    db = get_db()
    token = request.cookies.get(PLAYER_COOKIE.format(code=table["code"]))
    host = is_host(db, table)
    after = resume_after(db, table)
    state = current_app.extensions["icetable"]
    client = client_key(table["code"])
    refused = state.streams.open(client, table["id"])
    if refused:
        abort(429, refused)
    config = current_app.config
    stream = EventStream(app_store(), app_games(), state.reads, table, token, host, after, config["SSE_POLL"],
                         config["SSE_HEARTBEAT"], request.environ.get("icetable.gone"))
    response = Response(stream.run(), mimetype="text/event-stream",
                        headers={"X-Accel-Buffering": "no", "Cache-Control": "no-store"})
    response.call_on_close(lambda: state.streams.close(client, table["id"]))
    return response


def resume_after(db, table) -> int:
    """The event id a stream starts after: Last-Event-ID or ?since= (an id beyond the last
    one replays nothing), else the table's latest."""
    last = request.headers.get("Last-Event-ID") or request.args.get("since") or ""
    if last.isdigit():
        return int(last) if len(last) <= 15 else 10**15
    return store.last_event_id(db, table["id"])


class EventStream:
    """The generator behind one open stream; it holds no transaction."""

    def __init__(self, source, games, reads, table, token, host, after, poll, heartbeat, gone=None):
        self.source, self.games, self.reads = source, games, reads
        self.table, self.token, self.host = table, token, host
        self.after, self.poll, self.heartbeat = after, poll, heartbeat
        self.gone = gone or (lambda: False)
        self.player_gone = False

    def run(self):
        """The stream's messages. Its reads use the thread's shared read connection: a stream
        holds no file of its own (hundreds are open at once), and no read spans a yield."""
        try:
            db = self.source.reader()
            yield "retry: 2000\n\n"
            yield from self.batch(db, force=True)
            quiet_since = time.monotonic()
            while not self.gone():
                self.games.notifier.wait(self.table["id"], self.after, self.poll)
                sent = False
                for chunk in self.batch(db):
                    sent = True
                    yield chunk
                if self.player_gone:
                    return
                if sent:
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since >= self.heartbeat:
                    quiet_since = time.monotonic()
                    yield ": ping\n\n"
        except (StoreError, sqlite3.DatabaseError) as exc:
            tell_operator(exc)
            yield sse({"reason": UNAVAILABLE}, "unavailable")

    def batch(self, db, force: bool = False):
        """Missed events (all public), then the recipient's own snapshot if any was sent (or
        `force`), both from the table's shared read."""
        table_id = self.table["id"]
        read = self.reads.read(db, table_id, max(self.after, self.games.notifier.latest(table_id)))
        me = read.player(self.token)
        if self.token and me is None and not force:
            self.player_gone = True
            yield sse({"reason": "you are no longer seated at this table"}, "removed")
            return
        rows = self.reads.events_after(table_id, self.after, read.upto)
        if rows is None:        # further behind than the shared events go: its own read
            rows = [r for r in store.events_after(db, table_id, self.after) if r["id"] <= read.upto]
        for row in rows:
            self.after = row["id"]
            yield sse(event_message(row), row["kind"], row["id"])
        if rows or force:
            yield self.state_message(db, read, me)

    def state_message(self, db, read, me) -> str:
        """The recipient's snapshot as a message. Pages of no seated player (onlookers, the
        table page) all see the same public snapshot: made once per read."""
        host = self.host or bool(me and me["is_host"])
        if me is not None:
            return sse(snapshot(db, self.games, self.table, me, host, read), "state")
        if host not in read.public:
            read.public[host] = sse(snapshot(db, self.games, self.table, None, host, read), "state")
        return read.public[host]
