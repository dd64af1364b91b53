"""An Ingenious game kept in the ledger: moves, chained extra placements, undo, reload, export."""

from __future__ import annotations

import json

import pytest

from ledger import Ledger
from ledger.ingenious import load_game, record_move, start_game, undo_move
from scoring.ingenious import Hex


def _h(q, r, c):
    return Hex((q, r), c)


def test_moves_undo_reload_export(tmp_path):
    path = tmp_path / "led.sqlite"
    led = Ledger(path)
    sid, game = start_game(led, ["Aki", "Ben"])
    assert game.mover == "Aki" and game.in_first_round
    g, res = record_move(led, sid, (_h(4, -4, "red"), _h(3, -4, "blue")))  # touches the red symbol: red 1
    assert res.scored and g.player_scores()["Aki"]["red"] == 1 and g.mover == "Ben"
    g, res = record_move(led, sid, (_h(4, -5, "green"), _h(3, -5, "green")))  # red symbol already taken
    assert not res.scored and res.flags[0].code == "first_round" and len(led.rounds(sid)) == 1
    g, res = record_move(led, sid, (_h(-4, 4, "green"), _h(-3, 4, "green")))  # green symbol: 1
    assert res.scored and g.player_scores()["Ben"]["green"] == 1
    led.close()
    again = Ledger(path)  # reload: the game is replayed from the recorded moves
    g2 = load_game(again, sid)
    assert g2.player_scores() == g.player_scores() and g2.mover == "Aki" and not g2.in_first_round
    g3 = undo_move(again, sid)
    assert g3.mover == "Ben" and g3.player_scores()["Ben"]["green"] == 0
    out = again.export_json(tmp_path / "x.json")
    doc = json.loads(out.read_text())
    assert "ingenious" in json.dumps(doc)


def test_solo_game_keeps_the_single_player_moving(tmp_path):
    led = Ledger(tmp_path / "led.sqlite")
    sid, _ = start_game(led, ["Solo"])
    # solo: first tile touches the orange symbol (5, 0); then build orange lines
    g, res = record_move(led, sid, (_h(4, 0, "orange"), _h(3, 0, "orange")))
    assert res.scored and g.mover == "Solo"
    assert g.player_scores()["Solo"]["orange"] == res.update.after["orange"]


def test_team_game_needs_four_players(tmp_path):
    led = Ledger(tmp_path / "led.sqlite")
    with pytest.raises(ValueError):
        start_game(led, ["A", "B"], team=True)
    sid, g = start_game(led, ["A", "B", "C", "D"], team=True)
    assert g.board_names() == ("A & C", "B & D") and g.radius == 7
