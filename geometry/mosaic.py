"""Shape analysis of a mosaic of triangles on the triangle lattice (CMYK! scoring geometry).

Cells follow ``geometry.trilattice``: cell ``(i, j)`` lies in row ``j``, ``(i + j)`` even points up,
lattice vertices are ``(k, l)`` with ``k + l`` odd. Rows are horizontal (the lattice's ``H`` edges);
:func:`rotate_cells` turns a mosaic by multiples of 60 degrees when another edge direction should count
as horizontal.

Everything here is pure: sets of integer cells in, integers/cells out (no images, no I/O).

Mirror lines (the lattice's own): a vertical mirror maps ``(i, j) -> (c - i, j)`` with ``c`` even (the
line ``x = c*e/4`` runs through lattice vertices and apexes); a horizontal mirror maps
``(i, j) -> (i, d - j)`` with ``d`` odd (the line is the lattice row boundary ``y = (d+1)/2 * h``), which
turns up cells into down cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from geometry.trilattice import DIRECTIONS, cell_vertex_ids, neighbour, neighbours, vertex_cells

Cell = tuple[int, int]
Vertex = tuple[int, int]

# Rotation by +60 degrees (counter-clockwise) sends an edge of direction d to ROTATE_DIR_CCW[d].
ROTATE_DIR_CCW = {"H": "P", "P": "N", "N": "H"}


@dataclass(frozen=True)
class MosaicGeometry:
    """Shape facts of one mosaic.

    Attributes
    ----------
    hexagons : tuple of (k, l)
        Lattice vertices with all six surrounding cells occupied, sorted.
    holes : tuple of (i, j)
        Empty cells whose three edge neighbours are all occupied, sorted.
    rows : int
        Number of lattice rows holding at least one tile.
    longest_run : int
        Most tiles edge-joined in a line along one row.
    longest_run_cells : tuple of (i, j)
        The cells of one longest run (left to right as seen with ``horizontal`` horizontal), in the
        input's cell coordinates.
    spiky : tuple of (i, j)
        Tiles touching exactly one other tile along an edge, sorted.
    mirror_lr_axis : int or None
        ``c`` of the vertical mirror ``i -> c - i`` the shape is symmetric about, or None (cells as
        turned by ``horizontal``, see :func:`analyse_shape`).
    mirror_ud_axis : int or None
        ``d`` of the horizontal mirror ``j -> d - j`` the shape is symmetric about, or None (idem).
    """

    hexagons: tuple[Vertex, ...]
    holes: tuple[Cell, ...]
    rows: int
    longest_run: int
    longest_run_cells: tuple[Cell, ...]
    spiky: tuple[Cell, ...]
    mirror_lr_axis: int | None
    mirror_ud_axis: int | None

    @property
    def mirror_lr(self) -> bool:
        """True when the shape is symmetric about a vertical lattice mirror line."""
        return self.mirror_lr_axis is not None

    @property
    def mirror_ud(self) -> bool:
        """True when the shape is symmetric about a horizontal lattice mirror line."""
        return self.mirror_ud_axis is not None

    def to_json(self) -> dict:
        return {
            "hexagons": [list(v) for v in self.hexagons],
            "holes": [list(c) for c in self.holes],
            "rows": self.rows,
            "longest_run": self.longest_run,
            "spiky": len(self.spiky),
            "mirror_lr": self.mirror_lr,
            "mirror_ud": self.mirror_ud,
            "mirror_lr_axis": self.mirror_lr_axis,
            "mirror_ud_axis": self.mirror_ud_axis,
            "spiky_cells": [list(c) for c in self.spiky],
            "longest_run_cells": [list(c) for c in self.longest_run_cells],
        }


def _cellset(cells: Iterable[Cell]) -> frozenset[Cell]:
    return frozenset((int(c[0]), int(c[1])) for c in cells)


def hexagon_vertices(cells: Iterable[Cell]) -> tuple[Vertex, ...]:
    """Lattice vertices (k, l) whose six surrounding cells are all occupied (hexagons may share tiles).

    Parameters
    ----------
    cells : iterable of (i, j)

    Returns
    -------
    tuple of (k, l), sorted
    """
    occ = _cellset(cells)
    candidates = {v for c in occ for v in cell_vertex_ids(*c)}
    return tuple(sorted(v for v in candidates if all(c in occ for c in vertex_cells(*v))))


def enclosed_holes(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """Empty single cells whose three edge neighbours are all occupied.

    A hole of two or more empty cells never qualifies: each of its cells has an empty neighbour.

    Returns
    -------
    tuple of (i, j), sorted
    """
    occ = _cellset(cells)
    empty_next = {n for c in occ for n in neighbours(*c).values() if n not in occ}
    return tuple(sorted(e for e in empty_next if all(n in occ for n in neighbours(*e).values())))


def row_count(cells: Iterable[Cell]) -> int:
    """Number of distinct lattice rows ``j`` holding at least one cell."""
    return len({c[1] for c in _cellset(cells)})


def longest_row_run(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """One longest run of consecutive cells ``(i, j), (i+1, j), ...`` in a single row.

    Consecutive cells of a row share a P or N edge, so a run is a line of edge-joined tiles; a gap
    splits a row into separate runs. Ties: the lowest row, then the leftmost run.

    Returns
    -------
    tuple of (i, j), left to right; empty when there are no cells
    """
    occ = _cellset(cells)
    best: tuple[Cell, ...] = ()
    for i, j in sorted(occ, key=lambda c: (c[1], c[0])):
        if (i - 1, j) in occ:
            continue  # not the start of a run
        n = 1
        while (i + n, j) in occ:
            n += 1
        if n > len(best):
            best = tuple((i + t, j) for t in range(n))
    return best


def edge_contacts(cells: Iterable[Cell]) -> dict[Cell, int]:
    """Number of occupied edge neighbours of every occupied cell."""
    occ = _cellset(cells)
    return {c: sum(n in occ for n in neighbours(*c).values()) for c in occ}


def spiky_cells(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """Cells touching exactly one other cell along an edge, sorted."""
    return tuple(sorted(c for c, n in edge_contacts(cells).items() if n == 1))


def mirror_lr_axis(cells: Iterable[Cell]) -> int | None:
    """The vertical lattice mirror ``(i, j) -> (c - i, j)`` (``c`` even) the shape maps onto itself by.

    Only one position can work (it must map the extreme columns onto each other), so this tries
    ``c = min i + max i``. Returns None for an empty shape or when no vertical mirror line fits.
    """
    occ = _cellset(cells)
    if not occ:
        return None
    c = min(x[0] for x in occ) + max(x[0] for x in occ)
    if c % 2:
        return None
    return c if all((c - i, j) in occ for i, j in occ) else None


def mirror_ud_axis(cells: Iterable[Cell]) -> int | None:
    """The horizontal lattice mirror ``(i, j) -> (i, d - j)`` (``d`` odd) the shape maps onto itself by.

    Such a mirror swaps up and down cells (the line is a row boundary). Only ``d = min j + max j`` can
    work. Returns None for an empty shape or when no horizontal mirror line fits.
    """
    occ = _cellset(cells)
    if not occ:
        return None
    d = min(x[1] for x in occ) + max(x[1] for x in occ)
    if d % 2 == 0:
        return None
    return d if all((i, d - j) in occ for i, j in occ) else None


def rotate_cell(cell: Cell, steps: int) -> Cell:
    """Rotate a cell by ``steps`` x 60 degrees counter-clockwise about lattice vertex (1, 0).

    Uses lattice units ``X = 2x/e``, ``Y = y/h`` in which a +60 degree turn is
    ``X' = (X - 3Y)/2``, ``Y' = (X + Y)/2``; the cell is recovered from its rotated centroid
    (exact thirds, so the arithmetic is done in integers scaled by 6).
    """
    i, j = int(cell[0]), int(cell[1])
    up = (i + j) % 2 == 0
    # centroid scaled by 6: X6 = 6*(i - 1) about the pivot, Y6 = 6j + 2 (up) or 6j + 4 (down)
    x6, y6 = 6 * (i - 1), 6 * j + (2 if up else 4)
    for _ in range(steps % 6):
        x6, y6 = (x6 - 3 * y6) // 2, (x6 + y6) // 2
    j2 = y6 // 6
    return (x6 // 6 + 1, j2)


def rotate_cells(cells: Iterable[Cell], steps: int) -> tuple[Cell, ...]:
    """Rotate every cell by ``steps`` x 60 degrees counter-clockwise (see :func:`rotate_cell`)."""
    return tuple(rotate_cell(c, steps) for c in cells)


def rotate_direction(direction: str, steps: int) -> str:
    """The edge direction an edge of ``direction`` takes after ``steps`` x 60 degrees counter-clockwise."""
    d = direction
    for _ in range(steps % 3):
        d = ROTATE_DIR_CCW[d]
    return d


def steps_making_horizontal(direction: str) -> int:
    """Counter-clockwise 60-degree steps that turn edges of ``direction`` horizontal (0, 1 or 5)."""
    return {"H": 0, "N": 1, "P": 5}[direction]


@dataclass(frozen=True)
class IllegalContact:
    """Two touching tiles whose shared edges disagree.

    Attributes
    ----------
    cells : ((i, j), (i, j))
        The two cells, sorted.
    direction : str
        Direction of the shared edge.
    reason : str
        ``"colour"`` or ``"level"``.
    """

    cells: tuple[Cell, Cell]
    direction: str
    reason: str

    def to_json(self) -> dict:
        return {"cells": [list(c) for c in self.cells], "direction": self.direction, "reason": self.reason}


EdgeMarks = Mapping[str, tuple[str, "int | None"]]


def illegal_contacts(edges_by_cell: Mapping[Cell, EdgeMarks]) -> tuple[IllegalContact, ...]:
    """Every pair of touching tiles whose shared edges differ in colour, or in level.

    Parameters
    ----------
    edges_by_cell : mapping (i, j) -> {direction: (colour, level)}
        ``level`` None means wild (a K tile): such an edge must match in colour only.
        An edge missing from a tile's mapping is not judged.

    Returns
    -------
    tuple of IllegalContact, sorted by cells
    """
    out = []
    for cell, edges in edges_by_cell.items():
        for d in DIRECTIONS:
            other = neighbour(cell[0], cell[1], d)
            if other not in edges_by_cell or other < cell:
                continue  # each pair once
            a, b = edges.get(d), edges_by_cell[other].get(d)
            if a is None or b is None:
                continue
            if a[0] != b[0]:
                out.append(IllegalContact((cell, other), d, "colour"))
            elif a[1] is not None and b[1] is not None and a[1] != b[1]:
                out.append(IllegalContact((cell, other), d, "level"))
    return tuple(sorted(out, key=lambda c: c.cells))


def analyse_shape(cells: Iterable[Cell], horizontal: str = "H") -> MosaicGeometry:
    """All shape facts of a mosaic.

    Parameters
    ----------
    cells : iterable of (i, j)
        Occupied cells.
    horizontal : {"H", "P", "N"}
        Which lattice edge direction counts as horizontal for rows, runs and mirrors. Hexagons, holes
        and spiky tiles do not depend on it and are reported in the input's cell coordinates.

    Returns
    -------
    MosaicGeometry
    """
    occ = _cellset(cells)
    steps = steps_making_horizontal(horizontal)
    turned = _cellset(rotate_cells(occ, steps))
    run = longest_row_run(turned)
    return MosaicGeometry(
        hexagons=hexagon_vertices(occ),
        holes=enclosed_holes(occ),
        rows=row_count(turned),
        longest_run=len(run),
        longest_run_cells=rotate_cells(run, -steps),
        spiky=spiky_cells(occ),
        mirror_lr_axis=mirror_lr_axis(turned),
        mirror_ud_axis=mirror_ud_axis(turned),
    )
