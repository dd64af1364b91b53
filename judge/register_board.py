"""Register a user's own clear acrylic board outline from one photo of it alone on the mat.

The board (3 mm clear acrylic, lying flat on the navy Carrotain mat, no chips) dims and tints the
mat under it and carries thin white print. The photo is resampled top-down on the plane of the
board's top face, levels are normalised by the frame's colour reference, and the board evidence of
``vision.acrylic.board_maps`` (dimming relative to the bare mat, print strokes) is thresholded into
one region whose outer contour, simplified and resampled, is the board's outline in its own frame
(table-mm orientation as laid, centred on the area centroid). Anything unclear (no region, several
similar regions, a region cut by the view's edge, the markers or the lens' range) is refused with
``ValueError`` rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from shapely.geometry import Polygon

from calibration.markers import MarkerLayout
from calibration.profile import CalibrationProfile
from vision.acrylic import AcrylicConfig, board_maps
from vision.carrotain_view import colour_reference, top_view


@dataclass(frozen=True)
class RegisterBoardConfig:
    """Tunables of the board registration (lengths in mm, levels relative to the bare mat).

    Attributes
    ----------
    region_mm : (x0, y0, x1, y1)
        Table area searched (the mat).
    mm_per_px : float
        Top-view resolution.
    z_top_mm : float
        Height of the board's top face (a 3 mm board lying on the mat).
    border_mm : float
        Strip along the region's edge left out (the mat's own edge, where the table shows).
    marker_margin_mm : float
        Half side of the square around each marker centre left out of the search.
    speck_mm : float
        Bright things narrower than this (print, star specks, glints) are opened away first.
    level_floor : float
        Normalised levels are floored here before the log (the navy mat is near black).
    fit_iterations, fit_reject_mad : int, float
        Robust quadratic fit of the bare mat's log level: rounds, and residual rejection in MADs.
    smooth_mm : float
        First pass: smoothing of the level deviation map.
    min_log_step : float
        First pass: a pixel whose smoothed ``|log(level / bare-mat level)|`` exceeds this counts as under
        acrylic; the board's inside must differ at least this much.
    min_inside_step : float
        Second pass: smallest accepted ``|log(inside level / level around)|``.
    edge_smooth_mm : float
        Second pass: smoothing of the level map before the half-way threshold.
    open_mm, close_mm : float
        Opening (drops specks) and closing (bridges the print and small gaps) of the board mask.
    min_area_mm2 : float
        Smallest region accepted as a board.
    split_fraction, split_rounds : float, int
        The first pass is re-thresholded at this fraction of the most distinct region's deviation
        (up to this many times, while the threshold rises).
    similar_area_fraction, similar_contrast_fraction : float
        A second region with at least these fractions of the chosen one's area and deviation makes
        the photo ambiguous.
    edge_margin_mm : float
        A region within this distance of the view's edge, of a marker square or of the area outside
        the photo is cut off: refused.
    mat_iterations : int
        Re-estimates of the bare mat around the candidate region.
    mat_exclude_mm, mat_grid_mm, mat_smooth_mm : float
        The re-estimate leaves out this much around the candidate, works on a grid this coarse and
        smooths (normalised Gaussian) this much.
    outline_open_mm : float
        Second pass: opening of the outline mask (drops spurs of mat texture narrower than this;
        rounds corners sharper than half of it).
    band_mm, ring_gap_mm : float
        Second pass: the outline is re-thresholded within ``band_mm`` of the first-pass region; the
        mat level around it is measured between ``ring_gap_mm`` and ``band_mm`` outside it.
    inset_mm : float
        The inside level is measured this far inside the first-pass region.
    simplify_mm : float
        ``cv2.approxPolyDP`` tolerance of the first simplification.
    n_points : int
        Points of the returned outline.
    acrylic : AcrylicConfig
        Settings of the shared board evidence maps (the print strokes are taken from them).
    """

    region_mm: tuple[float, float, float, float] = (-20.0, 0.0, 580.0, 420.0)
    mm_per_px: float = 0.5
    z_top_mm: float = 3.0
    border_mm: float = 10.0
    marker_margin_mm: float = 40.0
    speck_mm: float = 5.0
    level_floor: float = 0.01
    fit_iterations: int = 4
    fit_reject_mad: float = 3.0
    smooth_mm: float = 1.5
    min_log_step: float = 0.15
    min_inside_step: float = 0.05
    edge_smooth_mm: float = 0.5
    open_mm: float = 2.0
    close_mm: float = 8.0
    min_area_mm2: float = 3000.0
    split_fraction: float = 0.5
    split_rounds: int = 3
    similar_area_fraction: float = 0.3
    similar_contrast_fraction: float = 0.6
    ring_gap_mm: float = 3.0
    edge_margin_mm: float = 2.0
    mat_iterations: int = 2
    mat_exclude_mm: float = 8.0
    mat_grid_mm: float = 2.0
    mat_smooth_mm: float = 25.0
    outline_open_mm: float = 3.0
    band_mm: float = 6.0
    inset_mm: float = 6.0
    simplify_mm: float = 0.5
    n_points: int = 48
    acrylic: AcrylicConfig = field(default_factory=AcrylicConfig)


def _odd_px(mm: float, mm_per_px: float) -> int:
    return max(int(round(mm / mm_per_px)) | 1, 3)


def _disc(mm: float, mm_per_px: float) -> np.ndarray:
    k = _odd_px(mm, mm_per_px)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    """Mask (h, w) uint8 0/1 with every hole (background not connected to the border) filled."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, 1, thickness=cv2.FILLED)
    return out


