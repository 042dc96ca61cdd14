"""Web app: IceFloe's sealed votes, coins, tie-breaks, tile picks, score sheet, undo (test client)."""
from __future__ import annotations

import csv
import io
import json

import pytest

from tests.webapp_helpers import advance, at_first_vote, make_app, new_table, seat, sse_text
from webapp import db as store_db

SUITS = ["suns", "moons", "crowns"]


@pytest.fixture
def table(tmp_path):
    """(app, host client, code, phones) of a 3-player IceFloe game at its first number vote."""
    app = make_app(tmp_path)
    host, code, phones, _ = at_first_vote(app, SUITS)
    return app, host, code, phones


def stored_events(app) -> list[dict]:
    conn = store_db.connect(app.config["DATABASE"])
    return [json.loads(r["payload"]) | {"kind": r["kind"]} for r in conn.execute("SELECT * FROM events")]


def test_a_ballot_is_seen_only_by_its_voter_until_the_reveal(table):
    app, host, code, (a, b, c) = table
    assert a.act({"type": "vote_number", "value": 4}).status_code == 200
    mine = a.state()["game"]["view"]["vote"]
    assert mine["mine"] == 4 and mine["voted"] == ["suns"]
    for other in (b.state(), c.state(), host.get(f"/t/{code}/state").json,
                  app.test_client().get(f"/t/{code}/state").json):
        vote = other["game"]["view"]["vote"]
        assert vote == {"stage": "number", "voted": ["suns"], "options": vote["options"]}
        assert other["game"]["to_act"] == ["moons", "crowns"]
    for text in (sse_text(b.client, f"/t/{code}/events?since=0"), sse_text(host, f"/t/{code}/events?since=0")):
        assert '"mine"' not in text and '"ballots"' not in text and "has voted" in text
    assert '"mine":4' in sse_text(a.client, f"/t/{code}/events?since=0")
    events = stored_events(app)
    assert all("ballots" not in json.dumps(e) and "value" not in e for e in events)
    for path in ("/export.json", "/export.csv"):
        assert b'"mine"' not in b.client.get(f"/t/{code}{path}").data
        assert b"vote_number" not in b.client.get(f"/t/{code}{path}").data


def test_reveal_when_the_last_ballot_is_in(table):
    _, _, _, (a, b, c) = table
    for phone, value in ((a, 4), (b, 4), (c, 4)):
        assert phone.act({"type": "vote_number", "value": value}).status_code == 200
    view = b.state()["game"]["view"]
    revealed = view["this_round"]["number"]
    assert revealed["ballots"] == {"suns": 4, "moons": 4, "crowns": 4} and revealed["result"] == 4
    assert view["vote"]["stage"] == "suit" and "mine" not in view["vote"]


def test_a_phone_sits_the_vote_out_after_breaking_the_commentary_rules(table):
    _, _, _, (a, b, c) = table
    assert {"player": "moons", "type": "sit_out"} in b.state()["game"]["legal"]
    assert b.act({"type": "sit_out"}).status_code == 200
    assert b.state()["game"]["legal"] == [] and b.state()["game"]["view"]["barred"] == ["moons"]
    for phone in (a, c):
        assert phone.act({"type": "vote_number", "value": 4}).status_code == 200
    view = b.state()["game"]["view"]
    assert view["this_round"]["number"]["ballots"] == {"suns": 4, "crowns": 4}
    assert view["vote"]["stage"] == "suit" and "moons" not in view["to_act"]


@pytest.mark.parametrize("action,status,problem", [
    ({"type": "vote_number", "value": 9}, 409, "not one of your choices"),
    ({"type": "vote_number", "value": "3"}, 409, "not one of your choices"),
    ({"type": "vote_number", "value": True}, 409, "not one of your choices"),
    ({"type": "vote_suit", "value": "suns"}, 409, "not one of your choices"),
    ({"type": "vote_number", "value": 3, "player": "moons"}, 403, "only act for yourself"),
])
def test_closed_choices_and_acting_for_oneself(table, action, status, problem):
    _, _, _, (a, b, _) = table
    r = a.act(action)
    assert r.status_code == status and problem in r.json["error"]
    assert "moons" in b.state()["game"]["to_act"] and "suns" in a.state()["game"]["to_act"]


