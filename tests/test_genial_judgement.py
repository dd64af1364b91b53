"""Genial Spezial: one placement judged from before/after readings - the replay, the board checks, the flags."""

from __future__ import annotations

import pytest

from components import load_components
from scoring.genial import SYMBOLS, Tower
from scoring.genial_board import GenialBoard
from scoring.genial_judgement import GenialContext, GenialReading, judge_placement, replayed_dark

BOARD = GenialBoard.from_components(load_components()["genial_spezial"])
LAYOUT = BOARD.tower_layout(2)
SYMBOL_AT = {c: SYMBOLS[k % 4] for k, c in enumerate(sorted(LAYOUT))}


def towers(dark=()):
    return tuple(Tower(c, LAYOUT[c], SYMBOL_AT[c], 1, c in dark) for c in sorted(LAYOUT))


# Two players: small towers stand at (-1, -1) and (1, 1). Ann's first tile (0, -1)-(0, 0) touches (-1, -1) only;
# her second tile (1, 0)-(2, 0) joins it and touches (1, 1): the chain now links two towers and both score.
FIRST = {"player": "Ann", "cells": [[0, -1], [0, 0]]}
SECOND = [[1, 0], [2, 0]]


def context(**extra):
    obj = {"players": {"Ann": "red", "Ben": "blue"}, "mover": "Ann", "moves_before": [FIRST]}
    obj.update(extra)
    return GenialContext.from_json(obj)


def reading(cells_by_colour, dark=(), unreadable=(), hidden=()):
    tiles = {tuple(c): col for col, cells in cells_by_colour.items() for c in cells}
    return GenialReading(tiles, towers(dark), frozenset(unreadable) | frozenset(hidden), hidden=frozenset(hidden))


BEFORE = reading({"red": FIRST["cells"]})
AFTER = reading({"red": FIRST["cells"] + SECOND}, dark=[(-1, -1), (1, 1)])


def test_clean_placement_scores_both_towers():
    out = judge_placement(BOARD, context(), AFTER, BEFORE).to_json()
    assert out["flags"] == []
    assert sorted(map(tuple, (p["qr"] for p in out["placed"]))) == [(1, 0), (2, 0)]
    expected = {s: 0 for s in SYMBOLS}
    for c in [(-1, -1), (1, 1)]:
        expected[SYMBOL_AT[c]] += 1
    assert out["move_points"] == expected
    assert sorted(map(tuple, out["scored_towers"])) == [(-1, -1), (1, 1)]
    assert out["symbol_scores"]["Ann"] == expected and out["scores"] == {"Ann": min(expected.values()), "Ben": 0}
    assert out["large_bonus"] == 0 and out["bonus_cells"] == 0
    assert out["ranking"][0] in ("Ann", "Ben") and any("scores" in line for line in out["explanation"])


def test_after_photo_alone_with_placed():
    out = judge_placement(BOARD, context(placed=SECOND), AFTER).to_json()
    assert out["flags"] == [] and sum(out["move_points"].values()) == 2


@pytest.mark.parametrize("new_cells, colour, words", [
    ([[1, 0], [2, 0], [3, 0]], "red", "3 new hexes"),
    ([[1, 0]], "red", "1 new hexes"),
    ([[1, 0], [3, 0]], "red", "not neighbours"),
    ([[1, 0], [2, 0]], "blue", "not Ann's colour"),
])
def test_not_one_clean_placement_is_flagged_and_not_scored(new_cells, colour, words):
    after = reading({"red": FIRST["cells"], colour: new_cells} if colour != "red"
                    else {"red": FIRST["cells"] + new_cells})
    out = judge_placement(BOARD, context(), after, BEFORE).to_json()
    codes = [f["code"] for f in out["flags"]]
    assert "placement_invalid" in codes and words in out["flags"][codes.index("placement_invalid")]["message"]
    assert out["move_points"] == {s: 0 for s in SYMBOLS} and out["scored_towers"] == []


def test_moved_tile_is_flagged():
    after = reading({"red": [[0, -2], [0, 0]] + SECOND})
    out = judge_placement(BOARD, context(), after, BEFORE).to_json()
    codes = {f["code"] for f in out["flags"]}
    assert {"tile_moved_or_missing", "placement_invalid"} <= codes


def test_before_photo_disagreeing_with_replay_is_flagged_with_cells():
    before = reading({"red": FIRST["cells"] + [[5, 5]]})
    after = reading({"red": FIRST["cells"] + [[5, 5]] + SECOND})
    out = judge_placement(BOARD, context(), after, before).to_json()
    flag = next(f for f in out["flags"] if f["code"].startswith("board_disagrees"))   # elsewhere: far from the chain
    assert [5, 5] in flag["cells"]


def test_token_on_the_wrong_side_is_flagged():
    before = reading({"red": FIRST["cells"]}, dark=[(4, 4)])
    out = judge_placement(BOARD, context(), AFTER, before).to_json()
    assert any(f["code"] == "token_side_disagrees" and [4, 4] in f["cells"] for f in out["flags"])


