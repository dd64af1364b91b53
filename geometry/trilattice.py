"""The triangle lattice shared by CMYK! tiles and Kaleido cells: its cells, and its placement on the table.

Two frames, one convention each:

- the **table frame** (table mm, x right, y **down**, as the markers define it and as every detector
  works in top views); a direction there is an angle in degrees from +x towards +y;
- the **lattice frame** (mm, x right, y **up**), where cells and vertices have integer ids. A
  :class:`TriangleLattice` places it on the table; the lattice frame's +y is the table direction
  ``up = (right_y, -right_x)`` (``right`` turned 90 degrees towards the table's -y), so with
  ``right = (1, 0)`` the rows go up the photo.

Cells and vertices (the same as the project's photoreal truth files). In the lattice frame,
with edge ``e`` and row height ``h = e*sqrt(3)/2``:

- cell ``(i, j)`` lies in row ``j`` (``j*h <= y <= (j+1)*h``); its centroid x is ``i*e/2``;
- ``(i + j)`` even: the triangle points up (apex at the top); odd: it points down;
- lattice vertices are ``(k, l)`` with ``k + l`` odd, at ``(k*e/2, l*h)``;
- edge directions: ``"H"`` horizontal, ``"P"`` positive slope (/), ``"N"`` negative slope (\\).
  An up cell has H at the bottom, P on the left, N on the right; a down cell has H at the top,
  N on the left, P on the right. Two cells sharing an edge share its direction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass(frozen=True)
class TriangleLattice:
    """A triangle lattice placed on the table: what the Kaleido and the CMYK! lattice fits both return.

    Attributes
    ----------
    vertex_mm : ndarray, shape (2,)
        One lattice vertex in the table frame: lattice vertex ``(k, l) = (1, 0)``, the lattice-frame
        point ``(e/2, 0)``.
    rotation_deg : float
        Direction of the lattice frame's x axis (``right``) in the table frame, degrees (y down).
    edge_mm : float
    residual_mm : float
        How far the fitted line families miss a common vertex (0 for an exact lattice).
    right : ndarray, shape (2,), optional
        The unit x axis in table mm; computed from ``rotation_deg`` when not given (a fit that
        measured the vector passes it so that nothing is re-rounded; it must agree with the angle).

    Notes
    -----
    Two integer coordinate systems name the same vertices: the ids ``(k, l)`` of the lattice frame
    (:func:`cell_vertex_ids`, ``k + l`` odd) and the steps ``(a, b)`` of :meth:`vertex`,
    ``vertex_mm + a * s0 + b * s1`` with ``s0 = e * right`` and ``s1`` the edge step at
    ``rotation_deg + 60`` (towards the table's +y); :meth:`vertex_ids` converts.
    """

    vertex_mm: np.ndarray
    rotation_deg: float
    edge_mm: float
    residual_mm: float = 0.0
    right: np.ndarray = field(default=None)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        a = np.deg2rad(self.rotation_deg)
        unit = np.array([np.cos(a), np.sin(a)])
        object.__setattr__(self, "vertex_mm", np.asarray(self.vertex_mm, dtype=np.float64).reshape(2))
        if self.right is None:
            object.__setattr__(self, "right", unit)
        else:
            r = np.asarray(self.right, dtype=np.float64).reshape(2)
            if np.linalg.norm(r - unit) > 1e-6:
                raise ValueError(f"right {r.tolist()} does not point along rotation_deg {self.rotation_deg}")
            object.__setattr__(self, "right", r)

    @classmethod
    def from_axis(cls, vertex_mm: np.ndarray, right: np.ndarray, edge_mm: float,
                  residual_mm: float = 0.0) -> TriangleLattice:
        """The lattice through ``vertex_mm`` whose lattice-frame x axis is the unit vector ``right`` (table mm)."""
        r = np.asarray(right, dtype=np.float64).reshape(2)
        return cls(vertex_mm, float(np.degrees(np.arctan2(r[1], r[0]))), edge_mm, residual_mm, r)

    @property
    def up(self) -> np.ndarray:
        """The lattice frame's unit y axis in table mm, shape (2,)."""
        return np.array([self.right[1], -self.right[0]])

    @property
    def origin_mm(self) -> np.ndarray:
        """The lattice frame's origin (the middle of the base of cell (0, 0)) in table mm, shape (2,)."""
        return self.vertex_mm - self.right * self.edge_mm / 2

    def to_table(self, xy: np.ndarray) -> np.ndarray:
        """Lattice-frame points (N, 2) -> table mm (N, 2)."""
        return lattice_to_table(xy, self.origin_mm, self.right, self.up)

    def from_table(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) -> lattice-frame points (N, 2)."""
        d = np.asarray(xy_mm, np.float64).reshape(-1, 2) - self.origin_mm
        return np.stack([d @ self.right, d @ self.up], axis=1)

    def basis(self) -> np.ndarray:
        """Rows: the vertex steps ``s0`` (along ``rotation_deg``) and ``s1`` (``rotation_deg + 60``), (2, 2) mm."""
        a = np.deg2rad([self.rotation_deg, self.rotation_deg + 60.0])
        return self.edge_mm * np.stack([np.cos(a), np.sin(a)], axis=1)

    def vertex(self, ab: np.ndarray) -> np.ndarray:
        """Vertex steps (N, 2) -> vertex positions (N, 2), table mm."""
        return self.vertex_mm + np.asarray(ab, dtype=np.float64).reshape(-1, 2) @ self.basis()

    def coords(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) -> real vertex-step coordinates (N, 2)."""
        return (np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2) - self.vertex_mm) @ np.linalg.inv(self.basis())

    @staticmethod
    def vertex_ids(ab: np.ndarray) -> np.ndarray:
        """Vertex steps (N, 2) -> lattice-frame vertex ids ``(k, l)`` (N, 2): ``k = 1 + 2a + b``, ``l = -b``."""
        a = np.asarray(ab).reshape(-1, 2)
        return np.stack([1 + 2 * a[:, 0] + a[:, 1], -a[:, 1]], axis=1)

    def vertices_in(self, region_mm: tuple[float, float, float, float], margin_mm: float = 0.0) -> np.ndarray:
        """Vertex steps (N, 2) of every vertex inside a table rectangle (x0, y0, x1, y1) shrunk by a margin."""
        x0, y0, x1, y1 = region_mm
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
        c = self.coords(corners)
        lo = np.floor(c.min(axis=0)).astype(int) - 1
        hi = np.ceil(c.max(axis=0)).astype(int) + 1
        a, b = np.meshgrid(np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1), indexing="ij")
        ab = np.stack([a.ravel(), b.ravel()], axis=1)
        p = self.vertex(ab)
        keep = ((p[:, 0] >= x0 + margin_mm) & (p[:, 0] <= x1 - margin_mm)
                & (p[:, 1] >= y0 + margin_mm) & (p[:, 1] <= y1 - margin_mm))
        return ab[keep]
