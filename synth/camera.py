"""The synthetic camera: pose over the table, pinhole intrinsics and the OpenCV lens model.

The table frame is millimetres with x right, y down and z *up* from the table (the frame of
``synth.layers.Layer`` and of the truth files). That frame is left-handed, so the matrix ``R``
of ``X_cam = R @ X_table + t`` is orthogonal with determinant -1. OpenCV's object frame for a
planar target is (x, y, -z) (right-handed); ``CameraTruth.rvec_tvec_cv`` gives that proper pose.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Mirror between the table frame (z up) and OpenCV's planar object frame (z into the table).
FLIP_Z = np.diag([1.0, 1.0, -1.0])


@dataclass(frozen=True)
class CameraTruth:
    """The exact camera a synthetic photo was rendered with.

    Attributes
    ----------
    K : ndarray, shape (3, 3)
        Pinhole intrinsics of the output image, px (OpenCV: pixel (i, j) centre at (i, j)).
    dist : ndarray, shape (5,)
        OpenCV distortion coefficients (k1, k2, p1, p2, k3); the renderer uses p1 = p2 = k3 = 0.
    R : ndarray, shape (3, 3)
        Orthogonal, det -1: ``X_cam = R @ X_table_mm + t`` with the table frame's z up.
    t : ndarray, shape (3,)
        mm.
    image_size : tuple[int, int]
        (width, height), px.
    """

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    image_size: tuple[int, int]

    @property
    def centre_mm(self) -> np.ndarray:
        """Camera centre in the table frame (z up), shape (3,), mm."""
        return -self.R.T @ self.t

    def rvec_tvec_cv(self) -> tuple[np.ndarray, np.ndarray]:
        """Pose for OpenCV calls whose object points are (x, y, -z) (a proper rotation).

        Returns
        -------
        rvec : ndarray, shape (3,)
        tvec : ndarray, shape (3,), mm
        """
        rvec, _ = cv2.Rodrigues(self.R @ FLIP_Z)
        return rvec.ravel(), self.t.copy()

    def to_camera(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Table points (z up) to camera coordinates, shape (N, 3), mm."""
        p = np.asarray(xyz_mm, dtype=np.float64).reshape(-1, 3)
        return p @ self.R.T + self.t

    def project_undistorted(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Pinhole projection without the lens distortion, shape (N, 2), px."""
        c = self.to_camera(xyz_mm)
        uv = c[:, :2] / c[:, 2:3]
        return uv * np.array([self.K[0, 0], self.K[1, 1]]) + np.array([self.K[0, 2], self.K[1, 2]])

    def project(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Table points (z up) to distorted image pixels, the model the image was rendered with.

        Parameters
        ----------
        xyz_mm : array_like, shape (N, 3)

        Returns
        -------
        ndarray, shape (N, 2), float64, px
        """
        c = self.to_camera(xyz_mm)
        xy = c[:, :2] / c[:, 2:3]
        xy_d = distort_normalised(xy, self.dist)
        return xy_d * np.array([self.K[0, 0], self.K[1, 1]]) + np.array([self.K[0, 2], self.K[1, 2]])

    def homography_px_from_mm(self, z_mm: float, K: np.ndarray | None = None) -> np.ndarray:
        """Pinhole homography taking (x, y, 1) on the plane z = z_mm to undistorted px, shape (3, 3)."""
        K = self.K if K is None else K
        M = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z_mm + self.t])
        return K @ M

    def to_json(self) -> dict:
        return {
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "R": self.R.tolist(),
            "t": self.t.tolist(),
            "image_size": list(self.image_size),
            "frame": "table mm, x right, y down, z up; X_cam = R @ X + t (det R = -1)",
        }

    @classmethod
    def from_json(cls, obj: dict) -> CameraTruth:
        return cls(
            K=np.asarray(obj["K"], dtype=np.float64).reshape(3, 3),
            dist=np.asarray(obj["dist"], dtype=np.float64).reshape(5),
            R=np.asarray(obj["R"], dtype=np.float64).reshape(3, 3),
            t=np.asarray(obj["t"], dtype=np.float64).reshape(3),
            image_size=(int(obj["image_size"][0]), int(obj["image_size"][1])),
        )


