"""The linear sum assignment (minimum-cost matching of rows to distinct columns), without SciPy.

``scipy.optimize.linear_sum_assignment`` costs a CLI call judging CMYK! about 0.25-0.55 s of CPU just to import
(``scipy.optimize`` pulls in most of SciPy), more than the whole judgement. This is the same method - the
shortest augmenting path of Jonker and Volgenant as described by D. F. Crouse, "On implementing 2D rectangular
assignment algorithms", IEEE Trans. Aerospace and Electronic Systems 52(4), 2016 (Algorithm 4, dual variables
``u``, ``v``) - with the same conventions, so that it picks the same assignment, ties included:

- a matrix with more rows than columns is solved transposed;
- the unassigned columns are scanned in the order of a list filled from the last column to the first, a column
  taken out of it replaced by the list's last one;
- among columns at the same lowest path cost, one that is not assigned yet (it ends the path) wins over the first
  found.

The inner scan over the columns is vectorised; every number is the same sum, in the same order, as one column after
the other (``tests/test_assignment.py`` compares it with SciPy on random, integer and tied matrices).
"""

from __future__ import annotations

import numpy as np


def linear_sum_assignment(cost: np.ndarray, maximize: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Rows matched to distinct columns at the least summed cost (the greatest with ``maximize``).

    Parameters
    ----------
    cost : ndarray, shape (R, C)
        Finite costs.
    maximize : bool

    Returns
    -------
    rows, cols : ndarray, shape (min(R, C),), intp
        Row ``rows[k]`` takes column ``cols[k]``; ``rows`` ascending (as ``scipy.optimize.linear_sum_assignment``).

    Raises
    ------
    ValueError
        ``cost`` is not 2-D or holds NaN or an infinity.
    """
    c = np.asarray(cost, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError(f"expected a matrix (2-D array), got a {c.ndim}-D array")
    if not np.all(np.isfinite(c)):
        raise ValueError("cost matrix contains NaN or an infinity")
    if maximize:
        c = -c
    if c.size == 0:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    transposed = c.shape[1] < c.shape[0]
    col4row = _shortest_augmenting_paths(c.T if transposed else c)
    if not transposed:
        return np.arange(len(col4row), dtype=np.intp), col4row
    order = np.argsort(col4row, kind="stable")
    return col4row[order], order.astype(np.intp)


def _shortest_augmenting_paths(cost: np.ndarray) -> np.ndarray:
    """Column of each row, shape (R,), for a cost matrix (R, C) with R <= C."""
    n_rows, n_cols = cost.shape
    u = np.zeros(n_rows)
    v = np.zeros(n_cols)
    col4row = np.full(n_rows, -1, np.intp)
    row4col = np.full(n_cols, -1, np.intp)
    # while every path so far was one step, v is 0 and a new row's reduced costs are its own costs: its lowest
    # columns are known before the loop
    lowest = cost.min(axis=1)
    at_lowest = cost == lowest[:, None]
    n_lowest = at_lowest.sum(axis=1).tolist()
    first_lowest = at_lowest.argmax(axis=1).tolist()
    v_zero = True
    for cur_row in range(n_rows):
        if v_zero and n_lowest[cur_row] == 1:
            j = first_lowest[cur_row] if row4col[first_lowest[cur_row]] == -1 else -1
            min_val = 0.0 + lowest[cur_row]
        else:
            j, min_val = _first_step(cost[cur_row], u[cur_row], v, row4col)
        if j >= 0:  # the search's first step ends the path: no dual but the row's own changes (v[j] less 0)
            u[cur_row] += min_val
            col4row[cur_row], row4col[j] = j, cur_row
            continue
        sink, min_val, path, path_cost, rows_seen, cols_seen = _augmenting_path(cost, u, v, row4col, cur_row)
        # the dual variables
        u[cur_row] += min_val
        others = rows_seen.copy()
        others[cur_row] = False
        u[others] += min_val - path_cost[col4row[others]]
        v[cols_seen] -= min_val - path_cost[cols_seen]
        # the path's rows each move to its next column
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == cur_row:
                break
        v_zero = not v.any()
    return col4row


def _first_step(costs: np.ndarray, u_row: float, v: np.ndarray, row4col: np.ndarray) -> tuple[int, float]:
    """The search's first step from a new row with column costs ``costs`` (C,) when it ends the path: of the columns
    at the lowest reduced cost, the free one scanned last (the smallest index: the scan runs from the last column
    down), and that cost; -1 when none of them is free."""
    reduced = 0.0 + costs - u_row - v
    min_val = float(reduced.min())
    free = np.flatnonzero((reduced == min_val) & (row4col == -1))
    return (int(free[0]) if len(free) else -1), min_val


def _augmenting_path(cost: np.ndarray, u: np.ndarray, v: np.ndarray, row4col: np.ndarray,
                     cur_row: int) -> tuple[int, float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The shortest path from ``cur_row`` to an unassigned column (Dijkstra on the reduced costs).

    Returns
    -------
    sink : int
        The unassigned column the path ends in.
    min_val : float
        The path's reduced cost.
    path : ndarray, shape (C,), intp
        The row each column is reached from.
    path_cost : ndarray, shape (C,)
        The shortest reduced cost to each column.
    rows_seen, cols_seen : ndarray, shape (R,) and (C,), bool
    """
    n_rows, n_cols = cost.shape
    remaining = np.arange(n_cols - 1, -1, -1, dtype=np.intp)
    n_remaining = n_cols
    rows_seen = np.zeros(n_rows, bool)
    cols_seen = np.zeros(n_cols, bool)
    path_cost = np.full(n_cols, np.inf)
    path = np.full(n_cols, -1, np.intp)
    min_val = 0.0
    i = cur_row
    while True:
        rows_seen[i] = True
        rem = remaining[:n_remaining]
        reduced = min_val + cost[i].take(rem) - u[i] - v.take(rem)
        costs = path_cost.take(rem)
        better = reduced < costs
        if better.any():
            path[rem[better]] = i
            costs = np.where(better, reduced, costs)
            path_cost[rem] = costs
        index = _lowest(costs, row4col.take(rem) == -1)
        min_val = float(costs[index])
        j = int(rem[index])
        cols_seen[j] = True
        n_remaining -= 1
        remaining[index] = remaining[n_remaining]
        if row4col[j] == -1:
            return j, min_val, path, path_cost, rows_seen, cols_seen
        i = int(row4col[j])


def _lowest(costs: np.ndarray, free: np.ndarray) -> int:
    """Position of the lowest cost: of the tied lowest, the last free one, else the first (the scan's choice)."""
    tied = np.flatnonzero(costs == costs.min())
    tied_free = tied[free[tied]]
    return int(tied_free[-1]) if len(tied_free) else int(tied[0])
