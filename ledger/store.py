"""The ledger: a record of judgements, game sessions, rounds and photos, in SQLite or PostgreSQL.

``Ledger`` is the one store API; a backend (``ledger.backend``) holds the database: an embedded SQLite
file by default, or a shared PostgreSQL server for a ``postgresql://`` URL. Every write is one
transaction, so a crash (even ``kill -9``) loses nothing already committed and never leaves half a
judgement, and a call returns only after its commit. The schema is created on first open and versioned
(``ledger.schema``); an older ledger is migrated in place.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ledger.backend import (
    MEMORY,
    Backend,
    LedgerConfig,
    Row,
    is_postgres_url,
    one_line,
    resolve_path,
)
from ledger.errors import LedgerError, UnknownRecord
from ledger.records import JudgementRecord, RoundRecord, SessionRecord
from ledger.schema import MIGRATIONS, SCHEMA_V1, SCHEMA_VERSION

__all__ = ["MEMORY", "Ledger", "LedgerConfig", "LedgerError", "UnknownRecord", "clean_table_name",
           "is_postgres_url", "resolve_path"]

TABLE_NAME_MAX = 64


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _jsonable(obj: Any) -> Any:
    """``json.dumps`` fallback: numpy scalars/arrays (``item``/``tolist``), sets, bytes, dataclasses."""
    if hasattr(obj, "to_json"):
        return obj.to_json()
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "item"):
        return obj.item()
    if isinstance(obj, set | frozenset):
        return sorted(obj)
    if isinstance(obj, bytes):
        return obj.hex()
    raise TypeError(f"{type(obj).__name__} is not JSON-able")


def _dumps(obj: Any, what: str) -> str:
    try:
        return json.dumps(obj, default=_jsonable, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"{what} cannot be stored as JSON: {exc}") from None


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def open_backend(target: str, config: LedgerConfig) -> Backend:
    """The backend for a resolved target: PostgreSQL for a ``postgresql://`` URL, else SQLite (raises
    LedgerError when it cannot be opened)."""
    if is_postgres_url(target):
        from ledger.postgres_backend import PostgresBackend

        return PostgresBackend(target, config)
    from ledger.sqlite_backend import SqliteBackend

    return SqliteBackend(target, config)


def clean_table_name(name: str | None) -> str:
    """A table's name as stored: surrounding blanks removed, inner runs of blanks made one space.

    Raises
    ------
    ValueError
        Control characters, or longer than ``TABLE_NAME_MAX`` characters.
    """
    text = " ".join(str(name or "").split())
    if re.search(r"[\x00-\x1f\x7f]", text):
        raise ValueError("a table name cannot contain control characters")
    if len(text) > TABLE_NAME_MAX:
        raise ValueError(f"a table name has at most {TABLE_NAME_MAX} characters (got {len(text)})")
    return text


class Ledger:
    """The ledger.

    Parameters
    ----------
    path : str or PathLike, optional
        A SQLite file (created with its schema on first open), ``":memory:"`` for a throwaway one, or a
        ``postgresql://user:password@host:port/dbname`` URL (the database must exist; its tables are
        created on first open). None: ``$TABLE_JUDGE_LEDGER``, else ``table_judge.sqlite`` here.
    config : LedgerConfig

    Attributes
    ----------
    path : str
        The resolved target (for PostgreSQL the URL without its password).
    kind : str
        ``"sqlite"`` or ``"postgresql"``.
    location : str
        Where the ledger is, safe to show.

    Raises
    ------
    LedgerError
        Missing or unwritable directory, a directory given as the file, a file that is not a SQLite
        database, a server that cannot be reached or refuses the login, a database that is not a Table
        Judge ledger, or one written by a newer schema version.

    Notes
    -----
    One connection per instance, usable from several threads (Streamlit); calls are serialised.
    Several processes may use the same ledger at once.
    """

    def __init__(self, path: str | os.PathLike | None = None, config: LedgerConfig = LedgerConfig()) -> None:
        self.config = config
        target = resolve_path(path, config)
        self._b: Backend = open_backend(target, config)
        self.kind = self._b.dialect.name
        self.location = self._b.location
        self.path = target if self.kind == "sqlite" else self.location
        try:
            self._setup()
        except LedgerError:
            self._b.close()
            raise
        except self._b.errors as exc:
            self._b.close()
            raise self._b.open_error(exc) from None

    # ------------------------------------------------------------------------------------ plumbing

    def describe(self) -> str:
        """One line for people: which ledger this is (``SQLite file x.sqlite``, ``PostgreSQL postgresql://...``)."""
        return f"SQLite file {self.location}" if self.kind == "sqlite" else f"PostgreSQL {self.location}"

    def _setup(self) -> None:
        if self._b.read_schema_version() == SCHEMA_VERSION:
            return  # the usual case: no write lock taken just to open
        with self._b.transaction() as cur:
            version = self._b.lock_schema(cur)
            if version > SCHEMA_VERSION:
                raise LedgerError(f"{self.location} was written by a newer Table Judge (schema {version} > "
                                  f"{SCHEMA_VERSION})")
            if version == 0:
                names = self._b.table_names(cur)
                if names:
                    raise LedgerError(f"{self.location} is a {'SQLite' if self.kind == 'sqlite' else 'PostgreSQL'} "
                                      f"database but not a Table Judge ledger (tables: {', '.join(sorted(names))})")
                for stmt in self._b.dialect.fill(SCHEMA_V1):
                    cur.execute(stmt)
                version = 1
            while version < SCHEMA_VERSION:
                for stmt in self._b.dialect.fill(MIGRATIONS[version]):
                    cur.execute(stmt)
                version += 1
            self._b.set_schema_version(cur, version)

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        """One write transaction (committed when the block ends, rolled back on an exception)."""
        with self._b.transaction() as cur:
            yield cur

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """Database errors -> one-line LedgerError naming the operation."""
        try:
            yield
        except self._b.integrity_errors as exc:
            raise LedgerError(f"{what}: {one_line(exc)} (an id it refers to does not exist?)") from None
        except self._b.errors as exc:
            raise LedgerError(f"{what} failed on {self.location}: {one_line(exc)}") from None

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        with self._errors("reading the ledger"):
            return self._b.query(sql, args)

    def close(self) -> None:
        """Close the connection (further calls fail)."""
        self._b.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def integrity_check(self) -> str:
        """``"ok"`` when the stored data is sound (SQLite: ``PRAGMA integrity_check``)."""
        with self._errors("checking the ledger"):
            return self._b.integrity_check()

    @property
    def schema_version(self) -> int:
        with self._errors("reading the ledger"):
            return self._b.read_schema_version()

    # ------------------------------------------------------------------------------------ judgements

    def record_judgement(
        self,
        game: str,
        state: dict,
        result: dict,
        photo_sha256: str | None = None,
        source: str = "",
        thumbnail_jpeg: bytes | None = None,
        session_id: int | None = None,
        corrected_from: int | None = None,
        corrections: dict | None = None,
        table: str | None = None,
    ) -> int:
        """Store one judgement (and its photo's thumbnail) in one transaction; return its id.

        Parameters
        ----------
        game : str
        state, result : dict
            Detected state and judgement, JSON-able (numpy values are converted).
        photo_sha256 : str, optional
            Hex SHA-256 of the photo file. When only ``thumbnail_jpeg`` is given, the thumbnail's own
            hash keys it.
        source : str
        thumbnail_jpeg : bytes, optional
            Small JPEG; stored once per photo.
        session_id, corrected_from : int, optional
            Must name existing records.
        corrections : dict, optional
        table : str, optional
            Name of the table (in a hall of many) the judgement was made at; see ``clean_table_name``.
            A correction given no table keeps its original's.

        Raises
        ------
        ValueError
            Empty game, a bad table name, or state/result/corrections not JSON-able.
        LedgerError
            A referenced id does not exist, or the write failed.
        """
        if not game:
            raise ValueError("game must be named")
        state_text, result_text = _dumps(state, "state"), _dumps(result, "result")
        corr_text = None if corrections is None else _dumps(corrections, "corrections")
        table_name = clean_table_name(table)
        if thumbnail_jpeg is not None:
            thumbnail_jpeg = bytes(thumbnail_jpeg)
            if photo_sha256 is None:
                photo_sha256 = hashlib.sha256(thumbnail_jpeg).hexdigest()
        now = _now()
        with self._errors("recording the judgement"), self._tx() as cur:
            if photo_sha256 is not None:
                cur.execute("INSERT INTO photos (sha256, thumbnail_jpeg, first_seen_utc) VALUES (?, ?, ?) "
                            "ON CONFLICT (sha256) DO UPDATE SET thumbnail_jpeg = "
                            "COALESCE(photos.thumbnail_jpeg, excluded.thumbnail_jpeg)",
                            (photo_sha256, thumbnail_jpeg, now))
            if not table_name and corrected_from is not None:
                row = cur.execute("SELECT table_name FROM judgements WHERE id = ?", (int(corrected_from),)).fetchone()
                table_name = "" if row is None else row[0]
            row = cur.execute(
                "INSERT INTO judgements (created_utc, game, table_name, photo_sha256, source, session_id, state_json, "
                "result_json, corrected_from, corrections_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (now, game, table_name, photo_sha256, source, None if session_id is None else int(session_id),
                 state_text, result_text, None if corrected_from is None else int(corrected_from), corr_text),
            ).fetchone()
            return int(row[0])

    _JUDGEMENT_SQL = (
        "SELECT j.id, j.created_utc, j.game, j.table_name, j.source, j.photo_sha256, j.session_id, j.state_json, "
        "j.result_json, j.corrected_from, j.corrections_json, p.thumbnail_jpeg FROM judgements j "
        "LEFT JOIN photos p ON p.sha256 = j.photo_sha256"
    )

    @staticmethod
    def _judgement(row: Row) -> JudgementRecord:
        return JudgementRecord(
            id=row["id"], created_utc=row["created_utc"], game=row["game"], source=row["source"],
            photo_sha256=row["photo_sha256"], session_id=row["session_id"], state=_loads(row["state_json"]),
            result=_loads(row["result_json"]), corrected_from=row["corrected_from"],
            corrections=_loads(row["corrections_json"]),
            thumbnail_jpeg=None if row["thumbnail_jpeg"] is None else bytes(row["thumbnail_jpeg"]),
            table=row["table_name"],
        )

    def judgements(self, game: str | None = None, session_id: int | None = None,
                   limit: int | None = 50, table: str | None = None) -> list[JudgementRecord]:
        """Recorded judgements, newest first, optionally of one game / session / table; ``limit=None``: all."""
        where: list[str] = []
        args: list[Any] = []
        if table is not None:
            where.append("j.table_name = ?")
            args.append(clean_table_name(table))
        if game is not None:
            where.append("j.game = ?")
            args.append(game)
        if session_id is not None:
            where.append("j.session_id = ?")
            args.append(session_id)
        sql = self._JUDGEMENT_SQL + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY j.id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        return [self._judgement(r) for r in self._query(sql, args)]

    def count(self, game: str | None = None, table: str | None = None) -> int:
        """How many judgements are recorded (of one game / table)."""
        where: list[str] = []
        args: list[Any] = []
        if game is not None:
            where.append("game = ?")
            args.append(game)
        if table is not None:
            where.append("table_name = ?")
            args.append(clean_table_name(table))
        sql = "SELECT COUNT(*) FROM judgements" + (" WHERE " + " AND ".join(where) if where else "")
        return int(self._query(sql, args)[0][0])

    def judgement(self, jid: int) -> JudgementRecord:
        """One judgement by id; UnknownRecord when there is none."""
        rows = self._query(self._JUDGEMENT_SQL + " WHERE j.id = ?", (int(jid),))
        if not rows:
            raise UnknownRecord(f"no judgement with id {jid}")
        return self._judgement(rows[0])

    def corrections_of(self, jid: int) -> list[JudgementRecord]:
        """Judgements that correct ``jid``, newest first."""
        rows = self._query(self._JUDGEMENT_SQL + " WHERE j.corrected_from = ? ORDER BY j.id DESC", (int(jid),))
        return [self._judgement(r) for r in rows]

    # ------------------------------------------------------------------------------------ the hall

    def tables(self) -> list[str]:
        """Names of the tables judgements were recorded at, sorted (``""``, no name given, first)."""
        return [r[0] for r in self._query("SELECT DISTINCT table_name FROM judgements ORDER BY table_name")]

    def latest_per_table(self, game: str | None = None) -> list[JudgementRecord]:
        """The hall: each table's latest judgement (optionally of one game), by table name.

        A correction is newer than what it corrects, so a corrected judgement shows as corrected.
        """
        inner, args = "SELECT MAX(id) FROM judgements", []
        if game is not None:
            inner += " WHERE game = ?"
            args.append(game)
        sql = self._JUDGEMENT_SQL + f" WHERE j.id IN ({inner} GROUP BY table_name) ORDER BY j.table_name"
        return [self._judgement(r) for r in self._query(sql, args)]

    # ------------------------------------------------------------------------------------ sessions

    def start_session(self, game: str, players: list, settings: dict | None = None) -> int:
        """Open a game session; return its id."""
        if not game:
            raise ValueError("game must be named")
        players_text, settings_text = _dumps(list(players), "players"), _dumps(settings or {}, "settings")
        with self._errors("starting the session"), self._tx() as cur:
            row = cur.execute("INSERT INTO sessions (game, players_json, settings_json, created_utc) "
                              "VALUES (?, ?, ?, ?) RETURNING id",
                              (game, players_text, settings_text, _now())).fetchone()
            return int(row[0])

    @staticmethod
    def _session(row: Row) -> SessionRecord:
        return SessionRecord(id=row["id"], game=row["game"], players=_loads(row["players_json"]),
                             settings=_loads(row["settings_json"]), created_utc=row["created_utc"],
                             ended_utc=row["ended_utc"], result=_loads(row["result_json"]))

    def session(self, sid: int) -> SessionRecord:
        """One session by id; UnknownRecord when there is none."""
        rows = self._query("SELECT * FROM sessions WHERE id = ?", (int(sid),))
        if not rows:
            raise UnknownRecord(f"no session with id {sid}")
        return self._session(rows[0])

    def sessions(self, game: str | None = None, limit: int | None = None) -> list[SessionRecord]:
        """Sessions, newest first, optionally of one game."""
        sql, args = "SELECT * FROM sessions", list[Any]()
        if game is not None:
            sql += " WHERE game = ?"
            args.append(game)
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        return [self._session(r) for r in self._query(sql, args)]

    def end_session(self, sid: int, result: dict) -> None:
        """Mark a session ended with its final result (again: the newer result replaces it)."""
        text = _dumps(result, "result")
        with self._errors("ending the session"), self._tx() as cur:
            cur.execute("UPDATE sessions SET ended_utc = ?, result_json = ? WHERE id = ?", (_now(), text, int(sid)))
            if cur.rowcount == 0:
                raise UnknownRecord(f"no session with id {sid}")

    # ------------------------------------------------------------------------------------ rounds

    def _lock_session(self, cur: Any, sid: int) -> Row:
        """Inside a write transaction: the session's ``ended_utc`` row, locked against other writers of the
        same session (PostgreSQL row lock; SQLite's write transaction already excludes every other)."""
        row = cur.execute("SELECT ended_utc FROM sessions WHERE id = ?" + self._b.dialect.for_update,
                          (int(sid),)).fetchone()
        if row is None:
            raise UnknownRecord(f"no session with id {sid}")
        return row

    def add_round(self, sid: int, judgement_id: int | None, summary: dict, end_result: dict | None = None) -> int:
        """Append a round to a live session; return the round's id.

        The round's number is one more than the session's last live (not undone) round.
        ``summary["challenger"]``, when present, is stored in its own column. With ``end_result``
        the round ends the session in the same transaction (a game's last round).
        """
        text = _dumps(summary, "summary")
        end_text = None if end_result is None else _dumps(end_result, "end_result")
        challenger = summary.get("challenger") if isinstance(summary, dict) else None
        with self._errors("adding the round"), self._tx() as cur:
            row = self._lock_session(cur, sid)
            if row[0] is not None:
                raise LedgerError(f"session {sid} has ended; undo its last round or start a new session")
            number = cur.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM rounds WHERE session_id = ? AND undone = 0",
                                 (int(sid),)).fetchone()[0]
            rid = int(cur.execute(
                "INSERT INTO rounds (session_id, number, challenger, judgement_id, summary_json, created_utc) "
                "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (int(sid), number, None if challenger is None else str(challenger),
                 None if judgement_id is None else int(judgement_id), text, _now()),
            ).fetchone()[0])
            if end_text is not None:
                cur.execute("UPDATE sessions SET ended_utc = ?, result_json = ? WHERE id = ?",
                            (_now(), end_text, int(sid)))
            return rid

    def undo_last_round(self, sid: int) -> bool:
        """Mark the session's last live round undone (kept, not deleted); False when there is none.

        An ended session is reopened (its end came from that round).
        """
        with self._errors("undoing the round"), self._tx() as cur:
            try:
                self._lock_session(cur, sid)
            except UnknownRecord:
                return False
            row = cur.execute("SELECT id FROM rounds WHERE session_id = ? AND undone = 0 ORDER BY number DESC LIMIT 1",
                              (int(sid),)).fetchone()
            if row is None:
                return False
            cur.execute("UPDATE rounds SET undone = 1 WHERE id = ?", (row[0],))
            cur.execute("UPDATE sessions SET ended_utc = NULL, result_json = NULL WHERE id = ?", (int(sid),))
            return True

    def rounds(self, sid: int | None = None, include_undone: bool = False) -> list[RoundRecord]:
        """A session's rounds in play order (``sid=None``: every session's, by id)."""
        where: list[str] = []
        args: list[Any] = []
        if sid is not None:
            where.append("session_id = ?")
            args.append(int(sid))
        if not include_undone:
            where.append("undone = 0")
        sql = "SELECT * FROM rounds" + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY session_id, id" if sid is None else " ORDER BY id"
        return [RoundRecord(id=r["id"], session_id=r["session_id"], number=r["number"], challenger=r["challenger"],
                            judgement_id=r["judgement_id"], summary=_loads(r["summary_json"]), undone=bool(r["undone"]),
                            created_utc=r["created_utc"]) for r in self._query(sql, args)]

    # ------------------------------------------------------------------------------------ export

    def export_json(self, path: str | os.PathLike) -> Path:
        """Write every session, judgement (no thumbnails) and round as one JSON file; return its path."""
        from ledger.export import write_json

        return write_json(self, path)

    def export_csv(self, dir_or_path: str | os.PathLike) -> list[Path]:
        """Write judgements, rounds and sessions as CSV; return the files written.

        A path ending in ``.csv`` gets the judgements, with ``<stem>_rounds.csv`` and
        ``<stem>_sessions.csv`` beside it; any other path is a directory (created) holding
        ``judgements.csv``, ``rounds.csv`` and ``sessions.csv``.
        """
        from ledger.export import write_csv

        return write_csv(self, dir_or_path)
