"""The ledger's two backends: table names and the hall view on both, migration of an old ledger, and what
only a server can do wrong (unreachable, wrong password, restarted mid-session, writers racing on one
session), against a real PostgreSQL server (tests/conftest.py, tests/pg_server.py)."""

from __future__ import annotations

import csv
import json
import threading

import pytest

from ledger import Ledger, LedgerConfig, LedgerError, clean_table_name
from ledger.schema import SCHEMA_V1, SCHEMA_VERSION
from ledger.store import open_backend
from tests.pg_server import PASSWORD, free_port, running_postgres

RESULT = {"game": "carrotain", "verdict": "success", "contested": False, "scores": {"red": 2, "blue": 0}}


def test_every_judgement_carries_its_table_and_the_hall_shows_the_latest_per_table(ledger_target, tmp_path):
    led = Ledger(ledger_target)
    a1 = led.record_judgement("carrotain", {}, RESULT, table="  Table   1 ")
    b1 = led.record_judgement("kaleido", {}, {"game": "kaleido", "scores": {}}, table="Table 2")
    a2 = led.record_judgement("carrotain", {}, {**RESULT, "verdict": "failure"}, table="Table 1")
    fix = led.record_judgement("carrotain", {}, RESULT, source="correction", corrected_from=a2)  # keeps Table 1
    none = led.record_judgement("cmyk", {}, {"game": "cmyk"})
    assert led.judgement(a1).table == "Table 1" and led.judgement(fix).table == "Table 1"
    assert led.judgement(none).table == "" and led.judgement(b1).to_json()["table"] == "Table 2"
    assert led.tables() == ["", "Table 1", "Table 2"]
    assert [j.id for j in led.judgements(table="Table 1")] == [fix, a2, a1]
    assert [j.id for j in led.judgements(table="Table 1", game="kaleido")] == []
    assert [(j.table, j.id) for j in led.latest_per_table()] == [("", none), ("Table 1", fix), ("Table 2", b1)]
    assert [(j.table, j.id) for j in led.latest_per_table(game="carrotain")] == [("Table 1", fix)]
    for bad in ("tab\x00le", "x" * 65, "bell\x07"):
        with pytest.raises(ValueError, match="table name"):
            led.record_judgement("carrotain", {}, RESULT, table=bad)
    assert clean_table_name(None) == "" and clean_table_name("Tisch\t7") == "Tisch 7"
    (judgements_csv, *_) = led.export_csv(tmp_path / "csv")
    with open(judgements_csv, newline="", encoding="utf-8") as fh:
        assert [r["table"] for r in csv.DictReader(fh)] == ["Table 1", "Table 2", "Table 1", "Table 1", ""]
    exported = json.loads(led.export_json(tmp_path / "all.json").read_text(encoding="utf-8"))
    assert [j["table"] for j in exported["judgements"]][:2] == ["Table 1", "Table 2"]


def test_a_version_1_ledger_is_migrated_in_place(ledger_target):
    """A ledger written before table names existed opens, gains the column, keeps its judgements."""
    backend = open_backend(ledger_target, LedgerConfig())
    with backend.transaction() as cur:
        for stmt in backend.dialect.fill(SCHEMA_V1):
            cur.execute(stmt)
        backend.set_schema_version(cur, 1)
        cur.execute("INSERT INTO judgements (created_utc, game, state_json, result_json) VALUES (?, ?, ?, ?)",
                    ("2026-01-01T00:00:00+00:00", "carrotain", "{}", json.dumps(RESULT)))
    backend.close()
    led = Ledger(ledger_target)
    assert led.schema_version == SCHEMA_VERSION == 2
    (old,) = led.judgements()
    assert old.table == "" and old.result == RESULT
    new = led.record_judgement("carrotain", {}, RESULT, table="T")
    assert [j.table for j in led.judgements()] == ["T", ""] and new > old.id
    assert led.integrity_check() == "ok"


