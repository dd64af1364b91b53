"""Ledger round trips, sessions/rounds/undo, exports and bad paths (temporary files only)."""

from __future__ import annotations

import csv
import json
import sqlite3

import numpy as np
import pytest

from ledger import Ledger, LedgerError, UnknownRecord, resolve_path
from ledger.schema import SCHEMA_VERSION

RESULT = {"game": "carrotain", "verdict": "failure", "contested": False, "scores": {"red": 0, "blue": 2},
          "flags": [{"code": "stacked_boards", "message": "A and B overlap", "boards": ["A", "B"]}],
          "explanation": ["Options: coverage=centre, margin=1.5 mm."]}
STATE = {"game": "carrotain", "chips": [{"kind": "star", "colour": "blue", "xy_mm": [1.5, 2.25]}], "boards": []}


@pytest.fixture
def led(tmp_path):
    with Ledger(tmp_path / "l.sqlite") as led:
        yield led


def test_new_file_schema_wal_and_foreign_keys(tmp_path):
    path = tmp_path / "new.sqlite"
    Ledger(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"photos", "sessions", "judgements", "rounds"} <= tables
    conn.close()
    led = Ledger(path)  # reopening an existing ledger is fine and keeps the version
    assert led.schema_version == SCHEMA_VERSION and led.integrity_check() == "ok"


def test_judgement_round_trip_with_thumbnail_dedup_and_numpy(led):
    thumb = bytes(range(256)) * 4
    state = {**STATE, "sigma": np.float32(0.5), "xy": np.array([1.0, 2.0])}
    a = led.record_judgement("carrotain", state, RESULT, photo_sha256="f" * 64, source="a.jpg", thumbnail_jpeg=thumb)
    b = led.record_judgement("carrotain", STATE, RESULT, photo_sha256="f" * 64, source="a.jpg again")
    c = led.record_judgement("cmyk", {"tiles": []}, {"game": "cmyk", "scores": {}}, source="camera")
    r = led.judgement(a)
    assert r.game == "carrotain" and r.source == "a.jpg" and r.result == RESULT
    assert r.state["sigma"] == 0.5 and r.state["xy"] == [1.0, 2.0]
    assert r.thumbnail_jpeg == thumb and led.judgement(b).thumbnail_jpeg == thumb  # one photo row, shared
    assert led._query("SELECT COUNT(*) FROM photos")[0][0] == 1
    assert r.created_utc.endswith("+00:00")
    assert [j.id for j in led.judgements()] == [c, b, a]  # newest first
    assert [j.id for j in led.judgements(game="carrotain")] == [b, a]
    assert [j.id for j in led.judgements(limit=1)] == [c]
    obj = r.to_json()
    json.dumps(obj)
    assert obj["has_thumbnail"] and "thumbnail_jpeg_base64" not in obj
    assert "thumbnail_jpeg_base64" in r.to_json(thumbnail=True)


def test_thumbnail_without_sha_is_keyed_by_its_own_hash(led):
    jid = led.record_judgement("kaleido", {}, {}, thumbnail_jpeg=b"\xff\xd8jpeg")
    assert led.judgement(jid).thumbnail_jpeg == b"\xff\xd8jpeg" and len(led.judgement(jid).photo_sha256) == 64


def test_corrections_link_to_the_original(led):
    orig = led.record_judgement("carrotain", STATE, RESULT)
    fixed = led.record_judgement("carrotain", STATE, {**RESULT, "verdict": "success"}, source="correction",
                                 corrected_from=orig, corrections={"chips": [{"index": 0, "colour": "red"}]})
    rec = led.judgement(fixed)
    assert rec.corrected_from == orig and rec.corrections == {"chips": [{"index": 0, "colour": "red"}]}
    assert [j.id for j in led.corrections_of(orig)] == [fixed]
    with pytest.raises(LedgerError, match="does not exist"):
        led.record_judgement("carrotain", STATE, RESULT, corrected_from=999)
    assert len(led.judgements()) == 2  # the failed write left nothing behind


