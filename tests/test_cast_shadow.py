"""The light's direction from the chips' own shadows, and the boards moved back towards it (issue 10).

A Carrotain board's outline is fitted to the dimming of the board seen plus its shadow on the mat, so it was read
displaced towards its shadow (TUNE: median 1.4 mm away from the main light, ``tools/study_board_bias.py``). The chips'
2 mm shadows on the mat beyond their rims tell which way the shadows fall.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from scoring.carrotain_state import BoardReading
from vision.cast_shadow import (
    CastShadow,
    ShadowConfig,
    boards_toward_light,
    cast_shadow,
    chip_rings,
    points_from_patches,
)

S = 0.5  # mm per px of the synthetic chip-face view
SIZE_MM = 300.0
CHIPS = [(40.0 + 55.0 * (k % 5), 50.0 + 60.0 * (k // 5)) for k in range(15)]


def _view(shadow_mm: np.ndarray, noise: float, seed: int = 0) -> np.ndarray:
    """A dark mat with white chips (r 12.5 mm), each casting its disc's shadow ``shadow_mm`` away, plus noise."""
    n = int(SIZE_MM / S)
    yy, xx = (np.mgrid[0:n, 0:n] + 0.5) * S
    level = np.full((n, n), 0.12)
    for x, y in CHIPS:
        level[np.hypot(xx - x - shadow_mm[0], yy - y - shadow_mm[1]) < 12.5] = 0.07
    for x, y in CHIPS:
        level[np.hypot(xx - x, yy - y) < 12.5] = 0.9
    level += np.random.default_rng(seed).normal(0.0, noise, level.shape)
    return np.repeat(level[..., None], 3, axis=2).astype(np.float32)


def _patches(view: np.ndarray):
    def read(centre_mm, half_mm):
        x0, y0 = centre_mm[0] - half_mm, centre_mm[1] - half_mm
        i0, j0 = int(np.floor(y0 / S)), int(np.floor(x0 / S))
        k = int(np.ceil(2 * half_mm / S)) + 1
        return view[max(i0, 0):i0 + k, max(j0, 0):j0 + k], (max(j0, 0) * S, max(i0, 0) * S), S
    return read


@pytest.mark.parametrize("angle_deg", [20.0, 135.0, 250.0])
def test_the_chips_shadows_tell_which_way_the_light_casts_them(angle_deg):
    away = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    config = ShadowConfig()
    shadow = cast_shadow(chip_rings(points_from_patches(_patches(_view(2.5 * away, 0.02))), CHIPS, config), config)
    assert shadow is not None and shadow.n_chips == len(CHIPS)
    assert float(shadow.direction @ away) > np.cos(np.radians(10.0))
    assert shadow.significance >= config.min_significance


def test_no_shadow_no_direction():
    config = ShadowConfig()
    rings = chip_rings(points_from_patches(_patches(_view(np.zeros(2), 0.02, seed=3))), CHIPS, config)
    assert cast_shadow(rings, config) is None


def test_a_chip_whose_ring_leaves_the_view_is_not_read():
    config = ShadowConfig()
    points = points_from_patches(_patches(_view(np.array([2.0, 0.0]), 0.02)))
    rings = chip_rings(points, [*CHIPS, (5.0, 150.0)], config)
    assert np.isfinite(rings[:-1]).all() and np.isnan(rings[-1]).all()


def test_too_few_chips_no_direction():
    config = ShadowConfig()
    points = points_from_patches(_patches(_view(np.array([2.0, 0.0]), 0.02)))
    rings = chip_rings(points, CHIPS[:config.min_chips - 1], config)
    assert cast_shadow(rings, config) is None


def test_boards_are_moved_towards_the_light_unread_regions_are_not():
    square = np.array([[0.0, 0.0], [100.0, 0.0], [100.0, 80.0], [0.0, 80.0]])
    boards = [BoardReading("A", square, role="challenge"), BoardReading("B", square + 200.0, role="other"),
              BoardReading("?", square + 400.0, role="unread")]
    away = np.array([0.6, -0.8])
    config = ShadowConfig(board_shift_mm=1.0)
    moved = boards_toward_light(boards, CastShadow(away, 5.0, 10), config)
    assert np.allclose(moved[0].outline_mm, square - away) and np.allclose(moved[1].outline_mm, square + 200.0 - away)
    assert moved[2].outline_mm is boards[2].outline_mm
    assert boards_toward_light(boards, None, config) == boards
    assert shapely.Polygon(moved[0].outline_mm).area == pytest.approx(8000.0)


# ---------------------------------------------------------------- photoreal renders (tune-set photos, kit truth)

PHOTOS = ["carrotain_s100000_c11", "carrotain_s430000_c02", "carrotain_s471000_c02"]


