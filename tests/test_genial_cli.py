"""``cli.py judge --game genial``: the contract's fields on a synthetic pair, and bad input (exit 2, one line)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from synth.genial import render_pair
from tests.cli_helpers import assert_one_line_error, run_cli


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("gen")
    images, truth = render_pair(1003)
    paths = []
    for name, rgb in zip(("before.jpg", "after.jpg"), images, strict=True):
        cv2.imwrite(str(d / name), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths.append(str(d / name))
    ctx = d / "ctx.json"
    ctx.write_text(json.dumps(truth["context"]))
    return d, paths, str(ctx), truth


def test_judge_pair_contract_fields(pair):
    d, (before, after), ctx, truth = pair
    r = run_cli("judge", "--game", "genial", "--no-ledger", "--context", ctx, "--overlay", str(d / "ov.png"),
                before, after)
    assert r.rc == 0, r.stderr
    out = r.json
    for key in ("game", "placed", "move_points", "symbol_scores", "towers", "scored_towers", "large_bonus",
                "bonus_cells", "ranking", "scores", "flags", "explanation", "timings_ms", "chain"):
        assert key in out, key
    assert sorted(q["qr"] for q in out["placed"]) == sorted(truth["scene"]["move"]["cells"])
    assert out["scores"] == {p: min(s.values()) for p, s in out["symbol_scores"].items()}
    assert (d / "ov.png").exists()


def test_photos_of_different_sizes_exit_2(pair, tmp_path):
    d, (before, after), ctx, _ = pair
    img = cv2.imread(before)
    small = tmp_path / "small.jpg"
    cv2.imwrite(str(small), cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2)))
    r = run_cli("judge", "--game", "genial", "--no-ledger", "--context", ctx, str(small), after)
    assert r.rc == 2
    assert_one_line_error(r, 2, "differ in size")


def test_one_photo_without_placed_exit_2(pair):
    d, (before, after), ctx, _ = pair
    r = run_cli("judge", "--game", "genial", "--no-ledger", "--context", ctx, after)
    assert r.rc == 2
    assert_one_line_error(r, 2, "placed")


@pytest.mark.parametrize("drop, field", [("mover", "mover"), ("players", "players")])
def test_missing_context_field_exit_2(pair, tmp_path, drop, field):
    d, (before, after), ctx, truth = pair
    bad = dict(truth["context"])
    bad.pop(drop)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    r = run_cli("judge", "--game", "genial", "--no-ledger", "--context", str(p), before, after)
    assert r.rc == 2
    assert_one_line_error(r, 2, field)


def test_not_a_photo_exit_2(pair, tmp_path):
    d, (before, after), ctx, _ = pair
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(np.arange(100, dtype=np.uint8).tobytes())
    r = run_cli("judge", "--game", "genial", "--no-ledger", "--context", ctx, before, str(junk))
    assert r.rc == 2
