"""tools/eval_ingenious.py: each pair's outcome (exact / doubt / cannot / WRONG / error) and the summary it
reports, on a seeded synthetic pair judged by the real pipeline."""

from __future__ import annotations

from tools import eval_ingenious as ev


def test_outcomes_keep_honest_doubt_apart_from_silent_wrong():
    doubt = {"flags": [{"code": "uncertain_cells"}]}
    notice = {"flags": [{"code": "calibration_warning"}]}
    assert ev.outcome(False, notice, None, False, True) == "exact"
    assert ev.outcome(False, doubt, None, False, False) == "doubt"
    assert ev.outcome(False, notice, None, False, False) == "WRONG"  # a notice is no doubt
    assert ev.outcome(False, {"flags": [], "contested": True}, None, False, False) == "doubt"
    assert ev.outcome(True, None, "no placement", True, False) == "exact"  # an impossible pair refused
    assert ev.outcome(False, None, "no board", True, False) == "cannot"
    assert ev.outcome(False, None, "bad context", False, False) == "error"


def test_a_synthetic_pair_is_scored_with_its_cells_and_cpu_time():
    s = ev.evaluate(ev.synth_items(3, 4))
    assert s["pairs"] == 1 and s["outcomes"]["exact"] == 1 and s["outcomes"]["WRONG"] == 0
    assert s["cells"] > 100 and s["cells_wrong"] == 0
    assert 0 < s["after_photo_cpu_ms_p50"] < 1000
