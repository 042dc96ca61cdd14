-- icetable web app store. One SQLite file per data directory; WAL, synchronous=FULL (see db.py).
-- webapp/pg.py adapts this text to PostgreSQL (ids, REAL), so keep to SQL both understand.
CREATE TABLE IF NOT EXISTS tables (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,         -- short join code shown beside the QR
    game        TEXT NOT NULL,                -- icehouse, icefloe, iceberg, icepirates
    options     TEXT NOT NULL DEFAULT '{}',   -- rule options (JSON)
    host_hash   TEXT,                         -- sha256 of the host token (never the token)
    created     REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS players (
    id          INTEGER PRIMARY KEY,
    table_id    INTEGER NOT NULL REFERENCES tables(id),
    name        TEXT NOT NULL,
    side        TEXT NOT NULL,                -- suit or colour: the player's name in the match
    token_hash  TEXT NOT NULL UNIQUE,         -- sha256 of the player's secret cookie
    is_host     INTEGER NOT NULL DEFAULT 0,
    removed     INTEGER NOT NULL DEFAULT 0,
    joined      REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS players_side ON players(table_id, side) WHERE removed = 0;
CREATE UNIQUE INDEX IF NOT EXISTS players_name ON players(table_id, name) WHERE removed = 0;

CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    table_id    INTEGER NOT NULL REFERENCES tables(id),
    number      INTEGER NOT NULL,             -- 1, 2, ... at this table
    players     TEXT NOT NULL,                -- JSON list of sides, in seat order
    seed        INTEGER NOT NULL,
    deadline    REAL,                         -- Icehouse hidden end timer: server-side only
    status      TEXT NOT NULL DEFAULT 'playing',  -- playing, over
    version     INTEGER NOT NULL DEFAULT 0,   -- +1 with every action stored or taken back
    started     REAL NOT NULL,
    ended       REAL,
    UNIQUE(table_id, number)
);

-- Every accepted action, in order: a match is rebuilt by re-applying the live ones.
CREATE TABLE IF NOT EXISTS actions (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    seq         INTEGER NOT NULL,
    action      TEXT NOT NULL,                -- JSON, as given to Match.apply
    undone      INTEGER NOT NULL DEFAULT 0,
    created     REAL NOT NULL,
    UNIQUE(game_id, seq)
);

-- Score sheet: one row per player whose points changed with an action (derived from the
-- match) or per host entry. Totals are the match's scores plus host entries.
CREATE TABLE IF NOT EXISTS ledger (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    action_id   INTEGER NOT NULL REFERENCES actions(id),
    round       INTEGER NOT NULL,
    side        TEXT NOT NULL,
    points      INTEGER NOT NULL,
    source      TEXT NOT NULL,                -- game or host
    reason      TEXT NOT NULL DEFAULT ''
);

-- The latest scene per table (posted by the camera loop) and the report on it.
CREATE TABLE IF NOT EXISTS scenes (
    table_id    INTEGER PRIMARY KEY REFERENCES tables(id),
    scene       TEXT NOT NULL,
    report      TEXT NOT NULL,
    posted      REAL NOT NULL
);

-- Append-only event log, public to the table; ids are the SSE event ids.
CREATE TABLE IF NOT EXISTS events (
    id          INTEGER PRIMARY KEY,
    table_id    INTEGER NOT NULL REFERENCES tables(id),
    kind        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    created     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_table ON events(table_id, id);

-- Request ids of applied writes (webapp/replies.py): key is a hash of client, route and id;
-- status and body are the first answer, stored with the write it answers (NULL for a write
-- made without one); pruned after replies.KEEP_HOURS.
CREATE TABLE IF NOT EXISTS replies (
    key         TEXT PRIMARY KEY,
    status      INTEGER,
    body        TEXT,
    created     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS replies_created ON replies(created);
