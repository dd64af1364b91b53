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
    stretch_percentiles : (float, float)
        Per-channel percentiles taken as black and white when the photo's contrast is stretched.
    min_edge_pixels : int
        Fewer strong pixels than this: no lattice.
    peak_smooth_bins : int
        Width (1-degree bins) of the box smoothing of the orientation histogram.
    min_family_pixels : int
        Fewer pixels than this in a family: no lattice.
    vp_refits, vp_min_pixels : int
        Refits of a vanishing point on the pixels whose lines pass near it; a refit needs this many.
    metric_iterations : int
        Gauss-Newton steps of the 60-degree (skew) fit.
    metric_bounds : ((float, float), (float, float))
        Lower and upper bounds of the skew map's (a, b).
    period_peak_frac : float
        Spacing candidates scoring at least this fraction of the best are peaks (the longest wins).
    period_refine : (float, float, int)
        Fine search around that peak: range (factors of its period) and count.
    region_quantiles : (float, float)
        Quantiles of the lattice pixels (mm) that bound the boards' region (before the margin).
    mix_min_window_px : int
        Smallest window side of the colour-mix test.
    mix_min_colours : tuple of int
        Colours (hues and white) needed together: the first count that marks any pixel is used.
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
    stretch_percentiles: tuple[float, float] = (1.0, 99.5)
    min_edge_pixels: int = 200
    peak_smooth_bins: int = 5
    min_family_pixels: int = 50
    vp_refits: int = 2
    vp_min_pixels: int = 20
    metric_iterations: int = 30
    metric_bounds: tuple[tuple[float, float], tuple[float, float]] = ((0.2, -3.0), (5.0, 3.0))
    period_peak_frac: float = 0.7
    period_refine: tuple[float, float, int] = (0.97, 1.03, 61)
    region_quantiles: tuple[float, float] = (0.01, 0.99)
    mix_min_window_px: int = 3
    mix_min_colours: tuple[int, ...] = (3, 2)
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


def _vanishing_point(x, y, ang, w, tol_rad: float, config: MarkerlessConfig) -> np.ndarray:
    """Least-squares meeting point (homogeneous, unit) of the lines through (x, y) with normals ang."""
    c, s = np.cos(ang), np.sin(ang)
    lines = np.stack([c, s, -(x * c + y * s)], axis=1)
    v = np.linalg.eigh((lines * w[:, None]).T @ lines)[1][:, 0]
    for _ in range(config.vp_refits):
        # keep the pixels whose line passes near v (angle between their direction and the way to v)
        to_v = np.stack([v[0] - x * v[2], v[1] - y * v[2]], axis=1)
        to_v /= np.maximum(np.linalg.norm(to_v, axis=1, keepdims=True), 1e-12)
        off = np.abs(to_v[:, 0] * c + to_v[:, 1] * s)  # sin of the angle
        keep = off < np.sin(tol_rad)
        if keep.sum() < config.vp_min_pixels:
            break
        v = np.linalg.eigh((lines[keep] * w[keep, None]).T @ lines[keep])[1][:, 0]
    return v


def _peaks(ang: np.ndarray, w: np.ndarray, gaps: tuple[float, float], smooth_bins: int) -> list[float]:
    """The three family directions (degrees, 0-180): the strongest, and the strongest within ``gaps``
    of it on either side, from a 1-degree histogram smoothed over ``smooth_bins`` (wrapped)."""
    hist = np.bincount(np.floor(np.degrees(ang)).astype(int) % 180, weights=w, minlength=180)
    pad = smooth_bins // 2 + 1
    smooth = np.convolve(np.concatenate([hist[-pad:], hist, hist[:pad]]), np.ones(smooth_bins) / smooth_bins,
                         mode="same")[pad:-pad]
    first = int(np.argmax(smooth))
    out = [float(first)]
    for sign in (1, -1):
        cand = [(first + sign * g) % 180 for g in range(int(gaps[0]), int(gaps[1]) + 1)]
        best = max(cand, key=lambda b: smooth[int(b)])
        out.append(float(best))
    return out


@dataclass(frozen=True)
class _EdgePixels:
    """The strong gradient pixels that vote for the lattice's line families.

    Attributes
    ----------
    xy_px : ndarray, shape (N, 2)
        Pixel positions (column, row).
    x_norm, y_norm : ndarray, shape (N,)
        The same, centred on the image and divided by its larger side.
    angle_rad : ndarray, shape (N,)
        Gradient direction (the line's normal).
    weight : ndarray, shape (N,)
        Gradient magnitude.
    """

    xy_px: np.ndarray
    x_norm: np.ndarray
    y_norm: np.ndarray
    angle_rad: np.ndarray
    weight: np.ndarray


