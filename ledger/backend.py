"""The ledger's storage seam: one store API (``ledger.store.Ledger``), two backends.

``Ledger`` speaks one portable SQL (``?`` placeholders, ``INSERT ... ON CONFLICT ... DO NOTHING``,
``RETURNING id``, partial unique indexes: all understood by SQLite >= 3.35 and PostgreSQL) and leaves to
a backend what differs between the two: connecting, transactions and locking, where the schema version
lives, column types in the schema, integrity checks and the database's error classes.

Backends: ``ledger.sqlite_backend.SqliteBackend`` (the embedded default, one file) and
``ledger.postgres_backend.PostgresBackend`` (a shared server, ``postgresql://`` URLs, psycopg 3);
``ledger.store.open_backend`` picks one for a target.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ledger.errors import LedgerError

MEMORY = ":memory:"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


@dataclass(frozen=True)
class LedgerConfig:
    """How the ledger opens its database.

    Attributes
    ----------
    env_var : str
        Environment variable naming the ledger (a file or a ``postgresql://`` URL) when none is given.
    default_filename : str
        File in the current directory when neither a target nor the variable is given.
    busy_timeout_s : float
        How long a write waits for another process's write (SQLite lock, PostgreSQL row lock), s.
    synchronous : str
        SQLite ``synchronous`` level: ``"FULL"`` survives power loss too, ``"NORMAL"`` a process crash.
    connect_timeout_s : int
        PostgreSQL: how long to try to reach the server before giving up, s.
    idle_check_s : float
        PostgreSQL: a connection unused this long is checked (``SELECT 1``) before its next call and
        replaced when the server dropped it (restart, idle timeout), so that call does not fail.
    """

    env_var: str = "TABLE_JUDGE_LEDGER"
    default_filename: str = "table_judge.sqlite"
    busy_timeout_s: float = 30.0
    synchronous: str = "FULL"
    connect_timeout_s: int = 5
    idle_check_s: float = 5.0


@dataclass(frozen=True)
class Dialect:
    """Column types that differ between the backends, filled into the schema's ``{placeholders}``.

    Attributes
    ----------
    name : str
        ``"sqlite"`` or ``"postgresql"``.
    id_pk : str
        An auto-numbered 64-bit primary key column.
    ref : str
        A column referring to such a key.
    blob : str
        Raw bytes.
    for_update : str
        Suffix that row-locks a ``SELECT`` inside a write transaction (SQLite's write lock is whole-file).
    """

    name: str
    id_pk: str
    ref: str
    blob: str
    for_update: str

    def fill(self, stmts: Sequence[str]) -> list[str]:
        """Schema statements (``ledger.schema``) with this dialect's column types filled in."""
        return [s.format(id_pk=self.id_pk, ref=self.ref, blob=self.blob) for s in stmts]


class Row(tuple):
    """A result row readable by position (``row[0]``) and by column name (``row["id"]``)."""

    _index: dict[str, int]

    def __new__(cls, values: Sequence[Any], index: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row._index = index
        return row

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


class Cursor(Protocol):
    """What the store uses inside a transaction (``?`` placeholders, rows as ``Row``); each backend's own
    cursor type (the ``Backend`` methods take it as ``Any``)."""

    rowcount: int

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Backend(Protocol):
    """One database behind the store.

    Attributes
    ----------
    dialect : Dialect
    location : str
        Where the ledger is, safe to show (a file path, or a URL without its password).
    errors : tuple of exception types
        The driver's errors (mapped to ``LedgerError`` by the store).
    integrity_errors : tuple of exception types
        The driver's constraint violations (a referenced id that does not exist).
    """

    dialect: Dialect
    location: str
    errors: tuple[type[BaseException], ...]
    integrity_errors: tuple[type[BaseException], ...]

    def transaction(self) -> AbstractContextManager[Any]:
        """One write transaction, committed when the block ends without an exception."""
        ...

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """A read outside any write transaction."""
        ...

    def read_schema_version(self) -> int:
        """The stored schema version (0: none yet), without taking a write lock."""
        ...

    def lock_schema(self, cur: Any) -> int:
        """Inside a transaction: keep other processes out of schema set-up; return the schema version."""
        ...

    def set_schema_version(self, cur: Any, version: int) -> None: ...

    def table_names(self, cur: Any) -> set[str]:
        """The database's own tables (to refuse a database that is not a ledger)."""
        ...

    def integrity_check(self) -> str:
        """``"ok"`` when the stored data is sound, else what is wrong."""
        ...

    def open_error(self, exc: BaseException) -> LedgerError:
        """A driver error met while opening, as the one-line error for people."""
        ...

    def close(self) -> None: ...


def one_line(exc: BaseException) -> str:
    """A driver's (possibly multi-line) message as one line."""
    return " ".join(str(exc).split()) or type(exc).__name__


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.lower().startswith(POSTGRES_SCHEMES)


def resolve_path(path: str | os.PathLike | None, config: LedgerConfig = LedgerConfig()) -> str:
    """The ledger: ``path``, else ``$TABLE_JUDGE_LEDGER``, else ``table_judge.sqlite`` here.

    A ``postgresql://`` (or ``postgres://``) URL is returned as it is; a file path is expanded (``~``).
    """
    if path is None or str(path) == "":
        path = os.environ.get(config.env_var) or config.default_filename
    text = str(path)
    if text == MEMORY or is_postgres_url(text):
        return text
    return str(Path(text).expanduser())
