"""Clear acrylic boards: find each board's pose by matching its known outline to the dimmed mat.

Works on a top view resampled at the board's top-face height (5 mm), levels normalised by the
frame's colour reference. A clear board dims and tints the mat under it; the bright things
(chips, the white print, star specks, edge glints) are painted out first, the dimming is
measured against a large-scale estimate of the bare mat's brightness, and the seven outlines
(and their mirror images) are matched to the dark regions by the contrast across the outline
(coarse grid over x, y, theta from seeds, then a point-to-edge least-squares refinement).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from shapely.geometry import Polygon


@dataclass(frozen=True)
class AcrylicConfig:
    """Tunables of the board matcher (lengths in mm, levels normalised 0-1).

    Attributes
    ----------
    bright_fraction : float
        Pixels above mat + this fraction of (white - mat) are painted out before matching.
    bright_dilate_mm : float
        Growth of the painted-out mask.
    background_mm : float
        Scale of the bare-mat brightness estimate (larger than a board).
    coarse_mm_per_px : float
        Resolution of the background estimate.
    dark_ratio : float
        A pixel whose level is under this fraction of the bare-mat level counts as under acrylic.
    min_region_fraction : float
        Dark regions smaller than this fraction of the smallest board are ignored.
    seed_spacing_mm : float
        Grid spacing of extra seeds inside regions larger than one board.
    search_xy_mm, search_step_mm : float
        Coarse translation search around a seed.
    search_theta_step_deg : float
        Coarse rotation step.
    sample_step_mm : float
        Outline sampling step.
    contrast_offset_mm : float
        Distance on each side of the outline where the level is compared.
    refine_iters : int
        Point-to-edge least-squares iterations.
    refine_top : int
        Shapes (id, mirror) per seed refined before the ids are compared.
    edge_search_mm : float
        Half range searched along each normal for the edge in the refinement.
    min_contrast : float
        Minimum mean (outside - inside) / mat level across the outline to accept a board.
    max_overlap : float
        Candidates overlapping an accepted board by more than this fraction of their area are dropped.
    base_sigma_mm : float
        Floor of the pose uncertainty.
    """

    bright_fraction: float = 0.2
    bright_dilate_mm: float = 2.0
    background_mm: float = 260.0
    coarse_mm_per_px: float = 4.0
    dark_ratio: float = 0.94
    min_region_fraction: float = 0.25
    seed_spacing_mm: float = 60.0
    search_xy_mm: float = 18.0
    search_step_mm: float = 6.0
    search_theta_step_deg: float = 7.5
    sample_step_mm: float = 8.0
    contrast_offset_mm: float = 3.0
    refine_iters: int = 4
    refine_top: int = 4
    edge_search_mm: float = 6.0
    min_contrast: float = 0.05
    max_overlap: float = 0.2
    base_sigma_mm: float = 0.5


@dataclass(frozen=True)
class BoardFit:
    """One board pose found.

    Attributes
    ----------
    id : str
    mirrored : bool
    centre_mm : (float, float)
        Position of the board frame's origin in table mm.
    rotation_deg : float
    outline_mm : ndarray, shape (N, 2)
    contrast : float
        Mean relative dimming across the outline (0 = none).
    fit_residual_mm : float
        RMS distance of the edge evidence to the outline.
    pose_sigma_mm : float
        1-sigma outline position uncertainty.
    edge_support : float
        Fraction of outline samples with a clear edge nearby.
    """

    id: str
    mirrored: bool
    centre_mm: tuple[float, float]
    rotation_deg: float
    outline_mm: np.ndarray
    contrast: float
    fit_residual_mm: float
    pose_sigma_mm: float
    edge_support: float


def _resample(poly: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Points every ``step`` mm along a closed polygon and their outward normals (x right, y down)."""
    p = np.vstack([poly, poly[:1]])
    seg = np.diff(p, axis=0)
    ln = np.hypot(*seg.T)
    cum = np.concatenate([[0], np.cumsum(ln)])
    t = np.arange(0, cum[-1], step)
    i = np.clip(np.searchsorted(cum, t, side="right") - 1, 0, len(seg) - 1)
    f = (t - cum[i]) / np.maximum(ln[i], 1e-9)
    pts = p[i] + seg[i] * f[:, None]
    tang = seg[i] / np.maximum(ln[i], 1e-9)[:, None]
    nrm = np.column_stack([tang[:, 1], -tang[:, 0]])
    # orient normals outwards
    area2 = np.sum(poly[:, 0] * np.roll(poly[:, 1], -1) - np.roll(poly[:, 0], -1) * poly[:, 1])
    if area2 < 0:
        nrm = -nrm
    return pts, nrm


