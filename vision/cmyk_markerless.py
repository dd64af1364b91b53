"""Markerless fallback: a table frame for a CMYK! photo from the tile lattice itself.

Without markers the only ruler is the mosaic: equilateral tiles of known edge (45 mm) on one lattice.
1. The mosaic's ink bands are found in the photo (colour reference from the photo's own percentiles).
2. The three edge families are found in image pixels (gradient orientations, mod 180 degrees), and each
   family's line spacing from its ink band's periodicity; an affine map then takes an ideal lattice of
   45 mm tiles onto the photo (the sign choices that keep the view unmirrored).
3. Perspective: the recognizer runs on that pseudo frame, each tile's three edges are re-centred on their
   own ink bands, and a homography from ideal lattice positions to the observed ones is refitted;
   repeated a few times.

The frame it returns is in millimetres with an arbitrary origin and rotation; it is as good as the tiles'
own regularity (see ``tools/eval_cmyk.py --markerless``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations, permutations

import cv2
import numpy as np

from geometry import trilattice as tl
from vision import cmyk_read as rd


@dataclass(frozen=True)
class MarkerlessConfig:
    """Tunables of the markerless frame."""

    #: Tile edge (the lattice's ruler).
    edge_mm: float = 45.0
    #: The photo is searched for the blob and the directions at this scale.
    work_scale: float = 0.5
    #: Percentile taken as paper white (whole photo first, then the blob).
    white_percentile: float = 99.0
    #: Percentile taken as the marks' black ink.
    black_percentile: float = 0.3
    #: Closing kernel (working px) joining the ink pixels into the mosaic's blob.
    close_px: int = 7
    #: Ink components smaller than this (working px) are not the mosaic.
    min_blob_px: int = 300
    #: Bins of the edge-orientation histogram over 180 degrees.
    orientation_bins: int = 180
    #: Candidate edge directions at least this far apart.
    orientation_min_sep_deg: float = 20.0
    #: Edge directions tried (three of them make the lattice).
    orientation_candidates: int = 5
    #: Line spacings (full-resolution px) searched, shortest and longest.
    spacing_px_range: tuple[float, float] = (15.0, 160.0)
    #: Spacing candidates (geometric) in that range.
    spacing_steps: int = 120
    #: A spacing must fit this many times into the mosaic's extent.
    min_periods: float = 2.2
    #: Pixels per ink kept (random subsample) for the periodicity.
    max_ink_points: int = 2500
    #: Three families whose spacings fit one lattice worse than this are rejected.
    max_affine_residual: float = 0.25
    #: Weight of that residual against the bands' concentration when choosing the families.
    residual_weight: float = 2.0
    #: Perspective refinements (read, re-centre the bands, refit the homography).
    refine_iterations: int = 3
    #: Ink-band pixels within this distance of an edge belong to it.
    refine_window_mm: float = 10.0
    #: Refinement stops with fewer read (and band-centred) tiles than this.
    refine_min_tiles: int = 5
    #: A band's extent across its edge: these percentiles of its pixels.
    band_percentile: float = 3.0
    #: The recognizer's search region: the blob's box grown by this.
    search_margin_mm: float = 60.0
    #: Seed of the ink-pixel subsample.
    seed: int = 0
    #: Ink classes for finding the blob without a table frame: stricter than the framed reader's, since
    #: here any ink-like pixel (a warm wood, a tinted cloth) joins the blob.
    ink_min_saturation: float = 0.7
    #: Percentiles bounding the mosaic's extent along a normal.
    extent_percentile: float = 1.0
    #: The longest spacing searched is at least the shortest times this.
    min_spacing_span: float = 1.5
    #: An ink with fewer pixels than this does not vote on a spacing.
    min_points_per_ink: int = 30
    #: Pixels within this many edges of a tile's centroid are its band candidates.
    refine_near_edges: float = 0.75
    #: Band pixels within this many edges of the edge's midpoint, along the edge.
    refine_along_edges: float = 0.3
    #: A band with fewer pixels than this is not used.
    refine_min_band_points: int = 20
    #: Paper white is at least this far (0-255) above black.
    min_white_over_black: float = 20.0
    #: Dilation (working px) of the blob for the orientation histogram.
    orientation_mask_dilate_px: int = 5
    #: Resolution of the top view the bands are measured in.
    refine_mm_per_px: float = 0.5
    #: That view's margin around the read tiles.
    refine_margin_mm: float = 10.0
    #: RANSAC inlier distance (mm) of the refined homography.
    refine_ransac_mm: float = 3.0
    #: A band reaching no further than this (mm) outside its tile's edge is an outer edge's (one-sided).
    outer_edge_tol_mm: float = 1.0
    #: Gaussian smoothing of the orientation histogram: sigma in bins.
    orientation_smooth_bins: float = 2.0
    #: Half-width (bins) of that smoothing kernel.
    orientation_smooth_halfwidth: int = 6


@dataclass(frozen=True)
class ColourRef:
    """A frame colour reference taken from the photo's own percentiles (no markers)."""

    black_rgb: np.ndarray
    white_rgb: np.ndarray


