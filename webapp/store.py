"""Rows of the store: tables, players, games, actions, score ledger, scenes and events.

Plain functions over a connection; callers wrap writes in `db.write`. Secrets (player and
host tokens) are stored only as SHA-256 hashes.
"""
from __future__ import annotations

import hashlib
import json
import secrets
import time

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"   # no I or O: read aloud across a table
CODE_LENGTH = 4


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def create_table(db, game: str, options: dict, with_host: bool = True):
    """A new table with a fresh join code; returns (row, host token or None)."""
    host = new_token() if with_host else None
    code = new_code(db)
    cur = db.execute("INSERT INTO tables (code, game, options, host_hash, created) VALUES (?,?,?,?,?)",
                     (code, game, json.dumps(options), host and token_hash(host), time.time()))
    return table_by_id(db, cur.lastrowid), host


def new_code(db) -> str:
    """A join code no table has yet (one writer draws codes at a time)."""
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if table_by_code(db, code) is None:
            return code


def table_by_code(db, code: str):
    return db.execute("SELECT * FROM tables WHERE code = ?", (code.upper(),)).fetchone()


def table_by_id(db, table_id: int):
    return db.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()


def all_tables(db):
    return db.execute("SELECT * FROM tables ORDER BY id").fetchall()


def players(db, table_id: int) -> list:
    return db.execute("SELECT * FROM players WHERE table_id = ? AND removed = 0 ORDER BY id",
                      (table_id,)).fetchall()


def player_by_token(db, table_id: int, token: str | None):
    if not token:
        return None
    return db.execute("SELECT * FROM players WHERE table_id = ? AND token_hash = ? AND removed = 0",
                      (table_id, token_hash(token))).fetchone()


def add_player(db, table_id: int, name: str, side: str, is_host: bool):
    """Seat a player; returns (row, token). Raises an integrity error if name or side is taken."""
    token = new_token()
    cur = db.execute(
        "INSERT INTO players (table_id, name, side, token_hash, is_host, joined) VALUES (?,?,?,?,?,?)",
        (table_id, name, side, token_hash(token), int(is_host), time.time()))
    return db.execute("SELECT * FROM players WHERE id = ?", (cur.lastrowid,)).fetchone(), token


def remove_player(db, table_id: int, player_id: int) -> bool:
    cur = db.execute("UPDATE players SET removed = 1 WHERE table_id = ? AND id = ? AND removed = 0",
                     (table_id, player_id))
    return cur.rowcount == 1


def current_game(db, table_id: int):
    return db.execute("SELECT * FROM games WHERE table_id = ? ORDER BY number DESC LIMIT 1",
                      (table_id,)).fetchone()


def game_by_number(db, table_id: int, number: int):
    return db.execute("SELECT * FROM games WHERE table_id = ? AND number = ?",
                      (table_id, number)).fetchone()


def game_by_id(db, game_id: int):
    return db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()


def add_game(db, table_id: int, sides: list[str], seed: int, deadline: float | None):
    last = current_game(db, table_id)
    number = last["number"] + 1 if last else 1
    cur = db.execute(
        "INSERT INTO games (table_id, number, players, seed, deadline, started) VALUES (?,?,?,?,?,?)",
        (table_id, number, json.dumps(sides), seed, deadline, time.time()))
    return game_by_id(db, cur.lastrowid)


def end_game(db, game_id: int) -> None:
    db.execute("UPDATE games SET status = 'over', ended = ?, deadline = NULL WHERE id = ?",
               (time.time(), game_id))


def reopen_game(db, game_id: int) -> None:
    db.execute("UPDATE games SET status = 'playing', ended = NULL WHERE id = ?", (game_id,))


def due_games(db, now: float) -> list:
    """Games whose hidden deadline has passed and which are still being played."""
    return db.execute("SELECT * FROM games WHERE status = 'playing' AND deadline IS NOT NULL "
                      "AND deadline <= ?", (now,)).fetchall()


