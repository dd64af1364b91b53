"""Synthetic camera views of a marker layout with a known camera, for tests and calibration evaluation.

A top-down texture of the table (markers with their white quiet zone on a plain table) is seen by a
pinhole camera with OpenCV radial distortion, then light cast, noise and blur are applied. The truth
(K, dist, R, t) comes back with the image so that a test can check a fit against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.markers import MarkerLayout, aruco_dictionary


@dataclass(frozen=True)
class ViewCamera:
    """A pinhole camera looking at the table.

    Attributes
    ----------
    K : ndarray, shape (3, 3)
    dist : ndarray, shape (5,)
        OpenCV (k1, k2, p1, p2, k3).
    R : ndarray, shape (3, 3)
        Table mm -> camera rotation (table frame: x right, y down, z = -(up), so camera z looks down).
    t : ndarray, shape (3,)
        Table mm -> camera translation, mm.
    image_size : tuple[int, int]
        (width, height), px.
    """

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    image_size: tuple[int, int]

    def project(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Table points (z up from the table, mm) to distorted image px, shape (N, 2)."""
        p = np.asarray(xyz_mm, dtype=np.float64).reshape(-1, 3).copy()
        p[:, 2] = -p[:, 2]  # table frame z axis points into the table (x right, y down)
        rvec, _ = cv2.Rodrigues(self.R)
        out, _ = cv2.projectPoints(p, rvec, self.t, self.K, self.dist)
        return out.reshape(-1, 2)


def look_at_camera(
    image_size: tuple[int, int],
    hfov_deg: float,
    height_mm: float,
    tilt_deg: float,
    yaw_deg: float,
    target_mm: tuple[float, float],
    k1: float = 0.0,
    k2: float = 0.0,
) -> ViewCamera:
    """A camera ``height_mm`` above the table, tilted from vertical, aimed at ``target_mm``.

    Parameters
    ----------
    tilt_deg : float
        0 = looking straight down.
    yaw_deg : float
        Rotation of the view about the vertical (0: image up = table -y).
    """
    w, h = image_size
    f = (w / 2) / np.tan(np.radians(hfov_deg) / 2)
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], dtype=np.float64)
    tilt, yaw = np.radians(tilt_deg), np.radians(yaw_deg)
    # Table frame T: x right, y down (on table), z into the table. Camera looking straight down with
    # image x = table x, image y = table y has R = I. Tilt: rotate about the camera x axis.
    Rz = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]])
    R = Rx @ Rz.T
    # camera centre: back along the optical axis from the target until height_mm above the table
    axis_table = R.T @ np.array([0.0, 0.0, 1.0])  # optical axis in table coords (z into the table)
    target = np.array([target_mm[0], target_mm[1], 0.0])
    centre = target - axis_table * (height_mm / axis_table[2])
    t = -R @ centre
    return ViewCamera(K=K, dist=np.array([k1, k2, 0, 0, 0], dtype=np.float64), R=R, t=t, image_size=image_size)


