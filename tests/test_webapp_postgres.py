"""Web app on a real PostgreSQL server: the same data and rules as on SQLite, and several
`icetable serve` processes sharing one database, their streams fed by LISTEN/NOTIFY."""
from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from tests.pg_cluster import pg_cluster, pg_url  # noqa: F401  (fixtures)
from tests.webapp_helpers import advance, at_first_vote, in_phase, make_app, new_table, seat
from webapp.client import HttpPhone

SUITS = ["suns", "moons", "crowns"]


def test_a_game_on_postgresql_keeps_ballots_sealed_and_survives_a_restart(tmp_path, pg_url):  # noqa: F811
    app = make_app(tmp_path, DATABASE_URL=pg_url)
    host, code = new_table(app, "icefloe")
    a, b, c = seat(app, code, SUITS)
    assert host.post(f"/t/{code}/host/start", json={"seed": 5}).status_code == 201
    advance([a, b, c], in_phase("vote"))
    assert a.act({"type": "vote_number", "value": 4}).status_code == 200
    assert b.state()["game"]["view"]["vote"] == {"stage": "number", "voted": ["suns"],
                                                 "options": b.state()["game"]["view"]["vote"]["options"]}
    assert host.get(f"/t/{code}/record.jsonl").status_code == 409
    assert "ballots" not in json.dumps(host.get(f"/t/{code}/state").json)
    repeat = [b.client.post(f"/t/{code}/act", json={"type": "vote_number", "value": 4},
                            headers={"X-Request-Id": "pg-repeat-1"}) for _ in range(2)]
    assert [r.status_code for r in repeat] == [200, 200] and repeat[1].headers["X-Repeated"] == "1"
    assert b.post("/join", {"name": "B again", "side": "arms"}).json["rejoined"] is True
    assert app.test_client().post(f"/t/{code}/join", json={"name": "P1moo", "side": "arms"}).status_code == 409

    again = make_app(tmp_path, DATABASE_URL=pg_url)           # another process on the same database
    for phone in (a, c):
        cookie = phone.client.get_cookie(f"icetable_p_{code}", path=f"/t/{code}")
        phone.client = again.test_client()
        phone.client.set_cookie(cookie.key, cookie.value, path=f"/t/{code}")
    assert a.state()["game"]["view"]["vote"]["mine"] == 4
    assert c.act({"type": "vote_number", "value": 4}).status_code == 200
    assert c.state()["game"]["view"]["this_round"]["number"]["ballots"] == dict.fromkeys(SUITS, 4)
    host.post(f"/t/{code}/host/score", json={"side": "moons", "points": 2, "reason": " =1"})
    sheet = host.get(f"/t/{code}/export.csv").data.decode()
    assert "' =1" in sheet


