"""Request guards: same-origin writes, JSON bodies, rate limits, stream caps, who is asking.

Identity comes from two HttpOnly, SameSite=Strict cookies scoped to the table's path: the
player's secret token and (on the device that created the table) the host token.
"""
from __future__ import annotations

import hmac
import threading
import time
from urllib.parse import urlsplit

from flask import abort, current_app, request

from webapp import store

PLAYER_COOKIE = "icetable_p_{code}"
HOST_COOKIE = "icetable_h_{code}"


def check_origin() -> None:
    """Refuse a write sent by a page of another origin (CSRF)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        abort(403, "request from another site refused")
    origin = request.headers.get("Origin")
    if origin is not None and urlsplit(origin).netloc != request.host:
        abort(403, "request from another origin refused")


def json_body() -> dict:
    """The request's JSON object; 415/400 otherwise (also for JSON nested too deep to read)."""
    if not request.is_json:
        abort(415, "send application/json")
    try:
        data = request.get_json(silent=True)
    except RecursionError:
        abort(400, "the JSON is nested too deeply")
    if not isinstance(data, dict):
        abort(400, "expected a JSON object")
    return data


def check_body() -> None:
    """A write's body is empty or a JSON object (the phone camera's JPEG route excepted)."""
    if request.endpoint == "camera.phone_frame":
        return
    if request.content_length or request.is_json or request.get_data(cache=True):
        json_body()


class RateLimiter:
    """Token buckets keyed by client (player token, else address): `burst` then `rate`/s."""

    def __init__(self, burst: int, rate: float):
        self.burst, self.rate = burst, rate
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens < 1:
                self._buckets[key] = (tokens, now)
                return False
            self._buckets[key] = (tokens - 1, now)
            if len(self._buckets) > 10000:
                self._buckets.clear()
            return True


def client_key(code: str | None) -> str:
    token = code and request.cookies.get(PLAYER_COOKIE.format(code=code.upper()))
    return f"p:{store.token_hash(token)}" if token else f"a:{request.remote_addr}"


def rate_limit(code: str | None) -> None:
    if not current_app.extensions["icetable"].limiter.allow(client_key(code)):
        abort(429, "too many requests: wait a moment")


class StreamCaps:
    """Open event streams counted per client and per table, each up to a cap: one client cannot
    hold the server's connections, nor crowd a table out."""

    def __init__(self, per_client: int, per_table: int):
        self.per_client, self.per_table = per_client, per_table
        self._lock = threading.Lock()
        self._clients: dict[str, int] = {}
        self._tables: dict[int, int] = {}

    def open(self, client: str, table_id: int) -> str | None:
        """Count a new stream; None, or why it is refused."""
        with self._lock:
            if self._clients.get(client, 0) >= self.per_client:
                return f"too many open streams from this client (at most {self.per_client})"
            if self._tables.get(table_id, 0) >= self.per_table:
                return f"too many open streams at this table (at most {self.per_table})"
            self._clients[client] = self._clients.get(client, 0) + 1
            self._tables[table_id] = self._tables.get(table_id, 0) + 1
            return None

    def close(self, client: str, table_id: int) -> None:
        with self._lock:
            for counts, key in ((self._clients, client), (self._tables, table_id)):
                counts[key] -= 1
                if not counts[key]:
                    del counts[key]


def current_player(db, table):
    """The seated player this request comes from, or None."""
    return store.player_by_token(db, table["id"],
                                 request.cookies.get(PLAYER_COOKIE.format(code=table["code"])))


def is_host(db, table, player=None) -> bool:
    """Host: the device holding the table's host token, or a player given the host role."""
    if player is not None and player["is_host"]:
        return True
    token = request.cookies.get(HOST_COOKIE.format(code=table["code"]))
    auth = request.headers.get("Authorization", "")
    if not token and auth.startswith("Bearer "):
        token = auth[7:]
    if not token or not table["host_hash"]:
        return False
    return hmac.compare_digest(store.token_hash(token), table["host_hash"])


def set_cookie(response, name: str, token: str, code: str) -> None:
    response.set_cookie(name, token, max_age=7 * 24 * 3600, path=f"/t/{code}", httponly=True,
                        samesite="Strict", secure=request.is_secure)
