"""A challenge board read loosely (issue 10): the reading says so, the judgement names it, the overlay draws it apart,
and a saved state judged again (``cli.py score``) says the same.

A loose board is a fit the strict acceptance declined, taken because the chip field still lacked a challenge board
(``vision.carrotain._with_loose_boards``); its outline uncertainty is at least its chamfer. The flag is a notice: the
looseness is already in the outline's sigma, so a chip it could decide is borderline and the verdict contested.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from judge.games.carrotain import LOOSE_COLOUR
from judge.images import load_image
from judge.pipeline import judge_images
from judge.registry import game
from scoring.carrotain import adjudicate
from scoring.carrotain_state import BoardReading, CarrotainState, ChipReading
from tests.cli_helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
SQ = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], float)


def _state(loose: bool, chip_xy_mm=(50.0, 50.0)) -> CarrotainState:
    """Two challenge boards (B loose when ``loose``, uncertain by 3 mm) and three chips, the first at ``chip_xy_mm``."""
    chips = (ChipReading("star", "red", chip_xy_mm), ChipReading("star", "blue", (250, 50)),
             ChipReading("star", "red", (400, 50)))
    boards = (BoardReading("A", SQ), BoardReading("B", SQ + [200, 0], pose_sigma_mm=3.0, loose=loose))
    return CarrotainState(chips, boards)


def _codes(flags) -> list[str]:
    return [f["code"] if isinstance(f, dict) else f.code for f in flags]


def test_a_loose_board_survives_the_state_json_and_old_states_read_as_strict():
    b = BoardReading("C", SQ, pose_sigma_mm=2.7, loose=True)
    obj = json.loads(json.dumps(b.to_json()))
    assert obj["loose"] is True and BoardReading.from_json(obj).loose
    strict = BoardReading("C", SQ).to_json()
    assert "loose" not in strict  # a strict board's JSON is what it was
    assert not BoardReading.from_json(strict).loose
    state = _state(True)
    again = CarrotainState.from_json(json.loads(json.dumps(state.to_json())))
    assert [x.loose for x in again.boards] == [False, True]


def test_the_judgement_names_a_loose_board_with_its_uncertainty_as_a_notice():
    loose = adjudicate(_state(True), ["red", "blue"], "red")
    strict = adjudicate(_state(False), ["red", "blue"], "red")
    (flag,) = [f for f in loose.flags if f.code == "loose_board"]
    assert flag.data == {"boards": ["B"], "sigma_mm": [3.0]}
    assert "B" in flag.message and "loose" in flag.message
    assert "loose_board" not in strict.flag_codes()
    # a notice: the verdict, its contest and the counts are what the outline's sigma gives, flag or not
    assert (loose.verdict, loose.contested, loose.not_hidden) == (strict.verdict, strict.contested, strict.not_hidden)
    assert not loose.contested


def test_a_chip_within_a_loose_boards_uncertainty_of_its_edge_is_borderline():
    """The looseness reaches the verdict through the outline's sigma: a chip 2 mm inside B's edge (sigma 3 mm)."""
    adj = adjudicate(_state(True, (202.0, 50.0)), ["red", "blue"], "red")
    assert adj.chips[0].borderline and "loose_board" in adj.flag_codes()


def _judged_sample():
    path = sorted((ROOT / "sample_images" / "carrotain").glob("*.jpg"))[0]
    context = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["context"]
    plugin = game("carrotain")
    return plugin, judge_images(plugin, [(load_image(path), path.name)], context), context


def _loose_pixels(img: np.ndarray) -> int:
    return int(np.all(img == np.array(LOOSE_COLOUR, dtype=img.dtype), axis=2).sum())


def test_a_loose_board_is_drawn_apart_and_a_saved_state_scores_the_same(tmp_path):
    plugin, j, context = _judged_sample()
    k = next(i for i, b in enumerate(j.state.boards) if b.role == "challenge")
    boards = list(j.state.boards)
    boards[k] = replace(boards[k], loose=True, pose_sigma_mm=max(boards[k].pose_sigma_mm, 2.5))
    state = replace(j.state, boards=tuple(boards))
    ctx = plugin.parse_context(context)
    adj = plugin.adjudicate(state, ctx)
    assert "loose_board" in adj.flag_codes()
    frame = j.frames[-1]
    drawn, plain = plugin.annotate(frame, state, adj), plugin.annotate(frame, j.state, j.adjudication)
    assert _loose_pixels(drawn) > _loose_pixels(plain) + 200  # the loose board and its band, in its own colour

    saved = tmp_path / "state.json"
    saved.write_text(json.dumps(state.to_json()), encoding="utf-8")
    ctx_file = tmp_path / "ctx.json"
    ctx_file.write_text(json.dumps(context), encoding="utf-8")
    run = run_cli("score", "--game", "carrotain", "--context", str(ctx_file), "--no-ledger", str(saved))
    assert run.rc == 0, run.stderr
    out = json.loads(run.stdout)
    want = json.loads(json.dumps(adj.to_json()))
    assert out["flags"] == want["flags"]  # the same flags, the loose board's notice among them
    (flag,) = [f for f in out["flags"] if f["code"] == "loose_board"]
    assert flag["boards"] == [state.boards[k].id]
    assert (out["verdict"], out["contested"], out["not_hidden"]) == (want["verdict"], want["contested"],
                                                                     want["not_hidden"])
