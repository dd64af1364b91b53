"""vision.chips' rim fit: a chip's rim is a circle; crossings that do not lie on one (a glare streak, a crescent of
glare on a board's edge) are no rim, however many rays find a crossing near the chip's radius."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.chips import ChipConfig, _fit_rim

S = 0.5  # mm per px of the view


def _level(draw) -> np.ndarray:
    """A dark mat 70 mm square, ``draw`` paints bright shapes on it, smoothed as the chip search smooths."""
    lvl = np.full((140, 140), 0.2, np.float32)
    draw(lvl)
    return cv2.GaussianBlur(lvl, (0, 0), ChipConfig().rim_smooth_mm / S)


@pytest.mark.parametrize("start_px", [(70.0, 70.0), (64.0, 73.0)])
def test_a_round_chip_has_its_rim(start_px):
    config = ChipConfig()
    r_px = config.diameter_mm / 2.0 / S
    rim = _fit_rim(_level(lambda lvl: cv2.circle(lvl, (70, 70), int(r_px), 0.9, -1)), np.array(start_px), S, config)
    assert rim is not None and not rim.fallback
    assert np.hypot(*(rim.centre_px - 70.0)) * S < 0.3 and abs(rim.radius_px * S - config.diameter_mm / 2.0) < 0.6
    assert rim.rms_mm < 0.3


@pytest.mark.parametrize("axes_mm, angle_deg", [((15, 10), 0), ((16, 10), 30), ((18, 10), 0), ((18, 10), 30)])
def test_a_bright_streak_whose_crossings_miss_one_circle_is_no_rim(axes_mm, angle_deg):
    """An ellipse 30-36 x 20 mm: a third to two thirds of the rays cross its edge within the chip radius' tolerance,
    but a circle through those crossings misses them by over ``rim_outlier_mm`` (rms about 1.1 mm); once they are
    dropped too few rays are left on the circle."""
    config = ChipConfig()
    a, b = (int(v / S) for v in axes_mm)
    level = _level(lambda lvl: cv2.ellipse(lvl, (70, 70), (a, b), angle_deg, 0, 360, 0.9, -1))
    assert _fit_rim(level, np.array([70.0, 70.0]), S, config) is None
