"""Chips searched on a coarse view of the mat and read on fine patches around each candidate (the speed path of
``vision.carrotain.read_chips``) read what the one fine view of the whole mat reads, and what lies on the table.

The photo is a tune-set render (``tests/data/photoreal_carrotain``, the kit's truth file unchanged).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.markers import MarkerLayout
from components import load_components
from judge.images import load_image
from judge.pipeline import make_frame
from tests.carrotain_photoreal import ITEMS
from vision.carrotain import CarrotainVisionConfig, carrotain_views, read_chips
from vision.carrotain_view import colour_reference

NAME = "carrotain_s100000_c11"


@pytest.fixture(scope="module")
def photo():
    item = ITEMS[NAME]
    image = load_image(str(item.images[0]))
    cal = make_frame(image).calibration
    assert cal is not None
    comp = load_components()
    layout = MarkerLayout.from_components(comp)
    return image, cal, colour_reference(cal, image, layout), comp, layout, item.doc


def _read(photo, config):
    image, cal, ref, comp, layout, doc = photo
    chips, unread = read_chips(image, cal, ref, config, comp, layout, players=tuple(doc["context"]["players"]))
    return sorted(chips, key=lambda c: c.xy_mm), unread


def _coarse() -> CarrotainVisionConfig:
    """Chips searched on a 1 mm view, read on patches at the default reading resolution (0.5 mm)."""
    config = CarrotainVisionConfig()
    return replace(config, chip_search_mm_per_px=2.0 * config.chip_mm_per_px)


def test_chips_read_on_patches_are_the_chips_read_on_the_whole_fine_view(photo):
    config = _coarse()
    patched, unread_p = _read(photo, config)
    whole, unread_w = _read(photo, replace(config, chip_search_mm_per_px=config.chip_mm_per_px))
    assert len(patched) == len(whole) and len(unread_p) == len(unread_w)
    for a, b in zip(patched, whole):
        assert (a.kind, a.colour) == (b.kind, b.colour)
        assert np.hypot(a.xy_mm[0] - b.xy_mm[0], a.xy_mm[1] - b.xy_mm[1]) < 0.2
        assert abs(a.centre_sigma_mm - b.centre_sigma_mm) < 0.1


def test_chips_read_on_patches_are_the_chips_on_the_table(photo):
    """Every chip of the scene found once, with its kind and colour, its centre within 1.5 mm (chips under the
    acrylic boards included: refraction is corrected later, so they are compared loosely)."""
    chips, _ = _read(photo, _coarse())
    truth = photo[5]["scene"]["chips"]
    assert len(chips) == len(truth)
    for t in truth:
        d = [np.hypot(c.xy_mm[0] - t["xy_mm"][0], c.xy_mm[1] - t["xy_mm"][1]) for c in chips]
        c = chips[int(np.argmin(d))]
        assert min(d) < 1.5, (t, c.xy_mm)
        assert (c.kind, c.colour) == (t["kind"], t["colour"])


def test_the_whole_fine_view_is_made_only_when_asked_for(photo):
    """Searched coarse, a first frame reads its chips on patches: the fine top view of the whole mat (the live
    checks' patches) is made when first asked for, at the reading resolution, and kept with the views; searched at
    the reading resolution (the default), the view searched is that view."""
    image, cal, *_ = photo
    config = _coarse()
    views = carrotain_views(cal, config)
    assert views.chips_fine is not None and not views.chips_fine.made
    assert views.chips_searched.mm_per_px == config.chip_search_mm_per_px
    fine = views.chips
    assert fine.mm_per_px == config.chip_mm_per_px and views.chips is fine and views.chips_fine.made
    fine_config = replace(config, chip_search_mm_per_px=config.chip_mm_per_px)
    one = carrotain_views(cal, fine_config)
    assert one.chips_fine is None
    assert one.chips is one.chips_searched and one.chips.mm_per_px == config.chip_mm_per_px


def test_a_candidates_depth_on_its_fine_patch_is_its_depth_on_the_whole_fine_view(photo):
    """Searched coarse, a blob without a rim is judged by how deep the bright mask runs at it on its fine patch
    (``vision.chips._fine_depth``): the patch's mask, made with the coarse view's surroundings, measures what the
    one fine view of the whole mat measures there (at the candidates of the coarse search), while the coarse
    view's own distance transform is off by up to a coarse pixel's half either way."""
    import cv2

    from vision import chips as ch
    from vision.carrotain import _chip_patch_reader, _chip_search_maps, _exclusions

    image, cal, ref, comp, layout, _ = photo
    config = _coarse()
    views = {}
    for mm_per_px in (config.chip_mm_per_px, config.chip_search_mm_per_px):
        tv = _chip_search_maps(cal, replace(config, chip_search_mm_per_px=mm_per_px)).resample(image)
        view = ch._view(np.asarray(ref.normalise(tv.image), dtype=np.float32), tv.origin_mm, mm_per_px, config.chips)
        surround = ch._surround(view.level, mm_per_px, config.chips)
        mask = ch._bright_mask(view.level, surround, tv.origin_mm, mm_per_px, _exclusions(config, layout),
                               config.chips)
        views[mm_per_px] = (view, surround, cv2.distanceTransform(mask, cv2.DIST_L2, 5) * mm_per_px)
    fine, _, fine_dist = views[config.chip_mm_per_px]
    coarse, surround, coarse_dist = views[config.chip_search_mm_per_px]
    reader = _chip_patch_reader(image, cal, ref, config)
    patch_err, coarse_err = [], []
    for c in ch._candidates(coarse_dist, coarse.s, config.chips):
        centre_mm = coarse.mm(c)
        depth = ch._fine_depth(ch._patch(reader, centre_mm, config.chips), centre_mm, surround, coarse, config.chips)
        fx, fy = np.round(fine.px(centre_mm)).astype(int)
        r = int(round(coarse.s / fine.s))
        want = float(fine_dist[fy - r:fy + r + 1, fx - r:fx + r + 1].max())
        patch_err.append(abs(depth - want))
        coarse_err.append(float(coarse_dist[int(c[1]), int(c[0])]) - want)
    assert len(patch_err) >= 10
    assert np.median(patch_err) < 0.05 and np.percentile(patch_err, 90) < 0.2, patch_err
    assert np.percentile(np.abs(coarse_err), 90) > 2 * np.percentile(patch_err, 90)  # the coarse view's own: further
