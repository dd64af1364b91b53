"""Camera pose over the table, from the fitted table plane and the marker corners.

Table frame for the camera maths: x right, y down on the table, z = x cross y pointing *into* the table
(right-handed), so a point ``z_mm`` above the table has table-frame z = -z_mm. Public methods take
heights above the table (``z_mm`` up) and convert.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.lensmodel import LensModel, centred_K


@dataclass(frozen=True)
class CameraConfig:
    """Tunables of the pose estimate.

    Attributes
    ----------
    min_tilt_for_focal_deg : float
        Below this tilt the focal length is not observable from one plane view; the guess is kept.
    focal_range_rel : tuple[float, float]
        Plausible focal lengths as multiples of the image width; estimates outside are rejected.
    """

    min_tilt_for_focal_deg: float = 8.0
    focal_range_rel: tuple[float, float] = (0.35, 3.0)


@dataclass(frozen=True)
class CameraPose:
    """Intrinsics and pose of the camera in the table frame.

    Attributes
    ----------
    K : ndarray, shape (3, 3)
    dist : ndarray, shape (5,)
        OpenCV distortion (k1, k2, p1, p2, k3).
    rvec : ndarray, shape (3,)
        Rodrigues rotation, table frame (z into the table) -> camera.
    tvec : ndarray, shape (3,)
        Translation, mm.
    focal_source : str
        ``"profile"`` (calibrated lens), ``"homography"`` (estimated from the plane view) or ``"guess"``.
    """

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    focal_source: str = "guess"

    @property
    def R(self) -> np.ndarray:
        """Rotation table frame -> camera, shape (3, 3)."""
        return cv2.Rodrigues(np.asarray(self.rvec, dtype=np.float64))[0]

    @property
    def centre_mm(self) -> np.ndarray:
        """Camera centre (x, y, height above the table), mm, shape (3,)."""
        c = -self.R.T @ np.asarray(self.tvec, dtype=np.float64)
        return np.array([c[0], c[1], -c[2]])

    @property
    def height_mm(self) -> float:
        """Camera height above the table plane, mm."""
        return float(self.centre_mm[2])

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and the vertical (0 = looking straight down), degrees."""
        axis = self.R.T @ np.array([0.0, 0.0, 1.0])
        return float(np.degrees(np.arccos(np.clip(axis[2], -1.0, 1.0))))

    @property
    def lens(self) -> LensModel:
        return LensModel(K=self.K, dist=self.dist)

    def project(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Points (x, y on the table, z mm above it) -> photo px (distortion included).

        Parameters
        ----------
        xyz_mm : array_like, shape (N, 3)

        Returns
        -------
        ndarray, shape (N, 2)
        """
        p = np.asarray(xyz_mm, dtype=np.float64).reshape(-1, 3)
        cam = (np.column_stack([p[:, :2], -p[:, 2]])) @ self.R.T + np.asarray(self.tvec, dtype=np.float64)
        und = (cam[:, :2] / cam[:, 2:3]) @ self.K[:2, :2].T + self.K[:2, 2]
        return self.lens.distort_px(und)

    def px_to_plane(self, xy_px: np.ndarray, z_mm: float) -> np.ndarray:
        """Intersect the pixels' rays with the plane ``z_mm`` above the table.

        Parameters
        ----------
        xy_px : array_like, shape (N, 2)
            Photo px (distortion included).
        z_mm : float

        Returns
        -------
        ndarray, shape (N, 2), table mm (NaN where the ray misses the plane)
        """
        und = self.lens.undistort_px(np.asarray(xy_px, dtype=np.float64).reshape(-1, 2))
        n = np.column_stack([(und - self.K[:2, 2]) @ np.linalg.inv(self.K[:2, :2]).T, np.ones(len(und))])
        rays = n @ self.R  # = R^T n, table frame
        c = -self.R.T @ np.asarray(self.tvec, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (-z_mm - c[2]) / rays[:, 2]
        out = c[:2] + rays[:, :2] * s[:, None]
        out[~(s > 0)] = np.nan
        return out

    def to_json(self) -> dict:
        return {
            "K": np.asarray(self.K).tolist(),
            "dist": [float(v) for v in np.ravel(self.dist)],
            "rvec": [float(v) for v in np.ravel(self.rvec)],
            "tvec": [float(v) for v in np.ravel(self.tvec)],
            "focal_source": self.focal_source,
        }

    @classmethod
    def from_json(cls, obj: dict) -> CameraPose:
        return cls(
            K=np.asarray(obj["K"], dtype=np.float64).reshape(3, 3),
            dist=np.asarray(obj["dist"], dtype=np.float64),
            rvec=np.asarray(obj["rvec"], dtype=np.float64).reshape(3),
            tvec=np.asarray(obj["tvec"], dtype=np.float64).reshape(3),
            focal_source=str(obj.get("focal_source", "guess")),
        )


def focal_from_homography(H_px_from_mm: np.ndarray, principal_px: tuple[float, float]) -> float | None:
    """Focal length (px) implied by a plane homography, square pixels, known principal point.

    The rotation's first two columns ``K^-1 h1``, ``K^-1 h2`` must be orthogonal and of equal norm
    (Zhang 2000); both constraints are linear in ``1 / f^2`` and solved together.

    Parameters
    ----------
    H_px_from_mm : ndarray, shape (3, 3)
        Table mm -> undistorted px.
    principal_px : (cx, cy)

    Returns
    -------
    float or None
        None when the view is too close to fronto-parallel (no real solution).
    """
    T = np.array([[1.0, 0.0, -principal_px[0]], [0.0, 1.0, -principal_px[1]], [0.0, 0.0, 1.0]])
    H = T @ H_px_from_mm
    H = H / np.linalg.norm(H[:, 0])
    h1, h2 = H[:, 0], H[:, 1]
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    denom = float(a @ a)
    if denom <= 0:
        return None
    w = -float(a @ b) / denom
    if not w > 0:
        return None
    return float(1.0 / np.sqrt(w))


def estimate_pose(
    obj_mm: np.ndarray,
    und_px: np.ndarray,
    H_px_from_mm: np.ndarray,
    image_size: tuple[int, int],
    lens: LensModel | None,
    lens_is_profile: bool,
    f_guess_px: float,
    config: CameraConfig = CameraConfig(),
) -> CameraPose | None:
    """Camera intrinsics and pose from the fitted plane.

    Parameters
    ----------
    obj_mm : ndarray, shape (N, 2)
        Marker corners on the table (fitted rotation applied), mm.
    und_px : ndarray, shape (N, 2)
        The same corners in undistorted px (the plane fit's pinhole image).
    H_px_from_mm : ndarray, shape (3, 3)
    image_size : (width, height)
    lens : LensModel or None
        The plane fit's lens (its radial terms are re-expressed for the estimated focal length).
    lens_is_profile : bool
        The lens is a calibrated profile: its K is used as is.
    f_guess_px : float
        Focal length to fall back on.

    Returns
    -------
    CameraPose or None
        None when solvePnP fails.
    """
    if lens is not None and lens_is_profile:
        K, dist, source = lens.K, lens.dist, "profile"
    else:
        cx, cy = (image_size[0] - 1) / 2.0, (image_size[1] - 1) / 2.0
        if lens is not None:
            cx, cy = float(lens.K[0, 2]), float(lens.K[1, 2])
        f = focal_from_homography(H_px_from_mm, (cx, cy))
        lo, hi = config.focal_range_rel
        source = "homography"
        if f is None or not (lo * image_size[0] <= f <= hi * image_size[0]):
            f, source = f_guess_px, "guess"
        K = centred_K(image_size, f)
        K[0, 2], K[1, 2] = cx, cy
        dist = np.zeros(5) if lens is None else lens.with_focal(f).dist
    obj = np.column_stack([obj_mm, np.zeros(len(obj_mm))]).astype(np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, und_px.astype(np.float64), K, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return None
    pose = CameraPose(
        K=K, dist=np.asarray(dist, dtype=np.float64), rvec=rvec.ravel(), tvec=tvec.ravel(), focal_source=source
    )
    if source == "homography" and pose.tilt_deg < config.min_tilt_for_focal_deg:
        return estimate_pose(
            obj_mm, und_px, H_px_from_mm, image_size, lens, lens_is_profile, f_guess_px, _no_focal(config)
        )
    return pose


def _no_focal(config: CameraConfig) -> CameraConfig:
    """A config whose focal range rejects every estimate (forces the guess)."""
    return CameraConfig(min_tilt_for_focal_deg=config.min_tilt_for_focal_deg, focal_range_rel=(np.inf, np.inf))
