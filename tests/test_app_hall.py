"""The page in a hall (Streamlit's AppTest, the real script runner): the sidebar's table name goes with every
judgement, the sidebar says which ledger is used, History filters by game and table, the Hall tab shows each
table's latest judgement; on a SQLite file and on a real PostgreSQL server. A ledger that cannot be reached
leaves the page working and says the judgement was NOT recorded."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ledger import Ledger
from tests.cli_helpers import ROOT
from tests.pg_server import PASSWORD, free_port

APP = str(ROOT / "app.py")


def _start(monkeypatch, ledger: str, table: str | None = None) -> AppTest:
    monkeypatch.setenv("TABLE_JUDGE_LEDGER", ledger)
    if table is None:
        monkeypatch.delenv("TABLE_JUDGE_TABLE", raising=False)
    else:
        monkeypatch.setenv("TABLE_JUDGE_TABLE", table)
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    return at


def _frames(at: AppTest) -> list:
    """The History / Hall tables (DataFrames with a 'table' and a 'summary' column), in page order."""
    return [d.value for d in at.dataframe if {"table", "summary"} <= set(d.value.columns)]


def _run(at: AppTest) -> None:
    at.run()
    assert not at.exception, at.exception


def test_tables_history_filters_and_the_hall(monkeypatch, ledger_target):
    at = _start(monkeypatch, ledger_target, table="Table 1")  # the bundled Carrotain sample is judged at once
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert ("SQLite file" if ledger_target.endswith(".sqlite") else "PostgreSQL postgresql://") in captions
    assert PASSWORD not in captions
    at.sidebar.text_input(key="table").set_value("Table 2")
    _run(at)  # a new table name: the same photo is judged and recorded again, at Table 2
    at.sidebar.selectbox(key="game").set_value("kaleido")
    _run(at)
    led = Ledger(ledger_target)
    recorded = [(j.table, j.game) for j in led.judgements()]
    assert recorded == [("Table 2", "kaleido"), ("Table 2", "carrotain"), ("Table 1", "carrotain")]

    history, hall = _frames(at)
    assert list(history["table"]) == ["Table 2"] and list(history["id"]) == [led.judgements()[0].id]  # this game
    at.selectbox(key="hist-game-kaleido").set_value("All")
    at.selectbox(key="hist-table").set_value("Table 2")
    _run(at)
    history, hall = _frames(at)
    assert list(history["id"]) == [j.id for j in led.judgements(table="Table 2")]
    assert list(hall["table"]) == ["Table 1", "Table 2"]
    assert list(hall["id"]) == [j.id for j in led.latest_per_table()]
    assert hall["summary"].str.len().min() > 0  # each row says its outcome (the game plugin's summary)


def test_an_unreachable_ledger_is_said_and_nothing_claims_to_be_recorded(monkeypatch):
    at = _start(monkeypatch, f"postgresql://tj:{PASSWORD}@127.0.0.1:{free_port()}/hall", table="Table 1")
    errors = " | ".join(e.value for e in at.error)
    assert "Ledger unavailable" in errors and "cannot reach" in errors and PASSWORD not in errors
    assert "NOT recorded in the ledger" in errors
    text = " | ".join(str(e.value) for kind in ("success", "error", "warning", "info") for e in getattr(at, kind))
    assert any(w in text for w in ("SUCCESS", "FAILURE", "CONTESTED")), "the verdict is still given"
    assert "NOT recorded" in " ".join(c.value for c in at.sidebar.caption)


def test_a_bad_table_name_is_refused_in_the_sidebar(monkeypatch, tmp_path):
    """(Too long cannot be typed: the field takes 64 characters.)"""
    at = _start(monkeypatch, str(tmp_path / "t.sqlite"))
    at.sidebar.text_input(key="table").set_value("tab\u0007")
    _run(at)
    assert any("Table name" in e.value for e in at.sidebar.error)