def test_unknown_ids_and_bad_values(led):
    with pytest.raises(UnknownRecord, match="no judgement with id 42"):
        led.judgement(42)
    with pytest.raises(KeyError):
        led.session(7)
    with pytest.raises(ValueError, match="state cannot be stored"):
        led.record_judgement("carrotain", {"x": object()}, RESULT)
    with pytest.raises(ValueError):
        led.record_judgement("", STATE, RESULT)


def test_sessions_rounds_and_undo(led):
    sid = led.start_session("carrotain", ["red", "blue"], {"coverage": "centre"})
    other = led.start_session("kaleido", ["Aki"], {})
    j1 = led.record_judgement("carrotain", STATE, RESULT, session_id=sid)
    j2 = led.record_judgement("carrotain", STATE, RESULT, session_id=sid)
    r1 = led.add_round(sid, j1, {"challenger": "red", "verdict": "success"})
    r2 = led.add_round(sid, j2, {"challenger": "blue", "verdict": "failure"})
    assert [(r.id, r.number, r.challenger) for r in led.rounds(sid)] == [(r1, 1, "red"), (r2, 2, "blue")]
    assert [j.id for j in led.judgements(session_id=sid)] == [j2, j1]
    assert led.undo_last_round(sid) is True
    assert [r.id for r in led.rounds(sid)] == [r1]
    assert [(r.id, r.undone) for r in led.rounds(sid, include_undone=True)] == [(r1, False), (r2, True)]
    r3 = led.add_round(sid, j2, {"challenger": "red"})
    assert [r.number for r in led.rounds(sid)] == [1, 2] and led.rounds(sid)[-1].id == r3
    assert led.undo_last_round(sid) and led.undo_last_round(sid) and not led.undo_last_round(sid)
    assert led.undo_last_round(other) is False
    # ending, and undo reopening an ended session
    led.add_round(sid, None, {"challenger": "red"})
    led.end_session(sid, {"winner": "red"})
    s = led.session(sid)
    assert s.ended_utc and s.result == {"winner": "red"} and s.players == ["red", "blue"]
    assert s.settings == {"coverage": "centre"}
    with pytest.raises(LedgerError, match="has ended"):
        led.add_round(sid, None, {})
    assert led.undo_last_round(sid) and led.session(sid).ended_utc is None
    assert [x.id for x in led.sessions()] == [other, sid] and [x.id for x in led.sessions("kaleido")] == [other]
    with pytest.raises(UnknownRecord):
        led.add_round(999, None, {})
    with pytest.raises(LedgerError):
        led.add_round(sid, 999, {})  # judgement 999 does not exist


def test_export_json_and_csv(led, tmp_path):
    sid = led.start_session("carrotain", ["red", "blue"], {})
    a = led.record_judgement("carrotain", STATE, RESULT, photo_sha256="ab" * 32, thumbnail_jpeg=b"jpg", session_id=sid)
    b = led.record_judgement("carrotain", STATE, {**RESULT, "verdict": "success"}, corrected_from=a,
                             corrections={"note": "virgule, \"quote\"\nnewline"})
    led.add_round(sid, a, {"challenger": "red"})
    led.add_round(sid, b, {"challenger": "blue"})
    led.undo_last_round(sid)

    out = led.export_json(tmp_path / "out.json")
    obj = json.loads(out.read_text(encoding="utf-8"))
    assert [j["id"] for j in obj["judgements"]] == [a, b]
    assert obj["judgements"][0]["result"] == RESULT and obj["judgements"][0]["has_thumbnail"]
    assert obj["judgements"][1]["corrected_from"] == a
    assert [(r["number"], r["undone"]) for r in obj["rounds"]] == [(1, False), (2, True)]
    assert obj["sessions"][0]["players"] == ["red", "blue"] and obj["schema_version"] == SCHEMA_VERSION

    paths = led.export_csv(tmp_path / "csv")
    assert [p.name for p in paths] == ["judgements.csv", "rounds.csv", "sessions.csv"]
    with open(paths[0], newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["id"]) for r in rows] == [a, b]
    assert [r["summary"] for r in rows] == ["failure", "success"]
    assert rows[0]["flags"] == "stacked_boards" and json.loads(rows[0]["result_json"]) == RESULT
    assert json.loads(rows[1]["corrections_json"]) == {"note": "virgule, \"quote\"\nnewline"}
    assert rows[1]["corrected_from"] == str(a) and json.loads(rows[0]["scores_json"]) == {"red": 0, "blue": 2}
    with open(paths[1], newline="", encoding="utf-8") as fh:
        rounds = list(csv.DictReader(fh))
    assert [(r["number"], r["undone"], r["challenger"]) for r in rounds] == [("1", "0", "red"), ("2", "1", "blue")]
    single = led.export_csv(tmp_path / "all.csv")
    assert [p.name for p in single] == ["all.csv", "all_rounds.csv", "all_sessions.csv"]


