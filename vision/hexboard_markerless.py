"""Markerless fallback: the hex board's own rim gives the frame (flagged: less exact than the markers).

The board's printed rim (a dark blue band around the cells, components ``ingenious.board.rim_rgb``)
is a hexagon of known size. Its six corners in the photo against the six corners of the board frame
give a homography of the board's face; the 60-degree turn is the one that puts the printed symbols
on their colours (``vision.hexboard``). Without a camera pose the tiles' 4 mm height is ignored (a
tilted photo reads tile faces slightly off their cells), so the judgement is flagged.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class RimConfig:
    """Tunables of the rim finder.

    Attributes
    ----------
    rim_hue_deg : (float, float)
        OpenCV-free hue range (degrees) of the rim's dark blue.
    min_saturation : float
    max_value : float
    min_area_frac : float
        The rim's hull must cover this fraction of the photo.
    """

    rim_hue_deg: tuple[float, float] = (200.0, 260.0)
    min_saturation: float = 0.3
    max_value: float = 0.6
    min_area_frac: float = 0.03


@dataclass(frozen=True)
class PlaneCalibration:
    """A table frame from a homography only (no lens, no camera pose: heights are ignored).

    Quacks like ``calibration.table.TableCalibration`` for the hex-board reader.
    """

    H_px_from_mm: np.ndarray
    image_size: tuple[int, int]
    camera: None = None
    warnings: tuple[str, ...] = ()

    def mm_to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        h = pts @ self.H_px_from_mm[:, :2].T + self.H_px_from_mm[:, 2]
        return h[:, :2] / h[:, 2:3]

    def mm_to_px_at_height(self, xy_mm: np.ndarray, z_mm: float) -> np.ndarray:
        return self.mm_to_px(xy_mm)

    def px_to_mm(self, xy_px: np.ndarray) -> np.ndarray:
        Hi = np.linalg.inv(self.H_px_from_mm)
        pts = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
        h = pts @ Hi[:, :2].T + Hi[:, 2]
        return h[:, :2] / h[:, 2:3]

    def rectify(self, image: np.ndarray, mm_per_px: float, region_mm, z_mm: float = 0.0) -> np.ndarray:
        x0, y0, x1, y1 = region_mm
        w = int(round((x1 - x0) / mm_per_px))
        h = int(round((y1 - y0) / mm_per_px))
        out_to_mm = np.array([[mm_per_px, 0, x0], [0, mm_per_px, y0], [0, 0, 1]], dtype=np.float64)
        return cv2.warpPerspective(image, self.H_px_from_mm @ out_to_mm, (w, h),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)

    def describe(self) -> str:
        return "markerless: board rim homography (no lens, no heights)"


def rim_mask(image_rgb: np.ndarray, config: RimConfig = RimConfig()) -> np.ndarray:
    """Pixels of the rim's dark blue, uint8 0/255."""
    hsv = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2HSV_FULL)
    hue = hsv[..., 0].astype(np.float32) * (360.0 / 256.0)
    s = hsv[..., 1].astype(np.float32) / 255.0
    v = hsv[..., 2].astype(np.float32) / 255.0
    m = (hue >= config.rim_hue_deg[0]) & (hue <= config.rim_hue_deg[1]) & (s >= config.min_saturation) & (
        v <= config.max_value) & (v > 0.04)
    m = m.astype(np.uint8) * 255
    return cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def rim_corners_px(image_rgb: np.ndarray, config: RimConfig = RimConfig()) -> np.ndarray | None:
    """The board outline's six corners in the photo, in order around the hull; None when not found."""
    m = rim_mask(image_rgb, config)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m)
    if n < 2:
        return None
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    pts = np.column_stack(np.nonzero(labels == big)[::-1]).astype(np.float32)
    hull = cv2.convexHull(pts)
    h, w = m.shape
    if cv2.contourArea(hull) < config.min_area_frac * h * w:
        return None
    peri = cv2.arcLength(hull, True)
    for frac in np.linspace(0.005, 0.08, 40):
        approx = cv2.approxPolyDP(hull, frac * peri, True)
        if len(approx) == 6:
            return approx.reshape(6, 2).astype(np.float64)
    return None


def board_outline_mm(radius: int, pitch_mm: float, rim_mm: float) -> np.ndarray:
    """The physical board's corners in the board frame (corners at 0, 60, ... degrees), shape (6, 2)."""
    apothem = radius * pitch_mm * np.sqrt(3.0) / 2 + pitch_mm / np.sqrt(3.0) + rim_mm
    R = apothem / np.cos(np.deg2rad(30))
    a = np.deg2rad(60.0 * np.arange(6))
    return np.stack([R * np.cos(a), R * np.sin(a)], axis=1)


def candidate_frames(corners_px: np.ndarray, outline_mm: np.ndarray, centre_mm, image_size) -> list[PlaneCalibration]:
    """One homography per cyclic correspondence of the six corners (the 60-degree turns), both
    orientations of the corner order; the frame puts the board centre at ``centre_mm``, unrotated."""
    target = outline_mm + np.asarray(centre_mm, dtype=np.float64)
    out = []
    for order in (corners_px, corners_px[::-1]):
        for k in range(6):
            src = np.roll(target, k, axis=0)
            H, _ = cv2.findHomography(src, order, 0)
            if H is not None:
                out.append(PlaneCalibration(H, image_size))
    return out
