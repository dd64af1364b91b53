"""Carrotain challenge boards that the matcher missed or fitted as the wrong shape on photoreal photos (issue 10).

The photos are car_tune renders (``tests/data/photoreal_carrotain``, the kit's truth files unchanged), each judged
wrong before the fix its test names: a regression guard at the mechanism, not an accuracy figure.
"""

from __future__ import annotations

import cv2
import numpy as np
from shapely.geometry import Polygon

from calibration.markers import MarkerLayout
from components import load_components
from judge.images import load_image
from judge.pipeline import make_frame
from tests.carrotain_photoreal import ITEMS, judge_exact
from vision.acrylic import AcrylicConfig, _print_clusters, find_boards
from vision.carrotain import CarrotainVisionConfig, board_evidence, board_outlines
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
