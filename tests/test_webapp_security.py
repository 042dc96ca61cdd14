"""Web app security: other origins refused, JSON only, rate limits, host-only routes, headers."""
from __future__ import annotations

import pytest

from tests.webapp_helpers import Phone, make_app, new_table, seat, sse_text

HOST_ROUTES = ["/host/start", "/host/undo", "/host/remove", "/host/end", "/host/score", "/host/confirm",
               "/scene"]


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path)


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "http://localhost.evil.example"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
])
def test_writes_from_other_origins_are_refused(app, headers):
    _, code = new_table(app, "icefloe")
    phone = Phone(app, code)
    r = phone.post("/join", {"name": "Eve", "side": "suns"}, headers=headers)
    assert r.status_code == 403 and "refused" in r.json["error"]
    assert phone.state()["players"] == []
    assert app.test_client().post("/tables", json={"game": "icefloe"}, headers=headers).status_code == 403


def test_same_origin_writes_pass(app):
    _, code = new_table(app, "icefloe")
    r = Phone(app, code).post("/join", {"name": "Ann", "side": "suns"},
                              headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 201


def test_writes_must_be_json_objects(app):
    _, code = new_table(app, "icefloe")
    client = app.test_client()
    form = client.post(f"/t/{code}/join", data={"name": "Ann", "side": "suns"})
    assert form.status_code == 415
    listed = client.post(f"/t/{code}/join", json=["Ann", "suns"])
    assert listed.status_code == 400
    big = client.post(f"/t/{code}/join", json={"name": "x" * 600_000, "side": "suns"})
    assert big.status_code == 413


def test_writes_are_rate_limited_per_client(tmp_path):
    app = make_app(tmp_path, RATE_BURST=5, RATE_PER_SECOND=0.01)
    host, code = new_table(app, "icefloe")
    (phone,) = seat(app, code, ["suns"])
    statuses = [phone.post("/dice").status_code for _ in range(6)]
    assert statuses[:4] == [200] * 4 and statuses[-1] == 429     # the join used one token
    other = Phone(app, code)
    other.client.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    assert other.post("/join", {"name": "Bob", "side": "moons"}).status_code == 201
    assert phone.client.get(f"/t/{code}/state").status_code == 200   # reads are not limited


@pytest.mark.parametrize("route", HOST_ROUTES)
def test_players_and_strangers_cannot_act_as_host(app, route):
    _, code = new_table(app, "icehouse")
    (player,) = seat(app, code, ["red"])
    assert player.post(route, {}).status_code == 403
    assert app.test_client().post(f"/t/{code}{route}", json={}).status_code == 403


def test_host_cookie_of_one_table_is_no_key_to_another(app):
    host, code = new_table(app, "icefloe")
    other_host, other = new_table(app, "icefloe")
    assert host.post(f"/t/{other}/host/undo", json={}).status_code == 403


def test_responses_carry_protective_headers(app):
    _, code = new_table(app, "icefloe")
    r = app.test_client().get(f"/t/{code}/state")
    assert r.headers["Cache-Control"] == "no-store"
    assert r.headers["X-Frame-Options"] == "DENY" and r.headers["Referrer-Policy"] == "no-referrer"
    assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_errors_are_one_json_line(app):
    r = app.test_client().post("/t/NOPE/act", json={"type": "x"})
    assert r.status_code == 404 and r.json == {"error": "no table 'NOPE'"}


def test_deeply_nested_json_is_a_clear_400(app):
    _, code = new_table(app, "icefloe")
    deep = "[" * 100_000 + "]" * 100_000
    r = app.test_client().post(f"/t/{code}/join", data=deep, content_type="application/json")
    assert r.status_code == 400 and r.json == {"error": "the JSON is nested too deeply"}


@pytest.mark.parametrize("route", ["/host/undo", "/host/end", "/host/start", "/dice"])
def test_writes_without_a_json_object_body_are_refused(app, route):
    host, code = new_table(app, "icefloe")
    form = host.post(f"/t/{code}{route}", data={"x": "1"})
    text = host.post(f"/t/{code}{route}", data="undo please", content_type="text/plain")
    listed = host.post(f"/t/{code}{route}", json=[1])
    assert (form.status_code, text.status_code, listed.status_code) == (415, 415, 400)


def test_a_huge_since_replays_nothing_and_keeps_the_stream(app):
    _, code = new_table(app, "icefloe")
    for since in ("9" * 5000, str(2**70)):
        text = sse_text(app.test_client(), f"/t/{code}/events?since={since}")
        assert "event: state" in text and "event: joined" not in text


@pytest.mark.parametrize("reason", ["=1+1", " =1+1", "\t=1+1", "  +1", "\t@SUM(A1)", "\r-2"])
def test_score_sheet_cells_cannot_become_formulas(app, reason):
    import csv
    import io
    host, code = new_table(app, "icefloe")
    seat(app, code, ["suns", "moons", "crowns"])
    host.post(f"/t/{code}/host/start", json={})
    host.post(f"/t/{code}/host/score", json={"side": "suns", "points": 1, "reason": reason})
    rows = list(csv.reader(io.StringIO(host.get(f"/t/{code}/export.csv").data.decode(), newline="")))
    assert rows[1][4] == "'" + reason