def test_unturned_token_after_scoring_is_a_reminder():
    after = reading({"red": FIRST["cells"] + SECOND})
    out = judge_placement(BOARD, context(), after, BEFORE).to_json()
    assert any(f["code"] == "token_to_turn" for f in out["flags"]) and sum(out["move_points"].values()) == 2


def test_unreadable_cells_are_flagged_not_guessed():
    after = reading({"red": FIRST["cells"] + SECOND}, dark=[(-1, -1), (1, 1)], unreadable=[(6, 6)])
    out = judge_placement(BOARD, context(), after, BEFORE).to_json()
    assert any(f["code"] == "cells_unreadable" and [6, 6] in f["cells"] for f in out["flags"])
    # the hidden cell is flagged and drawn, but the replay says what lies there: the move is still scored
    assert out["move_points"] == judge_placement(BOARD, context(), reading(
        {"red": FIRST["cells"] + SECOND}, dark=[(-1, -1), (1, 1)]), BEFORE).to_json()["move_points"]
    assert sum(out["move_points"].values()) > 0


def test_a_new_hex_hidden_from_the_camera_is_inferred_only_when_it_is_the_one_hidden_free_neighbour():
    """Only (1, 0) of the new tile is seen; (2, 0) is hidden behind a tower. When (2, 0) is the only free neighbour
    of (1, 0) the camera cannot see, the tile lies there (noted, scored as the truth); with a second hidden free
    neighbour, or one of a colour the reader could not tell, it could lie either way: not scored, flagged."""
    truth = judge_placement(BOARD, context(), AFTER, BEFORE).to_json()
    one_hidden = reading({"red": FIRST["cells"] + SECOND[:1]}, dark=[(-1, -1), (1, 1)], hidden=[(2, 0)])
    out = judge_placement(BOARD, context(), one_hidden, BEFORE).to_json()
    assert sorted(map(tuple, (p["qr"] for p in out["placed"]))) == [(1, 0), (2, 0)]
    assert out["move_points"] == truth["move_points"]
    assert any(f["code"] == "placement_inferred" and [2, 0] in f["cells"] for f in out["flags"])
    for odd in (dict(hidden=[(2, 0), (2, -1)]), dict(hidden=[(2, 0)], unreadable=[(2, -1)])):
        # two hidden free neighbours, or another one of a doubtful colour: it could lie either way
        out = judge_placement(BOARD, context(), reading({"red": FIRST["cells"] + SECOND[:1]}, dark=[(-1, -1), (1, 1)],
                                                        **odd), BEFORE).to_json()
        assert any(f["code"] == "placement_invalid" for f in out["flags"]) and not any(out["move_points"].values())
    # a colour the reader could not tell is not a hex a tower hides: nothing is inferred from it
    out = judge_placement(BOARD, context(), reading({"red": FIRST["cells"] + SECOND[:1]}, dark=[(-1, -1), (1, 1)],
                                                    unreadable=[(2, 0)]), BEFORE).to_json()
    assert any(f["code"] == "placement_invalid" for f in out["flags"])
    # a hex the before photo could not read, but the replay knows was free, is new when the after photo shows it
    blind_before = reading({"red": FIRST["cells"]}, unreadable=[(2, 0)])
    out = judge_placement(BOARD, context(), AFTER, blind_before).to_json()
    assert out["move_points"] == truth["move_points"] and not any(
        f["code"] in ("placement_invalid", "placement_inferred") for f in out["flags"])


def test_a_photo_disagreeing_with_the_replay_only_away_from_the_chain_is_scored_and_flagged():
    """A stray (or misread) hex far from the mover's chain on both photos: flagged with its cell, the placement
    scored from the replay; a stray hex touching the chain: flagged and not scored."""
    truth = judge_placement(BOARD, context(), AFTER, BEFORE).to_json()
    far = [[6, 6], [-6, -6]][0]
    stray_before = reading({"red": FIRST["cells"], "blue": [far]})
    stray_after = reading({"red": FIRST["cells"] + SECOND, "blue": [far]}, dark=[(-1, -1), (1, 1)])
    out = judge_placement(BOARD, context(), stray_after, stray_before).to_json()
    assert out["move_points"] == truth["move_points"] and out["symbol_scores"] == truth["symbol_scores"]
    flag = [f for f in out["flags"] if f["code"] == "board_disagrees_elsewhere"]
    assert flag and far in flag[0]["cells"] and not any(f["code"] == "board_disagrees_with_replay"
                                                        for f in out["flags"])
    near = [3, 0]   # a neighbour of the new hex (2, 0)
    out = judge_placement(BOARD, context(), reading({"red": FIRST["cells"] + SECOND, "blue": [near]},
                                                    dark=[(-1, -1), (1, 1)]),
                          reading({"red": FIRST["cells"], "blue": [near]})).to_json()
    assert any(f["code"] == "board_disagrees_with_replay" and near in f["cells"] for f in out["flags"])
    assert not any(out["move_points"].values())


