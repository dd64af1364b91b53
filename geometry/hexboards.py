"""Kaleido hexagonal boards: their cells, and the junction hexagons where three boards meet.

Convention (the same as the project's photoreal truth files), table mm, x right, y **down**:
a board has a centre ``c`` and a rotation ``rot`` (degrees); its corners are
``v_k = c + edge * (cos(rot + 60 k), sin(rot + 60 k))`` for k = 0..5 and its cell ``k`` is the
triangle ``(c, v_k, v_(k+1))``. Corner ``v_k`` therefore touches cells ``k - 1`` and ``k``.

A **junction** is a point where the corners of three boards meet, the three boards pairwise
sharing an edge; its hexagon is the two cells of each board that touch that corner.

Everything here is pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SQRT3 = float(np.sqrt(3.0))


@dataclass(frozen=True)
class JunctionConfig:
    """Tolerances for deciding which boards touch.

    Attributes
    ----------
    corner_tol_frac : float
        Two board corners within ``corner_tol_frac * edge`` mm are the same junction point.
    neighbour_tol_frac : float
        Two boards share an edge when their centres lie ``edge*sqrt(3)`` apart within
        ``neighbour_tol_frac * edge`` mm.
    """

    corner_tol_frac: float = 0.2
    neighbour_tol_frac: float = 0.2


def board_corners(centre_mm, rotation_deg: float, edge_mm: float) -> np.ndarray:
    """The six corners of a board.

    Parameters
    ----------
    centre_mm : array_like, shape (2,)
    rotation_deg : float
    edge_mm : float

    Returns
    -------
    ndarray, shape (6, 2), table mm; row k is ``v_k``.
    """
    a = np.deg2rad(rotation_deg + 60.0 * np.arange(6))
    return np.asarray(centre_mm, dtype=np.float64) + edge_mm * np.stack([np.cos(a), np.sin(a)], axis=1)


def board_cells(centre_mm, rotation_deg: float, edge_mm: float) -> np.ndarray:
    """The six cell triangles of a board.

    Returns
    -------
    ndarray, shape (6, 3, 2), table mm; cell k is ``(c, v_k, v_(k+1))``.
    """
    c = np.asarray(centre_mm, dtype=np.float64)
    v = board_corners(c, rotation_deg, edge_mm)
    return np.stack([np.broadcast_to(c, (6, 2)), v, np.roll(v, -1, axis=0)], axis=1)


def cell_centroids(centre_mm, rotation_deg: float, edge_mm: float) -> np.ndarray:
    """Centroids of the six cells, shape (6, 2), table mm."""
    return board_cells(centre_mm, rotation_deg, edge_mm).mean(axis=1)


def hole_triangle(cell_mm: np.ndarray, inset_mm: float) -> np.ndarray:
    """A cell's triangle shrunk by ``inset_mm`` from each side (the hole in the board).

    Parameters
    ----------
    cell_mm : ndarray, shape (3, 2)
    inset_mm : float
        Distance from each side of the cell to the parallel side of the hole.

    Returns
    -------
    ndarray, shape (3, 2)
    """
    centroid = cell_mm.mean(axis=0)
    side = float(np.linalg.norm(cell_mm[1] - cell_mm[0]))
    inradius = side / (2.0 * SQRT3)
    scale = max(inradius - inset_mm, 0.0) / inradius
    return centroid + (cell_mm - centroid) * scale


@dataclass(frozen=True)
class Junction:
    """Where three boards meet.

    Attributes
    ----------
    vertex_mm : tuple[float, float]
        The meeting point (mean of the three corners), table mm.
    cells : tuple[tuple[int, int], ...]
        Six ``(board index, cell index)`` pairs, sorted by board.
    """

    vertex_mm: tuple[float, float]
    cells: tuple[tuple[int, int], ...]


def find_junctions(
    centres_mm: np.ndarray, rotations_deg: np.ndarray, edge_mm: float, config: JunctionConfig = JunctionConfig()
) -> list[Junction]:
    """Every junction of a layout of boards.

    Parameters
    ----------
    centres_mm : array_like, shape (B, 2)
    rotations_deg : array_like, shape (B,)
    edge_mm : float
    config : JunctionConfig

    Returns
    -------
    list[Junction], ordered by their vertex (y then x).
    """
    centres = np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2)
    rots = np.asarray(rotations_deg, dtype=np.float64).reshape(-1)
    n = len(centres)
    if n < 3:
        return []
    d = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    adjacent = np.abs(d - edge_mm * SQRT3) <= config.neighbour_tol_frac * edge_mm
    corners = np.stack([board_corners(centres[b], rots[b], edge_mm) for b in range(n)])  # (B, 6, 2)
    tol = config.corner_tol_frac * edge_mm
    out: list[Junction] = []
    for a in range(n):
        for b in range(a + 1, n):
            if not adjacent[a, b]:
                continue
            for c in range(b + 1, n):
                if not (adjacent[a, c] and adjacent[b, c]):
                    continue
                meet = (centres[a] + centres[b] + centres[c]) / 3.0
                cells: list[tuple[int, int]] = []
                pts = []
                for board in (a, b, c):
                    dist = np.linalg.norm(corners[board] - meet, axis=1)
                    k = int(np.argmin(dist))
                    if dist[k] > tol:
                        break
                    pts.append(corners[board, k])
                    cells.extend([(board, (k - 1) % 6), (board, k)])
                else:
                    vertex = np.mean(pts, axis=0)
                    out.append(Junction(vertex_mm=(float(vertex[0]), float(vertex[1])), cells=tuple(cells)))
    out.sort(key=lambda j: (round(j.vertex_mm[1], 1), j.vertex_mm[0]))
    return out


def hex_axial_to_offset_mm(q: int, r: int, edge_mm: float, rotation_deg: float) -> np.ndarray:
    """Centre offset of the board at axial coordinates (q, r) from the board at (0, 0).

    Boards lying edge to edge have centres on a triangular grid of spacing ``edge*sqrt(3)``;
    the axial basis is the directions ``rot + 30`` and ``rot + 90`` degrees (across the edges of a
    board with rotation ``rot``).

    Returns
    -------
    ndarray, shape (2,), mm
    """
    s = edge_mm * SQRT3
    a1 = np.deg2rad(rotation_deg + 30.0)
    a2 = np.deg2rad(rotation_deg + 90.0)
    return s * (q * np.array([np.cos(a1), np.sin(a1)]) + r * np.array([np.cos(a2), np.sin(a2)]))