@dataclass(frozen=True)
class LatticeCalibration:
    """A table frame made from the tile lattice: homography table mm (z = tile top) -> image px.

    Quacks like ``TableCalibration`` for the recognizer (``mm_to_px``, ``px_to_mm``, ``colour``,
    ``search_region_mm``).
    """

    H_px_from_mm: np.ndarray
    image_size: tuple[int, int]
    colour: ColourRef
    search_region_mm: tuple[float, float, float, float]
    residual_mm: float = float("nan")
    notes: tuple[str, ...] = field(default_factory=tuple)

    def mm_to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) -> image px (N, 2)."""
        p = np.asarray(xy_mm, np.float64).reshape(-1, 2) @ self.H_px_from_mm[:, :2].T + self.H_px_from_mm[:, 2]
        return p[:, :2] / p[:, 2:3]

    def px_to_mm(self, xy_px: np.ndarray) -> np.ndarray:
        """Image px (N, 2) -> table mm (N, 2)."""
        Hi = np.linalg.inv(self.H_px_from_mm)
        p = np.asarray(xy_px, np.float64).reshape(-1, 2) @ Hi[:, :2].T + Hi[:, 2]
        return p[:, :2] / p[:, 2:3]


def _orientation_peaks(gray: np.ndarray, mask: np.ndarray, config: MarkerlessConfig) -> list[float] | None:
    """Up to ``config.orientation_candidates`` edge directions (radians, 0-pi) of the masked gradients,
    at least ``config.orientation_min_sep_deg`` apart, strongest first; None with fewer than three."""
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    w = (gx * gx + gy * gy) * mask
    ang = (np.degrees(np.arctan2(gy, gx)) % 180.0)
    hist, _ = np.histogram(ang, bins=config.orientation_bins, range=(0, 180), weights=w)
    r = config.orientation_smooth_halfwidth
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / config.orientation_smooth_bins) ** 2)
    sm = np.convolve(np.concatenate([hist[-r:], hist, hist[:r]]), k, mode="same")[r:-r]
    peaks = []
    order = np.argsort(sm)[::-1]
    for b in order:
        a = (b + 0.5) * 180.0 / config.orientation_bins
        if all(min(abs(a - p), 180 - abs(a - p)) >= config.orientation_min_sep_deg for p in peaks):
            peaks.append(a)
        if len(peaks) == config.orientation_candidates:
            break
    return [np.radians(p) for p in peaks] if len(peaks) >= 3 else None


def _periodicity(points: dict[str, np.ndarray], normal: np.ndarray, config: MarkerlessConfig):
    """For one line direction: (spacings (S,), concentration (3 inks, S)) of the ink bands along its normal.

    Spacings are searched up to the mosaic's extent along the normal over ``min_periods`` (longer
    periods fit any compact blob).
    """
    allp = np.concatenate([p for p in points.values() if len(p)])
    s_all = allp @ normal
    lo_pct, hi_pct = np.percentile(s_all, [config.extent_percentile, 100.0 - config.extent_percentile])
    extent = float(hi_pct - lo_pct)
    hi = max(config.spacing_px_range[0] * config.min_spacing_span,
             min(config.spacing_px_range[1], extent / config.min_periods))
    hs = np.geomspace(config.spacing_px_range[0], hi, config.spacing_steps)
    R = np.zeros((3, len(hs)))
    for c, ink in enumerate(rd.INKS):
        p = points[ink]
        if len(p) < config.min_points_per_ink:
            continue
        s = p @ normal
        R[c] = np.abs(np.exp(2j * np.pi * s[None, :] / hs[:, None]).mean(axis=1))
    return hs, R


def _choose_families(points, angles, edge_mm, config: MarkerlessConfig):
    """The three directions, their inks and spacings that best make one affine lattice.

    Returns
    -------
    (A, residual, normals) or None
    """
    normals = [np.array([np.cos(a), np.sin(a)]) for a in angles]
    per = [_periodicity(points, n, config) for n in normals]
    best = None
    for tri in combinations(range(len(angles)), 3):
        for perm in permutations(range(3)):
            idx = [int(np.argmax(per[tri[k]][1][perm[k]])) for k in range(3)]
            conc = sum(per[tri[k]][1][perm[k], idx[k]] for k in range(3))
            spacing = [float(per[tri[k]][0][idx[k]]) for k in range(3)]
            nk = np.array([normals[t] for t in tri])
            aff = _affine(nk, spacing, edge_mm, config)
            if aff is None or aff[1] > config.max_affine_residual:
                continue
            score = conc - config.residual_weight * aff[1]
            if best is None or score > best[0]:
                best = (score, aff[0], aff[1], nk)
    return None if best is None else best[1:]


def _affine(normals: np.ndarray, spacing: list[float], edge_mm: float, config: MarkerlessConfig):
    """2x2 A (image px per lattice mm) with A^T n_k / h_k = +-nu_k / h, unmirrored; and its residual."""
    h = tl.row_height(edge_mm)
    best = None
    for turn in (1, -1):
        nus = [np.array([np.cos(t), np.sin(t)]) for t in (0.0, turn * np.pi / 3, turn * 2 * np.pi / 3)]
        for s1 in (1, -1):
            N = np.stack([normals[0], normals[1]], axis=1)  # columns n0, n1
            rhs = np.stack([nus[0] * spacing[0] / h, s1 * nus[1] * spacing[1] / h], axis=1)
            B = rhs @ np.linalg.inv(N)  # B n_k = rhs_k
            pred = B @ normals[2] * h / spacing[2]
            res = min(np.linalg.norm(pred - nus[2]), np.linalg.norm(pred + nus[2]))
            A = B.T
            if np.linalg.det(A) <= 0:
                continue
            if best is None or res < best[1]:
                best = (A, res)
    return best


def _bands_shift(view_lab: np.ndarray, mpp: float, origin: tuple, frame, cells, rotations, window: float,
                 pct: float, config: MarkerlessConfig) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per tile, (ideal centroid mm, observed centroid mm) from its three bands' own positions."""
    e = frame.edge_mm
    out = []
    ys, xs = np.nonzero(view_lab >= 0)
    pts = np.stack([xs, ys], axis=1) * mpp + np.asarray(origin)
    labs = view_lab[ys, xs]
    lat = frame.from_table(pts)
    for cell, rot in zip(cells, rotations):
        c = np.array(tl.cell_centroid(*cell, e))
        near = np.linalg.norm(lat - c, axis=1) < e * config.refine_near_edges
        rows, rhs = [], []
        for d, dn in enumerate(rd.DIRS):
            a, b = tl.edge_endpoints(*cell, dn, e)
            u = (b - a) / np.linalg.norm(b - a)
            n = np.array([-u[1], u[0]])
            if n @ (c - a) < 0:
                n = -n  # n points into the tile
            sel = near & (labs == rd.INKS.index(rd.ROTATIONS[rot][d]))
            q = lat[sel]
            t = (q - a) @ n
            along = (q - (a + b) / 2) @ u
            ok = (np.abs(t) < window) & (np.abs(along) < e * config.refine_along_edges)
            if ok.sum() < config.refine_min_band_points:
                continue
            lo, hi = np.percentile(t[ok], [pct, 100 - pct])
            inner_only = lo > -config.outer_edge_tol_mm  # an outer edge: the band lies on this tile's side only
            shift = (lo + hi) / 2 if not inner_only else lo
            rows.append(n)
            rhs.append(shift)
        if len(rows) == 3:
            delta, *_ = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)
            ideal = frame.to_table(c[None])[0]
            obs = frame.to_table((c + delta)[None])[0]
            out.append((ideal, obs))
    return out


