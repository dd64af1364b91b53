"""Triangle lattice bookkeeping: shared edges and vertices agree from both sides (pure geometry)."""

import numpy as np
import pytest

from geometry.trilattice import (
    DIRECTIONS,
    cell_centroid,
    cell_vertex_ids,
    cell_vertices,
    edge_endpoints,
    neighbour,
    row_height,
    vertex_cells,
)

CELLS = [(0, 0), (1, 0), (3, -2), (2, -1), (-5, 4)]


@pytest.mark.parametrize("cell", CELLS)
def test_shared_edges_agree(cell):
    for d in DIRECTIONS:
        n = neighbour(*cell, d)
        assert neighbour(*n, d) == cell
        a = sorted(map(tuple, np.round(edge_endpoints(*cell, d, 45.0), 9)))
        b = sorted(map(tuple, np.round(edge_endpoints(*n, d, 45.0), 9)))
        assert a == b


@pytest.mark.parametrize("cell", CELLS)
def test_vertices_and_centroid(cell):
    e = 45.0
    v = cell_vertices(*cell, e)
    assert np.allclose(v.mean(axis=0), cell_centroid(*cell, e))
    assert np.allclose(np.linalg.norm(v - np.roll(v, 1, axis=0), axis=1), e)
    for k, l in cell_vertex_ids(*cell):
        assert cell in vertex_cells(k, l)
        assert np.min(np.linalg.norm(v - [k * e / 2, l * row_height(e)], axis=1)) < 1e-9


def test_vertex_must_have_odd_parity():
    with pytest.raises(ValueError):
        vertex_cells(0, 0)