def live_action_rows(db, game_id: int) -> list:
    """The game's live actions in order: rows of (id, action JSON)."""
    return db.execute("SELECT id, action FROM actions WHERE game_id = ? AND undone = 0 ORDER BY seq",
                      (game_id,)).fetchall()


def live_actions(db, game_id: int) -> list[dict]:
    return [json.loads(r["action"]) for r in live_action_rows(db, game_id)]


def add_action(db, game_id: int, action: dict) -> int:
    seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM actions WHERE game_id = ?",
                     (game_id,)).fetchone()[0]
    cur = db.execute("INSERT INTO actions (game_id, seq, action, created) VALUES (?,?,?,?)",
                     (game_id, seq, json.dumps(action), time.time()))
    return cur.lastrowid


def last_action(db, game_id: int):
    return db.execute("SELECT * FROM actions WHERE game_id = ? AND undone = 0 ORDER BY seq DESC "
                      "LIMIT 1", (game_id,)).fetchone()


def undo_action(db, action_id: int) -> None:
    """Take an action back (its ledger rows too); the game's version moves on."""
    db.execute("UPDATE actions SET undone = 1 WHERE id = ?", (action_id,))
    db.execute("DELETE FROM ledger WHERE action_id = ?", (action_id,))
    db.execute("UPDATE games SET version = version + 1 WHERE id = (SELECT game_id FROM actions WHERE id = ?)",
               (action_id,))


def game_version(db, game_id: int) -> int:
    return db.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()[0]


def bump_version(db, game_id: int, expected: int) -> bool:
    """Move the game to the next version if it is still at `expected` (else another writer
    changed it first); the row stays locked until the transaction ends."""
    cur = db.execute("UPDATE games SET version = version + 1 WHERE id = ? AND version = ?", (game_id, expected))
    return cur.rowcount == 1


def add_ledger(db, game_id: int, action_id: int, round_: int, deltas: dict, source: str,
               reason: str) -> None:
    db.executemany(
        "INSERT INTO ledger (game_id, action_id, round, side, points, source, reason) "
        "VALUES (?,?,?,?,?,?,?)",
        [(game_id, action_id, round_, side, pts, source, reason) for side, pts in deltas.items()])


def ledger(db, game_id: int) -> list[dict]:
    rows = db.execute("SELECT round, side, points, source, reason FROM ledger WHERE game_id = ? "
                      "ORDER BY id", (game_id,)).fetchall()
    return [dict(r) for r in rows]


def save_scene(db, table_id: int, scene: dict, report: dict) -> None:
    db.execute("INSERT INTO scenes (table_id, scene, report, posted) VALUES (?,?,?,?) ON CONFLICT "
               "(table_id) DO UPDATE SET scene = excluded.scene, report = excluded.report, "
               "posted = excluded.posted", (table_id, json.dumps(scene), json.dumps(report), time.time()))


def latest_scene(db, table_id: int):
    """(scene dict, report dict) last posted for the table, or (None, None)."""
    row = db.execute("SELECT scene, report FROM scenes WHERE table_id = ?", (table_id,)).fetchone()
    return (json.loads(row["scene"]), json.loads(row["report"])) if row else (None, None)


def add_event(db, table_id: int, kind: str, payload: dict) -> int:
    """Append a public event of the table; its id is the SSE id."""
    cur = db.execute("INSERT INTO events (table_id, kind, payload, created) VALUES (?,?,?,?)",
                     (table_id, kind, json.dumps(payload), time.time()))
    return cur.lastrowid


def events_after(db, table_id: int, after: int, limit: int = 200) -> list:
    """Events of the table with id > after, oldest first."""
    return db.execute("SELECT id, kind, payload FROM events WHERE table_id = ? AND id > ? "
                      "ORDER BY id LIMIT ?", (table_id, after, limit)).fetchall()


def last_event_id(db, table_id: int) -> int:
    return db.execute("SELECT COALESCE(MAX(id), 0) FROM events WHERE table_id = ?",
                      (table_id,)).fetchone()[0]
