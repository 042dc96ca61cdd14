"""Web app on a real gevent server on loopback: concurrent phones, event streams, restarts."""
from __future__ import annotations

import threading

import pytest

from tests.webapp_helpers import make_app
from webapp.client import HttpPhone, play_first_choices
from webapp.serving import BackgroundServer

SUITS = ["suns", "moons", "crowns", "arms"]


def seat_and_start(port: int, sides: list[str], seed: int = 11):
    host = HttpPhone(port, "")
    status, body = host.request("POST", "/tables", {"game": "icefloe"})
    assert status == 201
    code = body["code"]
    host.code = code
    phones = []
    for side in sides:
        phone = HttpPhone(port, code)
        assert phone.join(f"Player {side}", side)[0] == 201
        phones.append(phone)
    assert host.request("POST", f"/t/{code}/host/start", {"seed": seed})[0] == 201
    return host, code, phones


def play_to_vote(phones) -> None:
    assert play_first_choices(phones, lambda game: game["view"].get("phase") == "vote")


def ballots_shown(view: dict) -> dict | None:
    """The revealed number ballots in a view: the open reveal, or the round's record."""
    if "ballots" in view.get("vote", {}):
        return view["vote"]["ballots"]
    return view["this_round"].get("number", {}).get("ballots")


def revealed(message) -> bool:
    return message.get("event") == "state" and bool(message["data"]["game"]) and \
        ballots_shown(message["data"]["game"]["view"]) is not None


@pytest.fixture
def server(tmp_path):
    live = BackgroundServer(make_app(tmp_path))
    yield live
    live.stop()


def test_phones_vote_at_once_and_every_stream_sees_the_tally(server):
    host, code, phones = seat_and_start(server.port, SUITS)
    play_to_vote(phones)
    streams = [p.open_stream() for p in phones] + [host.open_stream()]
    for s in streams:
        s.wait_for(lambda m: m.get("event") == "state")
    ballots = dict(zip(SUITS, (2, 2, 3, 5)))
    barrier = threading.Barrier(len(phones))
    results = {}

    def vote(phone):
        barrier.wait()
        results[phone.side] = phone.act({"type": "vote_number", "value": ballots[phone.side]})[0]

    threads = [threading.Thread(target=vote, args=(p,)) for p in phones]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {s: 200 for s in SUITS}
    for stream in streams:
        assert ballots_shown(stream.wait_for(revealed)["data"]["game"]["view"]) == ballots
    for phone, stream in zip(phones, streams):
        for m in stream.messages:
            vote = m["data"]["game"]["view"].get("vote", {}) if m.get("event") == "state" else {}
            if "mine" in vote:
                assert vote["mine"] == ballots[phone.side]
            if m is stream.wait_for(revealed):
                break
            assert "ballots" not in vote
    for s in streams:
        s.close()


def test_the_same_ballot_sent_twice_at_once_counts_once(server):
    _, _, phones = seat_and_start(server.port, SUITS[:3])
    play_to_vote(phones)
    barrier = threading.Barrier(4)
    statuses = []

    def send():
        barrier.wait()
        statuses.append(phones[0].act({"type": "vote_number", "value": 1})[0])

    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 409, 409, 409]
    assert phones[1].state()["game"]["view"]["vote"]["voted"] == ["suns"]


def test_a_reconnecting_phone_receives_what_it_missed(server):
    host, code, phones = seat_and_start(server.port, SUITS[:3])
    stream = phones[1].open_stream()
    first = stream.wait_for(lambda m: m.get("event") == "state")["data"]["last_event"]
    stream.close()
    rolls = [p.request("POST", f"/t/{code}/dice", {})[1]["face"] for p in phones]
    back = phones[1].open_stream(last_id=first)
    dice = [back.wait_for(lambda m, i=i: m.get("event") == "dice" and m["data"]["name"] == f"Player {s}")
            for i, s in enumerate(SUITS[:3])]
    assert [d["data"]["face"] for d in dice] == rolls
    ids = [int(m["id"]) for m in back.messages if "id" in m]
    assert ids == sorted(ids) and ids[0] == first + 1 and len(ids) == len(set(ids)) == 3
    back.close()


def test_restart_mid_vote_finds_every_ballot(tmp_path):
    first = BackgroundServer(make_app(tmp_path))
    host, code, phones = seat_and_start(first.port, SUITS[:3])
    play_to_vote(phones)
    assert phones[0].act({"type": "vote_number", "value": 4})[0] == 200
    assert phones[1].act({"type": "vote_number", "value": 0})[0] == 200
    stream = phones[2].open_stream()
    stream.wait_for(lambda m: m.get("event") == "state")
    first.stop()
    second = BackgroundServer(make_app(tmp_path))
    try:
        for phone in phones:
            phone.port = second.port
        assert phones[0].state()["game"]["view"]["vote"]["mine"] == 4
        assert phones[1].state()["game"]["view"]["vote"]["mine"] == 0
        assert phones[2].state()["game"]["view"]["vote"]["voted"] == ["moons", "suns"]
        assert phones[2].join("again", "arms")[1]["rejoined"] is True
        assert phones[2].act({"type": "vote_number", "value": 4})[0] == 200
        shown = ballots_shown(phones[0].state()["game"]["view"])
        assert shown == {"suns": 4, "moons": 0, "crowns": 4}
    finally:
        stream.close()
        second.stop()


def test_stop_ends_open_streams_and_the_server_thread(tmp_path):
    live = BackgroundServer(make_app(tmp_path))
    host, code, phones = seat_and_start(live.port, SUITS[:3])
    streams = [p.open_stream() for p in phones]
    for s in streams:
        s.wait_for(lambda m: m.get("event") == "state")
    live.stop()
    assert not live.thread.is_alive()
    for s in streams:
        s.close()
