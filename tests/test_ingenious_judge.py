"""The judgement of one placement from board readings (scoring.ingenious_judge), pure."""

from __future__ import annotations

import pytest

from geometry.hexgrid import ring
from scoring.ingenious import Board, Hex, line_stops
from scoring.ingenious_judge import IngeniousAdjudication, IngeniousContext, IngeniousState, judge_placement


def ctx(**kw):
    obj = {"players": ["Aki", "Ben"], "mover": "Aki", "scores_before": {"Aki": {"red": 16}, "Ben": {}}}
    obj.update(kw)
    return IngeniousContext.from_json(obj)


BEFORE = Board.of({(0, 1): "red", (0, 2): "red", (2, 0): "blue"})


def test_clean_placement_scored_with_cap_and_extra():
    after = BEFORE.with_hexes(Board.of({(0, 0): "red", (1, 0): "green"}).hexes)
    a = judge_placement(IngeniousState(after=after, before=BEFORE), ctx())
    assert [h["qr"] for h in a.placed] == [[0, 0], [1, 0]]
    assert a.move_points == {"red": 2} and a.extra_placements == 1
    assert a.colour_scores["Aki"]["red"] == 18 and a.scores == {"Aki": 0, "Ben": 0}
    assert any(ln["count"] == 2 and ln["colour"] == "red" for ln in a.lines)
    again = IngeniousAdjudication.from_json(a.to_json())
    assert again == a
    st = IngeniousState(after=after, before=BEFORE, doubtful={(5, 5): "x"})
    assert IngeniousState.from_json(st.to_json()) == st


def test_two_tiles_flagged_never_scored():
    after = BEFORE.with_hexes(Board.of({(0, 0): "red", (1, 0): "green", (-3, 0): "red", (-3, 1): "red"}).hexes)
    a = judge_placement(IngeniousState(after=after, before=BEFORE), ctx())
    assert "not_one_tile" in {f["code"] for f in a.flags}
    assert a.move_points == {} and a.colour_scores["Aki"]["red"] == 16


def test_after_photo_alone_with_placed():
    after = BEFORE.with_hexes(Board.of({(0, 0): "red", (1, 0): "green"}).hexes)
    a = judge_placement(IngeniousState(after=after), ctx(placed=[[0, 0], [1, 0]]))
    assert a.move_points == {"red": 2}
    missing = judge_placement(IngeniousState(after=BEFORE), ctx(placed=[[0, 0], [1, 0]]))
    assert "placed_not_seen" in {f["code"] for f in missing.flags} and missing.move_points == {}


def test_doubt_on_a_counted_line_is_contested():
    after = BEFORE.with_hexes(Board.of({(0, 0): "red", (1, 0): "green"}).hexes)
    a = judge_placement(IngeniousState(after=after, before=BEFORE, doubtful={(0, 2): "hue between"}), ctx())
    assert "contested" in {f["code"] for f in a.flags} and a.move_points == {"red": 2}


@pytest.mark.parametrize("stopper", [(0, 3), (2, 0)])
def test_doubt_where_a_line_stops_is_contested(stopper):
    # red (0, 0) runs (0, 1), (0, 2) and stops at the empty (0, 3); green (1, 0) stops at once at the blue (2, 0):
    # a hand over either stopping cell may hide a same-colour hex that would lengthen the line
    after = BEFORE.with_hexes(Board.of({(0, 0): "red", (1, 0): "green"}).hexes)
    a = judge_placement(IngeniousState(after=after, before=BEFORE, doubtful={stopper: "a hand?"}), ctx())
    contested = [f for f in a.flags if f["code"] == "contested"]
    assert contested and contested[0]["cells"] == [list(stopper)]
    assert a.move_points == {"red": 2}
    far = judge_placement(IngeniousState(after=after, before=BEFORE, doubtful={(-5, 3): "a hand?"}), ctx())
    assert "contested" not in {f["code"] for f in far.flags}


def test_a_stopping_cell_in_doubt_between_other_colours_leaves_the_line_alone():
    # (0, 3) stops the red line only: a doubt there between orange and yellow cannot lengthen it, one between
    # red and orange can; the state keeps those colours through its JSON
    after = BEFORE.with_hexes(Board.of({(0, 0): "red", (1, 0): "green", (0, 3): "orange"}).hexes)
    for colours, contested in ((("orange", "yellow"), False), (("orange", "red"), True)):
        st = IngeniousState(after=after, before=BEFORE.with_hexes(Board.of({(0, 3): "orange"}).hexes),
                            doubtful={(0, 3): "hue between"}, doubt_colours={(0, 3): colours})
        assert IngeniousState.from_json(st.to_json()) == st
        a = judge_placement(st, ctx())
        assert ("contested" in {f["code"] for f in a.flags}) is contested
        assert a.move_points == {"red": 2}


