"""Zoomed crops of the chips that decide a Carrotain verdict (not hidden, or borderline), for the players."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ZoomConfig:
    """Crop size around a chip centre (table mm) and the chip face height used to find it in the photo."""

    half_size_mm: float = 22.0
    chip_face_z_mm: float = 2.0
    max_crops: int = 12


def chip_crops(image_rgb: np.ndarray, calibration, chips: list[dict], config: ZoomConfig = ZoomConfig()
               ) -> list[tuple[np.ndarray, str]]:
    """Crops of the overlay around every not-hidden or borderline chip, borderline first.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3)
        The overlay (or photo) to crop from; not modified.
    calibration : TableCalibration
    chips : list of dict
        The judgement's ``chips`` (``xy_mm``, ``hidden``, ``margin_mm``, ``borderline``, ``kind``, ``colour``).

    Returns
    -------
    list of (crop (h, w, 3), caption)
    """
    picked = [c for c in chips if c.get("borderline") or not c.get("hidden")]
    picked.sort(key=lambda c: (not c.get("borderline"), abs(float(c.get("margin_mm", 0.0)))))
    out = []
    h, w = image_rgb.shape[:2]
    for c in picked[: config.max_crops]:
        xy = np.asarray([c["xy_mm"]], dtype=float)
        centre = calibration.mm_to_px_at_height(xy, config.chip_face_z_mm)[0]
        r = config.half_size_mm * calibration.px_per_mm
        x0, x1 = int(max(centre[0] - r, 0)), int(min(centre[0] + r, w))
        y0, y1 = int(max(centre[1] - r, 0)), int(min(centre[1] + r, h))
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        state = "borderline" if c.get("borderline") else "not hidden"
        name = c.get("colour") or c.get("kind")
        out.append((image_rgb[y0:y1, x0:x1].copy(), f"{name}: {state}, {float(c.get('margin_mm', 0.0)):+.1f} mm"))
    return out
