"""``cli.py judge --game ingenious``: the contract's fields on a synthetic pair, and bad input (exit 2, one line)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from synth.ingenious import render_pair
from tests.cli_helpers import assert_one_line_error, run_cli


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("ing")
    p = render_pair(7)
    paths = []
    for name, rgb in (("before.jpg", p.before_rgb), ("after.jpg", p.after_rgb)):
        cv2.imwrite(str(d / name), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths.append(str(d / name))
    ctx = d / "ctx.json"
    ctx.write_text(json.dumps(p.truth["context"]))
    return d, paths, str(ctx), p.truth


def test_judge_pair_contract_fields(pair):
    d, (before, after), ctx, truth = pair
    r = run_cli("judge", "--game", "ingenious", "--no-ledger", "--context", ctx, "--overlay", str(d / "ov.png"),
                before, after)
    assert r.rc == 0, r.stderr
    out = r.json
    for key in ("game", "placed", "move_points", "colour_scores", "extra_placements", "board", "ranking", "scores",
                "flags", "explanation", "timings_ms"):
        assert key in out, key
    exp = truth["expected"]
    assert sorted(map(str, out["placed"])) == sorted(map(str, exp["placed"]))
    assert out["move_points"] == exp["move_points"]
    assert out["scores"] == {p: min(s.values()) for p, s in out["colour_scores"].items()}
    ov = cv2.imread(str(d / "ov.png"))
    assert ov is not None and ov.shape[:2] == (960, 1280)
    assert np.abs(ov.astype(int) - cv2.imread(after).astype(int)).sum() > 0


def test_after_photo_alone_with_placed(pair):
    d, (_, after), ctx, truth = pair
    c = json.loads(open(ctx).read())
    c["placed"] = [h["qr"] for h in truth["expected"]["placed"]]
    p = d / "ctx_placed.json"
    p.write_text(json.dumps(c))
    r = run_cli("judge", "--game", "ingenious", "--no-ledger", "--context", str(p), after)
    assert r.rc == 0, r.stderr
    assert r.json["move_points"] == truth["expected"]["move_points"]


def test_one_photo_without_placed_is_bad_input(pair):
    _, (_, after), ctx, _ = pair
    assert_one_line_error(run_cli("judge", "--game", "ingenious", "--no-ledger", "--context", ctx, after), 2,
                          "placed")


def test_three_photos_are_bad_input(pair):
    _, (before, after), ctx, _ = pair
    assert_one_line_error(run_cli("judge", "--game", "ingenious", "--no-ledger", "--context", ctx, before, after,
                                  after), 2, "2 photos")


def test_photos_of_different_sizes_are_bad_input(pair):
    d, (before, after), ctx, _ = pair
    small = d / "small.jpg"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(after), (640, 480)))
    assert_one_line_error(run_cli("judge", "--game", "ingenious", "--no-ledger", "--context", ctx, before,
                                  str(small)), 2, "size")


@pytest.mark.parametrize("drop", ["players", "mover", "scores_before"])
def test_missing_context_field(pair, drop):
    d, (before, after), ctx, _ = pair
    c = json.loads(open(ctx).read())
    del c[drop]
    p = d / f"ctx_no_{drop}.json"
    p.write_text(json.dumps(c))
    assert_one_line_error(run_cli("judge", "--game", "ingenious", "--no-ledger", "--context", str(p), before, after),
                          2, drop)


def test_no_context_is_bad_input(pair):
    _, (before, after), _, _ = pair
    assert_one_line_error(run_cli("judge", "--game", "ingenious", "--no-ledger", before, after), 2, "context")


def test_bad_scores_before(pair):
    d, (before, after), ctx, _ = pair
    c = json.loads(open(ctx).read())
    c["scores_before"][c["players"][0]]["red"] = -3
    p = d / "ctx_bad.json"
    p.write_text(json.dumps(c))
    assert_one_line_error(run_cli("judge", "--game", "ingenious", "--no-ledger", "--context", str(p), before, after),
                          2, "scores_before")


def test_score_state_round_trip(pair, tmp_path):
    d, (before, after), ctx, truth = pair
    r = run_cli("detect", "--game", "ingenious", "--context", ctx, before, after)
    assert r.rc == 0, r.stderr
    state = tmp_path / "state.json"
    state.write_text(r.stdout)
    s = run_cli("score", "--game", "ingenious", "--context", ctx, str(state))
    assert s.rc == 0, s.stderr
    assert s.json["move_points"] == truth["expected"]["move_points"]
