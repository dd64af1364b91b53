"""Order statistics - a median, a percentile - with exactly NumPy's numbers, faster.

Two cases, each with its own trick:

- **One large array** (:func:`median`, :func:`percentile`). ``np.median`` / ``np.percentile`` partition the whole
  array. The order statistics they need lie between two quantiles of a sparse sample of it: counting the values below
  that band and partitioning only the values inside it gives the same order statistics, which are then combined by
  NumPy itself (the same arithmetic). Where the band misses them (a skewed sample) or a value is NaN, NumPy answers.
- **Many short rows** (:func:`median_last`, :func:`percentile_last`, along the last axis). ``np.percentile`` /
  ``np.median`` over an axis move that axis to the front and partition along it, with some microseconds of argument
  handling per call; on the recognizers' many short rows (a band's samples, a marker edge's profile) that is most of
  their cost. These partition along the last axis (contiguous) and combine the order statistics with NumPy's own
  arithmetic (its linear interpolation, its mean of the two middle values), so that the results are the same
  numbers, NaN where a row holds one.

>>> import numpy as np
>>> a = np.array([[3.0, 1.0, 2.0, 5.0], [1.0, 4.0, 0.0, 2.0]])
>>> median_last(a).tolist(), percentile_last(a, 80.0).tolist()
([2.5, 1.5], [3.8000000000000007, 2.8000000000000007])
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


def percentile_last(a: np.ndarray, q: float) -> np.ndarray:
    """``np.percentile(a, q, axis=-1)`` (linear interpolation, ``q`` a Python number), the same numbers.

    Parameters
    ----------
    a : ndarray, shape (..., N), float, N >= 1
    q : float
        Percentile, 0-100.

    Returns
    -------
    ndarray, shape (...), the dtype of ``a``
    """
    a = np.asarray(a)
    n = a.shape[-1]
    # NumPy's linear method: virtual index (n - 1) * (q / 100) in double, the two order statistics either side
    virtual = float((n - 1) * np.true_divide(q, 100))
    if virtual >= n - 1:
        k0 = k1 = n - 1
    elif virtual < 0:
        k0 = k1 = 0
    else:
        k0 = int(np.floor(virtual))
        k1 = k0 + 1
    part = np.partition(a, sorted({k0, k1, n - 1}), axis=-1)
    lo, hi = part[..., k0], part[..., k1]
    t = virtual - float(np.floor(virtual)) if k0 != k1 else 0.0
    # NumPy's ``_lerp``: from the lower value below a half, from the upper one from a half on
    diff = hi - lo
    out = hi - diff * (1 - t) if t >= 0.5 else lo + diff * t
    return _nan_where_nan(np.asarray(out, a.dtype), part[..., n - 1])


def median_last(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=-1)``, the same numbers.

    Parameters
    ----------
    a : ndarray, shape (..., N), float, N >= 1

    Returns
    -------
    ndarray, shape (...), the dtype of ``a``
    """
    a = np.asarray(a)
    n = a.shape[-1]
    k = n // 2
    if n % 2:
        part = np.partition(a, sorted({k, n - 1}), axis=-1)
        out = part[..., k]
    else:
        part = np.partition(a, sorted({k - 1, k, n - 1}), axis=-1)
        out = np.mean(part[..., k - 1:k + 1], axis=-1)  # NumPy's mean of the two middle values
    return _nan_where_nan(np.asarray(out, a.dtype), part[..., n - 1])


def _nan_where_nan(out: np.ndarray, last: np.ndarray) -> np.ndarray:
    """NaN in the rows whose largest value (after the partition, NaN sorts last) is NaN, as NumPy gives."""
    if out.dtype.kind == "f":
        nan = np.isnan(last)
        if np.any(nan):
            out = np.where(nan, np.nan, out).astype(out.dtype)
    return out
