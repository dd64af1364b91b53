"""Load and faults (tests/ledger_load.py): judge processes write at once, one is killed with ``kill -9``
mid-run; every judgement reported committed is stored exactly once and whole. PostgreSQL: 8 writers x 500
judgements on the test server; SQLite (WAL, busy timeout): 4 writers x 500 on one file. The throughput is
printed (``-s`` or ``-rP`` shows it) and kept as a test property."""

from __future__ import annotations

import pytest

from tests.ledger_load import check_ledger, run_load


@pytest.mark.postgres
def test_eight_judges_on_postgresql_one_killed(pg_server, tmp_path, record_property):
    url = pg_server.new_database("load")
    res = run_load(url, writers=8, count=500, kill=(3,), workdir=tmp_path)
    per_writer = check_ledger(url, res, count=500)
    assert sum(per_writer.values()) >= 7 * 500 + 500 // 3
    record_property("judgements_per_s", round(res.per_second, 1))
    print(f"PostgreSQL: {res.committed} judgements by 8 writers in {res.seconds:.2f} s = {res.per_second:.0f}/s")


def test_four_judges_on_sqlite_one_killed(tmp_path, record_property):
    path = str(tmp_path / "load.sqlite")
    res = run_load(path, writers=4, count=500, kill=(1,), workdir=tmp_path)
    per_writer = check_ledger(path, res, count=500)
    assert sum(per_writer.values()) >= 3 * 500 + 500 // 3
    record_property("judgements_per_s", round(res.per_second, 1))
    print(f"SQLite: {res.committed} judgements by 4 writers in {res.seconds:.2f} s = {res.per_second:.0f}/s")
