"""Stacked Carrotain boards: a board laid on another is a second sheet where the overlap is dimmed twice (issue 10).

The photo is a tune-set render (``tests/data/photoreal_carrotain``, see ``test_carrotain_photoreal_fixes.py``).
"""

from __future__ import annotations

import numpy as np
from shapely.geometry import Polygon

from tests.carrotain_photoreal import judge_exact
from vision.acrylic import AcrylicConfig, _doubly_dimmed, _Evidence


def test_a_board_laid_on_the_other_is_found_and_flagged_stacked():
    """s00: board A lies on board D. Its edges over D are too faint to show, so its fit was dropped as "the same
    board again", the unused board F became a challenge board and the verdict came out a contested failure. The
    overlap is dimmed as two sheets are: A is kept, the verdict is right and the stacking is flagged."""
    out, exp, checks = judge_exact("carrotain_s100000_s00")
    assert out["verdict"] == exp["verdict"] and out["not_hidden"] == exp["not_hidden"]
    assert checks["stack_flagged"]
    stacked = [set(f["boards"]) for f in out["flags"] if f["code"] == "stacked_boards"]
    assert {"A", "D"} in stacked


def test_a_board_laid_on_the_other_along_a_strip_is_kept():
    """car_tune s03: board A lies on board E, overlapping along a strip of about 350 mm^2 only; sampled every
    3 mm, the strip's doubled dimming had too few samples, A was dropped and the verdict read nh=7 with no
    stacking flag. Sampled at the maps' 1 mm: A kept, nh exact, stacking flagged."""
    out, exp, checks = judge_exact("carrotain_s430000_s03")
    assert out["verdict"] == exp["verdict"] and out["not_hidden"] == exp["not_hidden"]
    assert checks["stack_flagged"]
    assert "A" in {b["id"] for b in out["boards"]}


def _two_sheets(overlap_ratio: float, a_ratio: float = 0.98, b_ratio: float = 0.98):
    """A ratio map (1 mm/px) with two rectangles A, B overlapping in a 30 x 60 mm band."""
    ratio = np.ones((200, 300), np.float32)
    ratio[50:150, 40:140] = a_ratio  # A: x 40..140
    ratio[50:150, 110:210] = b_ratio  # B: x 110..210, overlap x 110..140
    ratio[50:150, 110:140] = overlap_ratio
    ratio += np.random.default_rng(3).normal(0.0, 0.004, ratio.shape).astype(np.float32)
    a = Polygon([(40, 50), (140, 50), (140, 150), (40, 150)])
    b = Polygon([(110, 50), (210, 50), (210, 150), (110, 150)])
    return _Evidence(ratio, None, (0.0, 0.0), 1.0, 1.0), a, b


def test_an_overlap_dimmed_as_two_sheets_is_a_second_sheet():
    cfg = AcrylicConfig()
    ev, a, b = _two_sheets(0.98 * 0.98)
    assert _doubly_dimmed(a, b, ev, cfg)
    # the overlap dimmed as one sheet (the same board fitted twice, or two fits of one region): not two sheets
    ev, a, b = _two_sheets(0.98)
    assert not _doubly_dimmed(a, b, ev, cfg)
    # one "board" is bare mat (a wrong fit hanging off a real board): not two sheets
    ev, a, b = _two_sheets(0.98, a_ratio=0.98, b_ratio=1.0)
    assert not _doubly_dimmed(a, b, ev, cfg)
