"""The embedded store: one SQLite file in the data directory, checked at start, backed up.

At start the file is checked (`PRAGMA integrity_check`, and that it holds icetable's tables);
a missing file is created only on a first start (no `backups/` folder yet), otherwise the
operator is told, in one line, what is wrong and where the last backup is. While the server
runs, the committer checks before each batch that the file is still the one it opened. A
backup (SQLite's online backup, consistent while the server writes) is taken after a batch
that ended a game and on shutdown; the newest KEEP are kept.
"""
from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from pathlib import Path

from webapp.db import DB_NAME, Committer, StoreBase, StoreError, connect, schema

KEEP = 20
log = logging.getLogger("icetable.store")


def last_backup(folder: Path) -> Path | None:
    found = sorted(folder.glob("icetable-*.sqlite3")) if folder.is_dir() else []
    return found[-1] if found else None


def backup_hint(folder: Path) -> str:
    last = last_backup(folder)
    return f"the last backup is {last}" if last else "there is no backup yet"


def check_file(path: Path, backups: Path) -> None:
    """StoreError (one line) if the file at `path` is missing after a first start, not SQLite,
    not icetable's, or corrupt."""
    if not path.exists():
        if backups.is_dir():
            raise StoreError(f"store {path} is missing; {backup_hint(backups)} "
                             f"(copy it to {path} to go on)")
        return
    try:                    # a bare connection: a foreign file is read, never changed
        conn = sqlite3.connect(f"file:{path.resolve().as_posix()}?mode=rw", uri=True)
        try:
            problems = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        reason = str(exc)
        raise StoreError(f"store {path} cannot be read ({reason}); {backup_hint(backups)}") from None
    if problems != ["ok"]:
        raise StoreError(f"store {path} is corrupt ({problems[0]}); {backup_hint(backups)}")
    if names and not {"tables", "players", "games", "events"} <= names:
        raise StoreError(f"store {path} is not an icetable store (it holds the tables "
                         f"{', '.join(sorted(names)[:4])}); {backup_hint(backups)}")


def identity(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


class SqliteStore(StoreBase):
    """Reads, group-committed writes and backups of the store in `data_dir`."""

    dialect = "sqlite"

    def __init__(self, data_dir: str | Path):
        self.path = Path(data_dir) / DB_NAME
        self.backups = Path(data_dir) / "backups"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        check_file(self.path, self.backups)
        conn = connect(self.path)
        conn.executescript(schema())
        if "version" not in {r["name"] for r in conn.execute("PRAGMA table_info(games)")}:
            conn.execute("ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0")   # older stores
        self.backups.mkdir(exist_ok=True)
        self.identity = identity(self.path)
        self._local = threading.local()
        self.lost: str | None = None      # where the data went, once the file was found gone
        self.committer = Committer(conn, check=self._still_there, after_commit=self._after_commit)

    def __repr__(self) -> str:
        return f"store {self.path}"

    def read(self):
        """A new read connection (the caller closes it)."""
        try:
            return connect(self.path, create=False)
        except StoreError:
            self.committer.run(lambda w: None)     # the committer finds out why, saves what it holds
            raise StoreError(f"store {self.path} cannot be opened; {backup_hint(self.backups)}") from None

    def _still_there(self) -> None:
        """StoreError if the file was deleted or replaced. The first time, what the committer's
        connection still holds (the old file stays readable through it) is saved as a backup."""
        try:
            same = identity(self.path) == self.identity
        except OSError:
            same = False
        if same:
            return
        if self.lost is None:
            try:
                self.lost = f"everything written until then is in {self.backup(self.committer.conn)}"
            except (OSError, sqlite3.DatabaseError) as exc:
                self.lost = f"it could not be saved ({exc}); {backup_hint(self.backups)}"
        raise StoreError(f"store {self.path} was deleted or replaced while the server ran; nothing "
                         f"more is written; {self.lost}")

    def _after_commit(self, _jobs) -> None:
        if self.backup_wanted:
            self.backup_wanted = False
            self.backup(self.committer.conn)

    def backup(self, conn=None) -> Path:
        """Copy the store to backups/icetable-<UTC time>.sqlite3 (online backup)."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{time.time_ns() % 10**9:09d}"
        self.backups.mkdir(parents=True, exist_ok=True)
        target = self.backups / f"icetable-{stamp}.sqlite3"
        partial = target.with_suffix(".partial")        # renamed once whole: never half a backup
        source = conn or connect(self.path, create=False)
        dest = sqlite3.connect(str(partial))
        try:
            source.backup(dest)
        finally:
            dest.close()
            if conn is None:
                source.close()
        os.replace(partial, target)
        for old in sorted(self.backups.glob("icetable-*.sqlite3"))[:-KEEP]:
            old.unlink(missing_ok=True)
        return target

    def close(self) -> None:
        """Stop the committer (after what is queued) and take a last backup."""
        self.committer.stop()
        try:
            self._still_there()
            self.backup(self.committer.conn)
        except (StoreError, sqlite3.DatabaseError) as exc:
            log.error("no backup on shutdown: %s", exc)
        self.committer.conn.close()
