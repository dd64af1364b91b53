"""Kaleido majority scoring and junction hexagons against RULES.md section 2 (pure rules, no images)."""

import numpy as np
import pytest

from geometry.hexboards import board_corners, find_junctions, hex_axial_to_offset_mm
from scoring.kaleido import BoardReading, KaleidoContext, KaleidoState, adjudicate
from scoring.majority import MajorityRule, majority_points


@pytest.mark.parametrize(
    "cells, expected",
    [
        # RULES.md / rulebook examples
        (["red", "red", "red", "white", "white", "green"], {"red": 8, "green": 4}),
        (["purple", "purple", "purple", "yellow", "green", "white"], {"purple": 8, "yellow": 2, "green": 2}),
        (["red", "red", "blue", "blue", "purple", "purple"], {"red": 4, "blue": 4, "purple": 4}),
        (["purple", "purple", "purple", "red", "green", "yellow"], {"purple": 8, "red": 1, "green": 1, "yellow": 1}),
        # tie of two for most: 12 split, nobody second
        (["red", "red", "blue", "blue", "green", "white"], {"red": 6, "blue": 6}),
        (["red", "red", "red", "blue", "blue", "blue"], {"red": 6, "blue": 6}),
        # one colour on all six
        (["green"] * 6, {"green": 12}),
        # lone first (default 8), white ignored
        (["green"] * 5 + ["white"], {"green": 8}),
        (["white"] * 6, {}),
        # empty cells ignored by the rule itself
        (["red", None, "blue", "red", None, None], {"red": 8, "blue": 4}),
    ],
)
def test_majority_examples(cells, expected):
    assert majority_points(cells) == expected


def test_lone_first_option():
    assert majority_points(["red"] * 4 + ["white"] * 2, MajorityRule(lone_first=12)) == {"red": 12}


def _layout(axials, colours, rot=17.0, edge=60.0, origin=(200.0, 200.0)):
    boards = []
    for (q, r), cells in zip(axials, colours):
        c = np.asarray(origin) + hex_axial_to_offset_mm(q, r, edge, rot)
        boards.append(BoardReading(centre_mm=(float(c[0]), float(c[1])), rotation_deg=rot, cells=tuple(cells)))
    return KaleidoState(boards=tuple(boards), edge_mm=edge)


def test_junction_geometry_three_boards():
    """Three mutually adjacent boards meet at one point, two cells each, at a shared corner."""
    st = _layout([(0, 0), (1, 0), (0, 1)], [["red"] * 6] * 3)
    c = np.array([b.centre_mm for b in st.boards])
    js = find_junctions(c, [b.rotation_deg for b in st.boards], 60.0)
    assert len(js) == 1
    j = js[0]
    assert sorted({b for b, _ in j.cells}) == [0, 1, 2]
    for b, k in j.cells:
        corners = board_corners(c[b], st.boards[b].rotation_deg, 60.0)
        # both cells of that board touch the junction point
        touch = min(np.linalg.norm(corners[k] - j.vertex_mm), np.linalg.norm(corners[(k + 1) % 6] - j.vertex_mm))
        assert touch < 1e-6
    # a line of three boards has no junction
    line = _layout([(0, 0), (1, 0), (2, 0)], [["red"] * 6] * 3)
    assert find_junctions(np.array([b.centre_mm for b in line.boards]), [17.0] * 3, 60.0) == []


def _hex_state(hex_colours, rot=0.0):
    """Three boards around one junction; the junction cells get hex_colours (2 per board), others white."""
    st = _layout([(0, 0), (1, 0), (0, 1)], [["white"] * 6] * 3, rot=rot)
    js = find_junctions(np.array([b.centre_mm for b in st.boards]), [rot] * 3, 60.0)
    cells = [list(b.cells) for b in st.boards]
    for (b, k), col in zip(js[0].cells, hex_colours):
        cells[b][k] = col
    boards = tuple(BoardReading(b.centre_mm, b.rotation_deg, tuple(c)) for b, c in zip(st.boards, cells))
    return KaleidoState(boards=boards)


