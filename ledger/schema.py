"""The ledger's schema, the same tables on every backend, versioned.

Version 1: photos (de-duplicated by sha256, with a small JPEG thumbnail), game sessions, judgements
(detected state, result, corrections) and rounds (a session's judged challenges; undo marks, never
deletes). Version 2: every judgement carries the name of the table it was made at (``''``: none given).
Times are UTC ISO 8601 strings; JSON columns hold compact JSON text. Column types that differ between
SQLite and PostgreSQL are ``{placeholders}`` filled by the backend's ``Dialect.fill``.
"""

from __future__ import annotations

SCHEMA_VERSION = 2

#: Statements that build an empty version-1 database (run inside one transaction).
SCHEMA_V1 = (
    """CREATE TABLE photos (
        sha256 TEXT PRIMARY KEY,
        thumbnail_jpeg {blob},
        first_seen_utc TEXT NOT NULL
    )""",
    """CREATE TABLE sessions (
        id {id_pk},
        game TEXT NOT NULL,
        players_json TEXT NOT NULL,
        settings_json TEXT NOT NULL,
        created_utc TEXT NOT NULL,
        ended_utc TEXT,
        result_json TEXT
    )""",
    """CREATE TABLE judgements (
        id {id_pk},
        created_utc TEXT NOT NULL,
        game TEXT NOT NULL,
        photo_sha256 TEXT REFERENCES photos(sha256),
        source TEXT NOT NULL DEFAULT '',
        session_id {ref} REFERENCES sessions(id),
        state_json TEXT NOT NULL,
        result_json TEXT NOT NULL,
        corrected_from {ref} REFERENCES judgements(id),
        corrections_json TEXT
    )""",
    "CREATE INDEX judgements_game ON judgements(game, id)",
    "CREATE INDEX judgements_session ON judgements(session_id, id)",
    """CREATE TABLE rounds (
        id {id_pk},
        session_id {ref} NOT NULL REFERENCES sessions(id),
        number INTEGER NOT NULL,
        challenger TEXT,
        judgement_id {ref} REFERENCES judgements(id),
        summary_json TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0 CHECK (undone IN (0, 1)),
        created_utc TEXT NOT NULL
    )""",
    "CREATE UNIQUE INDEX rounds_live_number ON rounds(session_id, number) WHERE undone = 0",
)

#: ``MIGRATIONS[v]`` turns a version-``v`` database into version ``v + 1``.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        "ALTER TABLE judgements ADD COLUMN table_name TEXT NOT NULL DEFAULT ''",
        "CREATE INDEX judgements_table ON judgements(table_name, id)",
        "CREATE INDEX judgements_corrected_from ON judgements(corrected_from)",
    ),
}

#: The tables a ledger holds (backends may add one for the version).
TABLES = ("photos", "sessions", "judgements", "rounds")