def lattice_calibration(image_rgb: np.ndarray, detect, config: MarkerlessConfig = MarkerlessConfig()
                        ) -> LatticeCalibration | None:
    """Build a table frame from the mosaic alone.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    detect : callable(image, calibration) -> MosaicDetection or None
        The recognizer (``vision.cmyk.detect_mosaic`` with its config bound), used between refinements.
    config : MarkerlessConfig

    Returns
    -------
    LatticeCalibration or None
        None when no lattice is seen.
    """
    ink_cfg = rd.ReadConfig(ink_min_saturation=config.ink_min_saturation)
    small = cv2.resize(image_rgb, None, fx=config.work_scale, fy=config.work_scale, interpolation=cv2.INTER_AREA)
    blob = _mosaic_blob(image_rgb, small, ink_cfg, config)
    if blob is None:
        return None
    ref = _colour_reference(small, blob, config)
    lab = np.where(blob, _ink_labels(small, ref, ink_cfg), -1)
    ang = _orientation_peaks(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY).astype(np.float32), _edge_mask(blob, config),
                             config)
    if ang is None:
        return None
    pts = _ink_points(lab, config)
    if not any(len(p) for p in pts.values()):
        return None  # no ink classified at all (e.g. a corrupted photo): no lattice to fit
    found = _choose_families(pts, ang, config.edge_mm, config)
    if found is None:
        return None
    blob_px = _blob_extent_px(blob, image_rgb.shape[:2], config)
    cal = _calibration(_initial_homography(found[0], blob, config), float("nan"), image_rgb.shape[:2], ref, blob_px,
                       config)
    for _ in range(config.refine_iterations):
        refit = _refit_homography(image_rgb, cal, detect(image_rgb, cal), ink_cfg, config)
        if refit is None:
            break
        G, resid = refit
        cal = _calibration(cal.H_px_from_mm @ G, resid, image_rgb.shape[:2], ref, blob_px, config)
    return cal


