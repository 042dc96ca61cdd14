"""Web app: Icehouse's hidden end timer, icehouse calls (scene or host ruling), camera warnings."""
from __future__ import annotations

import json
import time

import pytest

from tests.icehouse_builders import attack, stand
from tests.webapp_helpers import make_app, new_table, seat
from webapp import db as store_db
from webapp import start_clock
from webapp.client import HttpPhone
from webapp.serving import BackgroundServer


@pytest.fixture
def table(tmp_path):
    app = make_app(tmp_path)
    host, code = new_table(app, "icehouse", {"timer_minutes": 10})
    phones = seat(app, code, ["red", "blue", "green"])
    assert host.post(f"/t/{code}/host/start", json={}).status_code == 201
    return app, host, code, phones


def deadline_of(app) -> float:
    conn = store_db.connect(app.config["DATABASE"])
    return conn.execute("SELECT deadline FROM games").fetchone()[0]


def vulnerable_red(**state) -> dict:
    """Red's only defender iced by blue; blue and green defend freely."""
    red = stand("r1", "red", 1, 100, 100, angle=0)
    pieces = [red, attack("b9", "blue", 3, red, 5.0), stand("b1", "blue", 2, 300, 300),
              stand("g1", "green", 3, 500, 100)]
    return {"format": "icetable-scene/1", "game": "icehouse", "area": {"width": 600, "height": 600},
            "pieces": pieces, "state": state}


def test_deadline_is_drawn_around_the_minutes_and_never_sent(table):
    app, host, code, (red, blue, _) = table
    deadline = deadline_of(app)
    assert 7.5 * 60 - 5 <= deadline - time.time() <= 12.5 * 60
    texts = [json.dumps(red.state()), json.dumps(host.get(f"/t/{code}/state").json),
             host.get(f"/t/{code}/export.json").data.decode()]
    conn = store_db.connect(app.config["DATABASE"])
    texts += [r[0] for r in conn.execute("SELECT payload FROM events")]
    for text in texts:
        assert "deadline" not in text and str(int(deadline)) not in text
    assert red.state()["game"]["view"]["timer"] == "hidden"


def test_timer_fires_on_the_next_request_after_the_deadline(table):
    app, _, code, (red, _, _) = table
    conn = store_db.connect(app.config["DATABASE"])
    with store_db.write(conn):
        conn.execute("UPDATE games SET deadline = ?", (time.time() - 1,))
    state = red.state()["game"]
    assert state["status"] == "over" and state["view"]["timer"] == "rang"
    assert red.act({"type": "call"}).status_code == 409


def test_clock_thread_fires_the_timer_without_any_request(table):
    app, _, code, (red, _, _) = table
    conn = store_db.connect(app.config["DATABASE"])
    with store_db.write(conn):
        conn.execute("UPDATE games SET deadline = ?", (time.time() + 0.3,))
    stop = start_clock(app, interval=0.05)
    try:
        for _ in range(100):
            if conn.execute("SELECT status FROM games").fetchone()[0] == "over":
                break
            time.sleep(0.02)
    finally:
        stop.set()
    kinds = [r[0] for r in conn.execute("SELECT kind FROM events")]
    assert kinds[-1] == "game_over" and "Stop! the timer has gone off" in \
        conn.execute("SELECT payload FROM events WHERE kind='action'").fetchall()[-1][0]


def test_call_without_a_scene_waits_for_the_host(table):
    app, host, code, (red, blue, green) = table
    r = blue.act({"type": "call"})
    assert r.status_code == 200 and r.json["events"][0]["pending"] is True
    assert green.act({"type": "call"}).status_code == 409
    assert red.state()["game"]["view"]["pending_call"] == "blue"
    assert red.post("/host/confirm", {"kind": "true", "icehoused": ["red"]}).status_code == 403
    for bad in ({"kind": "maybe"}, {"kind": "true", "icehoused": ["blue"]}, {"kind": "true"}):
        assert host.post(f"/t/{code}/host/confirm", json=bad).status_code == 409
    ok = host.post(f"/t/{code}/host/confirm", json={"kind": "true", "icehoused": ["red"]})
    assert ok.status_code == 200
    view = green.state()["game"]["view"]
    assert view["icehouse"] == ["red"] and view["pending_call"] is None
    assert view["calls"][-1]["message"] == "red in the icehouse: stash to blue"


def test_call_with_a_scene_is_judged_by_the_referee(table):
    app, host, code, (red, blue, green) = table
    r = host.post(f"/t/{code}/scene", json=vulnerable_red(stash={"red": 5, "blue": 9, "green": 9}))
    assert r.status_code == 201 and "icehouse_vulnerable" in [w["code"] for w in r.json["warnings"]]
    assert "icehouse_vulnerable" in [w["code"] for w in green.state()["warnings"]]
    assert blue.act({"type": "call"}).status_code == 200
    view = green.state()["game"]["view"]
    assert view["icehouse"] == ["red"] and view["calls"][-1]["kind"] == "true"
    assert green.act({"type": "call"}).status_code == 200
    assert green.state()["game"]["view"]["calls"][-1]["kind"] == "false"


