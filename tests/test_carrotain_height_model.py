"""Heights above the table without a camera pose (``vision.carrotain_view``): the fallback must be used and
flagged, and it must not change shared state (the page judges in several threads)."""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import pytest

from calibration.table import calibrate_from_markers
from synth.carrotain import render_scene
from vision.carrotain import recognise
from vision.carrotain_view import has_height_model, mm_to_px, px_to_mm

XY_MM = np.array([[100.0, 80.0], [300.0, 220.0], [480.0, 350.0]])


@pytest.fixture(scope="module")
def photo():
    img, scene, _ = render_scene(5)
    cal = calibrate_from_markers(img)
    assert cal.camera is not None  # the markers gave a pose: the case with a pose is the normal one
    return img, cal, replace(cal, camera=None)


def test_a_calibration_without_a_camera_pose_has_no_height_model(photo):
    _, with_pose, without = photo
    assert has_height_model(with_pose)
    assert not has_height_model(without)


def test_without_a_pose_heights_come_from_the_homography_fallback(photo):
    """A chip top 20 mm up lies elsewhere in the photo than its foot: the fallback must model that, not
    silently ignore the height (which ``TableCalibration.mm_to_px_at_height`` does without a pose)."""
    _, with_pose, without = photo
    flat = without.mm_to_px(XY_MM)
    up = mm_to_px(without, XY_MM, 20.0)
    assert np.hypot(*(up - flat).T).max() > 1.0
    # the fallback agrees with the real pose to a few px, and inverts itself
    assert np.hypot(*(up - mm_to_px(with_pose, XY_MM, 20.0)).T).max() < 0.15 * np.hypot(*(up - flat).T).max() + 3.0
    assert np.allclose(px_to_mm(without, up, 20.0), XY_MM, atol=1e-6)


def test_recognise_flags_a_missing_camera_pose(photo):
    img, with_pose, without = photo
    assert "no_camera_pose" not in {f.code for f in recognise(img, with_pose).flags}
    assert "no_camera_pose" in {f.code for f in recognise(img, without).flags}


def test_the_fallback_does_not_change_shared_state_while_another_thread_projects(photo):
    """The spread estimate tries other fields of view; another thread's projections must not see them."""
    from vision.carrotain import _height_spread_mm

    _, _, without = photo
    expected = mm_to_px(without, XY_MM, 2.0)
    stop = threading.Event()

    def spread_loop() -> None:
        while not stop.is_set():
            _height_spread_mm(without, XY_MM, 2.0)

    worker = threading.Thread(target=spread_loop)
    worker.start()
    try:
        seen = [mm_to_px(without, XY_MM, 2.0) for _ in range(3000)]
    finally:
        stop.set()
        worker.join()
    worst = max(float(np.abs(s - expected).max()) for s in seen)
    assert worst == 0.0, f"a projection moved by {worst:.3f} px while another thread estimated the spread"
