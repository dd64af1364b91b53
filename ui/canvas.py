"""A straightened (top-down) view of the play area, and the pixel frame a reading diagram shares with it.

A :class:`Canvas` is an axis-aligned table rectangle sampled at ``mm_per_px``: pixel ``(0, 0)`` is centred
on ``origin_mm``. The straightened photo and the reading diagram of one game are drawn on the same
canvas, so a tap at the same pixel of either means the same table point.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class CanvasConfig:
    """How a canvas is fitted around the pieces.

    Attributes
    ----------
    margin_mm : float
        Table space kept around the pieces' extent, mm.
    long_side_px : int
        The canvas's longer side, px (the zoom follows from the pieces' extent).
    max_px_per_mm : float
        Upper bound of the zoom (a single chip is not blown up to the whole screen).
    """

    margin_mm: float = 15.0
    long_side_px: int = 900
    max_px_per_mm: float = 8.0


@dataclass(frozen=True)
class Canvas:
    """A table rectangle as an image.

    Attributes
    ----------
    origin_mm : (float, float)
        Table (x, y) at the centre of pixel (0, 0), mm.
    mm_per_px : float
    size_px : (int, int)
        (width, height).
    """

    origin_mm: tuple[float, float]
    mm_per_px: float
    size_px: tuple[int, int]

    @property
    def region_mm(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) covered, mm."""
        x0, y0 = self.origin_mm
        w, h = self.size_px
        return (x0, y0, x0 + w * self.mm_per_px, y0 + h * self.mm_per_px)

    def to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table mm, shape (N, 2) -> canvas px, shape (N, 2) float."""
        return (np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2) - self.origin_mm) / self.mm_per_px

    def to_mm(self, xy_px: np.ndarray) -> np.ndarray:
        """Canvas px, shape (N, 2) -> table mm, shape (N, 2)."""
        return np.asarray(xy_px, dtype=np.float64).reshape(-1, 2) * self.mm_per_px + self.origin_mm

    def px_per_mm(self) -> float:
        return 1.0 / self.mm_per_px

    def blank(self, rgb: tuple[int, int, int]) -> np.ndarray:
        """A new image of this canvas's size filled with one colour, shape (h, w, 3) uint8."""
        w, h = self.size_px
        return np.full((h, w, 3), rgb, dtype=np.uint8)


def fit_canvas(points_mm: np.ndarray, config: CanvasConfig = CanvasConfig()) -> Canvas:
    """The canvas that shows all these table points with a margin, longer side ``config.long_side_px``.

    Parameters
    ----------
    points_mm : array_like, shape (N, 2), N >= 1
        Everything the view must show (chip centres, board corners, tile corners).
    config : CanvasConfig

    Returns
    -------
    Canvas
    """
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    pts = pts[np.isfinite(pts).all(axis=1)]
    if len(pts) == 0:
        raise ValueError("fit_canvas: no finite points to show")
    lo = pts.min(axis=0) - config.margin_mm
    hi = pts.max(axis=0) + config.margin_mm
    extent = hi - lo
    mm_per_px = max(float(extent.max()) / config.long_side_px, 1.0 / config.max_px_per_mm)
    size = np.maximum(np.ceil(extent / mm_per_px).astype(int), 1)
    return Canvas((float(lo[0]), float(lo[1])), mm_per_px, (int(size[0]), int(size[1])))


def crop_canvas(centre_mm: tuple[float, float], half_mm: float, size_px: int) -> Canvas:
    """A square canvas of side ``2 * half_mm`` around a point, ``size_px`` pixels wide (an evidence crop)."""
    mpp = 2.0 * half_mm / size_px
    return Canvas((float(centre_mm[0]) - half_mm, float(centre_mm[1]) - half_mm), mpp, (size_px, size_px))


def straightened_view(image_rgb: np.ndarray, canvas: Canvas, calibration=None,
                      h_px_from_mm: np.ndarray | None = None, z_mm: float = 0.0) -> np.ndarray:
    """The photo resampled top-down over the canvas (the calibration's own rectification).

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3)
        The photo; not modified.
    canvas : Canvas
    calibration : TableCalibration, optional
        From the markers (lens and camera height included): ``calibration.rectify``.
    h_px_from_mm : ndarray, shape (3, 3), optional
        Without markers: the homography from table mm to photo px that the detector found.
    z_mm : float
        Height of the plane shown (the pieces' top faces), mm.

    Returns
    -------
    ndarray, shape (h, w, 3) uint8
        Outside the photo: black.

    Raises
    ------
    ValueError
        Neither a calibration nor a homography.
    """
    w, h = canvas.size_px
    if calibration is not None:
        out = calibration.rectify(image_rgb, canvas.mm_per_px, canvas.region_mm, z_mm)
        if out.shape[:2] != (h, w):  # rounding of the region's size: pad or cut to the canvas
            out = cv2.copyMakeBorder(out[:h, :w], 0, max(0, h - out.shape[0]), 0, max(0, w - out.shape[1]),
                                     cv2.BORDER_CONSTANT, value=0)
        return out
    if h_px_from_mm is None:
        raise ValueError("straightened_view needs a calibration or a homography")
    x0, y0 = canvas.origin_mm
    mm_from_out = np.array([[canvas.mm_per_px, 0, x0], [0, canvas.mm_per_px, y0], [0, 0, 1]], dtype=np.float64)
    px_from_out = np.asarray(h_px_from_mm, dtype=np.float64) @ mm_from_out
    return cv2.warpPerspective(image_rgb, px_from_out, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
