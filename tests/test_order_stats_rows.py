"""core.order_stats (rows): the same numbers as NumPy's percentile and median along the last axis."""

from __future__ import annotations

import numpy as np
import pytest

from core.order_stats import median_last, percentile_last


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 91, 100, 726])
def test_percentile_and_median_match_numpy(dtype, n):
    rng = np.random.default_rng(n)
    # whole values (ties, as 8-bit samples give) and continuous ones
    for a in (rng.integers(0, 256, (40, 3, n)).astype(dtype), rng.normal(0, 1, (40, 3, n)).astype(dtype)):
        for q in (0, 5, 30.0, 50, 75.0, 80.0, 95, 100):
            got, want = percentile_last(a, q), np.percentile(a, q, axis=-1)
            assert got.dtype == want.dtype and np.array_equal(got, want), (q, n)
        got, want = median_last(a), np.median(a, axis=-1)
        assert got.dtype == want.dtype and np.array_equal(got, want), n


def test_nan_rows_are_nan():
    a = np.array([[1.0, np.nan, 3.0, 2.0], [1.0, 2.0, 3.0, 4.0]])
    for got, want in ((percentile_last(a, 30.0), np.percentile(a, 30.0, axis=-1)),
                      (median_last(a), np.median(a, axis=-1))):
        assert np.array_equal(got, want, equal_nan=True)
        assert np.isnan(got[0]) and not np.isnan(got[1])