def test_line_stops_are_the_cells_past_every_run():
    after = BEFORE.with_hexes(Board.of({(0, 0): "red", (1, 0): "green"}).hexes)
    stops = [c for c, _ in line_stops(after, (Hex((0, 0), "red"), Hex((1, 0), "green")), 7)]
    assert ((0, 3), "red") in line_stops(after, (Hex((0, 0), "red"), Hex((1, 0), "green")), 7)
    # red (0, 0): five directions (not towards (1, 0)); the run along (0, 1) ends past (0, 2)
    assert (0, 3) in stops and (0, 2) not in stops  # ((0, 1) stops green (1, 0) along (-1, 1))
    # green (1, 0): the blue (2, 0) stops it at once; (0, 0) is its partner, never a stop
    assert (2, 0) in stops and (0, 0) not in stops
    assert len(stops) == 10  # five directions of each hex
    # a run to the edge of play has no stopping cell
    edge = Board.of({(6, 0): "red", (7, 0): "red", (5, 1): "blue"})
    edge_stops = [c for c, _ in line_stops(edge, (Hex((6, 0), "red"), Hex((5, 1), "blue")), 7)]
    assert all(ring(c) <= 7 for c in edge_stops) and (8, 0) not in edge_stops


def test_doubted_cells_left_out_when_that_makes_one_placement():
    # a hand over (-4, 0) reads as a new orange hex: with it left out the move is clean (and contested)
    after = BEFORE.with_hexes(Board.of({(0, 0): "red", (1, 0): "green", (-4, 0): "orange"}).hexes)
    st = IngeniousState(after=after, before=BEFORE, doubtful={(-4, 0): "a hand?"})
    a = judge_placement(st, ctx())
    assert a.move_points == {"red": 2} and "contested" in {f["code"] for f in a.flags}


def test_first_round_rule_checked():
    after = Board.of({(0, 0): "red", (1, 0): "green"})
    a = judge_placement(IngeniousState(after=after, before=Board()), ctx(first_round=True))
    assert "first_round" in {f["code"] for f in a.flags} and a.move_points == {}
    ok = Board.of({(4, -4): "red", (3, -4): "green"})
    b = judge_placement(IngeniousState(after=ok, before=Board()), ctx(first_round=True))
    assert b.move_points == {"red": 1}


def test_team_partners_share_the_board():
    c = IngeniousContext.from_json({"players": ["A", "B", "C", "D"], "mover": "C", "team": True,
                                    "scores_before": {"A": {"red": 20}, "C": {"red": 20}}})
    after = BEFORE.with_hexes(Board.of({(0, 0): "red", (1, 0): "green"}).hexes)
    a = judge_placement(IngeniousState(after=after, before=BEFORE), c)
    assert a.colour_scores["A"]["red"] == a.colour_scores["C"]["red"] == 22 and a.extra_placements == 0


@pytest.mark.parametrize("obj, word", [
    (None, "context"), ({"players": ["A"]}, "mover"), ({"players": ["A", "A"], "mover": "A", "scores_before": {}},
                                                       "different"),
    ({"players": ["A", "B"], "mover": "C", "scores_before": {}}, "mover"),
    ({"players": ["A", "B"], "mover": "A", "scores_before": {}, "team": True}, "team"),
    ({"players": ["A", "B"], "mover": "A", "scores_before": {"A": {"pink": 1}}}, "pink"),
    ({"players": ["A", "B"], "mover": "A", "scores_before": {}, "placed": [[0, 0]]}, "placed"),
])
def test_bad_contexts_name_the_field(obj, word):
    with pytest.raises(ValueError, match=word):
        IngeniousContext.from_json(obj)


def test_a_misread_cell_corrected_in_the_page_tables_rescores_the_move():
    from ui.editor import apply_tables, state_tables

    # the camera misread the line cell (0, 2) as orange: red scores 1
    after = Board.of({(0, 1): "red", (0, 2): "orange", (2, 0): "blue", (0, 0): "red", (1, 0): "green"})
    before = Board.of({(0, 1): "red", (0, 2): "orange", (2, 0): "blue"})
    state = IngeniousState(after=after, before=before, doubtful={(0, 2): "hue between red and orange"})
    assert judge_placement(state, ctx()).move_points == {"red": 1}
    tables = state_tables(state.to_json())
    for name in ("after", "before"):
        for row in tables[name]:
            if row["qr"] == "[0, 2]":
                row["colour"] = "red"
    fixed = IngeniousState.from_json(apply_tables(state.to_json(), tables))
    assert judge_placement(fixed, ctx()).move_points == {"red": 2}
