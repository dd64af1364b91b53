"""A private, real PostgreSQL server for the tests: ``initdb`` + ``pg_ctl`` in a temporary directory on a
free port, password login over TCP (scram-sha-256), stopped and deleted at the end.

PostgreSQL refuses to run as root, so when the tests run as root the server's directory is given to
the unprivileged user ``nobody`` and the server programs run as that user (``subprocess`` ``user=``).
The binaries come from Debian's ``postgresql`` package (``/usr/lib/postgresql/<version>/bin``), ``$PG_BIN``
or ``PATH``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

USER = "tj"
PASSWORD = "hall-test-password"


def find_pg_bin() -> Path | None:
    """Directory holding ``initdb`` and ``pg_ctl`` (newest Debian version first), or None."""
    candidates = [os.environ.get("PG_BIN", "")]
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                         if Path(p).parent.name.isdigit() else 0, reverse=True)
    which = shutil.which("initdb")
    if which:
        candidates.append(str(Path(which).resolve().parent))
    for c in candidates:
        if c and (Path(c) / "initdb").is_file() and (Path(c) / "pg_ctl").is_file():
            return Path(c)
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    """A running server; ``url(dbname)`` for a ``postgresql://`` URL, ``new_database()`` for an empty one."""

    port: int
    root: Path
    bin_dir: Path
    host: str = "127.0.0.1"
    options: str = ""

    def __post_init__(self) -> None:
        self._n = 0
        self._lock = threading.Lock()

    def url(self, dbname: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@{self.host}:{self.port}/{dbname}"

    def new_database(self, prefix: str = "t") -> str:
        """A fresh, empty ledger location; return its URL.

        A new schema in the database ``ledgers`` (``?options=-csearch_path=...`` in the URL), not a whole new
        database: creating and later deleting a database per test costs seconds of disk I/O; to the ledger
        an empty schema is an empty database.
        """
        import psycopg

        with self._lock:
            self._n += 1
            name = f"{prefix}_{os.getpid()}_{self._n}"
            with psycopg.connect(self.url(), autocommit=True) as conn:
                if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'ledgers'").fetchone():
                    conn.execute("CREATE DATABASE ledgers")
        with psycopg.connect(self.url("ledgers"), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        return self.url("ledgers") + f"?options=-csearch_path%3D{name}"

    def start(self) -> None:
        self.pg_ctl("-l", str(self.root / "server.log"), "-w", "-t", "60", "-o", self.options, "start")

    def stop(self, mode: str = "fast") -> None:
        self.pg_ctl("-m", mode, "-w", "-t", "60", "stop")

    def pg_ctl(self, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
        return _run([str(self.bin_dir / "pg_ctl"), "-D", str(self.root / "data"), *args], self.root, timeout)


def _as_user() -> dict:
    """``subprocess`` keywords that run a command as ``nobody`` when we are root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return {}
    pw = pwd.getpwnam("nobody")
    return {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}


def _run(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C"}
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL, **_as_user())
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:2])} failed ({p.returncode}): {p.stderr.strip()[-1500:]}")
    return p


@contextmanager
def running_postgres(settings: dict[str, str] | None = None) -> Iterator[PgServer]:
    """Start a fresh server; stop it and delete its files on exit.

    Parameters
    ----------
    settings : dict, optional
        Extra ``postgres -c name=value`` settings.
    """
    bin_dir = find_pg_bin()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL server programs (initdb, pg_ctl) not found: apt-get install postgresql")
    kw = _as_user()  # as root the server runs as nobody, who must reach the directory: /tmp, not $TMPDIR
    root = Path(tempfile.mkdtemp(prefix="tj-pg-", dir="/tmp" if kw and os.path.isdir("/tmp") else None))
    if kw:
        os.chown(root, kw["user"], kw["group"])
    (root / "pw").write_text(PASSWORD + "\n")
    if kw:
        os.chown(root / "pw", kw["user"], kw["group"])
    server = PgServer(port=free_port(), root=root, bin_dir=bin_dir)
    started = False
    try:
        _run([str(bin_dir / "initdb"), "-D", str(root / "data"), "-U", USER, f"--pwfile={root / 'pw'}",
              "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C", "--no-sync"], root, 120)
        opts = {"listen_addresses": "127.0.0.1", "port": str(server.port), "unix_socket_directories": str(root),
                "max_connections": "60", **(settings or {})}
        server.options = " ".join(f"-c {k}={v}" for k, v in opts.items())
        server.start()
        started = True
        yield server
    finally:
        if started:
            try:  # immediate: no shutdown checkpoint, the files are deleted next anyway
                server.stop("immediate")
            except (RuntimeError, subprocess.TimeoutExpired):
                pass  # already stopped (a test stopped it)
        shutil.rmtree(root, ignore_errors=True)
