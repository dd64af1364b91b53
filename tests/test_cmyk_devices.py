"""CMYK! reading as devices deliver photos: the reader calibrates itself on each photo (issue 10).

- The mark templates take the photo's blur measured at the markers' step edges (``vision.cmyk_sharpness``), not
  an assumed pixel: a webcam blurs more, a 704x528 browser frame less than assumed.
- The ground colour's levels are corrected by a gain per ink through level 0 (``cmyk_read.calibrate_ground``):
  a phone's saturation boost or a dim webcam's tone curve scales the tints while a white ground stays white.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.table import calibrate_from_markers
from synth.samples.cmyk import render_scene
from vision import cmyk_read as rd
from vision.cmyk_sharpness import marker_blur_px


@pytest.fixture(scope="module")
def photo():
    image, _, _ = render_scene(3)
    return image, calibrate_from_markers(image)


def test_marker_blur_measures_the_photos_blur(photo):
    """A Gaussian blur of known sigma adds (in quadrature) to what the markers' edges show (up to about a sixth
    of the black border's width: this render's markers are 0.77 px/mm, their 8 mm border 6 px wide)."""
    image, cal = photo
    sharp = marker_blur_px(image, cal)
    assert sharp is not None and 0.3 < sharp < 1.5
    for sigma in (0.7, 1.0, 1.5):
        blurred = cv2.GaussianBlur(image, (0, 0), sigma)
        got = marker_blur_px(blurred, cal)
        assert got is not None
        assert got == pytest.approx(np.hypot(sharp, sigma), rel=0.1)


def test_marker_blur_needs_markers(photo):
    image, _ = photo

    class NoMarkers:
        def mm_to_px(self, xy):
            return xy

    assert marker_blur_px(image, NoMarkers()) is None


def _evidence(levels_cmy: tuple[int, int, int], ground_cmy: np.ndarray, sure: bool) -> rd.TileEvidence:
    """One tile in rotation 1 (H cyan, P magenta, N yellow): marks clearly at its levels (``sure``) or flat."""
    ll = np.full((3, 7), -20.0)
    for d in range(3):
        ll[d, levels_cmy[d]] = 0.0 if sure else -19.0
    return rd.TileEvidence(rotation=1, rotation_confidence=1.0, ground_est=np.asarray(ground_cmy, float),
                           mark_ll=ll, mark_amp=np.ones((3, 6)))


def test_ground_calibration_is_a_gain_through_level_zero():
    """A phone's saturation boost reads every tint 1.3 times too strong: levels 2..5, read surely by their marks,
    give the gain, and the white ground (level 0) and a level-1 tint stay where they are once corrected; an offset
    learnt on the higher levels would push level 0 below 0 and level 1 to 0 (photoreal dev phone: magenta 1 read
    as 0 was most of the phone's misreads)."""
    gain_true = np.array([1.3, 1.3, 0.8])
    sure = [(2, 3, 4), (3, 2, 5), (4, 2, 2), (5, 3, 3), (2, 4, 2), (3, 5, 4)]
    ev = [_evidence(t, gain_true * np.array(t), True) for t in sure]
    gain, sigma, n = rd.calibrate_ground(ev)
    assert n == 3 * len(sure)
    assert gain == pytest.approx(gain_true, abs=0.02)
    assert sigma == rd.ReadConfig().ground_sigma_min
    for level in (0, 1):
        raw = gain_true * level
        assert raw / gain == pytest.approx([level] * 3, abs=0.05)


def test_ground_calibration_needs_sure_marks():
    """Marks too unsure to witness any level: no correction (gain 1) and the configured spread."""
    ev = [_evidence((2, 3, 4), np.array([3.0, 4.0, 5.0]), False) for _ in range(6)]
    gain, sigma, n = rd.calibrate_ground(ev)
    assert n == 0 and gain.tolist() == [1.0, 1.0, 1.0] and sigma == rd.ReadConfig().ground_sigma_levels


def test_mark_weight_falls_where_the_ground_contradicts_sure_marks():
    """Marks that agree with the ground colours keep their weight; marks read surely but a level off on most
    edges (a webcam's blur and JPEG) lose it, so the readings' confidences fall (``vision.cmyk._confidence_scores``:
    a confident misread becomes a doubtful one)."""
    rng = np.random.default_rng(5)
    levels = [tuple(int(v) for v in rng.integers(0, 4, 3)) for _ in range(12)]
    agree = [_evidence(t, np.array(t, float), True) for t in levels]
    w, n = rd.mark_weight(agree)
    assert n == 36 and w == 1.0
    # marks surely one level up on two edges in three: witnesses of the ground's level contradict them
    shifted = [_evidence(tuple(min(v + (k % 3 != 0), 5) for k, v in enumerate(t)), np.array(t, float), True)
               for t in levels]
    w_shifted, _ = rd.mark_weight(shifted)
    assert w_shifted <= 0.35
    # too few witnesses (grounds between levels): the marks keep their weight
    vague = [_evidence(t, np.array(t, float) + 0.5, True) for t in levels]
    assert rd.mark_weight(vague) == (1.0, 0)


def test_marks_and_ground_that_contradict_make_no_level_sure():
    """Marks sure of level 1 on the cyan edge while the ground colour says 2 (a webcam's one confident +-1
    misread, photoreal dev cmyk_dev_3): the robust combination leaves no cyan level sure; where they agree the
    level stays sure."""
    agree = _evidence((1, 2, 3), np.array([1.0, 2.0, 3.0]), True)
    clash = _evidence((1, 2, 3), np.array([2.0, 2.0, 3.0]), True)
    ll = rd.robust_level_loglik([agree, clash], ground_sigma=0.3, outlier=0.05)
    assert ll.shape == (2, 3, 6)
    sure = rd.posterior(ll[0, 0])
    torn = rd.posterior(ll[1, 0])
    assert sure.argmax() == 1 and sure.max() > 0.95
    assert torn.max() < 0.7 and set(np.argsort(torn)[-2:]) == {1, 2}


def _streaked_dot_tile(blur_mm: float, streak_mm: float, ground_cyan: float) -> rd.TileEvidence:
    """A tile whose cyan edge shows one dot (level 1) smeared along the band by ``streak_mm`` of motion blur (a
    webcam's streak, which the markers' median step width does not show), read with templates at ``blur_mm``; its
    magenta and yellow edges read surely, its cyan ground at ``ground_cyan``."""
    s = np.arange(-15, 15.001, 0.25)
    templates, _ = rd.mark_templates(s, blur_mm)
    dot = templates[1, templates.shape[1] // 2]
    if streak_mm:
        line = np.ones(int(round(streak_mm / 0.25)) + 1)
        dot = np.convolve(dot, line / line.sum(), mode="same")
    profile = 0.3 * dot + np.random.default_rng(0).normal(0.0, 0.03, len(s))
    raw, _ = rd.mark_loglik(profile[None], templates)
    resolved, _ = rd.mark_loglik(profile[None], templates, resolved=True)
    sure = np.full((2, 7), -20.0)
    sure[:, 2] = 0.0
    ev = _evidence((1, 2, 2), np.array([ground_cyan, 2.0, 2.0]), True)
    return replace(ev, mark_ll=np.concatenate([raw, sure]), mark_ll_resolved=np.concatenate([resolved, sure]))


def test_marks_the_blur_cannot_resolve_leave_the_level_to_the_ground():
    """Issue 10 (the webcam's undoubted misreads, photoreal dev set under the webcam simulation: a single dot
    streaked by motion blur reads as the dash): where the two templates' difference at the photo's blur is below
    the band's noise, the marks say nothing between level 0 and 1, so a ground halfway between them leaves the
    level doubtful; the same marks taken as they fit (the old reading) make the wrong level 0 sure."""
    streaked = _streaked_dot_tile(blur_mm=1.5, streak_mm=6.0, ground_cyan=0.5)
    assert streaked.mark_ll[0, 0] - streaked.mark_ll[0, 1] > 2.0  # the fit prefers the dash
    assert streaked.mark_ll_resolved is not None
    assert streaked.mark_ll_resolved[0, 0] == streaked.mark_ll_resolved[0, 1]
    doubt = rd.posterior(rd.robust_level_loglik([streaked], 0.42, 0.05)[0, 0])
    old = rd.posterior(rd.robust_level_loglik([replace(streaked, mark_ll_resolved=None)], 0.42, 0.05)[0, 0])
    line = 0.6  # vision.cmyk's min_tile_confidence: a reading below it is flagged doubtful
    assert old.argmax() == 0 and old.max() > line
    assert doubt.max() < line and set(np.argsort(doubt)[-2:]) == {0, 1}
    # the ground still decides where it can
    assert rd.posterior(rd.robust_level_loglik([replace(streaked, ground_est=np.array([1.0, 2.0, 2.0]))],
                                               0.42, 0.05)[0, 0]).argmax() == 1


def test_marks_the_photo_resolves_keep_their_evidence():
    """A sharp single dot: the templates of level 0 and 1 differ far beyond the noise, so the marks keep telling
    level 1 even against a ground halfway between."""
    sharp = _streaked_dot_tile(blur_mm=0.3, streak_mm=0.0, ground_cyan=0.5)
    assert sharp.mark_ll_resolved is not None
    np.testing.assert_allclose(sharp.mark_ll_resolved[0, :2], sharp.mark_ll[0, :2], atol=0.5)
    p = rd.posterior(rd.robust_level_loglik([sharp], 0.42, 0.05)[0, 0])
    assert p.argmax() == 1 and p.max() > 0.9


def test_template_separation_falls_with_blur():
    """A single dot and the dash differ less the more the photo blurs them (and never more than a dot's energy)."""
    s = np.arange(-15, 15.001, 0.25)
    seps = [rd.template_separation(rd.mark_templates(s, b)[0], 1, 0) for b in (0.3, 1.0, 2.0, 3.0)]
    assert all(a > b for a, b in zip(seps, seps[1:], strict=False))
    assert seps[-1] < 0.1 * seps[0]


def test_a_neighbour_witnesses_a_contact_only_as_surely_as_it_reads_it():
    """Two touching tiles (cells (0, 0) and its H neighbour), both in rotation 1 (H edge cyan). A neighbour sure of
    its cyan level 1 lends the full contact weight to the columns with cyan 1 (as ``contact_bonus``); one torn
    between 0 and 1 (its marks unresolved, its ground halfway: the webcam's case) favours neither; one read as K
    witnesses nothing."""
    from geometry import trilattice as tl

    cells = [(0, 0), tl.neighbour(0, 0, "H")]
    columns = [*rd.tile_types(), "k", "k"]
    cyan = np.array([c[0] if c != "k" else -1 for c in columns])

    def bonus(neighbour_cyan: np.ndarray) -> np.ndarray:
        post = np.full((2, 3, 6), 1 / 6)
        post[1, 0] = neighbour_cyan
        return rd.witnessed_contact_bonus(cells, [1, 1], post, columns, 2.0, lambda c, d: tl.neighbour(*c, d))[0]

    sure = bonus(np.eye(6)[1])
    assert np.all(sure[cyan == 1] == 2.0) and np.all(sure[(cyan != 1) & (cyan >= 0)] == 0.0)
    torn = bonus(np.array([0.5, 0.5, 0, 0, 0, 0]))
    assert np.all(torn[cyan == 0] == torn[cyan == 1][0]) and np.all(torn[cyan == 2] == 0.0)
    assert np.all(bonus(np.zeros(6)) == 0.0)
    assert np.all(sure[-2:] == 0.0)  # a K column has no levels to witness
