"""Joint fit of the table plane: homography, small per-marker rotations and radial lens distortion.

Observation model for marker corner ``k`` of marker ``i`` (table mm, z = 0)::

    corner_mm = centre_i + Rot(theta_i) @ (nominal_corner - centre_i)     # hand-laid sheet, ~1 degree
    photo_px  = distort(H @ corner_mm)                                   # pinhole + radial lens

``H`` maps table mm to undistorted px. ``distort`` is either none, a radial k1 (optionally k2) about the
image centre with a guessed focal length (radial distortion in px only depends on k1 / f^2, so the guess
does not bias the mapping), or a known lens profile. The fit is a small scipy least_squares problem
(8 + M + 1 + 0..2 parameters, 8 M residuals) solved by a small Levenberg-Marquardt loop whose
finite-difference Jacobian is evaluated in one vectorised batch (scipy's least_squares gives the same
answer at several times the cost per frame). Models are tried from the simplest and a richer one is kept only
when it lowers the error meaningfully; the chosen one is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.lensmodel import LensModel, centred_K, guess_focal_px


@dataclass(frozen=True)
class PlaneFitConfig:
    """Tunables of the plane fit.

    Attributes
    ----------
    fit_marker_rotation : bool
        Fit each marker's small rotation about its centre (nuisance).
    fit_edge_growth : bool
        Fit one apparent growth of the black squares' edges (nuisance shared by all markers).
    hfov_guess_deg : float
        Horizontal field of view assumed for the focal guess of the radial model (typical phone).
    lens_trigger_rms_px : float
        The radial model is tried only when the lens-free fit leaves more than this RMS (px)
        (0: always tried; it costs one more small fit).
    lens_min_gain : float
        The radial model is kept only when its RMS is below this fraction of the lens-free RMS.
    fit_k2 : bool
        Also try k1 + k2 once k1 is kept.
    k2_min_abs_k1 : float
        ... but only for strong distortion: |k1| (at the guessed focal) at least this.
    k2_min_gain : float
        k1 + k2 is kept only when its RMS is below this fraction of the k1 RMS.
    outlier_px : float
        A marker whose corners miss the fit by more than this (RMS, px) is dropped and the fit redone,
        when at least ``min_markers`` remain.
    min_markers : int
    max_iterations : int
        Levenberg-Marquardt iterations of each fit.
    fd_step : float
        Finite-difference step of the Jacobian (all parameters are O(1e-3..1)).
    """

    fit_marker_rotation: bool = True
    fit_edge_growth: bool = True
    hfov_guess_deg: float = 66.0
    lens_trigger_rms_px: float = 0.0
    lens_min_gain: float = 0.8
    k2_min_abs_k1: float = 0.1
    k2_min_gain: float = 1.0
    fit_k2: bool = True
    outlier_px: float = 4.0
    min_markers: int = 2
    max_iterations: int = 50
    fd_step: float = 1e-7


@dataclass(frozen=True)
class PlaneFit:
    """Result of :func:`fit_plane`.

    Attributes
    ----------
    H_px_from_mm : ndarray, shape (3, 3)
        Table mm (z = 0) -> undistorted px (photo px when ``lens`` is None).
    lens : LensModel or None
        Distortion between undistorted px and photo px.
    marker_rot_deg : dict[int, float]
        Fitted rotation of each marker about its centre (degrees; 0 when not fitted).
    edge_growth_mm : float
        Fitted apparent growth of every marker's black square per edge, mm (ink, blur, corner bias).
    marker_ids : tuple[int, ...]
        Markers used (after outlier removal).
    rms_px : float
        RMS corner residual in the photo, px.
    rms_mm : float
        RMS distance between each detected corner mapped to the table and its fitted position, mm.
    model : str
        ``"homography"``, ``"homography+rotation"``, ``"...+k1"``, ``"...+k1k2"`` or ``"...+profile"``.
    """

    H_px_from_mm: np.ndarray
    lens: LensModel | None
    marker_rot_deg: dict[int, float]
    edge_growth_mm: float
    marker_ids: tuple[int, ...]
    rms_px: float
    rms_mm: float
    model: str


def apply_h(H: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Apply a homography to points, shape (N, 2) -> (N, 2) (element-wise: no BLAS call for N x 2)."""
    pts = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    x, y = pts[:, 0], pts[:, 1]
    w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
    out = np.empty_like(pts)
    out[:, 0] = (H[0, 0] * x + H[0, 1] * y + H[0, 2]) / w
    out[:, 1] = (H[1, 0] * x + H[1, 1] * y + H[1, 2]) / w
    return out