def _components(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels (h, w) and pixel areas (n,) of the 8-connected components (background excluded)."""
    n, lab, st, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return lab, st[1:, cv2.CC_STAT_AREA]


def _resample_keep_corners(poly: np.ndarray, n_points: int) -> np.ndarray:
    """A closed polygon (M, 2) with M <= n_points as n_points points: every vertex kept, the
    remaining points spread along the edges in proportion to their length."""
    m = len(poly)
    seg = np.roll(poly, -1, axis=0) - poly
    length = np.hypot(seg[:, 0], seg[:, 1])
    extra = n_points - m
    share = length / max(length.sum(), 1e-12) * extra
    k = np.floor(share).astype(int)
    rest = extra - int(k.sum())
    k[np.argsort(-(share - k))[:rest]] += 1
    out = []
    for i in range(m):
        t = np.arange(k[i] + 1) / (k[i] + 1)
        out.append(poly[i] + t[:, None] * seg[i])
    return np.concatenate(out, axis=0)


def _simplify(contour_mm: np.ndarray, config: RegisterBoardConfig) -> np.ndarray:
    """Douglas-Peucker at ``simplify_mm`` (raised until at most ``n_points`` vertices remain), then
    resampled to exactly ``n_points`` points with the corners kept."""
    eps = config.simplify_mm
    c = contour_mm.astype(np.float32).reshape(-1, 1, 2)
    while True:
        poly = cv2.approxPolyDP(c, eps, True).reshape(-1, 2).astype(np.float64)
        if len(poly) <= config.n_points:
            break
        eps *= 1.25
    return _resample_keep_corners(poly, config.n_points)


def _centre_on_centroid(poly: np.ndarray) -> np.ndarray:
    """Polygon (N, 2) moved so that its area centroid is the origin, wound with positive shoelace
    area in the x-right/y-down table frame (the winding of ``components/default.json``)."""
    x, y = poly[:, 0], poly[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    a = 0.5 * cross.sum()
    cx = ((x + xn) * cross).sum() / (6.0 * a)
    cy = ((y + yn) * cross).sum() / (6.0 * a)
    out = poly - [cx, cy]
    return out if a > 0 else out[::-1].copy()


def _robust_quadratic(log_level: np.ndarray, valid: np.ndarray, config: RegisterBoardConfig) -> np.ndarray:
    """A quadratic surface (h, w) fitted to the valid log levels with outliers (the board) rejected."""
    s = config.mm_per_px
    f = s / config.mat_grid_mm
    small = cv2.resize(log_level.astype(np.float32), None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    ok = cv2.resize((valid > 0).astype(np.float32), None, fx=f, fy=f, interpolation=cv2.INTER_AREA) > 0.999
    hs, ws = small.shape
    u, v = np.meshgrid(np.linspace(-1, 1, ws), np.linspace(-1, 1, hs))
    A = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=-1)
    keep = ok.copy()
    coef: np.ndarray = np.zeros(6)
    for _ in range(config.fit_iterations):
        if keep.sum() < 6:
            break
        coef, *_ = np.linalg.lstsq(A[keep], small[keep], rcond=None)
        res = small - A @ coef
        mad = float(np.median(np.abs(res[keep]))) + 1e-6
        keep = ok & (np.abs(res) < config.fit_reject_mad * mad)
    h, w = log_level.shape
    U, V = np.meshgrid(np.linspace(-1, 1, w), np.linspace(-1, 1, h))
    return (coef[0] + coef[1] * U + coef[2] * V + coef[3] * U * U + coef[4] * U * V + coef[5] * V * V).astype(
        np.float32)


def _mat_surface(log_ratio: np.ndarray, region: np.ndarray, printed: np.ndarray, valid: np.ndarray,
                 config: RegisterBoardConfig) -> np.ndarray:
    """Smooth estimate of the bare mat's log level (h, w) from the pixels away from a candidate board
    region, interpolated under it (normalised Gaussian convolution on a coarse grid)."""
    s = config.mm_per_px
    keep = (valid > 0) & (printed == 0) & (cv2.dilate(region, _disc(2 * config.mat_exclude_mm, s)) == 0)
    f = s / config.mat_grid_mm
    w = cv2.resize(keep.astype(np.float32), None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    v = cv2.resize(np.where(keep, log_ratio, 0.0).astype(np.float32), None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    sig = config.mat_smooth_mm / config.mat_grid_mm
    num = cv2.GaussianBlur(v, (0, 0), sig)
    den = cv2.GaussianBlur(w, (0, 0), sig)
    surf = num / np.maximum(den, 1e-6)
    return cv2.resize(surf, (log_ratio.shape[1], log_ratio.shape[0]), interpolation=cv2.INTER_LINEAR)


def _pick_region(dev: np.ndarray, printed: np.ndarray, valid: np.ndarray, config: RegisterBoardConfig,
                 check_rivals: bool = True) -> np.ndarray:
    """The one board-like region of a level-deviation map (first pass).

    Parameters
    ----------
    dev : ndarray, shape (h, w), float
        Smoothed ``|log(level / bare-mat level)|``.
    printed, valid : ndarray, shape (h, w), uint8
        Print strokes; usable pixels.
    check_rivals : bool
        Refuse a second region about as large and as contrasted.

    Returns
    -------
    ndarray, shape (h, w), uint8
        1 on the region (holes filled).

    Raises
    ------
    ValueError
        No region large enough, or a second region about as large and as contrasted.
    """
    s = config.mm_per_px
    px_area = s * s

    def regions(threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        mask: np.ndarray = (((dev > threshold) | (printed > 0)) & (valid > 0)).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _disc(config.open_mm, s))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _disc(config.close_mm, s))
        lab, areas = _components(_fill_holes(mask))
        plain = (printed == 0).ravel()
        contrast = np.array([np.median(dev.ravel()[(lab.ravel() == k + 1) & plain] if np.any(
            (lab.ravel() == k + 1) & plain) else [0.0]) for k in range(len(areas))])
        return lab, areas * px_area, contrast

    lab, areas, contrast = regions(config.min_log_step)
    big = np.flatnonzero(areas >= config.min_area_mm2)
    if len(big) == 0:
        biggest = float(areas.max()) if len(areas) else 0.0
        raise ValueError(f"register_board: no board found on the mat (largest region differing from the mat "
                         f"{biggest:.0f} mm^2, need {config.min_area_mm2:.0f} mm^2); lay one clear board on the "
                         f"mat, away from the markers")
    best = big[np.argmax(contrast[big] * areas[big])]  # most deviation in all (area x median)
    # sharpen: regions standing out at least half as much as the best one (splits it from weak
    # light gradients it may touch)
    threshold = config.min_log_step
    for _ in range(config.split_rounds):
        new_threshold = max(config.min_log_step, config.split_fraction * float(contrast[best]))
        if new_threshold <= threshold * 1.05:
            break
        threshold = new_threshold
        seed = lab == best + 1
        lab, areas, contrast = regions(threshold)
        overlap = np.bincount(lab[seed], minlength=len(areas) + 1)[1:]
        if overlap.size == 0 or overlap.max() == 0:
            raise ValueError("register_board: the board's region could not be isolated")
        best = int(np.argmax(overlap))
        if areas[best] < config.min_area_mm2:
            raise ValueError(f"register_board: no board found on the mat (the most distinct region is "
                             f"{areas[best]:.0f} mm^2, need {config.min_area_mm2:.0f} mm^2)")
    if not check_rivals:
        return (lab == best + 1).astype(np.uint8)
    rivals = [k for k in range(len(areas)) if k != best and areas[k] >= config.similar_area_fraction * areas[best]
              and contrast[k] >= config.similar_contrast_fraction * contrast[best]]
    if rivals:
        k = max(rivals, key=lambda i: areas[i])
        raise ValueError(f"register_board: several board-like regions ({areas[best]:.0f} and {areas[k]:.0f} mm^2); "
                         f"photograph one board alone on the mat")
    return (lab == best + 1).astype(np.uint8)


def register_board(image_rgb: np.ndarray, calibration, config: RegisterBoardConfig = RegisterBoardConfig(),
                   layout: MarkerLayout | None = None) -> np.ndarray:
    """The outline of the one clear board lying alone on the mat in a photo.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
        The board alone on the mat (no chips), the four markers visible.
    calibration : calibration.table.TableCalibration
        From ``calibrate_from_markers`` on this photo.
    config : RegisterBoardConfig
    layout : MarkerLayout, optional
        Marker layout (its squares are left out); defaults to ``components/default.json``'s.

    Returns
    -------
    ndarray, shape (config.n_points, 2), float64, mm
        The outline in the board's own frame: table-mm orientation as laid, centred on its area
        centroid, wound like the default outlines.

    Raises
    ------
    ValueError
        No board-like region, several similar regions, the region cut off by the view's edge
        (or a marker, or the photo's edge), or the board hardly dimming the mat.
    """
    s = config.mm_per_px
    layout = layout or MarkerLayout.from_components()
    tv = top_view(calibration, image_rgb, config.region_mm, s, config.z_top_mm)
    ref = colour_reference(calibration, image_rgb, layout)
    level = ref.normalise(tv.image).mean(axis=2).astype(np.float32)
    # usable area: inside the photo, away from the markers; its complement (grown) is "the edge"
    valid = tv.image.reshape(-1, tv.image.shape[-1]).any(axis=1).reshape(level.shape).astype(np.uint8)
    x0, y0 = config.region_mm[:2]
    m = config.marker_margin_mm
    for cx, cy in layout.centres_mm.values():
        c0, r0 = int(np.floor((cx - m - x0) / s)), int(np.floor((cy - m - y0) / s))
        c1, r1 = int(np.ceil((cx + m - x0) / s)), int(np.ceil((cy + m - y0) / s))
        valid[max(r0, 0):max(r1, 0), max(c0, 0):max(c1, 0)] = 0
    b = max(int(round(config.border_mm / s)), 1)
    valid[:b, :] = 0
    valid[-b:, :] = 0
    valid[:, :b] = 0
    valid[:, -b:] = 0
    if valid.sum() == 0:
        raise ValueError("register_board: the mat region is not in the photo")
    level = np.where(valid > 0, level, float(np.median(level[valid > 0])))
    ratio, _line, printed = board_maps(level, s, config.acrylic)

    # first pass: pixels whose level differs from the bare mat's (a clear board may dim the navy
    # mat or, lit from above, look lighter than it) or printed, cleaned, holes filled. Small bright
    # things (print, star specks, edge glints) are opened away; the bare mat is first a robust
    # quadratic surface (the light varies smoothly; the board is a minority of the mat)
    opened = cv2.morphologyEx(level, cv2.MORPH_OPEN, _disc(config.speck_mm, s))
    log_level = np.log(np.maximum(opened, config.level_floor))
    log_ratio = log_level - _robust_quadratic(log_level, valid, config)
    dev = cv2.GaussianBlur(np.abs(log_ratio), (0, 0), config.smooth_mm / s)
    region = _pick_region(dev, printed, valid, config, check_rivals=True)
    # the bare-mat estimate again, as a smooth surface through the mat around the candidate (uneven
    # light, or a board covering much of the mode window, leave the first estimate off), then again
    for _ in range(config.mat_iterations):
        log_ratio = log_ratio - _mat_surface(log_ratio, region, printed, valid, config)
        dev = cv2.GaussianBlur(np.abs(log_ratio), (0, 0), config.smooth_mm / s)
        region = _pick_region(dev, printed, valid, config, check_rivals=False)
    region = _pick_region(dev, printed, valid, config, check_rivals=True)

    # second pass: threshold half-way (in log level) between the board's inside and the mat just
    # around it, near the first-pass outline only (unbiased edge whatever the contrast, and robust
    # to the bare-mat estimate being off under uneven light)
    # (the edge is traced on the shared dimming map, print and specks painted out, its bare-mat
    # level re-estimated around the region)
    log_edge = np.log(np.maximum(ratio, 1e-3))
    log_edge = log_edge - _mat_surface(log_edge, region, printed, valid, config)
    log_r = cv2.GaussianBlur(log_edge, (0, 0), config.edge_smooth_mm / s)
    inner = cv2.erode(region, _disc(2 * config.inset_mm, s)) & (printed == 0)
    if inner.sum() == 0:
        inner = region
    band = cv2.dilate(region, _disc(2 * config.band_mm, s))
    ring = (band > 0) & (cv2.dilate(region, _disc(2 * config.ring_gap_mm, s)) == 0) & (valid > 0) & (printed == 0)
    log_in = float(np.median(log_r[inner > 0]))
    log_out = float(np.median(log_r[ring])) if ring.any() else 0.0
    if abs(log_in - log_out) < config.min_inside_step:
        raise ValueError(f"register_board: the region hardly differs from the mat around it (level ratio "
                         f"{np.exp(log_in - log_out):.3f}); is it a clear board on the navy mat?")
    half = 0.5 * (log_in + log_out)
    beyond = log_r < half if log_in < log_out else log_r > half
    fine = ((beyond | (printed > 0)) & (band > 0) & (valid > 0)).astype(np.uint8)
    fine = cv2.morphologyEx(fine, cv2.MORPH_CLOSE, _disc(config.close_mm, s))
    fine = cv2.morphologyEx(_fill_holes(fine), cv2.MORPH_OPEN, _disc(config.outline_open_mm, s))
    lab2, areas2 = _components(fine)
    if len(areas2) == 0:
        raise ValueError("register_board: the board's outline could not be traced")
    fine = (lab2 == int(np.argmax(areas2)) + 1).astype(np.uint8)
    edge = cv2.dilate((valid == 0).astype(np.uint8), _disc(2 * config.edge_margin_mm, s))
    if np.any(fine & edge):
        raise ValueError("register_board: the board touches the edge of the view (or a marker, or the photo's "
                         "edge); move it fully onto the mat, clear of the markers")

    contours, _ = cv2.findContours(fine, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour_px = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    # the contour runs through the boundary pixels' centres: the mask's edge is half a pixel further out
    grown = Polygon(contour_px).buffer(0.5, join_style="mitre")
    if grown.geom_type != "Polygon":
        grown = max(grown.geoms, key=lambda g: g.area)
    contour_px = np.asarray(grown.exterior.coords)[:-1]
    contour_mm = np.asarray(tv.origin_mm) + contour_px * s
    return _centre_on_centroid(_simplify(contour_mm, config))


def register_board_into_profile(board_id: str, image_rgb: np.ndarray, calibration,
                                profile: CalibrationProfile | None = None,
                                config: RegisterBoardConfig = RegisterBoardConfig()) -> CalibrationProfile:
    """A profile with ``board_id``'s outline registered from a photo (replacing any previous one).

    Parameters
    ----------
    board_id : str
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : calibration.table.TableCalibration
    profile : CalibrationProfile, optional
        Kept as is apart from ``boards[board_id]``; a default profile when None.
    config : RegisterBoardConfig

    Returns
    -------
    CalibrationProfile
        A new profile (the input is not modified).

    Raises
    ------
    ValueError
        As ``register_board``.
    """
    base = profile if profile is not None else CalibrationProfile()
    outline = register_board(image_rgb, calibration, config, base.layout)
    boards = dict(base.boards)
    boards[str(board_id)] = outline
    return CalibrationProfile(layout=base.layout, lens=base.lens, colours=dict(base.colours), boards=boards)
