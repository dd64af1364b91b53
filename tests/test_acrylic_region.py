"""Region evidence of a board outline (issue 10): the dimming inside an outline against the bare mat just outside it,
on the dimming ratio smoothed at a coarser scale than the edges are matched on (``vision.acrylic.region_scores``).

Under a webcam's noise and blur the edges of a board lie under the noise (every shape refines to about the same
chamfer), while the dimming of a whole band along the outline still tells the right shape from the wrong ones.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from components import load_components
from tests.carrotain_photoreal import judge_exact
from vision.acrylic import (
    AcrylicConfig,
    BoardFit,
    _prepare_shapes,
    _rot,
    _suppress,
    _with_ambiguity,
    region_evidence,
    region_scores,
)
from vision.carrotain import board_outlines

OUTLINES = board_outlines(load_components())


def _noisy_board_map(shape, theta: float, at_mm: np.ndarray, seed: int = 0, size_px: int = 420):
    """A 1 mm/px dimming ratio with one board (``shape`` posed: its ``cen`` at ``at_mm``) dimming the mat to 0.88,
    its edges blurred over 2.5 mm and per-pixel noise of 0.08 (a dim webcam frame), NaN nowhere."""
    outline = np.asarray(shape.outline) @ _rot(np.array(theta)).T + (at_mm - _rot(np.array(theta)) @ shape.cen)
    mask = np.zeros((size_px, size_px), np.uint8)
    cv2.fillPoly(mask, [np.round(outline).astype(np.int32)], 1)
    ratio = 1.0 - 0.12 * cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 2.5)
    ratio += np.random.default_rng(seed).normal(0.0, 0.08, ratio.shape).astype(np.float32)
    return ratio.astype(np.float32)


def _best_near(reg, sh, centroid: np.ndarray, config: AcrylicConfig) -> float:
    """A shape's best region score with its outline's centroid within 16 mm of ``centroid``, every 5 deg."""
    g = np.arange(-16.0, 16.1, 4.0)
    off = np.array([(x, y) for y in g for x in g])
    cen_rel = np.asarray(sh.outline).mean(axis=0) - sh.cen
    thetas, centres = [], []
    for th in np.radians(np.arange(0.0, 360.0, 5.0)):
        thetas.append(np.full(len(off), th))
        centres.append(centroid - _rot(np.array(th)) @ cen_rel + off)
    return float(np.max(region_scores(reg, sh, np.concatenate(thetas), np.concatenate(centres), config)))


def test_the_right_shape_has_the_best_region_score_under_heavy_noise():
    """Boards E and C dimming a noisy mat: at the true pose the right shape's region score beats every other shape
    (and mirror image) at its best pose near it, by a margin well above the score's noise."""
    config = AcrylicConfig()
    shapes, _ = _prepare_shapes(OUTLINES, config)
    for bid, theta in (("E", 0.7), ("C", 2.2)):
        i = next(k for k, s in enumerate(shapes) if s.id == bid and not s.mirrored)
        at = np.array([210.0, 210.0])
        ratio = _noisy_board_map(shapes[i], theta, at)
        reg = region_evidence(ratio, (0.0, 0.0), 1.0, config)
        right = float(region_scores(reg, shapes[i], np.array([theta]), at[None], config)[0])
        centroid = np.asarray(shapes[i].outline).mean(axis=0) - shapes[i].cen
        centroid = at + _rot(np.array(theta)) @ centroid
        wrong = max(_best_near(reg, s, centroid, config) for k, s in enumerate(shapes) if k != i)
        assert right > 0.09, (bid, right)  # the 0.12 dimming, less the blur's share of the band
        assert right > wrong + 0.01, (bid, right, wrong)


def _fit(bid: str, chamfer: float, region: float, dx: float, support: float = 1.0, mirrored: bool = False
         ) -> BoardFit:
    square = np.array([[0.0, 0.0], [100.0, 0.0], [100.0, 100.0], [0.0, 100.0]]) + [dx, 0.0]
    return BoardFit(bid, mirrored, (dx, 0.0), 0.0, square, 0.1, 1.0, 1.0, 0.7, chamfer_mm=chamfer, region=region,
                    region_support=support)


def test_a_competing_fit_far_weaker_in_region_evidence_does_not_widen_the_sigma():
    """Two fits of the same region with chamfers 0.1 mm apart (edges under the noise): where the competitor's region
    evidence is far weaker (0.10 against 0.20), it is no competitor; where it is as strong, it still is; with the
    region weight 0 (the edges alone, as before) both are."""
    config = replace(AcrylicConfig(), region_weight_mm=10.0)
    best, weak, strong = _fit("G", 2.43, 0.20, 0.0), _fit("B", 2.41, 0.10, 8.0), _fit("C", 2.41, 0.19, 8.0)
    assert _with_ambiguity([best], [best, weak], config)[0].alternative_mm == 0.0
    assert _with_ambiguity([best], [best, strong], config)[0].alternative_mm > 3.0
    edges_only = replace(config, region_weight_mm=0.0)
    assert _with_ambiguity([best], [best, weak], edges_only)[0].alternative_mm > 3.0


def test_a_wrong_shape_stepping_along_half_its_outline_does_not_take_the_right_boards_id():
    """dev_2 as a 704x528 browser camera delivers it (``_suppress``'s fits, seed 0): unused board D fitted as C
    mirrored (chamfer 2.25 mm, region score 0.198, but its band steps along only 51 % of its outline) ranked before
    the true board C (chamfer 1.99, region 0.115, 80 % of its outline stepping) by the chamfer less 10 mm per unit of
    region score; it took the id C, the true C was dropped as C again, and the photo was exit 3. Counted over the
    outline where it steps, the region evidence ranks the true C first: it is kept, the wrong C is not."""
    config = AcrylicConfig()
    wrong = _fit("C", 2.25, 0.198, 300.0, support=0.51, mirrored=True)
    right = _fit("C", 1.99, 0.115, 0.0, support=0.80)
    assert _suppress([wrong, right], None, config) == [right]  # apart: no overlap to weigh (no evidence read)
    assert _suppress([wrong, right], None, replace(config, region_weight_mm=0.0)) == [right]


def test_region_evidence_accepts_a_loose_fit_only_on_a_noisy_photo():
    """A fit 2.7 mm from the edges (over ``max_chamfer_mm``) with strong region evidence stepping along its whole
    outline is accepted where the photo's dimming ratio is noisy (the edges lie under the noise, a dim webcam's
    0.04-0.14), not on a clean photo (0.01-0.033 as rendered), where a loose fit is a wrong shape: the region score is
    now measured on every fit (it ranks them), the acceptance still asks for the noise."""
    from vision.acrylic import _acceptable

    config = AcrylicConfig()
    loose = replace(_fit("B", 2.7, 0.15, 0.0, support=0.8), contrast=0.1)
    assert _acceptable(replace(loose, region_noise=0.06), config)
    assert not _acceptable(replace(loose, region_noise=0.02), config)


def test_car_tune2_b00_as_a_webcam_delivers_it_finds_both_challenge_boards():
    """car_tune2 b00 (``tests/data/photoreal_carrotain``) as a dim webcam delivers it (``tools/device_sim.py``, seed
    0): board B's outline follows its edges only loosely (every shape refines to a chamfer over
    ``max_chamfer_mm`` there: the edges lie under the noise) and it was not accepted - exit 3, "found 1 of the 2
    challenge boards". Its region evidence is strong (``region_accept_min``): it is found, and the borderline photo
    is judged contested, as the kit's rules want it."""
    out, _, _ = judge_exact("carrotain_s471000_b00", "webcam")
    assert out["contested"]