def rotated_corners(nominal_mm: np.ndarray, rot_rad: np.ndarray, grow_mm: float = 0.0) -> np.ndarray:
    """Rotate each marker's 4 corners about its centre (and grow its square by ``grow_mm`` each side).

    Parameters
    ----------
    nominal_mm : ndarray, shape (M, 4, 2)
    rot_rad : ndarray, shape (M,)
    grow_mm : float
        Apparent growth of each side's edge, mm (ink spread, blur bias of the corner detector).

    Returns
    -------
    ndarray, shape (M, 4, 2)
    """
    c = nominal_mm.mean(axis=1, keepdims=True)
    d = nominal_mm - c
    if grow_mm:
        half = np.abs(d).max(axis=(1, 2), keepdims=True)
        d = d * (1.0 + grow_mm / half)
    cs, sn = np.cos(rot_rad)[:, None], np.sin(rot_rad)[:, None]
    x = cs * d[..., 0] - sn * d[..., 1]
    y = sn * d[..., 0] + cs * d[..., 1]
    return c + np.stack([x, y], axis=-1)


class _Problem:
    """Least-squares residuals for one model choice (normalised table coordinates for conditioning).

    Parameters, in order: 8 homography updates, M marker rotations (rad, if ``rot``), one edge growth
    (mm, if ``grow``), ``n_radial`` radial coefficients.
    """

    def __init__(self, nominal_mm, obs_px, H0, lens0: LensModel | None, n_radial: int, rot: bool, grow: bool):
        self.nominal = nominal_mm
        self.obs = obs_px.reshape(-1, 2)
        centre = nominal_mm.reshape(-1, 2).mean(axis=0)
        scale = max(float(np.ptp(nominal_mm.reshape(-1, 2), axis=0).max()) / 2.0, 1.0)
        self.T = np.array([[1 / scale, 0, -centre[0] / scale], [0, 1 / scale, -centre[1] / scale], [0, 0, 1.0]])
        self.H0n = H0 @ np.linalg.inv(self.T)
        self.H0n = self.H0n / self.H0n[2, 2]
        self.lens0 = lens0
        self.n_radial = n_radial
        self.rot = rot
        self.grow = grow
        self.M = nominal_mm.shape[0]

    def n_params(self) -> int:
        return 8 + (self.M if self.rot else 0) + int(self.grow) + self.n_radial

    def unpack(self, p):
        d = np.append(p[:8], 0.0).reshape(3, 3)
        H = self.H0n @ (np.eye(3) + d) @ self.T
        k = 8
        rot = np.zeros(self.M)
        if self.rot:
            rot = p[k : k + self.M]
            k += self.M
        grow = 0.0
        if self.grow:
            grow = float(p[k])
            k += 1
        lens = self.lens0
        if self.n_radial:
            dist = np.zeros(5)
            dist[: self.n_radial] = p[k : k + self.n_radial]
            lens = LensModel(K=self.lens0.K, dist=dist)
        return H / H[2, 2], rot, grow, lens

    def residuals(self, p):
        return self.residuals_batch(p[None])[0]

    def residuals_batch(self, P: np.ndarray) -> np.ndarray:
        """Residuals (px) for B parameter vectors at once: (B, n) -> (B, 8 M)."""
        B = P.shape[0]
        D = np.concatenate([P[:, :8], np.zeros((B, 1))], axis=1).reshape(B, 3, 3)
        H = self.H0n[None] @ (np.eye(3)[None] + D) @ self.T[None]
        k = 8
        c = self.nominal.mean(axis=1, keepdims=True)  # (M, 1, 2)
        d = np.broadcast_to(self.nominal - c, (B,) + self.nominal.shape)  # (B, M, 4, 2)
        if self.rot:
            rot = P[:, k : k + self.M][:, :, None]  # (B, M, 1)
            k += self.M
            cs, sn = np.cos(rot), np.sin(rot)
            d = np.stack([cs * d[..., 0] - sn * d[..., 1], sn * d[..., 0] + cs * d[..., 1]], axis=-1)
        if self.grow:
            half = np.abs(self.nominal - c).max(axis=(1, 2))  # (M,)
            d = d * (1.0 + P[:, k][:, None, None, None] / half[None, :, None, None])
            k += 1
        pts = (c[None] + d).reshape(B, -1, 2)
        hom = pts @ np.transpose(H[:, :, :2], (0, 2, 1)) + H[:, None, :, 2]
        und = hom[..., :2] / hom[..., 2:3]
        if self.n_radial:
            K = self.lens0.K
            x = (und[..., 0] - K[0, 2]) / K[0, 0]
            y = (und[..., 1] - K[1, 2]) / K[1, 1]
            r2 = x * x + y * y
            k1 = P[:, k][:, None]
            k2 = P[:, k + 1][:, None] if self.n_radial > 1 else 0.0
            radial = 1 + r2 * (k1 + r2 * k2)
            und = np.stack([x * radial * K[0, 0] + K[0, 2], y * radial * K[1, 1] + K[1, 2]], axis=-1)
        return (und - self.obs[None]).reshape(B, -1)


