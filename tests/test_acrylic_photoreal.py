"""Carrotain challenge boards that the matcher missed or fitted as the wrong shape on photoreal photos (issue 10).

The photos are car_tune renders (``tests/data/photoreal_carrotain``, the kit's truth files unchanged), each judged
wrong before the fix its test names: a regression guard at the mechanism, not an accuracy figure.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from shapely.geometry import Polygon

from calibration.markers import MarkerLayout
from components import load_components
from judge.images import load_image
from judge.pipeline import make_frame
from tests.carrotain_photoreal import ITEMS, judge_exact
from tools.eval_photoreal import photo_as_delivered
from vision.acrylic import (
    AcrylicConfig,
    BoardFit,
    _acceptable,
    _print_clusters,
    _print_strokes,
    find_boards,
    for_photo,
    loose_acceptance,
)
from vision.carrotain import CarrotainVisionConfig, board_evidence, board_outlines, recognise, recognise_warm
from vision.carrotain_view import colour_reference


def _fits_and_truth(name: str):
    """``find_boards`` on one fix photo, and its truth boards."""
    item = ITEMS[name]
    comp = load_components()
    layout = MarkerLayout.from_components(comp)
    img = load_image(item.images[0])
    cal = make_frame(img, layout=layout).calibration
    config = CarrotainVisionConfig()
    ev = board_evidence(img, cal, colour_reference(cal, img, layout), config, layout)
    fits = find_boards(ev.ratio, ev.origin_mm, ev.mm_per_px, board_outlines(comp), config.boards, ev.bottom_shift,
                       ev.line, ev.printed)
    return fits, item.doc["scene"]["boards"]


def _matched(fits, board: dict):
    """The fit overlapping a truth board most, with its intersection over union."""
    truth = Polygon(board["outline_mm"])
    ious = [truth.intersection(Polygon(f.outline_mm)).area / truth.union(Polygon(f.outline_mm)).area for f in fits]
    i = int(np.argmax(ious))
    return fits[i], ious[i]


def test_challenge_boards_are_fitted_as_their_own_shapes_not_neighbours_at_the_edge_of_acceptance():
    """c02: challenge boards D (mirrored) and F were fitted as G and B (chamfer 2.45-2.48 mm, just inside the
    2.5 mm acceptance; a false stacking flag and a contested verdict followed). Candidates are now ranked by their
    chamfer as they stand, and a loose fit is searched again by the exhaustive grid: both boards are their own
    shapes, fitted close, and the clear verdict is exact. (Since the per-point outline uncertainty, carunc6, the
    success is contested, honestly: the chip nearest an edge reads 2.7 mm inside where it lies 5.9 mm inside, the
    fitted outline 3 mm off there, within 2 sigma of the pose covariance at that point; no stacking flag.)"""
    fits, truth = _fits_and_truth("carrotain_s430000_c02")
    for board in (b for b in truth if b["role"] == "challenge"):
        fit, iou = _matched(fits, board)
        assert (fit.id, fit.mirrored) == (board["id"], board["mirrored"])
        assert iou > 0.9 and fit.chamfer_mm < 2.0
    out, exp, _ = judge_exact("carrotain_s430000_c02")
    assert out["verdict"] == exp["verdict"] and "stacked_boards" not in {f["code"] for f in out["flags"]}


def test_a_long_board_whose_print_joins_into_one_long_stroke_is_found():
    """c06: board G is 239 mm long; its constellation's lines join into one stroke over 170 mm long, dropped as a
    straight line (the mat's edge) would be, so no print seeded the search there and the board was not found
    (exit 3). A long stroke is dropped only when it runs straight: the board is found and the verdict exact."""
    fits, truth = _fits_and_truth("carrotain_s430000_c06")
    g = next(b for b in truth if b["id"] == "G")
    fit, iou = _matched(fits, g)
    assert (fit.id, fit.mirrored) == ("G", g["mirrored"]) and iou > 0.9
    judge_exact("carrotain_s430000_c06")


def test_only_straight_long_strokes_are_dropped_from_the_print():
    """A 200 mm zig-zag (a constellation's joined lines) stays print; a 200 mm straight line (the mat's edge, a
    ruler) does not, at any angle."""
    config = AcrylicConfig()
    zigzag = np.zeros((300, 300), np.uint8)
    pts = np.array([[40, 40], [90, 120], [140, 60], [200, 230], [240, 150]], np.int32)
    cv2.polylines(zigzag, [pts], False, 1, 2)
    clusters = _print_clusters(zigzag, 1.0, config)
    assert len(clusters) == 1 and len(clusters[0]) == int(zigzag.sum())
    for angle in (0.0, 30.0, 90.0):
        line = np.zeros((300, 300), np.uint8)
        c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
        cv2.line(line, (int(150 - 100 * c), int(150 - 100 * s)), (int(150 + 100 * c), int(150 + 100 * s)), 1, 2)
        assert _print_clusters(line, 1.0, config) == []


def test_for_photo_grows_the_edge_step_with_the_photos_pixel_only_where_they_are_coarse():
    """A sharp photo (under 1 mm a pixel on the boards) keeps the configured edge lengths; a 704x528 browser frame
    (1.3-1.7 mm a pixel) gets a step across the outline spanning ``edge_px_factor`` of its pixels, and the Newton
    probe and the edge-line smoothing grow in proportion."""
    config = AcrylicConfig()
    assert for_photo(config, 0.7) is config and for_photo(config, 0.0) is config
    coarse = for_photo(config, 1.6)
    assert coarse.contrast_offset_mm == pytest.approx(config.edge_px_factor * 1.6, abs=config.edge_scale_quantum_mm)
    scale = coarse.contrast_offset_mm / config.contrast_offset_mm
    assert coarse.refine_newton_step_mm == pytest.approx(config.refine_newton_step_mm * scale)
    assert coarse.line_blur_mm == pytest.approx(config.line_blur_mm * scale)
    back = replace(coarse, contrast_offset_mm=config.contrast_offset_mm,
                   refine_newton_step_mm=config.refine_newton_step_mm, line_blur_mm=config.line_blur_mm)
    assert back == config


def test_a_challenge_board_is_found_at_a_browser_cameras_resolution():
    """c02 at 704x528 (``tools/device_sim.py`` browser): a photo pixel is about 1.5 mm on the boards, so a board's
    edge is blurred over 3 mm of the top view, as wide as the fixed 3 mm step across the outline: challenge board D
    (mirrored) was not found (exit 3, "found 1 of the 2 challenge boards"). The step now follows the photo's own
    pixel (``vision.acrylic.for_photo``): both challenge boards are fitted as their own shapes."""
    item = ITEMS["carrotain_s430000_c02"]
    img = photo_as_delivered(item.images[0], "browser", 0)
    cal = make_frame(img, layout=MarkerLayout.from_components(load_components())).calibration
    state = recognise(img, cal)
    for board in (b for b in item.doc["scene"]["boards"] if b["role"] == "challenge"):
        truth = Polygon(board["outline_mm"])
        fitted = [b for b in state.boards if b.id == board["id"]]
        assert fitted, f"board {board['id']} not found"
        iou = truth.intersection(Polygon(fitted[0].outline_mm)).area / truth.union(Polygon(fitted[0].outline_mm)).area
        assert iou > 0.9 and fitted[0].role == "challenge"


def test_a_challenge_board_with_a_glare_spot_on_it_is_found():
    """car_tune2 c02 as rendered: a glare spot about 40 mm across lies on challenge board B near its edge, reading up
    to 5x the mat - wider than the bright-piece kernel, so not painted out. A few outline samples across it turned
    B's mean step negative (median +0.23, mean -0.10): B was matched as a lighter board and lost, exit 3 ("found 1
    of the 2 challenge boards"). Glare (over ``glare_ratio`` x the bare mat) is now painted out of the dimming ratio:
    B is fitted as its own shape over the chips, and the clear verdict is exact."""
    _assert_challenge_board_fitted("carrotain_s471000_c02", "none", "B")
    judge_exact("carrotain_s471000_c02")


def _assert_challenge_board_fitted(name: str, device: str, board_id: str) -> None:
    """On the fix photo ``name`` as ``device`` delivers it (seed 0), the truth's challenge board ``board_id`` is read
    as its own shape (intersection over union > 0.9) and as a challenge board."""
    item = ITEMS[name]
    img = photo_as_delivered(item.images[0], device, 0) if device != "none" else load_image(item.images[0])
    cal = make_frame(img, layout=MarkerLayout.from_components(load_components())).calibration
    state = recognise(img, cal)
    board = next(b for b in item.doc["scene"]["boards"] if b["id"] == board_id)
    assert board["role"] == "challenge"
    fitted = [b for b in state.boards if b.id == board_id]
    assert fitted, f"board {board_id} not found"
    truth = Polygon(board["outline_mm"])
    iou = truth.intersection(Polygon(fitted[0].outline_mm)).area / truth.union(Polygon(fitted[0].outline_mm)).area
    assert iou > 0.9 and fitted[0].role == "challenge"


def _tophat_with_a_line(peak: float, faint: float, peak_half_mm: int = 4, noise: float = 0.0) -> np.ndarray:
    """A 200 x 200 top-hat map (1 mm/px): a 120 mm line, bright (``peak``) within ``peak_half_mm`` of its middle and
    ``faint`` elsewhere, and a separate 40 mm line that is faint all along; Gaussian noise of ``noise``."""
    th = np.random.default_rng(0).normal(0.0, noise, (200, 200)).astype(np.float32)
    cv2.line(th, (40, 60), (160, 60), float(faint), 1)
    cv2.line(th, (100 - peak_half_mm, 60), (100 + peak_half_mm, 60), float(peak), 1)
    cv2.line(th, (40, 140), (80, 140), float(faint), 1)
    return th


def test_a_print_stroke_is_traced_where_it_runs_on_faintly():
    """A constellation line that a webcam blurs and dims rises over the print threshold (``print_fraction`` of
    white - mat) along a short part only: that part alone is shorter than ``print_min_length_mm`` and was dropped, so
    the board got no print seed. Traced on down to ``print_weak_fraction``, the whole line is print; a faint line
    that nowhere reaches the print threshold is not; over a texture as strong as a phone's sharpening makes it
    (noise 0.05 here) the weak threshold rises with it (``print_noise_sigmas``) and the noise stays out."""
    config = AcrylicConfig()
    mat = 0.1  # white - mat = 0.9: strong threshold 0.225, weak 0.108
    th = _tophat_with_a_line(peak=0.3, faint=0.15)
    printed = _print_strokes(th, mat, 1.0, config)
    assert printed[60, 40:161].all() and not printed[140].any()
    strong_only = replace(config, print_weak_fraction=config.print_fraction)
    assert not _print_strokes(th, mat, 1.0, strong_only).any()
    noisy = _tophat_with_a_line(peak=0.6, faint=0.15, peak_half_mm=20, noise=0.05)
    kept = _print_strokes(noisy, mat, 1.0, config)
    assert kept[60, 80:121].all() and kept.sum() < 50


def test_a_challenge_board_whose_print_a_webcam_dims_is_found():
    """dev_3 as a dim webcam delivers it (``tools/device_sim.py``, seed 0): challenge board C dims the mat no more
    than the uneven light does (no dimming blob on it: the blob seeds went to the light), and its constellation's
    lines rose over the print threshold in pieces too short to make a print cluster: no seed lay on it, and the
    photo was exit 3 ("found 1 of the 2 challenge boards"). With the print traced on by hysteresis (``_print_strokes``)
    its print seeds the search: C is fitted as its own shape over the chips, and the clear verdict is exact."""
    _assert_challenge_board_fitted("carrotain_dev_3", "webcam", "C")
    judge_exact("carrotain_dev_3", "webcam")


def test_a_challenge_board_whose_edges_lie_under_a_webcams_noise_is_read_loosely_not_declined():
    """c11 as a dim webcam delivers it (seed 0): challenge board C lies under the chips, its edges under the
    noise; its best fit (right shape, within 3 mm of the truth) steps only loosely along the edges (chamfer 2.5-2.7 mm,
    over ``max_chamfer_mm``), so no fit was acceptable and the photo was exit 3 ("found 1 of the 2 challenge boards").
    Where the chip field still needs a board, a loose fit (``loose_acceptance``) is read with its outline uncertain by
    its chamfer: C is read over the chips, uncertain by over 2 mm, marked loose and named so in the judgement (a
    notice), and the clear verdict is exact."""
    item = ITEMS["carrotain_s100000_c11"]
    img = photo_as_delivered(item.images[0], "webcam", 0)
    cal = make_frame(img, layout=MarkerLayout.from_components(load_components())).calibration
    state = recognise(img, cal)
    board = next(b for b in item.doc["scene"]["boards"] if b["id"] == "C")
    fitted = [b for b in state.boards if b.id == "C"]
    assert fitted and fitted[0].role == "challenge"
    truth, got = Polygon(board["outline_mm"]), Polygon(fitted[0].outline_mm)
    assert truth.intersection(got).area / truth.union(got).area > 0.9
    assert fitted[0].pose_sigma_mm > 2.0
    assert fitted[0].loose and [b.id for b in state.boards if b.loose] == ["C"]  # the reading says it was loose
    out, _, _ = judge_exact("carrotain_s100000_c11", "webcam")
    (notice,) = [f for f in out["flags"] if f["code"] == "loose_board"]  # and the judgement names it
    assert notice["boards"] == ["C"] and notice["sigma_mm"][0] > 2.0


def test_a_loose_board_reads_loose_alike_cold_warm_and_refitted():
    """c11 as a webcam delivers it (seed 0), read as live video reads it: the cold read, a warm read of the same frame
    (the still-scene checks hold: the carried readings), and a warm read whose carry cannot be checked (its boards
    re-fitted, the loose one searched afresh) give the same state, C marked loose in each."""
    img = photo_as_delivered(ITEMS["carrotain_s100000_c11"].images[0], "webcam", 0)
    cal = make_frame(img, layout=MarkerLayout.from_components(load_components())).calibration
    cold, carry = recognise_warm(img, cal, None)
    still, _ = recognise_warm(img, cal, carry)
    refitted, _ = recognise_warm(img, cal, replace(carry, probe=None))
    assert [b.id for b in cold.boards if b.loose] == ["C"]
    assert still.to_json() == cold.to_json() == refitted.to_json()


def test_loose_acceptance_takes_a_fit_the_strict_one_declines():
    """A fit 2.7 mm from the edges on average, its outline stepping by 0.06: over ``max_chamfer_mm`` and under
    ``min_accept_contrast``, no region evidence - declined; acceptable as a loose board (chamfer up to
    ``refine_max_chamfer_mm``, step from ``min_contrast``), which declines a fit looser still."""
    config = AcrylicConfig()
    fit = BoardFit("C", False, (0.0, 0.0), 0.0, np.zeros((4, 2)), contrast=0.06, fit_residual_mm=2.0,
                   pose_sigma_mm=1.0, edge_support=0.6, chamfer_mm=2.7)
    assert not _acceptable(fit, config)
    assert _acceptable(fit, loose_acceptance(config))
    assert not _acceptable(replace(fit, chamfer_mm=3.0), loose_acceptance(config))
    assert not _acceptable(replace(fit, contrast=0.04), loose_acceptance(config))


def test_a_carried_loose_board_is_searched_again_not_refitted(monkeypatch):
    """A warm read re-fits the carried boards by the strict acceptance (``refit_boards``), which a loose board fails
    or - where the noise lets it pass - would read with a tighter outline than the cold read of the same frame: a
    carry holding a loose board sends the frame to the fresh search (the warm read equals the cold one), without a
    refit; a carry of acceptable fits is refitted."""
    import vision.carrotain as car

    refits: list = []
    monkeypatch.setattr(car, "refit_boards", lambda fits, *a, **k: refits.append(fits))
    ev = car.BoardEvidence(np.ones((50, 50), np.float32), np.zeros((50, 50), np.float32),
                           np.zeros((50, 50), np.uint8), (0.0, 0.0), 1.0)
    square = np.array([[10.0, 10.0], [40.0, 10.0], [40.0, 40.0], [10.0, 40.0]])
    fit = BoardFit("C", False, (25.0, 25.0), 0.0, square, contrast=0.06, fit_residual_mm=2.0, pose_sigma_mm=1.0,
                   edge_support=0.6, chamfer_mm=2.7)
    config, comp = CarrotainVisionConfig(), load_components()
    assert car._boards_from_evidence(ev, None, [], config, comp, (replace(fit, loose=True),)) == (None, ())
    assert not refits
    assert car._boards_from_evidence(ev, None, [], config, comp, (fit,)) == (None, ())
    assert len(refits) == 1


def test_the_loose_search_judges_the_strict_searchs_poses_again_instead_of_searching_again(monkeypatch):
    """c11 as a webcam delivers it (seed 0) needs the loose search after the strict fallback search, over the same
    areas: the loose one takes the poses the strict one refined around each seed (``GridRefits``) - no seed is
    searched twice - and reads the same state as searching every seed afresh."""
    import vision.acrylic as acrylic

    img = photo_as_delivered(ITEMS["carrotain_s100000_c11"].images[0], "webcam", 0)
    cal = make_frame(img, layout=MarkerLayout.from_components(load_components())).calibration
    searched: list[tuple[float, float]] = []
    grid_refined = acrylic._grid_refined

    def counted(seed, *args):
        searched.append((float(seed[0]), float(seed[1])))
        return grid_refined(seed, *args)

    monkeypatch.setattr(acrylic, "_grid_refined", counted)
    reused = recognise(img, cal)
    assert [b.id for b in reused.boards if b.loose] == ["C"]  # the loose search ran
    assert searched and len(set(searched)) == len(searched)
    n_reused = len(searched)
    monkeypatch.setattr(acrylic.GridRefits, "get", lambda self, seed, search: search(seed))  # every seed afresh
    afresh = recognise(img, cal)
    assert len(searched) - n_reused > n_reused  # the strict search's seeds were searched again
    assert afresh.to_json() == reused.to_json()
