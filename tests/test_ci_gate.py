"""The CI rule (tests/conftest.py): a browser or PostgreSQL test that cannot run is skipped on a developer's
machine but FAILS under CI=true. Checked by running the real browser test with Chromium hidden from PATH."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.cli_helpers import ROOT


def _browser_test_without_chromium(tmp_path, ci: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": str(tmp_path), "CI": ci}  # an empty directory: no chromium, no chromedriver
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                           "tests/test_browser.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


def test_a_browser_test_that_cannot_run_fails_under_ci(tmp_path):
    run = _browser_test_without_chromium(tmp_path, "true")
    assert run.returncode == 1 and "FAILURES" in run.stdout, run.stdout[-1500:]
    assert "must run, but it was skipped" in run.stdout and "chromium" in run.stdout


def test_it_is_skipped_outside_ci(tmp_path):
    run = _browser_test_without_chromium(tmp_path, "")
    assert run.returncode == 0 and "SKIPPED" in run.stdout and "FAILURES" not in run.stdout, run.stdout[-1500:]
