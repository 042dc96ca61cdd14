"""Web app: a ballot stays sealed until its reveal in every channel, whatever the host does.

Each case casts one ballot (suns votes), lets the host do one thing (or a sequence), then reads
every GET route of the app as every kind of client (the other players, the host, a stranger,
a newcomer on a freed seat) and checks that the ballot is nowhere: no `mine`, no `ballots`, no
suns ballot in a record, no value in an event. Then the vote goes on and reveals normally.
"""
from __future__ import annotations

import json

import pytest

from tests.webapp_helpers import Phone, advance, at_first_vote, in_phase, make_app, seat, sse_text
from webapp import db as store_db

SUITS = ["suns", "moons", "crowns"]


@pytest.fixture
def table(tmp_path):
    """(app, host client, code, phones, ballot value) with suns' ballot cast in an open vote."""
    app = make_app(tmp_path)
    host, code, phones, state = at_first_vote(app, SUITS)
    value = state["game"]["view"]["vote"]["options"][-1]
    assert phones[0].act({"type": "vote_number", "value": value}).status_code == 200
    return app, host, code, phones, value


def read_all(app, client, code: str) -> dict[str, str]:
    """The body of every GET route of the app for `client`, the event stream replayed from 0."""
    out = {}
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or not rule.arguments <= {"code"} or rule.endpoint == "static":
            continue
        path = rule.rule.replace("<code>", code)
        if rule.endpoint == "stream.events":
            out[path] = sse_text(client, path + "?since=0")
            continue
        for query in ("", "?game=1"):
            r = client.get(path + query)
            out[path + query] = r.data.decode(errors="replace")
    return out


def assert_sealed(app, code: str, clients: dict, value) -> None:
    for who, client in clients.items():
        for path, body in read_all(app, client, code).items():
            where = f"{who} reading {path}"
            assert '"mine"' not in body and '"ballots"' not in body, where
            if path.endswith("record.jsonl") and body.startswith("{"):
                steps = [json.loads(line) for line in body.splitlines()[1:]]
                assert not [s for s in steps if s.get("action", s).get("type") == "vote_number"
                            and s.get("action", s).get("player") == "suns"], where
    conn = app.extensions["icetable"].store.read()          # SQLite or PostgreSQL
    for row in conn.execute("SELECT kind, payload FROM events").fetchall():
        assert "ballots" not in row["payload"] and "value" not in json.loads(row["payload"])


def remove(host, code, phones, side):
    pid = next(p["id"] for p in phones[0].state()["players"] if p["side"] == side)
    return host.post(f"/t/{code}/host/remove", json={"player": pid})


HOST_ACTIONS = {
    "nothing": [],
    "start again": [("post", "/host/start", {})],
    "undo": [("post", "/host/undo", {})],
    "undo twice": [("post", "/host/undo", {}), ("post", "/host/undo", {})],
    "end": [("post", "/host/end", {})],
    "end then undo": [("post", "/host/end", {}), ("post", "/host/undo", {})],
    "end then a new game": [("post", "/host/end", {}), ("post", "/host/start", {})],
    "score by hand": [("post", "/host/score", {"side": "moons", "points": 2})],
    "rule on a call": [("post", "/host/confirm", {"kind": "x"})],
    "post a scene": [("post", "/scene", {"game": "icefloe", "pieces": []})],
    "roll a die": [("post", "/dice", {})],
    "camera acts for moons": [("post", "/camera/act", {"player": "moons", "type": "vote_number", "value": 1})],
    "camera correction": [("post", "/camera/correct", {"id": "x", "confirm": True})],
    "remove suns": [("remove", "suns")],
    "remove moons": [("remove", "moons")],
    "remove suns, end, undo": [("remove", "suns"), ("post", "/host/end", {}), ("post", "/host/undo", {})],
}


@pytest.mark.parametrize("case", list(HOST_ACTIONS))
def test_no_host_action_unseals_a_ballot(table, case):
    app, host, code, phones, value = table
    for step in HOST_ACTIONS[case]:
        if step[0] == "remove":
            assert remove(host, code, phones, step[1]).status_code == 200
        else:
            host.post(f"/t/{code}{step[1]}", json=step[2])
    clients = {"host": host, "stranger": app.test_client(), "moons": phones[1].client,
               "crowns": phones[2].client}
    freed = [s for s in SUITS if s not in {p["side"] for p in phones[1].state()["players"]}]
    for side in freed:
        newcomer = Phone(app, code)
        newcomer.join(f"new {side}", side)
        clients[f"newcomer on {side}"] = newcomer.client
        game = newcomer.state()["game"]
        if game and game["status"] == "playing" and game["view"].get("phase") == "vote":
            assert "mine" not in game["view"]["vote"] and side in game["to_act"]
    assert_sealed(app, code, clients, value)


def test_the_host_seated_in_serve_mode_cannot_read_ballots_by_ending(tmp_path):
    """`serve --game`: the first seated player is the host; ending, exporting and undoing
    does not show him the others' ballots before he votes."""
    app = make_app(tmp_path)
    client = app.test_client()
    code = client.post("/tables", json={"game": "icefloe"}).json["code"]
    conn = store_db.connect(app.config["DATABASE"])
    conn.execute("UPDATE tables SET host_hash = NULL WHERE code = ?", (code,))
    host, b, c = seat(app, code, SUITS)
    assert host.post("/host/start", {"seed": 5}).status_code == 201
    state = advance([host, b, c], in_phase("vote"))
    value = state["game"]["view"]["vote"]["options"][0]
    b.act({"type": "vote_number", "value": value})
    c.act({"type": "vote_number", "value": value})
    assert host.client.get(f"/t/{code}/record.jsonl").status_code == 409
    assert host.post("/host/end").status_code == 200
    record = host.client.get(f"/t/{code}/record.jsonl")
    assert record.status_code == 200 and "vote_number" not in record.data.decode()
    assert host.post("/host/undo").json["undone"] == {"player": None, "type": "end"}
    view = host.state()["game"]["view"]
    assert view["vote"]["voted"] == ["crowns", "moons"] and "ballots" not in json.dumps(view)
    assert host.act({"type": "vote_number", "value": value}).status_code == 200
    assert host.state()["game"]["view"]["this_round"]["number"]["ballots"] == dict.fromkeys(SUITS, value)


def test_record_is_the_hosts_while_playing_and_everyones_after(table):
    app, host, code, (a, b, c), value = table
    assert b.client.get(f"/t/{code}/record.jsonl").status_code == 403
    assert host.get(f"/t/{code}/record.jsonl").status_code == 409      # a ballot is sealed
    b.act({"type": "vote_number", "value": value})
    c.act({"type": "vote_number", "value": value})
    r = host.get(f"/t/{code}/record.jsonl")
    assert r.status_code == 200 and r.data.decode().count("vote_number") == 3
    assert b.client.get(f"/t/{code}/record.jsonl").status_code == 403
    host.post(f"/t/{code}/host/end", json={})
    assert b.client.get(f"/t/{code}/record.jsonl").data == host.get(f"/t/{code}/record.jsonl").data


def test_a_freed_seat_votes_afresh_and_the_vote_reveals(table):
    app, host, code, (a, b, c), value = table
    assert remove(host, code, [b], "suns").status_code == 200
    newcomer = Phone(app, code)
    newcomer.join("Nell", "suns")
    assert newcomer.state()["game"]["view"]["vote"]["voted"] == []
    for phone in (newcomer, b, c):
        assert phone.act({"type": "vote_number", "value": 1}).status_code == 200
    assert b.state()["game"]["view"]["this_round"]["number"]["ballots"] == dict.fromkeys(SUITS, 1)