def lattice_frame(
    image_rgb: np.ndarray, edge_mm: float, config: MarkerlessConfig, use_horizon: bool = True
) -> tuple[LatticeFrame, tuple]:
    """Estimate the table frame from the boards' lattice alone.

    With ``use_horizon`` the perspective is removed with the horizon through the three vanishing
    points; without, the view is treated as affine (near top-down views, where the vanishing
    points are far and the horizon is poorly determined).

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    edge_mm : float
        The boards' cell edge.
    config : MarkerlessConfig
    use_horizon : bool

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
    edges = _strong_edges(image_rgb, config)
    vps, members = _line_families(edges, config)
    on_lattice = np.any(members, axis=0)
    centre = (float(edges.x_norm[on_lattice].mean()), float(edges.y_norm[on_lattice].mean()))
    Ha = _affine_rectification(vps, centre, config, use_horizon)
    dirs = _family_directions(vps, Ha, centre, use_horizon)
    A = _metric(dirs, config)
    H_rect_from_px = _rect_from_px(A, Ha, (w, h))
    scale = _lattice_scale(H_rect_from_px, edges, members, A @ dirs.T, edge_mm, config)
    H_mm_from_px = np.diag([1.0 / scale, 1.0 / scale, 1.0]) @ H_rect_from_px  # rect units -> mm
    return _frame_and_region(H_mm_from_px, edges.xy_px[on_lattice], (w, h), config)


def _strong_edges(image_rgb: np.ndarray, config: MarkerlessConfig) -> _EdgePixels:
    """The strongest gradient pixels in the boards' colourful area (contrast-stretched photo).

    Raises
    ------
    CannotJudge
        Fewer than ``config.min_edge_pixels`` of them.
    """
    h, w = image_rgb.shape[:2]
    img = image_rgb.astype(np.float32)
    lo = np.percentile(img.reshape(-1, 3), config.stretch_percentiles[0], axis=0)
    hi = np.percentile(img.reshape(-1, 3), config.stretch_percentiles[1], axis=0)
    norm = (img - lo) / np.maximum(hi - lo, 1.0)
    g = gradients(norm, config.vision.lattice, 1.0)  # the unrectified photo: smoothing widths read as px
    roi = _colourful_area(image_rgb, config)
    mag = np.where(roi, g.magnitude, 0.0)
    thr = float(np.quantile(g.magnitude[roi], config.strong_quantile)) if roi.any() else np.inf
    rows, cols = np.nonzero(mag > thr)
    if len(rows) < config.min_edge_pixels:
        raise CannotJudge("no calibration markers and no board lattice in the photo")
    f = float(max(w, h))
    x = (cols - w / 2) / f
    y = (rows - h / 2) / f
    return _EdgePixels(
        xy_px=np.stack([cols, rows], axis=1).astype(np.float64),
        x_norm=x,
        y_norm=y,
        angle_rad=g.angle[rows, cols].astype(np.float64),
        weight=g.magnitude[rows, cols].astype(np.float64),
    )


def _line_families(edges: _EdgePixels, config: MarkerlessConfig) -> tuple[np.ndarray, list[np.ndarray]]:
    """The three families of parallel lines: their vanishing points (3, 3), unit homogeneous, and
    member masks (3 of shape (N,)).

    Raises
    ------
    CannotJudge
        A family with fewer than ``config.min_family_pixels`` pixels.
    """
    ang, wt = edges.angle_rad, edges.weight
    x, y = edges.x_norm, edges.y_norm
    vps, members = [], []
    for p in _peaks(ang, wt, config.family_gap_deg, config.peak_smooth_bins):
        d = np.abs((ang - np.radians(p) + np.pi / 2) % np.pi - np.pi / 2)
        sel = d < np.radians(config.family_tol_deg[0])
        if sel.sum() < config.min_family_pixels:
            raise CannotJudge("no calibration markers, and the photo does not show three directions of board edges")
        v = _vanishing_point(x[sel], y[sel], ang[sel], wt[sel], np.radians(config.family_tol_deg[1]), config)
        vps.append(v / np.linalg.norm(v))
        members.append(sel)
    return np.array(vps), members


def _affine_rectification(
    vps: np.ndarray, centre: tuple[float, float], config: MarkerlessConfig, use_horizon: bool
) -> np.ndarray:
    """The 3x3 map (normalised image coordinates) sending the horizon through the vanishing points to
    infinity; the identity without ``use_horizon``.

    Raises
    ------
    CannotJudge
        A horizon through the image centre, or (with ``use_horizon``) closer to the boards' centre
        than ``config.min_horizon_dist``.
    """
    horizon = np.linalg.eigh(vps.T @ vps)[1][:, 0]
    if abs(horizon[2]) < 1e-9:
        raise CannotJudge("no calibration markers, and the camera looks too flat along the table for the lattice")
    horizon = horizon / horizon[2]
    cx, cy = centre
    dist = abs(horizon[0] * cx + horizon[1] * cy + 1.0) / max(np.hypot(horizon[0], horizon[1]), 1e-12)
    if use_horizon and dist < config.min_horizon_dist:
        raise CannotJudge("no calibration markers, and the lattice's horizon is implausibly close")
    return np.array([[1.0, 0, 0], [0, 1.0, 0], horizon]) if use_horizon else np.eye(3)


def _family_directions(vps: np.ndarray, Ha: np.ndarray, centre: tuple[float, float], use_horizon: bool) -> np.ndarray:
    """Unit direction (3, 2) of each family after ``Ha`` (towards its vanishing point from the boards'
    centre when the view is treated as affine)."""
    cx, cy = centre
    dirs = []
    for v in vps:
        a = Ha @ v
        d2 = np.array([a[0] - cx * a[2], a[1] - cy * a[2]]) if not use_horizon else np.array([a[0], a[1]])
        dirs.append(d2 / np.linalg.norm(d2))
    return np.array(dirs)


def _rect_from_px(A: np.ndarray, Ha: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """3x3 homography from photo px to rectified units: normalise, remove the horizon, then the skew ``A``."""
    w, h = size
    f = float(max(w, h))
    N = np.array([[1.0 / f, 0, -w / (2 * f)], [0, 1.0 / f, -h / (2 * f)], [0, 0, 1.0]])
    M = np.eye(3)
    M[:2, :2] = A
    return M @ Ha @ N


def _lattice_scale(
    H_rect_from_px: np.ndarray, edges: _EdgePixels, members: list[np.ndarray], dirs_rect: np.ndarray,
    edge_mm: float, config: MarkerlessConfig,
) -> float:
    """Rectified units per mm: the line spacing of every family is ``edge*sqrt(3)/2`` mm."""
    pts = edges.xy_px
    q = _apply(H_rect_from_px, pts)
    c = pts[np.any(members, axis=0)].mean(axis=0)
    rect_per_px = float(np.linalg.norm(_apply(H_rect_from_px, c[None] + [1.0, 0.0]) - _apply(H_rect_from_px, c[None])))
    return _spacing_scale(q, members, dirs_rect, edge_mm * SQRT3 / 2.0, edges.weight, rect_per_px, config)


def _frame_and_region(
    H_mm_from_px: np.ndarray, lattice_px: np.ndarray, size: tuple[int, int], config: MarkerlessConfig
) -> tuple[LatticeFrame, tuple]:
    """The frame (its px-per-mm at the region's centre) and the region (x0, y0, x1, y1) mm around the
    lattice pixels ``lattice_px`` (N, 2), their extent quantiles grown by ``config.region_margin_mm``."""
    mm = _apply(H_mm_from_px, lattice_px)
    lo_mm = np.quantile(mm, config.region_quantiles[0], axis=0) - config.region_margin_mm
    hi_mm = np.quantile(mm, 1.0 - config.region_quantiles[0], axis=0) + config.region_margin_mm
    Hpx = np.linalg.inv(H_mm_from_px)
    Hpx /= Hpx[2, 2]
    centre = 0.5 * (lo_mm + hi_mm)
    ppm = float(np.linalg.norm(_apply(Hpx, centre[None] + [1.0, 0.0]) - _apply(Hpx, centre[None])))
    frame = LatticeFrame(H_px_from_mm=Hpx, image_size=size, px_per_mm=ppm)
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
    k = max(config.mix_min_window_px, int(config.mix_window_frac * max(image_rgb.shape[:2])))
    present = []
    for lo, hi in config.hue_bins:
        m = sat & (((hue >= lo) & (hue < hi)) if lo < hi else ((hue >= lo) | (hue < hi)))
        present.append(cv2.blur(m.astype(np.float32), (k, k)) >= config.mix_min_density)
    present.append(cv2.blur(white.astype(np.float32), (k, k)) >= config.mix_min_density)
    count = np.sum(present, axis=0)
    for need in config.mix_min_colours:
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


def _metric(dirs: np.ndarray, config: MarkerlessConfig) -> np.ndarray:
    """2x2 map [[a, b], [0, 1]] making the three line directions 60 degrees apart."""

    def res(p):
        A = np.array([[p[0], p[1]], [0.0, 1.0]])
        d = dirs @ A.T
        d = d / np.linalg.norm(d, axis=1, keepdims=True)
        c = [d[i] @ d[j] for i, j in ((0, 1), (1, 2), (0, 2))]
        return np.array(c) ** 2 - 0.25

    # Gauss-Newton from the identity (the photo is never far from a top view in a, b)
    p = np.array([1.0, 0.0])
    for _ in range(config.metric_iterations):
        r = res(p)
        J = np.stack([(res(p + e) - r) / 1e-6 for e in (np.array([1e-6, 0.0]), np.array([0.0, 1e-6]))], axis=1)
        step = np.linalg.lstsq(J, -r, rcond=None)[0]
        p = np.clip(p + step, *config.metric_bounds)
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
    strong = score >= config.period_peak_frac * score.max()
    peak = (score >= np.roll(score, 1)) & (score >= np.roll(score, -1)) & strong
    peak[0] = peak[-1] = False
    if not peak.any():
        peak[int(np.argmax(score))] = True
    i = int(np.nonzero(peak)[0].max())  # the longest period that fits (its halves fit too)
    fine = periods[i] * np.linspace(*config.period_refine)
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
    if det is None or frame is None:
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
