"""Shared test fixtures: the ledger on both backends (a SQLite file, a real PostgreSQL server started for the
session) and the CI rule that a test needing a system component (a browser, PostgreSQL) never silently
skips: with ``CI=true`` such a skip is reported as a failure."""

from __future__ import annotations

import pytest

from tests.system_components import MUST_RUN_IN_CI, in_ci


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "postgres: needs PostgreSQL's server programs (Debian package postgresql)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    rep = outcome.get_result()
    if not (rep.skipped and in_ci()) or hasattr(rep, "wasxfail"):
        return
    needs = [m for m in MUST_RUN_IN_CI if item.get_closest_marker(m)]
    if needs:
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        rep.outcome = "failed"
        rep.longrepr = (f"CI=true: this {'/'.join(needs)} test must run, but it was skipped ({reason}); "
                        f"run scripts/install-test-tools.sh as root")


@pytest.fixture(scope="session")
def pg_server():
    """A private PostgreSQL server for the whole test session (skipped, or failed under CI, without one)."""
    from tests.pg_server import find_pg_bin, running_postgres

    if find_pg_bin() is None:
        pytest.skip("PostgreSQL server programs not installed (Debian package postgresql)")
    pytest.importorskip("psycopg")
    with running_postgres() as server:
        yield server


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def ledger_target(request, tmp_path) -> str:
    """Where a fresh, empty ledger lives: a SQLite file, or a new database on the test PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.sqlite")
    return request.getfixturevalue("pg_server").new_database()