def distort_normalised(xy: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """OpenCV's lens model on normalised pinhole coordinates.

    Parameters
    ----------
    xy : ndarray, shape (N, 2)
        Undistorted normalised coordinates (X/Z, Y/Z).
    dist : ndarray, shape (5,)
        (k1, k2, p1, p2, k3).

    Returns
    -------
    ndarray, shape (N, 2)
    """
    k1, k2, p1, p2, k3 = (float(v) for v in dist)
    x, y = xy[:, 0], xy[:, 1]
    r2 = x * x + y * y
    radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
    yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
    return np.column_stack([xd, yd])


def radial_is_monotonic(dist: np.ndarray, r_max: float, samples: int = 256) -> bool:
    """Whether r -> r (1 + k1 r^2 + k2 r^4 + k3 r^6) keeps increasing up to ``r_max`` (no fold)."""
    k1, k2, _, _, k3 = (float(v) for v in dist)
    r = np.linspace(0.0, r_max, samples)
    r2 = r * r
    deriv = 1.0 + 3.0 * k1 * r2 + 5.0 * k2 * r2 * r2 + 7.0 * k3 * r2 * r2 * r2
    return bool(np.all(deriv > 0.05))


def look_at_pose(
    look_at_mm: tuple[float, float], height_mm: float, tilt_deg: float, yaw_deg: float, roll_deg: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Pose of a camera ``height_mm`` above the table looking at a table point.

    The camera stands off the look-at point horizontally by ``height * tan(tilt)`` in the
    direction given by ``yaw`` (0: towards +y, the bottom edge of a top-down view, so that yaw 0
    and tilt 0 show the table the right way up); the near side of the table is at the bottom of
    the image. ``roll`` turns the image about the optical axis.

    Returns
    -------
    R : ndarray, shape (3, 3), det -1
    t : ndarray, shape (3,), mm
    """
    # Work in the right-handed frame P = (x, y, d), d = -z (into the table).
    yaw = np.radians(yaw_deg)
    tilt = np.radians(tilt_deg)
    u = np.array([-np.sin(yaw), np.cos(yaw), 0.0])
    target = np.array([look_at_mm[0], look_at_mm[1], 0.0])
    centre = target + u * height_mm * np.tan(tilt) + np.array([0.0, 0.0, -height_mm])
    f = target - centre
    f /= np.linalg.norm(f)
    down = u - np.dot(u, f) * f
    down /= np.linalg.norm(down)
    right = np.cross(down, f)
    Rp = np.stack([right, down, f])
    roll = np.radians(roll_deg)
    Rz = np.array([[np.cos(roll), -np.sin(roll), 0.0], [np.sin(roll), np.cos(roll), 0.0], [0.0, 0.0, 1.0]])
    Rp = Rz @ Rp
    t = -Rp @ centre
    return Rp @ FLIP_Z, t


def intrinsics(image_size: tuple[int, int], hfov_deg: float) -> np.ndarray:
    """Square-pixel pinhole K with the principal point at the image centre, shape (3, 3)."""
    w, h = image_size
    f = (w / 2.0) / np.tan(np.radians(hfov_deg) / 2.0)
    return np.array([[f, 0.0, (w - 1) / 2.0], [0.0, f, (h - 1) / 2.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class DistortionMaps:
    """How to turn an undistorted (pinhole) canvas into the distorted photo.

    Attributes
    ----------
    K_canvas : ndarray, shape (3, 3)
        Intrinsics of the canvas: same focal length as the photo, shifted principal point.
    canvas_size : tuple[int, int]
        (width, height) of the canvas, px.
    map_x, map_y : ndarray, shape (H, W), float32, or None
        For each photo pixel, the canvas pixel it samples (``cv2.remap``); None when the lens has
        no distortion (canvas = photo).
    """

    K_canvas: np.ndarray
    canvas_size: tuple[int, int]
    map_x: np.ndarray | None
    map_y: np.ndarray | None


def undistort_normalised(xy_d: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Invert ``distort_normalised`` (OpenCV's iterative solver, tight tolerance), shape (N, 2)."""
    pts = np.ascontiguousarray(xy_d, dtype=np.float64).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    out = cv2.undistortPointsIter(pts, np.eye(3), np.asarray(dist, dtype=np.float64), None, None, crit)
    return out.reshape(-1, 2)


def distortion_maps(K: np.ndarray, dist: np.ndarray, image_size: tuple[int, int], grid_step_px: int = 8,
                    pad_px: int = 3) -> DistortionMaps:
    """Remap tables from the photo to a pinhole canvas big enough to cover it.

    The inverse lens model is solved exactly on a coarse grid (every ``grid_step_px``) and
    interpolated linearly (the map is smooth: error well under 0.02 px).

    Parameters
    ----------
    K : ndarray, shape (3, 3)
    dist : ndarray, shape (5,)
    image_size : (width, height)

    Returns
    -------
    DistortionMaps
    """
    w, h = image_size
    if not np.any(np.asarray(dist) != 0.0):
        return DistortionMaps(K_canvas=K.copy(), canvas_size=(w, h), map_x=None, map_y=None)
    fxy = np.array([K[0, 0], K[1, 1]])
    cxy = np.array([K[0, 2], K[1, 2]])
    step = int(grid_step_px)
    # Coarse nodes at u = off + step * i (i = -1 .. n), off = step/2 - 0.5: then cv2.resize by the
    # factor ``step`` (float maps: exact bilinear weights) lands node i on fine pixel off + step * i.
    off = step / 2.0 - 0.5
    nx = int(np.ceil(w / step)) + 2
    ny = int(np.ceil(h / step)) + 2
    gx = off + step * (np.arange(nx, dtype=np.float64) - 1)
    gy = off + step * (np.arange(ny, dtype=np.float64) - 1)
    GX, GY = np.meshgrid(gx, gy)
    pts_d = (np.column_stack([GX.ravel(), GY.ravel()]) - cxy) / fxy
    pts_u = (undistort_normalised(pts_d, dist) * fxy + cxy).reshape(ny, nx, 2).astype(np.float32)
    fine = cv2.resize(pts_u, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)[step:step + h, step:step + w]
    # A radial map is monotonic along rays: its extremes over the photo lie on the photo's border.
    rim = np.concatenate([fine[0], fine[-1], fine[:, 0], fine[:, -1]])
    lo = np.floor(rim.min(axis=0)) - pad_px
    hi = np.ceil(rim.max(axis=0)) + pad_px
    K_c = K.copy()
    K_c[0, 2] -= lo[0]
    K_c[1, 2] -= lo[1]
    canvas_size = (int(hi[0] - lo[0]) + 1, int(hi[1] - lo[1]) + 1)
    map_x = (fine[..., 0] - lo[0]).astype(np.float32)
    map_y = (fine[..., 1] - lo[1]).astype(np.float32)
    return DistortionMaps(K_canvas=K_c, canvas_size=canvas_size, map_x=map_x, map_y=map_y)
