"""core.assignment and core.special: SciPy's linear_sum_assignment and erf without importing SciPy (CLI start-up).
The assignment must be SciPy's own - the same columns, ties included - since CMYK! reading takes its choice."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as scipy_assignment
from scipy.special import erf as scipy_erf

from core.assignment import linear_sum_assignment
from core.special import erf


def _matrices(seed: int, n: int):
    """Random cost matrices of every shape up to 30 x 30: real, small integers (many ties), duplicated columns
    (as CMYK!'s two K columns), and halves; plus CMYK!-like score matrices (T tiles x 84 types, each tile's own
    type far ahead, two identical K columns)."""
    rng = np.random.default_rng(seed)
    for k in range(n):
        r, c = (int(x) for x in rng.integers(1, 31, 2))
        kind = k % 5
        if kind == 0:
            yield rng.normal(size=(r, c))
        elif kind == 1:
            yield rng.integers(0, 4, size=(r, c)).astype(np.float64)
        elif kind == 2:
            m = rng.normal(size=(r, c))
            d = int(rng.integers(1, c + 1))
            m[:, c - d:] = m[:, [c - d]]
            yield m
        elif kind == 3:
            yield np.round(rng.normal(size=(r, c)) * 2) / 2
        else:
            t = int(rng.integers(5, 40))
            m = rng.normal(-40.0, 5.0, size=(t, 84))
            m[np.arange(t), rng.integers(0, 84, t)] += rng.uniform(0, 60, t)  # some tiles want the same type
            m[:, 83] = m[:, 82]
            yield -m


@pytest.mark.parametrize("maximize", [False, True])
def test_the_same_assignment_as_scipy(maximize):
    for m in _matrices(11, 1500):
        rows, cols = linear_sum_assignment(m, maximize=maximize)
        want_rows, want_cols = scipy_assignment(m, maximize=maximize)
        assert rows.tolist() == want_rows.tolist() and cols.tolist() == want_cols.tolist(), m.shape


def test_a_constant_matrix_is_the_identity_and_empty_is_empty():
    rows, cols = linear_sum_assignment(np.zeros((3, 5)))
    assert rows.tolist() == [0, 1, 2] and cols.tolist() == [0, 1, 2]
    rows, cols = linear_sum_assignment(np.zeros((0, 4)))
    assert rows.shape == cols.shape == (0,)


@pytest.mark.parametrize("bad", [np.zeros(3), np.array([[0.0, np.nan]]), np.array([[np.inf, 1.0]])])
def test_refuses_what_it_cannot_solve(bad):
    with pytest.raises(ValueError):
        linear_sum_assignment(bad)


def test_erf_is_the_c_librarys_and_scipys_to_the_last_places():
    x = np.random.default_rng(3).normal(0.0, 2.0, size=(7, 33))
    got = erf(x)
    assert got.shape == x.shape and got.dtype == np.float64
    assert got.tolist() == [[math.erf(v) for v in row] for row in x.tolist()]
    assert np.allclose(got, scipy_erf(x), rtol=4e-16, atol=1e-16)
