"""CMYK! mosaic recognizer: photo + table calibration -> ``MosaicState`` (every tile, its cell and levels).

Stages (each timed): ``tiles`` (find the mosaic), ``lattice`` (one lattice for all tiles), ``edges``
(which ink on which edge, with the clockwise C-M-Y order), ``marks`` (dot counts and ground colour),
``assign`` (the known tile set, each tile once). Sampling happens at the tiles' top face, 3 mm above
the table, when the calibration can map that height.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from core.timing import StageTimer
from geometry import trilattice as tl
from geometry.mosaic import illegal_contacts
from scoring.cmyk_state import EdgeReading, MosaicState, TileReading
from scoring.flags import Flag
from vision import cmyk_read as rd
from vision.cmyk_lattice import LatticeFitConfig, LatticeFrame, choose_frame, fit_lattice


@dataclass(frozen=True)
class CmykVisionConfig:
    """Tunables of the CMYK! recognizer (mm unless named otherwise)."""

    edge_mm: float = 45.0
    band_mm: float = 6.0
    thickness_mm: float = 3.0
    search_margin_mm: float = 80.0
    coarse_mm_per_px: float = 2.0
    map_grid_mm: float = 5.0
    fine_mm_per_px: float = 0.5
    close_mm: float = 15.0
    region_margin_mm: float = 12.0
    min_ink_share: float = 0.05
    min_tile_area_share: float = 0.2
    sample_step_mm: float = 0.6
    band_inner_mm: float = 0.9
    band_outer_mm: float = 5.4
    ground_clear_mm: float = 2.0
    mark_offsets_mm: tuple[float, ...] = (1.6, 2.2, 2.8, 3.4, 4.0, 4.6)
    mark_half_length_mm: float = 15.0
    mark_rows_averaged: int = 3
    mark_blur_px: float = 1.0
    contact_iterations: int = 2
    purity_good: float = 0.85
    purity_bad: float = 0.5
    purity_global: float = 0.8
    confidence_scale: float = 1.0
    contact_weight: float = 2.0
    mark_step_mm: float = 0.25
    occupancy_min_ink: float = 0.5
    occupancy_min_order_share: float = 0.5
    min_tile_confidence: float = 0.6
    min_edge_confidence: float = 0.7
    ground_disagree_levels: float = 1.3
    ground_summary_share: float = 0.4
    max_vertex_residual_mm: float = 3.0
    marker_black_inset_mm: float = 3.0
    marker_white_out_mm: float = 4.0
    lattice: LatticeFitConfig = field(default_factory=LatticeFitConfig)
    read: rd.ReadConfig = field(default_factory=rd.ReadConfig)


@dataclass(frozen=True)
class MosaicDetection:
    """What the recognizer found in one photo.

    Attributes
    ----------
    state : MosaicState
    frame : LatticeFrame
        The chosen lattice frame in table mm (for overlays and the rules' geometry).
    tile_outlines_px : dict[(int, int), ndarray (3, 2)]
        Image-pixel corners of each tile found.
    """

    state: MosaicState
    frame: LatticeFrame
    tile_outlines_px: dict


class _Mapper:
    """Table mm at a height <-> image px, with whatever the calibration offers."""

    def __init__(self, cal, z_mm: float):
        self.cal = cal
        self.z = z_mm
        self.has_z = hasattr(cal, "mm_to_px_at_height")
        self.grid = None

    def exact_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """The calibration's own mapping (lens and height included when it has them)."""
        if self.has_z:
            return np.asarray(self.cal.mm_to_px_at_height(xy_mm, self.z), np.float64)
        return self.cal.mm_to_px(xy_mm)

    def prepare(self, region: tuple, step_mm: float) -> None:
        """Tabulate the exact mapping over a region; points inside are then interpolated (fast, smooth)."""
        x0, y0, x1, y1 = region
        gx = np.arange(x0, x1 + step_mm, step_mm)
        gy = np.arange(y0, y1 + step_mm, step_mm)
        X, Y = np.meshgrid(gx, gy)
        px = self.exact_px(np.stack([X.ravel(), Y.ravel()], axis=1)).astype(np.float32)
        self.grid = (float(x0), float(y0), float(gx[-1]), float(gy[-1]), step_mm, px.reshape(len(gy), len(gx), 2))

    def to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy_mm, np.float64).reshape(-1, 2)
        if self.grid is None or len(xy) < 64:
            return self.exact_px(xy)
        x0, y0, x1, y1, step, tab = self.grid
        if xy[:, 0].min() < x0 or xy[:, 0].max() > x1 or xy[:, 1].min() < y0 or xy[:, 1].max() > y1:
            return self.exact_px(xy)
        n = len(xy)
        width = 1024
        rows = -(-n // width)
        u = np.zeros(rows * width, np.float32)
        v = np.zeros(rows * width, np.float32)
        u[:n] = (xy[:, 0] - x0) / step
        v[:n] = (xy[:, 1] - y0) / step
        out = cv2.remap(tab, u.reshape(rows, width), v.reshape(rows, width), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
        return out.reshape(-1, 2)[:n].astype(np.float64)

    def rectify(self, image: np.ndarray, mm_per_px: float, region: tuple, grid: int = 9) -> np.ndarray:
        """Top-down view of a table region at the mapper's height; pixel (0, 0) at (x0, y0).

        A homography fitted to ``grid x grid`` mapped points (exact for a plane without lens distortion).
        """
        x0, y0, x1, y1 = region
        w = int(round((x1 - x0) / mm_per_px))
        h = int(round((y1 - y0) / mm_per_px))
        X, Y = np.meshgrid(np.linspace(x0, x1, grid), np.linspace(y0, y1, grid))
        mm = np.stack([X.ravel(), Y.ravel()], axis=1)
        px = self.to_px(mm)
        out = (mm - [x0, y0]) / mm_per_px
        H, _ = cv2.findHomography(out.astype(np.float32), px.astype(np.float32), 0)
        return cv2.warpPerspective(image, H, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)

    def sample(self, image: np.ndarray, xy_mm: np.ndarray) -> np.ndarray:
        """Bilinear colours at table points, shape (N, 3) float32."""
        p = self.to_px(xy_mm).astype(np.float32)
        n = len(p)
        width = 1024
        rows = -(-n // width)
        grid = np.zeros((rows * width, 2), np.float32)
        grid[:n] = p
        grid = grid.reshape(rows, width, 2)
        out = cv2.remap(image, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return out.reshape(-1, 3)[:n].astype(np.float32)


def colour_reference(image: np.ndarray, cal, config: CmykVisionConfig) -> tuple[np.ndarray, np.ndarray]:
    """(black_rgb, white_rgb) of this frame: the calibration's colour reference, else the markers' own."""
    ref = getattr(cal, "colour", None)
    if ref is not None and hasattr(ref, "white_rgb"):
        return np.asarray(ref.black_rgb, np.float64), np.asarray(ref.white_rgb, np.float64)
    from calibration.markers import MarkerLayout

    layout = MarkerLayout.from_components()
    half = layout.side_mm / 2
    blacks, whites = [], []
    t = np.linspace(-1, 1, 40)
    for mid in getattr(cal, "marker_ids", tuple(layout.centres_mm)):
        cx, cy = layout.centres_mm[int(mid)]
        for r, sink in ((half - config.marker_black_inset_mm, blacks), (half + config.marker_white_out_mm, whites)):
            ring = np.concatenate([np.stack([cx + r * t, np.full_like(t, cy - r)], 1),
                                   np.stack([cx + r * t, np.full_like(t, cy + r)], 1),
                                   np.stack([np.full_like(t, cx - r), cy + r * t], 1),
                                   np.stack([np.full_like(t, cx + r), cy + r * t], 1)])
            px = cal.mm_to_px(ring).astype(np.float32)
            vals = cv2.remap(image, px[:, :1], px[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            sink.append(vals.reshape(-1, 3))
    black = np.median(np.concatenate(blacks), axis=0)
    white = np.percentile(np.concatenate(whites), 75, axis=0)
    return black.astype(np.float64), np.maximum(white, black + 20).astype(np.float64)


def _find_mosaic_region(image, mapper, black, white, config) -> tuple[tuple, np.ndarray] | None:
    from calibration.markers import MarkerLayout

    search = getattr(mapper.cal, "search_region_mm", None)
    if search is not None:
        x0, y0, x1, y1 = search
    else:
        cs = np.array(list(MarkerLayout.from_components().centres_mm.values()))
        x0, y0 = cs.min(axis=0) - config.search_margin_mm
        x1, y1 = cs.max(axis=0) + config.search_margin_mm
    mpp = config.coarse_mm_per_px
    view = mapper.rectify(image, mpp, (x0, y0, x1, y1))
    lab = rd.classify_inks(rd.normalise(view, black.astype(np.float32), white.astype(np.float32)), config.read)
    # cyan and magenta bands find the mosaic (every tile has both; yellow-ish wood tables do not)
    ink = ((lab == 0) | (lab == 1)).astype(np.uint8)
    k = max(3, int(round(config.close_mm / mpp)) | 1)
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, comp, stats, _ = cv2.connectedComponentsWithStats(closed)
    keep = []
    for c in range(1, n):
        area = stats[c, cv2.CC_STAT_AREA]
        if area < config.min_tile_area_share * config.edge_mm ** 2 / mpp ** 2:
            continue
        labs = lab[comp == c]
        share = np.bincount(labs[labs >= 0], minlength=3) / max(1, len(labs))
        if share[:2].min() < config.min_ink_share:
            continue
        keep.append(c)
    if not keep:
        return None
    # one mosaic per photo: every tile-like blob belongs to it (a split mosaic stays whole)
    sel = np.isin(comp, keep)
    ys, xs = np.nonzero(sel)
    m = config.region_margin_mm
    region = (x0 + xs.min() * mpp - m, y0 + ys.min() * mpp - m, x0 + (xs.max() + 1) * mpp + m,
              y0 + (ys.max() + 1) * mpp + m)
    centre = np.array([x0 + xs.mean() * mpp, y0 + ys.mean() * mpp])
    return region, centre


def _triangle_samples(edge: float, step: float, band_in: float, band_out: float, band: float, clear: float):
    """Sample points of an up cell relative to its centroid (lattice frame) with their zones.

    Returns
    -------
    band_pts : dict[str, ndarray (N, 2)]
        Band samples per edge direction.
    ground_pts : ndarray (M, 2)
    """
    h = tl.row_height(edge)
    v = tl.cell_vertices(0, 0, edge) - np.array(tl.cell_centroid(0, 0, edge))
    xs = np.arange(-edge / 2, edge / 2 + 1e-9, step)
    ys = np.arange(-h / 3, 2 * h / 3 + 1e-9, step)
    X, Y = np.meshgrid(xs, ys)
    p = np.stack([X.ravel(), Y.ravel()], axis=1)
    pairs = {"H": (0, 1), "P": (0, 2), "N": (1, 2)}
    dist = {}
    for d, (a, b) in pairs.items():
        u = v[b] - v[a]
        n = np.array([-u[1], u[0]]) / np.linalg.norm(u)
        if n @ (-v[a]) < 0:
            n = -n
        dist[d] = (p - v[a]) @ n
    D = np.stack([dist[d] for d in "HPN"], axis=1)
    inside = D.min(axis=1) >= 0
    nearest = np.argmin(D, axis=1)
    dmin = D.min(axis=1)
    band_pts = {}
    for k, d in enumerate("HPN"):
        sel = inside & (nearest == k) & (dmin >= band_in) & (dmin <= band_out)
        second = np.sort(D, axis=1)[:, 1]
        sel &= second > band + 0.8  # keep away from the corners where bands meet
        band_pts[d] = p[sel]
    ground = p[inside & (dmin > band + clear)]
    return band_pts, ground


def _mark_lines(edge: float, offsets: tuple, half: float, step: float):
    """Points along each edge's band midline of an up cell (relative to centroid), shape (3, len(offsets), L, 2)."""
    v = tl.cell_vertices(0, 0, edge) - np.array(tl.cell_centroid(0, 0, edge))
    pairs = {"H": (0, 1), "P": (0, 2), "N": (1, 2)}
    s = np.arange(-half, half + 1e-9, step)
    out = []
    for d in "HPN":
        a, b = pairs[d]
        u = (v[b] - v[a]) / edge
        mid = (v[a] + v[b]) / 2
        inward = -mid / np.linalg.norm(mid)
        out.append([mid + inward * o + s[:, None] * u for o in offsets])
    return np.array(out), s


def detect_mosaic(image_rgb: np.ndarray, calibration, timer: StageTimer | None = None,
                  config: CmykVisionConfig = CmykVisionConfig(), horizontal_deg: float = 0.0) -> MosaicDetection | None:
    """Read every tile of the mosaic in a photo.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration
    timer : StageTimer, optional
    config : CmykVisionConfig
    horizontal_deg : float
        Photo direction taken as the mosaic's horizontal (degrees counter-clockwise from image x).

    Returns
    -------
    MosaicDetection or None
        None when no mosaic is seen.
    """
    timer = timer or StageTimer()
    mapper = _Mapper(calibration, config.thickness_mm)
    flags: list[Flag] = []
    with timer.stage("tiles"):
        black, white = colour_reference(image_rgb, calibration, config)
        found = _find_mosaic_region(image_rgb, mapper, black, white, config)
        if found is None:
            return None
        region, centre = found
    with timer.stage("lattice"):
        pad = config.edge_mm
        mapper.prepare((region[0] - pad, region[1] - pad, region[2] + pad, region[3] + pad), config.map_grid_mm)
        mpp = config.fine_mm_per_px
        view = mapper.rectify(image_rgb, mpp, region)
        norm = rd.normalise(view, black.astype(np.float32), white.astype(np.float32))
        lab = rd.classify_inks(norm, config.read)
        cm = ((lab == 0) | (lab == 1)).astype(np.uint8)
        kk = max(3, int(round(config.close_mm / mpp)) | 1)
        area = cv2.morphologyEx(cm, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kk, kk)))
        area = cv2.dilate(area, np.ones((kk // 2 | 1, kk // 2 | 1), np.uint8)) > 0
        lab = np.where(area, lab, -1)
        masks = {ink: lab == k for k, ink in enumerate(rd.INKS)}
        tile_mask = cv2.dilate((lab >= 0).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        gray = cv2.cvtColor(view, cv2.COLOR_RGB2GRAY).astype(np.float32)
        fit = fit_lattice(masks, gray, tile_mask, mpp, region[:2], config.lattice)
        if fit is None:
            return None
        if fit.vertex_residual_mm > config.max_vertex_residual_mm:
            flags.append(Flag("lattice_inconsistent", f"the tile edges miss a common lattice by "
                              f"{fit.vertex_residual_mm:.1f} mm: cells may be wrong",
                              {"residual_mm": round(fit.vertex_residual_mm, 2)}))

        def image_dir(p, u):
            q = mapper.to_px(np.array([p, p + u * 10.0]))
            return q[1] - q[0]

        frame, warn = choose_frame(fit, config.edge_mm, image_dir, centre, horizontal_deg)
        if warn:
            flags.append(Flag("horizontal_ambiguous", warn))
        # candidate cells covering the region
        corners = np.array([[region[0], region[1]], [region[2], region[1]], [region[2], region[3]],
                            [region[0], region[3]]])
        lc = frame.from_table(corners)
        e, hh = config.edge_mm, tl.row_height(config.edge_mm)
        jr = range(int(np.floor(lc[:, 1].min() / hh)) - 1, int(np.ceil(lc[:, 1].max() / hh)) + 1)
        ir = range(int(np.floor(lc[:, 0].min() / (e / 2))) - 1, int(np.ceil(lc[:, 0].max() / (e / 2))) + 2)
        cands = []
        for j in jr:
            for i in ir:
                c = frame.to_table(np.array([tl.cell_centroid(i, j, e)]))[0]
                if region[0] <= c[0] <= region[2] and region[1] <= c[1] <= region[3]:
                    cands.append((i, j))
    with timer.stage("edges"):
        band_t, ground_t = _triangle_samples(e, config.sample_step_mm, config.band_inner_mm, config.band_outer_mm,
                                             config.band_mm, config.ground_clear_mm)
        nb = [len(band_t[d]) for d in "HPN"]
        local_up = np.concatenate([band_t["H"], band_t["P"], band_t["N"], ground_t])
        pts = []
        for (i, j) in cands:
            c = np.array(tl.cell_centroid(i, j, e))
            sgn = 1.0 if tl.is_up(i, j) else -1.0
            pts.append(c + sgn * local_up)
        pts = np.concatenate(pts)
        cols = mapper.sample(image_rgb, frame.to_table(pts)).reshape(len(cands), len(local_up), 3)
        ncol = rd.normalise(cols, black.astype(np.float32), white.astype(np.float32))
        labs = rd.classify_inks(ncol, config.read)
        o = np.cumsum([0] + nb)
        band_lab = [labs[:, o[k]:o[k + 1]] for k in range(3)]
        ink_frac = np.mean(np.concatenate(band_lab, axis=1) >= 0, axis=1)
        # a tile shows the three inks in one of the clockwise orders (a yellowish table shows one ink)
        all_counts = np.stack([np.stack([np.bincount(band_lab[d][k][band_lab[d][k] >= 0], minlength=3)
                                         for d in range(3)]) for k in range(len(cands))])
        order_share = np.array([max(np.mean([all_counts[k, d, rd.INKS.index(rot[d])] / max(1, nb[d])
                                             for d in range(3)]) for rot in rd.ROTATIONS)
                                for k in range(len(cands))])
        occ = [k for k in range(len(cands)) if ink_frac[k] >= config.occupancy_min_ink
               and order_share[k] >= config.occupancy_min_order_share]
        if not occ:
            return None
        cells = [cands[k] for k in occ]
        counts = np.stack([np.stack([np.bincount(band_lab[d][k][band_lab[d][k] >= 0], minlength=3)
                                     for d in range(3)]) for k in occ])  # (T, 3 dirs, 3 inks)
        rot_ll = np.array([rd.rotation_loglik(c) for c in counts])
        rots = np.argmax(rot_ll, axis=1)
        # registration: share of each band's samples in the ink the rotation gives it (misplaced
        # sampling, e.g. from an unmodelled lens, mixes neighbouring bands and ground in)
        purity = np.array([np.mean([counts[t, d, rd.INKS.index(rd.ROTATIONS[rots[t]][d])] / max(1, nb[d])
                                    for d in range(3)]) for t in range(len(occ))])
    with timer.stage("marks"):
        lines, s = _mark_lines(e, config.mark_offsets_mm, config.mark_half_length_mm, config.mark_step_mm)
        mpts = []
        for (i, j) in cells:
            c = np.array(tl.cell_centroid(i, j, e))
            sgn = 1.0 if tl.is_up(i, j) else -1.0
            mpts.append(c + sgn * lines.reshape(-1, 2))
        mcols = mapper.sample(image_rgb, frame.to_table(np.concatenate(mpts)))
        mcols = mcols.reshape(len(cells), 3, len(config.mark_offsets_mm), len(s), 3)
        lum_o = mcols.mean(axis=4)  # (T, 3, O, L): one profile per offset across the band
        band_lum = np.percentile(lum_o, 80, axis=(2, 3), keepdims=True)
        dark_o = 1.0 - lum_o / np.maximum(band_lum, 1.0)
        # the marks' row: the window of offsets with the most darkness (absorbs ~1-2 mm misregistration)
        energy = np.clip(dark_o, 0, None).sum(axis=3)  # (T, 3, O)
        win = config.mark_rows_averaged
        csum = np.stack([energy[..., i:i + win].sum(axis=2) for i in range(energy.shape[2] - win + 1)], axis=2)
        start = np.argmax(csum, axis=2)  # (T, 3)
        idx = start[..., None] + np.arange(win)
        dark = np.take_along_axis(dark_o, idx[..., None], axis=2).mean(axis=2)  # (T, 3, L)
        px_per_mm = float(np.linalg.norm(image_dir(centre, np.array([1.0, 0.0])))) / 10.0
        templates, _ = rd.mark_templates(s, config.mark_blur_px / max(px_per_mm, 0.3), config.read)
        mll, mamp = rd.mark_loglik(dark.reshape(-1, len(s)), templates, config.read)
        mll = mll.reshape(len(cells), 3, 7)
        mamp = mamp.reshape(len(cells), 3, 6)
        black_lin = rd.srgb_to_linear(black / 255.0)
        evidence = []
        for t, k in enumerate(occ):
            rot = rd.ROTATIONS[rots[t]]
            band_lin = np.stack([np.median(rd.srgb_to_linear(cols[k, o[d]:o[d + 1]] / 255.0), axis=0)
                                 for d in range(3)])
            ground_lin = rd.srgb_to_linear(cols[k, o[3]:] / 255.0)
            inks = np.array([rd.INKS.index(rot[d]) for d in range(3)])
            gest, dark_lum = rd.ground_levels(ground_lin, band_lin, inks, black_lin)
            p = rd.posterior(rot_ll[t])
            evidence.append(rd.TileEvidence(rotation=int(rots[t]), rotation_confidence=float(p[rots[t]]),
                                            ground_est=gest, mark_ll=mll[t], mark_amp=mamp[t],
                                            dark_luminance=dark_lum))
    with timer.stage("assign"):
        bias, gsigma, nres = rd.calibrate_ground(evidence, config.read)
        evidence = [rd.TileEvidence(ev.rotation, ev.rotation_confidence, ev.ground_est - bias, ev.mark_ll,
                                    ev.mark_amp, ev.dark_luminance) for ev in evidence]
        own_scores, columns = rd.score_matrix(evidence, config.read, gsigma)
        chosen = rd.assign(own_scores)
        scores = own_scores
        for _ in range(config.contact_iterations):
            bonus = rd.contact_bonus(cells, [ev.rotation for ev in evidence], chosen, columns,
                                     config.contact_weight, lambda c, d: tl.neighbour(*c, d))
            scores = own_scores + bonus
            chosen = rd.assign(scores)
        tiles, outlines = [], {}
        for t, cell in enumerate(cells):
            ev = evidence[t]
            rot = rd.ROTATIONS[ev.rotation]
            post = rd.posterior(scores[t])
            col = int(chosen[t])
            own_best = int(np.argmax(scores[t]))
            if col < 0:
                col = own_best
                flags.append(Flag("tile_unassigned", f"tile at {list(cell)} matches no tile left in the set",
                                  {"cells": [list(cell)]}))
            kind = "k" if columns[col] == "k" else "normal"
            tile_conf = float(post[col] if columns[col] != "k" else post[-2:].sum())
            reg = float(np.clip((purity[t] - config.purity_bad) / (config.purity_good - config.purity_bad), 0, 1))
            tile_conf *= reg * config.confidence_scale
            edges = {}
            for d, dn in enumerate(rd.DIRS):
                ink = rot[d]
                ci = rd.INKS.index(ink)
                if kind == "k":
                    edges[dn] = EdgeReading(ink, None, round(ev.rotation_confidence, 3))
                    continue
                lv = columns[col][ci]
                lv_post = sum(post[c] for c, ty in enumerate(columns) if ty != "k" and ty[ci] == lv)
                edges[dn] = EdgeReading(ink, int(lv), round(float(min(lv_post, ev.rotation_confidence)), 3))
            tiles.append(TileReading(cell=cell, kind=kind, edges=edges, confidence=round(tile_conf, 3)))
            if own_best != col and columns[own_best] != columns[col]:
                flags.append(Flag("tile_set_conflict",
                                  f"tile at {list(cell)} looks most like {_name(columns[own_best])} but that tile "
                                  f"is taken by another reading; read as {_name(columns[col])}",
                                  {"cells": [list(cell)]}))
            elif tile_conf < config.min_tile_confidence:
                flags.append(Flag("tile_doubtful", f"tile at {list(cell)} read as {_name(columns[col])} with "
                                  f"confidence {tile_conf:.2f}", {"cells": [list(cell)]}))
            if kind == "normal":
                lv3 = np.array(columns[col], float)
                gap = np.abs(ev.ground_est - lv3).max()
                mark_best = [int(np.argmax(ev.mark_ll[d, :6])) for d in range(3)]
                mark_cmy = [mark_best[rot.index(ink)] for ink in rd.INKS]
                if gap > config.ground_disagree_levels and tuple(mark_cmy) == tuple(columns[col]):
                    flags.append(Flag("marks_vs_ground", f"tile at {list(cell)}: marks read {tuple(mark_cmy)} but "
                                      f"the ground colour looks like {tuple(np.round(ev.ground_est, 1))}",
                                      {"cells": [list(cell)]}))
            if ev.rotation_confidence < config.min_edge_confidence:
                flags.append(Flag("edge_colours_doubtful", f"tile at {list(cell)}: the edge inks do not clearly "
                                  "follow the clockwise cyan-magenta-yellow order", {"cells": [list(cell)]}))
            verts = frame.to_table(tl.cell_vertices(*cell, e))
            outlines[cell] = mapper.to_px(verts)
        if np.median(purity) < config.purity_global:
            flags.append(Flag("registration_poor", f"the tiles' ink bands sit off the expected places (median purity "
                              f"{np.median(purity):.2f}): lens distortion or a bad table frame; readings unreliable",
                              {"cells": [], "median_purity": round(float(np.median(purity)), 3)}))
        mvg = [f for f in flags if f.code == "marks_vs_ground"]
        if len(mvg) > config.ground_summary_share * len(tiles):
            flags = [f for f in flags if f.code != "marks_vs_ground"]
            flags.append(Flag("ground_colours_unreliable", f"the ground colours of {len(mvg)} of {len(tiles)} tiles "
                              "disagree with their marks (colour cast or uneven light): levels rest on the marks",
                              {"cells": []}))
        flags.extend(_contact_flags(tiles, config))
    return MosaicDetection(state=MosaicState(tiles=tuple(tiles), flags=tuple(flags)), frame=frame,
                           tile_outlines_px=outlines)


def _name(t) -> str:
    return "a K tile" if t == "k" else f"C{t[0]} M{t[1]} Y{t[2]}"


def _contact_flags(tiles: list[TileReading], config: CmykVisionConfig) -> list[Flag]:
    """Touching edges that disagree (the rules' illegal-contact test, ``geometry.mosaic.illegal_contacts``) while
    one side is unsure: the contact itself is in doubt."""
    by_cell = {t.cell: t for t in tiles}
    illegal = {(c.cells[0], c.direction) for c in illegal_contacts(
        {t.cell: {d: (e.colour, e.level) for d, e in t.edges.items()} for t in tiles})}
    out = []
    for t in tiles:
        for d, e in t.edges.items():
            nb = by_cell.get(tl.neighbour(*t.cell, d))
            if nb is None or nb.cell < t.cell:
                continue
            f = nb.edges.get(d)
            unsure = f is not None and min(e.confidence, f.confidence) < config.min_edge_confidence
            if unsure and (t.cell, d) in illegal:
                msg = f"tiles {list(t.cell)} and {list(nb.cell)} disagree on their shared {d} edge, one reading unsure"
                out.append(Flag("contact_doubtful", msg, {"cells": [list(t.cell), list(nb.cell)]}))
    return out
