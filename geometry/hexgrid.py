"""Hex boards of pointy-top cells in axial coordinates (Ingenious, Genial Spezial).

Convention (``components/default.json``, ``ingenious.board``): cell ``(q, r)``, centre cell
``(0, 0)``; in the board frame (x right, y **down**, origin at the centre cell, mm) the centre of
cell ``(q, r)`` is ``pitch * (q + r/2, r*sqrt(3)/2)``; a cell's ring is ``max(|q|, |r|, |q+r|)``.
The board lies on the table (mm, y down) as ``table = centre + R(rotation) . board`` with
``R = [[cos, -sin], [sin, cos]]``.

Pure numpy; nothing here knows a game's rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

SQRT3 = float(np.sqrt(3.0))

Cell = tuple[int, int]

# The six axial directions (neighbour = cell + d), counter-clockwise on screen starting east.
DIRECTIONS: tuple[Cell, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def ring(cell: Cell) -> int:
    """Hex distance of a cell from the centre cell."""
    q, r = cell
    return max(abs(q), abs(r), abs(q + r))


def cells_within(radius: int) -> tuple[Cell, ...]:
    """Every cell with ring <= radius, sorted by (q, r); ``3 r (r + 1) + 1`` of them."""
    return tuple(
        (q, r) for q in range(-radius, radius + 1) for r in range(-radius, radius + 1) if ring((q, r)) <= radius
    )


def add(cell: Cell, d: Cell, k: int = 1) -> Cell:
    """``cell + k * d``."""
    return (cell[0] + k * d[0], cell[1] + k * d[1])


def neighbours(cell: Cell) -> tuple[Cell, ...]:
    """The six neighbouring cells (any ring)."""
    return tuple(add(cell, d) for d in DIRECTIONS)


def direction_between(a: Cell, b: Cell) -> Cell | None:
    """The direction from ``a`` to its neighbour ``b``; None when they are not neighbours."""
    d = (b[0] - a[0], b[1] - a[1])
    return d if d in DIRECTIONS else None


def are_neighbours(a: Cell, b: Cell) -> bool:
    return direction_between(a, b) is not None


def ray(cell: Cell, d: Cell, radius: int) -> Iterator[Cell]:
    """The cells from ``cell + d`` outwards along ``d`` while their ring is <= radius."""
    k = 1
    while True:
        c = add(cell, d, k)
        if ring(c) > radius:
            return
        yield c
        k += 1


def centres_board_mm(cells, pitch_mm: float) -> np.ndarray:
    """Cell centres in the board frame.

    Parameters
    ----------
    cells : array_like, shape (N, 2), axial (q, r)
    pitch_mm : float
        Centre-to-centre distance of neighbouring cells.

    Returns
    -------
    ndarray, shape (N, 2), mm
    """
    qr = np.asarray(cells, dtype=np.float64).reshape(-1, 2)
    return pitch_mm * np.stack([qr[:, 0] + qr[:, 1] / 2.0, qr[:, 1] * SQRT3 / 2.0], axis=1)


def nearest_cells(xy_board_mm, pitch_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """The cell containing each board-frame point, and the point's distance from that cell's centre.

    Parameters
    ----------
    xy_board_mm : array_like, shape (N, 2)
    pitch_mm : float

    Returns
    -------
    cells : ndarray, shape (N, 2), int64 axial
    dist_mm : ndarray, shape (N,)
    """
    xy = np.asarray(xy_board_mm, dtype=np.float64).reshape(-1, 2)
    r = xy[:, 1] * 2.0 / (SQRT3 * pitch_mm)
    q = xy[:, 0] / pitch_mm - r / 2.0
    # cube rounding
    x, z = q, r
    y = -x - z
    rx, ry, rz = np.round(x), np.round(y), np.round(z)
    dx, dy, dz = np.abs(rx - x), np.abs(ry - y), np.abs(rz - z)
    fix_x = (dx > dy) & (dx > dz)
    fix_z = ~fix_x & (dz >= dy)
    rx = np.where(fix_x, -ry - rz, rx)
    rz = np.where(fix_z, -rx - ry, rz)
    cells = np.stack([rx, rz], axis=1).astype(np.int64)
    dist = np.linalg.norm(centres_board_mm(cells, pitch_mm) - xy, axis=1)
    return cells, dist


def hexagon_board_mm(centre_mm, circumradius_mm: float) -> np.ndarray:
    """Corners of a pointy-top hexagon (corners at 30 + 60 k degrees, y down).

    Returns
    -------
    ndarray, shape (6, 2), mm
    """
    a = np.deg2rad(30.0 + 60.0 * np.arange(6))
    return np.asarray(centre_mm, dtype=np.float64) + circumradius_mm * np.stack([np.cos(a), np.sin(a)], axis=1)


@dataclass(frozen=True)
class HexBoardPose:
    """Where a hex board lies on the table.

    Attributes
    ----------
    centre_mm : tuple[float, float]
        The centre cell's centre, table mm.
    rotation_deg : float
        Board frame -> table rotation (y down, so positive turns clockwise on screen).
    pitch_mm : float
        Cell pitch (neighbouring centres), mm.
    """

    centre_mm: tuple[float, float]
    rotation_deg: float
    pitch_mm: float

    def rotation(self) -> np.ndarray:
        """The 2 x 2 matrix R of ``table = centre + R . board``."""
        a = np.deg2rad(self.rotation_deg)
        return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def to_table(self, xy_board_mm) -> np.ndarray:
        """Board frame (N, 2) mm -> table (N, 2) mm."""
        xy = np.asarray(xy_board_mm, dtype=np.float64).reshape(-1, 2)
        return xy @ self.rotation().T + np.asarray(self.centre_mm, dtype=np.float64)

    def to_board(self, xy_table_mm) -> np.ndarray:
        """Table (N, 2) mm -> board frame (N, 2) mm."""
        xy = np.asarray(xy_table_mm, dtype=np.float64).reshape(-1, 2)
        return (xy - np.asarray(self.centre_mm, dtype=np.float64)) @ self.rotation()

    def cell_centres_mm(self, cells) -> np.ndarray:
        """Table-mm centres (N, 2) of axial cells (N, 2)."""
        return self.to_table(centres_board_mm(cells, self.pitch_mm))

    def to_json(self) -> dict:
        return {"centre_mm": list(self.centre_mm), "rotation_deg": self.rotation_deg, "pitch_mm": self.pitch_mm}

    @classmethod
    def from_json(cls, obj: dict) -> HexBoardPose:
        c = obj["centre_mm"]
        return cls((float(c[0]), float(c[1])), float(obj["rotation_deg"]), float(obj["pitch_mm"]))
