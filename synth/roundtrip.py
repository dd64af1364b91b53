"""Calibration round trip on synthetic photos (shared by the tests and ``tools/eval_calibration.py``).

A photo of known table points (small dots on a sheet at z = 0) is rendered; the calibration is
fitted from the photo alone, and its ``px_to_mm`` applied to the points' exact image positions
(``SynthPhoto.project``) is compared with their true table positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.markers import MarkerLayout
from calibration.table import CalibrationError, calibrate_from_markers
from synth.layers import Layer
from synth.photo import PhotoConditions, render_photo, sample_conditions

# Condition sets: keyword arguments of ``sample_conditions``.
ROUNDTRIP_SETS: dict[str, dict] = {
    # the normal webcam / phone range at 1280x960 (about 0.6-1.3 mm/px)
    "normal": dict(hard=False, image_size=(1280, 960)),
    # the same with the hard troubles (barrel lens, hand, dim cast light, white table)
    "hard": dict(hard=True, image_size=(1280, 960)),
    # about 0.5 mm/px: a 1920x1440 photo from 45-70 cm with a normal lens
    "fine": dict(hard=False, image_size=(1920, 1440), height_mm=(450.0, 700.0), hfov_deg=(55.0, 68.0)),
}


@dataclass(frozen=True)
class RoundtripResult:
    """One photo's round trip.

    Attributes
    ----------
    seed : int
    conditions : PhotoConditions
    error_mm : ndarray, shape (N,) or None
        Distance between ``px_to_mm(project(p))`` and ``p`` for each test point; None when the
        calibration failed (``failure`` says why).
    reported_mm : float
        The calibration's own reprojection error (nan on failure).
    mm_per_px : float
        Table resolution at the look-at point.
    failure : str or None
    """

    seed: int
    conditions: PhotoConditions
    error_mm: np.ndarray | None
    reported_mm: float
    mm_per_px: float
    failure: str | None = None


def test_points_mm(layout: MarkerLayout, step_mm: float = 35.0, inset_mm: float = 30.0) -> np.ndarray:
    """A grid of table points inside the markers' rectangle, shape (N, 2), mm."""
    xs = [c[0] for c in layout.centres_mm.values()]
    ys = [c[1] for c in layout.centres_mm.values()]
    gx = np.arange(min(xs) + inset_mm, max(xs) - inset_mm + 1e-9, step_mm)
    gy = np.arange(min(ys) + inset_mm, max(ys) - inset_mm + 1e-9, step_mm)
    X, Y = np.meshgrid(gx, gy)
    return np.column_stack([X.ravel(), Y.ravel()])


def dots_layer(points_mm: np.ndarray, radius_mm: float = 1.5, mm_per_px: float = 0.4,
               rgb: tuple[float, float, float] = (0.95, 0.95, 0.9)) -> Layer:
    """Small round dots centred on ``points_mm`` (N, 2) on a transparent sheet at z = 0.05 mm."""
    pad = 3 * radius_mm
    x0, y0 = points_mm.min(axis=0) - pad
    x1, y1 = points_mm.max(axis=0) + pad
    w = int(np.ceil((x1 - x0) / mm_per_px))
    h = int(np.ceil((y1 - y0) / mm_per_px))
    ss = 4
    mask = np.zeros((h * ss, w * ss), np.uint8)
    shift = 4
    for x, y in points_mm:
        c = ((x - x0) / mm_per_px * ss - 0.5) * (1 << shift), ((y - y0) / mm_per_px * ss - 0.5) * (1 << shift)
        cv2.circle(mask, (int(round(c[0])), int(round(c[1]))), int(round(radius_mm / mm_per_px * ss * (1 << shift))),
                   255, -1, cv2.LINE_AA, shift)
    alpha = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    rgba = np.dstack([np.broadcast_to(np.asarray(rgb, np.float32), (h, w, 3)), alpha]).astype(np.float32)
    return Layer(rgba=rgba, origin_mm=(float(x0), float(y0)), mm_per_px=mm_per_px, z_mm=0.05, material="matte",
                 casts_shadow=False, name="dots")


def roundtrip_errors(seed: int, set_name: str = "normal", **overrides) -> RoundtripResult:
    """Render one seeded photo of the condition set and measure the calibration's mm error."""
    layout = MarkerLayout.from_components()
    rng = np.random.default_rng(seed)
    kw = dict(ROUNDTRIP_SETS[set_name])
    kw.update(overrides)
    cond = sample_conditions(rng, marker_layout=layout, **kw)
    pts = test_points_mm(layout)
    photo = render_photo([dots_layer(pts)], cond, rng, marker_layout=layout)
    cam = photo.camera
    look = np.array([[cond.look_at_mm[0], cond.look_at_mm[1], 0.0]])
    mm_per_px = float(cam.to_camera(look)[0, 2] / cam.K[0, 0])
    try:
        cal = calibrate_from_markers(photo.image_rgb, layout)
    except CalibrationError as exc:
        return RoundtripResult(seed, cond, None, float("nan"), mm_per_px, str(exc))
    px = photo.project(np.column_stack([pts, np.zeros(len(pts))]))
    back = cal.px_to_mm(px)
    err = np.linalg.norm(back - pts, axis=1)
    return RoundtripResult(seed, cond, err, float(cal.reprojection_error_mm), mm_per_px)
