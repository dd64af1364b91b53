"""Ingenious rules (RULES.md section 4): the rulebook's examples, caps, extra placements, team game,
first round, swap, end, ranking, and random boards against an independent brute-force counter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from components import load_components
from geometry.hexgrid import cells_within, centres_board_mm, nearest_cells, ring
from scoring.ingenious import (
    COLOURS,
    START_CELLS,
    Board,
    Hex,
    check_placement,
    free_pairs,
    placement_points,
)
from scoring.ingenious_game import IngeniousGame, first_round_flags
from scoring.ingenious_scores import apply_points, rank, swap_right


def score(cells: dict, a, ca, b, cb, radius=7):
    placed = (Hex(a, ca), Hex(b, cb))
    board = Board.of(cells).with_hexes(placed)
    return placement_points(board, placed, radius).raw


# ---------------------------------------------------------------- the rulebook's examples


def test_blue_yellow_example_yellow_2_blue_3():
    # yellow at (0,0), blue at (1,0); yellow 2 along one line, blue 2 up and 1 up-left
    cells = {(0, 1): "yellow", (0, 2): "yellow", (1, -1): "blue", (1, -2): "blue", (2, -1): "blue",
             (-1, 0): "green", (2, 0): "red"}
    assert score(cells, (0, 0), "yellow", (1, 0), "blue") == {"yellow": 2, "blue": 3}


def test_orange_double_scores_6_and_not_along_its_partner():
    # right half: two lines of 2; left half: one line of 2; the partner directions are not looked at
    # (pointy-top cells: the rulebook's "up" lines become two of the slanted directions)
    cells = {(2, -1): "orange", (3, -2): "orange", (1, 1): "orange", (1, 2): "orange",
             (0, -1): "orange", (0, -2): "orange", (-1, 0): "blue", (2, 0): "red"}
    assert score(cells, (0, 0), "orange", (1, 0), "orange") == {"orange": 6}


def test_green_double_lying_two_ways_scores_1_or_2():
    cells = {(0, -1): "green"}
    # lying so that only one half sees the green neighbour
    assert score(cells, (0, 0), "green", (0, 1), "green") == {"green": 1}
    # lying so that the green cell is the common neighbour of both halves
    assert score(cells, (0, 0), "green", (1, -1), "green") == {"green": 2}


def test_printed_symbols_count_as_their_colour():
    # the red symbol is printed at (5, -5); a red line towards it counts it as a red cell
    placed = (Hex((2, -2), "red"), Hex((2, -1), "blue"))
    gap = placement_points(Board.of({(3, -3): "red"}).with_hexes(placed), placed, 5)
    assert gap.raw == {"red": 1} and gap.lines[0].symbols == 0  # (4,-4) empty: the line stops
    full = placement_points(Board.of({(3, -3): "red", (4, -4): "red"}).with_hexes(placed), placed, 5)
    assert full.raw == {"red": 3} and full.lines[0].symbols == 1
    assert score({}, (4, -4), "red", (3, -4), "blue", radius=5) == {"red": 1}


def test_lines_stop_at_the_board_in_play():
    # radius 5: a tile on ring 5 does not count cells on ring 6 (not in play)
    cells = {(0, 6): "blue"}
    assert score(cells, (0, 4), "blue", (1, 4), "red", radius=5) == {}


def test_start_cells_agree_with_components():
    printed = {tuple(c["qr"]): c["colour"] for c in load_components()["ingenious"]["board"]["start_cells"]}
    assert printed == START_CELLS


# ---------------------------------------------------------------- placement checks


def test_placement_exactly_two_neighbours():
    before = Board.of({(0, 0): "red", (1, 0): "blue"})
    good = check_placement(before, before.with_hexes((Hex((0, 1), "red"), Hex((1, 1), "green"))), 7)
    assert good.valid and [h.qr for h in good.placed] == [(0, 1), (1, 1)]
    one = check_placement(before, before.with_hexes((Hex((0, 1), "red"),)), 7)
    assert not one.valid and one.flags[0].code == "not_one_tile"
    three = check_placement(before, before.with_hexes(tuple(Hex((k, 2), "red") for k in range(3))), 7)
    assert not three.valid and three.flags[0].code == "not_one_tile"
    apart = check_placement(before, before.with_hexes((Hex((0, 2), "red"), Hex((3, 2), "red"))), 7)
    assert [f.code for f in apart.flags] == ["not_neighbours"]


def test_moved_tile_is_flagged():
    before = Board.of({(0, 0): "red", (1, 0): "blue"})
    after = Board.of({(0, 1): "red", (1, 1): "blue"})
    chk = check_placement(before, after, 7)
    assert not chk.valid and "moved_tile" in [f.code for f in chk.flags]
    recoloured = Board.of({(0, 0): "red", (1, 0): "green", (3, 0): "red", (4, 0): "red"})
    assert "moved_tile" in [f.code for f in check_placement(before, recoloured, 7).flags]


def test_symbol_and_outside_play_flagged():
    chk = check_placement(Board(), Board.of({(5, -5): "red", (4, -5): "red"}), 5)
    assert "covers_symbol" in [f.code for f in chk.flags]
    chk = check_placement(Board(), Board.of({(0, 5): "red", (0, 6): "red"}), 5)
    assert "outside_play" in [f.code for f in chk.flags]


# ---------------------------------------------------------------- caps and extra placements


def test_cap_18_excess_lost_extra_placement():
    u = apply_points({"red": 15, "blue": 2}, {"red": 5, "blue": 1})
    assert u.after["red"] == 18 and u.gained == {"red": 3, "blue": 1} and u.lost == {"red": 2}
    assert u.reached == (("red", 18),) and u.extra_placements == 1


def test_already_capped_gives_nothing():
    u = apply_points({"red": 18}, {"red": 4})
    assert u.after["red"] == 18 and u.gained == {} and u.lost == {"red": 4} and u.extra_placements == 0


def test_two_colours_reaching_18_give_two_extra():
    u = apply_points({"red": 16, "blue": 17}, {"red": 2, "blue": 3})
    assert u.extra_placements == 2 and u.after["red"] == 18 and u.after["blue"] == 18


def test_team_cap_stops_at_18_then_goes_to_36():
    u = apply_points({"red": 17}, {"red": 3}, team=True)
    assert u.after["red"] == 18 and u.lost == {"red": 2} and u.reached == (("red", 18),)
    u = apply_points({"red": 15}, {"red": 30}, team=True)  # one placement cannot jump past 18
    assert u.after["red"] == 18 and u.reached == (("red", 18),)
    u = apply_points({"red": 18}, {"red": 5}, team=True)
    assert u.after["red"] == 23 and u.extra_placements == 0
    u = apply_points({"red": 34}, {"red": 5}, team=True)
    assert u.after["red"] == 36 and u.lost == {"red": 3} and u.reached == (("red", 36),)
    u = apply_points({"red": 36}, {"red": 2}, team=True)
    assert u.after["red"] == 36 and u.extra_placements == 0
    with pytest.raises(ValueError):
        apply_points({"red": 20}, {"red": 1}, team=False)


def _game_at(scores, board=None, players=("A", "B"), team=False):
    g = IngeniousGame.new(players, team)
    obj = g.to_json()
    obj["scores"] = scores
    obj["board"] = Board.of(board or {}).to_json()
    obj["firsts_done"] = len(players)
    return IngeniousGame.from_json(obj)


def test_chained_extra_placements_keep_the_mover():
    board = {(0, 1): "red", (0, 2): "red", (3, 1): "blue", (3, 2): "blue", (-3, 0): "green"}
    g = _game_at({"A": {"red": 17, "blue": 17}, "B": {}}, board)
    g, m = g.play((Hex((0, 0), "red"), Hex((1, 0), "orange")))  # red 17 + 2 -> 18: one extra
    assert m.update.after["red"] == 18 and m.extra_pending == 1 and g.mover == "A"
    g, m = g.play((Hex((3, 0), "blue"), Hex((4, 0), "purple")))  # extra; blue reaches 18: another
    assert m.extra and m.extra_pending == 1 and g.mover == "A"
    g, m = g.play((Hex((-3, 1), "green"), Hex((-2, 1), "yellow")))  # extra, nothing reached: turn ends
    assert m.extra and m.extra_pending == 0 and g.mover == "B"
    assert g.player_scores()["A"]["green"] == 1


def test_team_partners_share_a_board_capped_at_36():
    board = {(0, 1): "red", (0, 2): "red", (0, 3): "red"}
    g = _game_at({"A & C": {"red": 34}, "B & D": {}}, board, players=("A", "B", "C", "D"), team=True)
    g, m = g.play((Hex((0, 0), "red"), Hex((1, 0), "orange")))
    assert m.update.after["red"] == 36 and m.extra_pending == 1
    assert g.player_scores()["C"]["red"] == 36 and g.player_scores()["B"]["red"] == 0


# ---------------------------------------------------------------- first round


def test_first_round_must_touch_an_untaken_symbol():
    near_red = (Hex((4, -4), "red"), Hex((3, -4), "blue"))  # (4,-4) touches the red symbol (5,-5)
    assert first_round_flags(near_red, frozenset()) == []
    assert first_round_flags((Hex((0, 0), "red"), Hex((1, 0), "red")), frozenset())[0].code == "first_round"
    assert first_round_flags(near_red, frozenset({(5, -5)}))[0].code == "first_round"
    g = IngeniousGame.new(("A", "B"))
    g, m = g.play(near_red)
    assert m.scored and m.first_round and g.mover == "B"
    g2, m2 = g.play((Hex((4, -5), "green"), Hex((3, -5), "green")))  # touches the red symbol again
    assert not m2.scored and m2.flags[0].code == "first_round" and g2 is g
    g, m = g.play((Hex((-4, 4), "green"), Hex((-3, 4), "green")))
    assert m.scored and not g.in_first_round


# ---------------------------------------------------------------- swap, end, ranking


def test_swap_right():
    sc = {"red": 3, "orange": 5, "yellow": 4, "green": 6, "blue": 7, "purple": 8}
    rack = [("orange", "yellow"), ("green", "blue"), ("purple", "purple"), ("blue", "orange"),
            ("yellow", "yellow"), ("green", "purple")]
    assert swap_right(sc, rack).allowed
    assert not swap_right(sc, rack[:5] + [("red", "blue")]).allowed
    tied = dict(sc, orange=3)
    s = swap_right(tied, rack)
    assert not s.allowed and s.lowest == ("red", "orange")


def test_ranking_tie_breaks_and_shared_win():
    scores = {
        "A": {"red": 5, "orange": 6, "yellow": 9, "green": 9, "blue": 9, "purple": 9},
        "B": {"red": 6, "orange": 5, "yellow": 7, "green": 18, "blue": 18, "purple": 18},
        "C": {"red": 5, "orange": 7, "yellow": 7, "green": 7, "blue": 7, "purple": 7},
        "D": {"red": 9, "orange": 9, "yellow": 9, "green": 9, "blue": 6, "purple": 5},
    }
    r = rank(scores)
    # lowest all 5; second lowest: A 6, B 6, C 7, D 6 -> C first; then third: A 9, B 7, D 9
    assert [p.name for p in r] == ["C", "A", "D", "B"]
    assert [p.place for p in r] == [1, 2, 2, 4]
    assert r[1].decided_by == "2nd lowest" and r[2].decided_by == "tie" and r[3].decided_by == "3rd lowest"


def test_end_when_all_six_at_18():
    g = _game_at({"A": dict.fromkeys(COLOURS, 18), "B": {}})
    assert "all six" in g.end()
    g2, m = g.play((Hex((0, 0), "red"), Hex((1, 0), "red")))
    assert not m.scored and m.flags[0].code == "game_over"


def test_end_when_no_tile_fits():
    # fill the radius-5 board leaving only isolated empty cells
    cells = {}
    free = [c for c in cells_within(5) if c not in START_CELLS]
    for c in free:
        if (c[0] - c[1]) % 3 != 0:
            cells[c] = COLOURS[(c[0] * 7 + c[1]) % 6]
    board = Board.of(cells)
    assert free_pairs(board, 5) == []
    assert _game_at({"A": {}, "B": {}}, cells).end() == "no tile can be placed on the board in play"
    assert free_pairs(Board.of({c: v for c, v in cells.items() if c != (1, 0)}), 5)


# ---------------------------------------------------------------- random boards, brute force


def brute_force_points(cells: dict, a, ca, b, cb, radius) -> dict:
    """Independent: in the plane, a cell X lies on a line from hex H when X - H points along one of
    the six 60-degree directions; it counts when every cell from H to X (by distance) is H's colour."""
    pitch = 1.0
    colour = dict(START_CELLS)
    colour.update(cells)
    colour[a], colour[b] = ca, cb

    def centre(c):
        return np.array([c[0] + c[1] / 2.0, c[1] * math.sqrt(3) / 2.0]) * pitch

    out: dict[str, int] = {}
    for h, hc, partner in ((a, ca, b), (b, cb, a)):
        skip = math.degrees(math.atan2(*(centre(partner) - centre(h))[::-1])) % 360
        per_dir: dict[int, list] = {}
        for x in cells_within(radius):
            if x == h:
                continue
            v = centre(x) - centre(h)
            ang = math.degrees(math.atan2(v[1], v[0])) % 360
            k = round(ang / 60.0) % 6
            if abs((ang - 60 * k + 180) % 360 - 180) > 1e-6:
                continue
            if abs(((k * 60 - skip) + 180) % 360 - 180) < 1e-6:
                continue
            per_dir.setdefault(k, []).append((float(np.linalg.norm(v)), x))
        for xs in per_dir.values():
            n = 0
            for _dist, x in sorted(xs):
                if colour.get(x) != hc:
                    break
                n += 1
            if n:
                out[hc] = out.get(hc, 0) + n
    return out


@pytest.mark.parametrize("seed", range(40))
def test_random_boards_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    radius = int(rng.choice([5, 6, 7]))
    free = [c for c in cells_within(radius) if c not in START_CELLS]
    fill = float(rng.uniform(0.2, 0.8))
    cells = {c: str(rng.choice(COLOURS)) for c in free if rng.random() < fill}
    pairs = free_pairs(Board.of(cells), radius)
    for i in rng.choice(len(pairs), size=min(5, len(pairs)), replace=False):
        a, b = pairs[int(i)]
        ca, cb = str(rng.choice(COLOURS)), str(rng.choice(COLOURS))
        assert score(cells, a, ca, b, cb, radius) == brute_force_points(cells, a, ca, b, cb, radius)


def test_nearest_cells_round_trip():
    cells = np.array(cells_within(7))
    xy = centres_board_mm(cells, 31.0) + np.random.default_rng(1).uniform(-8, 8, (len(cells), 2))
    got, dist = nearest_cells(xy, 31.0)
    assert (got == cells).all() and (dist < 12).all()
    assert all(ring(tuple(c)) <= 7 for c in got)
