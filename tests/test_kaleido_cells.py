"""Kaleido hole reading: colours seen through glare, tinted white tiles, and where the bare table is sampled."""

import numpy as np
import pytest

from geometry.trilattice import TriangleLattice
from vision.colour import lab_to_linear, linear_to_srgb, rgb_to_lab
from vision.kaleido import KaleidoVisionConfig, _table_cells, tile_palette_from_components
from vision.kaleido_cells import CellConfig, CellFeatures, classify_cells

PALETTE = tile_palette_from_components()
DARK_TABLE_LAB = (30.0, 4.0, 10.0)


def _features(lab: np.ndarray, xy_mm: np.ndarray, texture: float = 1.0) -> CellFeatures:
    lab = np.asarray(lab, dtype=np.float64).reshape(-1, 3)
    return CellFeatures(lab=lab, texture=np.full(len(lab), texture), valid=np.ones(len(lab), dtype=bool),
                        xy_mm=np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2))


def _table(n: int = 12) -> CellFeatures:
    """Bare dark-wood table examples around the origin."""
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return _features(np.tile(DARK_TABLE_LAB, (n, 1)), np.column_stack([150 * np.cos(ang), 150 * np.sin(ang)]),
                     texture=2.0)


def _palette_lab(name: str) -> np.ndarray:
    return rgb_to_lab(np.asarray(PALETTE[name], dtype=np.float64)[None] / 255.0)[0]


def _glared(name: str, colour: float, glare: float) -> np.ndarray:
    """A tile's colour seen through specular glare: colour * tile + glare * white, in linear light."""
    lin = colour * lab_to_linear(_palette_lab(name)[None]) + glare * lab_to_linear(_palette_lab("white")[None])
    return rgb_to_lab(linear_to_srgb(lin))[0]


@pytest.mark.parametrize("name", ["red", "yellow", "green", "blue", "purple"])
def test_tile_washed_out_by_glare_keeps_its_colour(name):
    # a board of six holes: the glared tile among five clean tiles of the other colours and white
    others = [n for n in PALETTE if n != name]
    lab = np.array([_glared(name, 0.7, 0.3)] + [_palette_lab(n) for n in others])
    xy = np.column_stack([np.arange(len(lab)) * 20.0, np.zeros(len(lab))])
    names, conf = classify_cells(_features(lab, xy), _table(), PALETTE, CellConfig())
    assert names[0] == name, (names, conf)
    assert names[1:] == others


@pytest.mark.parametrize("tint_ab", [(9.0, 4.0), (-8.0, 6.0), (3.0, -9.0), (6.0, 8.0)])
def test_tinted_or_glared_white_tile_stays_white(tint_ab):
    white = _palette_lab("white")
    lab = np.array([[white[0] + 12.0, white[1] + tint_ab[0], white[2] + tint_ab[1]], _palette_lab("red"),
                    _palette_lab("blue")])
    names, _ = classify_cells(_features(lab, np.zeros((3, 2))), _table(), PALETTE, CellConfig())
    assert names == ["white", "red", "blue"]


def test_bare_table_is_sampled_where_no_hole_shows():
    # one board at the origin; around it a bare-table place and a place showing 3 holes (a board the search
    # missed, its holes holding tiles): only the bare place gives table samples
    cfg = KaleidoVisionConfig()
    lattice = TriangleLattice(vertex_mm=np.zeros(2), rotation_deg=0.0, edge_mm=cfg.edge_mm)
    step = cfg.edge_mm * np.sqrt(3.0)
    V = np.array([[0.0, 0.0], [step, 0.0], [-step, 0.0]])
    present = np.array([[True] * 6, [False] * 6, [True, True, True, False, False, False]])
    accepted = np.array([True, False, False])
    tris = _table_cells(V, np.zeros_like(V), np.zeros(3, int), 0, accepted, present, lattice, cfg)
    assert len(tris) == 6
    assert np.allclose(tris.reshape(-1, 2).mean(axis=0), V[1])
    # with no bare place at all, the partly seen one is still better than nothing
    tris = _table_cells(V[[0, 2]], np.zeros((2, 2)), np.zeros(2, int), 0, accepted[[0, 2]], present[[0, 2]],
                        lattice, cfg)
    assert len(tris) == 3


