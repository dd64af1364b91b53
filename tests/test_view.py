"""The frame/view service (``vision.view``): one sampler with declared border rules, px <-> mm at a height,
a top view at a chosen scale and height, colours normalised from the markers."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.markers import MarkerLayout
from calibration.table import calibrate_from_markers
from synth.carrotain import render_scene
from vision.view import TableView, rgb_to_lab, sample


def _exact_bilinear(img: np.ndarray, x: float, y: float) -> np.ndarray:
    x0, y0 = int(np.floor(x)), int(np.floor(y))
    fx, fy = x - x0, y - y0
    f = img.astype(float)
    return (f[y0, x0] * (1 - fx) * (1 - fy) + f[y0, x0 + 1] * fx * (1 - fy) + f[y0 + 1, x0] * (1 - fx) * fy
            + f[y0 + 1, x0 + 1] * fx * fy)


def test_sample_is_bilinear_with_declared_borders():
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (30, 40, 3)).astype(np.uint8)
    pts = np.array([[3.25, 7.5], [38.9, 28.1], [0.0, 0.0]])
    got = sample(img, pts)
    for p, g in zip(pts, got):
        assert np.allclose(g, _exact_bilinear(img, *p), atol=1e-9)
    outside = np.array([[-1.0, 5.0], [5.0, 29.5]])
    assert np.isnan(sample(img, outside, border="nan")).all()
    assert (sample(img, outside, border="zero") == 0).all()
    assert np.allclose(sample(img, outside, border="replicate")[0], img[5, 0])
    assert sample(img[..., 0], pts).shape == (3,)


@pytest.fixture(scope="module")
def view():
    img, _, _ = render_scene(5)
    return TableView(img, calibrate_from_markers(img))


def test_px_mm_round_trip_at_a_height_with_and_without_a_pose(view):
    xy = np.array([[120.0, 90.0], [300.0, 210.0], [450.0, 330.0]])
    for v in (view, replace(view, calibration=replace(view.calibration, camera=None))):
        for z in (0.0, 2.0, 20.0):
            assert np.allclose(v.px_to_mm(v.mm_to_px(xy, z), z), xy, atol=0.05)
    assert view.has_height_model
    assert not replace(view, calibration=replace(view.calibration, camera=None)).has_height_model


def test_colours_normalised_on_the_markers_and_top_view(view):
    layout = MarkerLayout.from_components()
    cx, cy = layout.centres_mm[0]
    half = layout.side_mm / 2
    tv = view.top_view((cx - half - 8, cy - half - 8, cx + half + 8, cy + half + 8), 0.5, image=view.normalised)
    assert tv.image.shape[:2] == (int(round((2 * half + 16) / 0.5)),) * 2
    paper = view.sample(np.array([[cx - half - 4.0, cy], [cx + half + 4.0, cy]]), image=view.normalised)
    border = view.sample(np.array([[cx - half + 3.0, cy], [cx, cy - half + 3.0]]), image=view.normalised)
    assert np.all(np.abs(paper - 1.0) < 0.2) and np.all(np.abs(border) < 0.2)
    lab = view.lab(np.array([[cx - half - 4.0, cy]]))
    assert lab[0, 0] > 85 and np.hypot(*lab[0, 1:]) < 10  # paper: light and near neutral
    assert np.allclose(rgb_to_lab(np.array([[1.0, 1.0, 1.0]])), [[100.0, 0.0, 0.0]], atol=0.01)