def test_one_vote_per_player_per_vote(table):
    _, _, _, (a, b, _) = table
    assert a.act({"type": "vote_number", "value": 2}).status_code == 200
    again = a.act({"type": "vote_number", "value": 3})
    assert again.status_code == 409
    assert "2" not in again.json["error"]
    assert a.state()["game"]["view"]["vote"]["mine"] == 2


def test_outsiders_cannot_act(table):
    app, host, code, _ = table
    r = app.test_client().post(f"/t/{code}/act", json={"type": "vote_number", "value": 1})
    assert r.status_code == 403
    assert host.post(f"/t/{code}/act", json={"type": "vote_number", "value": 1}).status_code == 403


def test_coins_then_torch_bearer_breaks_the_tie(table):
    _, _, _, phones = table
    by_side = {p.side: p for p in phones}
    values = dict(zip(SUITS, (1, 2, 3)))
    options = phones[0].state()["game"]["view"]["vote"]["options"]
    if not {1, 2, 3} <= set(options):
        pytest.skip("seed left fewer than three ranks")
    for phone in phones:
        phone.act({"type": "vote_number", "value": values[phone.side]})
    state = phones[0].state()
    assert state["game"]["view"]["phase"] == "coins"
    while state["game"]["view"]["phase"] == "coins":
        side = state["game"]["to_act"][0]
        assert by_side[side].act({"type": "pass"}).status_code == 200
        state = phones[0].state()
    torch = state["game"]["view"]["torch_bearer"]
    assert state["game"]["view"]["phase"] == "tie" and state["game"]["to_act"] == [torch]
    legal = by_side[torch].state()["game"]["legal"]
    assert sorted(a["value"] for a in legal) == [1, 2, 3]
    other = next(p for p in phones if p.side != torch)
    assert other.act({"type": "break_tie", "value": 2}).status_code == 409
    assert by_side[torch].act({"type": "break_tie", "value": 2}).status_code == 200
    assert phones[0].state()["game"]["view"]["this_round"]["number"]["result"] == 2


def test_coin_weight_decides_a_vote(table):
    _, _, _, phones = table
    by_side = {p.side: p for p in phones}
    a, b, c = phones
    a.act({"type": "vote_number", "value": 1})
    b.act({"type": "vote_number", "value": 1})
    c.act({"type": "vote_number", "value": 2})
    state = a.state()
    if state["game"]["view"]["phase"] != "coins":
        pytest.skip("seed left rank 1 or 2 off the board")
    while state["game"]["view"]["phase"] == "coins":
        side = state["game"]["to_act"][0]
        action = {"type": "add_coins", "coins": ["ace", "two"], "value": 2} if side == "crowns" \
            else {"type": "pass"}
        assert by_side[side].act(action).status_code == 200
        state = a.state()
    assert state["game"]["view"]["this_round"]["number"]["result"] == 2
    assert state["game"]["view"]["coins"]["crowns"] == []


def test_score_sheet_from_tile_picks_export_and_host_undo(table):
    app, host, code, phones = table
    state = advance(phones, lambda s: s["game"]["sheet"] or s["game"]["status"] == "over", limit=800)
    sheet = state["game"]["sheet"]
    assert sheet, "the game ended before any tile was picked"
    assert all(row["source"] == "game" and row["reason"] == "pick" and row["round"] > len(SUITS)
               for row in sheet)
    totals = state["game"]["scores"]
    assert sum(r["points"] for r in sheet) == sum(totals.values())
    exported = phones[1].client.get(f"/t/{code}/export.json").json
    assert exported["rows"] == sheet and exported["totals"] == totals
    rows = list(csv.reader(io.StringIO(phones[1].client.get(f"/t/{code}/export.csv").data.decode())))
    assert rows[0] == ["round", "player", "points", "source", "reason"]
    assert [int(r[2]) for r in rows[1:] if r[0] != "total"] == [r["points"] for r in sheet]
    assert phones[0].post("/host/undo").status_code == 403
    undone = host.post(f"/t/{code}/host/undo")
    assert undone.status_code == 200 and undone.json["undone"]["type"] == "pick"
    after = phones[0].state()["game"]
    assert after["sheet"] == [] and after["view"]["phase"] == "pick"