def table_texture(
    layout: MarkerLayout,
    px_per_mm: float,
    region_mm: tuple[float, float, float, float],
    table_rgb: tuple[int, int, int] = (150, 120, 90),
    quiet_zone_mm: float = 10.0,
    patches: tuple[tuple[tuple[float, float, float, float], tuple[int, int, int]], ...] = (),
    marker_rot_deg: dict[int, float] | None = None,
    supersample: int = 4,
) -> np.ndarray:
    """A top-down RGB texture of the table with the layout's markers.

    Parameters
    ----------
    region_mm : (x0, y0, x1, y1)
        Table rectangle covered; texture pixel (0, 0) is centred at (x0, y0).
    patches : ((x0, y0, x1, y1), rgb) ...
        Extra filled rectangles (e.g. a grey reference patch).
    marker_rot_deg : dict id -> degrees, optional
        Markers laid slightly rotated about their centres (a real, hand-placed sheet).
    supersample : int
        Markers are rasterised this many times finer, then area-averaged (exact anti-aliased edges).

    Returns
    -------
    ndarray, shape (H, W, 3), uint8
    """
    x0, y0, x1, y1 = region_mm
    W = int(round((x1 - x0) * px_per_mm)) + 1
    H = int(round((y1 - y0) * px_per_mm)) + 1
    tex = np.empty((H, W, 3), np.uint8)
    tex[:] = table_rgb
    for (a, b, c, d), rgb in patches:
        p = [int(round((a - x0) * px_per_mm)), int(round((b - y0) * px_per_mm))]
        q = [int(round((c - x0) * px_per_mm)), int(round((d - y0) * px_per_mm))]
        tex[p[1] : q[1], p[0] : q[0]] = rgb
    dictionary = aruco_dictionary(layout.dictionary)
    n_cells = dictionary.markerSize + 2
    ss = supersample
    for mid, (cx, cy) in layout.centres_mm.items():
        cells = cv2.aruco.generateImageMarker(dictionary, int(mid), n_cells, borderBits=1).astype(np.float32)
        reach = (layout.side_mm / 2 + quiet_zone_mm) * 1.5
        # texture pixel box around the marker, rendered ss x finer then area-averaged down
        c0 = int(np.floor((cx - reach - x0) * px_per_mm))
        r0 = int(np.floor((cy - reach - y0) * px_per_mm))
        c1 = int(np.ceil((cx + reach - x0) * px_per_mm)) + 1
        r1 = int(np.ceil((cy + reach - y0) * px_per_mm)) + 1
        c0, r0, c1, r1 = max(c0, 0), max(r0, 0), min(c1, W), min(r1, H)
        if c1 <= c0 or r1 <= r0:
            continue
        sub = (np.arange(ss) + 0.5) / ss - 0.5
        xs = x0 + (np.arange(c0, c1)[:, None] + sub[None]).ravel() / px_per_mm
        ys = y0 + (np.arange(r0, r1)[:, None] + sub[None]).ravel() / px_per_mm
        X, Y = np.meshgrid(xs - cx, ys - cy)
        ang = np.radians((marker_rot_deg or {}).get(mid, 0.0))
        u = np.cos(ang) * X + np.sin(ang) * Y  # marker frame (inverse rotation)
        v = -np.sin(ang) * X + np.cos(ang) * Y
        half = layout.side_mm / 2
        paper = (np.abs(u) <= half + quiet_zone_mm) & (np.abs(v) <= half + quiet_zone_mm)
        inside = (np.abs(u) < half) & (np.abs(v) < half)
        ci = np.clip(((u + half) / layout.side_mm * n_cells).astype(int), 0, n_cells - 1)
        ri = np.clip(((v + half) / layout.side_mm * n_cells).astype(int), 0, n_cells - 1)
        val = np.where(inside, cells[ri, ci], 255.0)
        size = (c1 - c0, r1 - r0)
        alpha = cv2.resize(paper.astype(np.float32), size, interpolation=cv2.INTER_AREA)
        grey = cv2.resize((val * paper).astype(np.float32), size, interpolation=cv2.INTER_AREA)
        box = tex[r0:r1, c0:c1].astype(np.float32)
        out = box * (1 - alpha[..., None]) + grey[..., None]
        tex[r0:r1, c0:c1] = np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return tex


@dataclass(frozen=True)
class ViewLook:
    """Photometric conditions of a synthetic view.

    Attributes
    ----------
    gain_rgb : (3,) floats
        Per-channel gain of the light and white balance (a colour cast), applied to the texture.
    black_rgb : (3,) floats
        Additive black level (haze, flare), 0-255.
    noise_sigma : float
        Gaussian sensor noise, 0-255.
    blur_sigma_px : float
    """

    gain_rgb: tuple[float, float, float] = (1.0, 1.0, 1.0)
    black_rgb: tuple[float, float, float] = (0.0, 0.0, 0.0)
    noise_sigma: float = 2.0
    blur_sigma_px: float = 0.6


def render_view(
    texture: np.ndarray,
    px_per_mm: float,
    region_mm: tuple[float, float, float, float],
    camera: ViewCamera,
    look: ViewLook = ViewLook(),
    rng: np.random.Generator | None = None,
    z_mm: float = 0.0,
) -> np.ndarray:
    """Photograph a table texture lying on the plane ``z_mm`` above the table.

    Returns
    -------
    ndarray, shape (H, W, 3), uint8
    """
    rng = rng or np.random.default_rng(0)
    w, h = camera.image_size
    u, v = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    pts = np.stack([u.ravel(), v.ravel()], axis=1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-6)
    und = cv2.undistortPointsIter(pts, camera.K, camera.dist, None, None, crit).reshape(-1, 2)
    # ray in camera coords (x, y, 1) -> table plane z_table = -z_mm (table frame z points into the table)
    rays = np.column_stack([und, np.ones(len(und))]) @ camera.R  # = R^T ray, in table axes
    centre = -camera.R.T @ camera.t
    s = (-z_mm - centre[2]) / rays[:, 2]
    xy = centre[:2] + rays[:, :2] * s[:, None]
    x0, y0 = region_mm[0], region_mm[1]
    mapx = ((xy[:, 0] - x0) * px_per_mm).reshape(h, w).astype(np.float32)
    mapy = ((xy[:, 1] - y0) * px_per_mm).reshape(h, w).astype(np.float32)
    bad = (s <= 0).reshape(h, w)
    mapx[bad] = -1
    img = cv2.remap(texture, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    img = img * np.asarray(look.gain_rgb, np.float32) + np.asarray(look.black_rgb, np.float32)
    if look.blur_sigma_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), look.blur_sigma_px)
    img += rng.normal(0, look.noise_sigma, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)
