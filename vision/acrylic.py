"""Clear acrylic boards: find each board's pose by matching its known outline to the dimmed mat.

Works on a top view resampled at the board's top-face height (5 mm), levels normalised by the
frame's colour reference. A clear board dims and tints the mat under it; the bright things
(chips, the white print, star specks, edge glints) are painted out first, the dimming is
measured against a large-scale estimate of the bare mat's brightness, and the seven outlines
(and their mirror images) are matched to the dark regions by the contrast across the outline
(coarse grid over x, y, theta from seeds, then a point-to-edge least-squares refinement).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import cv2
import numpy as np
from shapely import contains_xy, distance, points
from shapely.geometry import Polygon
from shapely.ops import polylabel


@dataclass(frozen=True)
class AcrylicConfig:
    """Tunables of the board matcher (lengths in mm, levels normalised 0-1).

    Attributes
    ----------
    bright_fraction, bright_kernel_mm : float
        Pixels brighter than their surroundings (white top-hat over this kernel, wider than a chip)
        by this fraction of (white - mat) are painted out before matching.
    bright_dilate_mm : float
        Growth of the painted-out mask.
    background_mm : float
        Scale of the bare-mat brightness estimate (larger than a board).
    coarse_mm_per_px : float
        Resolution of the background estimate.
    mode_bin_log : float
        Histogram bin width (in log level) of the bare-mat mode.
    line_kernel_mm, line_blur_mm : float
        Dark lines narrower than this are edge evidence (black top-hat), smoothed this much.
    line_weight : float
        Weight of the edge-line evidence against the dimming step in every score.
    line_floor_percentile : float
        The line map's level at this percentile (the mat's texture) is subtracted.
    coarse_line_blur_mm : float
        Extra smoothing of the line map for the coarse stage.
    bright_edge_cap : float
        Thin bright lines (edge highlights) add to the edge-line map up to this fraction of (white - mat).
    print_kernel_mm, print_fraction, print_min_length_mm : float
        Print strokes: bright top-hat (narrower than the kernel) above this fraction of
        (white - mat), in components at least this long.
    print_cluster_mm, print_min_area_mm2 : float
        Strokes closer than this form one board's print; clusters with less stroke area are ignored.
    min_line_strength, line_off_mm : float
        A board whose inside is hardly dimmed is still accepted when its outline follows a dark
        edge line at least this strong (above the line level this far off the outline).
    dark_ratio : float
        A pixel whose level is under this fraction of the bare-mat level counts as under acrylic.
    min_region_fraction : float
        Dark regions smaller than this fraction of the smallest board are ignored.
    seed_spacing_mm : float
        Seeds (inscribed-disc centres of the dimmed regions) are at least this far apart.
    min_seed_radius_mm : float
        Smallest inscribed-disc radius that makes a seed.
    search_xy_mm, search_step_mm : float
        Coarse translation search around a seed.
    search_theta_step_deg : float
        Coarse rotation step (then two finer grids at 1/4 and 1/16 of it, and of the xy step / 3, / 12).
    coarse_blur_mm, coarse_offset_mm : float
        The coarse stage scores a map blurred this much, comparing levels this far either side.
    sample_step_mm : float
        Outline sampling step.
    contrast_offset_mm : float
        Distance on each side of the outline where the level is compared.
    refine_iters : int
        Point-to-edge least-squares iterations.
    refine_top : int
        Candidates per seed (ranked after the first finer grid) refined before the shapes are compared.
    coarse_per_shape, coarse_min_separation_deg : int, float
        Coarse candidates kept per shape (id, mirror), at rotations at least this far apart.
    chamfer_cap_mm, max_chamfer_mm : float
        Per-sample cap of the edge distance, and the largest mean accepted.
    min_inside_dimming, min_accept_contrast : float
        An accepted board's inside differs from the bare mat by at least this, or the level steps
        across its outline by at least this on average (or its outline follows an edge line).
    interior_step_mm, interior_inset_mm : float
        Grid of inside samples, kept this far inside the outline.
    ambiguity_mm : float
        Competing fits (another shape, or the same at another pose) on the same region within this
        chamfer of the best widen its sigma to half their mean outline distance.
    max_sigma_mm : float
        Cap of the reported pose sigma.
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
    bright_kernel_mm: float = 31.0
    bright_dilate_mm: float = 2.0
    background_mm: float = 260.0
    coarse_mm_per_px: float = 4.0
    mode_bin_log: float = 0.05
    line_kernel_mm: float = 5.0
    line_blur_mm: float = 0.7
    line_weight: float = 1.0
    line_floor_percentile: float = 97.0
    coarse_line_blur_mm: float = 2.5
    min_line_strength: float = 0.03
    line_off_mm: float = 4.0
    bright_edge_cap: float = 0.15
    print_kernel_mm: float = 5.0
    print_fraction: float = 0.25
    print_min_length_mm: float = 12.0
    print_cluster_mm: float = 30.0
    print_min_area_mm2: float = 60.0
    dark_ratio: float = 0.94
    min_region_fraction: float = 0.25
    seed_spacing_mm: float = 50.0
    min_seed_radius_mm: float = 25.0
    search_xy_mm: float = 36.0
    search_step_mm: float = 12.0
    search_theta_step_deg: float = 10.0
    coarse_blur_mm: float = 4.0
    coarse_offset_mm: float = 6.0
    sample_step_mm: float = 8.0
    contrast_offset_mm: float = 3.0
    refine_iters: int = 4
    refine_top: int = 8
    coarse_per_shape: int = 3
    coarse_min_separation_deg: float = 25.0
    chamfer_cap_mm: float = 4.0
    max_chamfer_mm: float = 2.5
    min_inside_dimming: float = 0.04
    min_accept_contrast: float = 0.08
    interior_step_mm: float = 8.0
    interior_inset_mm: float = 6.0
    ambiguity_mm: float = 0.6
    max_sigma_mm: float = 10.0
    edge_search_mm: float = 6.0
    min_contrast: float = 0.05
    max_overlap: float = 0.2
    base_sigma_mm: float = 1.0


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
    chamfer_mm : float
        Mean distance from the outline samples to the edge found along their normals, each capped
        at ``AcrylicConfig.chamfer_cap_mm`` (samples without an edge count as the cap): the match quality.
    inside_dimming : float
        How much the board's inside differs from the bare mat (relative level, signed by polarity).
    line_strength : float
        How much darker a thin line runs along the outline than just off it (edge-line evidence).
    alternative_mm : float
        Mean outline distance to the best competing shape fit on the same region whose chamfer is
        within ``AcrylicConfig.ambiguity_mm`` (0 when there is none).
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
    chamfer_mm: float = 0.0
    inside_dimming: float = 0.0
    alternative_mm: float = 0.0
    line_strength: float = 0.0


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
    """Bilinear sampling of a map at table positions (NaN outside)."""

    def __init__(self, img: np.ndarray, origin_mm, mm_per_px: float):
        self.img = img.astype(np.float32)
        self.o = np.asarray(origin_mm, dtype=np.float32)
        self.s = np.float32(mm_per_px)

    def __call__(self, xy_mm: np.ndarray) -> np.ndarray:
        sh = xy_mm.shape[:-1]
        n = int(np.prod(sh))
        cols = 4096
        rows = -(-n // cols)
        q = np.zeros((rows * cols, 2), np.float32)
        q[:n] = np.asarray(xy_mm, dtype=np.float32).reshape(-1, 2)
        q -= self.o
        q /= self.s
        q = q.reshape(rows, cols, 2)
        v = cv2.remap(self.img, q, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=float("nan"))
        return v.ravel()[:n].reshape(sh)


def board_maps(level: np.ndarray, mm_per_px: float,
               config: AcrylicConfig = AcrylicConfig()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The evidence boards leave on the mat: dimming and thin dark edge lines.

    Parameters
    ----------
    level : ndarray, shape (h, w), float
        Normalised level of a top view (bright pieces included).

    Returns
    -------
    ratio : ndarray, shape (h, w), float32
        Level relative to the bare mat around it (1 = bare mat, < 1 = dimmed under acrylic);
        bright pieces (chips, print, specks, glints) painted out.
    line : ndarray, shape (h, w), float32
        Strength of thin dark lines (a board's edge seen from above), relative to the bare mat.
    printed : ndarray, shape (h, w), uint8
        1 on thin bright strokes long enough to be a board's printed constellation lines.
    """
    lv = level.astype(np.float32)
    mat = float(np.median(lv))
    # white print: thin bright strokes (top-hat), long enough not to be a star speck
    kp = max(int(round(config.print_kernel_mm / mm_per_px)) | 1, 3)
    th = cv2.morphologyEx(lv, cv2.MORPH_TOPHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kp, kp)))
    stroke = (th > config.print_fraction * (1.0 - mat)).astype(np.uint8)
    n, lab, st, _ = cv2.connectedComponentsWithStats(stroke, connectivity=8)
    longest = np.maximum(st[:, 2], st[:, 3]) * mm_per_px
    keep = longest >= config.print_min_length_mm
    keep[0] = False
    printed = keep[lab].astype(np.uint8)
    # small bright things (chips, print, specks, glints) stand out of their surroundings; a whole
    # board lit by glare does not (it is wider than the kernel)
    kt = max(int(round(config.bright_kernel_mm / mm_per_px)) | 1, 3)
    small_bright = cv2.morphologyEx(lv, cv2.MORPH_TOPHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kt, kt)))
    bright = (small_bright > config.bright_fraction * (1.0 - mat)).astype(np.uint8)
    k = max(int(round(2 * config.bright_dilate_mm / mm_per_px)) | 1, 3)
    bright = cv2.dilate(bright, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # paint the bright pieces out with a local median of the rest (normalised convolution)
    w = (1 - bright).astype(np.float32)
    ks = max(int(round(15.0 / mm_per_px)) | 1, 3)
    num = cv2.blur(lv * w, (ks, ks))
    den = cv2.blur(w, (ks, ks))
    filled = np.where(bright > 0, num / np.maximum(den, 1e-3), lv)
    filled = np.where((bright > 0) & (den < 1e-3), mat, filled)
    kl = max(int(round(config.line_kernel_mm / mm_per_px)) | 1, 3)
    kel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kl, kl))
    line = cv2.morphologyEx(filled, cv2.MORPH_BLACKHAT, kel)
    if config.bright_edge_cap > 0:
        # a cut edge may also catch the light: thin bright lines count too (capped, so that the
        # much brighter white print does not dominate)
        line = line + np.minimum(th, config.bright_edge_cap * (1.0 - mat))
    filled = cv2.GaussianBlur(filled, (0, 0), 1.0 / mm_per_px)
    # bare-mat level: the most common level in a large window (the mat is the largest single
    # surface; boards may look darker or lighter than it), on a coarse grid
    f = mm_per_px / config.coarse_mm_per_px
    small = cv2.resize(filled, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    kb = max(int(round(config.background_mm / config.coarse_mm_per_px)) | 1, 3)
    bg = _local_mode(np.log(np.maximum(small, 1e-3)), kb, config.mode_bin_log)
    bg = np.exp(cv2.GaussianBlur(bg, (0, 0), kb / 6.0))
    bg = cv2.resize(bg, (level.shape[1], level.shape[0]), interpolation=cv2.INTER_LINEAR)
    ratio = (filled / np.maximum(bg, 1e-3)).astype(np.float32)
    line = cv2.GaussianBlur(line / np.maximum(bg, 1e-3), (0, 0), config.line_blur_mm / mm_per_px)
    # only lines standing out of the mat's own texture count
    line = np.maximum(line - np.percentile(line, config.line_floor_percentile), 0.0)
    return ratio, line.astype(np.float32), printed


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
    return board_maps(level, mm_per_px, config)[0]


def _local_mode(img: np.ndarray, window_px: int, bin_width: float) -> np.ndarray:
    """Per pixel, the most common value of ``img`` within a square window (histogram mode, bin-refined)."""
    lo, hi = np.percentile(img, [0.5, 99.5])
    edges = np.arange(lo, hi + bin_width, bin_width)
    nb = len(edges)
    idx = np.clip(((img - lo) / bin_width).astype(int), 0, nb - 1)
    counts = np.stack([cv2.boxFilter((idx == b).astype(np.float32), -1, (window_px, window_px), normalize=False,
                                     borderType=cv2.BORDER_REFLECT) for b in range(nb)], axis=0)
    counts = counts + 0.5 * (np.roll(counts, 1, axis=0) + np.roll(counts, -1, axis=0))
    k = np.argmax(counts, axis=0)
    return (lo + (k + 0.5) * bin_width).astype(np.float32)


class _Evidence:
    """Samplers of the dimming ratio and of the edge-line map, and how they combine into scores."""

    def __init__(self, ratio: np.ndarray, line: np.ndarray | None, origin_mm, mm_per_px: float, line_weight: float):
        self.r = _Sampler(ratio, origin_mm, mm_per_px)
        self.l = _Sampler(line, origin_mm, mm_per_px) if line is not None else None
        self.w = line_weight if line is not None else 0.0

    def outline_terms(self, P: np.ndarray, N: np.ndarray, d: float) -> tuple[np.ndarray, np.ndarray]:
        """Mean signed step (outside - inside) and mean line strength along outlines (..., n, 2)."""
        with warnings.catch_warnings():  # outlines wholly off the view give empty means: scored 0
            warnings.simplefilter("ignore", RuntimeWarning)
            c = np.nanmean(self.r(P + d * N) - self.r(P - d * N), axis=-1)
            c = np.where(np.isnan(c), 0.0, c)
            if self.l is None:
                return c, np.zeros_like(c)
            ln = np.nanmean(self.l(P), axis=-1)
        return c, np.where(np.isnan(ln), 0.0, ln)

    def score(self, c: np.ndarray, ln: np.ndarray, sign: float) -> np.ndarray:
        return (np.abs(c) if sign == 0 else sign * c) + self.w * ln


def find_boards(
    ratio: np.ndarray,
    origin_mm: tuple[float, float],
    mm_per_px: float,
    outlines_mm: dict[str, np.ndarray],
    config: AcrylicConfig = AcrylicConfig(),
    bottom_shift=None,
    line: np.ndarray | None = None,
    printed: np.ndarray | None = None,
) -> list[BoardFit]:
    """Match the known board outlines to the dimmed regions and edge lines of ``board_maps``.

    Parameters
    ----------
    ratio : ndarray, shape (h, w)
        Dimming ratio of a top view at the boards' top-face height (NaN: no data).
    origin_mm : (float, float)
        Table position of pixel (0, 0).
    mm_per_px : float
    outlines_mm : dict[str, ndarray (N, 2)]
        Board id -> outline in the board's own frame (components ``outlines_mm``).
    config : AcrylicConfig
    bottom_shift : callable((N, 2) mm) -> (N, 2) mm, optional
        Where the board's bottom edge appears in this view relative to its top edge (parallax of
        the wall, from the camera pose); None: walls ignored.
    line : ndarray, shape (h, w), optional
        Edge-line map of ``board_maps``.
    printed : ndarray, shape (h, w), optional
        Print-stroke mask of ``board_maps`` (clusters of print seed the search).

    Returns
    -------
    list[BoardFit], best first; each id at most once.
    """
    s = mm_per_px
    ev = _Evidence(ratio, line, origin_mm, s, config.line_weight)
    seeds = _seeds(ratio, printed, origin_mm, s, outlines_mm, config)
    if not seeds:
        return []

    shapes = []  # (id, mirrored, local outline, local samples, local normals, reference point)
    for bid, o in outlines_mm.items():
        o = np.asarray(o, dtype=np.float64)
        for mir in (False, True):
            lo = o * [-1.0, 1.0] if mir else o
            lo = lo[::-1] if mir else lo
            pts, nrm = _resample(lo, config.sample_step_mm)
            # the centre of the outline's largest inscribed disc goes on the seed
            cen = np.asarray(polylabel(Polygon(lo), tolerance=1.0).coords[0])
            shapes.append((bid, mir, lo, pts, nrm, cen))
    thetas = np.radians(np.arange(0, 360, config.search_theta_step_deg))
    d = config.contrast_offset_mm
    # the coarse stage looks at blurred maps with a wider step across the outline: a wide basin
    blur = cv2.GaussianBlur(np.nan_to_num(ratio, nan=1.0), (0, 0), config.coarse_blur_mm / s)
    blur[np.isnan(ratio)] = np.nan
    lblur = None
    if line is not None:
        lblur = cv2.GaussianBlur(np.nan_to_num(line, nan=0.0), (0, 0), config.coarse_line_blur_mm / s)
    ev_coarse = _Evidence(blur, lblur, origin_mm, s, config.line_weight)

    def grid(half, step):
        g = np.arange(-half, half + 1e-9, step)
        gx, gy = np.meshgrid(g, g)
        return np.column_stack([gx.ravel(), gy.ravel()])

    dxy = grid(config.search_xy_mm, config.search_step_mm)
    fits_all: list[BoardFit] = []
    for seed in seeds:
        per_shape = []
        for bid, mir, lo, pts, nrm, cen in shapes:
            for sc, c, th, xy in _grid_top(ev_coarse, pts - cen, nrm, thetas, seed + dxy, config.coarse_offset_mm,
                                           config.coarse_per_shape, np.radians(config.coarse_min_separation_deg)):
                per_shape.append((sc, bid, mir, lo, pts, nrm, cen, th, xy, float(np.sign(c)) or 1.0))
        # every coarse candidate gets the first finer grid (full-resolution evidence); the best of
        # those get the second grid and the least-squares refinement
        dth = np.radians(config.search_theta_step_deg)
        stage_b = []
        for sc0, bid, mir, lo, pts, nrm, cen, th, xy, sign in per_shape:
            if sc0 < config.min_contrast:
                continue
            th_f = th + np.arange(-4, 4.5) * dth / 4
            sc1, th, xy = _grid_best(ev, pts - cen, nrm, th_f, xy + grid(config.search_step_mm,
                                                                            config.search_step_mm / 3), d, sign)
            stage_b.append((sc1, bid, mir, lo, pts, nrm, cen, th, xy, sign))
        stage_b.sort(key=lambda c: -c[0])
        for _, bid, mir, lo, pts, nrm, cen, th, xy, sign in stage_b[: config.refine_top]:
            th_f = th + np.arange(-4, 4.5) * dth / 16
            _, th, xy = _grid_best(ev, pts - cen, nrm, th_f, xy + grid(config.search_step_mm / 3,
                                                                       config.search_step_mm / 12), d, sign)
            t = xy - _rot(np.array(th)) @ cen
            fit = _refine(ev, bid, mir, lo, th, t, sign, config, bottom_shift)
            if fit is not None:
                fits_all.append(fit)

    ok = [f for f in fits_all if f.chamfer_mm <= config.max_chamfer_mm
          and (f.contrast >= config.min_accept_contrast or f.inside_dimming >= config.min_inside_dimming
               or f.line_strength >= config.min_line_strength)]
    fits: list[BoardFit] = []
    for fit in sorted(ok, key=lambda f: f.chamfer_mm):
        if any(f.id == fit.id for f in fits):
            continue
        poly = Polygon(fit.outline_mm)
        if any(poly.intersection(Polygon(f.outline_mm)).area > config.max_overlap * poly.area for f in fits):
            continue
        fits.append(fit)
    # competing shapes that fit the same region almost as well: the footprint is that uncertain
    out = []
    for fit in fits:
        poly = Polygon(fit.outline_mm)
        alt = 0.0
        for g in ok:
            if g is fit or g.chamfer_mm > fit.chamfer_mm + config.ambiguity_mm:
                continue
            if poly.intersection(Polygon(g.outline_mm)).area < 0.5 * poly.area:
                continue
            alt = max(alt, float(np.mean(distance(Polygon(g.outline_mm).exterior, points(fit.outline_mm)))))
        sigma = min(max(fit.pose_sigma_mm, alt / 2.0), config.max_sigma_mm)
        out.append(replace(fit, pose_sigma_mm=sigma, alternative_mm=alt))
    return out


def _seeds(ratio, printed, origin_mm, s, outlines_mm, config: AcrylicConfig) -> list[np.ndarray]:
    """Candidate board positions: centres of clusters of printed strokes, and centres of the largest
    discs inside the dimmed regions (one per board even where two boards' regions touch, and still
    inside a board cut by the view's edge)."""
    seeds: list[np.ndarray] = []
    if printed is not None and printed.any():
        kc = max(int(round(config.print_cluster_mm / s)) | 1, 3)
        grown = cv2.dilate(printed, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kc, kc)))
        n, lab = cv2.connectedComponents(grown, connectivity=8)
        for i in range(1, n):
            ys, xs = np.nonzero((lab == i) & (printed > 0))
            if len(ys) * s * s < config.print_min_area_mm2:
                continue
            p = np.asarray(origin_mm) + np.array([xs.mean(), ys.mean()]) * s
            seeds.append(p)
    r = np.nan_to_num(ratio, nan=1.0)
    dark = (np.abs(r - 1.0) > 1.0 - config.dark_ratio).astype(np.uint8)
    k = max(int(round(6.0 / s)) | 1, 3)
    dark = cv2.morphologyEx(dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    min_area = min(abs(Polygon(o).area) for o in outlines_mm.values())
    n, lab, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    keep = np.zeros(n, bool)
    keep[1:] = stats[1:, 4] * s * s >= config.min_region_fraction * min_area
    dark = keep[lab].astype(np.uint8)
    dt = cv2.distanceTransform(np.pad(dark, 1), cv2.DIST_L2, 5)[1:-1, 1:-1] * s
    win = max(int(round(config.seed_spacing_mm / s)) | 1, 3)
    peak = (dt >= config.min_seed_radius_mm) & (dt >= cv2.dilate(dt, np.ones((win, win), np.uint8)) - 1e-6)
    ys, xs = np.nonzero(peak)
    seeds = [p for i, p in enumerate(seeds) if all(np.hypot(*(p - q)) >= config.seed_spacing_mm for q in seeds[:i])]
    for i in np.argsort(-dt[ys, xs]):
        p = np.asarray(origin_mm) + np.array([xs[i], ys[i]]) * s
        if all(np.hypot(*(p - q)) >= config.seed_spacing_mm for q in seeds):
            seeds.append(p)
    return seeds


def _grid_top(ev: _Evidence, pts: np.ndarray, nrm: np.ndarray, thetas: np.ndarray, centres: np.ndarray, d: float,
              k: int, min_sep_rad: float) -> list[tuple[float, float, float, np.ndarray]]:
    """The ``k`` best (score, signed step, theta, centre) with rotations at least ``min_sep_rad`` apart."""
    Rs = _rot(thetas)
    P = np.einsum("tij,nj->tni", Rs, pts)[:, None] + centres[None, :, None, :]  # (T, D, n, 2)
    Nn = np.broadcast_to(np.einsum("tij,nj->tni", Rs, nrm)[:, None], P.shape)
    c, ln = ev.outline_terms(P, Nn, d)  # (T, D)
    sc = ev.score(c, ln, 0.0)
    best_d = np.argmax(sc, axis=1)
    ar = np.arange(len(thetas))
    out: list[tuple[float, float, float, np.ndarray]] = []
    for ti in np.argsort(-sc[ar, best_d]):
        th = float(thetas[ti])
        if all(abs((th - o[2] + np.pi) % (2 * np.pi) - np.pi) >= min_sep_rad for o in out):
            out.append((float(sc[ti, best_d[ti]]), float(c[ti, best_d[ti]]), th, centres[best_d[ti]].copy()))
        if len(out) >= k:
            break
    return out


def _grid_best(ev: _Evidence, pts: np.ndarray, nrm: np.ndarray, thetas: np.ndarray, centres: np.ndarray, d: float,
               sign: float) -> tuple[float, float, np.ndarray]:
    """Best (score, theta, centre) over a grid of rotations x centres for one shape of known polarity.

    ``pts``/``nrm`` are the shape's samples relative to its reference point; a pose puts that point on
    ``centre`` after rotating by ``theta``.
    """
    Rs = _rot(thetas)
    P = np.einsum("tij,nj->tni", Rs, pts)[:, None] + centres[None, :, None, :]
    Nn = np.broadcast_to(np.einsum("tij,nj->tni", Rs, nrm)[:, None], P.shape)
    c, ln = ev.outline_terms(P, Nn, d)
    sc = ev.score(c, ln, sign)
    j = int(np.argmax(sc))
    ti, di = divmod(j, centres.shape[0])
    return float(sc[ti, di]), float(thetas[ti]), centres[di].copy()


def _refine(ev: _Evidence, bid, mir, lo, theta, t, sign: float, config: AcrylicConfig,
            bottom_shift=None) -> BoardFit | None:
    """Point-to-edge least squares on (dx, dy, dtheta) from a pose found on the grids."""
    pts, nrm = _resample(lo, config.sample_step_mm / 2.0)
    offs = np.arange(-config.edge_search_mm, config.edge_search_mm + 1e-9, 0.5)
    d = config.contrast_offset_mm
    t = np.asarray(t, dtype=np.float64)
    for _ in range(config.refine_iters):
        R = _rot(np.array(theta))
        P = pts @ R.T + t
        N = nrm @ R.T
        resid, good = _edge_offsets(ev, P, N, offs, sign, config)
        resid = resid - _wall_offset(P, N, bottom_shift)
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
    wall = _wall_offset(P, N, bottom_shift)
    Pw = P + wall[:, None] * N
    c, _ = ev.outline_terms(Pw, N, d)
    contrast = float(sign * c)
    line_strength = 0.0
    if ev.l is not None:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            on = np.nanmean(ev.l(Pw))
            off = 0.5 * (np.nanmean(ev.l(Pw + config.line_off_mm * N)) + np.nanmean(ev.l(Pw - config.line_off_mm * N)))
        line_strength = float(np.nan_to_num(on - off))
    resid, good = _edge_offsets(ev, P, N, offs, sign, config)
    resid = resid - wall
    cap = config.chamfer_cap_mm
    chamfer = float(np.mean(np.where(good, np.minimum(np.abs(resid), cap), cap)))
    inl = good & (np.abs(resid) < cap)
    rms = float(np.sqrt(np.mean(resid[inl] ** 2))) if inl.any() else cap
    n_eff = max(inl.sum() / 4.0, 1.0)
    sigma = float(np.hypot(config.base_sigma_mm, rms / np.sqrt(n_eff) * 3.0))
    support = float(inl.mean())
    sigma = min(sigma / max(min(support / 0.6, 1.0), 0.25), config.max_sigma_mm)
    poly = Polygon(lo).buffer(-config.interior_inset_mm)
    inside_dim = 0.0
    if not poly.is_empty:
        x0, y0, x1, y1 = poly.bounds
        gx, gy = np.meshgrid(np.arange(x0, x1, config.interior_step_mm), np.arange(y0, y1, config.interior_step_mm))
        g = np.column_stack([gx.ravel(), gy.ravel()])
        g = g[contains_xy(poly, g[:, 0], g[:, 1])]
        if len(g):
            v = ev.r(g @ R.T + t)
            if np.isfinite(v).any():
                inside_dim = float(sign * (1.0 - np.nanmedian(v)))
    outline = lo @ R.T + t
    return BoardFit(bid, bool(mir), (float(t[0]), float(t[1])), float(np.degrees(theta) % 360), outline, contrast,
                    rms, sigma, support, chamfer, inside_dim, 0.0, line_strength)


def _wall_offset(P: np.ndarray, N: np.ndarray, bottom_shift) -> np.ndarray:
    """How far outside the top edge the visible edge of the board lies, mm (N,).

    In a view rectified at the board's top face, the bottom edge appears shifted by parallax
    (``bottom_shift(P)``, towards the camera's nadir); where that shift points outwards, the side
    wall is seen and the dimmed region reaches out to the bottom edge.
    """
    if bottom_shift is None:
        return np.zeros(len(P))
    return np.maximum(np.sum(np.asarray(bottom_shift(P)) * N, axis=1), 0.0)


def _edge_offsets(ev: _Evidence, P: np.ndarray, N: np.ndarray, offs: np.ndarray, sign: float,
                  config: AcrylicConfig) -> tuple[np.ndarray, np.ndarray]:
    """Signed offset (mm, along the outward normal) of the strongest edge evidence near each point.

    The response at each offset is the dimming step of the board's polarity plus the weighted
    edge-line strength there.
    """
    d = config.contrast_offset_mm
    q = P[:, None, :] + offs[None, :, None] * N[:, None, :]
    resp = sign * (ev.r(q + d * 0.5 * N[:, None, :]) - ev.r(q - d * 0.5 * N[:, None, :]))
    if ev.l is not None:
        resp = resp + ev.w * ev.l(q)
    resp = np.where(np.isnan(resp), -1.0, resp)
    k = np.argmax(resp, axis=1)
    ar = np.arange(len(P))
    peak = resp[ar, k]
    good = (peak > config.min_contrast) & (k > 0) & (k < len(offs) - 1)
    km = np.clip(k, 1, len(offs) - 2)
    a, c = resp[ar, km - 1], resp[ar, km + 1]
    den = a - 2 * peak + c
    sub = 0.5 * (a - c) / np.where(np.abs(den) > 1e-9, den, np.inf)
    return offs[k] + np.clip(sub, -0.5, 0.5) * (offs[1] - offs[0]), good