def test_three_player_tie_in_hexagon():
    st = _hex_state(["red", "blue", "purple", "red", "blue", "purple"])
    ctx = KaleidoContext(players=(("Aki", ("red",)), ("Ben", ("blue",)), ("Chi", ("purple",))))
    out = adjudicate(st, ctx)
    assert out["complete_hexagons"] == 1 and out["junction_hexagons"] == 1
    assert out["scores"] == {"Aki": 4, "Ben": 4, "Chi": 4}
    assert out["full_boards"] == 3


def test_two_player_variant_sums_per_colour():
    """Each player two colours: scored per colour, then summed (rulebook's two-player example)."""
    st = _hex_state(["red", "red", "yellow", "yellow", "blue", "blue"])
    ctx = KaleidoContext(players=(("A", ("red", "yellow")), ("B", ("blue", "purple"))))
    out = adjudicate(st, ctx)
    assert out["scores"] == {"A": 8, "B": 4}
    # second-place tie between two colours of different players
    st = _hex_state(["red", "red", "red", "yellow", "blue", "white"])
    assert adjudicate(st, ctx)["scores"] == {"A": 8 + 2, "B": 2}


def test_incomplete_hexagon_listed_and_unscored():
    st = _hex_state(["red", None, "blue", "red", "blue", "red"])
    out = adjudicate(st, KaleidoContext())
    assert out["complete_hexagons"] == 0
    assert len(out["incomplete_hexagons"]) == 1 and len(out["incomplete_hexagons"][0]["empty"]) == 1
    assert out["scores"] == {"blue": 0, "red": 0}  # colours seen become players
    assert out["full_boards"] == 2


def test_board_points_and_mid_game_board():
    cells = [["red", "red", "red", "green", "white", "green"], ["blue"] * 6, ["red"] * 5 + [None]]
    st = _layout([(0, 0), (1, 0), (3, 0)], cells)
    ctx = KaleidoContext(players=(("A", ("red",)), ("B", ("green",)), ("C", ("blue",))))
    out = adjudicate(st, ctx)
    assert out["full_boards"] == 2
    assert out["board_points"] == {"A": 8, "B": 4, "C": 12}
    assert out["scores"] == {"A": 0, "B": 0, "C": 0} and out["junction_hexagons"] == 0
    one = adjudicate(st, KaleidoContext(players=ctx.players, board=1))
    assert one["mode"] == "board" and one["scores"] == {"A": 0, "B": 0, "C": 12}
    not_full = adjudicate(st, KaleidoContext(players=ctx.players, board=2))
    assert not_full["scores"] == {"A": 0, "B": 0, "C": 0}
    assert any(f["code"] == "board_not_full" for f in not_full["flags"])
    # previous state: board 0 was already full, board 1 filled since
    prev = KaleidoState(boards=(st.boards[0], BoardReading(st.boards[1].centre_mm, 17.0, ("blue",) * 5 + (None,))))
    since = adjudicate(st, KaleidoContext(players=ctx.players, previous_state=prev))
    assert since["scored_boards"] == [1] and since["scores"]["C"] == 12


def test_uncertain_cell_in_scored_hexagon_is_flagged():
    st = _hex_state(["red", "red", "red", "blue", "blue", "white"])
    b0 = st.boards[0]
    low = BoardReading(b0.centre_mm, b0.rotation_deg, b0.cells, confidences=(0.3,) * 6)
    out = adjudicate(KaleidoState(boards=(low, *st.boards[1:])))
    assert any(f["code"] == "uncertain_cells" for f in out["flags"])
    assert not any(f["code"] == "uncertain_cells" for f in adjudicate(st)["flags"])


def test_state_json_roundtrip():
    st = _hex_state(["red", None, "blue", "red", "blue", "red"])
    again = KaleidoState.from_json(st.to_json())
    assert adjudicate(again) == adjudicate(st)
