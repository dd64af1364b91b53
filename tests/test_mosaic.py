"""Mosaic shape analysis on hand-built cell sets, checked against hand-counted answers (pure geometry)."""

import numpy as np
import pytest

from geometry.mosaic import (
    analyse_shape,
    enclosed_holes,
    hexagon_vertices,
    illegal_contacts,
    longest_row_run,
    mirror_lr_axis,
    mirror_ud_axis,
    rotate_cell,
    rotate_direction,
    row_count,
    spiky_cells,
)
from geometry.trilattice import DIRECTIONS, cell_centroid, neighbour, vertex_cells

HEX = list(vertex_cells(0, 1))  # (-1,1) (0,1) (1,1) (-1,0) (0,0) (1,0)


def test_one_hexagon_and_an_incomplete_one():
    assert hexagon_vertices(HEX) == ((0, 1),)
    assert hexagon_vertices(HEX[:-1]) == ()
    assert hexagon_vertices(HEX + [(2, 0), (2, 1), (3, 1)]) == ((0, 1),)  # (2,1) lacks (3,0)


def test_hexagons_sharing_tiles():
    strip = [(i, j) for i in range(-1, 4) for j in (0, 1)]  # 2 rows x 5: hexagons at (0,1) and (2,1)
    assert hexagon_vertices(strip) == ((0, 1), (2, 1))
    big = [c for v in [(0, 1), (2, 1), (1, 0), (1, 2)] for c in vertex_cells(*v)]
    assert hexagon_vertices(big) == ((0, 1), (1, 0), (1, 2), (2, 1))


def test_single_hole_counts_two_cell_hole_does_not():
    # (0,0) points up: neighbours (0,-1) below, (-1,0) left, (1,0) right
    assert enclosed_holes([(0, -1), (-1, 0), (1, 0)]) == ((0, 0),)
    # empty pair (0,0)+(1,0), every other neighbour filled: no single hole
    assert enclosed_holes([(0, -1), (-1, 0), (1, 1), (2, 0)]) == ()
    # a hexagon with one cell missing is open to the outside: no hole
    assert enclosed_holes(HEX[1:]) == ()
    # a ring of 12 around a hexagon's centre cell? A full hexagon has no empty cell inside
    assert enclosed_holes(HEX) == ()


def test_rows_and_runs():
    cells = [(0, 0), (1, 0), (2, 0), (3, 0), (5, 0), (6, 0), (0, 1), (1, 1)]
    assert row_count(cells) == 2
    assert longest_row_run(cells) == ((0, 0), (1, 0), (2, 0), (3, 0))
    # a gap splits a row: 3 + 3 is a run of 3
    assert len(longest_row_run([(0, 0), (1, 0), (2, 0), (4, 0), (5, 0), (6, 0)])) == 3
    # a diagonal staircase joined through H edges is no run
    assert len(longest_row_run([(0, 0), (0, -1), (1, -1)])) == 2
    assert longest_row_run([]) == ()


def test_spiky():
    assert spiky_cells([(0, 0), (1, 0), (2, 0)]) == ((0, 0), (2, 0))
    assert spiky_cells([(0, 0)]) == ()  # touches nothing
    assert spiky_cells(HEX) == ()  # every hexagon tile touches two
    assert spiky_cells(HEX + [(0, -1)]) == ((0, -1),)


@pytest.mark.parametrize("cells, lr, ud", [
    ([(0, 0)], True, False),                       # one up triangle
    ([(0, 0), (1, 0)], False, False),              # parallelogram
    ([(0, 0), (0, -1)], True, True),               # diamond on its H edge
    ([(0, 0), (1, 0), (2, 0)], True, False),       # trapezoid
    (HEX, True, True),
    (HEX + [(0, -1)], True, False),                # hexagon with a tile below
    (HEX + [(2, 0)], False, False),                # hexagon with a tile at the side
    (HEX + [(2, 0), (-2, 0)], True, False),        # ... and its mirror image on the other side
    (HEX + [(2, 0), (-2, 0), (2, 1), (-2, 1)], True, True),
    ([(0, 0), (2, 0)], True, False),               # two apart (shape only, not connectivity)
])
def test_mirrors(cells, lr, ud):
    assert (mirror_lr_axis(cells) is not None) == lr
    assert (mirror_ud_axis(cells) is not None) == ud


def test_mirror_axes_are_lattice_lines():
    assert mirror_lr_axis([(3, 0), (4, 0), (5, 0)]) == 8  # i -> 8 - i
    assert mirror_ud_axis([(0, 2), (0, 3)]) == 5  # j -> 5 - j; (0,2) up, (0,3) down
    assert mirror_lr_axis([]) is None and mirror_ud_axis([]) is None


def test_rotation_is_a_lattice_symmetry():
    cells = [(i, j) for i in range(-4, 5) for j in range(-3, 4)]
    for c in cells:
        assert rotate_cell(c, 6) == c
        for s in range(6):
            a = np.radians(60 * s)
            x, y = np.subtract(cell_centroid(*c, 1.0), (0.5, 0.0))  # pivot: vertex (1, 0)
            want = (0.5 + x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a))
            assert np.allclose(cell_centroid(*rotate_cell(c, s), 1.0), want)
            for d in DIRECTIONS:
                assert neighbour(*rotate_cell(c, s), rotate_direction(d, s)) == rotate_cell(neighbour(*c, d), s)


def test_horizontal_override_turns_a_slanted_line_into_a_row():
    row = [(i, 0) for i in range(5)]
    slanted = [rotate_cell(c, 1) for c in row]  # a line along the P direction
    assert analyse_shape(slanted).longest_run < 5
    g = analyse_shape(slanted, horizontal="P")
    assert g.longest_run == 5 and g.rows == 1
    assert set(g.longest_run_cells) == set(slanted)  # reported in the input's cells
    g = analyse_shape([rotate_cell(c, 2) for c in row], horizontal="N")
    assert g.longest_run == 5 and g.rows == 1


def test_illegal_contacts():
    ok = {(0, 0): {"N": ("magenta", 2)}, (1, 0): {"N": ("magenta", 2)}}
    assert illegal_contacts(ok) == ()
    level = {(0, 0): {"N": ("magenta", 2)}, (1, 0): {"N": ("magenta", 3)}}
    (c,) = illegal_contacts(level)
    assert c.cells == ((0, 0), (1, 0)) and c.reason == "level" and c.direction == "N"
    colour = {(0, 0): {"H": ("yellow", 1)}, (0, -1): {"H": ("cyan", 1)}}
    assert [x.reason for x in illegal_contacts(colour)] == ["colour"]
    k_ok = {(0, 0): {"N": ("magenta", 2)}, (1, 0): {"N": ("magenta", None)}}
    assert illegal_contacts(k_ok) == ()
    k_bad = {(0, 0): {"N": ("magenta", 2)}, (1, 0): {"N": ("cyan", None)}}
    assert [x.reason for x in illegal_contacts(k_bad)] == ["colour"]
    apart = {(0, 0): {"N": ("magenta", 2)}, (3, 0): {"N": ("cyan", 2)}}
    assert illegal_contacts(apart) == ()


def test_analyse_shape_hand_counted():
    g = analyse_shape(HEX + [(0, -1)])
    assert g.hexagons == ((0, 1),) and g.holes == () and g.rows == 3 and g.longest_run == 3
    assert g.spiky == ((0, -1),) and g.mirror_lr and not g.mirror_ud
    j = g.to_json()
    assert j["spiky"] == 1 and j["hexagons"] == [[0, 1]]
