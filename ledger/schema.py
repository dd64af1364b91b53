"""The ledger's SQLite schema, versioned with ``PRAGMA user_version``.

Version 1: photos (de-duplicated by sha256, with a small JPEG thumbnail), game sessions, judgements
(detected state, result, corrections) and rounds (a session's judged challenges; undo marks, never
deletes). Times are UTC ISO 8601 strings; JSON columns hold compact JSON text.
"""

from __future__ import annotations

SCHEMA_VERSION = 1

#: Statements that build an empty version-1 database (run inside one transaction).
SCHEMA_V1 = (
    """CREATE TABLE photos (
        sha256 TEXT PRIMARY KEY,
        thumbnail_jpeg BLOB,
        first_seen_utc TEXT NOT NULL
    )""",
    """CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        game TEXT NOT NULL,
        players_json TEXT NOT NULL,
        settings_json TEXT NOT NULL,
        created_utc TEXT NOT NULL,
        ended_utc TEXT,
        result_json TEXT
    )""",
    """CREATE TABLE judgements (
        id INTEGER PRIMARY KEY,
        created_utc TEXT NOT NULL,
        game TEXT NOT NULL,
        photo_sha256 TEXT REFERENCES photos(sha256),
        source TEXT NOT NULL DEFAULT '',
        session_id INTEGER REFERENCES sessions(id),
        state_json TEXT NOT NULL,
        result_json TEXT NOT NULL,
        corrected_from INTEGER REFERENCES judgements(id),
        corrections_json TEXT
    )""",
    "CREATE INDEX judgements_game ON judgements(game, id)",
    "CREATE INDEX judgements_session ON judgements(session_id, id)",
    """CREATE TABLE rounds (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        number INTEGER NOT NULL,
        challenger TEXT,
        judgement_id INTEGER REFERENCES judgements(id),
        summary_json TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0 CHECK (undone IN (0, 1)),
        created_utc TEXT NOT NULL
    )""",
    "CREATE UNIQUE INDEX rounds_live_number ON rounds(session_id, number) WHERE undone = 0",
)

#: ``MIGRATIONS[v]`` turns a version-``v`` database into version ``v + 1`` (none yet).
MIGRATIONS: dict[int, tuple[str, ...]] = {}
