"""The common session API (``judge.session``) with the real SQLite ledger: every game keeps its whole game the
same way (start, rounds from judgements, standings replayed, the finishing round ends the session, undo
reopens it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.registry import game
from judge.session import Outcome, latest, record, start, undo
from ledger import Ledger

ROOT = Path(__file__).resolve().parents[1]


def _sample(name: str) -> dict:
    return json.loads(sorted((ROOT / "sample_images" / name).glob("*.json"))[0].read_text(encoding="utf-8"))


@pytest.fixture()
def led(tmp_path):
    return Ledger(tmp_path / "s.sqlite")


def test_cmyk_series_ends_after_three_games_and_undo_reopens_it(led):
    plugin = game("cmyk")
    rules = plugin.session
    truth = _sample("cmyk")
    ctx = truth["context"]
    sid = start(led, "cmyk", rules, ctx, {"cm-mode": "three_games"})
    outcome = Outcome(result=truth["expected"], state=truth["scene"], judgement_id=None)
    (action,) = rules.actions
    for k in range(3):
        view = latest(led, "cmyk", rules.players(ctx))
        assert view.id == sid and not view.ended and len(view.summaries) == k
        after = record(led, rules, view, action, outcome, ctx)
    assert after.finished and after.message.startswith("Last series won by")
    ended = latest(led, "cmyk", rules.players(ctx))
    assert ended.ended and ended.result == after.end_result
    with pytest.raises(ValueError, match="ended"):
        record(led, rules, ended, action, outcome, ctx)
    assert undo(led, ended)
    again = latest(led, "cmyk", rules.players(ctx))
    assert not again.ended and len(again.summaries) == 2


def test_kaleido_track_adds_new_full_boards_then_the_final_scoring(led):
    plugin = game("kaleido")
    rules = plugin.session
    truth = _sample("kaleido")
    ctx = truth["context"]
    start(led, "kaleido", rules, ctx)
    state = plugin.state_from_json(truth["scene"]).to_json()
    boards, final = rules.actions
    view = latest(led, "kaleido", rules.players(ctx))
    first = record(led, rules, view, boards, Outcome(truth["expected"], state), ctx)
    expected_boards = {p: int(v) for p, v in truth["expected"]["board_points"].items()}
    assert {r["player"]: r["points"] for r in first.rows} == expected_boards and not first.finished
    view = latest(led, "kaleido", rules.players(ctx))
    again = record(led, rules, view, boards, Outcome(truth["expected"], state), ctx)  # nothing new filled
    assert {r["player"]: r["points"] for r in again.rows} == expected_boards
    view = latest(led, "kaleido", rules.players(ctx))
    done = record(led, rules, view, final, Outcome(truth["expected"], state), ctx)
    assert done.finished and latest(led, "kaleido", rules.players(ctx)).ended
    totals = {p: expected_boards.get(p, 0) + int(v) for p, v in truth["expected"]["scores"].items()}
    assert done.end_result == {"track": totals}


def test_carrotain_game_records_the_judged_challenge(led):
    plugin = game("carrotain")
    rules = plugin.session
    truth = _sample("carrotain")
    ctx = truth["context"]
    with pytest.raises(ValueError):
        start(led, "carrotain", rules, {"players": []})
    start(led, "carrotain", rules, ctx)
    view = latest(led, "carrotain", rules.players(ctx))
    state = plugin.state_from_json({"chips": truth["scene"]["chips"], "boards": [
        {**b, "role": "challenge" if b["role"] == "challenge" else "other"} for b in truth["scene"]["boards"]]})
    (action,) = rules.actions
    after = record(led, rules, view, action, Outcome(truth["expected"], state.to_json(), None), ctx)
    assert {r["player"]: r["points"] for r in after.rows} == truth["expected"]["scores"]
    assert after.caption.startswith("Round 2")