def _mosaic_blob(image_rgb: np.ndarray, small: np.ndarray, ink_cfg: rd.ReadConfig,
                 config: MarkerlessConfig) -> np.ndarray | None:
    """Mask (h, w) of the working-scale photo ``small``: the closed ink-coloured components of at least
    ``config.min_blob_px`` pixels (colours normalised by the whole photo's percentiles); None if none."""
    black = np.percentile(image_rgb.reshape(-1, 3), config.black_percentile, axis=0)
    flat = small.reshape(-1, 3).astype(np.float32)
    lab0 = rd.classify_inks(rd.normalise(flat, black.astype(np.float32),
                                         np.percentile(flat, config.white_percentile, axis=0)), ink_cfg)
    ink = (lab0.reshape(small.shape[:2]) >= 0).astype(np.uint8)
    ink = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((config.close_px, config.close_px), np.uint8))
    n, comp, stats, _ = cv2.connectedComponentsWithStats(ink)
    keep = [c for c in range(1, n) if stats[c, cv2.CC_STAT_AREA] >= config.min_blob_px]
    if not keep:
        return None
    return np.isin(comp, keep)


def _colour_reference(small: np.ndarray, blob: np.ndarray, config: MarkerlessConfig) -> ColourRef:
    """The blob's own percentiles: the marks' black ink and the paper-white grounds."""
    inside = small[blob].astype(np.float32)
    black = np.percentile(inside, config.black_percentile, axis=0)
    white = np.percentile(inside, config.white_percentile, axis=0)
    white = np.maximum(white, black + config.min_white_over_black)
    return ColourRef(black_rgb=black.astype(np.float64), white_rgb=white.astype(np.float64))


def _ink_labels(image_rgb: np.ndarray, ref: ColourRef, ink_cfg: rd.ReadConfig) -> np.ndarray:
    """Ink class per pixel (H, W) (index into ``rd.INKS``, -1 none), colours normalised by ``ref``."""
    return rd.classify_inks(rd.normalise(image_rgb, ref.black_rgb.astype(np.float32),
                                         ref.white_rgb.astype(np.float32)), ink_cfg)


def _edge_mask(blob: np.ndarray, config: MarkerlessConfig) -> np.ndarray:
    """The blob, dilated so that its outer edges count too (float32 0/1, shape of ``blob``)."""
    k = config.orientation_mask_dilate_px
    return cv2.dilate(blob.astype(np.uint8), np.ones((k, k), np.uint8)).astype(np.float32)


def _ink_points(lab: np.ndarray, config: MarkerlessConfig) -> dict[str, np.ndarray]:
    """Per ink, full-resolution pixel positions (N, 2) of its class in ``lab`` (a seeded random subsample
    of at most ``config.max_ink_points``)."""
    rng = np.random.default_rng(config.seed)
    pts = {}
    for c, inkname in enumerate(rd.INKS):
        ys, xs = np.nonzero(lab == c)
        p = np.stack([xs, ys], axis=1).astype(np.float64) / config.work_scale
        if len(p) > config.max_ink_points:
            p = p[rng.choice(len(p), config.max_ink_points, replace=False)]
        pts[inkname] = p
    return pts


