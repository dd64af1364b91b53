"""Which way a photo's light casts shadows, read from the Carrotain chips' own shadows on the mat.

A chip is a 2 mm disc; lit from one side it casts a crescent of shadow on the mat just beyond its rim, on the side
away from the light. The boards, 2-5 mm above the mat, cast theirs the same way, and the dimming a board's outline is
fitted to is the board seen plus its shadow on the mat: the fitted outline lies displaced towards its shadow. On the
Carrotain tune sets (dev, car_tune, car_tune2; as rendered, phone, browser; 329 challenge boards,
``tools/study_board_bias.py``) by a median 1.4 mm (95th percentile 3.9 mm) away from the main light, and 0.5 mm
across it: the largest part of the outline error, and what makes the measurement band as wide as it is.

``cast_shadow`` reads the shadow's direction: the mat's level on a ring just beyond each chip's rim, as a function of
the angle around the chip (each radius less its median), its median over the chips, and the direction where that is
darkest (the first harmonic). On the tune sets as rendered it lies within 45 degrees of the direction away from the
main light in 81 % of the photos (median 15 degrees off; 75 % and 72 % as phones and browser cameras deliver them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from scoring.carrotain_state import BoardReading
from vision.chips import PatchReader


@dataclass(frozen=True)
class ShadowConfig:
    """Tunables of the cast-shadow reading (lengths in mm).

    Attributes
    ----------
    ring_mm : (float, float)
        Radii around a chip's centre where its shadow is read: beyond its rim (12.5 mm) and the rim's blur, within the
        crescent a 2 mm chip casts under a light 40-75 degrees high (0.5-2.4 mm wide). Read on the tune sets: 14-16 mm
        gives the direction within 45 degrees in 81 % of the photos, 12.5-14 in 22 % (the rim), 15-18 in 75 %.
    ring_step_mm : float
        Radial step of the rings.
    n_angles : int
        Angles sampled around each chip.
    min_chips : int
        Fewer chips with their ring in view: no direction.
    min_significance : float
        The darkest direction counts only where the chips agree: the median of the chips' own crescents along it, over
        its robust standard error (1.4826 MAD / sqrt(chips): a board's edge crossing a ring makes an outlier), must
        reach this (a photo lit evenly from above, or a drawing without shadows, has none). On the tune sets (none,
        phone, browser; 204 photos): 2 keeps 54 % of the photos, 95 % of them within 45 degrees of the truth's
        direction and 1 % beyond 90; 0 keeps all, 76 % within 45 and 8 % beyond 90; 3 keeps 38 %, none beyond 90.
    board_shift_mm : float
        How far a fitted board is moved towards the light (``vision.carrotain``). Measured on the tune sets (none,
        phone, browser; the direction as read here, not the truth's): the board centroid error's median / 95th
        percentile 1.47 / 3.93 mm as rendered -> 1.22 / 2.98 at 1.0 (0.8: 1.23 / 3.18, 1.2: 1.26 / 2.78), phone
        1.85 / 4.24 -> 1.35 / 3.25, browser 1.48 / 4.08 -> 1.31 / 3.11; 0: not moved.
    """

    ring_mm: tuple[float, float] = (14.0, 16.0)
    ring_step_mm: float = 0.5
    n_angles: int = 36
    min_chips: int = 4
    min_significance: float = 2.0
    board_shift_mm: float = 1.0


@dataclass(frozen=True)
class CastShadow:
    """The direction shadows fall in a photo.

    Attributes
    ----------
    direction : ndarray, shape (2,)
        Unit vector in the table frame, away from the light.
    significance : float
        The chips' median crescent along it over its robust standard error.
    n_chips : int
        Chips read.
    """

    direction: np.ndarray
    significance: float
    n_chips: int


#: Reads a view's colours at table points around several centres: ``(centres_mm, half_mm, points_mm)`` -> per centre
#: the colours (n_i, C) of the pixels nearest its points (``points_mm[i]``: (..., 2) table mm, n_i points) in the
#: view of the square ``half_mm`` either side of it, or None where a point lies off that view
#: (``points_from_patches``; the Carrotain reader, ``vision.carrotain``, resamples only those pixels).
PointReader = Callable[[Sequence[tuple[float, float]], float, Sequence[np.ndarray]], list[np.ndarray | None]]


def nearest_pixels(points_mm: np.ndarray, origin_mm: tuple[float, float], mm_per_px: float, shape: tuple[int, ...]
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """The (row, col) indices (int arrays, shape of ``points_mm`` less its last axis) of the pixels nearest table points
    ``points_mm`` (..., 2) in a view with pixel (0, 0) at ``origin_mm``; None when one lies off the view (``shape``)."""
    px = (points_mm[..., 0] - origin_mm[0]) / mm_per_px
    py = (points_mm[..., 1] - origin_mm[1]) / mm_per_px
    inside = (px >= 0) & (py >= 0) & (px <= shape[1] - 1) & (py <= shape[0] - 1)
    if not inside.all():
        return None
    return np.round(py).astype(int), np.round(px).astype(int)


def points_from_patches(patches: PatchReader) -> PointReader:
    """A ``PointReader`` reading each centre's whole patch (``vision.chips.PatchReader``) and picking its pixels."""
    def read(centres_mm: Sequence[tuple[float, float]], half_mm: float, points_mm: Sequence[np.ndarray]
             ) -> list[np.ndarray | None]:
        out: list[np.ndarray | None] = []
        for (x, y), pts in zip(centres_mm, points_mm):
            rgb, origin_mm, mm_per_px = patches((float(x), float(y)), half_mm)
            at = nearest_pixels(pts, origin_mm, mm_per_px, rgb.shape)
            out.append(None if at is None else rgb[at])
        return out
    return read


def chip_rings(points: PointReader, chips_xy_mm: Sequence[tuple[float, float]], config: ShadowConfig) -> np.ndarray:
    """Each chip's ring profile: the chip faces' view's level around it at ``ring_mm`` (the pixel nearest each point of
    the ring, in the view ``ring_mm[1] + 2`` mm either side of the chip), each radius less its median, averaged over the
    radii; NaN for a chip whose ring is not wholly in view.

    Returns
    -------
    ndarray, shape (n_chips, n_angles)
    """
    angles = np.linspace(0.0, 2.0 * np.pi, config.n_angles, endpoint=False)
    radii = np.arange(config.ring_mm[0], config.ring_mm[1] + 1e-9, config.ring_step_mm)
    rings = [np.stack([x + radii[:, None] * np.cos(angles)[None], y + radii[:, None] * np.sin(angles)[None]], axis=-1)
             for x, y in chips_xy_mm]  # (radii, angles, 2) each
    centres = [(float(x), float(y)) for x, y in chips_xy_mm]
    out = np.full((len(chips_xy_mm), len(angles)), np.nan)
    for i, rgb in enumerate(points(centres, config.ring_mm[1] + 2.0, rings)):
        if rgb is None:
            continue
        v = np.asarray(rgb, dtype=np.float64).mean(axis=-1)
        if not np.isfinite(v).all():
            continue
        out[i] = np.mean(v - np.median(v, axis=1, keepdims=True), axis=0)
    return out


def cast_shadow(rings: np.ndarray, config: ShadowConfig) -> CastShadow | None:
    """The direction away from the light, from the chips' ring profiles (``chip_rings``), or None when too few chips
    are read or they do not agree (``min_significance``).

    Parameters
    ----------
    rings : ndarray, shape (n_chips, n_angles)
        NaN rows: chips not read.
    config : ShadowConfig
    """
    rings = rings[np.isfinite(rings).all(axis=1)]
    if len(rings) < max(config.min_chips, 2):
        return None
    angles = np.linspace(0.0, 2.0 * np.pi, rings.shape[1], endpoint=False)
    basis = np.stack([np.cos(angles), np.sin(angles)], axis=1)  # (A, 2)
    dark = -(np.median(rings, axis=0) @ basis)
    norm = float(np.hypot(*dark))
    if norm <= 0.0:
        return None
    direction = dark / norm
    each = -(rings @ basis) @ direction  # each chip's crescent along it
    spread = 1.4826 * float(np.median(np.abs(each - np.median(each))))  # robust: a board's edge crosses some rings
    significance = float(np.median(each) / max(spread / np.sqrt(len(each)), 1e-12))
    if significance < config.min_significance:
        return None
    return CastShadow(direction, significance, len(rings))


def boards_toward_light(boards: Sequence[BoardReading], shadow: CastShadow | None, config: ShadowConfig
                        ) -> list[BoardReading]:
    """The boards read moved ``board_shift_mm`` against the shadow's direction (towards the light); unread acrylic
    regions (role ``unread``) and every board when no direction was read stay where they are.

    Parameters
    ----------
    boards : sequence of BoardReading
    shadow : CastShadow or None
    config : ShadowConfig

    Returns
    -------
    list[BoardReading]
    """
    if shadow is None or config.board_shift_mm <= 0:
        return list(boards)
    move = -config.board_shift_mm * np.asarray(shadow.direction, dtype=np.float64)
    return [b if b.role == "unread" else replace(b, outline_mm=np.asarray(b.outline_mm, dtype=np.float64) + move)
            for b in boards]
