"""vision.acrylic's speed paths give the numbers of the plain computations they replace: the local mode counting
only the histogram bins that can win, and the candidate stage sampling the evidence of several candidates in one
call."""

import cv2
import numpy as np
import pytest

from vision.acrylic import (
    AcrylicConfig,
    _edge_response,
    _edge_responses,
    _Evidence,
    _grid_best,
    _grid_best_many,
    _local_mode,
    _prepare_shapes,
    _Sampler,
    for_photo,
)


def _mode_every_bin(img: np.ndarray, window_px: int, bin_width: float) -> np.ndarray:
    """The local mode with every bin counted (the plain computation)."""
    lo, hi = np.percentile(img, [0.5, 99.5])
    nb = len(np.arange(lo, hi + bin_width, bin_width))
    idx = np.clip(((img - lo) / bin_width).astype(int), 0, nb - 1)
    counts = np.stack([cv2.boxFilter((idx == b).astype(np.float32), -1, (window_px, window_px), normalize=False,
                                     borderType=cv2.BORDER_REFLECT) for b in range(nb)])
    counts = counts + 0.5 * (np.roll(counts, 1, axis=0) + np.roll(counts, -1, axis=0))
    return (lo + (np.argmax(counts, axis=0) + 0.5) * bin_width).astype(np.float32)


@pytest.mark.parametrize("shape, window", [((105, 150), 65), ((80, 90), 31), ((20, 30), 65)])
def test_local_mode_is_the_mode_of_every_bin(shape, window):
    rng = np.random.default_rng(window + shape[0])
    img = np.log(np.clip(rng.normal(0.5, 0.05, shape), 0.01, 3.0))
    img[: shape[0] // 2, : shape[1] // 3] -= 0.4  # a dimmed board, a bright patch and long tails
    img[-10:, -10:] += 0.8
    img += np.where(rng.random(shape) < 0.02, rng.normal(0, 1.0, shape), 0)
    img = img.astype(np.float32)
    np.testing.assert_array_equal(_local_mode(img, window, 0.05), _mode_every_bin(img, window, 0.05))


@pytest.fixture(scope="module")
def board_scene():
    """A mat at 1 mm/px with a dimmed board of outline A at a known pose, its edges as thin dark lines."""
    config = AcrylicConfig()
    outlines = {"A": np.array([[0, 0], [120, 0], [140, 60], [60, 110], [0, 80]], float),
                "B": np.array([[0, 0], [150, 0], [150, 70], [0, 70]], float)}
    ratio = np.ones((300, 400), np.float32)
    pts = (outlines["A"] + [120, 90]).astype(np.int32)
    cv2.fillPoly(ratio, [pts], 0.8)
    line = np.zeros_like(ratio)
    cv2.polylines(line, [pts], True, 0.1, 1)
    shapes, _ = _prepare_shapes(outlines, config)
    return _Evidence(ratio, line, (0.0, 0.0), 1.0, config.line_weight), shapes, config


def test_grid_best_of_many_candidates_is_each_ones_grid_best(board_scene):
    ev, shapes, config = board_scene
    g = np.arange(-4.0, 4.1, 2.0)
    dxy = np.array([(x, y) for y in g for x in g])
    jobs = [(sh.pts, sh.nrm, th + np.linspace(-0.1, 0.1, 5), np.array(c) + dxy, sign)
            for sh, th, c, sign in [(shapes[0], 0.0, (180, 150), 1.0), (shapes[1], 0.3, (190, 140), 1.0),
                                    (shapes[2], 2.0, (170, 160), -1.0), (shapes[0], 0.0, (-500, -500), 1.0)]]
    together = _grid_best_many(ev, jobs, config.contrast_offset_mm)
    for job, (sc, th, xy) in zip(jobs, together):
        sc1, th1, xy1 = _grid_best(ev, job[0], job[1], job[2], job[3], config.contrast_offset_mm, job[4])
        assert (sc, th) == (sc1, th1) and np.array_equal(xy, xy1)
    assert together[0][0] > 0.05 and together[3][0] == 0.0  # on the board it steps; off the view it scores nothing


def test_edge_responses_of_many_outlines_are_each_ones_response(board_scene):
    ev, shapes, config = board_scene
    offs = np.arange(-6.0, 6.1, 0.5)
    jobs = [(sh.fine_pts + c, sh.fine_nrm, sign) for sh, c, sign in
            [(shapes[0], (150, 120), 1.0), (shapes[3], (100, 100), -1.0), (shapes[1], (390, 290), 1.0)]]
    together = _edge_responses(ev, jobs, offs, config)
    for (P, N, sign), resp in zip(jobs, together):
        np.testing.assert_array_equal(resp, _edge_response(ev, P, N, offs, sign, config))
    assert together[0].max() > config.min_contrast  # the board's edge answers


def test_sampling_many_point_sets_gives_each_sets_own_values():
    """``_Sampler.many`` writes every set into one map: the values of one call on all the points (OpenCV's remap
    may round the last bit differently by where a point lies in its map row), NaN off the map, and the sets' shapes
    kept (an empty set too)."""
    rng = np.random.default_rng(3)
    img = rng.uniform(0.7, 1.2, (90, 130)).astype(np.float32)
    img[:, :10] = np.nan
    s = _Sampler(img, (-20.0, 35.0), 0.75)
    sets = [rng.uniform(-40, 90, (7, 11, 2)), rng.uniform(-30, 80, (5000, 2)).astype(np.float32),
            np.zeros((0, 2)), rng.uniform(-25, 70, (3, 2))]
    together = s.many(sets)
    one_call = s(np.concatenate([np.asarray(xy, np.float32).reshape(-1, 2) for xy in sets]))
    ends = np.cumsum([int(np.prod(xy.shape[:-1])) for xy in sets])
    for xy, v, w in zip(sets, together, np.split(one_call, ends[:-1])):
        assert v.shape == xy.shape[:-1]
        np.testing.assert_array_equal(v.ravel(), w)
        np.testing.assert_allclose(v, s(xy), rtol=1e-6)
    assert np.isnan(together[0]).any() and np.isfinite(together[1]).any()


def test_board_shapes_are_made_once_for_photos_of_any_scale():
    """``for_photo`` changes the contrast offset photo by photo; the shapes, which do not read it, are not made
    again (the very same objects come back)."""
    outlines = {"A": np.array([[0, 0], [120, 0], [140, 60], [60, 110], [0, 80]], float)}
    config = AcrylicConfig()
    near, far = for_photo(config, 0.5), for_photo(config, 2.0)
    assert far.contrast_offset_mm != near.contrast_offset_mm
    shapes, radii = _prepare_shapes(outlines, near)
    again, radii2 = _prepare_shapes(outlines, far)
    assert again is shapes and radii2 is radii