def _rot(theta_rad: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta_rad), np.sin(theta_rad)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


class _Sampler:
    def __init__(self, img: np.ndarray, origin_mm, mm_per_px: float):
        self.img = img.astype(np.float32)
        self.o = np.asarray(origin_mm, dtype=np.float64)
        self.s = mm_per_px

    def __call__(self, xy_mm: np.ndarray) -> np.ndarray:
        q = (xy_mm - self.o) / self.s
        sh = q.shape[:-1]
        q = q.reshape(-1, 2).astype(np.float32)
        n = len(q)
        cols = 1024
        pad = (-n) % cols
        q = np.concatenate([q, np.zeros((pad, 2), np.float32)]).reshape(-1, cols, 2)
        v = cv2.remap(self.img, q[..., 0], q[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                      borderValue=float("nan"))
        return v.ravel()[:n].reshape(sh)


def dimming_map(level: np.ndarray, mm_per_px: float, config: AcrylicConfig = AcrylicConfig()) -> np.ndarray:
    """Level relative to the bare mat around it (1 = bare mat, < 1 = dimmed, e.g. under acrylic).

    Parameters
    ----------
    level : ndarray, shape (h, w), float
        Normalised level of a top view (bright pieces included).

    Returns
    -------
    ndarray, shape (h, w), float32
    """
    lv = level.astype(np.float32)
    mat = float(np.median(lv))
    bright = (lv > mat + config.bright_fraction * (1.0 - mat)).astype(np.uint8)
    k = max(int(round(2 * config.bright_dilate_mm / mm_per_px)) | 1, 3)
    bright = cv2.dilate(bright, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # paint the bright pieces out with a local median of the rest (normalised convolution)
    w = (1 - bright).astype(np.float32)
    ks = max(int(round(15.0 / mm_per_px)) | 1, 3)
    num = cv2.blur(lv * w, (ks, ks))
    den = cv2.blur(w, (ks, ks))
    filled = np.where(bright > 0, num / np.maximum(den, 1e-3), lv)
    filled = np.where((bright > 0) & (den < 1e-3), mat, filled)
    filled = cv2.GaussianBlur(filled, (0, 0), 1.0 / mm_per_px)
    # bare-mat level: a large median on a coarse grid (boards cover well under half of any window,
    # and may look darker or lighter than the mat)
    f = mm_per_px / config.coarse_mm_per_px
    small = cv2.resize(filled, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    kb = max(int(round(config.background_mm / config.coarse_mm_per_px)) | 1, 3)
    scale = 250.0 / max(float(np.percentile(small, 99)), 1e-3)
    bg = cv2.medianBlur(np.clip(small * scale, 0, 255).astype(np.uint8), kb).astype(np.float32) / scale
    bg = cv2.GaussianBlur(bg, (0, 0), kb / 6.0)
    bg = cv2.resize(bg, (level.shape[1], level.shape[0]), interpolation=cv2.INTER_LINEAR)
    return (filled / np.maximum(bg, 1e-3)).astype(np.float32)


def find_boards(
    ratio: np.ndarray,
    origin_mm: tuple[float, float],
    mm_per_px: float,
    outlines_mm: dict[str, np.ndarray],
    config: AcrylicConfig = AcrylicConfig(),
) -> list[BoardFit]:
    """Match the known board outlines to the dimmed regions of a ``dimming_map``.

    Parameters
    ----------
    ratio : ndarray, shape (h, w)
        ``dimming_map`` of a top view at the boards' top-face height.
    origin_mm : (float, float)
        Table position of pixel (0, 0).
    mm_per_px : float
    outlines_mm : dict[str, ndarray (N, 2)]
        Board id -> outline in the board's own frame (components ``outlines_mm``).
    config : AcrylicConfig

    Returns
    -------
    list[BoardFit], best first; each id at most once.
    """
    s = mm_per_px
    samp = _Sampler(ratio, origin_mm, s)
    dark = (np.abs(ratio - 1.0) > 1.0 - config.dark_ratio).astype(np.uint8)
    k = max(int(round(6.0 / s)) | 1, 3)
    dark = cv2.morphologyEx(dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    areas = {b: abs(Polygon(o).area) for b, o in outlines_mm.items()}
    min_area = min(areas.values())
    max_area = max(areas.values())
    n, lab, stats, cents = cv2.connectedComponentsWithStats(dark, connectivity=8)
    seeds: list[np.ndarray] = []
    for i in range(1, n):
        a_mm = stats[i, 4] * s * s
        if a_mm < config.min_region_fraction * min_area:
            continue
        seeds.append(np.asarray(origin_mm) + cents[i] * s)
        if a_mm > 1.2 * max_area:
            ys, xs = np.nonzero(lab == i)
            step = max(int(config.seed_spacing_mm / s), 1)
            sel = (ys % step == 0) & (xs % step == 0)
            for y, x in zip(ys[sel], xs[sel]):
                seeds.append(np.asarray(origin_mm) + np.array([x, y]) * s)
    if not seeds:
        return []

    shapes = []  # (id, mirrored, local outline, local samples, local normals)
    for bid, o in outlines_mm.items():
        o = np.asarray(o, dtype=np.float64)
        for mir in (False, True):
            lo = o * [-1.0, 1.0] if mir else o
            lo = lo[::-1] if mir else lo
            pts, nrm = _resample(lo, config.sample_step_mm)
            shapes.append((bid, mir, lo, pts, nrm))
    thetas = np.radians(np.arange(0, 360, config.search_theta_step_deg))
    Rs = _rot(thetas)  # (T, 2, 2)
    offs = np.arange(-config.search_xy_mm, config.search_xy_mm + 1e-9, config.search_step_mm)
    OX, OY = np.meshgrid(offs, offs)
    dxy = np.stack([OX.ravel(), OY.ravel()], axis=1)  # (D, 2)
    d = config.contrast_offset_mm

    fits_all: list[BoardFit] = []
    for seed in seeds:
        per_shape = []
        for bid, mir, lo, pts, nrm in shapes:
            # the outline's area centroid goes on the seed
            cen = np.asarray(Polygon(lo).centroid.coords[0])
            P = np.einsum("tij,nj->tni", Rs, pts - cen)  # (T, N, 2)
            Nn = np.einsum("tij,nj->tni", Rs, nrm)
            base = seed[None, None, None, :] + dxy[None, :, None, :]  # (1, D, 1, 2)
            inn = samp(base + (P - d * Nn)[:, None])  # (T, D, N)
            out = samp(base + (P + d * Nn)[:, None])
            c = np.nanmean(out - inn, axis=2)  # (T, D); the board may look darker or lighter than the mat
            c = np.where(np.isnan(c), 0.0, c)
            j = int(np.argmax(np.abs(c)))
            ti, di = divmod(j, len(dxy))
            per_shape.append((abs(float(c[ti, di])), bid, mir, lo, float(thetas[ti]), seed + dxy[di] - Rs[ti] @ cen,
                              float(np.sign(c[ti, di]))))
        per_shape.sort(key=lambda c: -c[0])
        for c0, bid, mir, lo, th, t, sign in per_shape[: config.refine_top]:
            if c0 < config.min_contrast:
                continue
            fit = _refine(samp, bid, mir, lo, th, t, sign, config)
            if fit is not None and fit.contrast >= config.min_contrast:
                fits_all.append(fit)

    fits: list[BoardFit] = []
    for fit in sorted(fits_all, key=lambda f: -f.contrast * f.edge_support):
        if any(f.id == fit.id for f in fits):
            continue
        poly = Polygon(fit.outline_mm)
        if any(poly.intersection(Polygon(f.outline_mm)).area > config.max_overlap * poly.area for f in fits):
            continue
        fits.append(fit)
    return fits


def _refine(samp: _Sampler, bid, mir, lo, theta, t, sign: float, config: AcrylicConfig) -> BoardFit | None:
    """Point-to-edge least squares on (dx, dy, dtheta) from a coarse pose."""
    pts, nrm = _resample(lo, config.sample_step_mm / 2.0)
    offs = np.arange(-config.edge_search_mm, config.edge_search_mm + 1e-9, 0.5)
    d = config.contrast_offset_mm
    t = np.asarray(t, dtype=np.float64)
    resid = np.zeros(len(pts))
    good = np.zeros(len(pts), bool)
    for _ in range(config.refine_iters):
        R = _rot(np.array(theta))
        P = pts @ R.T + t
        N = nrm @ R.T
        # step response along each normal: out - in at every offset
        q = P[:, None, :] + offs[None, :, None] * N[:, None, :]
        step = sign * (samp(q + d * 0.5 * N[:, None, :]) - samp(q - d * 0.5 * N[:, None, :]))  # (n, K)
        step = np.where(np.isnan(step), -1.0, step)
        k = np.argmax(step, axis=1)
        peak = step[np.arange(len(pts)), k]
        good = (peak > config.min_contrast) & (k > 0) & (k < len(offs) - 1)
        # sub-sample peak
        km = np.clip(k, 1, len(offs) - 2)
        a, b, c = step[np.arange(len(pts)), km - 1], peak, step[np.arange(len(pts)), km + 1]
        den = a - 2 * b + c
        sub = 0.5 * (a - c) / np.where(np.abs(den) > 1e-9, den, np.inf)
        resid = offs[k] + np.clip(sub, -0.5, 0.5) * 0.5
        if good.sum() < 6:
            return None
        med = np.median(resid[good])
        mad = 1.4826 * np.median(np.abs(resid[good] - med)) + 0.3
        use = good & (np.abs(resid - med) < 3 * mad)
        # linearised: resid_i = n_i . (dt + dtheta * perp(p_i - t))
        rel = P[use] - t
        perp = np.column_stack([-rel[:, 1], rel[:, 0]])
        A = np.column_stack([N[use], np.sum(N[use] * perp, axis=1)])
        sol, *_ = np.linalg.lstsq(A, resid[use], rcond=None)
        t = t + sol[:2]
        theta = theta + sol[2]
        if np.hypot(*sol[:2]) < 0.05 and abs(sol[2]) < 1e-4:
            break
    R = _rot(np.array(theta))
    P = pts @ R.T + t
    N = nrm @ R.T
    contrast = float(sign * np.nanmean(samp(P + d * N) - samp(P - d * N)))
    r = resid[use] - (A @ sol) if use.sum() else resid
    rms = float(np.sqrt(np.mean(r ** 2))) if len(r) else 99.0
    n_eff = max(use.sum() / 4.0, 1.0)
    sigma = float(np.hypot(config.base_sigma_mm, rms / np.sqrt(n_eff) * 3.0))
    support = float(good.mean())
    sigma = sigma / max(min(support / 0.6, 1.0), 0.25)
    outline = lo @ R.T + t
    return BoardFit(bid, bool(mir), (float(t[0]), float(t[1])), float(np.degrees(theta) % 360), outline, contrast,
                    rms, sigma, support)
