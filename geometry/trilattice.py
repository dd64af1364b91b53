"""The triangle lattice shared by CMYK! tiles and Kaleido cells.

Convention (the same as the project's photoreal truth files). In the lattice's own frame
(x right, y **up**, mm), with edge ``e`` and row height ``h = e*sqrt(3)/2``:

- cell ``(i, j)`` lies in row ``j`` (``j*h <= y <= (j+1)*h``); its centroid x is ``i*e/2``;
- ``(i + j)`` even: the triangle points up (apex at the top); odd: it points down;
- lattice vertices are ``(k, l)`` with ``k + l`` odd, at ``(k*e/2, l*h)``;
- edge directions: ``"H"`` horizontal, ``"P"`` positive slope (/), ``"N"`` negative slope (\\).
  An up cell has H at the bottom, P on the left, N on the right; a down cell has H at the top,
  N on the left, P on the right. Two cells sharing an edge share its direction.
"""

from __future__ import annotations

import numpy as np

SQRT3 = float(np.sqrt(3.0))
DIRECTIONS = ("H", "P", "N")


def is_up(i: int, j: int) -> bool:
    """True when cell (i, j) points up."""
    return (i + j) % 2 == 0


def row_height(edge: float) -> float:
    """Row height ``h = edge*sqrt(3)/2``."""
    return edge * SQRT3 / 2.0


def cell_centroid(i: int, j: int, edge: float) -> tuple[float, float]:
    """Centroid of cell (i, j) in the lattice frame (x right, y up)."""
    h = row_height(edge)
    y = j * h + (h / 3.0 if is_up(i, j) else 2.0 * h / 3.0)
    return (i * edge / 2.0, y)


def cell_vertices(i: int, j: int, edge: float) -> np.ndarray:
    """The three corners of cell (i, j), counter-clockwise (y up).

    Returns
    -------
    ndarray, shape (3, 2), lattice frame
    """
    h = row_height(edge)
    x = i * edge / 2.0
    if is_up(i, j):
        return np.array([[x - edge / 2, j * h], [x + edge / 2, j * h], [x, (j + 1) * h]])
    return np.array([[x, j * h], [x + edge / 2, (j + 1) * h], [x - edge / 2, (j + 1) * h]])


def neighbour(i: int, j: int, direction: str) -> tuple[int, int]:
    """The cell sharing the edge of that direction with cell (i, j)."""
    up = is_up(i, j)
    if direction == "H":
        return (i, j - 1) if up else (i, j + 1)
    if direction == "P":
        return (i - 1, j) if up else (i + 1, j)
    if direction == "N":
        return (i + 1, j) if up else (i - 1, j)
    raise ValueError(f"unknown edge direction {direction!r}")


def neighbours(i: int, j: int) -> dict[str, tuple[int, int]]:
    """Edge direction -> neighbouring cell, for all three edges."""
    return {d: neighbour(i, j, d) for d in DIRECTIONS}


def edge_endpoints(i: int, j: int, direction: str, edge: float) -> np.ndarray:
    """The two corners of cell (i, j) that bound its edge of that direction, shape (2, 2)."""
    v = cell_vertices(i, j, edge)
    if is_up(i, j):
        pairs = {"H": (0, 1), "P": (0, 2), "N": (1, 2)}
    else:
        pairs = {"H": (1, 2), "N": (0, 2), "P": (0, 1)}
    a, b = pairs[direction]
    return np.array([v[a], v[b]])


def vertex_cells(k: int, l: int) -> tuple[tuple[int, int], ...]:
    """The six cells around lattice vertex (k, l) (``k + l`` odd)."""
    if (k + l) % 2 != 1:
        raise ValueError(f"({k}, {l}) is not a lattice vertex: k + l must be odd")
    return ((k - 1, l), (k, l), (k + 1, l), (k - 1, l - 1), (k, l - 1), (k + 1, l - 1))


def cell_vertex_ids(i: int, j: int) -> tuple[tuple[int, int], ...]:
    """The three lattice vertices (k, l) at the corners of cell (i, j)."""
    if is_up(i, j):
        return ((i - 1, j), (i + 1, j), (i, j + 1))
    return ((i, j), (i + 1, j + 1), (i - 1, j + 1))


def lattice_to_table(xy: np.ndarray, origin_mm: np.ndarray, right: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Lattice-frame points to table mm, given the lattice origin and unit axes in table mm.

    Parameters
    ----------
    xy : array_like, shape (N, 2), lattice frame (x right, y up)
    origin_mm, right, up : array_like, shape (2,)

    Returns
    -------
    ndarray, shape (N, 2), table mm
    """
    p = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    return np.asarray(origin_mm) + p[:, :1] * np.asarray(right) + p[:, 1:2] * np.asarray(up)