def test_phone_boosted_blue_is_told_from_purple_by_hue():
    # median CIELAB of one photo's holes as a phone delivered it (local tone mapping, saturation boost):
    # its blue tiles gained as much a* as the purple ones have, only their hue still tells them apart
    blue, purple, red, white = [27.0, 46.0, -76.0], [29.0, 56.0, -55.0], [44.0, 69.0, 57.0], [101.0, -1.0, 3.0]
    lab = np.array([blue] * 4 + [purple] * 4 + [red] * 3 + [white] * 3)
    names, _ = classify_cells(_features(lab, np.zeros((len(lab), 2))), _table(), PALETTE, CellConfig())
    assert names == ["blue"] * 4 + ["purple"] * 4 + ["red"] * 3 + ["white"] * 3


def test_a_tile_between_two_colours_is_still_surely_a_tile():
    from vision.kaleido_cells import read_cells

    between = 0.5 * (_palette_lab("blue") + _palette_lab("purple"))
    lab = np.array([between, DARK_TABLE_LAB, _palette_lab("red")])
    r = read_cells(_features(lab, np.zeros((3, 2))), _table(), PALETTE, CellConfig())
    assert r.confidence[0] < 0.6 <= r.tile_confidence[0]  # which colour is in doubt, that it is a tile is not
    assert r.names[1] == "empty" and r.tile_confidence[1] == 0.0
    assert r.names[2] == "red" and r.tile_confidence[2] >= 0.6


def _light_table(n: int = 12, lightness: float = 87.0) -> CellFeatures:
    """Bare light-grey table examples around the origin (slightly warm, a little texture)."""
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return _features(np.tile([lightness, 0.5, 5.0], (n, 1)), np.column_stack([150 * np.cos(ang), 150 * np.sin(ang)]),
                     texture=1.3)


def test_phone_lifted_empty_holes_are_told_from_its_lifted_white_tiles():
    # median CIELAB of one photo's holes as a phone delivered it (kaleido_dev_h1 under tools/device_sim's phone):
    # the local tone mapping lifted the board area, its white tiles above paper white (L* 101-105) and the light
    # table seen through its empty holes above the bare table beside the boards (L* 92-95 against 87), right
    # where the printed white tile is: the photo's own white tiles, clearly above the table, tell them apart
    whites = [[101.5, -1.4, 1.4], [101.3, -0.2, 2.5], [103.9, -0.7, 2.4], [105.4, -0.4, 2.4]]
    empties = [[92.6, 0.4, 4.9], [94.5, -0.7, 6.2], [92.3, 0.5, 5.1], [92.4, 0.5, 5.1], [90.2, 0.4, 4.9]]
    colours = [[44.0, 69.0, 57.0], [27.0, 46.0, -76.0], [85.0, 5.0, 80.0]]
    lab = np.array(whites + empties + colours)
    names, conf = classify_cells(_features(lab, np.zeros((len(lab), 2)), texture=1.3), _light_table(), PALETTE,
                                 CellConfig())
    assert names[:4] == ["white"] * 4, (names, conf)
    assert names[4:9] == ["empty"] * 5, (names, conf)
    assert names[9:] == ["red", "blue", "yellow"]


def test_lifted_empty_holes_without_white_tiles_are_not_surely_white():
    # the same lifted empty holes on a board without white tiles: nothing stands clearly above the table, the
    # printed white is not moved, and whatever the holes are read as, white is never a sure reading
    empties = [[92.6, 0.4, 4.9], [94.5, -0.7, 6.2], [92.3, 0.5, 5.1], [93.4, 0.5, 5.1]]
    lab = np.array(empties + [[44.0, 69.0, 57.0], [27.0, 46.0, -76.0]])
    names, conf = classify_cells(_features(lab, np.zeros((len(lab), 2)), texture=1.3), _light_table(), PALETTE,
                                 CellConfig())
    assert all(n != "white" or c <= CellConfig().neutral_table_conf for n, c in zip(names[:4], conf[:4])), (names, conf)
    assert names[4:] == ["red", "blue"]


