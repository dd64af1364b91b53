"""Running ``cli.py`` as a user would: stdout, stderr and the exit code checked.

CI (``CI`` set) and any call with its own environment run ``cli.py`` as a real subprocess. Elsewhere - the
fast tier a developer runs - a call without its own environment runs ``cli.main`` in this process with the
same argv, working directory, empty stdin and captured stdout/stderr: the command's code is the same, only the
interpreter start-up (about 0.3-0.5 s of CPU importing NumPy/OpenCV each time) is saved. Set
``TABLE_JUDGE_CLI_SUBPROCESS=1`` to force real processes locally.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
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


def _use_subprocess(env: dict | None) -> bool:
    return env is not None or bool(os.environ.get("CI")) or bool(os.environ.get("TABLE_JUDGE_CLI_SUBPROCESS"))


def _run_in_process(args: tuple[str, ...]) -> CliRun:
    import cli

    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    stdin = sys.stdin
    try:
        os.chdir(ROOT)
        sys.stdin = io.StringIO("")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(list(args))
            except SystemExit as exc:  # argparse's --help and usage errors
                rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin = stdin
        os.chdir(here)
    return CliRun(rc, out.getvalue(), err.getvalue())


def run_cli(*args: str, env: dict | None = None, timeout: float = 120.0) -> CliRun:
    if not _use_subprocess(env):
        return _run_in_process(args)
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
