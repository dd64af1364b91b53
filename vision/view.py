"""The frame/view service every detector can use: one photo and its table frame.

``TableView(image_rgb, calibration)`` answers, for any game:

- px <-> table mm on a plane ``z_mm`` above the table (camera pose when the calibration has one, else the
  homography fallback with an explicit field of view: no module state);
- a top view of a table region at a chosen mm/px and height (lens and height included, ``cv2.remap``);
- colour normalisation from the markers (black -> 0, paper white -> 1; the calibration's
  ``ColourReference`` or one measured here);
- sampling an image at sub-pixel points with one declared border rule (:func:`sample`: exact in float64, or
  OpenCV's ``remap`` with 1/32-px weights for the searches that sample millions of points);
- CIELAB (:func:`rgb_to_lab`, the one sRGB -> Lab conversion of the project, in ``vision.colour``).

Top views. ``TableView.top_view`` maps through ``vision.carrotain_view`` (pose, else a field-of-view
fallback for heights). The Kaleido and CMYK! recognizers use the calibration's own height model
(:class:`HeightMapping`) and the two cheaper schemes here, kept because their results are the
reference of those games' accuracy figures: :func:`grid_maps` + :func:`remap_view` (the mapping on a
coarse table grid, resized; Kaleido) and :func:`homography_view` (one homography fitted to a grid of
mapped points; CMYK!). ``calibration.table.TableCalibration.rectify`` serves calibration itself.

>>> import numpy as np
>>> sample(np.arange(12.0).reshape(3, 4), np.array([[1.5, 1.0], [9.0, 9.0]]), border="nan").tolist()
[5.5, nan]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np

from calibration.markers import MarkerLayout
from vision import carrotain_view as _geometry
from vision.carrotain_view import DEFAULT_HFOV_DEG, TopView, has_height_model
from vision.colour import rgb_to_lab, srgb_to_linear

Border = Literal["replicate", "nan", "zero"]

__all__ = ["DEFAULT_HFOV_DEG", "HeightMapping", "TableView", "TopView", "grid_maps", "has_height_model",
           "homography_view", "remap_view", "rgb_to_lab", "sample", "srgb_to_linear"]


#: Samples per row of the remap tables (OpenCV limits a map side to 32767); no effect on results.
_REMAP_COLS = 4096


def sample(image: np.ndarray, xy_px: np.ndarray, border: Border = "replicate", exact: bool = True) -> np.ndarray:
    """Bilinear samples of an image at sub-pixel points (the project's one sampler).

    Parameters
    ----------
    image : ndarray, shape (H, W) or (H, W, C)
    xy_px : array_like, shape (..., 2)
        (x, y) pixel positions; pixel centres at integers.
    border : {"replicate", "nan", "zero"}
        Outside the image: the nearest edge pixel, NaN, or 0. A point counts as outside when it is
        beyond the outermost pixel centres (x < 0 or x > W - 1, same for y).
    exact : bool
        True: SciPy's exact bilinear weights in float64. False: OpenCV's ``remap`` (weights in 1/32 px
        steps, arithmetic in the image's dtype - a uint8 image gives whole values - , other dtypes
        than uint8 and float32 go as float32): many times faster, for the searches that sample
        millions of points.

    Returns
    -------
    ndarray, shape (...) or (..., C), float64
    """
    pts = np.asarray(xy_px)
    lead = pts.shape[:-1]
    pts = pts.reshape(-1, 2)
    cval = np.nan if border == "nan" else 0.0
    if exact:
        out = _sample_exact(image, pts.astype(np.float64, copy=False), border, cval)
    else:
        out = _remap_points(image, pts, border).astype(np.float64)
    if border != "replicate":
        h, w = image.shape[:2]
        inside = (pts[:, 0] >= 0) & (pts[:, 1] >= 0) & (pts[:, 0] <= w - 1) & (pts[:, 1] <= h - 1)
        out[~inside] = cval
    return out.reshape(lead + out.shape[1:]) if image.ndim == 3 else out[:, 0].reshape(lead)


def _sample_exact(image: np.ndarray, pts: np.ndarray, border: Border, cval: float) -> np.ndarray:
    img = np.asarray(image, dtype=np.float64)
    coords = np.stack([pts[:, 1], pts[:, 0]])
    mode = "nearest" if border == "replicate" else "constant"
    channels = img[..., None] if img.ndim == 2 else img
    from scipy.ndimage import map_coordinates  # noqa: PLC0415  (SciPy only when sampling: CLI start-up)

    return np.stack([map_coordinates(channels[..., c], coords, order=1, mode=mode, cval=cval)
                     for c in range(channels.shape[2])], axis=1)


def _remap_points(image: np.ndarray, pts: np.ndarray, border: Border) -> np.ndarray:
    """OpenCV's bilinear samples at points (N, 2), shape (N, C), in the image's dtype (uint8 or float32)."""
    import cv2

    h, w = image.shape[:2]
    channels = 1 if image.ndim == 2 else image.shape[2]
    src = image if image.dtype in (np.uint8, np.float32) else image.astype(np.float32)
    n = len(pts)
    if n == 0:
        return np.zeros((0, channels), src.dtype)
    cols = min(n, _REMAP_COLS)
    rows = -(-n // cols)
    mx = np.zeros(rows * cols, np.float32)
    my = np.zeros(rows * cols, np.float32)
    mx[:n] = pts[:, 0]
    my[:n] = pts[:, 1]
    if border == "replicate" and src.dtype != np.uint8:
        # clamped just inside the outermost pixel centres, so that the edge pixel comes back exactly (a uint8
        # image's fixed-point weights give it exactly anyway)
        np.clip(mx[:n], 0.0, w - 1.001, out=mx[:n])
        np.clip(my[:n], 0.0, h - 1.001, out=my[:n])
    mode = cv2.BORDER_REPLICATE if border == "replicate" else cv2.BORDER_CONSTANT
    out = cv2.remap(src, mx.reshape(rows, cols), my.reshape(rows, cols), cv2.INTER_LINEAR, borderMode=mode,
                    borderValue=0)
    return out.reshape(rows * cols, channels)[:n]


class HeightMapping:
    """Table mm on the plane ``z_mm`` -> photo px with the calibration's own model, tabulated where asked.

    The mapping is ``mm_to_px_at_height`` when the calibration has one (lens and camera pose; without a
    pose it ignores the height), else ``mm_to_px`` (the table plane): no field-of-view fallback, unlike
    :class:`TableView`. ``prepare`` tabulates it over a region on a grid; larger batches of points
    inside that region are then interpolated from the table (smooth, and far cheaper).
    """

    #: Implementation sizes (no effect on results): points below this go through the exact mapping.
    min_tabulated_points = 64

    def __init__(self, cal: Any, z_mm: float):
        self.cal = cal
        self.z = z_mm
        self.has_z = hasattr(cal, "mm_to_px_at_height")
        self.grid: tuple | None = None

    def exact_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """The calibration's own mapping of table points (N, 2) -> px (N, 2)."""
        if self.has_z:
            return np.asarray(self.cal.mm_to_px_at_height(xy_mm, self.z), np.float64)
        return self.cal.mm_to_px(xy_mm)

    def prepare(self, region: tuple, step_mm: float) -> None:
        """Tabulate the exact mapping over a region (x0, y0, x1, y1) every ``step_mm``."""
        x0, y0, x1, y1 = region
        gx = np.arange(x0, x1 + step_mm, step_mm)
        gy = np.arange(y0, y1 + step_mm, step_mm)
        X, Y = np.meshgrid(gx, gy)
        px = self.exact_px(np.stack([X.ravel(), Y.ravel()], axis=1)).astype(np.float32)
        self.grid = (float(x0), float(y0), float(gx[-1]), float(gy[-1]), step_mm, px.reshape(len(gy), len(gx), 2))

    def to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table points (N, 2) -> px (N, 2): from the table inside the prepared region, else exact."""
        xy = np.asarray(xy_mm, np.float64).reshape(-1, 2)
        if self.grid is None or len(xy) < self.min_tabulated_points:
            return self.exact_px(xy)
        x0, y0, x1, y1, step, tab = self.grid
        if xy[:, 0].min() < x0 or xy[:, 0].max() > x1 or xy[:, 1].min() < y0 or xy[:, 1].max() > y1:
            return self.exact_px(xy)
        uv = np.stack([(xy[:, 0] - x0) / step, (xy[:, 1] - y0) / step], axis=1)
        return _remap_points(tab, uv, "replicate").astype(np.float64)

    def sample(self, image: np.ndarray, xy_mm: np.ndarray) -> np.ndarray:
        """Bilinear values of ``image`` (the photo) at table points (N, 2), shape (N, C) float32; edge pixels
        outside."""
        xy = np.asarray(xy_mm, np.float64).reshape(-1, 2)
        maps = self._tabulated_maps(xy) if image.dtype == np.uint8 else None
        if maps is None:
            return _remap_points(image, self.to_px(xy), "replicate").astype(np.float32)
        # the table's pixel positions (float32) straight into the photo's remap as one two-channel map: the same
        # numbers as through ``to_px`` (float32 -> float64 -> float32) and two maps, without the copies
        import cv2

        out = cv2.remap(image, maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return out.reshape(maps.shape[0] * maps.shape[1], -1)[:len(xy)].astype(np.float32)

    def _tabulated_maps(self, xy: np.ndarray) -> np.ndarray | None:
        """:meth:`to_px` of table points (N, 2) from the prepared table, as ``_remap_points`` lays out a remap's
        points (rows of ``_REMAP_COLS``, the tail padded): shape (rows, cols, 2) float32; None where ``to_px``
        would map them exactly (no table, few points, or points outside it)."""
        if self.grid is None or len(xy) < self.min_tabulated_points:
            return None
        x0, y0, x1, y1, step, tab = self.grid
        if xy[:, 0].min() < x0 or xy[:, 0].max() > x1 or xy[:, 1].min() < y0 or xy[:, 1].max() > y1:
            return None
        import cv2

        n = len(xy)
        cols = min(n, _REMAP_COLS)
        rows = -(-n // cols)
        mx = np.zeros(rows * cols, np.float32)
        my = np.zeros(rows * cols, np.float32)
        mx[:n] = (xy[:, 0] - x0) / step
        my[:n] = (xy[:, 1] - y0) / step
        # clamped just inside the table's outermost entries, as ``_remap_points`` clamps a float image's points
        np.clip(mx[:n], 0.0, tab.shape[1] - 1.001, out=mx[:n])
        np.clip(my[:n], 0.0, tab.shape[0] - 1.001, out=my[:n])
        return cv2.remap(tab, mx.reshape(rows, cols), my.reshape(rows, cols), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE, borderValue=0)

    def homography_view(self, image: np.ndarray, mm_per_px: float, region: tuple, grid: int = 9) -> np.ndarray:
        """Top-down view of a table region on this plane; pixel (0, 0) at (x0, y0). See :func:`homography_view`."""
        return homography_view(self.to_px, image, mm_per_px, region, grid)


def homography_view(to_px: Any, image: np.ndarray, mm_per_px: float, region: tuple, grid: int = 9) -> np.ndarray:
    """Top-down view of a table region (x0, y0, x1, y1) through ONE homography fitted to ``grid x grid``
    mapped points (exact for a plane seen without lens distortion; the cheapest view); 0 outside the photo.

    Parameters
    ----------
    to_px : callable(ndarray (N, 2) mm) -> ndarray (N, 2) px
    image : ndarray, shape (H, W) or (H, W, C)
    mm_per_px : float
    region : (x0, y0, x1, y1)
    grid : int

    Returns
    -------
    ndarray, shape (round((y1 - y0) / mm_per_px), round((x1 - x0) / mm_per_px)[, C])
    """
    import cv2

    x0, y0, x1, y1 = region
    w = int(round((x1 - x0) / mm_per_px))
    h = int(round((y1 - y0) / mm_per_px))
    X, Y = np.meshgrid(np.linspace(x0, x1, grid), np.linspace(y0, y1, grid))
    mm = np.stack([X.ravel(), Y.ravel()], axis=1)
    px = to_px(mm)
    out = (mm - [x0, y0]) / mm_per_px
    H, _ = cv2.findHomography(out.astype(np.float32), px.astype(np.float32), 0)
    return cv2.warpPerspective(image, H, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)


def grid_maps(to_px: Any, region: tuple, mm_per_px: float, step_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Remap tables (photo px per top-view px) of a table region, from the mapping every ``step_mm``.

    The mapping (homography, camera pose, lens) is smooth, so it is evaluated on a coarse grid whose
    first and last nodes fall on the first and last view pixels and resized bilinearly (far cheaper
    than mapping every pixel). Points the mapping cannot place go far outside the photo.

    Known inexactness, kept on purpose: ``cv2.resize`` places node ``i`` at pixel ``(i + 0.5) w / n - 0.5``,
    not at ``i (w - 1) / (n - 1)``, so between the corners the view is stretched by about ``step_mm`` over
    the region's width (1-3 %, a few px near the edges). Kaleido's tunables were set on this view; nodes
    placed exactly measured no better (dev photoreal set x 4 devices: 62 vs 64 of 80 exact; 80 fast
    renders: 74 vs 75 exact scores), so the exact placement waits for a retune with more photos.

    Returns
    -------
    mapx, mapy : ndarray, shape (round((y1 - y0) / mm_per_px), round((x1 - x0) / mm_per_px)), float32
    """
    import cv2

    x0, y0, x1, y1 = region
    s = mm_per_px
    w = int(round((x1 - x0) / s))
    h = int(round((y1 - y0) / s))
    nx = max(2, int(np.ceil((x1 - x0) / step_mm)) + 1)
    ny = max(2, int(np.ceil((y1 - y0) / step_mm)) + 1)
    gx, gy = np.meshgrid(np.linspace(x0, x0 + (w - 1) * s, nx), np.linspace(y0, y0 + (h - 1) * s, ny))
    px = np.asarray(to_px(np.column_stack([gx.ravel(), gy.ravel()])), dtype=np.float64)
    px = np.where(np.isfinite(px), px, -1e4)
    mapx = cv2.resize(px[:, 0].reshape(ny, nx).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    mapy = cv2.resize(px[:, 1].reshape(ny, nx).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return mapx, mapy


def remap_view(image: np.ndarray, maps: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The photo through remap tables (:func:`grid_maps`), 0 outside, and where the view lies inside the photo.

    Returns
    -------
    view : ndarray, shape (h, w[, C]), the image's dtype
    inside : ndarray, shape (h, w), bool
    """
    import cv2

    mapx, mapy = maps
    h, w = image.shape[:2]
    view = cv2.remap(image, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    inside = cv2.remap(np.full((h, w), 255, np.uint8), mapx, mapy, cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_CONSTANT, borderValue=0) > 128
    return view, inside


@dataclass(frozen=True)
class TableView:
    """One photo and its table frame, as every detector needs it.

    Attributes
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration (or any frame with ``mm_to_px``/``px_to_mm``, e.g. a markerless lattice frame)
    hfov_deg : float
        Field of view assumed by the height fallback when the calibration has no camera pose.
    layout : MarkerLayout or None
        The markers, for a colour reference measured here (None: the components' default layout).
    """

    image_rgb: np.ndarray
    calibration: Any
    hfov_deg: float = DEFAULT_HFOV_DEG
    layout: MarkerLayout | None = field(default=None)

    @property
    def has_height_model(self) -> bool:
        """Whether heights come from a camera pose (else from the homography fallback)."""
        return has_height_model(self.calibration)

    def mm_to_px(self, xy_mm: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """Table points (N, 2) on the plane ``z_mm`` above the table -> photo px (N, 2)."""
        return _geometry.mm_to_px(self.calibration, xy_mm, z_mm, hfov_deg=self.hfov_deg)

    def px_to_mm(self, xy_px: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """Photo px (N, 2) -> table points (N, 2) on the plane ``z_mm`` above the table."""
        return _geometry.px_to_mm(self.calibration, xy_px, z_mm, hfov_deg=self.hfov_deg)

    def top_view(self, region_mm: tuple[float, float, float, float], mm_per_px: float, z_mm: float = 0.0,
                 image: np.ndarray | None = None) -> TopView:
        """A top-down view of ``region_mm`` (x0, y0, x1, y1) at ``mm_per_px`` on the plane ``z_mm``.

        ``image`` defaults to the photo; pass e.g. :attr:`normalised` to rectify the normalised colours.
        """
        src = self.image_rgb if image is None else image
        if self.hfov_deg == DEFAULT_HFOV_DEG or has_height_model(self.calibration) or z_mm == 0.0:
            return _geometry.top_view(self.calibration, src, region_mm, mm_per_px, z_mm)
        # the fallback's field of view must reach the per-pixel mapping: map through this view's own mm_to_px
        return _top_view_via(self, src, region_mm, mm_per_px, z_mm)

    @cached_property
    def colour(self) -> Any:
        """The frame's colour reference (``normalise(rgb) -> float``): the calibration's, else measured on the
        markers here."""
        return _geometry.colour_reference(self.calibration, self.image_rgb, self.layout)

    @cached_property
    def normalised(self) -> np.ndarray:
        """The photo with marker black -> 0 and paper white -> 1 per channel, float32 (H, W, 3)."""
        return np.asarray(self.colour.normalise(self.image_rgb), dtype=np.float32)

    def sample(self, xy_mm: np.ndarray, z_mm: float = 0.0, image: np.ndarray | None = None,
               border: Border = "nan") -> np.ndarray:
        """Values of ``image`` (default: the photo) at table points on the plane ``z_mm``; NaN outside."""
        src = self.image_rgb if image is None else image
        return sample(src, self.mm_to_px(xy_mm, z_mm), border)

    def lab(self, xy_mm: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """CIELAB of the normalised colours at table points (N, 3); NaN outside the photo."""
        return rgb_to_lab(self.sample(xy_mm, z_mm, self.normalised))


def _top_view_via(view: TableView, image: np.ndarray, region_mm: tuple[float, float, float, float],
                  mm_per_px: float, z_mm: float) -> TopView:
    import cv2

    x0, y0, x1, y1 = region_mm
    w = int(round((x1 - x0) / mm_per_px))
    h = int(round((y1 - y0) / mm_per_px))
    gx, gy = np.meshgrid(np.arange(w) * mm_per_px + x0, np.arange(h) * mm_per_px + y0)
    px = view.mm_to_px(np.stack([gx.ravel(), gy.ravel()], axis=1), z_mm).reshape(h, w, 2).astype(np.float32)
    out = cv2.remap(image, px[..., 0], px[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return TopView(out, (float(x0), float(y0)), float(mm_per_px), float(z_mm))
