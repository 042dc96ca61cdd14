"""Web app: the store, pages, joining by QR code and the host role (Flask test client)."""
from __future__ import annotations

import sqlite3

import pytest

from tests.webapp_helpers import Phone, make_app, new_table, seat
from webapp import db as store_db


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "data")


def test_store_created_on_first_start_with_wal_and_full_sync(tmp_path):
    make_app(tmp_path / "fresh" / "dir")
    path = tmp_path / "fresh" / "dir" / store_db.DB_NAME
    assert path.exists()
    conn = store_db.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2          # FULL
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"tables", "players", "games", "actions", "ledger", "events", "scenes"} <= names


def test_write_transaction_rolls_back_on_error(tmp_path):
    make_app(tmp_path)
    conn = store_db.connect(tmp_path / store_db.DB_NAME)
    with pytest.raises(sqlite3.IntegrityError):
        with store_db.write(conn):
            conn.execute("INSERT INTO tables (code, game, created) VALUES ('ABCD', 'icefloe', 0)")
            conn.execute("INSERT INTO tables (code, game, created) VALUES ('ABCD', 'icefloe', 0)")
    assert conn.execute("SELECT COUNT(*) FROM tables").fetchone()[0] == 0


def test_home_and_create_table(app):
    client = app.test_client()
    assert b"New table" in client.get("/").data
    r = client.post("/tables", json={"game": "icefloe"})
    assert r.status_code == 201
    code = r.json["code"]
    assert len(code) == 4 and code.isalpha() and not set(code) & set("IO")
    cookie = r.headers["Set-Cookie"]
    assert f"icetable_h_{code}=" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert client.get(f"/t/{code}/state").json["host"] is True
    assert app.test_client().get(f"/t/{code}/state").json["host"] is False


@pytest.mark.parametrize("body,problem", [
    ({"game": "chess"}, "game must be one of"),
    ({"game": "icefloe", "options": {"colour": "x"}}, "unknown rule option"),
    ({"game": "icefloe", "options": []}, "options must be a JSON object"),
    ({"game": "icehouse", "options": {"timer_minutes": 0}}, "timer_minutes"),
])
def test_create_table_rejects_bad_input(app, body, problem):
    r = app.test_client().post("/tables", json=body)
    assert r.status_code == 400 and problem in r.json["error"]


def test_join_by_qr_url_then_rejoin_is_the_same_player(app):
    _, code = new_table(app, "icefloe")
    assert code.encode() in app.test_client().get(f"/t/{code}/table").data
    svg = app.test_client().get(f"/t/{code}/qr.svg")
    assert svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    redirect = app.test_client().get(f"/?join={code.lower()}")
    assert redirect.status_code == 302 and redirect.headers["Location"].endswith(f"/t/{code}")
    phone = Phone(app, code)
    first = phone.join("Ann", "suns")
    assert first.status_code == 201 and first.json["rejoined"] is False
    cookie = first.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and f"Path=/t/{code}" in cookie
    again = phone.post("/join", {"name": "Ann again", "side": "moons"})     # the phone reloads
    assert again.status_code == 200 and again.json["rejoined"] is True
    assert again.json["player"] == first.json["player"]
    state = phone.state()
    assert [p["name"] for p in state["players"]] == ["Ann"]
    assert state["me"]["side"] == "suns"


def test_side_and_name_are_taken_once(app):
    _, code = new_table(app, "icefloe")
    seat(app, code, ["suns"])
    r = Phone(app, code).post("/join", {"name": "Bob", "side": "suns"})
    assert r.status_code == 409 and "already taken" in r.json["error"]
    r = Phone(app, code).post("/join", {"name": "P0sun", "side": "moons"})
    assert r.status_code == 409


@pytest.mark.parametrize("body", [
    {"name": "", "side": "suns"}, {"name": "x" * 21, "side": "suns"}, {"name": 7, "side": "suns"},
    {"name": "Ann", "side": "red"}, {"name": "Ann\x00", "side": "suns"}, {"name": "Ann"},
])
def test_join_validates_closed_choices(app, body):
    _, code = new_table(app, "icefloe")
    assert Phone(app, code).post("/join", body).status_code == 400


def test_unknown_table_is_404_everywhere(app):
    client = app.test_client()
    for path in ("/t/ZZZZ", "/t/ZZZZ/table", "/t/ZZZZ/state", "/t/ZZZZ/qr.svg", "/t/ZZZZ/events"):
        assert client.get(path).status_code == 404
    assert client.post("/t/ZZZZ/join", json={"name": "a", "side": "suns"}).status_code == 404


