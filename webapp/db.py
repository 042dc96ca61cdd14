"""The SQLite store: one connection per request (flaskr style), WAL and synchronous=FULL.

Reads run in autocommit mode and never hold a transaction open; every write runs inside
`write(db)`, a short `BEGIN IMMEDIATE ... COMMIT` that takes the write lock up front.
"""
from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from flask import current_app, g

DB_NAME = "icetable.sqlite3"


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection with the store's pragmas; creates the schema on first use."""
    db = sqlite3.connect(str(path), timeout=10.0, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("PRAGMA busy_timeout=10000")
    return db


def init_db(path: str | Path) -> None:
    """Create the data file and its tables if they do not exist yet."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = connect(path)
    try:
        db.executescript(resources.files("webapp").joinpath("schema.sql").read_text())
    finally:
        db.close()


# SQLite has one writer at a time; threads of this process queue here, in order, instead of
# in SQLite's busy handler, whose growing sleeps stretch the tail of latencies under bursts.
_WRITER = threading.Lock()


@contextmanager
def write(db: sqlite3.Connection):
    """A write transaction: BEGIN IMMEDIATE, COMMIT on success, ROLLBACK on any error."""
    with _WRITER:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def get_db() -> sqlite3.Connection:
    """The request's connection, opened on first use."""
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    return g.db


def close_db(_exc=None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()