def test_final_scores_from_the_scene_when_the_host_ends(table):
    app, host, code, (red, blue, green) = table
    host.post(f"/t/{code}/scene", json=vulnerable_red(stash={"red": 5, "blue": 9, "green": 9}))
    blue.act({"type": "call"})
    assert host.post(f"/t/{code}/host/end", json={}).status_code == 200
    game = red.state()["game"]
    assert game["status"] == "over"
    assert game["scores"] == {"red": 0, "blue": 5, "green": 3}       # blue: attacker 3 + defender 2
    assert game["winner"] == ["blue"]
    rows = host.get(f"/t/{code}/export.json").json["rows"]
    assert {r["side"]: r["points"] for r in rows} == {"blue": 5, "green": 3}
    assert host.post(f"/t/{code}/host/end", json={}).status_code == 409


@pytest.mark.parametrize("scene,problem", [
    ({"format": "icetable-scene/1", "game": "icefloe", "pieces": []}, "this table plays"),
    ({"format": "icetable-scene/1", "game": "icehouse", "pieces": [{"id": "x", "type": "pyramid"}]}, "'x'"),
])
def test_bad_scene_is_refused_with_one_line(table, scene, problem):
    _, host, code, _ = table
    r = host.post(f"/t/{code}/scene", json=scene)
    assert r.status_code == 400 and problem in r.json["error"] and "\n" not in r.json["error"]


def test_scene_needs_the_host_token(table):
    app, host, code, (red, _, _) = table
    scene = vulnerable_red()
    assert red.post("/scene", scene).status_code == 403
    token = host.get_cookie(f"icetable_h_{code}", path=f"/t/{code}").value
    r = app.test_client().post(f"/t/{code}/scene", json=scene, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201
    bad = app.test_client().post(f"/t/{code}/scene", json=scene, headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 403


def test_players_roll_piecepack_dice(table):
    app, _, code, (red, _, _) = table
    faces = {red.post("/dice").json["face"] for _ in range(60)}
    assert faces == {"null", "ace", "2", "3", "4", "5"}
    assert app.test_client().post(f"/t/{code}/dice", json={}).status_code == 403


def test_a_crash_gives_the_piece_being_played_to_an_opponent_on_a_real_server(tmp_path):
    """ "He must give away the piece he was trying to play, to the opponent of his choice. Also,
    the pieces that were jarred should be put back": the crasher says which piece and to whom on
    his phone; every phone hears it; the host can undo it; nothing is given after the game."""
    server = BackgroundServer(make_app(tmp_path))
    try:
        host = HttpPhone(server.port, "")
        host.code = host.request("POST", "/tables", {"game": "icehouse", "options": {"timer_minutes": 10}})[1]["code"]
        red, blue, green = (HttpPhone(server.port, host.code) for _ in range(3))
        for phone, side in ((red, "red"), (blue, "blue"), (green, "green")):
            phone.join(side.title(), side)
        assert host.request("POST", f"/t/{host.code}/host/start", {})[0] == 201
        offered = [a for a in red.state()["game"]["legal"] if a["type"] == "crash"]
        assert {(a["size"], a["to"]) for a in offered} == {(s, to) for s in (1, 2, 3) for to in ("blue", "green")}
        stream = blue.open_stream()
        stream.wait_for(lambda m: m.get("event") == "state")
        for bad in ({"size": 2, "to": "red"}, {"size": 4, "to": "green"}, {"size": 2}):
            assert red.act({"type": "crash", **bad})[0] == 409
        assert blue.act({"player": "red", "type": "crash", "size": 2, "to": "green"})[0] == 403
        status, answer = red.act({"type": "crash", "size": 2, "to": "green"})
        said = "red crashed the table playing a medium: it goes to green; put the jarred pieces back"
        assert status == 200 and [e["text"] for e in answer["events"]] == [said]
        heard = stream.wait_for(lambda m: m.get("event") == "action")
        assert heard["data"]["type"] == "crash" and heard["data"]["log"] == [said]
        assert green.state()["game"]["view"]["crashes"] == [{"player": "red", "size": 2, "to": "green"}]
        assert host.request("POST", f"/t/{host.code}/host/undo", {})[1]["undone"] == {"player": "red", "type": "crash"}
        assert green.state()["game"]["view"]["crashes"] == []
        assert host.request("POST", f"/t/{host.code}/host/end", {})[0] == 200
        assert red.act({"type": "crash", "size": 1, "to": "blue"})[0] == 409
        stream.close()
    finally:
        server.stop()
