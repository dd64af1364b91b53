"""The ledger: an embedded SQLite record of judgements, game sessions, rounds and photos.

Every write is one ``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction, so a crash (even ``kill -9``) loses
nothing already committed and never leaves half a judgement. WAL mode lets the page read while the
CLI writes. The schema is created on first open and versioned with ``PRAGMA user_version``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ledger.errors import LedgerError, UnknownRecord
from ledger.records import JudgementRecord, RoundRecord, SessionRecord
from ledger.schema import MIGRATIONS, SCHEMA_V1, SCHEMA_VERSION

MEMORY = ":memory:"


@dataclass(frozen=True)
class LedgerConfig:
    """How the ledger opens its file.

    Attributes
    ----------
    env_var : str
        Environment variable naming the file when no path is given.
    default_filename : str
        File in the current directory when neither a path nor the variable is given.
    busy_timeout_s : float
        How long a write waits for another process's write to finish, s.
    synchronous : str
        SQLite ``synchronous`` level: ``"FULL"`` survives power loss too, ``"NORMAL"`` a process crash.
    """

    env_var: str = "TABLE_JUDGE_LEDGER"
    default_filename: str = "table_judge.sqlite"
    busy_timeout_s: float = 10.0
    synchronous: str = "FULL"


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
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} cannot be stored as JSON: {exc}") from None


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def resolve_path(path: str | os.PathLike | None, config: LedgerConfig = LedgerConfig()) -> str:
    """The ledger file: ``path``, else ``$TABLE_JUDGE_LEDGER``, else ``table_judge.sqlite`` here."""
    if path is None or str(path) == "":
        path = os.environ.get(config.env_var) or config.default_filename
    return MEMORY if str(path) == MEMORY else str(Path(path).expanduser())


def _check_path(path: str) -> None:
    """Raise LedgerError for a path that cannot hold a ledger (before SQLite says it less clearly)."""
    if path == MEMORY:
        return
    p = Path(path)
    if p.is_dir():
        raise LedgerError(f"{p} is a directory, not a ledger file")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise LedgerError(f"{p}: directory {parent} does not exist")
    if p.exists():
        if not os.access(p, os.R_OK | os.W_OK):
            raise LedgerError(f"{p} is not readable and writable")
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise LedgerError(f"{p}: directory {parent} is not writable")


class Ledger:
    """The SQLite ledger.

    Parameters
    ----------
    path : str or PathLike, optional
        Database file (created with its schema on first open); ``":memory:"`` for a throwaway one.
        None: ``$TABLE_JUDGE_LEDGER`` or ``table_judge.sqlite`` in the current directory.
    config : LedgerConfig

    Raises
    ------
    LedgerError
        Missing or unwritable directory, a directory given as the file, a file that is not a
        SQLite database or not a Table Judge ledger, or one written by a newer schema version.

    Notes
    -----
    One connection per instance, usable from several threads (Streamlit); calls are serialised by
    a lock. Several processes may open the same file: WAL readers never block the writer.
    """

    def __init__(self, path: str | os.PathLike | None = None, config: LedgerConfig = LedgerConfig()) -> None:
        self.config = config
        self.path = resolve_path(path, config)
        _check_path(self.path)
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(self.path, timeout=config.busy_timeout_s, isolation_level=None,
                                         check_same_thread=False)
        except sqlite3.Error as exc:
            raise LedgerError(f"{self.path}: cannot open ({exc})") from None
        try:
            self._setup()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            msg = str(exc)
            if "not a database" in msg or "malformed" in msg:
                raise LedgerError(f"{self.path} is not a SQLite database ({msg})") from None
            raise LedgerError(f"{self.path}: cannot open ({msg})") from None
        except LedgerError:
            self._conn.close()
            raise

    # ------------------------------------------------------------------------------------ plumbing

    def _setup(self) -> None:
        c = self._conn
        c.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_s * 1000)}")
        if self.path != MEMORY:
            mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise LedgerError(f"{self.path}: cannot switch to WAL mode (got {mode})")
        c.execute(f"PRAGMA synchronous = {self.config.synchronous}")
        c.execute("PRAGMA foreign_keys = ON")
        if c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return  # the usual case: no write lock taken just to open
        with self._tx() as cur:
            version = cur.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise LedgerError(f"{self.path} was written by a newer Table Judge (schema {version} > "
                                  f"{SCHEMA_VERSION})")
            if version == 0:
                names = {r[0] for r in cur.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if names:
                    raise LedgerError(f"{self.path} is a SQLite database but not a Table Judge ledger "
                                      f"(tables: {', '.join(sorted(names))})")
                for stmt in SCHEMA_V1:
                    cur.execute(stmt)
                version = 1
            while version < SCHEMA_VERSION:
                for stmt in MIGRATIONS[version]:
                    cur.execute(stmt)
                version += 1
            cur.execute(f"PRAGMA user_version = {version}")

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Cursor]:
        """One write transaction (``BEGIN IMMEDIATE``: the write lock is taken up front)."""
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            try:
                cur.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """SQLite errors -> one-line LedgerError naming the operation."""
        try:
            yield
        except sqlite3.IntegrityError as exc:
            raise LedgerError(f"{what}: {exc} (an id it refers to does not exist?)") from None
        except sqlite3.Error as exc:
            raise LedgerError(f"{what} failed on {self.path}: {exc}") from None

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock, self._errors("reading the ledger"):
            cur = self._conn.cursor()
            cur.row_factory = sqlite3.Row
            return cur.execute(sql, tuple(args)).fetchall()

    def close(self) -> None:
        """Close the connection (further calls fail)."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` (``"ok"`` when sound)."""
        return str(self._query("PRAGMA integrity_check")[0][0])

    @property
    def schema_version(self) -> int:
        return int(self._query("PRAGMA user_version")[0][0])

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

        Raises
        ------
        ValueError
            Empty game, or state/result/corrections not JSON-able.
        LedgerError
            A referenced id does not exist, or the write failed.
        """
        if not game:
            raise ValueError("game must be named")
        state_text, result_text = _dumps(state, "state"), _dumps(result, "result")
        corr_text = None if corrections is None else _dumps(corrections, "corrections")
        if thumbnail_jpeg is not None:
            thumbnail_jpeg = bytes(thumbnail_jpeg)
            if photo_sha256 is None:
                photo_sha256 = hashlib.sha256(thumbnail_jpeg).hexdigest()
        now = _now()
        with self._errors("recording the judgement"), self._tx() as cur:
            if photo_sha256 is not None:
                cur.execute("INSERT OR IGNORE INTO photos (sha256, thumbnail_jpeg, first_seen_utc) VALUES (?, ?, ?)",
                            (photo_sha256, thumbnail_jpeg, now))
                if thumbnail_jpeg is not None:
                    cur.execute("UPDATE photos SET thumbnail_jpeg = ? WHERE sha256 = ? AND thumbnail_jpeg IS NULL",
                                (thumbnail_jpeg, photo_sha256))
            cur.execute(
                "INSERT INTO judgements (created_utc, game, photo_sha256, source, session_id, state_json, "
                "result_json, corrected_from, corrections_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (now, game, photo_sha256, source, session_id, state_text, result_text, corrected_from, corr_text),
            )
            return int(cur.lastrowid)

    _JUDGEMENT_SQL = (
        "SELECT j.id, j.created_utc, j.game, j.source, j.photo_sha256, j.session_id, j.state_json, j.result_json, "
        "j.corrected_from, j.corrections_json, p.thumbnail_jpeg FROM judgements j "
        "LEFT JOIN photos p ON p.sha256 = j.photo_sha256"
    )

    @staticmethod
    def _judgement(row: sqlite3.Row) -> JudgementRecord:
        return JudgementRecord(
            id=row["id"], created_utc=row["created_utc"], game=row["game"], source=row["source"],
            photo_sha256=row["photo_sha256"], session_id=row["session_id"], state=_loads(row["state_json"]),
            result=_loads(row["result_json"]), corrected_from=row["corrected_from"],
            corrections=_loads(row["corrections_json"]),
            thumbnail_jpeg=None if row["thumbnail_jpeg"] is None else bytes(row["thumbnail_jpeg"]),
        )

    def judgements(self, game: str | None = None, session_id: int | None = None,
                   limit: int | None = 50) -> list[JudgementRecord]:
        """Recorded judgements, newest first, optionally of one game / session; ``limit=None``: all."""
        where, args = [], []
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

    # ------------------------------------------------------------------------------------ sessions

    def start_session(self, game: str, players: list, settings: dict | None = None) -> int:
        """Open a game session; return its id."""
        if not game:
            raise ValueError("game must be named")
        players_text, settings_text = _dumps(list(players), "players"), _dumps(settings or {}, "settings")
        with self._errors("starting the session"), self._tx() as cur:
            cur.execute("INSERT INTO sessions (game, players_json, settings_json, created_utc) VALUES (?, ?, ?, ?)",
                        (game, players_text, settings_text, _now()))
            return int(cur.lastrowid)

    @staticmethod
    def _session(row: sqlite3.Row) -> SessionRecord:
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
        sql, args = "SELECT * FROM sessions", []
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
            row = cur.execute("SELECT ended_utc FROM sessions WHERE id = ?", (int(sid),)).fetchone()
            if row is None:
                raise UnknownRecord(f"no session with id {sid}")
            if row[0] is not None:
                raise LedgerError(f"session {sid} has ended; undo its last round or start a new session")
            number = cur.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM rounds WHERE session_id = ? AND undone = 0",
                                 (int(sid),)).fetchone()[0]
            cur.execute(
                "INSERT INTO rounds (session_id, number, challenger, judgement_id, summary_json, created_utc) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (int(sid), number, None if challenger is None else str(challenger), judgement_id, text, _now()),
            )
            rid = int(cur.lastrowid)
            if end_text is not None:
                cur.execute("UPDATE sessions SET ended_utc = ?, result_json = ? WHERE id = ?",
                            (_now(), end_text, int(sid)))
            return rid

    def undo_last_round(self, sid: int) -> bool:
        """Mark the session's last live round undone (kept, not deleted); False when there is none.

        An ended session is reopened (its end came from that round).
        """
        with self._errors("undoing the round"), self._tx() as cur:
            row = cur.execute("SELECT id FROM rounds WHERE session_id = ? AND undone = 0 ORDER BY number DESC LIMIT 1",
                              (int(sid),)).fetchone()
            if row is None:
                return False
            cur.execute("UPDATE rounds SET undone = 1 WHERE id = ?", (row[0],))
            cur.execute("UPDATE sessions SET ended_utc = NULL, result_json = NULL WHERE id = ?", (int(sid),))
            return True

    def rounds(self, sid: int | None = None, include_undone: bool = False) -> list[RoundRecord]:
        """A session's rounds in play order (``sid=None``: every session's, by id)."""
        where, args = [], []
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