def test_scores_before_are_used_and_checked_against_the_replay():
    given = {"Ann": {"orange": 19, "blue": 19, "green": 19, "purple": 19}, "Ben": {s: 0 for s in SYMBOLS}}
    out = judge_placement(BOARD, context(scores_before=given), AFTER, BEFORE).to_json()
    assert any(f["code"] == "scores_disagree_with_replay" for f in out["flags"])
    assert max(out["symbol_scores"]["Ann"].values()) == 20


def test_given_scores_differing_only_where_a_token_value_is_unsure_are_noted_not_disputed():
    """The replay checks the given score boards only as far as it knows the tokens' values: a difference in the
    symbol of an earlier-scored token whose value was not read for sure is noted (scores_unchecked), one in
    another symbol is a disagreement."""
    ben = {"player": "Ben", "cells": [[-6, 0], [-7, 0]]}
    history = [FIRST, ben, {"player": "Ann", "cells": SECOND}]
    cells = {"red": FIRST["cells"] + SECOND, "blue": ben["cells"]}
    board_now = reading(cells, dark=[(-1, -1), (1, 1)])
    after = reading(cells | {"blue": ben["cells"] + [[-8, 0], [-8, 1]]}, dark=[(-1, -1), (1, 1)])
    replayed = {"Ann": {s: 0 for s in SYMBOLS}, "Ben": {s: 0 for s in SYMBOLS}}
    for c in [(-1, -1), (1, 1)]:
        replayed["Ann"][SYMBOL_AT[c]] += 1
    clean = judge_placement(BOARD, context(mover="Ben", moves_before=history, scores_before=replayed), after,
                            board_now).to_json()
    assert not [f for f in clean["flags"] if f["code"] in ("scores_unchecked", "scores_disagree_with_replay",
                                                           "history_invalid")], clean["flags"]
    unsure = {p: dict(v) for p, v in replayed.items()}
    unsure["Ann"][SYMBOL_AT[(-1, -1)]] += 1          # that token was worth 2, not 1
    other = next(s for s in SYMBOLS if s not in (SYMBOL_AT[(-1, -1)], SYMBOL_AT[(1, 1)]))
    wrong = {p: dict(v) for p, v in unsure.items()}
    wrong["Ann"][other] += 3                          # no token of that symbol was scored: a real disagreement
    ctx_u = context(mover="Ben", moves_before=history, scores_before=unsure)
    ctx_w = context(mover="Ben", moves_before=history, scores_before=wrong)

    def codes(ctx, unsure_values):
        out = judge_placement(BOARD, ctx, after, board_now, unsure_values=frozenset(unsure_values)).to_json()
        return {f["code"] for f in out["flags"]}

    assert "scores_unchecked" in codes(ctx_u, [(-1, -1)]) and "scores_disagree_with_replay" not in codes(
        ctx_u, [(-1, -1)])
    assert "scores_disagree_with_replay" in codes(ctx_u, [])
    assert "scores_disagree_with_replay" in codes(ctx_w, [(-1, -1)])


@pytest.mark.parametrize("obj, field", [
    ({"players": {"Ann": "pink"}, "mover": "Ann"}, "players"),
    ({"players": {"Ann": "red"}, "mover": "Bob"}, "mover"),
    ({"players": {"Ann": "red"}, "mover": "Ann", "moves_before": [{"player": "Ann"}]}, "moves_before"),
    ({"players": {"Ann": "red"}, "mover": "Ann", "bonus_symbol": "gold"}, "bonus_symbol"),
    ({"players": {"Ann": "red"}, "mover": "Ann", "placed": "x"}, "placed"),
    ({"players": {"Ann": "red"}, "mover": "Ann", "scores_before": {"Ann": {"orange": "x"}}}, "scores_before"),
])
def test_bad_context_names_the_field(obj, field):
    with pytest.raises(ValueError, match=field):
        GenialContext.from_json(obj)


def test_context_and_reading_round_trip():
    ctx = context(bonus_symbol="green", placed=SECOND)
    assert GenialContext.from_json(ctx.to_json()) == ctx
    assert GenialReading.from_json(AFTER.to_json()) == AFTER


def test_the_replay_gives_every_tokens_side_before_the_placement_without_its_value():
    """Ann's first tile links one tower (nothing scored: all light); her second joins it to (1, 1): both dark. A
    history that cannot be replayed gives no sides."""
    assert replayed_dark(BOARD, context()) == frozenset()
    two = context(mover="Ben", moves_before=[FIRST, {"player": "Ann", "cells": SECOND}])
    assert replayed_dark(BOARD, two) == frozenset({(-1, -1), (1, 1)})
    bad = context(mover="Ben", moves_before=[FIRST, {"player": "Ann", "cells": FIRST["cells"]}])
    assert replayed_dark(BOARD, bad) is None
