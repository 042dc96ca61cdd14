"""Web app: a tap sent twice (same X-Request-Id) is applied once and answered with the first
answer; the pages send ids, disable the tapped button, confirm End game and Remove player, and
say when the server cannot be reached."""
from __future__ import annotations

import os
import threading
import time

import pytest

from tests.test_webapp_browser import CHROMIUM, browser  # noqa: F401  (fixture)
from tests.test_webapp_votes import table  # noqa: F401  (fixture: a 3-player IceFloe game at its first vote)
from tests.pg_cluster import pg_cluster, pg_url  # noqa: F401  (fixtures)
from tests.webapp_helpers import at_first_vote, make_app
from webapp.client import HttpPhone
from webapp.replies import KEEP_HOURS
from webapp.serving import BackgroundServer

SUITS = ["suns", "moons", "crowns"]


def twice(client, path, body, rid="tap-0001-abcd"):
    first = client.post(path, json=body, headers={"X-Request-Id": rid})
    second = client.post(path, json=body, headers={"X-Request-Id": rid})
    return first, second


class Crash(Exception):
    """The server dies here."""


def cookie_copy(phone_client, app, code: str, name: str):
    """A test client of `app` holding the cookie `name` of another client (the same phone
    talking to a restarted server)."""
    client = app.test_client()
    cookie = phone_client.get_cookie(name.format(code=code), path=f"/t/{code}")
    client.set_cookie(cookie.key, cookie.value, path=f"/t/{code}")
    return client


def test_a_double_tapped_undo_takes_back_one_action(table):
    app, host, code, (a, b, c) = table
    a.act({"type": "vote_number", "value": 1})
    b.act({"type": "vote_number", "value": 1})
    first, second = twice(host, f"/t/{code}/host/undo", {})
    assert first.status_code == second.status_code == 200
    assert second.data == first.data and second.headers["X-Repeated"] == "1"
    assert c.state()["game"]["view"]["vote"]["voted"] == ["suns"]
    third = host.post(f"/t/{code}/host/undo", json={}, headers={"X-Request-Id": "tap-0002-abcd"})
    assert third.status_code == 200 and c.state()["game"]["view"]["vote"]["voted"] == []


def test_double_tapped_points_write_one_row(table):
    app, host, code, phones = table
    first, second = twice(host, f"/t/{code}/host/score", {"side": "moons", "points": 3})
    assert first.status_code == second.status_code == 200
    assert [r["points"] for r in phones[0].state()["game"]["sheet"]] == [3]


def test_a_repeated_ballot_gets_the_first_answer_not_a_refusal(table):
    app, host, code, (a, _, _) = table
    first, second = twice(a.client, f"/t/{code}/act", {"type": "vote_number", "value": 2})
    assert first.status_code == second.status_code == 200 and second.json == first.json
    assert a.state()["game"]["view"]["vote"]["mine"] == 2
    refused = twice(a.client, f"/t/{code}/act", {"type": "vote_number", "value": 3}, "tap-0003-abcd")
    assert refused[0].status_code == refused[1].status_code == 409
    assert refused[1].json == refused[0].json


def test_ids_belong_to_their_client_and_are_checked(table):
    app, host, code, (a, b, _) = table
    a.client.post(f"/t/{code}/act", json={"type": "vote_number", "value": 2},
                  headers={"X-Request-Id": "same-id-1234"})
    r = b.client.post(f"/t/{code}/act", json={"type": "vote_number", "value": 5},
                      headers={"X-Request-Id": "same-id-1234"})
    assert r.status_code == 200 and "X-Repeated" not in r.headers
    assert b.state()["game"]["view"]["vote"]["mine"] == 5
    bad = a.client.post(f"/t/{code}/dice", json={}, headers={"X-Request-Id": "<script>"})
    assert bad.status_code == 400 and "X-Request-Id" in bad.json["error"]


def test_a_repeat_after_a_restart_gets_the_stored_answer(table, tmp_path):
    app, host, code, _ = table
    first = host.post(f"/t/{code}/host/score", json={"side": "suns", "points": 4},
                      headers={"X-Request-Id": "before-restart"})
    app.extensions["icetable"].store.write(lambda conn: None)     # the answer's own write is done
    client = cookie_copy(host, make_app(tmp_path), code, "icetable_h_{code}")
    second = client.post(f"/t/{code}/host/score", json={"side": "suns", "points": 4},
                         headers={"X-Request-Id": "before-restart"})
    assert second.status_code == 200 and second.json == first.json
    assert client.get(f"/t/{code}/state").json["game"]["scores"]["suns"] == 4


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_crash_after_the_commit_still_answers_the_repeat_with_the_first_answer(
        tmp_path, monkeypatch, request, database):
    """The answer is stored in the action's own transaction: the server dies right after the
    ballot's commit, before it answers (simulated: the route fails there, and a new app opens
    the same store); the phone's retry gets the ballot's real answer and votes once."""
    url = request.getfixturevalue("pg_url") if database == "postgresql" else None
    app = make_app(tmp_path, DATABASE_URL=url)
    _, code, (a, _, _), _ = at_first_vote(app, SUITS)

    def crash(answer, value):
        raise Crash()
    monkeypatch.setattr("webapp.api.respond", crash)
    with pytest.raises(Crash):
        a.post("/act", {"type": "vote_number", "value": 2}, headers={"X-Request-Id": "dies-after-commit"})
    monkeypatch.undo()
    client = cookie_copy(a.client, make_app(tmp_path, DATABASE_URL=url), code, "icetable_p_{code}")
    again = client.post(f"/t/{code}/act", json={"type": "vote_number", "value": 2},
                        headers={"X-Request-Id": "dies-after-commit"})
    assert again.status_code == 200 and again.headers["X-Repeated"] == "1"
    assert again.json["ok"] is True and "repeated" not in again.json
    assert [e["text"] for e in again.json["events"]] == ["suns has voted"]
    vote = client.get(f"/t/{code}/state").json["game"]["view"]["vote"]
    assert vote["voted"] == ["suns"] and vote["mine"] == 2