def test_host_score_entry_and_its_undo(table):
    app, host, code, phones = table
    assert host.post(f"/t/{code}/host/score", json={"side": "moons", "points": 3, "reason": "bribe"}).status_code == 200
    host.post(f"/t/{code}/host/score", json={"side": "crowns", "points": 1, "reason": "=HYPERLINK(1)"})
    assert "'=HYPERLINK(1)" in host.get(f"/t/{code}/export.csv").data.decode()
    host.post(f"/t/{code}/host/undo")
    state = phones[0].state()["game"]
    assert state["scores"]["moons"] == 3
    assert state["sheet"] == [{"round": 1, "side": "moons", "points": 3, "source": "host", "reason": "bribe"}]
    for bad in ({"side": "arms", "points": 1}, {"side": "moons", "points": "3"},
                {"side": "moons", "points": 10**6}):
        assert host.post(f"/t/{code}/host/score", json=bad).status_code == 409
    host.post(f"/t/{code}/host/undo")
    assert phones[0].state()["game"]["scores"]["moons"] == 0


def test_restart_keeps_ballots_already_cast(table, tmp_path):
    app, _, code, (a, b, c) = table
    a.act({"type": "vote_number", "value": 5})
    b.act({"type": "vote_number", "value": 5})
    again = make_app(tmp_path)                     # a new process on the same store
    for phone in (a, c):
        cookie = phone.client.get_cookie(f"icetable_p_{code}", path=f"/t/{code}")
        phone.client = again.test_client()
        phone.client.set_cookie(cookie.key, cookie.value, path=f"/t/{code}")
    assert a.state()["game"]["view"]["vote"]["mine"] == 5
    assert c.state()["game"]["view"]["vote"]["voted"] == ["moons", "suns"]
    assert c.act({"type": "vote_number", "value": 5}).status_code == 200
    assert c.state()["game"]["view"]["this_round"]["number"]["ballots"] == {"suns": 5, "moons": 5, "crowns": 5}


def test_record_of_a_finished_game_replays(table, tmp_path):
    """The record of a game ended mid-vote replays; the vote's sealed ballot is not in it."""
    from referee.record import replay
    app, host, code, phones = table
    phones[0].act({"type": "vote_number", "value": 3})
    assert phones[0].client.get(f"/t/{code}/record.jsonl").status_code == 403   # the host's, for now
    assert host.get(f"/t/{code}/record.jsonl").status_code == 409               # a ballot is sealed
    host.post(f"/t/{code}/host/score", json={"side": "suns", "points": 2})
    assert host.post(f"/t/{code}/host/end", json={}).status_code == 200
    response = phones[1].client.get(f"/t/{code}/record.jsonl")
    assert response.status_code == 200 and response.mimetype == "application/jsonl"
    path = tmp_path / "game.jsonl"
    path.write_bytes(response.data)
    result = replay(path)
    assert result.ok and result.verdicts[-1][0].action["type"] != "vote_number"
    assert result.match.view(None)["phase"] == "vote" and result.match.view(None)["vote"]["voted"] == []


def test_no_ballot_reaches_the_logs(table, caplog):
    import logging
    _, _, code, (a, b, _) = table
    with caplog.at_level(logging.DEBUG):
        a.act({"type": "vote_number", "value": 4})
        a.act({"type": "vote_number", "value": 5})
        b.act({"type": "vote_number", "value": 9})
        b.client.get(f"/t/{code}/state")
    assert not [r for r in caplog.records if "value" in r.getMessage() or "vote" in r.getMessage()]


def test_game_start_needs_the_host_and_a_legal_player_count(tmp_path):
    app = make_app(tmp_path)
    host, code = new_table(app, "icefloe")
    (a,) = seat(app, code, ["suns"])
    assert a.post("/host/start").status_code == 403
    r = host.post(f"/t/{code}/host/start", json={})
    assert r.status_code == 409 and "3 or 4" in r.json["error"]
    seat_more = seat(app, code, ["moons", "arms"])
    assert host.post(f"/t/{code}/host/start", json={"seed": "x"}).status_code == 400
    assert host.post(f"/t/{code}/host/start", json={}).status_code == 201
    assert host.post(f"/t/{code}/host/start", json={}).status_code == 409
    assert seat_more[0].state()["game"]["players"] == ["suns", "moons", "arms"]
