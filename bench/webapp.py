"""Benchmark: the web app under a tournament's load, on a real waitress server on loopback.

20 tables of IceFloe, 8 phones each (4 players and 4 onlookers, all with an open event stream:
160 streams). Figures: the time from a table's last ballot to every one of its 8 phones holding
the revealed tally (target: median < 100 ms), and the requests per second the server sustains
for state reads and for die rolls (a write that reaches 8 streams) while all streams are open.
Client and server share this machine's cores, so the figures are pessimistic.

Run: python bench/webapp.py [--tables 20] [--rounds 2]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

if Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path[0] = str(Path(__file__).resolve().parents[1])   # else this file shadows the package

from webapp import create_app  # noqa: E402
from webapp.client import HttpPhone, play_first_choices  # noqa: E402
from webapp.serving import BackgroundServer  # noqa: E402

SUITS = ("suns", "moons", "crowns", "arms")
ONLOOKERS = 4


def open_table(port: int, seed: int):
    """(players, onlookers) of a started 4-player IceFloe table."""
    host = HttpPhone(port, "")
    host.code = host.request("POST", "/tables", {"game": "icefloe"})[1]["code"]
    players = []
    for side in SUITS:
        phone = HttpPhone(port, host.code)
        phone.join(f"{side} player", side)
        players.append(phone)
    host.request("POST", f"/t/{host.code}/host/start", {"seed": seed})
    return players, [HttpPhone(port, host.code) for _ in range(ONLOOKERS)]


def play_until_vote(players) -> bool:
    """Everyone plays his first legal choice until a vote opens; False if the game ends."""
    return play_first_choices(players, lambda game: game["view"].get("phase") == "vote") is not None


def tally_seen(view: dict, stage: str) -> bool:
    vote = view.get("vote", {})
    if vote.get("stage") == stage and "ballots" in vote:
        return True
    return "ballots" in view.get("this_round", {}).get(stage, {})


def measure_vote(players, streams) -> float | None:
    """Cast a unanimous vote; seconds from the last ballot to all streams holding the tally."""
    state = players[0].state()["game"]["view"]
    stage, choice = state["vote"]["stage"], state["vote"]["options"][0]
    for m in streams:
        m.messages.clear()
    for phone in players[:-1]:
        phone.act({"type": f"vote_{stage}", "value": choice})
    start = time.perf_counter()
    players[-1].act({"type": f"vote_{stage}", "value": choice})
    arrivals = [s.wait_for(lambda m: m.get("event") == "state" and m["data"]["game"]
                           and tally_seen(m["data"]["game"]["view"], stage), timeout=10)["at"]
                for s in streams]
    return max(arrivals) - start


def run_table(port: int, seed: int, rounds: int, ready: threading.Barrier, out: list, opened: list,
              stagger: float) -> None:
    """Play one table to its votes and time each; its streams stay open (in `opened`). Before
    each vote the table waits a random 0..`stagger` s (tables do not vote in step); with
    stagger 0 every table votes at once after the start barrier."""
    pause = random.Random(seed)
    players, onlookers = open_table(port, seed)
    play_until_vote(players)
    streams = [p.open_stream() for p in players + onlookers]
    opened.append((players, streams))
    for s in streams:
        s.wait_for(lambda m: m.get("event") == "state")
    ready.wait()
    for _ in range(rounds):
        for _stage in ("number", "suit"):
            if players[0].state()["game"]["view"].get("phase") != "vote":
                break
            time.sleep(pause.uniform(0, stagger))
            out.append(measure_vote(players, streams))
        if not play_until_vote(players):
            break


def throughput(phones, method: str, seconds: float, clients: int = 8) -> float:
    """Requests per second completed by `clients` threads, each cycling through its share of
    `phones` (several tables) and sending the request of `method` for `seconds`."""
    done = [0] * clients
    stop = time.perf_counter() + seconds

    def worker(i: int) -> None:
        mine = phones[i::clients]
        while time.perf_counter() < stop:
            phone = mine[done[i] % len(mine)]
            if method == "GET":
                phone.request("GET", f"/t/{phone.code}/state")
            else:
                phone.request("POST", f"/t/{phone.code}/dice", {})
            done[i] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.perf_counter() - start)


def vote_latencies(port: int, args, streams: int, stagger: float, opened: list) -> list[float]:
    """Seconds from the last ballot to 8 phones seeing the tally, for each vote of every table."""
    ready = threading.Barrier(args.tables + 1)
    latencies: list[float] = []
    tables = [threading.Thread(target=run_table,
                               args=(port, 100 * i + len(opened), args.rounds, ready, latencies, opened, stagger))
              for i in range(args.tables)]
    t0 = time.perf_counter()
    for t in tables:
        t.start()
    ready.wait()
    print(f"{args.tables} tables x 8 phones: {streams} open streams (set-up {time.perf_counter() - t0:.1f} s)")
    for t in tables:
        t.join()
    return latencies


def close_streams(opened: list) -> None:
    for _, table_streams in opened:
        for s in table_streams:
            s.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--stagger", type=float, default=1.5, help="seconds between tables' votes, at most")
    args = parser.parse_args()
    streams = args.tables * (len(SUITS) + ONLOOKERS)
    with tempfile.TemporaryDirectory() as data:
        app = create_app({"DATA_DIR": data, "RATE_BURST": 10**6, "RATE_PER_SECOND": 10.0**6})
        server = BackgroundServer(app, threads=streams + 64)
        try:
            for stagger in (args.stagger, 0.0):
                opened: list = []
                ms = sorted(x * 1000 for x in vote_latencies(server.port, args, streams, stagger, opened))
                when = f"tables vote at random moments (0-{stagger:g} s apart)" if stagger else \
                    "all tables vote at the same instant"
                print(f"vote -> all 8 phones see the tally, {when}: median {statistics.median(ms):.1f} ms, "
                      f"p90 {ms[int(len(ms) * 0.9)]:.1f} ms, max {ms[-1]:.1f} ms over {len(ms)} votes")
                if stagger:
                    close_streams(opened)
            players = [p for table_players, _ in opened for p in table_players]
            reads = throughput(players, "GET", args.seconds)
            rolls = throughput(players, "POST", args.seconds)
            print(f"sustained with {sum(len(s) for _, s in opened)} streams open, 8 client threads: "
                  f"{reads:.0f} state reads/s; {rolls:.0f} die rolls/s (each an fsynced write "
                  f"whose event goes to its table's 8 streams)")
            close_streams(opened)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
