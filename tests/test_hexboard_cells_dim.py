"""The hex-board cell reader in dim light under a strong cast (vision.hexboard_cells): a dark face's weakest channel
a few levels off is not a symbol, tiles on a grey ring are not 'a hand', and the symbols are still read."""

from __future__ import annotations

import numpy as np

from components import load_components
from synth.ingenious import draw_symbol
from vision.hexboard import TopView
from vision.hexboard_cells import HUE_DEG, read_cells

# A warm lamp under a daylight white balance, 1.3 EV under: 8-bit levels of the faces as photographed
TILE_FACE = np.array([150.0, 108.0, 66.0])  # the off-white tile face
RING7_FACE = np.array([72.0, 52.0, 32.0])  # the board's darkest ring (components: ring 7, grey)


def _view(img: np.ndarray) -> TopView:
    u8 = np.clip(np.round(img), 0, 255).astype(np.uint8)
    return TopView(u8, u8.mean(axis=2).astype(np.float32) + 1.0, (0.0, 0.0), 1.0, 6.0)


def _row(n: int, face: np.ndarray) -> np.ndarray:
    img = np.zeros((40, 40 * n, 3), np.float32)
    img[:] = face
    return img


def _centres(n: int) -> np.ndarray:
    return np.array([[40 * k + 19.5, 19.5] for k in range(n)])


def test_a_dark_face_a_few_levels_off_in_its_weakest_channel_is_empty():
    # the disc of an empty dark cell 4 levels lower in blue than its face ring (JPEG, the tone curve's toe): an
    # eighth of that channel, which the reader used to take for a yellow symbol
    img = _row(3, RING7_FACE)
    yy, xx = np.mgrid[0:40, 0:120]
    for k in range(3):
        disc = np.hypot(xx - (40 * k + 19.5), yy - 19.5) <= 9.0
        img[disc] = RING7_FACE - np.array([0.0, 1.0, 4.0])
    got = read_cells(_view(img), _centres(3), HUE_DEG)
    assert [r.colour for r in got] == [None, None, None]


def test_symbols_on_tiles_under_the_cast_are_read():
    comp = load_components()["ingenious"]["tile"]["colours"]
    cols = list(HUE_DEG)
    img = _row(len(cols), TILE_FACE / 255.0)
    gain = TILE_FACE / np.array([242.0, 240.0, 232.0])
    for k, c in enumerate(cols):
        ink = np.array(comp[c]["rgb"], dtype=np.float64) * gain / 255.0
        draw_symbol(img, c, (40 * k + 19.5, 19.5), 1.0, 11.0 * k, tuple(ink), tuple(TILE_FACE / 255.0))
    got = read_cells(_view(img * 255.0), _centres(len(cols)), HUE_DEG)
    assert [r.colour for r in got] == cols


def test_tiles_on_a_grey_ring_are_not_taken_for_a_hand():
    # a ring of the board's grey cells with three tiles on it: under the cast, the tiles' off-white face differs
    # from the grey face by a third in tint; compared with the tiles' own face, it is no foreign object
    comp = load_components()["ingenious"]["tile"]["colours"]
    n, tiles = 9, (2, 5, 7)
    img = _row(n, RING7_FACE)
    rng = np.random.default_rng(0)
    tile_face = TILE_FACE * np.array([1.0, 1.0, 1.5])  # the tiles' face seen bluer than the grey (a third)
    for k in tiles:
        img[:, 40 * k + 2:40 * k + 38] = tile_face
        ink = np.array(comp["red"]["rgb"], dtype=np.float64) * tile_face / np.array([242.0, 240.0, 232.0])
        draw_symbol(img, "red", (40 * k + 19.5, 19.5), 1.0, 0.0, tuple(ink), tuple(tile_face))
    img = img + rng.normal(0.0, 1.0, img.shape)
    got = read_cells(_view(img), _centres(n), HUE_DEG, groups=np.zeros(n, dtype=np.int64))
    assert [got[k].colour for k in tiles] == ["red"] * 3
    assert not [r.doubt for r in got if r.doubt]
    # a hand's skin over one cell of the ring is still foreign to both faces
    skin = np.array([120.0, 60.0, 20.0])
    img[:, 40 * 4:40 * 4 + 40] = skin
    got = read_cells(_view(img), _centres(n), HUE_DEG, groups=np.zeros(n, dtype=np.int64))
    assert "not board or tile colour" in got[4].doubt
