"""Carrotain challenge rules (RULES.md section 1) on hand-built states with hand-counted answers.

Boards are axis-aligned squares (or circles); chips are placed at chosen distances from their edges,
so every expected count below is read straight off the coordinates.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from scoring.carrotain import CarrotainAdjudication, CarrotainOptions, adjudicate
from scoring.carrotain_state import BoardReading, CarrotainState, ChipReading
from scoring.flags import Flag

PLAYERS = ["red", "blue", "green"]


def square(x0: float, y0: float, size: float = 100.0) -> np.ndarray:
    return np.array([[x0, y0], [x0 + size, y0], [x0 + size, y0 + size], [x0, y0 + size]], dtype=float)


def circle(cx: float, cy: float, r: float, n: int = 256) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.c_[cx + r * np.cos(t), cy + r * np.sin(t)]


# two challenge boards: A covers x in [0, 100], B covers x in [200, 300]; both y in [0, 100]
BOARDS = (BoardReading("A", square(0, 0), pose_sigma_mm=0.2), BoardReading("B", square(200, 0), pose_sigma_mm=0.2))


def chip(colour, x, y, kind="star", sigma=0.2) -> ChipReading:
    return ChipReading(kind=kind, colour=colour if kind == "star" else None, xy_mm=(x, y), centre_sigma_mm=sigma)


def hidden_chips(colours):
    """Chips well inside board A (>= 20 mm from every edge)."""
    return [chip(c, 20 + 10 * (i % 7), 30 + 10 * (i // 7)) for i, c in enumerate(colours)]


def outside_chips(colours):
    """Chips well outside both boards (x = 150, between them, 50 mm from each)."""
    return [chip(c, 150, 20 + 15 * i) for i, c in enumerate(colours)]


def judge(chips, boards=BOARDS, challenger="red", players=PLAYERS, flags=(), **opts):
    state = CarrotainState(chips=tuple(chips), boards=tuple(boards), flags=tuple(flags))
    return adjudicate(state, players, challenger, CarrotainOptions(**opts))


@pytest.mark.parametrize("n_out,verdict", [(0, "success"), (1, "success"), (2, "success"), (3, "failure")])
def test_verdict_counts_not_hidden(n_out, verdict):
    out_colours = ["blue", "green", "blue"][:n_out]
    adj = judge(hidden_chips(["red", "blue", "green", "red"]) + outside_chips(out_colours))
    assert adj.verdict == verdict
    assert adj.hidden == 4 and adj.not_hidden == n_out
    assert not adj.contested and adj.other_reading is None
    assert [c.hidden for c in adj.chips] == [True] * 4 + [False] * n_out
    assert all(c.board == "A" for c in adj.chips[:4])


def test_rim_under_board_centre_not_counts_not_hidden():
    # chip of radius 12.5 mm with centre 5 mm outside board A's right edge: most of the rim is under A
    chips = hidden_chips(["red"]) + [chip("blue", 105, 50), chip("blue", 150, 10), chip("green", 150, 80)]
    adj = judge(chips)
    assert not adj.chips[1].hidden and adj.chips[1].margin_mm == pytest.approx(-5.0)
    assert adj.not_hidden == 3 and adj.verdict == "failure"


def test_colourless_and_first_star_count_but_score_nobody():
    chips = hidden_chips(["red", "red", "red"]) + [chip(None, 150, 20, "colourless"), chip(None, 150, 50, "first_star")]
    adj = judge(chips)
    assert adj.not_hidden == 2 and adj.verdict == "success"
    # success: red (challenger) takes 2 boards + 2 of its 3 hidden chips; nobody gets the two outside chips
    assert adj.awards == {"red": {"boards": 2, "chips": 2}, "blue": {"boards": 0, "chips": 0},
                          "green": {"boards": 0, "chips": 0}}
    assert adj.scores == {"red": 4, "blue": 0, "green": 0}
    # a third non-star chip outside -> failure even though no coloured chip is out
    adj3 = judge(chips + [chip(None, 150, 80, "colourless")])
    assert adj3.verdict == "failure" and adj3.not_hidden == 3


def test_success_not_hidden_star_chips_go_to_their_colour_including_challenger():
    chips = hidden_chips(["red", "blue"]) + outside_chips(["blue", "red"])
    adj = judge(chips)
    assert adj.verdict == "success"
    # red: 2 boards + 1 not-hidden own chip + 1 hidden own chip; blue: its 1 not-hidden chip (hidden ones: nothing)
    assert adj.awards["red"] == {"boards": 2, "chips": 2}
    assert adj.awards["blue"] == {"boards": 0, "chips": 1}
    assert adj.scores == {"red": 4, "blue": 1, "green": 0}


def test_challenger_hidden_chips_capped_at_two():
    adj = judge(hidden_chips(["red"] * 5 + ["green"] * 3))
    assert adj.verdict == "success" and adj.not_hidden == 0
    assert adj.awards["red"] == {"boards": 2, "chips": 2}
    assert adj.awards["green"] == {"boards": 0, "chips": 0}  # hidden chips of others score nothing


def test_failure_awards_capped_at_two_per_other_player():
    chips = hidden_chips(["blue"] * 4 + ["red"] * 3) + outside_chips(["red", "red", "green"])
    adj = judge(chips)
    assert adj.verdict == "failure" and adj.not_hidden == 3
    # challenger red gets nothing; blue 4 on the mat (all hidden) -> 2; green 1 -> 1
    assert adj.awards == {"red": {"boards": 0, "chips": 0}, "blue": {"boards": 0, "chips": 2},
                          "green": {"boards": 0, "chips": 1}}
    assert adj.scores == {"red": 0, "blue": 2, "green": 1}


def test_colour_not_in_play_scores_nobody_and_is_flagged():
    chips = hidden_chips(["red"]) + outside_chips(["pink", "orange"])
    adj = judge(chips)
    assert adj.verdict == "success"
    assert "pink" not in adj.scores and sum(a["chips"] for p, a in adj.awards.items() if p != "red") == 0
    flag = next(f for f in adj.flags if f.code == "unknown_colour")
    assert flag.data["chips"] == [1, 2] and flag.data["colours"] == ["orange", "pink"]


def test_stacked_boards_flagged_verdict_still_computed():
    boards = (BoardReading("A", square(0, 0)), BoardReading("B", square(90, 0)))  # overlap 10 x 100 mm
    adj = judge(hidden_chips(["red"]) + [chip("blue", 180, 50)], boards=boards)
    flag = next(f for f in adj.flags if f.code == "stacked_boards")
    assert flag.data["overlap_mm2"] == pytest.approx(1000.0) and flag.data["boards"] == ["A", "B"]
    assert adj.verdict == "success" and adj.hidden == 2
    # two unused boards piled beside the mat break no rule
    piled = BOARDS + (BoardReading("C", square(400, 0), role="other"), BoardReading("D", square(450, 0), role="other"))
    assert "stacked_boards" not in judge(hidden_chips(["red"]), boards=piled).flag_codes()
    # touching edge to edge (zero area) is not stacking
    touching = (BoardReading("A", square(0, 0)), BoardReading("B", square(100, 0)))
    assert "stacked_boards" not in judge(hidden_chips(["red"]), boards=touching).flag_codes()


@pytest.mark.parametrize("n_boards", [0, 1, 3])
def test_not_exactly_two_boards_invalid_challenge(n_boards):
    boards = [BoardReading(k, square(300 * i, 0)) for i, k in enumerate("ABC"[:n_boards])]
    adj = judge(hidden_chips(["red"]), boards=boards)
    assert "invalid_challenge" in adj.flag_codes()
    assert adj.chips[0].hidden == (n_boards > 0)
    assert "invalid_challenge" not in judge(hidden_chips(["red"])).flag_codes()


def test_other_board_covering_a_centre_is_flagged_and_does_not_hide():
    other = BoardReading("C", square(120, 0, 60), role="other")  # x in [120, 180] covers x=150 chips
    adj = judge(hidden_chips(["red"]) + outside_chips(["blue", "green", "blue"]), boards=BOARDS + (other,))
    flag = next(f for f in adj.flags if f.code == "other_board_covers")
    assert flag.data == {"board": "C", "chips": [1, 2, 3]}
    assert adj.not_hidden == 3 and adj.verdict == "failure"


def test_borderline_chip_that_flips_the_verdict_is_contested():
    # 2 clearly out + one chip 0.8 mm inside A's edge (margin 1.5 mm band): measured success, could be failure
    chips = hidden_chips(["red"]) + outside_chips(["blue", "green"]) + [chip("blue", 99.2, 50)]
    adj = judge(chips)
    assert adj.verdict == "success" and adj.contested and adj.other_reading == "failure"
    assert adj.chips[3].hidden and adj.chips[3].borderline and adj.chips[3].margin_mm == pytest.approx(0.8)
    flag = next(f for f in adj.flags if f.code == "contested")
    assert flag.data["chips"] == [3]
    text = " ".join(adj.explanation)
    assert "SUCCESS" in text and "FAILURE" in text and "CONTESTED" in text
    # the same chip 0.8 mm outside: measured failure, other reading success
    adj2 = judge(hidden_chips(["red"]) + outside_chips(["blue", "green"]) + [chip("blue", 100.8, 50)])
    assert adj2.verdict == "failure" and adj2.contested and adj2.other_reading == "success"


def test_borderline_chip_that_cannot_change_the_verdict_is_not_contested():
    # 0 clearly out, one borderline: 0 or 1 not hidden -> success either way
    adj = judge(hidden_chips(["red"]) + [chip("blue", 100.5, 50)])
    assert adj.chips[1].borderline and not adj.contested and adj.other_reading is None
    assert "contested" not in adj.flag_codes() and "borderline" in adj.flag_codes()
    # 4 clearly out, one borderline: failure either way
    adj = judge(outside_chips(["blue", "green", "blue", "green"]) + [chip("blue", 99.5, 50)])
    assert adj.verdict == "failure" and not adj.contested
    # 3 m from the edge is outside the 1.5 mm band
    adj = judge(outside_chips(["blue", "green"]) + [chip("blue", 97.0, 50)])
    assert not adj.chips[2].borderline and not adj.contested


def test_band_widens_with_sigma_and_shrinks_without():
    chips = outside_chips(["blue", "green"]) + [chip("blue", 97.0, 50, sigma=1.5)]  # 2*hypot(1.5, .2) = 3.03
    assert judge(chips).contested
    assert not judge(chips, use_chip_sigma=False).contested


def test_uncertain_not_hidden_chip_may_be_a_phantom():
    """3 not hidden, one of them perhaps not a chip at all: failure as measured, success if it is no chip."""
    chips = outside_chips(["blue", "green"]) + [ChipReading("star", "blue", (150, 90), 0.2, presence_confidence=0.3)]
    adj = judge(chips)
    assert adj.verdict == "failure" and adj.contested and adj.other_reading == "success"
    assert "uncertain_chip" in adj.flag_codes()
    assert next(f for f in adj.flags if f.code == "contested").data["chips"] == [2]
    # confident: not contested; uncertain but hidden: cannot lower the count either
    assert not judge(chips, min_confidence=0.2).contested
    hid = outside_chips(["blue", "green", "green"]) + [
        ChipReading("star", "red", (50, 50), 0.2, presence_confidence=0.3)]
    assert not judge(hid).contested


def test_a_chip_of_unsure_colour_still_counts_for_the_verdict():
    """The same third not-hidden chip surely a chip but of unsure colour (a webcam fades its dot): every chip kind
    counts, so the failure is not contested; only the awards its colour could change are flagged."""
    chips = outside_chips(["blue", "green"]) + [ChipReading("star", "blue", (150, 90), 0.2, confidence=0.1)]
    adj = judge(chips)
    assert adj.verdict == "failure" and not adj.contested and adj.not_hidden == 3
    assert "uncertain_chip" not in adj.flag_codes()
    few = outside_chips(["blue"]) + hidden_chips(["red"])
    few[0] = ChipReading("star", "blue", (150, 20), 0.2, confidence=0.1)
    adj = judge(few)
    assert not adj.contested and "awards_doubtful" in adj.flag_codes()


def test_non_finite_chip_position_is_flagged_not_hidden_and_borderline():
    chips = outside_chips(["blue", "green"]) + [chip("blue", float("nan"), 50)]
    adj = judge(chips)
    assert not adj.chips[2].hidden and adj.chips[2].borderline and adj.contested
    assert "bad_chip_position" in adj.flag_codes()
    json.dumps(adj.to_json(), allow_nan=True)


def test_whole_dot_option():
    # star dot radius 3.5: centre 2 mm inside the edge -> hidden by centre, not by whole dot
    chips = [chip("blue", 98.0, 50), chip(None, 296.5, 50, "colourless"), chip("green", 95.0, 50)]
    by_centre = judge(chips, use_chip_sigma=False, margin_mm=0.1)
    assert [c.hidden for c in by_centre.chips] == [True, True, True]
    by_dot = judge(chips, coverage="whole_dot", use_chip_sigma=False, margin_mm=0.1)
    # blue: 2 - 3.5 = -1.5 ; colourless hole r 3: 3.5 - 3 = +0.5 ; green 5 - 3.5 = +1.5
    assert [c.hidden for c in by_dot.chips] == [False, True, True]
    assert [c.margin_mm for c in by_dot.chips] == pytest.approx([-1.5, 0.5, 1.5])
    assert any("coverage=whole_dot" in s for s in by_dot.explanation)
    assert any("coverage=centre" in s and "margin=0.1 mm" in s for s in by_centre.explanation)


def test_circle_board_and_mirrored_outline_orientation():
    """A clockwise and a counter-clockwise outline judge the same (boards may lie mirrored)."""
    c = circle(50, 50, 40)
    chips = [chip("red", 50, 50), chip("blue", 50 + 39, 50), chip("blue", 50 + 45, 50)]
    for outline in (c, c[::-1]):
        adj = judge(chips, boards=(BoardReading("A", outline), BoardReading("B", square(300, 300))))
        assert [ch.hidden for ch in adj.chips] == [True, True, False]
        assert adj.chips[0].margin_mm == pytest.approx(40.0, abs=0.05)


def test_state_flags_pass_through_and_json_contract():
    touched = Flag("touched", "chip #0 moved 4.2 mm since the before photo", {"chips": [0]})
    adj = judge(hidden_chips(["red"]) + outside_chips(["blue"]), flags=[touched])
    assert adj.flags[0] == touched
    obj = adj.to_json()
    json.dumps(obj)
    assert set(obj) == {"game", "verdict", "contested", "other_reading", "hidden", "not_hidden", "awards",
                        "scores", "flags", "explanation", "chips", "boards"}
    assert obj["game"] == "carrotain" and obj["flags"][0] == {"code": "touched", "message": touched.message,
                                                              "chips": [0]}
    assert set(obj["chips"][0]) == {"kind", "colour", "xy_mm", "hidden", "margin_mm", "borderline", "board"}
    assert set(obj["boards"][0]) == {"id", "outline_mm"}
    back = CarrotainAdjudication.from_json(obj)
    assert back.to_json() == obj


@pytest.mark.parametrize("players,challenger", [([], "red"), (["red", "blue"], "green"), (["red", "red"], "red")])
def test_bad_context_raises_value_error(players, challenger):
    with pytest.raises(ValueError):
        judge(hidden_chips(["red"]), players=players, challenger=challenger)


def test_bad_option_raises():
    with pytest.raises(ValueError):
        CarrotainOptions(coverage="rim")


def test_options_from_context_json():
    opts = CarrotainOptions.from_json({"coverage": "whole_dot", "margin_mm": 2, "use_chip_sigma": False})
    assert opts == CarrotainOptions(coverage="whole_dot", margin_mm=2.0, use_chip_sigma=False)
    assert CarrotainOptions.from_json(None) == CarrotainOptions() == CarrotainOptions.from_json({})
    assert CarrotainOptions.from_json(opts.to_json()) == opts
    for bad in ({"margin": 2}, {"margin_mm": "2"}, {"use_chip_sigma": 1}, {"coverage": "rim"}, {"coverage": 3}):
        with pytest.raises(ValueError):
            CarrotainOptions.from_json(bad)


# ------------------------------------------------------------------------------ independent check


def _inside_ray(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Even-odd ray casting (independent of shapely)."""
    x, y = pts[:, 0:1], pts[:, 1:2]
    x0, y0 = poly[:, 0], poly[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    crosses = ((y0 > y) != (y1 > y)) & (x < x0 + (y - y0) * (x1 - x0) / np.where(y1 == y0, 1e-300, y1 - y0))
    return np.count_nonzero(crosses, axis=1) % 2 == 1


def _edge_distance(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Distance of each point to the nearest polygon edge (brute force over segments)."""
    a, b = poly, np.roll(poly, -1, axis=0)
    ab = b - a
    t = np.clip(((pts[:, None, :] - a) * ab).sum(-1) / (ab * ab).sum(-1), 0, 1)
    proj = a + t[..., None] * ab
    return np.linalg.norm(pts[:, None, :] - proj, axis=-1).min(axis=1)


def _placed(outline: np.ndarray, centre, angle: float, mirrored: bool) -> np.ndarray:
    o = outline * ([-1, 1] if mirrored else [1, 1])
    c, s = np.cos(angle), np.sin(angle)
    return o @ np.array([[c, s], [-s, c]]) + centre


@pytest.mark.parametrize("seed", range(24))
def test_random_layouts_against_independent_count(seed):
    """Real board outlines (components/default.json), random poses; chips random on a 600x420 mat.

    Expected answers come from ray casting, brute-force edge distances and an enumeration of every
    subset of borderline chips, independent of the module's shapely code.
    """
    from components import load_components

    outlines = load_components()["carrotain"]["board"]["outlines_mm"]
    rng = np.random.default_rng(seed)
    ids = rng.choice(sorted(outlines), size=2, replace=False)
    boards = tuple(BoardReading(str(k), _placed(np.asarray(outlines[k], float), (150 + 260 * i + rng.uniform(-20, 20),
                                                                               210 + rng.uniform(-40, 40)),
                                                rng.uniform(0, 2 * np.pi), bool(rng.integers(2))))
                   for i, k in enumerate(ids))
    players = ["red", "blue", "green"]
    # most chips under the boards, 0-3 anywhere, 2 right next to an edge (borderline cases)
    cand = rng.uniform([0, 0], [600, 420], size=(4000, 2))
    under = cand[_inside_ray(boards[0].outline_mm, cand) | _inside_ray(boards[1].outline_mm, cand)]
    near = [boards[j].outline_mm[rng.integers(len(boards[j].outline_mm))] + rng.normal(0, 1.0, 2) for j in (0, 1)]
    centres = np.vstack([under[: rng.integers(5, 14)], rng.uniform([0, 0], [600, 420], (rng.integers(0, 4), 2)), near])
    n = len(centres)
    colours = rng.choice(players + ["pink", None], size=n)
    chips = tuple(ChipReading("star" if c is not None else "colourless", None if c is None else str(c), tuple(p))
                  for c, p in zip(colours, centres))
    adj = adjudicate(CarrotainState(chips, boards), players, "blue", CarrotainOptions(use_chip_sigma=False))

    inside = _inside_ray(boards[0].outline_mm, centres) | _inside_ray(boards[1].outline_mm, centres)
    dist = np.minimum(_edge_distance(boards[0].outline_mm, centres), _edge_distance(boards[1].outline_mm, centres))
    assert [c.hidden for c in adj.chips] == inside.tolist()
    assert np.allclose([abs(c.margin_mm) for c in adj.chips], dist, atol=1e-6)
    borderline = dist <= 1.5
    assert [c.borderline for c in adj.chips] == borderline.tolist()
    n_not = int(np.count_nonzero(~inside))
    assert adj.not_hidden == n_not and adj.verdict == ("success" if n_not <= 2 else "failure")
    readings = set()
    idx = np.flatnonzero(borderline)
    for mask in range(1 << len(idx)):
        flipped = inside.copy()
        for b, i in enumerate(idx):
            if mask >> b & 1:
                flipped[i] = not flipped[i]
        readings.add("success" if np.count_nonzero(~flipped) <= 2 else "failure")
    assert adj.contested == (len(readings) == 2)
    own = {p: [i for i in range(n) if colours[i] == p] for p in players}
    if adj.verdict == "success":
        want = {p: sum(not inside[i] for i in own[p]) for p in players}
        want["blue"] += min(2, sum(inside[i] for i in own["blue"]))
    else:
        want = {p: 0 if p == "blue" else min(2, len(own[p])) for p in players}
    assert {p: a["chips"] for p, a in adj.awards.items()} == want


def test_degenerate_inputs_do_not_crash():
    """No chips; an outline with no area (flagged, ignored)."""
    adj = judge([])
    assert adj.verdict == "success" and adj.hidden == adj.not_hidden == 0 and adj.to_json()["chips"] == []
    flat = BoardReading("B", np.array([[0, 0], [100, 0], [200, 0]], float))
    adj = judge(hidden_chips(["red"]), boards=(BOARDS[0], flat))
    assert {"bad_board_outline", "invalid_challenge"} <= set(adj.flag_codes()) and adj.chips[0].hidden


def test_uncertain_chip_that_could_change_an_award_is_named():
    """Success with blue's chip (150, 20) not hidden and read with low confidence: blue's award hangs on
    it (read as green, green would take it), so the awards are flagged doubtful naming that chip and
    both players; the same chip read confidently, or an uncertain chip that no reading can move (a
    hidden colourless chip on a failure where every other player already has 2), raises no flag."""
    chips = outside_chips(["blue"]) + hidden_chips(["red"])
    chips[0] = ChipReading("star", "blue", (150, 20), 0.2, confidence=0.3)
    adj = judge(chips)
    assert adj.verdict == "success" and adj.awards["blue"]["chips"] == 1
    f = next(f for f in adj.flags if f.code == "awards_doubtful")
    assert f.data["chips"] == [0] and {"blue", "green"} <= set(f.data["players"]["0"])
    assert "awards_doubtful" not in judge(chips, min_confidence=0.2).flag_codes()
    many = outside_chips(["blue", "blue", "green", "green"]) + [
        ChipReading("colourless", None, (50, 50), 0.2, confidence=0.3)]
    adj = judge(many)
    assert adj.verdict == "failure" and "awards_doubtful" not in adj.flag_codes()
