"""The Genial Spezial test renderer: a before/after pair whose truth replays and whose markers are found."""

from __future__ import annotations

import numpy as np

from calibration.markers import detect_markers
from components import load_components
from scoring.genial import GameSetup, Placement, Tower
from scoring.genial_board import GenialBoard
from scoring.genial_judgement import GenialContext
from synth.genial import board_to_table, marker_layout, render_pair


def test_pair_renders_with_markers_and_a_replayable_truth():
    images, truth = render_pair(3)
    assert len(images) == 2 and images[0].shape == (960, 1280, 3)
    assert np.abs(images[0].astype(int) - images[1].astype(int)).max() > 60   # the new tile shows
    layout = marker_layout(load_components())
    for image in images:
        assert sorted(detect_markers(image, layout).ids.tolist()) == [0, 1, 2, 3]
    ctx = GenialContext.from_json(truth["context"])
    scene = truth["scene"]
    board = GenialBoard.from_components(load_components()["genial_spezial"])
    setup = GameSetup(scene["players"], tuple(Tower.from_json(t) for t in scene["towers"]))
    game = setup.replay(board, list(ctx.moves_before))
    assert game.why_not(Placement.from_json(scene["move"])) == ""


def test_board_frame_matches_the_components_formula():
    xy = board_to_table(np.array([[0, 0], [1, 0], [0, 1]]), np.array([350.0, 280.0]), 0.0, 24.0)
    assert np.allclose(xy, [[350, 280], [374, 280], [362, 280 + 12 * np.sqrt(3)]])
