"""Shared helpers for the web app tests: an app on a temporary store, simulated phones (Flask
test client or real HTTP), a real waitress server on loopback, and an SSE reader."""
from __future__ import annotations

import http.client
import json
import threading
import time

from waitress import wasyncore
from waitress.server import create_server

from webapp import create_app

FAST = {"RATE_BURST": 10000, "RATE_PER_SECOND": 10000.0, "SSE_POLL": 0.2, "SSE_HEARTBEAT": 5.0}


def make_app(data_dir, **config):
    return create_app({"DATA_DIR": str(data_dir), "TESTING": True, **FAST, **config})


class Phone:
    """A phone driving the app through Flask's test client (its own cookie jar)."""

    def __init__(self, app, code: str):
        self.client, self.code = app.test_client(), code
        self.side = None

    def post(self, path: str, body: dict | None = None, **kw):
        return self.client.post(f"/t/{self.code}{path}", json=body or {}, **kw)

    def join(self, name: str, side: str):
        r = self.post("/join", {"name": name, "side": side})
        assert r.status_code in (200, 201), r.json
        self.side = side
        return r

    def state(self) -> dict:
        return self.client.get(f"/t/{self.code}/state").json

    def act(self, action: dict):
        return self.post("/act", action)


def new_table(app, game: str, options: dict | None = None):
    """(host test client, table code) of a new table created by the host device."""
    host = app.test_client()
    r = host.post("/tables", json={"game": game, "options": options or {}})
    assert r.status_code == 201, r.json
    return host, r.json["code"]


def seat(app, code: str, sides: list[str]) -> list[Phone]:
    phones = []
    for i, side in enumerate(sides):
        phone = Phone(app, code)
        phone.join(f"P{i}{side[:3]}", side)
        phones.append(phone)
    return phones


def advance(phones: list[Phone], done, limit: int = 400) -> dict:
    """Let whoever must act play his first legal choice until `done(state)`; the state then."""
    by_side = {p.side: p for p in phones}
    for _ in range(limit):
        state = phones[0].state()
        if done(state):
            return state
        side = state["game"]["to_act"][0]
        legal = by_side[side].state()["game"]["legal"]
        r = by_side[side].act({k: v for k, v in legal[0].items() if k != "player"})
        assert r.status_code == 200, r.json
    raise AssertionError("the game did not reach the expected state")


def in_phase(phase: str):
    return lambda s: s["game"]["view"].get("phase") == phase


class LiveServer:
    """A real waitress server on 127.0.0.1, on a free port, in a background thread."""

    def __init__(self, app, threads: int = 48, port: int = 0):
        self.app = app
        self.server = create_server(app, host="127.0.0.1", port=port, threads=threads,
                                    connection_limit=1000, channel_request_lookahead=5)
        self.port = self.server.effective_port
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Close the listening socket and every open connection (streams end), then the pool."""
        wasyncore.close_all(self.server._map)
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=2)
        self.thread.join(timeout=5)


class HttpPhone:
    """A phone talking real HTTP to a LiveServer, keeping its cookies."""

    def __init__(self, port: int, code: str):
        self.port, self.code, self.cookies, self.side = port, code, {}, None

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            h = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()), **(headers or {})}
            if body is not None:
                h["Content-Type"] = "application/json"
            conn.request(method, path, body=None if body is None else json.dumps(body), headers=h)
            response = conn.getresponse()
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                self.cookies[name] = rest.split(";")[0]
            return response.status, json.loads(response.read() or b"{}")
        finally:
            conn.close()

    def join(self, name: str, side: str):
        self.side = side
        return self.request("POST", f"/t/{self.code}/join", {"name": name, "side": side})

    def state(self) -> dict:
        return self.request("GET", f"/t/{self.code}/state")[1]

    def act(self, action: dict):
        return self.request("POST", f"/t/{self.code}/act", action)

    def open_stream(self, last_id: int | None = None) -> "SseReader":
        return SseReader(self.port, f"/t/{self.code}/events", self.cookies, last_id)


class SseReader:
    """Reads server-sent events from a real connection in a background thread."""

    def __init__(self, port: int, path: str, cookies: dict, last_id: int | None = None):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
                   "Accept": "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = str(last_id)
        self.conn.request("GET", path, headers=headers)
        self.sock = self.conn.sock
        self.response = self.conn.getresponse()
        self.messages: list[dict] = []      # {"id", "event", "data", "at"}
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        fields: dict = {}
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return
                line = line.decode().rstrip("\n")
                if line == "":
                    if "data" in fields:
                        fields["data"] = json.loads(fields["data"])
                        fields["at"] = time.perf_counter()
                        with self.cond:
                            self.messages.append(fields)
                            self.cond.notify_all()
                    fields = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(": ")
                    fields[key] = value
        except (OSError, ValueError, http.client.HTTPException):
            return

    def wait_for(self, predicate, timeout: float = 10.0) -> dict:
        """The first message satisfying `predicate`, waiting up to `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for m in self.messages:
                    if predicate(m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no such event arrived")
                self.cond.wait(left)

    def close(self) -> None:
        try:
            self.sock.shutdown(2)
        except OSError:
            pass
        self.conn.close()
