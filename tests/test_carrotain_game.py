"""A whole Carrotain game: rounds, the two end conditions, tie-break by boards, draw, undo, JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scoring.carrotain import CarrotainAdjudication, adjudicate
from scoring.carrotain_game import apply_round, game_over, new_game, next_first_player, undo_last
from scoring.carrotain_state import BoardReading, CarrotainState, ChipReading

PLAYERS = ("red", "blue", "green")


def adj(verdict: str, chips: dict[str, int], boards=("A", "B"), challenger="red") -> CarrotainAdjudication:
    """A hand-made adjudication: ``chips`` per player, 2 boards to the challenger on success."""
    awards = {p: {"boards": 0, "chips": chips.get(p, 0)} for p in PLAYERS}
    if verdict == "success":
        awards[challenger]["boards"] = 2
    return CarrotainAdjudication(
        verdict=verdict, contested=False, other_reading=None, hidden=0, not_hidden=0, awards=awards,
        scores={p: a["boards"] + a["chips"] for p, a in awards.items()}, chips=(), boards=(), flags=(),
        explanation=(), challenger=challenger, challenge_boards=tuple(boards),
    )


def test_success_moves_boards_and_chips():
    g = new_game(PLAYERS)
    g = apply_round(g, "red", adj("success", {"red": 2, "blue": 1}, boards=("C", "F")), judgement_id=11)
    assert g.boards_on_mat == ("A", "B", "D", "E", "G")
    assert g.boards_won == {"red": ("C", "F"), "blue": (), "green": ()}
    assert g.chips_won == {"red": 2, "blue": 1, "green": 0}
    assert g.points() == {"red": 4, "blue": 1, "green": 0}
    assert g.rounds[0].judgement_id == 11 and g.rounds[0].number == 1
    assert game_over(g) is None and next_first_player(g) == "blue"


def test_failure_keeps_boards_on_the_mat():
    g = apply_round(new_game(PLAYERS), "green", adj("failure", {"red": 2, "blue": 2}, challenger="green"))
    assert g.boards_on_mat == tuple("ABCDEFG") and g.points() == {"red": 2, "blue": 2, "green": 0}
    assert next_first_player(g) == "red"  # clockwise after the last seat wraps round


def test_third_success_ends_the_game_with_tie_broken_by_boards():
    g = new_game(PLAYERS)
    g = apply_round(g, "red", adj("success", {}, ("A", "B")))
    g = apply_round(g, "blue", adj("success", {}, ("C", "D"), challenger="blue"))
    g = apply_round(g, "green", adj("failure", {"red": 2, "blue": 2}, challenger="green"))
    assert game_over(g) is None and len(g.boards_on_mat) == 3
    g = apply_round(g, "red", adj("success", {"blue": 2}, ("E", "F")))
    end = game_over(g)
    # red: 4 boards + 2 chips = 6; blue: 2 boards + 4 chips = 6; green 0 -> red wins on boards
    assert end.reason == "third_success" and g.boards_on_mat == ("G",)
    assert end.points == {"red": 6, "blue": 6, "green": 0} and end.boards == {"red": 4, "blue": 2, "green": 0}
    assert end.winners == ("red",) and not end.draw and end.ranking == ("red", "blue", "green")
    with pytest.raises(ValueError, match="over"):
        apply_round(g, "blue", adj("failure", {}, challenger="blue"))


def test_all_ten_chips_ends_the_game_and_draw():
    g = new_game(PLAYERS)
    for _ in range(4):
        g = apply_round(g, "green", adj("failure", {"red": 2, "blue": 2}, challenger="green"))
    assert game_over(g) is None and g.chips_won["red"] == 8
    g = apply_round(g, "green", adj("failure", {"red": 2, "blue": 2}, challenger="green"))
    end = game_over(g)
    assert end.reason == "all_chips" and end.winners == ("red", "blue") and end.draw
    assert end.points == {"red": 10, "blue": 10, "green": 0}


def test_chips_capped_at_ten_and_unnamed_boards_resolved():
    g = new_game(PLAYERS)
    for _ in range(4):
        g = apply_round(g, "red", adj("failure", {"blue": 2}, challenger="red"))
    g = apply_round(g, "red", adj("success", {"blue": 5}, boards=("?", "?")))
    assert g.chips_won["blue"] == 10  # 8 + 5 capped
    assert g.boards_won["red"] == ("A", "B") and len(g.boards_on_mat) == 5
    g2 = apply_round(new_game(PLAYERS), "red", adj("success", {}, boards=("D", "Z")))
    assert g2.boards_won["red"] == ("D", "A")  # Z is not on the mat: the first remaining stands in


def test_undo_rebuilds_from_rounds():
    g0 = new_game(PLAYERS)
    g1 = apply_round(g0, "red", adj("success", {"red": 2}, ("A", "B")))
    g2 = apply_round(g1, "blue", adj("success", {"blue": 1}, ("C", "D"), challenger="blue"))
    assert undo_last(g2) == g1 and undo_last(undo_last(g2)) == g0
    with pytest.raises(ValueError, match="no round"):
        undo_last(g0)


def test_json_round_trip():
    g = apply_round(new_game(PLAYERS), "red", adj("success", {"red": 1}, ("B", "G")), judgement_id=3)
    obj = json.loads(json.dumps(g.to_json()))
    assert type(g).from_json(obj) == g and obj["points"] == {"red": 3, "blue": 0, "green": 0}
    assert obj["end"] is None


def test_bad_games_raise():
    with pytest.raises(ValueError):
        new_game([])
    with pytest.raises(ValueError):
        new_game(["red", "red"])
    with pytest.raises(ValueError):
        apply_round(new_game(PLAYERS), "pink", adj("failure", {}))


def test_with_real_adjudication():
    """Judge a state, apply it: the success takes the two boards the adjudication named."""
    sq = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], float)
    state = CarrotainState(
        chips=(ChipReading("star", "red", (50, 50)), ChipReading("star", "blue", (150, 50))),
        boards=(BoardReading("E", sq), BoardReading("C", sq + [200, 0])),
    )
    a = adjudicate(state, PLAYERS, "red")
    g = apply_round(new_game(PLAYERS), "red", a)
    assert g.boards_won["red"] == ("E", "C") and g.chips_won == {"red": 1, "blue": 1, "green": 0}