def test_a_write_stored_without_an_answer_is_not_applied_again(table, tmp_path):
    """A write made without an answer of its own (every route names one; this is the fallback)
    still stores the id as applied (simulated: the answer removed): a repeat after a restart
    changes nothing."""
    app, host, code, _ = table
    host.post(f"/t/{code}/host/score", json={"side": "suns", "points": 4}, headers={"X-Request-Id": "lost-answer"})
    store = app.extensions["icetable"].store
    store.write(lambda conn: conn.execute("UPDATE replies SET status = NULL, body = NULL"))
    client = cookie_copy(host, make_app(tmp_path), code, "icetable_h_{code}")
    r = client.post(f"/t/{code}/host/score", json={"side": "suns", "points": 4}, headers={"X-Request-Id": "lost-answer"})
    assert r.status_code == 200 and r.json == {"ok": True, "repeated": True}
    assert client.get(f"/t/{code}/state").json["game"]["scores"]["suns"] == 4


def test_old_answers_are_pruned_and_a_recent_repeat_still_gets_its_first_answer(table, tmp_path):
    app, host, code, _ = table
    store = app.extensions["icetable"].store
    old = host.post(f"/t/{code}/host/score", json={"side": "suns", "points": 1}, headers={"X-Request-Id": "last-night"})
    store.write(lambda conn: conn.execute("UPDATE replies SET created = created - ?", ((KEEP_HOURS + 1) * 3600,)))
    store.pruned_at = float("-inf")                     # pruning is due with the next write
    recent = host.post(f"/t/{code}/host/score", json={"side": "suns", "points": 2}, headers={"X-Request-Id": "just-now"})
    assert old.status_code == recent.status_code == 200
    assert [r["created"] > time.time() - 60 for r in store.read().execute("SELECT created FROM replies")] == [True]
    client = cookie_copy(host, make_app(tmp_path), code, "icetable_h_{code}")   # restarted: memory is empty
    again = client.post(f"/t/{code}/host/score", json={"side": "suns", "points": 2}, headers={"X-Request-Id": "just-now"})
    assert again.status_code == 200 and again.json == recent.json and again.headers["X-Repeated"] == "1"
    assert client.get(f"/t/{code}/state").json["game"]["scores"]["suns"] == 3
    pruned = client.post(f"/t/{code}/host/score", json={"side": "suns", "points": 1}, headers={"X-Request-Id": "last-night"})
    assert pruned.status_code == 200 and "X-Repeated" not in pruned.headers     # a new tap after KEEP_HOURS
    assert client.get(f"/t/{code}/state").json["game"]["scores"]["suns"] == 4


def test_repeats_arriving_together_on_a_real_server_apply_once(tmp_path):
    server = BackgroundServer(make_app(tmp_path))
    try:
        host = HttpPhone(server.port, "")
        host.code = host.request("POST", "/tables", {"game": "icefloe"})[1]["code"]
        for side in SUITS:
            HttpPhone(server.port, host.code).join(side, side)
        assert host.request("POST", f"/t/{host.code}/host/start", {})[0] == 201
        barrier, answers = threading.Barrier(6), []

        def tap():
            barrier.wait()
            answers.append(host.request("POST", f"/t/{host.code}/host/score", {"side": "suns", "points": 1},
                                        headers={"X-Request-Id": "together-001"}))
        threads = [threading.Thread(target=tap) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert answers == [(200, {"ok": True})] * 6
        assert host.state()["game"]["scores"]["suns"] == 1
    finally:
        server.stop()


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed")
def test_host_page_confirms_disables_and_tells_when_the_server_is_down(tmp_path, browser):  # noqa: F811
    server = BackgroundServer(make_app(tmp_path))
    try:
        base = f"http://127.0.0.1:{server.port}"
        page = browser.new_context().new_page()
        page.goto(base + "/")
        page.select_option("#game", "icefloe")
        page.click("text=Create table")
        page.wait_for_url("**/table")
        code = page.locator(".bigcode").inner_text()
        phones = [HttpPhone(server.port, code) for _ in SUITS]
        for phone, side in zip(phones, SUITS):
            phone.join(side, side)
        page.wait_for_selector("text=crowns")
        page.click("text=Start game")
        page.wait_for_selector("text=Game 1 · playing")

        page.once("dialog", lambda d: d.dismiss())
        page.click("text=End game")
        page.wait_for_timeout(300)
        assert phones[0].state()["game"]["status"] == "playing"

        page.fill("#host-points", "2")
        page.locator("button", has_text="Add points").dblclick()
        page.wait_for_timeout(500)
        assert [row["points"] for row in phones[0].state()["game"]["sheet"]] == [2]

        page.once("dialog", lambda d: d.accept())
        page.click("text=End game")
        page.wait_for_selector("text=Game 1 · over")

        server.stop()
        page.click("text=Undo last entry")
        banner = page.wait_for_selector("#icetable-offline", timeout=10000)
        assert "not sent" in banner.inner_text()
    finally:
        server.stop()
