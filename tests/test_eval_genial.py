"""tools/eval_genial.py: the Genial pair evaluator scores a judgement and its reading against the truth."""

from __future__ import annotations

from tools.eval_genial import judge_pair, summarise, synth_items


def test_synthetic_pair_scored_in_both_modes():
    ((name, doc, photos),) = list(synth_items(2, 3, hard=False))
    rows = [judge_pair(name, doc, photos, mode) for mode in ("setup", "none")]
    given, read = rows
    assert given["outcome"] == "exact" and given["checks"]["placed"] and given["checks"]["symbol_scores"]
    # without the players' token values the numerals (3-5 px tall) cannot be read: doubt, never a silent answer
    assert read["outcome"] in ("exact", "doubt")
    for r in rows:
        for photo in ("before", "after"):
            assert r[photo]["cells"] > 200 and r[photo]["cells_wrong"] == 0
            assert r[photo]["symbol_wrong"] == 0 and r[photo]["side_wrong"] == 0 and r[photo]["value_wrong"] == 0
    s = summarise(rows)
    assert s["setup"]["outcomes"]["exact"] == 1 and s["setup"]["outcomes"]["WRONG"] == 0
    assert s["none"]["outcomes"]["WRONG"] == 0


def test_a_wrong_truth_is_a_silent_wrong_not_exact():
    ((name, doc, photos),) = list(synth_items(2, 3, hard=False))
    doc = dict(doc)
    doc["expected"] = {"flagged": False, "mover": doc["context"]["mover"], "placed": [{"qr": [0, 0]}, {"qr": [1, 0]}],
                       "move_points": {"orange": 0, "blue": 0, "green": 0, "purple": 0},
                       "symbol_scores": {p: {"orange": 0, "blue": 0, "green": 0, "purple": 0}
                                         for p in doc["context"]["players"]},
                       "scored_towers": [], "large_bonus": 0, "bonus_cells": 0, "towers": [], "ranking": [],
                       "scores": {}}
    r = judge_pair(name, doc, photos, "setup")
    assert r["outcome"] == "WRONG" and not r["checks"]["placed"]


def test_synthetic_pairs_delivered_by_the_device_asked():
    """``--synth`` with ``--device``: each photo as the simulated device delivers it, seeded by its name (the same
    pair and seed give the same photos, another seed others)."""
    import numpy as np

    ((_, _, rendered),) = list(synth_items(2, 3, hard=False))
    ((_, _, webcam),) = list(synth_items(2, 3, hard=False, device="webcam", seed=0))
    ((_, _, again),) = list(synth_items(2, 3, hard=False, device="webcam", seed=0))
    ((_, _, other),) = list(synth_items(2, 3, hard=False, device="webcam", seed=1))
    assert all(w.shape[:2] != r.shape[:2] or not np.array_equal(w, r) for w, r in zip(webcam, rendered, strict=True))
    assert all(np.array_equal(w, a) for w, a in zip(webcam, again, strict=True))
    assert not all(np.array_equal(w, o) for w, o in zip(webcam, other, strict=True))
