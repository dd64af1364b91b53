"""How sharp a photo is, measured where the table shows a known step: the calibration markers' black squares.

The CMYK! mark reader models each printed dot blurred by the photo; a webcam's motion blur or a phone's
sharpening changes that blur from photo to photo. Every marker's black square meets its white margin in a
straight step edge, so the width of that edge in the photo (10-90 % is the usual measure; 20-80 % here, less
disturbed by sharpening halos and noise) gives the photo's blur, in image pixels, without any guess.
The measure holds while the blur is small beside the black border (a sixth of a marker's side): blurred more,
the white bits inside bleed across the border and the width is underestimated (a render at 0.77 px/mm: sigma
1.5 px measured 6 % short, 2.5 px 20 % short). Photos that blurred cannot resolve the marks' dots anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.order_stats import percentile_last
from vision.view import sample

#: 20-80 % rise of a Gaussian-blurred step, in sigmas (2 * 0.8416).
RISE_20_80_SIGMAS = 1.6832


@dataclass(frozen=True)
class SharpnessConfig:
    """Tunables of :func:`marker_blur_px` (mm on the table unless named otherwise).

    Attributes
    ----------
    inside_mm, outside_mm : float
        Each profile runs from this far inside the black square's edge to this far outside it.
    step_mm : float
        Profile sample spacing.
    along_share : float
        Profiles cover this share of each side's length, centred (away from the corners).
    profiles_per_side : int
    min_contrast : float
        A profile whose white minus black (8-bit, 5th to 95th percentile) is less is left out (a covered
        or glared marker side).
    min_profiles : int
        Fewer usable profiles: no measurement.
    """

    inside_mm: float = 4.0
    outside_mm: float = 5.0
    step_mm: float = 0.1
    along_share: float = 0.6
    profiles_per_side: int = 25
    min_contrast: float = 20.0
    min_profiles: int = 12


@dataclass(frozen=True)
class MarkerBlur:
    """The photo's blur measured at the markers' edges, Gaussian sigmas in image pixels.

    Attributes
    ----------
    sigma_px : float
        The median over every usable edge profile (the blur the mark templates assume).
    worst_px : float
        The most the blur can be along any direction: a motion blur streaks one direction only, and the two edge
        orientations of the markers' squares (table x and y) each see only its share along their normal. For a
        blur of covariance S, the sigma along any direction is at most sqrt(trace S), the root of the squares of
        the sigmas across two perpendicular edge orientations (each orientation's median).
    """

    sigma_px: float
    worst_px: float


def marker_blur_px(image_rgb: np.ndarray, calibration, config: SharpnessConfig = SharpnessConfig()) -> float | None:
    """The photo's blur as a Gaussian sigma in image pixels (:func:`marker_blur`'s ``sigma_px``), or None."""
    blur = marker_blur(image_rgb, calibration, config)
    return None if blur is None else blur.sigma_px


def marker_blur(image_rgb: np.ndarray, calibration, config: SharpnessConfig = SharpnessConfig()) -> MarkerBlur | None:
    """The photo's blur from the step edges of the markers' black squares: typical and worst along any direction.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration
        Needs ``mm_to_px`` and ``marker_ids`` (a markerless lattice calibration has neither: None).
    config : SharpnessConfig

    Returns
    -------
    MarkerBlur or None
        Medians of the 20-80 % rise width divided by ``RISE_20_80_SIGMAS``; None without markers or with too few
        usable profiles (``worst_px`` is ``sigma_px`` where one edge orientation has too few).
    """
    ids = getattr(calibration, "marker_ids", None)
    if not ids or not hasattr(calibration, "mm_to_px"):
        return None
    from calibration.markers import MarkerLayout  # noqa: PLC0415  (components are read when first needed)

    layout = MarkerLayout.from_components()
    centres = tuple(tuple(float(v) for v in layout.centres_mm[int(mid)]) for mid in ids)
    grid_mm = _profile_grid_mm(centres, float(layout.side_mm), config)  # (P, D, 2)
    px = np.asarray(calibration.mm_to_px(grid_mm.reshape(-1, 2)), np.float64).reshape(grid_mm.shape)
    rgb = sample(image_rgb, px.astype(np.float32), "replicate", exact=False)
    lum = (rgb[..., 0] + rgb[..., 1] + rgb[..., 2]) / 3  # the channels' mean (NumPy's mean of three, cheaper)
    widths = _rise_widths_px(lum, px, config.min_contrast) / RISE_20_80_SIGMAS
    usable = np.isfinite(widths)
    if usable.sum() < config.min_profiles:
        return None
    sigma = float(np.median(widths[usable]))
    across_x = (np.arange(len(widths)) // config.profiles_per_side) % len(_SIDES) < 2  # sides with normal +-x
    groups = [widths[usable & g] for g in (across_x, ~across_x)]
    if min(len(g) for g in groups) < config.min_profiles // 2:
        return MarkerBlur(sigma, sigma)
    return MarkerBlur(sigma, float(np.hypot(*(np.median(g) for g in groups))))


#: The outward normals of a marker square's four sides, in profile order.
_SIDES = ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0))


@lru_cache(maxsize=8)
def _profile_grid_mm(centres_mm: tuple[tuple[float, float], ...], side_mm: float,
                     config: SharpnessConfig) -> np.ndarray:
    """The edge profiles' table points, shape (P, D, 2): per marker (``centres_mm``, in order) and side (+x, -x, +y,
    -y), ``profiles_per_side`` profiles from inside the black square outwards (read-only: cached per layout)."""
    half = side_mm / 2
    across = np.arange(half - config.inside_mm, half + config.outside_mm + 1e-9, config.step_mm)
    along = np.linspace(-1.0, 1.0, config.profiles_per_side) * config.along_share * half
    pts = []
    for c in centres_mm:
        centre = np.asarray(c, np.float64)
        for n in np.array(_SIDES):
            t = np.array([-n[1], n[0]])
            pts.append(centre + across[None, :, None] * n + along[:, None, None] * t)
    grid = np.concatenate(pts)
    grid.setflags(write=False)
    return grid


def _rise_widths_px(lum: np.ndarray, px: np.ndarray, min_contrast: float) -> np.ndarray:
    """Per profile (rows of ``lum``, dark to light), the image distance between its first 20 % and first 80 %
    crossing; NaN for profiles with too little contrast or no crossing."""
    lo = percentile_last(lum, 5)[:, None]
    hi = percentile_last(lum, 95)[:, None]
    ok = (hi - lo)[:, 0] >= min_contrast
    q = (lum - lo) / np.maximum(hi - lo, 1e-6)
    at20 = np.argmax(q >= 0.2, axis=1)
    at80 = np.argmax(q >= 0.8, axis=1)
    ok &= (q >= 0.8).any(axis=1) & (at80 >= at20)
    step = np.diff(px, axis=1)
    arc = np.concatenate([np.zeros((len(px), 1)), np.cumsum(np.sqrt(step[..., 0] ** 2 + step[..., 1] ** 2), axis=1)],
                         axis=1)
    rows = np.arange(len(px))
    return np.where(ok, arc[rows, at80] - arc[rows, at20], np.nan)