def test_bad_paths_raise_one_line_ledger_errors(tmp_path):
    cases = [tmp_path / "missing" / "l.sqlite", tmp_path]
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database, just some text " * 200)
    foreign = tmp_path / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE recipes (x)")
    conn.commit()
    conn.close()
    newer = tmp_path / "newer.sqlite"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    expected = ["does not exist", "is a directory", "not a SQLite database", "not a Table Judge ledger", "newer"]
    for path, words in zip(cases + [junk, foreign, newer], expected):
        with pytest.raises(LedgerError) as exc:
            Ledger(path)
        assert words in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(LedgerError):
        Ledger(tmp_path / "junk.sqlite").export_json(tmp_path)  # still fails at open
    led = Ledger(tmp_path / "ok.sqlite")
    with pytest.raises(LedgerError, match="cannot write"):
        led.export_json(tmp_path / "nodir" / "x.json")


def test_default_path_from_env_or_cwd(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLE_JUDGE_LEDGER", str(tmp_path / "env.sqlite"))
    assert resolve_path(None) == str(tmp_path / "env.sqlite")
    monkeypatch.delenv("TABLE_JUDGE_LEDGER")
    monkeypatch.chdir(tmp_path)
    led = Ledger()
    assert led.path == "table_judge.sqlite" and (tmp_path / "table_judge.sqlite").exists()


def test_a_carrotain_game_kept_in_the_ledger_survives_reopen_and_undo(tmp_path):
    """Rounds stored as RoundSummary JSON; a fresh Ledger replays them to the same game, undo included."""
    from scoring.carrotain import adjudicate
    from scoring.carrotain_game import apply_round, new_game, replay, undo_last
    from scoring.carrotain_state import BoardReading, CarrotainState, ChipReading

    sq = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], float)
    players = ["red", "blue"]
    path = tmp_path / "game.sqlite"
    led = Ledger(path)
    sid = led.start_session("carrotain", players, {"coverage": "centre"})
    game = new_game(players)
    for k, (challenger, out) in enumerate([("red", 1), ("blue", 3), ("blue", 0)]):
        chips = (ChipReading("star", "red", (50, 50)),) + tuple(ChipReading("star", "blue", (150, 20 * i + 10))
                                                               for i in range(out))
        state = CarrotainState(chips, (BoardReading("ABC"[k], sq), BoardReading("DEF"[k], sq + [200, 0])))
        adj = adjudicate(state, players, challenger)
        jid = led.record_judgement("carrotain", state.to_json(), adj.to_json(), session_id=sid)
        game = apply_round(game, challenger, adj, judgement_id=jid)
        led.add_round(sid, jid, game.rounds[-1].to_json())
    led.close()

    again = Ledger(path)
    s = again.session(sid)
    rebuilt = replay(s.players, [r.summary for r in again.rounds(sid)])
    assert rebuilt == game
    # r1 red succeeds: red 2 boards + 1 own hidden, blue 1 not-hidden chip; r2 blue fails: red takes its 1 chip;
    # r3 blue succeeds with no own chip hidden: 2 boards
    assert rebuilt.points() == {"red": 2 + 1 + 1, "blue": 1 + 2}
    assert again.undo_last_round(sid)
    assert replay(s.players, [r.summary for r in again.rounds(sid)]) == undo_last(game)
