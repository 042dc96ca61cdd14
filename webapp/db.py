"""The SQLite store: WAL and synchronous=FULL, reads per request, writes by group commit.

Reads open their own connection (one per request, flaskr style) in autocommit mode, never
creating the file: a store deleted under a running server is reported, not silently replaced
by an empty one. Every write is a job, `fn(connection)`, handed to the one committer thread
(`Committer`): it runs the jobs that are waiting, each in its own savepoint (a failing job
rolls back alone), then commits them all with one durable COMMIT, and only then answers each
caller. Ballots arriving together thus share one disk sync, and nothing is acknowledged before
it is on disk. `sqlite_store.SqliteStore` and `postgres.PostgresStore` (module pg) both build on
it.
"""
from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import gevent.event
from flask import current_app, g

DB_NAME = "icetable.sqlite3"
log = logging.getLogger("icetable.store")


class StoreError(RuntimeError):
    """The store cannot be used (missing, foreign or corrupt file; server gone); str() is one line
    for the operator."""


UNAVAILABLE = "the table is unavailable: the server cannot read its store; tell the host"
_told: dict[str, float] = {}


def tell_operator(exc: Exception) -> str:
    """Log the store's failure in one line (once a minute per problem, never a traceback per
    request); returns the line."""
    message = (str(exc).splitlines() or [type(exc).__name__])[0]
    if time.monotonic() - _told.get(message, -120.0) > 60:
        _told[message] = time.monotonic()
        log.error("table unavailable: %s", message)
    return message


def schema(name: str = "schema.sql") -> str:
    return resources.files("webapp").joinpath(name).read_text()


def connect(path: str | Path, create: bool = True) -> sqlite3.Connection:
    """A connection with the store's pragmas (`create=False`: the file must exist)."""
    target = str(path) if create else f"file:{Path(path).resolve().as_posix()}?mode=rw"
    try:
        db = sqlite3.connect(target, timeout=10.0, isolation_level=None, check_same_thread=False,
                             uri=not create)
        db.execute("PRAGMA journal_mode=WAL")
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"store {path}: {exc}") from None
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("PRAGMA busy_timeout=10000")
    return db


@contextmanager
def write(db):
    """A write transaction on a connection of one's own: BEGIN IMMEDIATE, COMMIT on success,
    ROLLBACK on any error. (The app's own writes go through its committer.)"""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class Job:
    """A write waiting for the committer; `result()` waits (cooperatively under gevent)."""

    WAIT = 60.0     # seconds; a wait with a timeout also keeps a thread's idle hub from exiting

    def __init__(self, fn):
        self.fn = fn
        self.done = gevent.event.AsyncResult()

    def result(self):
        try:
            return self.done.get(timeout=self.WAIT)
        except gevent.Timeout:
            raise StoreError(f"the store did not answer a write within {self.WAIT:g} s") from None


class Committer:
    """The writer thread. `begin` opens a batch's transaction; `check()` runs before each batch
    (raising StoreError stops it); `after_commit(jobs)` runs once a batch is durable."""

    MAX_BATCH = 500

    def __init__(self, conn, begin: str = "BEGIN IMMEDIATE", check=None, after_commit=None):
        self.conn, self.begin = conn, begin
        self.check, self.after_commit = check or (lambda: None), after_commit or (lambda jobs: None)
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.batches = 0            # durable commits so far (each may hold many jobs)
        self.thread = threading.Thread(target=self._run, name="icetable-committer", daemon=True)
        self.thread.start()

    def submit(self, fn) -> Job:
        """Queue `fn(connection)`; its result (or exception) comes with `Job.result()`."""
        job = Job(fn)
        self.queue.put(job)
        return job

    def run(self, fn):
        return self.submit(fn).result()

    def stop(self) -> None:
        self.queue.put(None)
        self.thread.join(timeout=30)

    def _run(self) -> None:
        while True:
            first = self.queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < self.MAX_BATCH:
                try:
                    job = self.queue.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    self.queue.put(None)      # stop once this batch is committed
                    break
                batch.append(job)
            self._commit(batch)

    def _commit(self, batch: list[Job]) -> None:
        outcomes = []
        try:
            self.check()
            self.conn.execute(self.begin)
            for job in batch:
                outcomes.append(self._one(job))
            self.conn.execute("COMMIT")
            self.batches += 1
        except Exception as exc:         # the batch is lost as a whole: nobody was answered yet
            self._rollback()
            failure = exc if isinstance(exc, StoreError) else StoreError(f"store: {exc}")
            tell_operator(failure)
            for job in batch:
                job.done.set_exception(failure)
            return
        for job, (ok, value) in zip(batch, outcomes):
            job.done.set(value) if ok else job.done.set_exception(value)
        try:
            self.after_commit(batch)
        except Exception:
            log.exception("after a commit")

    def _one(self, job: Job):
        """(True, result) or (False, exception) of one job, in its own savepoint."""
        self.conn.execute("SAVEPOINT job")
        try:
            value = job.fn(self.conn)
        except Exception as exc:
            self.conn.execute("ROLLBACK TO SAVEPOINT job")
            self.conn.execute("RELEASE SAVEPOINT job")
            if is_store_failure(exc):
                raise
            return False, exc
        self.conn.execute("RELEASE SAVEPOINT job")
        return True, value

    def _rollback(self) -> None:
        try:
            self.conn.execute("ROLLBACK")
        except Exception:
            pass


class StoreBase:
    """What both stores share: writes go to `self.committer`, each carrying the marker of the
    request id it answers and that answer (webapp.replies), so a repeat gets the first answer;
    with the first write, and then every PRUNE_EVERY seconds, old answers are pruned."""

    committer: Committer
    backup_wanted = False
    pruned_at = float("-inf")       # time.monotonic() of the last pruning of old answers
    _local: threading.local

    def reader(self):
        """This thread's shared read connection (kept open; the server's greenlets all share
        their thread's, which is safe as each read completes without yielding)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self.read()
        return conn

    def submit(self, fn, backup: bool = False, answer=None) -> Job:
        """Queue the write `fn(connection)`; `backup`: back the store up once it is committed;
        `answer(value) -> (body, status)`: the request's answer, stored in the same transaction."""
        from webapp.replies import PRUNE_EVERY, prune, with_marker
        if backup:
            self.backup_wanted = True
        if time.monotonic() - self.pruned_at >= PRUNE_EVERY:
            self.pruned_at = time.monotonic()
            self.committer.submit(prune)
        return self.committer.submit(with_marker(fn, answer))

    def write(self, fn, backup: bool = False, answer=None):
        """Run the write `fn(connection)` durably; its result, or its exception."""
        return self.submit(fn, backup, answer).result()


def is_store_failure(exc: Exception) -> bool:
    """Whether `exc` says the store itself failed (not that one job's data was refused)."""
    if isinstance(exc, StoreError):
        return True
    if isinstance(exc, sqlite3.DatabaseError):
        return not isinstance(exc, sqlite3.IntegrityError)
    return type(exc).__module__.startswith("psycopg") and not is_integrity_error(exc)


def is_integrity_error(exc: Exception) -> bool:
    """A unique or foreign-key constraint refused the data (SQLite or PostgreSQL)."""
    if isinstance(exc, sqlite3.IntegrityError):
        return True
    return type(exc).__module__.startswith("psycopg") and "IntegrityError" in [
        c.__name__ for c in type(exc).__mro__]


def app_store():
    """The store of the current app."""
    return current_app.extensions["icetable"].store


def get_db():
    """The request's read connection, opened on first use."""
    if "db" not in g:
        g.db = app_store().read()
    return g.db


def close_db(_exc=None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()
