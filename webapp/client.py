"""A small HTTP client for the web app, as a phone uses it: JSON requests with the phone's
cookies, and a reader of its event stream. Used by the tests and the benchmark."""
from __future__ import annotations

import http.client
import json
import threading
import time


class HttpPhone:
    """A phone talking real HTTP to a server, keeping its cookies."""

    def __init__(self, port: int, code: str, source: str | None = None):
        """`source`: the loopback address to send from (127.0.0.x), as if from another device."""
        self.port, self.code, self.cookies, self.side, self.source = port, code, {}, None, source

    def connection(self, timeout: float) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                          source_address=(self.source, 0) if self.source else None)

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        conn = self.connection(10)
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
        return SseReader(self.connection(120), f"/t/{self.code}/events", self.cookies, last_id)


class SseReader:
    """Reads server-sent events from a real connection in a background thread."""

    def __init__(self, conn: http.client.HTTPConnection, path: str, cookies: dict, last_id: int | None = None):
        self.conn = conn
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
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            return      # closed by close(): http.client then reads a chunk of a closed socket

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



def play_first_choices(phones: list[HttpPhone], done, limit: int = 400) -> dict | None:
    """Whoever must act plays his first legal choice until `done(game)` holds for the game part
    of the snapshot; that game, or None if the game ends or `limit` actions pass first."""
    by_side = {p.side: p for p in phones}
    for _ in range(limit):
        game = phones[0].state()["game"]
        if done(game):
            return game
        if game["status"] != "playing":
            return None
        phone = by_side[game["to_act"][0]]
        choice = dict(phone.state()["game"]["legal"][0])
        choice.pop("player")
        phone.act(choice)
    return None
