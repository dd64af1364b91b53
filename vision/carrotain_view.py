"""Table views for the Carrotain detectors: px <-> mm at a height, top-down rectification, colour reference.

The calibration package is being extended (lens model, camera pose, ``mm_to_px_at_height``,
``calibration.colour``); these helpers use those when the ``TableCalibration`` has them and fall
back to the plain table homography (height ignored) and a colour reference measured on the
markers when it does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.markers import MarkerLayout
from calibration.planefit import apply_h

DEFAULT_HFOV_DEG = 65.0  # assumed field of view when the homography cannot tell the focal length


def has_height_model(cal) -> bool:
    """Whether the calibration can map points above the table plane: a camera pose was estimated (not merely
    the methods exist: ``TableCalibration.mm_to_px_at_height`` ignores the height when ``camera`` is None)."""
    return (getattr(cal, "camera", None) is not None and callable(getattr(cal, "mm_to_px_at_height", None))
            and callable(getattr(cal, "px_to_mm_at_height", None)))


def height_homography(cal, z_mm: float, hfov_deg: float = DEFAULT_HFOV_DEG) -> np.ndarray:
    """Homography table (x, y) on the plane ``z_mm`` above the table -> image px, without a lens model.

    Fallback for calibrations without a camera pose: the homography is decomposed as
    ``K [r1 r2 t]`` with square pixels and the principal point at the image centre; the focal
    length comes from the orthogonality of ``r1`` and ``r2`` (or the field of view ``hfov_deg`` when
    the view is too close to straight down to tell). A point z mm up is ``K (x r1 + y r2 - z r3 + t)``
    (the table's z axis points up, i.e. towards the camera).
    """
    H = np.asarray(cal.H_px_from_mm, dtype=np.float64)
    w, h = cal.image_size
    T = np.array([[1, 0, -(w - 1) / 2.0], [0, 1, -(h - 1) / 2.0], [0, 0, 1]])
    G = T @ H
    h1, h2 = G[:, 0], G[:, 1]
    # h1^T w h2 = 0 with w = diag(1/f^2, 1/f^2, 1):  (a1 a2 + b1 b2)/f^2 + c1 c2 = 0
    num = h1[0] * h2[0] + h1[1] * h2[1]
    f2 = -num / (h1[2] * h2[2]) if abs(h1[2] * h2[2]) > 1e-12 else -1.0
    num2 = (h1[0] ** 2 + h1[1] ** 2) - (h2[0] ** 2 + h2[1] ** 2)
    den2 = h2[2] ** 2 - h1[2] ** 2
    f2b = num2 / den2 if abs(den2) > 1e-12 else -1.0
    f_default = (w / 2.0) / np.tan(np.radians(hfov_deg / 2.0))
    cands = [np.sqrt(v) for v in (f2, f2b) if v > 0 and 0.3 * f_default < np.sqrt(v) < 3.0 * f_default]
    f = float(np.median(cands)) if cands else f_default
    Kinv = np.diag([1.0 / f, 1.0 / f, 1.0])
    r1, r2, t = Kinv @ h1, Kinv @ h2, Kinv @ G[:, 2]
    lam = 2.0 / (np.linalg.norm(r1) + np.linalg.norm(r2))
    r1, r2, t = r1 * lam, r2 * lam, t * lam
    if t[2] < 0:
        r1, r2, t = -r1, -r2, -t
    r3 = np.cross(r1, r2)
    # the table z axis points towards the camera: choose the sign of r3 so that it does
    if np.dot(r3, t) > 0:
        r3 = -r3
    Hz = np.column_stack([r1, r2, t + z_mm * r3])
    return np.linalg.inv(T) @ np.diag([f, f, 1.0]) @ Hz


def mm_to_px(cal, xy_mm: np.ndarray, z_mm: float = 0.0, hfov_deg: float = DEFAULT_HFOV_DEG) -> np.ndarray:
    """Table points at height ``z_mm`` (N, 2) -> image px (N, 2); ``hfov_deg``: see :func:`height_homography`."""
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    if z_mm == 0.0:
        return cal.mm_to_px(xy)
    if has_height_model(cal):
        return np.asarray(cal.mm_to_px_at_height(xy, z_mm), dtype=np.float64).reshape(-1, 2)
    return apply_h(height_homography(cal, z_mm, hfov_deg), xy)


def px_to_mm(cal, xy_px: np.ndarray, z_mm: float = 0.0, hfov_deg: float = DEFAULT_HFOV_DEG) -> np.ndarray:
    """Image px (N, 2) -> table points (N, 2) on the plane ``z_mm`` above the table."""
    xy = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
    if z_mm == 0.0:
        return cal.px_to_mm(xy)
    if has_height_model(cal):
        return np.asarray(cal.px_to_mm_at_height(xy, z_mm), dtype=np.float64).reshape(-1, 2)
    return apply_h(np.linalg.inv(height_homography(cal, z_mm, hfov_deg)), xy)


@dataclass(frozen=True)
class TopView:
    """A top-down resampling of a table region at one height.

    Attributes
    ----------
    image : ndarray, shape (h, w, C)
    origin_mm : (float, float)
        Table (x, y) of output pixel (0, 0)'s centre.
    mm_per_px : float
    z_mm : float
        Height of the plane shown.
    """

    image: np.ndarray
    origin_mm: tuple[float, float]
    mm_per_px: float
    z_mm: float

    def px_to_mm(self, xy_px: np.ndarray) -> np.ndarray:
        """View px (N, 2) -> table mm (N, 2)."""
        return np.asarray(xy_px, dtype=np.float64).reshape(-1, 2) * self.mm_per_px + self.origin_mm

    def mm_to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) -> view px (N, 2)."""
        return (np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2) - self.origin_mm) / self.mm_per_px


