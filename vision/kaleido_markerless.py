"""Markerless fallback: the boards' own lattice gives the table frame.

The frame bars lie along three families of parallel lines 60 degrees apart, spaced
``edge*sqrt(3)/2`` mm. In the photo each family meets at a vanishing point; the three lie on the
table's horizon line, which removes the perspective (affine rectification); requiring the three
directions to be 60 degrees apart removes the remaining skew; the line spacing gives the scale.
The frame's origin and rotation are arbitrary (the lattice's own), so positions are comparable
within one photo only. No lens model: strong barrel distortion bends the lines and is absorbed only
partly by each board's local shift search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import CannotJudge
from core.timing import StageTimer
from scoring.flags import Flag
from vision.hexlattice import LatticeFitConfig, gradients
from vision.kaleido import KaleidoDetection, KaleidoVisionConfig, detect_kaleido

SQRT3 = float(np.sqrt(3.0))


@dataclass(frozen=True)
class MarkerlessConfig:
    """Tunables of the markerless frame.

    Attributes
    ----------
    strong_quantile : float
        Pixels above this gradient quantile vote.
    family_tol_deg : (float, float)
        Angular tolerance of a family's pixels: first pass, then around the fitted vanishing point.
    family_gap_deg : (float, float)
        Where the second and third families are looked for, relative to the first (degrees apart).
    scale_px_per_mm : (float, float, int)
        Scale candidates (geometric range and count) tried for the line spacing.
    min_saturation, min_value : float
        HSV thresholds (0-1) of tile-coloured pixels, which locate the boards.
    white_max_saturation, white_min_value : float
        HSV thresholds of white tiles.
    hue_bins : tuple of (lo, hi)
        OpenCV hue ranges (0-180) of the player colours (red wraps around; orange is left out).
    mix_window_frac, mix_min_density : float
        A colour is present near a pixel when it covers this share of the window around it
        (window side as a fraction of the image size).
    roi_grow : float
        The patch's box is grown by this fraction on each side.
    max_scale_samples : int
        Edge pixels per family used for the spacing (a regular subsample).
    region_margin_mm : float
        Around the lattice-aligned edges, the area searched for boards.
    min_horizon_dist : float
        A horizon closer than this to the boards (in photo widths) is not believed.
    refit_min_boards : int
        With this many boards found, the frame is refitted so that their centres lie on an exact
        hexagonal grid, and the boards are searched again.
    first_pass : KaleidoVisionConfig
        Board search in the first, approximate frame (tolerant of its residual skew).
    frame_sigma_mm : float
        Stated 1-sigma position error of this frame (measured against markers in eval_kaleido).
    vision : KaleidoVisionConfig
    """

    strong_quantile: float = 0.9
    family_tol_deg: tuple[float, float] = (6.0, 2.0)
    family_gap_deg: tuple[float, float] = (35.0, 85.0)
    scale_px_per_mm: tuple[float, float, int] = (0.3, 4.0, 160)
    min_saturation: float = 0.35
    min_value: float = 0.2
    white_max_saturation: float = 0.15
    white_min_value: float = 0.75
    hue_bins: tuple[tuple[int, int], ...] = ((170, 8), (18, 35), (40, 85), (95, 130), (130, 165))
    mix_window_frac: float = 0.06
    mix_min_density: float = 0.03
    roi_grow: float = 0.25
    max_scale_samples: int = 4000
    region_margin_mm: float = 90.0
    min_horizon_dist: float = 0.5
    refit_min_boards: int = 4
    frame_sigma_mm: float = 3.0
    vision: KaleidoVisionConfig = KaleidoVisionConfig()
    first_pass: KaleidoVisionConfig = KaleidoVisionConfig(
        lattice=LatticeFitConfig(orientation_smooth_deg=2.5, family_tol_deg=12.0), search_mm=10.0, step_mm=2.5,
        min_orientation_peak=1.2)


@dataclass(frozen=True)
class LatticeFrame:
    """A stand-in calibration: the homography from the lattice frame (mm) to the photo (px)."""

    H_px_from_mm: np.ndarray
    image_size: tuple[int, int]
    px_per_mm: float

    def mm_to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        return _apply(self.H_px_from_mm, xy_mm)

    def px_to_mm(self, xy_px: np.ndarray) -> np.ndarray:
        return _apply(np.linalg.inv(self.H_px_from_mm), xy_px)


def _apply(H: np.ndarray, xy: np.ndarray) -> np.ndarray:
    p = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    q = p @ H[:, :2].T + H[:, 2]
    return q[:, :2] / q[:, 2:3]


def _vanishing_point(x, y, ang, w, tol_rad: float) -> np.ndarray:
    """Least-squares meeting point (homogeneous, unit) of the lines through (x, y) with normals ang."""
    c, s = np.cos(ang), np.sin(ang)
    lines = np.stack([c, s, -(x * c + y * s)], axis=1)
    v = np.linalg.eigh((lines * w[:, None]).T @ lines)[1][:, 0]
    for _ in range(2):
        # keep the pixels whose line passes near v (angle between their direction and the way to v)
        to_v = np.stack([v[0] - x * v[2], v[1] - y * v[2]], axis=1)
        to_v /= np.maximum(np.linalg.norm(to_v, axis=1, keepdims=True), 1e-12)
        off = np.abs(to_v[:, 0] * c + to_v[:, 1] * s)  # sin of the angle
        keep = off < np.sin(tol_rad)
        if keep.sum() < 20:
            break
        v = np.linalg.eigh((lines[keep] * w[keep, None]).T @ lines[keep])[1][:, 0]
    return v


def _peaks(ang: np.ndarray, w: np.ndarray, gaps: tuple[float, float]) -> list[float]:
    hist = np.bincount(np.floor(np.degrees(ang)).astype(int) % 180, weights=w, minlength=180)
    smooth = np.convolve(np.concatenate([hist[-3:], hist, hist[:3]]), np.ones(5) / 5, mode="same")[3:-3]
    first = int(np.argmax(smooth))
    out = [float(first)]
    for sign in (1, -1):
        cand = [(first + sign * g) % 180 for g in range(int(gaps[0]), int(gaps[1]) + 1)]
        best = max(cand, key=lambda b: smooth[int(b)])
        out.append(float(best))
    return out


def lattice_frame(
    image_rgb: np.ndarray, edge_mm: float, config: MarkerlessConfig, use_horizon: bool = True
) -> tuple[LatticeFrame, tuple]:
    """Estimate the table frame from the boards' lattice alone.

    With ``use_horizon`` the perspective is removed with the horizon through the three vanishing
    points; without, the view is treated as affine (near top-down views, where the vanishing
    points are far and the horizon is poorly determined).

    Returns
    -------
    frame : LatticeFrame
    region_mm : (x0, y0, x1, y1)
        Where the lattice edges lie, in that frame, with a margin.

    Raises
    ------
    CannotJudge
        No three families of lines.
    """
    h, w = image_rgb.shape[:2]
    img = image_rgb.astype(np.float32)
    lo = np.percentile(img.reshape(-1, 3), 1.0, axis=0)
    hi = np.percentile(img.reshape(-1, 3), 99.5, axis=0)
    norm = (img - lo) / np.maximum(hi - lo, 1.0)
    g = gradients(norm, config.vision.lattice, 1.0)
    roi = _colourful_area(image_rgb, config)
    mag = np.where(roi, g.magnitude, 0.0)
    thr = float(np.quantile(g.magnitude[roi], config.strong_quantile)) if roi.any() else np.inf
    rows, cols = np.nonzero(mag > thr)
    if len(rows) < 200:
        raise CannotJudge("no calibration markers and no board lattice in the photo")
    f = float(max(w, h))
    x = (cols - w / 2) / f
    y = (rows - h / 2) / f
    ang = g.angle[rows, cols].astype(np.float64)
    wt = g.magnitude[rows, cols].astype(np.float64)
    peaks = _peaks(ang, wt, config.family_gap_deg)
    vps, members = [], []
    for p in peaks:
        d = np.abs((ang - np.radians(p) + np.pi / 2) % np.pi - np.pi / 2)
        sel = d < np.radians(config.family_tol_deg[0])
        if sel.sum() < 50:
            raise CannotJudge("no calibration markers, and the photo does not show three directions of board edges")
        v = _vanishing_point(x[sel], y[sel], ang[sel], wt[sel], np.radians(config.family_tol_deg[1]))
        vps.append(v / np.linalg.norm(v))
        members.append(sel)
    V = np.array(vps)
    horizon = np.linalg.eigh(V.T @ V)[1][:, 0]
    if abs(horizon[2]) < 1e-9:
        raise CannotJudge("no calibration markers, and the camera looks too flat along the table for the lattice")
    horizon = horizon / horizon[2]
    sel_all = np.any(members, axis=0)
    cx, cy = float(x[sel_all].mean()), float(y[sel_all].mean())
    dist = abs(horizon[0] * cx + horizon[1] * cy + 1.0) / max(np.hypot(horizon[0], horizon[1]), 1e-12)
    if use_horizon and dist < config.min_horizon_dist:
        raise CannotJudge("no calibration markers, and the lattice's horizon is implausibly close")
    Ha = np.array([[1.0, 0, 0], [0, 1.0, 0], horizon]) if use_horizon else np.eye(3)
    dirs = []
    for v in V:
        a = Ha @ v
        d2 = np.array([a[0] - cx * a[2], a[1] - cy * a[2]]) if not use_horizon else np.array([a[0], a[1]])
        dirs.append(d2 / np.linalg.norm(d2))
    A = _metric(np.array(dirs))
    N = np.array([[1.0 / f, 0, -w / (2 * f)], [0, 1.0 / f, -h / (2 * f)], [0, 0, 1.0]])
    M = np.eye(3)
    M[:2, :2] = A
    H_rect_from_px = M @ Ha @ N
    # scale: the line spacing of every family is edge*sqrt(3)/2 mm
    pts = np.stack([cols, rows], axis=1).astype(np.float64)
    q = _apply(H_rect_from_px, pts)
    c = pts[np.any(members, axis=0)].mean(axis=0)
    rect_per_px = float(np.linalg.norm(_apply(H_rect_from_px, c[None] + [1.0, 0.0]) - _apply(H_rect_from_px, c[None])))
    scale = _spacing_scale(q, members, A @ np.array(dirs).T, edge_mm * SQRT3 / 2.0, wt, rect_per_px, config)
    S = np.diag([1.0 / scale, 1.0 / scale, 1.0])  # rect units -> mm
    H_mm_from_px = S @ H_rect_from_px
    mm = _apply(H_mm_from_px, pts[np.any(members, axis=0)])
    lo_mm = np.quantile(mm, 0.01, axis=0) - config.region_margin_mm
    hi_mm = np.quantile(mm, 0.99, axis=0) + config.region_margin_mm
    Hpx = np.linalg.inv(H_mm_from_px)
    Hpx /= Hpx[2, 2]
    centre = 0.5 * (lo_mm + hi_mm)
    ppm = float(np.linalg.norm(_apply(Hpx, centre[None] + [1.0, 0.0]) - _apply(Hpx, centre[None])))
    frame = LatticeFrame(H_px_from_mm=Hpx, image_size=(w, h), px_per_mm=ppm)
    return frame, (float(lo_mm[0]), float(lo_mm[1]), float(hi_mm[0]), float(hi_mm[1]))


def _colourful_area(image_rgb: np.ndarray, config: MarkerlessConfig) -> np.ndarray:
    """Mask (H, W) around the boards: the largest place where several tile colours lie close together.

    One saturated colour can be a table (orange wood, green cloth); tiles bring several hues (and
    white) within a board's width.
    """
    import cv2

    hsv = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2HSV)
    hue = hsv[..., 0].astype(np.int32)
    sat = (hsv[..., 1] >= config.min_saturation * 255) & (hsv[..., 2] >= config.min_value * 255)
    white = (hsv[..., 1] < config.white_max_saturation * 255) & (hsv[..., 2] >= config.white_min_value * 255)
    k = max(3, int(config.mix_window_frac * max(image_rgb.shape[:2])))
    present = []
    for lo, hi in config.hue_bins:
        m = sat & (((hue >= lo) & (hue < hi)) if lo < hi else ((hue >= lo) | (hue < hi)))
        present.append(cv2.blur(m.astype(np.float32), (k, k)) >= config.mix_min_density)
    present.append(cv2.blur(white.astype(np.float32), (k, k)) >= config.mix_min_density)
    count = np.sum(present, axis=0)
    for need in (3, 2):
        mixed = (count >= need).astype(np.uint8)
        if mixed.any():
            break
    else:
        return np.ones(image_rgb.shape[:2], dtype=bool)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mixed)
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = stats[i, :4]
    gx, gy = int(config.roi_grow * w), int(config.roi_grow * h)
    mask = np.zeros(image_rgb.shape[:2], dtype=bool)
    mask[max(0, y - gy): y + h + gy, max(0, x - gx): x + w + gx] = True
    return mask


def _metric(dirs: np.ndarray) -> np.ndarray:
    """2x2 map [[a, b], [0, 1]] making the three line directions 60 degrees apart."""

    def res(p):
        A = np.array([[p[0], p[1]], [0.0, 1.0]])
        d = dirs @ A.T
        d = d / np.linalg.norm(d, axis=1, keepdims=True)
        c = [d[i] @ d[j] for i, j in ((0, 1), (1, 2), (0, 2))]
        return np.array(c) ** 2 - 0.25

    # Gauss-Newton from the identity (the photo is never far from a top view in a, b)
    p = np.array([1.0, 0.0])
    for _ in range(30):
        r = res(p)
        J = np.stack([(res(p + e) - r) / 1e-6 for e in (np.array([1e-6, 0.0]), np.array([0.0, 1e-6]))], axis=1)
        step = np.linalg.lstsq(J, -r, rcond=None)[0]
        p = np.clip(p + step, [0.2, -3.0], [5.0, 3.0])
        if np.linalg.norm(step) < 1e-9:
            break
    return np.array([[p[0], p[1]], [0.0, 1.0]])


def _spacing_scale(q, members, dirs_rect, spacing_mm, wt, rect_per_px: float, config: MarkerlessConfig) -> float:
    """Rectified units per mm, from the periodicity of each family's edge positions."""
    lo, hi, n = config.scale_px_per_mm
    periods = spacing_mm * np.geomspace(lo, hi, int(n)) * rect_per_px
    def concentration(P: np.ndarray) -> np.ndarray:
        score = np.zeros(len(P))
        for m, sel in enumerate(members):
            idx = np.nonzero(sel)[0]
            idx = idx[:: max(1, len(idx) // config.max_scale_samples)]
            d = dirs_rect[:, m] / np.linalg.norm(dirs_rect[:, m])
            proj = q[idx] @ np.array([-d[1], d[0]])
            ww = wt[idx] / wt[idx].sum()
            score += np.abs(np.exp(2j * np.pi * proj[None, :] / P[:, None]) @ ww)
        return score

    score = concentration(periods)
    peak = (score >= np.roll(score, 1)) & (score >= np.roll(score, -1)) & (score >= 0.7 * score.max())
    peak[0] = peak[-1] = False
    if not peak.any():
        peak[int(np.argmax(score))] = True
    i = int(np.nonzero(peak)[0].max())  # the longest period that fits (its halves fit too)
    fine = periods[i] * np.linspace(0.97, 1.03, 61)
    P = fine[int(np.argmax(concentration(fine)))]
    return P / spacing_mm


def _refit_on_boards(det: KaleidoDetection, frame: LatticeFrame, config: MarkerlessConfig):
    """Homography from the found boards: their centres must sit on an exact hexagonal grid.

    Returns (frame, region_mm), or None with fewer than ``config.refit_min_boards`` boards.
    """
    import cv2

    boards = det.state.boards
    if len(boards) < config.refit_min_boards:
        return None
    c = np.array([b.centre_mm for b in boards], dtype=np.float64)
    step = config.vision.edge_mm * SQRT3
    rot = det.lattice.rotation_deg
    a1 = np.radians(rot + 30.0)
    a2 = np.radians(rot + 90.0)
    basis = step * np.array([[np.cos(a1), np.sin(a1)], [np.cos(a2), np.sin(a2)]])
    qr = np.rint((c - c[0]) @ np.linalg.inv(basis))
    ideal = c[0] + qr @ basis
    px = frame.mm_to_px(c)
    H, _ = cv2.findHomography(ideal, px, 0)
    if H is None:
        return None
    H = H / H[2, 2]
    lo = ideal.min(axis=0) - config.vision.edge_mm - config.region_margin_mm
    hi = ideal.max(axis=0) + config.vision.edge_mm + config.region_margin_mm
    centre = 0.5 * (lo + hi)
    ppm = float(np.linalg.norm(_apply(H, centre[None] + [1.0, 0.0]) - _apply(H, centre[None])))
    new = LatticeFrame(H_px_from_mm=H, image_size=frame.image_size, px_per_mm=ppm)
    return new, (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))


def detect_markerless(
    image_rgb: np.ndarray, config: MarkerlessConfig = MarkerlessConfig(), timer: StageTimer | None = None,
    why: str | None = None,
) -> KaleidoDetection:
    """Find the boards without markers (positions in the lattice's own frame).

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    config : MarkerlessConfig
    timer : StageTimer, optional
    why : str, optional
        Why the markers were not used (shown in the flag).

    Raises
    ------
    CannotJudge
    """
    from dataclasses import replace

    timer = timer or StageTimer()
    det, frame, reason = None, None, "no board lattice found"
    for use_horizon in (True, False):
        try:
            with timer.stage("frame"):
                f_try, region = lattice_frame(image_rgb, config.vision.edge_mm, config, use_horizon)
            d_try = detect_kaleido(image_rgb, f_try, config.first_pass, timer, region_mm=region, mask_markers=False)
        except CannotJudge as exc:
            reason = str(exc)
            continue
        if det is None or len(d_try.state.boards) > len(det.state.boards):
            det, frame = d_try, f_try
    if det is None:
        raise CannotJudge(f"no calibration markers ({why or 'none found'}); markerless fallback: {reason}")
    with timer.stage("frame"):
        better = _refit_on_boards(det, frame, config)
    if better is not None:
        try:
            det2 = detect_kaleido(image_rgb, better[0], config.vision, timer, region_mm=better[1], mask_markers=False)
        except CannotJudge:
            det2 = None
        if det2 is not None and len(det2.state.boards) >= len(det.state.boards):
            frame, det = better[0], det2
    note = Flag("markerless", "no calibration markers: the boards' own lattice gives the frame (positions "
                f"within about {config.frame_sigma_mm:.0f} mm; lens distortion not corrected)",
                {"reason": why or ""})
    state = replace(det.state, frame="lattice", flags=(note, *det.state.flags),
                    h_px_from_mm=tuple(tuple(float(v) for v in row) for row in frame.H_px_from_mm),
                    frame_sigma_mm=config.frame_sigma_mm)
    return replace(det, state=state)