def test_describe_says_which_ledger_without_the_password(ledger_target):
    led = Ledger(ledger_target)
    text = led.describe()
    if led.kind == "sqlite":
        assert text == f"SQLite file {ledger_target}"
    else:
        assert text.startswith("PostgreSQL postgresql://tj@127.0.0.1:") and PASSWORD not in text
        assert PASSWORD not in led.path


@pytest.mark.postgres
def test_server_problems_are_one_line_errors_without_the_password(pg_server):
    cases = [
        (f"postgresql://tj:{PASSWORD}@127.0.0.1:{free_port()}/nothing", "cannot reach"),  # nobody listens
        (pg_server.url("postgres", password="wrong-secret"), "password authentication failed"),
        (pg_server.url("no_such_database"), "does not exist"),
        ("postgresql://tj@127.0.0.1:notaport/x", "postgresql://"),
    ]
    for url, words in cases:
        with pytest.raises(LedgerError) as exc:
            Ledger(url, LedgerConfig(connect_timeout_s=3))
        msg = str(exc.value)
        assert words in msg and "\n" not in msg and PASSWORD not in msg and "wrong-secret" not in msg, msg


@pytest.mark.postgres
def test_a_database_that_is_not_a_ledger_or_is_newer_is_refused(pg_server):
    import psycopg

    foreign, newer = pg_server.new_database(), pg_server.new_database()
    with psycopg.connect(foreign, autocommit=True) as conn:
        conn.execute("CREATE TABLE recipes (x int)")
    Ledger(newer).close()
    with psycopg.connect(newer, autocommit=True) as conn:
        conn.execute("UPDATE table_judge_schema SET version = 99")
    for url, words in ((foreign, "not a Table Judge ledger (tables: recipes)"), (newer, "newer Table Judge")):
        with pytest.raises(LedgerError, match=words.replace("(", r"\(").replace(")", r"\)")):
            Ledger(url)


@pytest.mark.postgres
def test_server_restart_fails_the_write_in_progress_then_reconnects():
    """A write while the server is down is an error (never reported recorded); after the restart the same
    Ledger reconnects, and everything committed before is still there."""
    with running_postgres() as server:
        url = server.new_database("restart")
        led = Ledger(url, LedgerConfig(connect_timeout_s=2))
        before = led.record_judgement("carrotain", {"n": 1}, RESULT, table="T1")
        server.stop("fast")
        with pytest.raises(LedgerError) as exc:
            led.record_judgement("carrotain", {"n": 2}, RESULT, table="T1")
        assert "\n" not in str(exc.value) and PASSWORD not in str(exc.value)
        server.start()
        after = led.record_judgement("carrotain", {"n": 3}, RESULT, table="T1")
        assert [j.state["n"] for j in led.judgements()] == [3, 1] and after > before
        # a restart while the page sits idle: the dropped connection is noticed and replaced, no error
        idle = Ledger(url, LedgerConfig(connect_timeout_s=2, idle_check_s=0.0))
        server.stop("fast")
        server.start()
        assert idle.record_judgement("carrotain", {"n": 4}, RESULT) > after and len(idle.judgements()) == 3


@pytest.mark.postgres
def test_writers_racing_on_one_session_get_consecutive_round_numbers(pg_server):
    """Four judges (own connections) add rounds to the same session at once: the session row lock makes the
    numbers 1..N, each once; undo from all of them at once leaves exactly the expected live rounds."""
    url = pg_server.new_database()
    sid = Ledger(url).start_session("carrotain", ["red", "blue"], {})
    errors: list[BaseException] = []

    def judge(k: int) -> None:
        try:
            led = Ledger(url)
            for i in range(15):
                jid = led.record_judgement("carrotain", {"k": k, "i": i}, RESULT, session_id=sid, table=f"T{k}")
                led.add_round(sid, jid, {"challenger": "red", "k": k, "i": i})
            led.undo_last_round(sid)
            led.close()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=judge, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    led = Ledger(url)
    live = led.rounds(sid)
    assert [r.number for r in live] == list(range(1, 4 * 15 - 4 + 1))
    assert len(led.rounds(sid, include_undone=True)) == 60 and led.integrity_check() == "ok"