def _levenberg_marquardt(prob: _Problem, n: int, config: PlaneFitConfig) -> tuple[np.ndarray, np.ndarray]:
    """Minimise the squared residuals from zero; returns (parameters (n,), residuals (m,))."""
    p = np.zeros(n)
    r = prob.residuals(p)
    cost = float(r @ r)
    lam = 1e-3
    steps = np.eye(n) * config.fd_step
    for _ in range(config.max_iterations):
        J = ((prob.residuals_batch(p[None] + steps) - r[None]) / config.fd_step).T  # (m, n)
        A = J.T @ J
        g = J.T @ r
        diag = np.maximum(np.diag(A), 1e-12)
        improved = False
        for _ in range(10):
            try:
                delta = np.linalg.solve(A + lam * np.diag(diag), -g)
            except np.linalg.LinAlgError:
                lam *= 10
                continue
            r_new = prob.residuals(p + delta)
            cost_new = float(r_new @ r_new)
            if cost_new < cost:
                improved = True
                done = cost - cost_new < 1e-10 * cost + 1e-14
                p, r, cost = p + delta, r_new, cost_new
                lam = max(lam / 10, 1e-9)
                break
            lam *= 10
        if not improved or done:
            break
    return p, r


def _rms_mm(H, lens, truth_mm, obs_px) -> float:
    und = obs_px.reshape(-1, 2) if lens is None else lens.undistort_px(obs_px.reshape(-1, 2))
    back = apply_h(np.linalg.inv(H), und)
    return float(np.sqrt(np.mean(np.sum((back - truth_mm.reshape(-1, 2)) ** 2, axis=1))))


@dataclass(frozen=True)
class _Solved:
    H: np.ndarray
    lens: LensModel | None
    rot_deg: np.ndarray
    grow_mm: float
    rms_px: float
    per_marker_px: np.ndarray
    model: str


