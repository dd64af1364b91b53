"""Order statistics along the last axis of small arrays (a median, a percentile per row): NumPy's numbers, faster.

``np.percentile`` / ``np.median`` over an axis move that axis to the front and partition along it, with some
microseconds of argument handling per call; on the recognizers' many short rows (a band's samples, a marker edge's
profile) that is most of their cost. These partition along the last axis (contiguous) and combine the order
statistics with NumPy's own arithmetic (its linear interpolation, its mean of the two middle values), so that the
results are the same numbers, NaN where a row holds one.

>>> import numpy as np
>>> a = np.array([[3.0, 1.0, 2.0, 5.0], [1.0, 4.0, 0.0, 2.0]])
>>> median_last(a).tolist(), percentile_last(a, 80.0).tolist()
([2.5, 1.5], [3.8000000000000007, 2.8000000000000007])
"""

from __future__ import annotations

import numpy as np


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