def start_serve(data_dir, url: str):
    proc = subprocess.Popen([sys.executable, "-m", "icetable", "serve", "--bind", "127.0.0.1", "--port", "0",
                             "--data-dir", str(data_dir), "--database", url],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line:
        raise AssertionError(f"serve did not start: {proc.stderr.read()}")
    return proc, int(line.split()[-1].rstrip("/").rsplit(":", 1)[1])


def test_two_serve_processes_share_a_table_and_a_vote_reaches_the_other(tmp_path, pg_url):  # noqa: F811
    one, port_a = start_serve(tmp_path / "a", pg_url)
    two, port_b = start_serve(tmp_path / "b", pg_url)
    streams = []
    try:
        host = HttpPhone(port_a, "")
        code = host.request("POST", "/tables", {"game": "icefloe"})[1]["code"]
        host.code = code
        phones = [HttpPhone(port, code, f"127.0.0.{i + 2}") for i, port in enumerate((port_a, port_b, port_b))]
        for phone, side in zip(phones, SUITS):
            assert phone.join(side, side)[0] == 201
        assert host.request("POST", f"/t/{code}/host/start", {"seed": 5})[0] == 201
        for _ in range(100):                  # both servers judge the set-up, whoever acts where
            game = phones[0].state()["game"]
            if game["view"]["phase"] == "vote":
                break
            phone = phones[SUITS.index(game["to_act"][0])]
            choice = dict(phone.state()["game"]["legal"][0])
            choice.pop("player")
            assert phone.act(choice)[0] == 200
        streams = [p.open_stream() for p in phones]
        for s in streams:
            s.wait_for(lambda m: m.get("event") == "state")
        assert phones[0].act({"type": "vote_number", "value": 1})[0] == 200        # on server A
        for s in streams[1:]:                                                       # phones on B
            seen = s.wait_for(lambda m: m.get("event") == "state" and m["data"]["game"]["view"]["vote"]["voted"])
            assert seen["data"]["game"]["view"]["vote"]["voted"] == ["suns"]
            assert "mine" not in seen["data"]["game"]["view"]["vote"]
        barrier = threading.Barrier(2)

        def vote(phone):
            barrier.wait()
            assert phone.act({"type": "vote_number", "value": 1})[0] == 200
        voters = [threading.Thread(target=vote, args=(p,)) for p in phones[1:]]
        for t in voters:
            t.start()
        for t in voters:
            t.join()
        revealed = streams[0].wait_for(lambda m: m.get("event") == "state"
                                       and "ballots" in m["data"]["game"]["view"]["this_round"].get("number", {}))
        assert revealed["data"]["game"]["view"]["this_round"]["number"]["ballots"] == dict.fromkeys(SUITS, 1)
        assert phones[1].state()["game"]["view"] == phones[0].state()["game"]["view"]
    finally:
        for s in streams:
            s.close()
        for proc in (one, two):
            proc.terminate()
            proc.wait(timeout=20)
            proc.stdout.close()
            proc.stderr.close()


def test_a_wrong_database_url_is_one_line(tmp_path, capsys, pg_cluster):  # noqa: F811
    from icetable.cli import main
    url = pg_cluster.url("no_such_database")
    assert main(["serve", "--port", "0", "--data-dir", str(tmp_path), "--database", url]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no_such_database" in err
    assert main(["serve", "--port", "0", "--data-dir", str(tmp_path), "--database", "mysql://x"]) == 2
    assert "postgresql://" in capsys.readouterr().err


@pytest.mark.parametrize("case", ["remove suns", "end then undo"])
def test_ballot_seal_holds_on_postgresql(tmp_path, pg_url, case):  # noqa: F811
    from tests.test_webapp_ballots import HOST_ACTIONS, assert_sealed, remove
    app = make_app(tmp_path, DATABASE_URL=pg_url)
    host, code, phones, state = at_first_vote(app, SUITS)
    value = state["game"]["view"]["vote"]["options"][-1]
    phones[0].act({"type": "vote_number", "value": value})
    for step in HOST_ACTIONS[case]:
        if step[0] == "remove":
            assert remove(host, code, phones, step[1]).status_code == 200
        else:
            host.post(f"/t/{code}{step[1]}", json=step[2])
    assert_sealed(app, code, {"host": host, "moons": phones[1].client}, value)


def test_events_written_by_one_server_are_announced_to_the_others(pg_url):  # noqa: F811
    """The LISTEN thread of one store hears the events another store commits (NOTIFY)."""
    from webapp import store
    from webapp.pg import PostgresStore
    writer, listener = PostgresStore(pg_url), PostgresStore(pg_url)
    heard, got = [], threading.Event()
    listener.listen(lambda table_id, event_id: (heard.append((table_id, event_id)), got.set()))
    try:
        table, _ = writer.write(lambda w: store.create_table(w, "icefloe", {}))
        for _ in range(50):                  # the listener may still be connecting: write until heard
            event_id = writer.write(lambda w: store.add_event(w, table["id"], "dice", {"face": "ace"}))
            if got.wait(0.2):
                break
        assert heard and {t for t, _ in heard} == {table["id"]} and heard[-1][1] == event_id
    finally:
        writer.close()
        listener.close()
