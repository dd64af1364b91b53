"""Special functions without SciPy (importing ``scipy.special`` costs a CLI call about 0.3 s of CPU).

:func:`erf` is the C library's ``erf`` (Python's ``math.erf``), element by element. It is not SciPy's (Cephes)
``erf`` to the bit - the two differ in the last place on about one argument in five - so code moved from SciPy's
to this one measures its results again.
"""

from __future__ import annotations

import math

import numpy as np


def erf(x: np.ndarray) -> np.ndarray:
    """The error function of every element.

    Parameters
    ----------
    x : ndarray, any shape

    Returns
    -------
    ndarray, the shape of ``x``, float64
    """
    a = np.asarray(x, np.float64)
    return np.fromiter(map(math.erf, a.ravel().tolist()), np.float64, a.size).reshape(a.shape)
