"""The embedded ledger backend: one SQLite file.

Every write is one ``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction, so a crash (even ``kill -9``) loses
nothing already committed and never leaves half a judgement. WAL mode lets the page read while the CLI
writes; a writer waits up to ``busy_timeout_s`` for another. The schema version is ``PRAGMA user_version``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ledger.backend import MEMORY, Dialect, LedgerConfig, Row
from ledger.errors import LedgerError

DIALECT = Dialect(name="sqlite", id_pk="INTEGER PRIMARY KEY", ref="INTEGER", blob="BLOB", for_update="")


def _row(cursor: sqlite3.Cursor, values: tuple) -> Row:
    return Row(values, {d[0]: i for i, d in enumerate(cursor.description)})


def check_path(path: str) -> None:
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


class SqliteBackend:
    """A SQLite file (or ``":memory:"``).

    One connection, usable from several threads (Streamlit); calls are serialised by a lock. Several
    processes may open the same file: WAL readers never block the writer.
    """

    dialect = DIALECT
    errors: tuple[type[BaseException], ...] = (sqlite3.Error,)
    integrity_errors: tuple[type[BaseException], ...] = (sqlite3.IntegrityError,)

    def __init__(self, path: str, config: LedgerConfig) -> None:
        check_path(path)
        self.path = path
        self.location = path
        self.config = config
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(path, timeout=config.busy_timeout_s, isolation_level=None,
                                         check_same_thread=False)
        except sqlite3.Error as exc:
            raise LedgerError(f"{path}: cannot open ({exc})") from None
        try:
            self._pragmas()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise self.open_error(exc) from None
        except LedgerError:
            self._conn.close()
            raise

    def open_error(self, exc: BaseException) -> LedgerError:
        msg = str(exc)
        if "not a database" in msg or "malformed" in msg:
            return LedgerError(f"{self.path} is not a SQLite database ({msg})")
        return LedgerError(f"{self.path}: cannot open ({msg})")

    def _pragmas(self) -> None:
        c = self._conn
        c.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_s * 1000)}")
        if self.path != MEMORY:
            mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise LedgerError(f"{self.path}: cannot switch to WAL mode (got {mode})")
        c.execute(f"PRAGMA synchronous = {self.config.synchronous}")
        c.execute("PRAGMA foreign_keys = ON")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Cursor]:
        """``BEGIN IMMEDIATE``: the write lock is taken up front, so a transaction never fails half-way
        for another process's write."""
        with self._lock:
            cur = self._conn.cursor()
            cur.row_factory = _row
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

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        with self._lock:
            cur = self._conn.cursor()
            cur.row_factory = _row
            return cur.execute(sql, tuple(args)).fetchall()

    def read_schema_version(self) -> int:
        return int(self.query("PRAGMA user_version")[0][0])

    def lock_schema(self, cur: sqlite3.Cursor) -> int:
        return int(cur.execute("PRAGMA user_version").fetchone()[0])  # BEGIN IMMEDIATE holds the lock

    def set_schema_version(self, cur: sqlite3.Cursor, version: int) -> None:
        cur.execute(f"PRAGMA user_version = {int(version)}")

    def table_names(self, cur: sqlite3.Cursor) -> set[str]:
        return {r[0] for r in cur.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check``."""
        result = str(self.query("PRAGMA integrity_check")[0][0])
        if result != "ok":
            return result
        dangling = self.query("PRAGMA foreign_key_check")
        return "ok" if not dangling else f"{len(dangling)} rows refer to records that do not exist"

    def close(self) -> None:
        with self._lock:
            self._conn.close()
