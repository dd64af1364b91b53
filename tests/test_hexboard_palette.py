"""Per-photo symbol hue prototypes from the printed start symbols (vision.hexboard_palette), and an Ingenious pair
under a strong camera colour cast read right through them."""

from __future__ import annotations

import numpy as np
import pytest

from judge.pipeline import judge_images
from judge.registry import game as get_game
from synth.ingenious import after_tiles, render_pair
from vision.colour import linear_to_srgb, srgb_to_linear
from vision.hexboard_cells import HUE_DEG, CellReading
from vision.hexboard_palette import PaletteConfig, measured_shifts, photo_prototypes

# radial profiles (centre fill, outer fill) that agree with each colour's symbol (vision.hexboard_cells.OUTER_FILL)
PROFILE = {"red": (1.0, 0.95), "orange": (1.0, 0.3), "yellow": (1.0, 0.3), "green": (1.0, 0.6),
           "blue": (0.0, 0.95), "purple": (1.0, 0.5)}


def _printed(hues: dict[str, float], fill: float = 0.8, profile: dict | None = None) -> dict[str, CellReading]:
    prof = profile or PROFILE
    return {c: CellReading(c, fill, h, 20.0, prof[c][0], prof[c][1], "", 0.7) for c, h in hues.items()}


def _wrap(d: float) -> float:
    return (d + 180.0) % 360.0 - 180.0


def test_every_printed_symbol_sets_its_colours_prototype():
    seen = {c: (h + s) % 360.0 for (c, h), s in zip(HUE_DEG.items(), (12, 7, 3, -40, 4, 9), strict=True)}
    protos, anchors = photo_prototypes(HUE_DEG, _printed(seen))
    assert set(anchors) == set(HUE_DEG)
    assert all(abs(_wrap(protos[c] - seen[c])) < 1e-9 for c in HUE_DEG)


def test_a_hidden_symbol_takes_its_neighbours_shift():
    # green's printed symbol is under a hand: its shift is interpolated between yellow's (+3) and blue's (+13)
    seen = {"red": 6.0, "orange": 29.0, "yellow": 50.0, "blue": 233.0, "purple": 290.0}
    protos, anchors = photo_prototypes(HUE_DEG, _printed(seen))
    assert "green" not in anchors and len(anchors) == 5
    t = (HUE_DEG["green"] - HUE_DEG["yellow"]) / (HUE_DEG["blue"] - HUE_DEG["yellow"])
    assert protos["green"] == pytest.approx(HUE_DEG["green"] + 3.0 + t * 10.0)
    # nothing measured: the nominal prototypes
    assert photo_prototypes(HUE_DEG, {}) == (HUE_DEG, ())


def test_unusable_printed_symbols_are_not_measured():
    seen = {c: (h + 10.0) % 360.0 for c, h in HUE_DEG.items()}
    assert measured_shifts(HUE_DEG, _printed(seen, fill=0.1)) == {}  # faint: not clearly a symbol
    hollow = {c: (0.0, p[1]) for c, p in PROFILE.items()}  # every centre empty: only blue's ring agrees
    assert set(measured_shifts(HUE_DEG, _printed(seen, profile=hollow))) == {"blue"}
    far = dict(seen, green=HUE_DEG["green"] + 80.0)  # a hand's or a sleeve's colour over green's symbol
    assert "green" not in measured_shifts(HUE_DEG, _printed(far), PaletteConfig(max_shift_deg=50.0))


def test_prototypes_keep_the_colours_order():
    # orange's printed symbol read past yellow (a glare on it): dropped, the others kept
    seen = {c: h for c, h in HUE_DEG.items()}
    seen["orange"] = 52.0
    protos, anchors = photo_prototypes(HUE_DEG, _printed(seen))
    assert "orange" not in anchors and len(anchors) == 5
    order = sorted(HUE_DEG, key=lambda c: protos[c])
    assert order == sorted(HUE_DEG, key=lambda c: HUE_DEG[c])


# A camera's colour matrix under a white balance set for daylight while a warm lamp lights the table, in dim light
# (linear RGB, rows: out R, G, B): its cross terms are not undone by the per-cell white reference and move each ink's
# hue by its own amount (red towards orange, green towards yellow), as in the photoreal casts (ing_hard_tune).
WARM_CAST = np.array([[1.0, 0.25, 0.0], [0.05, 0.75, 0.0], [0.0, 0.1, 0.35]])


def _cast(rgb: np.ndarray, matrix: np.ndarray, gain: float = 0.6) -> np.ndarray:
    lin = srgb_to_linear(rgb / 255.0) @ matrix.T * gain
    return np.clip(np.round(linear_to_srgb(lin) * 255.0), 0, 255).astype(np.uint8)


def test_a_pair_under_a_strong_camera_cast_is_read_right():
    from calibration.table import calibrate_from_markers
    from vision.ingenious import BOARD_CELLS, IngeniousVisionConfig, marker_layout, read_board

    p = render_pair(3)
    before, after = _cast(p.before_rgb, WARM_CAST), _cast(p.after_rgb, WARM_CAST)
    exp = p.truth["expected"]
    out = judge_images(get_game("ingenious"), [(before, "b"), (after, "a")], p.truth["context"]).result
    assert sorted(map(str, out["placed"])) == sorted(map(str, exp["placed"]))
    assert out["move_points"] == exp["move_points"]
    assert "contested" not in {f["code"] for f in out["flags"]}
    truth = {tuple(c): col for t in after_tiles(p.truth["scene"]) for c, col in zip(t["cells"], t["colours"],
                                                                                     strict=True)}
    assert {tuple(h["qr"]): h["colour"] for h in out["board"]} == truth
    # the nominal prototypes alone misread this photo (red as orange): the printed symbols are what reads it right
    cal = calibrate_from_markers(after, layout=marker_layout())
    nominal = read_board(after, cal, IngeniousVisionConfig(palette=None))
    assert any(nominal.cells[c].colour != truth.get(c) for c in BOARD_CELLS)
    photo = read_board(after, cal)
    assert set(photo.anchors) == set(HUE_DEG)
    assert all(photo.cells[c].colour == truth.get(c) for c in BOARD_CELLS)