def _read(name: str, board_shift_mm: float):
    """(item, state, cast shadow read) of one committed photoreal photo, the boards moved by ``board_shift_mm``."""
    from judge.games.carrotain import components_for
    from judge.pipeline import make_frame, parse_context
    from judge.registry import game as game_plugin
    from tests.carrotain_photoreal import ITEMS
    from tools.eval_photoreal import photo_as_delivered
    from vision import carrotain as reader
    from vision.carrotain import CarrotainVisionConfig, recognise

    item = ITEMS[name]
    plugin = game_plugin("carrotain")
    img = photo_as_delivered(item.images[-1], "none", 0)
    layout = plugin.marker_layout() if plugin.marker_layout is not None else None
    frame = make_frame(img, item.images[-1].name, None, layout)
    seen: list[CastShadow | None] = []

    def spy(rings, config):
        seen.append(cast_shadow(rings, config))
        return seen[-1]

    mp = pytest.MonkeyPatch()
    mp.setattr(reader, "cast_shadow", spy)
    try:
        config = CarrotainVisionConfig(shadow=ShadowConfig(board_shift_mm=board_shift_mm))
        state = recognise(img, frame.calibration, config=config, components=components_for(None),
                          players=parse_context(plugin, item.doc["context"]).players)
    finally:
        mp.undo()
    return item, state, (seen[-1] if seen else None)


def _centroid_errors(item, state) -> list[float]:
    out = []
    for tb in item.doc["scene"]["boards"]:
        read = [b for b in state.boards if b.id == tb["id"] and b.role == "challenge"]
        if tb.get("role") == "challenge" and read:
            got = np.asarray(shapely.Polygon(read[0].outline_mm).centroid.coords[0])
            out.append(float(np.hypot(*(got - np.asarray(shapely.Polygon(tb["outline_mm"]).centroid.coords[0])))))
    return out


@pytest.mark.parametrize("name", PHOTOS)
def test_on_photoreal_renders_the_boards_read_nearer_where_they_lie(name):
    from tools.study_board_bias import light_of

    item, before, _ = _read(name, 0.0)
    _, after, shadow = _read(name, ShadowConfig().board_shift_mm)
    assert shadow is not None, "the chips' shadows give a direction on this photo"
    away, _ = light_of(item)
    assert float(shadow.direction @ away) > np.cos(np.radians(45.0))  # the kit's main light, from the truth
    was, now = _centroid_errors(item, before), _centroid_errors(item, after)
    assert len(was) == len(now) == 2
    assert sum(now) < sum(was) - 0.5


def test_the_carrotain_ring_reader_reads_what_the_whole_patches_show():
    """``vision.carrotain``'s point reader resamples only the ring pixels (issue 11): the very values that picking them
    from its whole patches gives (``points_from_patches`` of ``_chip_patch_reader``), and the same rings, on a
    tune-set render and as a phone delivers it (a chip off the photo included)."""
    from judge.images import load_image
    from judge.pipeline import make_frame
    from tests.carrotain_photoreal import ITEMS
    from tools.device_sim import simulate
    from vision.carrotain import CarrotainVisionConfig, _chip_patch_reader, _chip_point_reader
    from vision.carrotain_view import colour_reference

    image = load_image(str(ITEMS["carrotain_s100000_c11"].images[0]))
    config = CarrotainVisionConfig()
    chips = [(60.0 + 37.3 * k, 55.0 + 23.9 * (k % 7)) for k in range(14)] + [(-30.0, 100.0)]
    for photo in (image, simulate(image, "phone", 7)):
        cal = make_frame(photo).calibration
        assert cal is not None
        ref = colour_reference(cal, photo)
        whole = points_from_patches(_chip_patch_reader(photo, cal, ref, config))
        fast = _chip_point_reader(photo, cal, ref, config)
        rings = [np.stack([x + np.arange(14.0, 16.1, 0.5)[:, None] * np.cos(np.arange(36) / 36 * 2 * np.pi)[None],
                           y + np.arange(14.0, 16.1, 0.5)[:, None] * np.sin(np.arange(36) / 36 * 2 * np.pi)[None]], -1)
                 for x, y in chips]
        want, got = whole(chips, 18.0, rings), fast(chips, 18.0, rings)
        for a, b in zip(want, got):
            assert a is not None and b is not None and a.dtype == b.dtype and a.shape == (5, 36, 3)
            np.testing.assert_array_equal(a, b)
        assert whole(chips, 12.0, rings) == fast(chips, 12.0, rings) == [None] * len(chips)  # rings off the patches
        np.testing.assert_array_equal(chip_rings(whole, chips, ShadowConfig()), chip_rings(fast, chips, ShadowConfig()))
