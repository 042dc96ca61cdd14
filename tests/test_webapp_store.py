"""Web app store: group commit, the checks at start, backups, and a store that fails under a
running server (real SQLite files; `icetable serve` in-process for its one-line errors)."""
from __future__ import annotations

import json
import logging
import sqlite3
import threading

import pytest

from icetable.cli import main
from tests.webapp_helpers import advance, in_phase, make_app, new_table, seat
from webapp import store
from webapp.db import DB_NAME, StoreError
from webapp.sqlite_store import SqliteStore

SUITS = ["suns", "moons", "crowns"]


def played(tmp_path, end: bool = True):
    """An app whose table played a game to its first vote (and ended it)."""
    app = make_app(tmp_path)
    host, code = new_table(app, "icefloe")
    phones = seat(app, code, SUITS)
    host.post(f"/t/{code}/host/start", json={"seed": 5})
    advance(phones, in_phase("vote"))
    if end:
        assert host.post(f"/t/{code}/host/end", json={}).status_code == 200
    return app, host, code, phones


def backups(tmp_path) -> list:
    return sorted((tmp_path / "backups").glob("icetable-*.sqlite3"))


def serve_error(tmp_path, capsys) -> str:
    assert main(["serve", "--bind", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    return err


def test_ballots_arriving_together_share_a_commit_and_each_is_answered_after_it(tmp_path):
    app, host, code, phones = played(tmp_path, end=False)
    committer = app.extensions["icetable"].store.committer
    assert committer.conn.execute("PRAGMA synchronous").fetchone()[0] == 2       # FULL
    before, barrier, answers = committer.batches, threading.Barrier(3), {}

    def vote(phone):
        barrier.wait()
        answers[phone.side] = phone.act({"type": "vote_number", "value": 1}).status_code
        other = sqlite3.connect(tmp_path / DB_NAME)          # answered: on disk for anyone
        stored = [json.loads(r[0]) for r in other.execute("SELECT action FROM actions")]
        answers[phone.side + " stored"] = sum(a == {"type": "vote_number", "value": 1, "player": phone.side}
                                              for a in stored)
        other.close()
    threads = [threading.Thread(target=vote, args=(p,)) for p in phones]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == {**dict.fromkeys(SUITS, 200), **{s + " stored": 1 for s in SUITS}}
    assert committer.batches - before <= 3


def test_a_failing_write_rolls_back_alone_in_its_batch(tmp_path):
    db = SqliteStore(tmp_path)
    gate = threading.Event()
    first = db.submit(lambda w: gate.wait(5))              # holds the committer: the rest queue up
    jobs = [db.submit(lambda w: store.create_table(w, "icefloe", {})),
            db.submit(lambda w: w.execute("INSERT INTO tables (id, code, game, created) VALUES (1, 'X', 'x', 0)")),
            db.submit(lambda w: store.create_table(w, "iceberg", {}))]
    batches = db.committer.batches
    gate.set()
    first.result()
    assert jobs[0].result()[0]["game"] == "icefloe" and jobs[2].result()[0]["game"] == "iceberg"
    with pytest.raises(sqlite3.IntegrityError):
        jobs[1].result()
    assert db.committer.batches - batches <= 2
    assert [t["game"] for t in store.all_tables(db.read())] == ["icefloe", "iceberg"]
    db.close()


def test_a_backup_at_each_games_end_and_on_shutdown(tmp_path):
    app, host, code, phones = played(tmp_path)
    app.extensions["icetable"].store.write(lambda w: None)      # the backup follows the commit
    assert len(backups(tmp_path)) == 1
    copy = sqlite3.connect(backups(tmp_path)[0])
    assert copy.execute("SELECT status FROM games").fetchone()[0] == "over"
    app.extensions["icetable"].store.close()
    assert len(backups(tmp_path)) == 2


def test_a_missing_store_after_a_first_start_names_the_last_backup(tmp_path, capsys):
    app, *_ = played(tmp_path)
    app.extensions["icetable"].store.close()
    (tmp_path / DB_NAME).unlink()
    err = serve_error(tmp_path, capsys)
    assert "is missing" in err and str(backups(tmp_path)[-1]) in err
    assert not (tmp_path / DB_NAME).exists()           # not silently started empty


@pytest.mark.parametrize("content,problem", [
    (b"these are my notes, not a database" * 200, "cannot be read"),
    ("sqlite-other", "not an icetable store"),
])
def test_a_foreign_file_is_refused_in_one_line(tmp_path, capsys, content, problem):
    path = tmp_path / DB_NAME
    if content == "sqlite-other":
        other = sqlite3.connect(path)
        other.execute("CREATE TABLE recipes (name TEXT)")
        other.commit()
        other.close()
    else:
        path.write_bytes(content)
    before = path.read_bytes()
    err = serve_error(tmp_path, capsys)
    assert problem in err and str(path) in err and "no backup yet" in err
    assert path.read_bytes() == before                 # nothing overwritten


def test_a_corrupt_store_is_refused_naming_the_last_backup(tmp_path, capsys):
    app, *_ = played(tmp_path)
    app.extensions["icetable"].store.close()
    path = tmp_path / DB_NAME
    data = bytearray(path.read_bytes())
    page = 4096
    for at in range(page, len(data), page):          # every page after the first: a bad header
        data[at:at + 12] = b"\x0d\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
    path.write_bytes(bytes(data))
    err = serve_error(tmp_path, capsys)
    assert ("corrupt" in err or "cannot be read" in err) and str(backups(tmp_path)[-1]) in err


def test_a_store_deleted_under_the_server_is_saved_and_told(tmp_path, caplog):
    app, host, code, phones = played(tmp_path, end=False)
    assert phones[0].act({"type": "vote_number", "value": 1}).status_code == 200
    (tmp_path / DB_NAME).unlink()
    with caplog.at_level(logging.ERROR, logger="icetable.store"):
        refused = [phones[1].act({"type": "vote_number", "value": 1}) for _ in range(5)]
        page = phones[1].client.get(f"/t/{code}", headers={"Accept": "text/html"})
        state = phones[1].client.get(f"/t/{code}/state")
    assert {r.status_code for r in refused} == {503} and "unavailable" in refused[0].json["error"]
    assert page.status_code == 503 and b"This table is unavailable" in page.data
    assert state.status_code == 503
    lines = [r.getMessage() for r in caplog.records]
    assert 1 <= len(lines) <= 3 and all("\n" not in line for line in lines)
    saved = next(line for line in lines if "deleted" in line).split("is in ")[1].split(";")[0]
    copy = sqlite3.connect(saved)                     # the ballot acknowledged before is there
    assert copy.execute("SELECT COUNT(*) FROM actions WHERE action LIKE '%vote_number%'").fetchone()[0] == 1
    assert not (tmp_path / DB_NAME).exists()


def test_store_errors_are_store_errors(tmp_path):
    (tmp_path / "backups").mkdir()
    with pytest.raises(StoreError, match="is missing; there is no backup yet"):
        SqliteStore(tmp_path)
