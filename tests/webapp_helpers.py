"""Shared helpers for the web app tests: an app on a temporary store and simulated phones on
Flask's test client (real HTTP phones are webapp.client, a real server webapp.serving)."""
from __future__ import annotations

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


def at_first_vote(app, sides: list[str], seed: int = 5):
    """(host client, code, phones, state) of an IceFloe game between `sides` at its first vote."""
    host, code = new_table(app, "icefloe")
    phones = seat(app, code, sides)
    assert host.post(f"/t/{code}/host/start", json={"seed": seed}).status_code == 201
    return host, code, phones, advance(phones, in_phase("vote"))


def sse_text(client, path: str) -> str:
    """What an event stream at `path` (with its query) sends, up to its first state message."""
    response = client.get(path, buffered=False)
    text = ""
    for chunk in response.response:
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        if "event: state" in text:
            break
    response.close()
    return text
