"""The CLI and the ledger, as a user runs them (real subprocesses): every judging command takes the ledger
options, a table name travels with each judgement, `ledger list/hall/info` read it back (from a SQLite file
and from a real PostgreSQL server), Carrotain without a context is judged anyway, and a ledger that cannot
be reached or written is one line and exit 2, never a judgement reported recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import ROOT, assert_one_line_error, run_cli
from tests.pg_server import PASSWORD, free_port

PHOTO = str(sorted((ROOT / "sample_images" / "carrotain").glob("*.jpg"))[0])


@pytest.fixture(scope="module")
def carrotain_state(tmp_path_factory) -> Path:
    """The sample photo's detected state (detect with --no-ledger: detect takes the options, records nothing)."""
    out = tmp_path_factory.mktemp("state") / "state.json"
    det = run_cli("detect", "--game", "carrotain", "--no-ledger", "--table", "ignored", PHOTO)
    assert det.rc == 0, det.stderr
    out.write_text(det.stdout)
    return out


def test_judge_without_a_context_gives_the_verdict_with_awards_by_colour(ledger_target):
    run = run_cli("judge", "--game", "carrotain", "--ledger", ledger_target, "--table", "Table 4", PHOTO)
    assert run.rc == 0, run.stderr
    out = run.json
    assert out["verdict"] in ("success", "failure") and out["table"] == "Table 4"
    assert "challenger_unknown" in [f["code"] for f in out["flags"]]
    colours = {c["colour"] for c in out["chips"] if c["kind"] == "star"}
    assert set(out["awards"]) == colours and all(a["boards"] == 0 for a in out["awards"].values())
    assert out["ledger"].startswith("SQLite file" if ledger_target.endswith(".sqlite") else "PostgreSQL")
    listed = run_cli("ledger", "list", "--ledger", ledger_target, "--table", "Table 4").json
    assert [j["id"] for j in listed["judgements"]] == [out["judgement_id"]] and listed["ledger"] == out["ledger"]
    assert listed["judgements"][0]["result"]["verdict"] == out["verdict"]


def test_score_takes_the_ledger_options_and_records_with_its_table(carrotain_state, ledger_target):
    ctx = json.dumps({"players": ["pink", "blue"], "challenger": "blue"})
    ctx_file = carrotain_state.with_name("ctx.json")
    ctx_file.write_text(ctx)
    plain = run_cli("score", "--game", "carrotain", "--context", str(ctx_file), "--no-ledger", str(carrotain_state))
    assert plain.rc == 0 and "judgement_id" not in plain.json, plain.stderr
    ids = {}
    for table in ("A", "B", "A"):
        run = run_cli("score", "--game", "carrotain", "--context", str(ctx_file), "--ledger", ledger_target,
                      "--table", table, str(carrotain_state))
        assert run.rc == 0, run.stderr
        assert run.json["verdict"] == plain.json["verdict"] and run.json["table"] == table
        ids.setdefault(table, []).append(run.json["judgement_id"])
    hall = run_cli("ledger", "hall", "--ledger", ledger_target).json["tables"]
    assert [(t["table"], t["id"]) for t in hall] == [("A", ids["A"][-1]), ("B", ids["B"][-1])]
    listed = run_cli("ledger", "list", "--ledger", ledger_target, "--table", "A", "--game", "carrotain").json
    assert [j["id"] for j in listed["judgements"]] == ids["A"][::-1]
    info = run_cli("ledger", "info", "--ledger", ledger_target).json
    assert info["tables"] == ["A", "B"] and info["judgements"] == 3 and info["integrity"] == "ok"
    assert info["kind"] in ("sqlite", "postgresql") and info["schema_version"] == 2


def test_the_table_name_comes_from_the_environment_too(carrotain_state, tmp_path):
    import os

    led = str(tmp_path / "env.sqlite")
    env = {**os.environ, "TABLE_JUDGE_LEDGER": led, "TABLE_JUDGE_TABLE": "Tisch 9"}
    run = run_cli("score", "--game", "carrotain", str(carrotain_state), env=env)
    assert run.rc == 0 and run.json["table"] == "Tisch 9" and run.json["ledger"] == f"SQLite file {led}", run.stderr


def test_ledger_mistakes_are_one_line_exit_2(carrotain_state, tmp_path):
    assert_one_line_error(run_cli("ledger", "list", "--no-ledger"), 2, "--no-ledger")
    bad_table = run_cli("score", "--game", "carrotain", "--ledger", str(tmp_path / "x.sqlite"), "--table",
                        "bell\x07", str(carrotain_state))
    assert_one_line_error(bad_table, 2, "--table", "control characters")
    unreachable = f"postgresql://tj:{PASSWORD}@127.0.0.1:{free_port()}/hall"
    for args in (["judge", "--game", "carrotain", PHOTO], ["score", "--game", "carrotain", str(carrotain_state)],
                 ["ledger", "list"]):
        run = run_cli(*args, "--ledger", unreachable)
        assert_one_line_error(run, 2, "ledger", "cannot reach", "127.0.0.1")
        assert PASSWORD not in run.stderr


@pytest.mark.postgres
def test_a_write_the_server_refuses_is_exit_2_and_not_reported_recorded(carrotain_state, pg_server):
    """A judge whose database role may read but not write (a misconfigured hall): the ledger opens, the write
    is refused, the CLI says so in one line and prints no judgement."""
    import psycopg

    url = pg_server.new_database("readonly")
    assert run_cli("ledger", "info", "--ledger", url).rc == 0  # creates the schema
    schema = url.rsplit("%3D", 1)[1]
    with psycopg.connect(pg_server.url("ledgers"), autocommit=True) as conn:
        conn.execute("CREATE ROLE reader LOGIN PASSWORD 'reader'")
        conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO reader')
        conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO reader')
    reader = url.replace(f"tj:{PASSWORD}@", "reader:reader@")
    run = run_cli("score", "--game", "carrotain", "--ledger", reader, "--table", "T", str(carrotain_state))
    assert_one_line_error(run, 2, "ledger", "permission denied", "NOT recorded")
    assert run_cli("ledger", "info", "--ledger", url).json["judgements"] == 0
