"""Order statistics of large arrays (a median, a percentile), exactly NumPy's numbers, faster.

``np.median`` / ``np.percentile`` partition the whole array. The order statistics they need lie between two
quantiles of a sparse sample of it: counting the values below that band and partitioning only the values inside it
gives the same order statistics, which are then combined by NumPy itself (the same arithmetic). Where the band
misses them (a skewed sample) or a value is NaN, NumPy answers.
"""

from __future__ import annotations

import numpy as np


def _order_stats(flat: np.ndarray, ks: list[int], centre: float, sample_step: int, band: float
                 ) -> np.ndarray | None:
    """The ``ks``-th smallest values of ``flat`` (1-D, sorted ``ks``), or None where the sample's band around the
    ``centre`` quantile misses them (or a value is NaN)."""
    n = flat.size
    sample = flat[::sample_step]
    if n < 4 * sample_step or np.isnan(sample).any():
        return None
    lo, hi = np.quantile(sample, [max(centre - band, 0.0), min(centre + band, 1.0)])
    inside = (flat >= lo) & (flat <= hi)
    below = int(np.count_nonzero(flat < lo))
    mid = flat[inside]
    if below + mid.size + int(np.count_nonzero(flat > hi)) != n or not below <= ks[0] <= ks[-1] < below + mid.size:
        return None  # NaN somewhere, or the band missed the order statistics
    part = np.partition(mid, [k - below for k in ks])
    return part[[k - below for k in ks]]


def median(values: np.ndarray, sample_step: int = 61, band: float = 0.05) -> float:
    """``np.median`` of an array (any shape), the same number.

    Parameters
    ----------
    values : ndarray
    sample_step, band : int, float
        The sample takes every ``sample_step``-th value; the band spans ``band`` either side of its middle.
    """
    flat = np.ravel(values)
    n = flat.size
    k = [(n - 1) // 2, n // 2]
    stats = _order_stats(flat, k, 0.5, sample_step, band)
    if stats is None:
        return float(np.median(flat))
    return float(np.mean(stats, axis=0))


def percentile(values: np.ndarray, q: float, sample_step: int = 61, band: float = 0.02) -> float:
    """``np.percentile(values, q)`` (linear interpolation) of an array (any shape), the same number.

    Parameters
    ----------
    values : ndarray
    q : float
        Percentile, 0-100.
    sample_step, band : int, float
        The sample takes every ``sample_step``-th value; the band spans ``band`` either side of ``q / 100``.
    """
    flat = np.ravel(values)
    n = flat.size
    if n == 0:
        return float(np.percentile(flat, q))
    # NumPy's linear method: its virtual index (the same float operations), the two order statistics either side,
    # and its interpolation between them (in the array's float type, the weight a Python float)
    virtual = np.true_divide(float(q), 100) * (n - 1.0 - 1.0 + 1) + 1.0 - 1
    k0 = int(np.floor(virtual))
    k1 = min(k0 + 1, n - 1)
    stats = _order_stats(flat, sorted({k0, k1}), float(q) / 100.0, sample_step, band)
    if stats is None:
        return float(np.percentile(flat, q))
    a, b = stats[0], stats[-1]
    t = float(virtual - np.floor(virtual))
    diff = b - a
    return float(b - diff * (1 - t) if t >= 0.5 else a + diff * t)