def test_white_tiles_in_the_tables_cast_are_told_from_empty_holes_by_standing_above_it():
    # median CIELAB of one photo's holes as a dim webcam delivered it (kaleido_dev_h1 under tools/device_sim's
    # webcam, seed 0): a pink cast gives the white tiles the bare table's own chroma, so at first they read as the
    # table (empty); they stand 10-15 L* above the table beside them, which an empty hole showing that table
    # does not, and they, not the printed colour, are the white tile's witnesses
    whites = [[108.7, 5.0, 1.6], [108.3, 5.0, 1.6], [109.9, 4.9, 1.5]]
    empties = [[91.1, 5.6, 2.1], [91.2, 5.6, 2.0], [93.3, 5.3, 2.6], [96.0, 5.4, 2.2]]
    colours = [[44.0, 69.0, 57.0], [27.0, 46.0, -76.0]]
    lab = np.array(whites + empties + colours)
    ang = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    table = _features(np.tile([95.0, 5.5, 2.0], (12, 1)), np.column_stack([150 * np.cos(ang), 150 * np.sin(ang)]),
                      texture=0.5)
    names, conf = classify_cells(_features(lab, np.zeros((len(lab), 2)), texture=1.2), table, PALETTE, CellConfig())
    assert names[:3] == ["white"] * 3, (names, conf)
    assert names[3:7] == ["empty"] * 4, (names, conf)
    assert names[7:] == ["red", "blue"]


def _lit(lab: np.ndarray, gain: float) -> np.ndarray:
    """Colours under ``gain`` times more light, in linear light."""
    return rgb_to_lab(linear_to_srgb(gain * lab_to_linear(np.asarray(lab, dtype=np.float64).reshape(-1, 3))))


def test_empty_holes_under_a_light_patch_are_no_white_witnesses():
    # a light grey table; a patch of light over one end of the board lifts the table seen through its empty
    # holes well above the bare table beside the board (which the patch misses), as high as a white tile can
    # stand above it; the coloured tiles under the patch are lifted alike, so those holes witness the light,
    # not the white tile: the white tile is learnt from the two white tiles outside the patch, and the lit
    # holes stay empty
    table_lab = np.array([70.0, 1.0, 4.0])
    white = np.array([100.0, -0.5, 2.0])
    colours = [_palette_lab(n) for n in ("red", "blue", "yellow", "green", "purple")]
    cols, rows = 6, 4
    xy = np.array([[35.0 * c - 87.5, 35.0 * r - 52.5] for r in range(rows) for c in range(cols)])
    lab = np.array([colours[i % len(colours)] for i in range(len(xy))])
    lit = xy[:, 0] > 40.0  # the two columns at the right end
    holes_lit = np.flatnonzero(lit)[[0, 3, 5, 6]]
    whites = np.flatnonzero(~lit)[[2, 9]]
    lab[holes_lit] = table_lab
    lab[whites] = white
    gain = 1.5
    lab[lit] = _lit(lab[lit], gain)
    assert np.all(lab[holes_lit, 0] - table_lab[0] >= CellConfig().neutral_above_table_de)
    ang = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    table = _features(np.tile(table_lab, (12, 1)), np.column_stack([250 * np.cos(ang), 250 * np.sin(ang)]),
                      texture=0.5)
    names, conf = classify_cells(_features(lab, xy, texture=1.2), table, PALETTE, CellConfig())
    assert [names[i] for i in holes_lit] == ["empty"] * 4, (names, conf)
    assert [names[i] for i in whites] == ["white"] * 2, (names, conf)
    others = np.setdiff1d(np.arange(len(xy)), np.r_[holes_lit, whites])
    assert [names[i] for i in others] == [("red", "blue", "yellow", "green", "purple")[i % 5] for i in others]
