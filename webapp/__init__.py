"""The icetable web app: phones join a table by QR code, vote, roll dice and see the referee.

`create_app(test_config)` is the app factory (flaskr style); `icetable serve` runs it under
waitress. The store is one SQLite file in the data directory, created on first start.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from webapp import db as store_db
from webapp.games import Games
from webapp.notify import Notifier
from webapp.security import RateLimiter, check_origin, rate_limit


@dataclass
class AppState:
    """Objects shared by every request thread of one app."""

    notifier: Notifier
    games: Games
    limiter: RateLimiter


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
    )
    if test_config:
        app.config.update(test_config)
    app.config["DATABASE"] = os.path.join(app.config["DATA_DIR"], store_db.DB_NAME)
    store_db.init_db(app.config["DATABASE"])

    notifier = Notifier()
    app.extensions["icetable"] = AppState(
        notifier, Games(notifier), RateLimiter(app.config["RATE_BURST"], app.config["RATE_PER_SECOND"]))
    app.teardown_appcontext(store_db.close_db)

    from webapp import api, camera, host, pages, stream
    for bp in (pages.bp, api.bp, host.bp, stream.bp, camera.bp):
        app.register_blueprint(bp)

    app.before_request(_guard_writes)
    app.after_request(_headers)
    app.register_error_handler(HTTPException, _json_error)
    return app


def _guard_writes() -> None:
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        check_origin()
        rate_limit((request.view_args or {}).get("code"))


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
    return response


def _json_error(exc: HTTPException):
    if request.path.startswith("/t/") or request.path.startswith("/tables") or not request.accept_mimetypes.accept_html:
        return jsonify(error=exc.description), exc.code
    return exc


def start_clock(app: Flask, interval: float = 0.5) -> threading.Event:
    """A daemon thread that fires due Icehouse timers every `interval` s; set the event to stop."""
    stop = threading.Event()
    games = app.extensions["icetable"].games

    def run():
        while not stop.wait(interval):
            conn = store_db.connect(app.config["DATABASE"])
            try:
                games.fire_due_timers(conn)
            except Exception:   # keep the clock alive; the next tick retries
                app.logger.exception("timer check failed")
            finally:
                conn.close()

    threading.Thread(target=run, name="icetable-clock", daemon=True).start()
    return stop