@dataclass(frozen=True)
class TopViewMaps:
    """Where every pixel of a top view lies in the photo (``cv2.remap`` maps, fixed point), for one calibration:
    reused to resample later frames seen through the same calibration (live video).

    Attributes
    ----------
    map_xy, map_frac : ndarray, shapes (h, w, 2) int16 and (h, w) uint16
        ``cv2.convertMaps`` of the float maps (the fixed point ``cv2.remap`` uses for them anyway: the same
        pixels, resampled faster).
    origin_mm : (float, float)
    mm_per_px, z_mm : float
    """

    map_xy: np.ndarray
    map_frac: np.ndarray
    origin_mm: tuple[float, float]
    mm_per_px: float
    z_mm: float

    def resample(self, image: np.ndarray) -> TopView:
        """The top view of ``image`` (a frame of the calibration these maps were made for)."""
        return TopView(_resampled(image, self.map_xy, self.map_frac), self.origin_mm, self.mm_per_px, self.z_mm)

    def photo_xy_px(self, step_px: int = 1) -> np.ndarray:
        """Where every ``step_px``-th view pixel lies in the photo, px, shape (h', w', 2) float64: the fixed-point
        maps decoded (integer part plus ``cv2.INTER_TAB_SIZE`` fractions)."""
        xy = self.map_xy[::step_px, ::step_px].astype(np.float64)
        frac = self.map_frac[::step_px, ::step_px].astype(np.int64)
        tab = cv2.INTER_TAB_SIZE
        xy[..., 0] += (frac % tab) / tab
        xy[..., 1] += (frac // tab) / tab
        return xy


def _resampled(image: np.ndarray, map_xy: np.ndarray, map_frac: np.ndarray) -> np.ndarray:
    """``image`` at the fixed-point maps' positions (bilinear; black outside the photo), shape of the maps (+ C)."""
    return cv2.remap(image, map_xy, map_frac, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)


@lru_cache(maxsize=8)
def _grid_positions(w: int, h: int, grid_step_px: int) -> tuple[np.ndarray, np.ndarray]:
    """Where every output pixel of a (h, w) view lies on the coarse grid of :func:`top_view_maps` (x / step, y /
    step), as the fixed-point maps ``cv2.remap`` turns float maps into anyway (the same interpolation, made once
    per view size: the positions do not depend on the calibration). Read-only arrays, shapes (h, w, 2) int16 and
    (h, w) uint16."""
    qx = np.broadcast_to((np.arange(w, dtype=np.float32) / grid_step_px)[None, :], (h, w))
    qy = np.broadcast_to((np.arange(h, dtype=np.float32) / grid_step_px)[:, None], (h, w))
    q_xy, q_frac = cv2.convertMaps(np.ascontiguousarray(qx), np.ascontiguousarray(qy), cv2.CV_16SC2)
    q_xy.setflags(write=False)
    q_frac.setflags(write=False)
    return q_xy, q_frac


def top_view_maps(cal, region_mm: tuple[float, float, float, float], mm_per_px: float, z_mm: float = 0.0,
                  grid_step_px: int = 8) -> TopViewMaps:
    """The maps of :func:`top_view` (same parameters), to resample any frame of this calibration."""
    ((w, h, nodes_px),) = _grid_nodes_px(cal, [region_mm], mm_per_px, z_mm, grid_step_px)
    map_xy, map_frac = _interpolated_maps(nodes_px, *_grid_positions(w, h, grid_step_px))
    return TopViewMaps(map_xy, map_frac, (float(region_mm[0]), float(region_mm[1])), float(mm_per_px), float(z_mm))


def top_view_pixels(cal, image: np.ndarray, regions_mm: list[tuple[float, float, float, float]], mm_per_px: float,
                    z_mm: float, pixels: list[tuple[np.ndarray, np.ndarray]], grid_step_px: int = 8
                    ) -> list[np.ndarray]:
    """A few pixels of several top views of one photo: per region, the view pixels ``pixels[i]`` (rows, cols: int
    arrays (n_i,)) exactly as :func:`top_view` of that region has them, each pixel resampled alone (the same fixed-point
    maps and ``cv2.remap`` as the whole view, pixel by pixel), every region's grid nodes projected at once.

    Returns
    -------
    list of ndarray, shape (n_i, C) (or (n_i,) for a one-channel image)
    """
    out = []
    for (w, h, nodes_px), (rows, cols) in zip(_grid_nodes_px(cal, regions_mm, mm_per_px, z_mm, grid_step_px), pixels):
        q_xy, q_frac = _grid_positions(w, h, grid_step_px)
        map_xy, map_frac = _interpolated_maps(nodes_px, q_xy[rows, cols][None], q_frac[rows, cols][None])
        out.append(_resampled(image, map_xy, map_frac)[0])
    return out


def view_shape(region_mm: tuple[float, float, float, float], mm_per_px: float) -> tuple[int, int]:
    """(rows, cols) of the top view of ``region_mm`` at ``mm_per_px`` (:func:`top_view`)."""
    x0, y0, x1, y1 = region_mm
    return int(round((y1 - y0) / mm_per_px)), int(round((x1 - x0) / mm_per_px))


def _grid_nodes_px(cal, regions_mm: list[tuple[float, float, float, float]], mm_per_px: float, z_mm: float,
                   grid_step_px: int) -> list[tuple[int, int, np.ndarray]]:
    """Per region: its top view's width and height (px) and where the view's coarse grid nodes (every ``grid_step_px``
    view px) lie in the photo, px, shape (rows, cols, 2) float32; every region's nodes projected in one call (the
    projection works point by point: the same numbers as one region at a time)."""
    sizes, nodes_mm = [], []
    for x0, y0, x1, y1 in regions_mm:
        h, w = view_shape((x0, y0, x1, y1), mm_per_px)
        gx = np.arange(0, w + grid_step_px, grid_step_px, dtype=np.float64)
        gy = np.arange(0, h + grid_step_px, grid_step_px, dtype=np.float64)
        GX, GY = np.meshgrid(gx, gy)
        nodes_mm.append(np.stack([GX.ravel() * mm_per_px + x0, GY.ravel() * mm_per_px + y0], axis=1))
        sizes.append((w, h, len(gy), len(gx)))
    if not nodes_mm:
        return []
    px = mm_to_px(cal, np.concatenate(nodes_mm), z_mm)
    out, i = [], 0
    for (w, h, rows, cols), nodes in zip(sizes, nodes_mm):
        out.append((w, h, px[i:i + len(nodes)].reshape(rows, cols, 2).astype(np.float32)))
        i += len(nodes)
    return out


def _interpolated_maps(nodes_px: np.ndarray, q_xy: np.ndarray, q_frac: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The fixed-point ``cv2.remap`` maps of the view pixels at grid positions ``q_xy, q_frac`` (``_grid_positions``):
    bilinear interpolation of the coarse grid's photo positions ``nodes_px`` (rows, cols, 2), its nodes on exact
    output pixels."""
    mx = cv2.remap(np.ascontiguousarray(nodes_px[..., 0]), q_xy, q_frac, cv2.INTER_LINEAR,
                   borderMode=cv2.BORDER_REPLICATE)
    my = cv2.remap(np.ascontiguousarray(nodes_px[..., 1]), q_xy, q_frac, cv2.INTER_LINEAR,
                   borderMode=cv2.BORDER_REPLICATE)
    return cv2.convertMaps(mx, my, cv2.CV_16SC2)


def top_view(cal, image: np.ndarray, region_mm: tuple[float, float, float, float], mm_per_px: float,
             z_mm: float = 0.0, grid_step_px: int = 8) -> TopView:
    """Resample the photo top-down over ``region_mm`` on the plane ``z_mm`` above the table.

    The image position of every output pixel is computed exactly on a coarse grid (every
    ``grid_step_px`` output px, through the calibration's lens and height model when present) and
    interpolated in between, then the photo is sampled with ``cv2.remap``.

    Parameters
    ----------
    cal : TableCalibration
    image : ndarray, shape (H, W) or (H, W, C)
    region_mm : (x0, y0, x1, y1)
    mm_per_px : float
    z_mm : float

    Returns
    -------
    TopView
    """
    return top_view_maps(cal, region_mm, mm_per_px, z_mm, grid_step_px).resample(image)


@dataclass(frozen=True)
class MarkerColourReference:
    """Black and white levels measured on the calibration markers (fallback colour reference).

    Attributes
    ----------
    white_rgb, black_rgb : ndarray, shape (3,), float, 0-255
    """

    white_rgb: np.ndarray
    black_rgb: np.ndarray

    def normalise(self, rgb: np.ndarray) -> np.ndarray:
        """0-255 colours (..., 3) -> float, black 0 and white 1 per channel."""
        span = np.maximum(self.white_rgb - self.black_rgb, 1.0)
        return (np.asarray(rgb, dtype=np.float64) - self.black_rgb) / span


def colour_reference(cal, image_rgb: np.ndarray, layout: MarkerLayout | None = None):
    """The frame's colour reference: ``cal.colour`` when the calibration has one, else measured here.

    The fallback samples each marker's black border (2-5 mm inside its edge) and the white paper
    around it (3-6 mm outside), on a top-down view, and takes medians over the markers.

    Returns
    -------
    object with ``normalise(rgb) -> float array`` (and ``white_rgb``, ``black_rgb``)
    """
    ref = getattr(cal, "colour", None)
    if ref is not None and callable(getattr(ref, "normalise", None)):
        return ref
    layout = layout or MarkerLayout.from_components()
    half = layout.side_mm / 2.0
    whites, blacks = [], []
    for mid in cal.marker_ids if getattr(cal, "marker_ids", None) else layout.centres_mm:
        cx, cy = layout.centres_mm[int(mid)]
        m = half + 8.0
        tv = top_view(cal, image_rgb, (cx - m, cy - m, cx + m, cy + m), 0.5)
        d = np.maximum(np.abs(np.arange(tv.image.shape[1]) * 0.5 - m)[None, :],
                       np.abs(np.arange(tv.image.shape[0]) * 0.5 - m)[:, None])
        inner = (d > half - 5.0) & (d < half - 2.0)
        outer = (d > half + 3.0) & (d < half + 6.0)
        blacks.append(np.median(tv.image[inner].reshape(-1, 3), axis=0))
        whites.append(np.median(tv.image[outer].reshape(-1, 3), axis=0))
    return MarkerColourReference(np.median(whites, axis=0), np.median(blacks, axis=0))