def _solve(nominal_mm, obs_px, lens0, n_radial, rot, grow, config) -> _Solved:
    """Fit one model."""
    und_obs = obs_px.reshape(-1, 2) if (lens0 is None or n_radial) else lens0.undistort_px(obs_px.reshape(-1, 2))
    H0, _ = cv2.findHomography(nominal_mm.reshape(-1, 2), und_obs, 0)
    if H0 is None:
        raise np.linalg.LinAlgError("degenerate marker corners")
    # a fixed (profile) lens: fit in undistorted px; a fitted radial lens: fit in photo px
    prob = _Problem(nominal_mm, und_obs if n_radial == 0 else obs_px, H0, lens0, n_radial, rot, grow)
    x, fun = _levenberg_marquardt(prob, prob.n_params(), config)
    H, rot_rad, grow_mm, lens = prob.unpack(x)
    r2 = np.sum(fun.reshape(prob.M, 4, 2) ** 2, axis=2)
    name = "homography" + ("+rotation" if rot else "") + ("+edge" if grow else "")
    name += {0: "", 1: "+k1", 2: "+k1k2"}[n_radial] if n_radial or lens0 is None else "+profile"
    return _Solved(
        H=H,
        lens=lens,
        rot_deg=np.degrees(rot_rad),
        grow_mm=grow_mm,
        rms_px=float(np.sqrt(np.mean(r2))),
        per_marker_px=np.sqrt(np.mean(r2, axis=1)),
        model=name,
    )


def fit_plane(
    ids: np.ndarray,
    nominal_mm: np.ndarray,
    corners_px: np.ndarray,
    image_size: tuple[int, int],
    lens: LensModel | None = None,
    config: PlaneFitConfig = PlaneFitConfig(),
) -> PlaneFit:
    """Fit the table plane to detected marker corners.

    Parameters
    ----------
    ids : ndarray, shape (M,), int
    nominal_mm : ndarray, shape (M, 4, 2)
        Each marker's corners as laid out (ArUco order), table mm.
    corners_px : ndarray, shape (M, 4, 2)
        Detected corners, photo px.
    image_size : (width, height)
    lens : LensModel, optional
        A calibrated lens (profile); used as is instead of fitting a radial model.
    config : PlaneFitConfig

    Returns
    -------
    PlaneFit

    Raises
    ------
    numpy.linalg.LinAlgError
        Degenerate corners.
    """
    ids = np.asarray(ids, dtype=int)
    nominal_mm = np.asarray(nominal_mm, dtype=np.float64).reshape(-1, 4, 2)
    corners_px = np.asarray(corners_px, dtype=np.float64).reshape(-1, 4, 2)
    while True:
        rot = config.fit_marker_rotation and len(ids) >= 2
        grow = config.fit_edge_growth and len(ids) >= 2
        best = _fit_models(nominal_mm, corners_px, image_size, lens, rot, grow, config)
        worst = int(np.argmax(best.per_marker_px))
        if best.per_marker_px[worst] <= config.outlier_px or len(ids) <= max(config.min_markers, 3):
            break
        keep = np.arange(len(ids)) != worst
        ids, nominal_mm, corners_px = ids[keep], nominal_mm[keep], corners_px[keep]
    truth = rotated_corners(nominal_mm, np.radians(best.rot_deg), best.grow_mm)
    return PlaneFit(
        H_px_from_mm=best.H,
        lens=best.lens,
        marker_rot_deg={int(i): float(a) for i, a in zip(ids, best.rot_deg)},
        edge_growth_mm=best.grow_mm,
        marker_ids=tuple(int(i) for i in ids),
        rms_px=best.rms_px,
        rms_mm=_rms_mm(best.H, best.lens, truth, corners_px),
        model=best.model,
    )


def _fit_models(nominal_mm, corners_px, image_size, lens, rot, grow, config) -> _Solved:
    if lens is not None:
        return _solve(nominal_mm, corners_px, lens, 0, rot, grow, config)
    best = _solve(nominal_mm, corners_px, None, 0, rot, grow, config)
    if best.rms_px <= config.lens_trigger_rms_px or len(nominal_mm) < 3:
        return best
    radial0 = LensModel(K=centred_K(image_size, guess_focal_px(image_size, config.hfov_guess_deg)), dist=np.zeros(5))
    k1 = _solve(nominal_mm, corners_px, radial0, 1, rot, grow, config)
    if not k1.rms_px < config.lens_min_gain * best.rms_px:
        return best
    best = k1
    if config.fit_k2 and abs(k1.lens.k1) >= config.k2_min_abs_k1:
        k2 = _solve(nominal_mm, corners_px, radial0, 2, rot, grow, config)
        if k2.rms_px < config.k2_min_gain * best.rms_px:
            best = k2
    return best
