"""Genial Spezial tokens found by their symbols (issue 15, ``vision.genial_token_centre``): a board pose a few
millimetres off is corrected for the numeral search by what most tokens agree on; a stray find is not trusted."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from judge.pipeline import make_frame
from scoring.genial import Placement
from synth.genial import render_pair
from vision.genial import GenialVisionConfig, marker_layout, read_photo, token_centres_mm
from vision.genial_token_centre import TokenCentreConfig, corrected_centres
from vision.view import TableView

from .test_genial_vision import BOARD


def _grid() -> np.ndarray:
    g = np.arange(-2, 3) * 60.0
    return np.array([(350.0 + x, 280.0 + y) for x in g for y in g[:4]])    # 20 towers over 240 x 180 mm


def test_the_tokens_agreeing_on_one_map_correct_the_pose_and_a_stray_find_is_dropped():
    """The pose is turned 1 degree and shifted 2 mm: the finds lie up to 5 mm from where it expects them. Three
    finds are strays (a tile's edge, 9 mm off). The corrected centres lie within the finds' own noise of the truth."""
    expected = _grid()
    a = np.radians(1.0)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    truth = (expected - [350.0, 280.0]) @ turn.T + [352.0, 280.0]
    rng = np.random.default_rng(3)
    found = truth + rng.normal(0.0, 0.3, truth.shape)
    found[[2, 7, 11]] += [9.0, -6.0]
    contrast = np.full(len(found), 60.0)
    out = corrected_centres(expected, found, contrast)
    assert out is not None
    assert np.max(np.linalg.norm(expected - truth, axis=1)) > 4.0
    assert np.max(np.linalg.norm(out - truth, axis=1)) < 0.5
    # too few tokens found (a dim webcam: most rings below the contrast), or too few agreeing: no correction
    faint = np.where(np.arange(len(found)) < 8, 60.0, 3.0)
    assert corrected_centres(expected, found, faint) is None
    scattered = expected + rng.uniform(-9.0, 9.0, expected.shape)
    assert corrected_centres(expected, scattered, contrast) is None


def test_a_board_pose_turned_off_is_corrected_on_a_render():
    """A fast render read as usual, then its board pose turned 0.8 degrees about the board's centre (the far towers
    3-4 mm off, beyond the numeral search's 2 mm reach when a token lies off its tower's centre too): the tokens'
    symbols bring every centre back within 1.5 mm of the pose read."""
    images, truth = render_pair(4)
    sc = truth["scene"]
    frame = make_frame(images[0], "before", None, marker_layout())
    expected = {c: sc["players"][m.player] for m in map(Placement.from_json, sc["moves_before"]) for c in m.cells}
    photo = read_photo(images[0], frame.calibration, BOARD, len(sc["players"]), expected)
    config = GenialVisionConfig()
    tokens = {t.qr: (t.size, t.symbol) for t in photo.towers}
    cells = sorted(tokens)
    right = photo.pose.cell_centres_mm(np.array(cells, dtype=np.float64))
    off = replace(photo.pose, rotation_deg=photo.pose.rotation_deg + 0.8)
    wrong = off.cell_centres_mm(np.array(cells, dtype=np.float64))
    assert np.max(np.linalg.norm(wrong - right, axis=1)) > 3.0
    view = TableView(images[0], frame.calibration)
    got = token_centres_mm(view, off, tokens, config)
    assert np.max(np.linalg.norm(np.array([got[c] for c in cells]) - right, axis=1)) < 1.5
    # with a correction that needs more tokens than the photo has, the pose's centres stay as they are
    strict = replace(config, token_centre=TokenCentreConfig(min_inliers=len(cells) + 1))
    kept = token_centres_mm(view, off, tokens, strict)
    assert np.allclose(np.array([kept[c] for c in cells]), wrong)
