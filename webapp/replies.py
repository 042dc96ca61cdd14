"""Request ids: a tap sent twice is applied once, and the repeat gets the first answer.

Every write from the pages carries an `X-Request-Id` header (a random id per tap, kept when
the page retries it). The first request with an id runs; a repeat that arrives while it runs
waits for it; a later one gets the stored answer. A route that changes the store names its
answer with the write (`answer(value) -> (body, status)`): the answer is then stored in the
same transaction as what the request changed (`with_marker`), so even after a crash between
the commit and the reply, a repeat gets that first answer and changes nothing. (A write made
without an answer still stores the id as applied; a repeat of it gets `{"ok": true,
"repeated": true}`.) Answers are kept in memory (with their cookies) and in the `replies`
table (without: tokens are never stored); stored ones older than `KEEP_HOURS` are pruned.
Ids are per client and route: another phone cannot reuse one to read an answer.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import OrderedDict

import gevent.event
from flask import Response, abort, current_app, g, has_request_context, request

HEADER = "X-Request-Id"
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{8,64}")
MEMORY = 20000          # answers kept in memory
WAIT = 30.0             # seconds a repeat waits for the first to finish
KEEP_HOURS = 12.0       # stored answers kept this long: a page retries a tap for minutes, not hours
PRUNE_EVERY = 600.0     # seconds between prunings


def request_key() -> str | None:
    """The request's id, bound to its client and route; None without an id (scripts)."""
    rid = request.headers.get(HEADER)
    if rid is None:
        return None
    if not ID_PATTERN.fullmatch(rid):
        abort(400, f"{HEADER} must be 8 to 64 letters, digits, - or _")
    who = sorted((k, v) for k, v in request.cookies.items() if k.startswith("icetable_"))
    material = json.dumps([request.method, request.path, rid, who or request.remote_addr,
                           request.headers.get("Authorization", "")])
    return hashlib.sha256(material.encode()).hexdigest()


def with_marker(fn, answer=None):
    """`fn` (a write job) that also records the current request's id as applied and, given
    `answer` (the job's value -> (body, status)), the request's answer: one transaction."""
    key = g.get("request_key") if has_request_context() else None
    if key is None:
        return fn

    def job(conn):
        value = fn(conn)
        status, body = None, None
        if answer is not None:
            body, status = answer_text(answer, value)
        conn.execute("INSERT INTO replies (key, status, body, created) VALUES (?, ?, ?, ?) ON CONFLICT (key) "
                     "DO UPDATE SET status = COALESCE(excluded.status, replies.status), "
                     "body = COALESCE(excluded.body, replies.body)", (key, status, body, time.time()))
        return value
    return job


def answer_text(answer, value) -> tuple[str, int]:
    body, status = answer(value)
    return json.dumps(body, separators=(",", ":")), status


def respond(answer, value) -> Response:
    """The response to a write whose answer was stored with it: the same text."""
    body, status = answer_text(answer, value)
    g.answer_stored = True
    return Response(body, status, mimetype="application/json")


def prune(conn) -> int:
    """Forget stored answers older than KEEP_HOURS (a write job); returns how many. A repeat
    of a pruned request is a new request (the in-memory answers, `MEMORY`, still hold it
    until the server restarts)."""
    return conn.execute("DELETE FROM replies WHERE created < ?", (time.time() - KEEP_HOURS * 3600,)).rowcount


class Replies:
    """First answers by request key, and the requests running now."""

    def __init__(self):
        self._guard = threading.Lock()
        self._answers: OrderedDict[str, tuple] = OrderedDict()
        self._running: dict[str, gevent.event.Event] = {}

    def begin(self, key: str, read) -> tuple | None:
        """The first answer (status, body, cookies) if `key` was answered; else None, and the
        caller runs the request and calls `finish`. `read()` gives a store connection."""
        while True:
            with self._guard:
                if key in self._answers:
                    return self._answers[key]
                running = self._running.get(key)
                if running is None:
                    self._running[key] = gevent.event.Event()
                    break
            running.wait(WAIT)
        row = read().execute("SELECT status, body FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        self.finish(key, None)
        if row["status"] is None:      # applied, but the server stopped before it answered
            return 200, json.dumps({"ok": True, "repeated": True}), []
        return row["status"], row["body"], []

    def finish(self, key: str, answer: tuple | None, store=None) -> None:
        """Record the answer (None: the request failed and may be tried again) and wake the
        repeats waiting for it; `store` keeps it durably too (not waited for)."""
        with self._guard:
            if answer is not None:
                self._answers[key] = answer
                while len(self._answers) > MEMORY:
                    self._answers.popitem(last=False)
            running = self._running.pop(key, None)
        if running is not None:
            running.set()
        if answer is not None and store is not None:
            status, body, _ = answer
            store.submit(lambda conn: conn.execute(
                "INSERT INTO replies (key, status, body, created) VALUES (?, ?, ?, ?) ON CONFLICT (key) "
                "DO UPDATE SET status = excluded.status, body = excluded.body",
                (key, status, body, time.time())))


def replies() -> Replies:
    return current_app.extensions["icetable"].replies


def repeat_answer():
    """Before a write: the first answer if this is a repeat (or None to go on)."""
    key = request_key()
    if key is None:
        return None
    from webapp.db import get_db
    answer = replies().begin(key, get_db)
    if answer is None:
        g.request_key = key
        return None
    status, body, cookies = answer
    response = Response(body, status, mimetype="application/json")
    for cookie in cookies:
        response.headers.add("Set-Cookie", cookie)
    response.headers["X-Repeated"] = "1"
    return response


def keep_answer(response):
    """After a write: keep its answer for repeats (not a server failure: that may be retried),
    in memory, and in the store unless it was stored with the write (`respond`)."""
    key = g.pop("request_key", None)
    if key is not None:
        ok = response.status_code < 500 and response.mimetype == "application/json"
        answer = (response.status_code, response.get_data(as_text=True),
                  response.headers.getlist("Set-Cookie")) if ok else None
        stored = g.pop("answer_stored", False)
        replies().finish(key, answer, None if stored else current_app.extensions["icetable"].store)
    return response


def release(_exc=None) -> None:
    """After a request that raised: let a repeat run it again."""
    key = g.pop("request_key", None)
    if key is not None:
        replies().finish(key, None)
