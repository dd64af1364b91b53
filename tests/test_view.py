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


def test_remap_sampler_agrees_with_the_exact_one_and_keeps_the_border_rules():
    """The fast (OpenCV) path: within 1/32 px of the exact weights, any leading shape, same border rules;
    a uint8 image samples to whole values (OpenCV's arithmetic in the image's dtype)."""
    rng = np.random.default_rng(4)
    img = rng.random((30, 40, 3)).astype(np.float32)
    pts = rng.uniform([0, 0], [39, 29], (5, 7, 2))
    fast = sample(img, pts, exact=False)
    assert fast.shape == (5, 7, 3)
    slope = np.abs(np.diff(img, axis=0)).max() + np.abs(np.diff(img, axis=1)).max()
    assert np.abs(fast - sample(img, pts)).max() <= slope / 32 + 1e-5
    assert sample(img[..., 1], pts, exact=False).shape == (5, 7)
    outside = np.array([[-1.0, 5.0], [5.0, 29.5], [400.0, -3.0]])
    assert np.isnan(sample(img, outside, border="nan", exact=False)).all()
    assert (sample(img, outside, border="zero", exact=False) == 0).all()
    assert np.allclose(sample(img, outside, exact=False), [img[5, 0], img[29, 5], img[0, 39]])
    u8 = (img * 255).astype(np.uint8)
    got = sample(u8, pts, exact=False)
    assert np.array_equal(got, np.round(got)) and np.abs(got - sample(u8, pts)).max() <= 255 * slope / 32 + 1


def test_the_cheap_top_views_agree_with_the_exact_mapping(view):
    """``homography_view`` (CMYK!'s top view) and ``grid_maps`` + ``remap_view`` (Kaleido's) put table points
    where the calibration's own height model puts them; the tabulated mapping agrees with the exact one."""
    from vision.view import HeightMapping, grid_maps, homography_view, remap_view

    region, s, z = (100.0, 80.0, 400.0, 300.0), 0.5, 3.0
    m = HeightMapping(view.calibration, z)
    h, w = view.image_rgb.shape[:2]
    yy, xx = np.mgrid[:h, :w]
    ramp = np.stack([xx, yy, np.zeros_like(xx)], axis=2).astype(np.float32)  # each pixel shows its own position
    probe = np.array([[0, 0], [599, 439], [321, 97], [17, 400], [300, 220]])
    exact = m.exact_px(np.asarray(region[:2]) + probe * s)
    hv = homography_view(m.to_px, ramp, s, region)
    assert hv.shape == (440, 600, 3)
    assert np.abs(hv[probe[:, 1], probe[:, 0], :2] - exact).max() < 1.0  # one homography: within the lens' bend
    maps = grid_maps(m.exact_px, region, s, 10.0)
    rv, inside = remap_view(ramp, maps)
    assert rv.shape == (440, 600, 3) and inside.all()
    corners = probe[:2]
    assert np.abs(rv[corners[:, 1], corners[:, 0], :2] - exact[:2]).max() < 0.05
    m.prepare(region, 5.0)
    pts = np.asarray(region[:2]) + np.random.default_rng(8).uniform([0, 0], [300, 220], (200, 2))
    assert np.abs(m.to_px(pts) - m.exact_px(pts)).max() < 0.25  # 1/32 of a 5 mm cell: remap's weights


def test_one_srgb_linear_conversion_both_ways():
    from vision.colour import linear_to_srgb, srgb_to_linear

    x = np.linspace(0.0, 1.0, 257)
    assert np.allclose(linear_to_srgb(srgb_to_linear(x)), x, atol=1e-12)
    assert np.isclose(srgb_to_linear(np.array([0.5]))[0], 0.21404, atol=1e-5)  # the sRGB standard's curve


def test_tabulated_sampling_is_the_two_step_sampling(view):
    """``HeightMapping.sample`` of an 8-bit photo (the tabulated positions fed to the photo's remap as one map) gives
    exactly what mapping the points (``to_px``) and then sampling them (``_remap_points``) gives, table or not."""
    from vision.view import HeightMapping, _remap_points

    region = (100.0, 80.0, 400.0, 300.0)
    m = HeightMapping(view.calibration, 3.0)
    rng = np.random.default_rng(3)
    # more points than one remap row holds, a few outside the table (the exact mapping), and few points
    for pts in (np.asarray(region[:2]) + rng.uniform([0, 0], [300, 220], (9000, 2)),
                rng.uniform([50, 50], [450, 350], (300, 2)), rng.uniform([150, 150], [200, 200], (10, 2))):
        for prepared in (False, True):
            if prepared:
                m.prepare(region, 5.0)
            want = _remap_points(view.image_rgb, m.to_px(pts), "replicate").astype(np.float32)
            got = m.sample(view.image_rgb, pts)
            assert got.dtype == np.float32 and np.array_equal(got, want)
