"""The Carrotain speed-ups that rewrite a computation must give exactly the numbers of the computation they replace
(the judgements of the photoreal sets stayed identical to the last digit): checked here on random inputs with
NaNs, ties and edge sizes."""

from __future__ import annotations

import warnings

import numpy as np

from core.order_stats import median, percentile
from vision.acrylic import _nanmean_last, _posed, _rot


def test_median_by_selection_is_numpys_median():
    rng = np.random.default_rng(3)
    for i in range(200):
        n = 1_008_000 if i == 0 else int(rng.integers(1, 100_000))
        a = (rng.normal(size=n) * rng.uniform(0.01, 1.0) + rng.uniform(-1.0, 1.0)).astype(
            np.float32 if i % 2 else np.float64)
        if i % 5 == 0:
            a = np.round(a, 2)  # many ties
        if i % 11 == 0:
            a[rng.integers(0, n)] = np.nan
        want, got = float(np.median(a)), median(a)
        assert want == got or (np.isnan(want) and np.isnan(got)), (i, n, want, got)


def test_percentile_by_selection_is_numpys_percentile():
    """The board maps' line floor (97th percentile) and the like: the same number as ``np.percentile`` (linear), for
    float32 and float64 arrays, ties, NaNs, the extreme percentiles and 2-D arrays."""
    rng = np.random.default_rng(4)
    for i in range(200):
        n = 252_000 if i == 0 else int(rng.integers(1, 100_000))
        a = (rng.normal(size=n) ** (1 + i % 3) * rng.uniform(0.01, 1.0)).astype(np.float32 if i % 2 else np.float64)
        if i % 5 == 0:
            a = np.maximum(np.round(a, 2), 0.0)  # many ties, a floor of zeros
        if i % 11 == 0:
            a[rng.integers(0, n)] = np.nan
        if i % 7 == 0 and n % 4 == 0:
            a = a.reshape(4, -1)
        for q in (97.0, 97, 50.0, 2.5, 99.5, 0, 100):
            want, got = float(np.percentile(a, q)), percentile(a, q)
            assert want == got or (np.isnan(want) and np.isnan(got)), (i, n, q, want, got)


def test_nanmean_of_the_last_axis_is_numpys_nanmean():
    rng = np.random.default_rng(2)
    for i in range(300):
        shape = tuple(int(v) for v in rng.integers(1, 12, size=int(rng.integers(1, 4))))
        a = (rng.normal(size=shape) * 3).astype(np.float32 if i % 3 else np.float64)
        a[rng.random(shape) < rng.uniform(0.0, 1.0)] = np.nan  # rows with some, and with only, NaNs
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.nanmean(a, axis=-1)
        got = _nanmean_last(a)
        assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
        assert np.array_equal(got, want, equal_nan=True)


def test_posed_outlines_are_the_broadcast_sum():
    rng = np.random.default_rng(1)
    for _ in range(100):
        t, n, d = (int(v) for v in rng.integers(1, 40, size=3))
        pts, centres = rng.normal(size=(n, 2)) * 100, rng.normal(size=(d, 2)) * 300
        rotated = np.einsum("tij,nj->tni", _rot(rng.uniform(0, 6.3, t)), pts)
        assert np.array_equal(_posed(rotated, centres), rotated[:, None] + centres[None, :, None, :])


def test_one_rotation_is_the_stacked_matrix():
    for theta in (0.3, -2.1, np.float64(1.0), np.array(0.5)):
        c, s = np.cos(theta), np.sin(theta)
        assert np.array_equal(_rot(theta), np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2))
