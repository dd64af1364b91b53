"""The lens model used by the table mapping: OpenCV pinhole intrinsics and distortion, in pixels."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class LensModel:
    """Pinhole intrinsics and OpenCV distortion (k1, k2, p1, p2, k3).

    "Undistorted px" are the pixels an ideal pinhole camera with the same ``K`` would record; the
    table homography maps table mm to them, and :meth:`distort_px` takes them to the photo's pixels.

    Attributes
    ----------
    K : ndarray, shape (3, 3)
        Camera matrix (fx, fy, cx, cy in px).
    dist : ndarray, shape (5,)
        OpenCV distortion coefficients (k1, k2, p1, p2, k3).
    """

    K: np.ndarray
    dist: np.ndarray

    @property
    def k1(self) -> float:
        return float(self.dist[0])

    def distort_px(self, xy_px: np.ndarray) -> np.ndarray:
        """Undistorted (pinhole) px -> photo px.

        Parameters
        ----------
        xy_px : array_like, shape (N, 2)

        Returns
        -------
        ndarray, shape (N, 2), float64
        """
        p = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
        fx, fy, cx, cy = self.K[0, 0], self.K[1, 1], self.K[0, 2], self.K[1, 2]
        k1, k2, p1, p2, k3 = (list(np.asarray(self.dist, dtype=np.float64).ravel()) + [0.0] * 5)[:5]
        x = (p[:, 0] - cx) / fx
        y = (p[:, 1] - cy) / fy
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        out = np.empty_like(p)
        out[:, 0] = xd * fx + cx
        out[:, 1] = yd * fy + cy
        return out

    def valid_undistorted(self, xy_px: np.ndarray) -> np.ndarray:
        """Whether undistorted points lie where the radial model is still monotonic (not folded back).

        Returns
        -------
        ndarray, shape (N,), bool
        """
        p = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
        fx, fy, cx, cy = self.K[0, 0], self.K[1, 1], self.K[0, 2], self.K[1, 2]
        k1, k2, _, _, k3 = (list(np.asarray(self.dist, dtype=np.float64).ravel()) + [0.0] * 5)[:5]
        r2 = ((p[:, 0] - cx) / fx) ** 2 + ((p[:, 1] - cy) / fy) ** 2
        return 1 + 3 * k1 * r2 + 5 * k2 * r2**2 + 7 * k3 * r2**3 > 0

    def undistort_px(self, xy_px: np.ndarray) -> np.ndarray:
        """Photo px -> undistorted (pinhole) px (iterative inverse of :meth:`distort_px`).

        Parameters
        ----------
        xy_px : array_like, shape (N, 2)

        Returns
        -------
        ndarray, shape (N, 2), float64
        """
        p = np.asarray(xy_px, dtype=np.float64).reshape(-1, 1, 2)
        if len(p) == 0:
            return np.zeros((0, 2))
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-9)
        out = cv2.undistortPointsIter(p, self.K, np.asarray(self.dist, dtype=np.float64), None, self.K, crit)
        return out.reshape(-1, 2).astype(np.float64)

    def with_focal(self, f_px: float) -> LensModel:
        """The same pixel mapping expressed with another focal length (radial terms rescaled).

        Radial distortion in px depends on ``k1 / f^2`` and ``k2 / f^4``, so changing f and rescaling
        k1, k2, k3 keeps :meth:`distort_px` unchanged (tangential terms are assumed zero).
        """
        f0 = float(self.K[0, 0])
        s2 = (f_px / f0) ** 2
        k1, k2, p1, p2, k3 = (list(np.asarray(self.dist, dtype=np.float64).ravel()) + [0.0] * 5)[:5]
        K = self.K.copy()
        K[0, 0] = f_px
        K[1, 1] = f_px * self.K[1, 1] / self.K[0, 0]
        return LensModel(K=K, dist=np.array([k1 * s2, k2 * s2**2, p1, p2, k3 * s2**3]))

    def to_json(self) -> dict:
        return {"K": np.asarray(self.K).tolist(), "dist": [float(v) for v in np.ravel(self.dist)]}

    @classmethod
    def from_json(cls, obj: dict) -> LensModel:
        return cls(
            K=np.asarray(obj["K"], dtype=np.float64).reshape(3, 3), dist=np.asarray(obj["dist"], dtype=np.float64)
        )


def guess_focal_px(image_size: tuple[int, int], hfov_deg: float) -> float:
    """Focal length (px) of a camera with that horizontal field of view."""
    return (image_size[0] / 2.0) / float(np.tan(np.radians(hfov_deg) / 2.0))


def centred_K(image_size: tuple[int, int], f_px: float) -> np.ndarray:
    """Camera matrix with square pixels and the principal point at the image centre, shape (3, 3)."""
    w, h = image_size
    return np.array([[f_px, 0.0, (w - 1) / 2.0], [0.0, f_px, (h - 1) / 2.0], [0.0, 0.0, 1.0]])
