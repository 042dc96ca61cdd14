"""Benchmark: the web app under a tournament's load, the server in its own process on loopback.

For 20 and 50 tables of IceFloe with 8 phones each (4 players and 4 onlookers, every one with an
open event stream), each table votes twice (the number, then the suit). Printed: the time from
a table's last ballot to all 8 of its phones holding the revealed tally (median and 95th
percentile over every vote), with the tables voting at random moments (staggered) and all at the
same instant (a barrier before every last ballot). The server is `webapp.serving.Server`, as
`icetable serve` runs it, in a child process; the phones are threads of this process. Both share
this machine's cores.

Run: python bench/webapp.py [--tables 20 50] [--database postgresql://...]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

if Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path[0] = str(Path(__file__).resolve().parents[1])   # else this file shadows the package

from webapp.client import HttpPhone  # noqa: E402

SUITS = ("suns", "moons", "crowns", "arms")
ONLOOKERS = 4
SERVER_CONFIG = {"RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6,    # all phones share 127.0.0.1
                 "STREAMS_PER_CLIENT": 10**4, "STREAMS_PER_TABLE": 64}


def serve(data_dir: str, database: str | None) -> None:
    """The server process: print the port, serve until killed."""
    from icetable.commands.serve import more_files
    from webapp import create_app
    from webapp.serving import Server
    more_files()
    app = create_app({"DATA_DIR": data_dir, "DATABASE_URL": database, **SERVER_CONFIG})
    server = Server(app, "127.0.0.1", 0)
    print(server.server_port, flush=True)
    server.serve_forever()


def start_server(data_dir: str, database: str | None):
    cmd = [sys.executable, __file__, "--serve", data_dir] + (["--database", database] if database else [])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    return proc, int(proc.stdout.readline())


def open_table(port: int, seed: int):
    """(players, onlookers) of a 4-player IceFloe table at its first vote."""
    host = HttpPhone(port, "")
    host.code = host.request("POST", "/tables", {"game": "icefloe"})[1]["code"]
    players = []
    for side in SUITS:
        phone = HttpPhone(port, host.code)
        phone.join(f"{side} player", side)
        players.append(phone)
    host.request("POST", f"/t/{host.code}/host/start", {"seed": seed})
    for _ in range(400):
        game = players[0].state()["game"]
        if game["view"].get("phase") == "vote":
            break
        phone = players[SUITS.index(game["to_act"][0])]
        choice = dict(phone.state()["game"]["legal"][0])
        choice.pop("player")
        phone.act(choice)
    return players, [HttpPhone(port, host.code) for _ in range(ONLOOKERS)]


def tally_seen(view: dict, stage: str) -> bool:
    return "ballots" in view.get("this_round", {}).get(stage, {})


def measure_vote(players, streams, before_last) -> float | None:
    """Cast a unanimous vote; seconds from the last ballot to all streams holding the tally
    (None when no vote is open: a rank on tiles of one suit needs no suit vote)."""
    view = players[0].state()["game"]["view"]
    if view.get("phase") != "vote":
        before_last()
        return None
    stage, choice = view["vote"]["stage"], view["vote"]["options"][0]
    for phone in players[:-1]:
        phone.act({"type": f"vote_{stage}", "value": choice})
    before_last()
    start = time.perf_counter()
    status, answer = players[-1].act({"type": f"vote_{stage}", "value": choice})
    if status != 200:
        raise RuntimeError(f"the last ballot was refused: {status} {answer}")
    arrivals = [s.wait_for(lambda m: m.get("event") == "state" and m["data"]["game"]
                           and tally_seen(m["data"]["game"]["view"], stage) and m["at"] >= start,
                           timeout=30)["at"] for s in streams]
    return max(arrivals) - start


def run_table(port: int, seed: int, at_once: threading.Barrier | None, ready: threading.Barrier,
              out: list, opened: list) -> None:
    """One table: set up, open its 8 streams, then two votes (staggered, or in step with every
    table when `at_once` is given)."""
    pause = random.Random(seed)
    players, onlookers = open_table(port, seed)
    streams = [p.open_stream() for p in players + onlookers]
    opened.extend(streams)
    for s in streams:
        s.wait_for(lambda m: m.get("event") == "state", timeout=60)
    ready.wait()
    for _stage in ("number", "suit"):
        if at_once is None:
            time.sleep(pause.uniform(0, 1.5))
            seconds = measure_vote(players, streams, lambda: None)
        else:
            seconds = measure_vote(players, streams, lambda: at_once.wait(timeout=120))
        if seconds is not None:
            out.append(seconds)


def one_run(port: int, tables: int, at_once: bool, seed0: int) -> list[float]:
    ready = threading.Barrier(tables + 1, timeout=600)
    step = threading.Barrier(tables, timeout=120) if at_once else None
    latencies, opened = [], []
    threads = [threading.Thread(target=run_table, args=(port, seed0 + i, step, ready, latencies, opened))
               for i in range(tables)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    ready.wait()
    setup = time.perf_counter() - t0
    for t in threads:
        t.join()
    for s in opened:
        s.close()
    ms = sorted(x * 1000 for x in latencies)
    how = "all at once" if at_once else "staggered  "
    print(f"{tables:3d} tables x 8 phones ({len(opened)} streams), {how}: last ballot -> all 8 phones "
          f"see the tally: median {statistics.median(ms):6.1f} ms, p95 {ms[int(0.95 * (len(ms) - 1))]:6.1f} ms, "
          f"max {ms[-1]:6.1f} ms over {len(ms)} votes (set-up {setup:.0f} s)", flush=True)
    return ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[20, 50])
    parser.add_argument("--database", help="postgresql:// URL (default: SQLite in a temporary folder)")
    parser.add_argument("--serve", metavar="DATA_DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.database)
        return
    print(f"machine: {os.cpu_count()} cores; store: {'PostgreSQL' if args.database else 'SQLite'}", flush=True)
    with tempfile.TemporaryDirectory() as data:
        proc, port = start_server(data, args.database)
        try:
            for n, tables in enumerate(args.tables):
                for at_once in (False, True):
                    one_run(port, tables, at_once, seed0=1000 * (2 * n + at_once))
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
