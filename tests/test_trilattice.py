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


# ------------------------------------------------------------------ the lattice placed on the table


def _lattices():
    from geometry.trilattice import TriangleLattice

    yield TriangleLattice(vertex_mm=np.array([12.0, -30.0]), rotation_deg=17.0, edge_mm=60.0)  # a Kaleido fit
    yield TriangleLattice.from_axis(np.array([-4.0, 8.0]), np.array([np.cos(3.0), np.sin(3.0)]), 45.0)  # a CMYK! frame


@pytest.mark.parametrize("lat", list(_lattices()))
def test_placed_lattice_frames_agree(lat):
    """Vertex steps (a, b), lattice-frame ids (k, l) and table mm name the same vertices; the frames round-trip."""
    e = lat.edge_mm
    ab = np.array([[0, 0], [1, 0], [0, 1], [-2, 3], [4, -1]])
    kl = lat.vertex_ids(ab)
    assert np.all((kl.sum(axis=1) % 2) == 1)  # lattice vertices
    lattice_xy = np.stack([kl[:, 0] * e / 2, kl[:, 1] * row_height(e)], axis=1)
    assert np.allclose(lat.to_table(lattice_xy), lat.vertex(ab), atol=1e-9)
    assert np.allclose(lat.coords(lat.vertex(ab)), ab, atol=1e-9)
    assert np.allclose(lat.from_table(lat.to_table(lattice_xy)), lattice_xy, atol=1e-9)
    assert np.allclose(lat.vertex([[0, 0]])[0], lat.to_table([[e / 2, 0.0]])[0])


@pytest.mark.parametrize("lat", list(_lattices()))
def test_placed_lattice_is_right_handed_with_y_up_the_photo(lat):
    """Lattice +y is the table's -y side of ``right`` (table y points down the photo)."""
    r, u = lat.right, lat.up
    assert np.isclose(np.linalg.norm(r), 1.0) and np.isclose(r @ u, 0.0)
    assert np.isclose(r[0] * u[1] - r[1] * u[0], -1.0)  # clockwise in y-down coordinates = counter-clockwise on screen
    flat = type(lat)(vertex_mm=np.zeros(2), rotation_deg=0.0, edge_mm=lat.edge_mm)
    assert np.allclose(flat.up, [0.0, -1.0])
    cell = flat.to_table(cell_vertices(0, 0, flat.edge_mm))  # an up cell: its apex has the smallest table y
    assert np.argmin(cell[:, 1]) == 2


@pytest.mark.parametrize("lat", list(_lattices()))
def test_kaleido_hexagons_are_the_six_lattice_cells_round_a_vertex(lat):
    """A Kaleido board centred on a vertex has, as its six holes, the lattice cells around that vertex."""
    from geometry.hexboards import board_cells

    ab = np.array([[2, -1]])
    (k, l), = lat.vertex_ids(ab)
    holes = board_cells(lat.vertex(ab)[0], lat.rotation_deg, lat.edge_mm)  # (6, 3, 2)
    cells = [lat.to_table(cell_vertices(i, j, lat.edge_mm)) for i, j in vertex_cells(int(k), int(l))]
    key = lambda tri: tuple(np.round(tri.mean(axis=0), 6))  # noqa: E731
    assert sorted(map(key, holes)) == sorted(map(key, cells))


def test_placed_lattice_rejects_an_axis_off_its_angle():
    from geometry.trilattice import TriangleLattice

    with pytest.raises(ValueError):
        TriangleLattice(vertex_mm=np.zeros(2), rotation_deg=10.0, edge_mm=45.0, right=np.array([1.0, 0.0]))
