"""A challenge board fit that explains only part of the acrylic there is not trusted as the board's place (issue 10).

Unread acrylic touching a read challenge board: the fit may lie at the wrong place (dev b00 as a webcam delivers it,
seed 1: B fitted where D lies, D's rest unread) or a second board may be stacked on it (dev s00, seed 1: D laid on A,
D unread beside A). The judgement says so (``board_place_unsure``) and contests the verdict where the chips such a
board could change could change it; a verdict that no such chip changes stands.
"""

from __future__ import annotations

import numpy as np

from scoring.carrotain import CarrotainOptions
from scoring.carrotain_state import BoardReading
from tests.carrotain_photoreal import judge_photo
from tests.test_carrotain_rules import chip, hidden_chips, judge, square

# A read over x 0..100, B over x 200..300 (both y 0..100); acrylic unread beside A, over x 100..160
A, B = BoardReading("A", square(0, 0), pose_sigma_mm=0.2), BoardReading("B", square(200, 0), pose_sigma_mm=0.2)
UNREAD_BESIDE_A = BoardReading("?", np.array([[100.0, 10.0], [160.0, 10.0], [160.0, 90.0], [100.0, 90.0]]),
                               pose_sigma_mm=10.0, role="unread")


def _four_out_near_the_unread():
    """Three hidden chips under A, four not hidden at x 175 (beside the unread acrylic, under no board): failure."""
    return hidden_chips(["red", "blue", "green"]) + [chip("blue", 175.0, 15.0 + 20.0 * i) for i in range(4)]


def test_unread_acrylic_touching_a_challenge_board_contests_the_chips_it_could_change():
    adj = judge(_four_out_near_the_unread(), boards=(A, B, UNREAD_BESIDE_A))
    assert adj.verdict == "failure" and adj.not_hidden == 4
    unsure = [f for f in adj.flags if f.code == "board_place_unsure"]
    assert len(unsure) == 1 and unsure[0].data["board"] == "A" and unsure[0].data["unread"] == [2]
    assert set(unsure[0].data["chips"]) >= {3, 4, 5, 6}
    assert adj.contested and adj.other_reading == "success"


def test_unread_acrylic_away_from_the_challenge_boards_changes_nothing():
    """The same acrylic 20 mm from A and from B (x 120..180 would touch neither): no flag, the verdict stands."""
    apart = BoardReading("?", np.array([[120.0, 10.0], [180.0, 10.0], [180.0, 90.0], [120.0, 90.0]]),
                         pose_sigma_mm=10.0, role="unread")
    adj = judge([chip(c, 20.0 + 10 * i, 50.0) for i, c in enumerate(["red", "blue", "green"])]
                + [chip("blue", 150.0, 200.0 + 20.0 * i) for i in range(4)], boards=(A, B, apart))
    assert "board_place_unsure" not in adj.flag_codes()
    assert adj.verdict == "failure" and not adj.contested


def test_a_chip_beyond_any_board_over_the_unread_acrylic_is_not_doubtful():
    """Chips farther than the largest board's reach from the unread region cannot be covered by a board over it."""
    far = [chip("blue", 175.0, 400.0 + 20.0 * i) for i in range(4)]
    adj = judge(hidden_chips(["red", "blue", "green"]) + far, boards=(A, B, UNREAD_BESIDE_A))
    unsure = next(f for f in adj.flags if f.code == "board_place_unsure")
    assert not set(unsure.data["chips"]) & {3, 4, 5, 6}
    assert adj.verdict == "failure" and not adj.contested
    near = judge(hidden_chips(["red", "blue", "green"]) + far, boards=(A, B, UNREAD_BESIDE_A),
                 board_reach_mm=CarrotainOptions().board_reach_mm + 400.0)
    assert near.contested


def test_a_loose_board_on_a_stacked_pair_with_its_rest_unread_is_flagged():
    """A loose fit lying on a stacked pair (the pair's rest seen as unread acrylic beside it) names the possible
    second board instead of judging the pair as one loose board."""
    loose_a = BoardReading("A", square(0, 0), pose_sigma_mm=6.0, loose=True)
    adj = judge(_four_out_near_the_unread(), boards=(loose_a, B, UNREAD_BESIDE_A))
    codes = adj.flag_codes()
    assert "loose_board" in codes and "board_place_unsure" in codes
    assert "stacked" in next(f for f in adj.flags if f.code == "board_place_unsure").message
    assert adj.contested


def test_dev_b00_as_a_webcam_delivers_it_is_contested_not_a_quiet_wrong():
    """Dev b00 (borderline, truly a success with 2 not hidden) as a webcam delivers it, seed 1: board B fitted where D
    lies, D loose over A's and F's place, A's rest unread beside it. Read as "failure, 7 not hidden" without contest
    before; now the boards touched by unread acrylic are named and the verdict contested with the truth as the other
    reading."""
    out, exp, _, outcome = judge_photo("carrotain_s100000_b00", "webcam", 1)
    assert "board_place_unsure" in {f["code"] for f in out["flags"]}
    assert out["contested"] and {out["verdict"], out["other_reading"]} == {exp["verdict"], exp["other_reading"]}
    assert outcome == "exact"  # a borderline truth contested with both readings right


def test_dev_s00_stacked_pair_with_one_board_unread_is_contested():
    """Dev s00 (D laid on A) as a webcam delivers it, seed 1: A read, D not (its acrylic unread, touching A and the
    board C fitted in the overlap). Read as "failure, 11 not hidden" without contest before; now contested, the
    boards whose place is unsure named."""
    out, exp, _, outcome = judge_photo("carrotain_s100000_s00", "webcam", 1)
    assert "board_place_unsure" in {f["code"] for f in out["flags"]}
    assert out["contested"] and exp["verdict"] in (out["verdict"], out["other_reading"])
    assert outcome == "doubt"
