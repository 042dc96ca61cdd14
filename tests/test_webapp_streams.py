"""Web app on the evented server: open event streams cost no thread, and one client cannot
freeze the others (streams are capped per client and per table)."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.webapp_helpers import make_app
from webapp.client import HttpPhone, play_first_choices
from webapp.reads import TableRead
from webapp.serving import BackgroundServer

SUITS = ["suns", "moons", "crowns", "arms"]


def new_table(port: int, source: str | None = None) -> str:
    return HttpPhone(port, "", source).request("POST", "/tables", {"game": "icefloe"})[1]["code"]


def test_one_client_cannot_hold_the_server(tmp_path):
    server = BackgroundServer(make_app(tmp_path, STREAMS_PER_CLIENT=8))
    try:
        code = new_table(server.port)
        stranger = HttpPhone(server.port, code)
        held = [stranger.open_stream() for _ in range(8)]
        for s in held:
            s.wait_for(lambda m: m.get("event") == "state")
        statuses = [stranger.request("GET", f"/t/{code}/events")[0] for _ in range(20)]
        assert statuses == [429] * 20
        player = HttpPhone(server.port, code)
        assert player.join("Ann", "suns")[0] == 201
        mine = player.open_stream()
        assert player.request("POST", f"/t/{code}/dice", {})[0] == 200
        assert mine.wait_for(lambda m: m.get("event") == "dice")["data"]["name"] == "Ann"
        held.pop().close()
        for _ in range(50):            # the closed stream's place is given back within a poll
            time.sleep(0.1)
            again = stranger.open_stream()
            if again.response.status == 200:
                break
            again.close()
        assert again.response.status == 200
        for s in held + [mine, again]:
            s.close()
    finally:
        server.stop()


def test_a_table_has_a_cap_too(tmp_path):
    server = BackgroundServer(make_app(tmp_path, STREAMS_PER_TABLE=3))
    try:
        code = new_table(server.port)
        phones = [HttpPhone(server.port, code) for _ in range(4)]
        for phone, side in zip(phones, SUITS):
            phone.join(side, side)
        streams = [p.open_stream() for p in phones]
        assert [s.response.status for s in streams] == [200, 200, 200, 429]
        other = new_table(server.port)
        assert HttpPhone(server.port, other).open_stream().response.status == 200
        for s in streams:
            s.close()
    finally:
        server.stop()


def threads_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no thread count")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to count threads")
def test_two_hundred_open_streams_cost_no_thread_in_icetable_serve(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "icetable", "serve", "--bind", "127.0.0.1", "--port", "0",
                             "--data-dir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    streams = []
    try:
        port = int(proc.stdout.readline().split()[-1].rstrip("/").rsplit(":", 1)[1])
        players = []
        for t in range(25):
            code = new_table(port, f"127.0.1.{t + 1}")
            for i, side in enumerate(SUITS):
                phone = HttpPhone(port, code, f"127.0.{i + 2}.{t + 1}")    # one device each
                assert phone.join(side, side)[0] == 201
                players.append(phone)
        streams = [players[0].open_stream()]
        streams[0].wait_for(lambda m: m.get("event") == "state")
        before = threads_of(proc.pid)                   # the server's threads, streams or not
        streams += [p.open_stream() for p in players for _ in range(2)][1:]
        for s in streams:
            s.wait_for(lambda m: m.get("event") == "state")
        assert len(streams) == 200 and threads_of(proc.pid) == before
        assert players[-1].request("POST", f"/t/{players[-1].code}/dice", {})[0] == 200
        seen = [s.wait_for(lambda m: m.get("event") == "dice") for s in streams[-8:]]
        assert len(seen) == 8
    finally:
        for s in streams:
            s.close()
        proc.terminate()
        proc.wait(timeout=20)
        proc.stdout.close()
        proc.stderr.close()


def test_a_tables_streams_share_one_read_per_event_and_each_sees_its_own_view(tmp_path, monkeypatch):
    """Eight phones of one table: a ballot reaches every stream, each with the view its phone
    may see (only the voter's holds the ballot), and the table was read once for it, not once
    per phone (webapp.reads; on PostgreSQL each read is a round trip)."""
    loads = []
    load = TableRead.load.__func__
    monkeypatch.setattr(TableRead, "load", classmethod(lambda cls, db, tid: loads.append(tid) or load(cls, db, tid)))
    server = BackgroundServer(make_app(tmp_path))
    try:
        host = HttpPhone(server.port, "")
        code = host.request("POST", "/tables", {"game": "icefloe"})[1]["code"]
        players = [HttpPhone(server.port, code) for _ in SUITS]
        for phone, side in zip(players, SUITS):
            phone.join(side, side)
        assert host.request("POST", f"/t/{code}/host/start", {"seed": 5})[0] == 201
        assert play_first_choices(players, lambda g: g["view"].get("phase") == "vote") is not None
        streams = [p.open_stream() for p in players + [HttpPhone(server.port, code) for _ in range(4)]]
        for s in streams:
            s.wait_for(lambda m: m.get("event") == "state")
        voter = next(p for p in players if p.state()["game"]["legal"])
        choice = dict(voter.state()["game"]["legal"][0])
        choice.pop("player")
        loads.clear()                              # from here, only the streams read the table
        assert voter.act(choice)[0] == 200
        seen = [s.wait_for(lambda m: m.get("event") == "state" and m["data"]["game"]["view"]["vote"]["voted"])
                for s in streams]
        assert len(loads) == 1
        mine = [m["data"]["game"]["view"]["vote"].get("mine") for m in seen]
        assert mine == [choice["value"] if p is voter else None for p in players] + [None] * 4
        for s in streams:
            s.close()
    finally:
        server.stop()
