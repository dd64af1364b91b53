"""A Carrotain game kept in the ledger: rounds, the end in the same transaction as the last round, undo."""

from __future__ import annotations

import pytest

from ledger import Ledger, LedgerError
from ledger.carrotain import load_game, record_round, session_options, start_game, undo_round
from scoring.carrotain import CarrotainAdjudication, CarrotainOptions

PLAYERS = ("red", "blue")


def adj(verdict: str, chips: dict[str, int], boards: tuple[str, str], challenger: str) -> CarrotainAdjudication:
    awards = {p: {"boards": 2 if verdict == "success" and p == challenger else 0, "chips": chips.get(p, 0)}
              for p in PLAYERS}
    return CarrotainAdjudication(verdict, False, None, 0, 0, awards,
                                 {p: a["boards"] + a["chips"] for p, a in awards.items()}, (), (), (), (),
                                 challenger, boards)


def test_game_through_the_ledger(ledger_target):  # on SQLite and PostgreSQL
    path = ledger_target
    led = Ledger(path)
    sid, game = start_game(led, PLAYERS, CarrotainOptions(coverage="whole_dot"))
    assert session_options(led, sid).coverage == "whole_dot"
    game = record_round(led, sid, "red", adj("success", {"red": 2}, ("A", "B"), "red"))
    game = record_round(led, sid, "blue", adj("failure", {"red": 2}, ("C", "D"), "blue"))
    game = record_round(led, sid, "blue", adj("success", {"blue": 1}, ("C", "D"), "blue"))
    assert led.session(sid).ended_utc is None and game.boards_on_mat == ("E", "F", "G")
    game = record_round(led, sid, "red", adj("success", {}, ("E", "G"), "red"))  # third success: 1 board left
    s = Ledger(path).session(sid)
    assert s.ended_utc is not None and s.result["reason"] == "third_success"
    assert s.result["points"] == {"red": 8, "blue": 3} and s.result["winners"] == ["red"]
    assert load_game(Ledger(path), sid) == game
    with pytest.raises(ValueError, match="over"):
        record_round(led, sid, "blue", adj("failure", {}, ("F", "A"), "blue"))
    game = undo_round(led, sid)
    assert led.session(sid).ended_utc is None and game.boards_on_mat == ("E", "F", "G")
    other = led.start_session("kaleido", ["Aki"], {})
    with pytest.raises(LedgerError, match="not carrotain"):
        load_game(led, other)
