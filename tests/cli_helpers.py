"""Running ``cli.py`` as a user would: a real subprocess, stdout/stderr/exit code checked."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class CliRun:
    rc: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict:
        return json.loads(self.stdout)


def run_cli(*args: str, env: dict | None = None, timeout: float = 120.0) -> CliRun:
    p = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    return CliRun(p.returncode, p.stdout, p.stderr)


def assert_one_line_error(run: CliRun, rc: int, *words: str) -> None:
    """The contract for user mistakes: exit code, one stderr line naming the problem, no stdout, no traceback."""
    assert run.rc == rc, (run.rc, run.stderr)
    assert "Traceback" not in run.stderr
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, run.stderr
    assert run.stdout.strip() == ""
    for w in words:
        assert w.lower() in lines[0].lower(), (w, lines[0])