def _blob_extent_px(blob: np.ndarray, shape: tuple[int, ...], config: MarkerlessConfig) -> np.ndarray:
    """Corners (4, 2) of the blob's box in full-resolution px, clipped to the photo."""
    hgt, wid = shape[:2]
    ys, xs = np.nonzero(blob)
    bx = np.clip(np.array([xs.min(), xs.max()]) / config.work_scale, 0, wid)
    by = np.clip(np.array([ys.min(), ys.max()]) / config.work_scale, 0, hgt)
    return np.array([[bx[0], by[0]], [bx[1], by[0]], [bx[1], by[1]], [bx[0], by[1]]])


def _initial_homography(A: np.ndarray, blob: np.ndarray, config: MarkerlessConfig) -> np.ndarray:
    """3x3 affine px-from-mm: the lattice map ``A`` with the lattice origin at the blob's centre."""
    ys, xs = np.nonzero(blob)
    H = np.eye(3)
    H[:2, :2] = A
    H[:2, 2] = np.array([xs.mean(), ys.mean()]) / config.work_scale
    return H


def _calibration(H: np.ndarray, resid: float, shape: tuple[int, ...], ref: ColourRef, blob_px: np.ndarray,
                 config: MarkerlessConfig) -> LatticeCalibration:
    """The calibration of homography ``H``; its search region the blob's box (``blob_px``) in mm, grown by
    ``config.search_margin_mm``."""
    hgt, wid = shape[:2]
    cal0 = LatticeCalibration(H_px_from_mm=H, image_size=(wid, hgt), colour=ref,
                              search_region_mm=(0, 0, 1, 1), residual_mm=resid)
    box = cal0.px_to_mm(blob_px)
    m = config.search_margin_mm
    region = (box[:, 0].min() - m, box[:, 1].min() - m, box[:, 0].max() + m, box[:, 1].max() + m)
    return LatticeCalibration(H_px_from_mm=H, image_size=(wid, hgt), colour=ref, search_region_mm=region,
                              residual_mm=resid)


def _refit_homography(image_rgb: np.ndarray, cal: LatticeCalibration, det, ink_cfg: rd.ReadConfig,
                      config: MarkerlessConfig) -> tuple[np.ndarray, float] | None:
    """One perspective refinement: each read tile's edges re-centred on their own ink bands, and the
    homography (3x3, table mm -> corrected table mm) from ideal to observed tile centroids with its RMS
    residual (mm). None with fewer than ``config.refine_min_tiles`` tiles or no fit."""
    if det is None or len(det.state.tiles) < config.refine_min_tiles:
        return None
    mpp = config.refine_mm_per_px
    cells = [t.cell for t in det.state.tiles]
    rots = []
    for t in det.state.tiles:
        inks = tuple(t.edges[d].colour for d in rd.DIRS)
        rots.append(rd.ROTATIONS.index(inks) if inks in rd.ROTATIONS else 0)
    tri = np.concatenate([det.frame.to_table(tl.cell_vertices(*c, det.frame.edge_mm)) for c in cells])
    m = config.refine_margin_mm
    region = (tri[:, 0].min() - m, tri[:, 1].min() - m, tri[:, 0].max() + m, tri[:, 1].max() + m)
    from vision.view import HeightMapping

    view = HeightMapping(cal, 0.0).homography_view(image_rgb, mpp, region)
    vlab = _ink_labels(view, cal.colour, ink_cfg)
    pairs = _bands_shift(vlab, mpp, region[:2], det.frame, cells, rots, config.refine_window_mm,
                         config.band_percentile, config)
    if len(pairs) < config.refine_min_tiles:
        return None
    ideal = np.array([p[0] for p in pairs])
    obs = np.array([p[1] for p in pairs])
    G, _ = cv2.findHomography(ideal.astype(np.float32), obs.astype(np.float32), cv2.RANSAC, config.refine_ransac_mm)
    if G is None:
        return None
    proj = cv2.perspectiveTransform(ideal[None].astype(np.float64), G)[0]
    return G, float(np.sqrt(np.mean(np.sum((proj - obs) ** 2, axis=1))))
