"""The icetable web app: phones join a table by QR code, vote, roll dice and see the referee.

`create_app(test_config)` is the app factory (flaskr style); `icetable serve` runs it on
gevent's WSGI server (webapp.serving). The store is one SQLite file in the data directory,
created on first start, or a PostgreSQL database (`DATABASE_URL`) shared by several servers.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from webapp import db as store_db
from webapp import replies as request_ids
from webapp.games import Games
from webapp.notify import Notifier
from webapp.reads import TableReads
from webapp.security import RateLimiter, StreamCaps, check_body, check_origin, rate_limit


@dataclass
class AppState:
    """Objects shared by every request thread of one app."""

    notifier: Notifier
    games: Games
    limiter: RateLimiter
    store: object                 # SqliteStore or PostgresStore
    replies: request_ids.Replies
    streams: StreamCaps
    reads: TableReads             # each table's latest read, shared by its event streams


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        DATA_DIR=app.instance_path,
        PUBLIC_URL=None,            # base URL for QR codes, e.g. http://192.168.1.20:8000
        RATE_BURST=30,              # writes per client: a burst of 30, then 5 per second
        RATE_PER_SECOND=5.0,
        SSE_HEARTBEAT=15.0,         # seconds between keep-alive comments on an idle stream
        SSE_POLL=1.0,               # seconds between re-reads of the events table
        MAX_CONTENT_LENGTH=512 * 1024,
        DATABASE_URL=None,          # postgresql://... : the shared store instead of SQLite
        STREAMS_PER_CLIENT=8,       # open event streams per phone (or per address, unseated)
        STREAMS_PER_TABLE=64,       # open event streams per table
    )
    if test_config:
        app.config.update(test_config)
    app.config["DATABASE"] = os.path.join(app.config["DATA_DIR"], store_db.DB_NAME)
    store = open_store(app.config)
    notifier = Notifier()
    if hasattr(store, "listen"):
        store.listen(notifier.published)
    app.extensions["icetable"] = AppState(
        notifier, Games(notifier, store), RateLimiter(app.config["RATE_BURST"], app.config["RATE_PER_SECOND"]),
        store, request_ids.Replies(), StreamCaps(app.config["STREAMS_PER_CLIENT"], app.config["STREAMS_PER_TABLE"]),
        TableReads(app.config["SSE_POLL"]))
    app.teardown_appcontext(store_db.close_db)
    app.teardown_request(request_ids.release)

    from webapp import api, camera, host, pages, stream
    for bp in (pages.bp, api.bp, host.bp, stream.bp, camera.bp):
        app.register_blueprint(bp)

    app.before_request(_guard_writes)
    app.after_request(_headers)
    app.register_error_handler(HTTPException, _json_error)
    app.register_error_handler(store_db.StoreError, _unavailable)
    app.register_error_handler(sqlite3.DatabaseError, _unavailable)
    if app.config["DATABASE_URL"]:
        import psycopg
        app.register_error_handler(psycopg.OperationalError, _unavailable)
    return app


def open_store(config):
    """The app's store: PostgreSQL when DATABASE_URL is set, else the SQLite file in DATA_DIR.
    Raises StoreError (one line) when it cannot be used."""
    if config["DATABASE_URL"]:
        from webapp.pg import PostgresStore
        return PostgresStore(config["DATABASE_URL"])
    from webapp.sqlite_store import SqliteStore
    return SqliteStore(config["DATA_DIR"])


def _guard_writes():
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        check_origin()
        rate_limit((request.view_args or {}).get("code"))
        check_body()
        return request_ids.repeat_answer()
    return None


def _headers(response):
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; form-action 'self'")
    if response.mimetype in ("application/json", "text/event-stream"):
        response.headers["Cache-Control"] = "no-store"
    response.headers["Server"] = "icetable"
    return request_ids.keep_answer(response)


def _json_error(exc: HTTPException):
    if request.path.startswith("/t/") or request.path.startswith("/tables") or not request.accept_mimetypes.accept_html:
        return jsonify(error=exc.description), exc.code
    return exc


UNAVAILABLE_PAGE = """<!doctype html><meta charset="utf-8"><meta name="viewport"
content="width=device-width"><title>icetable: table unavailable</title><h1>This table is unavailable</h1>
<p>The table's server cannot read its records right now. Nothing you sent before was lost.
Tell the host; this page works again once the server is back.</p>"""


def _unavailable(exc):
    """503 instead of a 500 when the store fails: the operator gets one line (once a minute per
    problem), players a page or a JSON error that says the table is unavailable."""
    store_db.tell_operator(exc)
    if request.method == "GET" and request.accept_mimetypes.accept_html and not request.path.endswith(
            ("/state", "/events", ".json", ".csv", ".jsonl")):
        return UNAVAILABLE_PAGE, 503, {"Content-Type": "text/html; charset=utf-8", "Retry-After": "5"}
    return jsonify(error=store_db.UNAVAILABLE), 503, {"Retry-After": "5"}


def start_clock(app: Flask, interval: float = 0.5) -> threading.Event:
    """A daemon thread that fires due Icehouse timers every `interval` s; set the event to stop."""
    stop = threading.Event()
    games = app.extensions["icetable"].games

    def run():
        while not stop.wait(interval):
            try:
                conn = games.store.read()
                try:
                    games.fire_due_timers(conn)
                finally:
                    conn.close()
            except store_db.StoreError as exc:
                app.logger.error("timer check: %s", exc)
            except Exception:   # keep the clock alive; the next tick retries
                app.logger.exception("timer check failed")

    threading.Thread(target=run, name="icetable-clock", daemon=True).start()
    return stop