def test_first_player_is_host_when_the_table_has_no_host_device(app):
    conn = store_db.connect(app.config["DATABASE"])
    from webapp import store
    with store_db.write(conn):
        table, token = store.create_table(conn, "icefloe", {}, with_host=False)
    assert token is None
    a, b = seat(app, table["code"], ["suns", "moons"])
    assert a.state()["me"]["host"] is True and b.state()["me"]["host"] is False
    assert b.post("/host/start").status_code == 403
    c = Phone(app, table["code"])
    c.join("C", "crowns")
    assert a.post("/host/start").status_code == 201


def test_host_removes_a_player_who_can_rejoin_with_a_new_phone(app):
    host, code = new_table(app, "icefloe")
    a, b = seat(app, code, ["suns", "moons"])
    bob = b.state()["me"]["id"]
    assert a.post("/host/remove", {"player": bob}).status_code == 403
    assert host.post(f"/t/{code}/host/remove", json={"player": bob}).status_code == 200
    assert b.state()["me"] is None
    assert [p["side"] for p in a.state()["players"]] == ["suns"]
    assert host.post(f"/t/{code}/host/remove", json={"player": bob}).status_code == 404
    fresh = Phone(app, code)
    assert fresh.join("Bob", "moons").status_code == 201


def test_pages_carry_no_game_state(app):
    host, code = new_table(app, "icefloe")
    seat(app, code, ["suns", "moons", "crowns"])
    for path in (f"/t/{code}", f"/t/{code}/table"):
        page = app.test_client().get(path).data
        assert b"P0sun" not in page and b"P1moo" not in page
    assert "default-src 'self'" in app.test_client().get(f"/t/{code}").headers["Content-Security-Policy"]


def read_stream(response, until: str, limit: int = 50) -> str:
    """Chunks of an open event stream until `until` appears in them."""
    text = ""
    for _, chunk in zip(range(limit), response.response):
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        if until in text:
            return text
    raise AssertionError(f"{until!r} never came")


def test_idle_stream_gets_heartbeats_and_a_removed_phone_is_told(tmp_path):
    app = make_app(tmp_path, SSE_HEARTBEAT=0.2, SSE_POLL=0.05)
    host, code = new_table(app, "icefloe")
    (phone,) = seat(app, code, ["suns"])
    response = phone.client.get(f"/t/{code}/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    opening = read_stream(response, "event: state")
    assert opening.startswith("retry: 2000") and '"side":"suns"' in opening
    assert ": ping" in read_stream(response, ": ping")
    host.post(f"/t/{code}/host/remove", json={"player": phone.state()["me"]["id"]})
    assert "no longer seated" in read_stream(response, "event: removed")
    response.close()


@pytest.mark.parametrize("game, sides, said", [
    ("icepirates", ["red"], "Ice Pirates is for 2 to 5 players: 1 player has joined"),
    ("iceberg", ["suns", "moons", "crowns"], "Iceberg is for 2 or 4 players: 3 have joined"),
    ("icefloe", ["suns", "moons"], "IceFloe is for 3 or 4 players: 2 have joined"),
])
def test_a_start_the_players_do_not_fit_is_refused_in_words(app, game, sides, said):
    host, code = new_table(app, game)
    seat(app, code, sides)
    r = host.post(f"/t/{code}/host/start", json={})
    assert r.status_code == 409 and r.json["error"] == said


def test_a_full_table_says_so(app):
    host, code = new_table(app, "icefloe")
    seat(app, code, ["suns", "moons", "crowns", "arms"])
    r = Phone(app, code).post("/join", {"name": "Late", "side": "suns"})
    assert r.status_code == 409 and r.json["error"] == "table full: IceFloe is for at most 4 players"
    page = Phone(app, code).client.get(f"/t/{code}")
    assert b"Table full" in page.data and b"IceFloe is for 3 or 4 players" in page.data


def test_an_unknown_code_gets_a_page_in_words(app):
    page = app.test_client().get("/t/ZZZZ", headers={"Accept": "text/html"})
    assert page.status_code == 404 and b'No table "ZZZZ"' in page.data and b'name="join"' in page.data
    assert app.test_client().get("/t/ZZZZ/state").json == {"error": "no table 'ZZZZ'"}


def test_an_ice_pirates_table_offers_the_colours_that_are_not_the_islands(app):
    _, code = new_table(app, "icepirates")
    page = app.test_client().get(f"/t/{code}").data.decode()
    offered = [c for c in ("red", "yellow", "blue", "green", "purple", "orange", "clear", "cyan", "black", "white")
               if f'value="{c}"' in page]
    assert offered == ["red", "yellow", "blue", "green", "purple", "orange", "clear", "cyan"]
