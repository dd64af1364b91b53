"""CMYK! mosaic recognizer: photo + table calibration -> ``MosaicState`` (every tile, its cell and levels).

Stages (each timed): ``tiles`` (find the mosaic), ``lattice`` (one lattice for all tiles), ``edges``
(which ink on which edge, with the clockwise C-M-Y order), ``marks`` (dot counts and ground colour),
``assign`` (the known tile set, each tile once). Sampling happens at the tiles' top face, 3 mm above
the table, when the calibration can map that height.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from core.order_stats import median_last, percentile_last
from core.timing import StageTimer
from geometry import trilattice as tl
from geometry.mosaic import illegal_contacts
from scoring.cmyk_state import EdgeReading, MosaicState, TileReading
from scoring.flags import Flag
from vision import cmyk_read as rd
from vision.cmyk_lattice import LatticeFitConfig, choose_frame, fit_lattice
from vision.cmyk_sharpness import MarkerBlur, SharpnessConfig, marker_blur
from vision.view import HeightMapping, sample


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
    sample_step_mm: float = 0.8
    band_inner_mm: float = 0.9
    band_outer_mm: float = 5.4
    #: Ground samples keep this far from the ink bands (a blurred photo smears band ink into the ground;
    #: photoreal dev set under the device simulations: 2.0 -> 3.5 mm, fewer misread levels on every device).
    ground_clear_mm: float = 3.5
    mark_offsets_mm: tuple[float, ...] = (1.6, 2.2, 2.8, 3.4, 4.0, 4.6)
    mark_half_length_mm: float = 15.0
    mark_rows_averaged: int = 3
    #: The photo's blur (Gaussian sigma, px) the mark templates assume where the markers cannot measure it
    #: (``vision.cmyk_sharpness.marker_blur``; photos without markers).
    mark_blur_px: float = 1.0
    contact_iterations: int = 2
    purity_good: float = 0.85
    purity_bad: float = 0.5
    purity_global: float = 0.8
    #: Where the median purity is below ``purity_global``, the lattice is turned and shifted by these to where the
    #: bands sit best (:func:`_register_bands`), each move kept only for a gain above ``register_min_gain``.
    register_turns_deg: tuple[float, ...] = (-1.5, -1.0, -0.5, 0.5, 1.0, 1.5)
    register_shifts_mm: tuple[float, ...] = (-1.5, -0.75, 0.75, 1.5)
    register_min_gain: float = 0.02
    confidence_scale: float = 1.0
    contact_weight: float = 2.0
    mark_step_mm: float = 0.25
    occupancy_min_ink: float = 0.5
    occupancy_min_order_share: float = 0.5
    min_tile_confidence: float = 0.6
    #: The most misread tiles a mosaic's unflagged readings may be expected to hold (the sum of one minus their
    #: confidences): beyond it the least sure are flagged ``tile_doubtful`` too (:func:`_risk_flags`), so that
    #: thirty tiles each read at 0.8 are not presented as sure.
    unflagged_misread_budget: float = 0.5
    min_edge_confidence: float = 0.7
    ground_disagree_levels: float = 1.3
    ground_summary_share: float = 0.4
    max_vertex_residual_mm: float = 3.0
    evidence_window_mm: float = 30.0
    evidence_min_share: float = 0.02
    tile_mask_dilate_px: int = 5
    direction_step_mm: float = 10.0
    min_px_per_mm: float = 0.3
    horizontal_ambiguous_margin: float = 0.02
    min_mark_px_per_mm: float = 0.8
    doubt_summary_share: float = 0.34
    candidate_margin_mm: float = 20.0
    band_corner_clear_mm: float = 0.8
    band_luminance_percentile: float = 80.0
    unread_min_excess: float = 0.3
    unread_min_saturation: float = 0.12
    unread_min_excess_hole: float = 0.6
    explained_margin_mm: float = 16.0
    unexplained_min_tile_share: float = 0.25
    marker_black_inset_mm: float = 3.0
    marker_white_out_mm: float = 4.0
    marker_ring_samples: int = 40
    marker_white_percentile: float = 75.0
    min_white_over_black: float = 20.0
    #: A K reading whose ground is lighter than the K ground model by more sigmas is doubtful (its confidence
    #: falls as that model's likelihood beyond this bound).
    k_ground_max_sigma: float = 3.0
    #: Where a K tile's black shows however blurred its white letter (``cmyk_read.letter_values``): the inner
    #: triangle (this far inside the bands) beyond ``k_letter_radius_mm`` from the centroid (the letter, 14 mm
    #: tall, stays within 9 mm of it); the letter's own place: within ``k_centre_radius_mm``.
    k_corner_band_clear_mm: float = 0.5
    k_letter_radius_mm: float = 9.0
    k_centre_radius_mm: float = 4.0
    #: Rounds of fitting the ground model and measuring the marks' reliability against it
    #: (:func:`_calibrated_evidence`).
    ground_fit_rounds: int = 2
    #: The marks' dots (2.5 mm, 4 mm apart: 1.5 mm gaps) are resolved where the photo's worst-direction blur
    #: (``MarkerBlur.worst_px``, Gaussian sigma) is at most this in table mm (:func:`_calibrated_evidence`). Photoreal
    #: dev + cmyk_tune: as rendered 0.46-0.82, as a phone delivers them 0.36-0.75, a browser's 704x528 0.99-1.43, the
    #: webcam simulation 1.11-2.47.
    marks_resolved_blur_mm: float = 0.9
    #: Confidences (:func:`_confidence_scores`): the marks and the ground colour may each be wrong with this
    #: probability, so that where they contradict each other neither makes a level sure.
    evidence_outlier: float = 0.05
    #: Where the palette's ink hues leave the mosaic in doubt as a whole (no tiles, bands off their places, tile
    #: colour unread: :func:`_in_trouble`), read it again with the photo's own ink hues (:func:`_photo_inks`,
    #: ``cmyk_read.fit_ink_hues``, fitted on the tile area the palette's hues found) where one of them lies at least
    #: ``ink_hue_retry_256`` (of 256; half the hue tolerance) from the palette's, and keep the reading whose tiles'
    #: bands sit better (``_Reading.band_score``).
    fit_ink_hues: bool = True
    ink_hue_retry_256: int = 7
    lattice: LatticeFitConfig = field(default_factory=LatticeFitConfig)
    read: rd.ReadConfig = field(default_factory=rd.ReadConfig)
    sharpness: SharpnessConfig = field(default_factory=SharpnessConfig)


@dataclass(frozen=True)
class MosaicDetection:
    """What the recognizer found in one photo.

    Attributes
    ----------
    state : MosaicState
    frame : tl.TriangleLattice
        The chosen lattice frame in table mm (for overlays and the rules' geometry).
    tile_outlines_px : dict[(int, int), ndarray (3, 2)]
        Image-pixel corners of each tile found.
    lattice_flags : tuple[Flag, ...]
        The flags of the lattice fit (also in ``state.flags``), carried with ``frame`` by live video.
    """

    state: MosaicState
    frame: tl.TriangleLattice
    tile_outlines_px: dict
    lattice_flags: tuple[Flag, ...] = ()


@dataclass(frozen=True)
class MosaicMiss:
    """Why a photo gave no tiles: what was seen, and what to do about it (the cannot-judge message).

    Attributes
    ----------
    stage : str
        ``"no_ink"`` (nothing ink-coloured and tile-like on the table), ``"no_lattice"`` (an ink-coloured
        tile area, but no lattice fits its edges) or ``"no_tiles"`` (a lattice, but no cell reads as a tile).
    region_mm : tuple[float, float, float, float] or None
        The ink-coloured, tile-like area's bounding box ``(x0, y0, x1, y1)`` in table mm (coarse view; None for
        ``"no_ink"``).
    """

    stage: str
    region_mm: tuple[float, float, float, float] | None = None

    @property
    def message(self) -> str:
        """One line for the user: what the photo showed, what stopped the reading, how to retake it."""
        if self.stage == "no_ink":
            return "no CMYK! tiles found: nothing ink-coloured (cyan, magenta, yellow) and tile-like in the play area"
        seen = "an ink-coloured, tile-like area is seen"
        if self.region_mm is not None:
            x0, y0, x1, y1 = self.region_mm
            seen += f" (about {x1 - x0:.0f} x {y1 - y0:.0f} mm)"
        if self.stage == "no_lattice":
            return (f"CMYK! tiles not read: {seen}, but no tile lattice could be fitted to its edges; retake the "
                    "photo straighter (from above, the whole mosaic flat in view) and in whiter, even light")
        return (f"CMYK! tiles not read: {seen} and a tile lattice was fitted, but no cell on it shows a tile's three "
                "ink bands; retake the photo sharper, straighter and in whiter, even light")


def colour_reference(image: np.ndarray, cal, config: CmykVisionConfig) -> tuple[np.ndarray, np.ndarray]:
    """(black_rgb, white_rgb) of this frame: the calibration's colour reference, else the markers' own."""
    ref = getattr(cal, "colour", None)
    if ref is not None and hasattr(ref, "white_rgb"):
        return np.asarray(ref.black_rgb, np.float64), np.asarray(ref.white_rgb, np.float64)
    from calibration.markers import MarkerLayout

    layout = MarkerLayout.from_components()
    half = layout.side_mm / 2
    blacks, whites = [], []
    t = np.linspace(-1, 1, config.marker_ring_samples)
    for mid in getattr(cal, "marker_ids", tuple(layout.centres_mm)):
        cx, cy = layout.centres_mm[int(mid)]
        for r, sink in ((half - config.marker_black_inset_mm, blacks), (half + config.marker_white_out_mm, whites)):
            ring = np.concatenate([np.stack([cx + r * t, np.full_like(t, cy - r)], 1),
                                   np.stack([cx + r * t, np.full_like(t, cy + r)], 1),
                                   np.stack([np.full_like(t, cx - r), cy + r * t], 1),
                                   np.stack([np.full_like(t, cx + r), cy + r * t], 1)])
            px = cal.mm_to_px(ring).astype(np.float32)
            sink.append(sample(image, px, "replicate", exact=False))
    black = np.median(np.concatenate(blacks), axis=0)
    white = np.percentile(np.concatenate(whites), config.marker_white_percentile, axis=0)
    return black.astype(np.float64), np.maximum(white, black + config.min_white_over_black).astype(np.float64)


@dataclass(frozen=True)
class _InkTables:
    """This frame's ink look-up tables (``vision.cmyk_read.label_tables``): the reader's, and a faint one
    (lower saturation) that only tells where tile colour is left unread; ``hues``: the inks' hues they use."""

    strict: np.ndarray
    faint: np.ndarray
    hues: tuple[int, ...] = rd.INK_HUES_256


def _ink_tables(black: np.ndarray, white: np.ndarray, config: CmykVisionConfig, hues: tuple[int, ...] = rd.INK_HUES_256,
                bins: rd.ColourBins | None = None) -> _InkTables:
    bins = rd.colour_bins(black, white) if bins is None else bins
    strict, faint = rd.label_tables(bins, config.read, (config.unread_min_saturation,), hues)
    return _InkTables(strict, faint, tuple(hues))


@dataclass(frozen=True)
class _CoarseView:
    """The coarse top view's tile evidence and its placement on the table."""

    evidence: np.ndarray
    origin_mm: tuple[float, float]
    mm_per_px: float

    def to_view(self, xy_mm: np.ndarray) -> np.ndarray:
        return (np.asarray(xy_mm, np.float64) - self.origin_mm) / self.mm_per_px

    def to_table(self, xy_px: np.ndarray) -> np.ndarray:
        return np.asarray(xy_px, np.float64) * self.mm_per_px + self.origin_mm


def _cell_area_mm2(edge_mm: float) -> float:
    return edge_mm * edge_mm * np.sqrt(3.0) / 4.0


def tile_evidence(lab: np.ndarray, mm_per_px: float, window_mm: float, min_share: float) -> np.ndarray:
    """Where all three inks lie close together: the tiles' own signature, whatever the table's colour.

    Every CMYK! tile carries a cyan, a magenta and a yellow band within ~20 mm of any point on it; a
    table (wood, cloth, a printed pattern) shows one hue, not all three together.

    Parameters
    ----------
    lab : ndarray, shape (H, W), int8
        Ink labels (``vision.cmyk_read.classify_inks``).
    mm_per_px : float
    window_mm : float
        Side of the square neighbourhood.
    min_share : float
        Share of the neighbourhood each ink must cover.

    Returns
    -------
    ndarray, shape (H, W), bool
    """
    k = max(3, int(round(window_mm / mm_per_px)) | 1)
    # a whole count is at least min_share * k * k where it is at least that bound rounded up: compared in 16 bits
    need = np.uint16(min(np.ceil(max(min_share * k * k, 0.0)), np.iinfo(np.uint16).max))
    out = np.ones(lab.shape, bool)
    for ink in range(len(rd.INKS)):
        count = cv2.boxFilter((lab == ink).view(np.uint8), cv2.CV_16U, (k, k), normalize=False,
                              borderType=cv2.BORDER_CONSTANT)  # at most k * k: no overflow below k = 255
        out &= count >= need
    return out


@dataclass(frozen=True)
class _SearchView:
    """The coarse top view of the search area (``coarse_mm_per_px``): its colours' look-up bins, and its corner."""

    bins: np.ndarray
    origin_mm: tuple[float, float]


def _search_view(image, mapper, config) -> _SearchView:
    """The coarse top view over the play area (the calibration's search region, else the markers' box widened by
    ``search_margin_mm``), as look-up bin indices (``cmyk_read.bin_index``)."""
    from calibration.markers import MarkerLayout

    search = getattr(mapper.cal, "search_region_mm", None)
    if search is not None:
        x0, y0, x1, y1 = search
    else:
        cs = np.array(list(MarkerLayout.from_components().centres_mm.values()))
        x0, y0 = cs.min(axis=0) - config.search_margin_mm
        x1, y1 = cs.max(axis=0) + config.search_margin_mm
    view = mapper.homography_view(image, config.coarse_mm_per_px, (x0, y0, x1, y1))
    return _SearchView(rd.bin_index(view), (float(x0), float(y0)))


def _find_mosaic_region(image, mapper, inks: _InkTables, config) -> tuple[tuple, np.ndarray, _CoarseView] | None:
    """The table region holding the mosaic (``(x0, y0, x1, y1)`` mm), its centre and the coarse view."""
    return _mosaic_region(_search_view(image, mapper, config), inks, config)


def _mosaic_region(search: _SearchView, inks: _InkTables, config) -> tuple[tuple, np.ndarray, _CoarseView] | None:
    """:func:`_find_mosaic_region` on the search view."""
    mpp = config.coarse_mm_per_px
    x0, y0 = search.origin_mm
    lab = np.take(inks.strict.reshape(-1), search.bins)  # np.take: a fifth of fancy indexing's cost
    evidence = tile_evidence(lab, mpp, config.evidence_window_mm, config.evidence_min_share)
    n, comp, stats, _ = cv2.connectedComponentsWithStats(evidence.astype(np.uint8))
    min_area = config.min_tile_area_share * config.edge_mm ** 2 / mpp ** 2
    keep = [c for c in range(1, n) if stats[c, cv2.CC_STAT_AREA] >= min_area]
    if not keep:
        return None
    # one mosaic per photo: every tile-like blob belongs to it (a split mosaic stays whole)
    kept = np.zeros(n, bool)
    kept[keep] = True
    sel = np.take(kept, comp)
    # the kept pixels' extent and mean position from their row and column counts: whole-number sums, so the same
    # numbers as ``np.nonzero``'s coordinates' min, max and mean
    per_col, per_row = sel.sum(axis=0), sel.sum(axis=1)
    xs, ys = np.flatnonzero(per_col), np.flatnonzero(per_row)
    count = int(per_col.sum())
    m = config.region_margin_mm
    region = (x0 + xs[0] * mpp - m, y0 + ys[0] * mpp - m, x0 + (xs[-1] + 1) * mpp + m, y0 + (ys[-1] + 1) * mpp + m)
    x_mean = np.float64(int(per_col @ np.arange(len(per_col)))) / count
    y_mean = np.float64(int(per_row @ np.arange(len(per_row)))) / count
    centre = np.array([x0 + x_mean * mpp, y0 + y_mean * mpp])
    return region, centre, _CoarseView(evidence, (float(x0), float(y0)), mpp)


def _photo_inks(search: _SearchView, bins: rd.ColourBins, inks: _InkTables, found: tuple, config: CmykVisionConfig
                ) -> tuple[_InkTables, tuple] | None:
    """This photo's own ink tables (``cmyk_read.fit_ink_hues`` on the tile area the palette's tables found) and the
    mosaic's region found with them; None where no ink's hue moves by ``ink_hue_retry_256`` or more (the palette's
    tables read the photo as well), or where the photo's tables find no tile area."""
    hues = rd.fit_ink_hues(bins, search.bins[found[2].evidence], config.read, inks.hues)
    moved = max(abs((a - b + 128) % 256 - 128) for a, b in zip(hues, inks.hues, strict=True))
    if moved < config.ink_hue_retry_256:
        return None
    fitted = _ink_tables(np.zeros(3), np.zeros(3), config, hues, bins)
    again = _mosaic_region(search, fitted, config)
    return None if again is None else (fitted, again)


@lru_cache(maxsize=8)
def _triangle_samples(edge: float, step: float, band_in: float, band_out: float, band: float, clear: float,
                      corner_clear: float):
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
        sel &= second > band + corner_clear  # keep away from the corners where bands meet
        band_pts[d] = _read_only(p[sel])
    ground = p[inside & (dmin > band + clear)]
    return band_pts, _read_only(ground)


@lru_cache(maxsize=8)
def _letter_samples(edge: float, step: float, band: float, clear: float, letter_radius: float,
                    centre_radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Sample points of an up cell relative to its centroid (lattice frame): the inner triangle's corners, beyond
    the K letter, and the letter's place at the centre.

    Returns
    -------
    corner_pts : ndarray (N, 2)
    centre_pts : ndarray (M, 2)
    """
    h = tl.row_height(edge)
    xs = np.arange(-edge / 2, edge / 2 + 1e-9, step)
    ys = np.arange(-h / 3, 2 * h / 3 + 1e-9, step)
    X, Y = np.meshgrid(xs, ys)
    p = np.stack([X.ravel(), Y.ravel()], axis=1)
    v = tl.cell_vertices(0, 0, edge) - np.array(tl.cell_centroid(0, 0, edge))
    inner = np.full(len(p), np.inf)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        u = v[b] - v[a]
        n = np.array([-u[1], u[0]]) / np.linalg.norm(u)
        if n @ (-v[a]) < 0:
            n = -n
        inner = np.minimum(inner, (p - v[a]) @ n)
    r = np.linalg.norm(p, axis=1)
    return _read_only(p[(inner >= band + clear) & (r >= letter_radius)]), _read_only(p[r <= centre_radius])


@lru_cache(maxsize=8)
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
    return _read_only(np.array(out)), _read_only(s)


def _read_only(a: np.ndarray) -> np.ndarray:
    """``a``, no longer writeable: the sample layouts are cached (one per configuration) and shared."""
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class _BandReading:
    """The ink bands of every candidate cell.

    Attributes
    ----------
    cells : list of (i, j)
        Cells read as tiles (three inks in a clockwise order along their edges).
    occupied : list of int
        Their indices among the candidates.
    colours : ndarray, shape (C, S, 3)
        Sampled colours of every candidate (bands H, P, N, then ground).
    offsets : ndarray, shape (5,)
        Sample index where each zone starts (H, P, N, ground, end).
    counts : ndarray, shape (T, 3, 3)
        Per read tile, band direction and ink: samples voting for that ink.
    rotation_ll : ndarray, shape (T, 3)
    rotations : ndarray, shape (T,)
    purity : ndarray, shape (T,)
        Share of each band's samples in the ink its rotation gives it (registration).
    unread : list of (i, j)
        Candidate cells not read as tiles although at least two inks show along their edges.
    """

    cells: list
    occupied: list
    colours: np.ndarray
    offsets: np.ndarray
    counts: np.ndarray
    rotation_ll: np.ndarray
    rotations: np.ndarray
    purity: np.ndarray
    unread: list


def detect_mosaic(image_rgb: np.ndarray, calibration, timer: StageTimer | None = None,
                  config: CmykVisionConfig = CmykVisionConfig(), horizontal_deg: float = 0.0,
                  carried: tuple[tl.TriangleLattice, tuple[Flag, ...]] | None = None) -> MosaicDetection | None:
    """:func:`read_mosaic`, None where it saw no tiles (whatever the reason)."""
    found = read_mosaic(image_rgb, calibration, timer, config, horizontal_deg, carried)
    return found if isinstance(found, MosaicDetection) else None


def read_mosaic(image_rgb: np.ndarray, calibration, timer: StageTimer | None = None,
                config: CmykVisionConfig = CmykVisionConfig(), horizontal_deg: float = 0.0,
                carried: tuple[tl.TriangleLattice, tuple[Flag, ...]] | None = None) -> MosaicDetection | MosaicMiss:
    """Read every tile of the mosaic in a photo, and flag what could not be read.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration
    timer : StageTimer, optional
    config : CmykVisionConfig
    horizontal_deg : float
        Photo direction taken as the mosaic's horizontal (degrees counter-clockwise from image x).
    carried : (TriangleLattice, flags), optional
        The lattice frame and its flags of an earlier frame of the same still scene (live video,
        ``judge/games/cmyk.py`` ``live_detect``): used instead of fitting the lattice again.

    Returns
    -------
    MosaicDetection or MosaicMiss
        The miss when no tile is read: what was seen, and where the reading stopped.
    """
    timer = timer or StageTimer()
    mapper = HeightMapping(calibration, config.thickness_mm)
    with timer.stage("tiles"):
        black, white = colour_reference(image_rgb, calibration, config)
        bins = rd.colour_bins(black, white)
        inks = _ink_tables(black, white, config, bins=bins)
        search = _search_view(image_rgb, mapper, config)
        found = _mosaic_region(search, inks, config)
        if found is None:
            return MosaicMiss("no_ink")
    read = _read_region(image_rgb, calibration, mapper, black, inks, found, timer, config, horizontal_deg, carried)
    if not config.fit_ink_hues or not _in_trouble(read.result):
        return read.result
    with timer.stage("tiles"):
        own = _photo_inks(search, bins, inks, found, config)
    if own is None:
        return read.result
    again = _read_region(image_rgb, calibration, HeightMapping(calibration, config.thickness_mm), black, own[0],
                         own[1], timer, config, horizontal_deg, carried)
    return (again if again.band_score > read.band_score else read).result


@dataclass(frozen=True)
class _Reading:
    """One reading of the mosaic (:func:`_read_region`) and how well its tiles' bands sit on their places: the summed
    band purity of the tiles read (more tiles, each band more in its ink; -1 for a miss)."""

    result: MosaicDetection | MosaicMiss
    band_score: float


def _in_trouble(result: MosaicDetection | MosaicMiss) -> bool:
    """Whether a reading leaves the mosaic in doubt as a whole: no tiles read, the bands off their places
    (``registration_poor``) or tile colour left unread (``mosaic_incomplete``)."""
    if isinstance(result, MosaicMiss):
        return True
    return any(f.code in ("registration_poor", "mosaic_incomplete") for f in result.state.flags)


def _read_region(image_rgb, calibration, mapper: HeightMapping, black: np.ndarray, inks: _InkTables, found: tuple,
                 timer: StageTimer, config: CmykVisionConfig, horizontal_deg: float,
                 carried: tuple[tl.TriangleLattice, tuple[Flag, ...]] | None) -> _Reading:
    """:func:`read_mosaic` from the mosaic's region on: the lattice, the bands, the marks, the tiles, completeness."""
    region, centre, coarse = found
    m = config.region_margin_mm
    seen = (float(region[0] + m), float(region[1] + m), float(region[2] - m), float(region[3] - m))
    with timer.stage("lattice"):
        if carried is None:
            located = _locate_lattice(image_rgb, mapper, inks, region, centre, horizontal_deg, config)
        else:
            _prepare_mapper(mapper, region, config)
            located = (carried[0], list(carried[1]))
        if located is None:
            return _Reading(MosaicMiss("no_lattice", seen), -1.0)
        frame, flags = located
        lattice_flags = tuple(flags)
        cands = _candidate_cells(frame, region, config)
    with timer.stage("edges"):
        bands = _read_bands(image_rgb, mapper, frame, cands, inks, config)
        if not bands.cells:
            return _Reading(MosaicMiss("no_tiles", seen), -1.0)
        if carried is None and np.median(bands.purity) < config.purity_global:
            frame, bands = _register_bands(image_rgb, mapper, frame, cands, inks, bands, config)
    with timer.stage("marks"):
        px_per_mm = _px_per_mm(mapper, centre, config)
        measured = marker_blur(image_rgb, calibration, config.sharpness)
        # no markers to measure: the assumed blur, as likely along any direction
        blur = measured or MarkerBlur(config.mark_blur_px, float(np.hypot(config.mark_blur_px, config.mark_blur_px)))
        # the marks count as resolved only on the blur measured at the markers, never on the assumed one
        resolved = measured is not None and measured.worst_px / max(px_per_mm, config.min_px_per_mm) \
            <= config.marks_resolved_blur_mm
        evidence = _read_marks(image_rgb, mapper, frame, px_per_mm, bands, black, config, blur, resolved)
        flags.extend(_resolution_flags(px_per_mm, bands.cells, config))
    with timer.stage("assign"):
        tiles, tile_flags = _assign_tiles(bands, evidence, config, resolved)
        tile_flags.extend(_contact_flags(tiles, config))
        tile_flags.extend(_risk_flags(tiles, tile_flags, config))
        flags.extend(tile_flags)
        flags.extend(_unreliable_flags(tiles, tile_flags, config))
    with timer.stage("complete"):
        registered = bool(np.median(bands.purity) >= config.purity_global)
        flags.extend(_completeness_flags(mapper, frame, coarse, tiles, bands.unread, config, registered))
        e = config.edge_mm
        px = mapper.to_px(frame.to_table(np.concatenate([tl.cell_vertices(*t.cell, e) for t in tiles])))
        outlines = {t.cell: px[3 * k:3 * k + 3] for k, t in enumerate(tiles)}
    det = MosaicDetection(state=MosaicState(tiles=tuple(tiles), flags=tuple(flags)), frame=frame,
                          tile_outlines_px=outlines, lattice_flags=lattice_flags)
    return _Reading(det, float(np.sum(bands.purity)))


def _prepare_mapper(mapper: HeightMapping, region: tuple, config: CmykVisionConfig) -> None:
    """Tabulate the photo mapping over the mosaic's region (widened by a tile edge)."""
    pad = config.edge_mm
    mapper.prepare((region[0] - pad, region[1] - pad, region[2] + pad, region[3] + pad), config.map_grid_mm)


def _locate_lattice(image_rgb, mapper, inks: _InkTables, region, centre, horizontal_deg,
                    config) -> tuple[tl.TriangleLattice, list[Flag]] | None:
    """Fit one lattice to the tiles' ink bands in a fine top view and choose its frame (rows, up)."""
    flags: list[Flag] = []
    _prepare_mapper(mapper, region, config)
    mpp = config.fine_mm_per_px
    view = mapper.homography_view(image_rgb, mpp, region)
    lab = rd.classify_table(view, inks.strict)
    area = tile_evidence(lab, mpp, config.evidence_window_mm, config.evidence_min_share)
    lab = np.where(area, lab, -1)
    masks = {ink: lab == k for k, ink in enumerate(rd.INKS)}
    k = config.tile_mask_dilate_px
    tile_mask = cv2.dilate((lab >= 0).astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    gray = cv2.cvtColor(view, cv2.COLOR_RGB2GRAY).astype(np.float32)
    fit = fit_lattice(masks, gray, tile_mask, mpp, region[:2], config.lattice)
    if fit is None:
        return None
    if fit.vertex_residual_mm > config.max_vertex_residual_mm:
        flags.append(Flag("lattice_inconsistent", f"the tile edges miss a common lattice by "
                          f"{fit.vertex_residual_mm:.1f} mm: cells may be wrong",
                          {"residual_mm": round(fit.vertex_residual_mm, 2)}))

    def image_dir(p, u):
        q = mapper.to_px(np.array([p, p + u * config.direction_step_mm]))
        return q[1] - q[0]

    frame, warn = choose_frame(fit, config.edge_mm, image_dir, centre, horizontal_deg,
                               config.horizontal_ambiguous_margin)
    if warn:
        flags.append(Flag("horizontal_ambiguous", warn))
    return frame, flags


def _candidate_cells(frame: tl.TriangleLattice, region: tuple, config: CmykVisionConfig) -> list[tuple[int, int]]:
    """Lattice cells whose centroid lies in the region grown by ``candidate_margin_mm``."""
    m = config.candidate_margin_mm
    x0, y0, x1, y1 = region[0] - m, region[1] - m, region[2] + m, region[3] + m
    lc = frame.from_table(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    e, hh = config.edge_mm, tl.row_height(config.edge_mm)
    jr = range(int(np.floor(lc[:, 1].min() / hh)) - 1, int(np.ceil(lc[:, 1].max() / hh)) + 1)
    ir = range(int(np.floor(lc[:, 0].min() / (e / 2))) - 1, int(np.ceil(lc[:, 0].max() / (e / 2))) + 2)
    cells = [(i, j) for j in jr for i in ir]
    c = frame.to_table(np.array([tl.cell_centroid(i, j, e) for i, j in cells]))
    inside = (c[:, 0] >= x0) & (c[:, 0] <= x1) & (c[:, 1] >= y0) & (c[:, 1] <= y1)
    return [cell for cell, ok in zip(cells, inside) if ok]


def _cell_points(frame: tl.TriangleLattice, cells, local_up: np.ndarray, edge_mm: float) -> np.ndarray:
    """``local_up`` points (relative to an up cell's centroid, lattice frame) placed in every cell, in table mm,
    shape (C * N, 2): each cell's centroid and the layout turned into the table once, then one broadcast sum (a
    down cell is an up cell turned half a turn about its centroid)."""
    ij = np.asarray(cells, np.int64).reshape(-1, 2)
    centroid = np.stack([ij[:, 0] * edge_mm / 2, (ij[:, 1] + np.where((ij[:, 0] + ij[:, 1]) % 2 == 0, 1 / 3, 2 / 3))
                         * tl.row_height(edge_mm)], axis=1)
    sign = np.where((ij[:, 0] + ij[:, 1]) % 2 == 0, 1.0, -1.0)
    axes = np.stack([np.asarray(frame.right, np.float64), np.asarray(frame.up, np.float64)])  # lattice x, y in mm
    centre_mm = centroid @ axes + np.asarray(frame.origin_mm, np.float64)
    local_mm = np.asarray(local_up, np.float64) @ axes
    return (centre_mm[:, None, :] + sign[:, None, None] * local_mm[None]).reshape(-1, 2)


def _read_bands(image_rgb, mapper, frame, cands, inks: _InkTables, config) -> _BandReading:
    """Sample every candidate's bands: which cells hold tiles, and each tile's rotation (edge inks)."""
    e = config.edge_mm
    band_t, ground_t = _triangle_samples(e, config.sample_step_mm, config.band_inner_mm, config.band_outer_mm,
                                         config.band_mm, config.ground_clear_mm, config.band_corner_clear_mm)
    nb = [len(band_t[d]) for d in "HPN"]
    local_up = np.concatenate([band_t["H"], band_t["P"], band_t["N"], ground_t])
    cols = mapper.sample(image_rgb, _cell_points(frame, cands, local_up, e))
    cols = cols.reshape(len(cands), len(local_up), 3)
    labs = rd.classify_table(cols, inks.strict)
    o = np.cumsum([0] + nb + [len(ground_t)])
    all_counts = _band_counts(labs, o, nb)
    share = all_counts / np.array(nb, float)[None, :, None]
    ink_frac = share.sum(axis=2).mean(axis=1)
    # a tile shows the three inks in one of the clockwise orders (a yellowish table shows one ink)
    order_share = np.stack([np.mean([share[:, d, rd.INKS.index(rot[d])] for d in range(3)], axis=0)
                            for rot in rd.ROTATIONS], axis=1).max(axis=1)
    occ = [k for k in range(len(cands)) if ink_frac[k] >= config.occupancy_min_ink
           and order_share[k] >= config.occupancy_min_order_share]
    counts = all_counts[occ]
    rot_ll = rd.rotation_logliks(counts, config.read)
    rots = np.argmax(rot_ll, axis=1)
    # registration: share of each band's samples in the ink the rotation gives it (misplaced
    # sampling, e.g. from an unmodelled lens, mixes neighbouring bands and ground in)
    # (the mean of the three bands' shares, added in band order as np.mean adds three)
    band_share = np.take_along_axis(share[occ], _ROTATION_INKS[rots][:, :, None], axis=2)[..., 0]  # (T, 3)
    purity = (band_share[:, 0] + band_share[:, 1] + band_share[:, 2]) / 3
    # faint inks (washed out by glare, partly covered) still count as tile colour for completeness
    faint = rd.classify_table(cols, inks.faint)
    faint_share = _band_counts(faint, o, nb) / np.array(nb, float)[None, :, None]
    unread = _unread_cells(cands, occ, rots, faint_share, config)
    return _BandReading(cells=[cands[k] for k in occ], occupied=occ, colours=cols, offsets=o, counts=counts,
                        rotation_ll=rot_ll, rotations=rots, purity=purity, unread=unread)


#: Each rotation's band inks as indices into ``cmyk_read.INKS``, shape (3 rotations, 3 bands H, P, N).
_ROTATION_INKS = np.array([[rd.INKS.index(ink) for ink in rot] for rot in rd.ROTATIONS], np.intp)


def _register_bands(image_rgb, mapper, frame: tl.TriangleLattice, cands: list, inks: _InkTables, bands: _BandReading,
                    config: CmykVisionConfig) -> tuple[tl.TriangleLattice, _BandReading]:
    """The lattice turned and shifted a little where the bands sit off their places (median purity below
    ``purity_global``), to where they sit best.

    The angle and offsets fitted to a blurred photo's band pixels can be off by a degree or a millimetre (a webcam's
    motion blur smears the bands along one direction), enough to read far tiles' bands across their edges and lose
    them. Coordinate search: turns about the mosaic's lattice vertex (``register_turns_deg``), then shifts
    (``register_shifts_mm``) along table x and y, each kept where it raises the read tiles' summed purity (more
    tiles, each band more in its ink) by more than ``register_min_gain``.
    """
    def score(b: _BandReading) -> float:
        return float(np.sum(b.purity))

    best, best_bands = frame, bands
    for kind, deltas in (("turn", config.register_turns_deg), ("x", config.register_shifts_mm),
                         ("y", config.register_shifts_mm)):
        base = best
        for d in deltas:
            f = _moved_lattice(base, kind, d)
            b = _read_bands(image_rgb, mapper, f, cands, inks, config)
            if b.cells and score(b) > score(best_bands) * (1 + config.register_min_gain):
                best, best_bands = f, b
    return best, best_bands


def _moved_lattice(lattice: tl.TriangleLattice, kind: str, d: float) -> tl.TriangleLattice:
    """The lattice turned by ``d`` degrees about its vertex (``kind`` "turn") or shifted ``d`` mm along table x / y."""
    if kind == "turn":
        a = np.deg2rad(d)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        return tl.TriangleLattice.from_axis(lattice.vertex_mm, rot @ lattice.right, lattice.edge_mm,
                                            lattice.residual_mm)
    step = np.array([d, 0.0] if kind == "x" else [0.0, d])
    return tl.TriangleLattice.from_axis(lattice.vertex_mm + step, lattice.right, lattice.edge_mm, lattice.residual_mm)


def _band_counts(labs: np.ndarray, offsets: np.ndarray, nb: list) -> np.ndarray:
    """Per candidate, band direction and ink: how many samples vote for that ink, shape (C, 3, 3)."""
    return np.stack([np.stack([(labs[:, offsets[d]:offsets[d + 1]] == ink).sum(axis=1) for ink in range(3)], axis=1)
                     for d in range(3)], axis=1)


def _unread_cells(cands: list, occupied: list, rotations: np.ndarray, share: np.ndarray,
                  config: CmykVisionConfig) -> list:
    """Cells next to the read tiles that show a tile's inks in the places a legal tile would have them.

    A read neighbour fixes which ink the shared edge carries, and so the rotation (the clockwise
    C-M-Y order) a legal tile in the cell must have; the cell counts as unread when its other (free)
    bands show those inks, one of them at least ``unread_min_excess`` more than the bare table does (a hole,
    every band shared: ``unread_min_excess_hole`` over all three). The bare
    table's shares come from candidates away from every read tile (a wood table may pass as yellow,
    a cloth as magenta); the shared band is ignored (the neighbour's ink bleeds across the edge).

    Parameters
    ----------
    cands : list of (i, j)
    occupied : list of int
        Indices of the candidates read as tiles.
    rotations : ndarray, shape (T,)
        Rotation index of each read tile (``occupied`` order).
    share : ndarray, shape (C, 3, 3)
        Per candidate, band direction and ink: share of the band's samples in that ink.
    """
    rot_of = {cands[k]: int(r) for k, r in zip(occupied, rotations)}
    taken = set(occupied)
    near = [[tl.neighbour(*c, d) in rot_of for d in rd.DIRS] for c in cands]
    away = [k for k in range(len(cands)) if k not in taken and not any(near[k])]
    table = np.median(share[away].mean(axis=1), axis=0) if away else np.zeros(len(rd.INKS))
    out = []
    for k, cell in enumerate(cands):
        if k in taken or not any(near[k]):
            continue
        best = 0.0
        for d, dn in enumerate(rd.DIRS):
            if not near[k][d]:
                continue
            ink = rd.ROTATIONS[rot_of[tl.neighbour(*cell, dn)]][d]
            for rot in rd.ROTATIONS:
                if rot[d] != ink:
                    continue
                free = [f for f in range(3) if not near[k][f]] or [0, 1, 2]
                ex = [max(0.0, share[k, f, rd.INKS.index(rot[f])] - table[rd.INKS.index(rot[f])]) for f in free]
                best = max(best, float(np.max(ex)))
        # a hole (every band shared) needs full bands: the neighbours' inks bleed into all three
        if best >= (config.unread_min_excess if not all(near[k]) else config.unread_min_excess_hole):
            out.append(cell)
    return out


def _px_per_mm(mapper, centre: np.ndarray, config: CmykVisionConfig) -> float:
    """Image pixels per table mm at the mosaic's centre (along table x)."""
    step = mapper.to_px(np.array([centre, centre + [config.direction_step_mm, 0.0]]))
    return float(np.linalg.norm(step[1] - step[0])) / config.direction_step_mm


def _resolution_flags(px_per_mm: float, cells: list, config: CmykVisionConfig) -> list[Flag]:
    """``marks_too_small`` when the photo resolves the marks' dots too coarsely to trust any level."""
    if px_per_mm >= config.min_mark_px_per_mm:
        return []
    pitch_px = config.read.dot_pitch_mm * px_per_mm
    return [Flag("marks_too_small", f"the photo shows the tiles' marks too small to read reliably (dots "
                 f"{pitch_px:.1f} px apart, {config.read.dot_pitch_mm * config.min_mark_px_per_mm:.1f} px needed): "
                 "every level is in doubt; photograph the mosaic closer or at a higher resolution",
                 {"cells": [list(c) for c in cells], "px_per_mm": round(px_per_mm, 2)})]


def _read_marks(image_rgb, mapper, frame, px_per_mm: float, bands: _BandReading, black,
                config, blur: MarkerBlur, marks_resolved: bool = False) -> list[rd.TileEvidence]:
    """Per tile: mark log-likelihoods along each band (templates blurred by the photo's blur, ``blur.sigma_px``, a
    Gaussian sigma in image pixels; the levels the marks tell apart at the most blur along any direction,
    ``blur.worst_px``: ``TileEvidence.mark_ll_resolved``) and the ground colour's levels.

    The light on each tile (``cmyk_read.band_gain``) is one light colour for the photo only where the marks are not
    resolved (``marks_resolved``, :func:`_calibrated_evidence`): there the grounds carry the levels and a blurred
    band's channel must not set a tile's light; where the marks are sharp (as rendered, a phone) each tile keeps its
    own bands' light (a phone's local tone mapping and saturation boost turn it per tile: photoreal dev s100000_05 as
    a phone delivers it, seeds 0-2, magenta level 1 read 0 on three tiles under the photo's one light colour)."""
    read_config = replace(config.read, gain_photo_balance=False) if marks_resolved else config.read
    e = config.edge_mm
    lines, s = _mark_lines(e, config.mark_offsets_mm, config.mark_half_length_mm, config.mark_step_mm)
    cells = bands.cells
    mcols = mapper.sample(image_rgb, _cell_points(frame, cells, lines.reshape(-1, 2), e))
    mcols = mcols.reshape(len(cells), 3, len(config.mark_offsets_mm), len(s), 3)
    # (T, 3, O, L): one profile per offset across the band; the channels' mean as the sum of three over three
    # (NumPy's mean of three, the same numbers at a fraction of its strided reduction's cost)
    lum_o = (mcols[..., 0] + mcols[..., 1] + mcols[..., 2]) / 3
    band_lum = percentile_last(lum_o.reshape(len(cells), 3, -1), config.band_luminance_percentile)[..., None, None]
    dark_o = 1.0 - lum_o / np.maximum(band_lum, 1.0)
    # the marks' row: the window of offsets with the most darkness (absorbs ~1-2 mm misregistration)
    energy = np.clip(dark_o, 0, None).sum(axis=3)  # (T, 3, O)
    win = config.mark_rows_averaged
    csum = np.stack([energy[..., i:i + win].sum(axis=2) for i in range(energy.shape[2] - win + 1)], axis=2)
    start = np.argmax(csum, axis=2)  # (T, 3)
    idx = start[..., None] + np.arange(win)
    rows = np.take_along_axis(dark_o, idx[..., None], axis=2)  # (T, 3, win, L)
    dark = rows[:, :, 0]
    for i in range(1, win):  # their mean, the rows added in order as np.mean adds them
        dark = dark + rows[:, :, i]
    dark = dark / win  # (T, 3, L)
    templates, _ = rd.mark_templates(s, blur.sigma_px / max(px_per_mm, config.min_px_per_mm), config.read)
    mll, mamp, noise_var = rd.mark_fit(dark.reshape(-1, len(s)), templates, config.read)
    # what the marks can tell apart, at the most blur the photo may have along a band (a motion blur's direction)
    worst, _ = rd.mark_templates(s, blur.worst_px / max(px_per_mm, config.min_px_per_mm), config.read)
    mll_resolved = rd.resolve_level_pairs(mll, mamp, worst, noise_var, config.read)
    mll = mll.reshape(len(cells), 3, 7)
    mll_resolved = mll_resolved.reshape(len(cells), 3, 7)
    mamp = mamp.reshape(len(cells), 3, 6)
    black_lin = rd.srgb_to_linear(black / 255.0)
    o = bands.offsets
    linear = _sample_linear(image_rgb.dtype)
    cols = linear(bands.colours[bands.occupied])
    band_lin = np.stack([median_last(np.swapaxes(cols[:, o[d]:o[d + 1]], 1, 2)) for d in range(3)],
                        axis=1)  # (T, 3 bands, 3)
    ground_lin = cols[:, o[3]:o[4]]
    inks = np.array([[rd.INKS.index(rd.ROTATIONS[r][d]) for d in range(3)] for r in bands.rotations])
    gest, dark_lum = rd.ground_levels_batch(ground_lin, band_lin, inks, black_lin, read_config)
    corner_t, centre_t = _letter_samples(e, config.sample_step_mm, config.band_mm, config.k_corner_band_clear_mm,
                                         config.k_letter_radius_mm, config.k_centre_radius_mm)
    lcols = mapper.sample(image_rgb, _cell_points(frame, cells, np.concatenate([corner_t, centre_t]), e))
    llin = linear(lcols.reshape(len(cells), len(corner_t) + len(centre_t), 3))
    corner_v, centre_v = rd.letter_values(llin[:, :len(corner_t)], llin[:, len(corner_t):],
                                          rd.band_gain(band_lin, inks, black_lin, read_config), black_lin, config.read)
    out = []
    rotation_post = rd.posteriors(bands.rotation_ll)  # every tile's at once: the same numbers as one row's
    for t in range(len(cells)):
        r = int(bands.rotations[t])
        p = rotation_post[t]
        out.append(rd.TileEvidence(rotation=r, rotation_confidence=float(p[r]), ground_est=gest[t], mark_ll=mll[t],
                                   mark_amp=mamp[t], dark_luminance=float(dark_lum[t]),
                                   mark_ll_resolved=mll_resolved[t], k_corner_value=float(corner_v[t]),
                                   k_centre_value=float(centre_v[t])))
    return out


def _sample_linear(image_dtype: np.dtype):
    """The linear light (``cmyk_read.srgb_to_linear``) of sampled colours (``HeightMapping.sample``'s float32, on
    the 0..255 scale), as a function: of an 8-bit photo's samples (whole values) through a table of the 256
    values, the same numbers at a fraction of the cost."""
    if np.dtype(image_dtype) != np.uint8:
        return lambda cols: rd.srgb_to_linear(np.asarray(cols) / 255.0)
    table = _srgb_table()
    return lambda cols: np.take(table, np.asarray(cols).astype(np.uint8))


@lru_cache(maxsize=1)
def _srgb_table() -> np.ndarray:
    """``cmyk_read.srgb_to_linear`` of the 256 sample values (float32 over 255, as the samples are divided)."""
    return _read_only(rd.srgb_to_linear(np.arange(256, dtype=np.float32) / 255.0))


def _assign_tiles(bands: _BandReading, evidence: list[rd.TileEvidence], config: CmykVisionConfig,
                  marks_resolved: bool = False) -> tuple[list[TileReading], list[Flag]]:
    """Each tile to a distinct tile of the set (marks, ground, contacts), with confidences and doubts;
    ``marks_resolved``: the photo resolves the marks' dots (:func:`_calibrated_evidence`)."""
    cells = bands.cells
    evidence, weight, pooled, gsigma = _calibrated_evidence(evidence, config, marks_resolved)
    own_scores, columns = rd.score_matrix(evidence, config.read, gsigma, _weighed_marks(evidence, weight, pooled))
    chosen = rd.assign(own_scores)
    scores = own_scores
    bonus = np.zeros_like(own_scores)
    for _ in range(config.contact_iterations):
        bonus = rd.contact_bonus(cells, [ev.rotation for ev in evidence], chosen, columns,
                                 config.contact_weight, lambda c, d: tl.neighbour(*c, d))
        scores = own_scores + bonus
        chosen = rd.assign(scores)
    sure = _confidence_scores(evidence, scores, bonus, gsigma, config, cells, chosen, columns)
    sure_posterior = rd.posteriors(sure)  # every row's posterior at once: the same numbers as one row's
    flags: list[Flag] = []
    tiles = []
    for t, cell in enumerate(cells):
        tile, tile_flags = _tile_reading(cell, evidence[t], scores[t], int(chosen[t]), columns,
                                         float(bands.purity[t]), config, sure[t], sure_posterior[t])
        tiles.append(tile)
        flags.extend(tile_flags)
    purity = float(np.median(bands.purity))
    if purity < config.purity_global:
        flags.append(Flag("registration_poor", f"the tiles' ink bands sit off the expected places (median purity "
                          f"{purity:.2f}): lens distortion or a bad table frame; readings unreliable",
                          {"cells": [], "median_purity": round(purity, 3)}))
    mvg = [f for f in flags if f.code == "marks_vs_ground"]
    if len(mvg) > config.ground_summary_share * len(tiles):
        flags = [f for f in flags if f.code != "marks_vs_ground"]
        flags.append(Flag("ground_colours_unreliable", f"the ground colours of {len(mvg)} of {len(tiles)} tiles "
                          "disagree with their marks (colour cast or uneven light): levels rest on the marks",
                          {"cells": []}))
    return tiles, flags


def _weighed_marks(evidence: list[rd.TileEvidence], weight: float | np.ndarray,
                       pooled: float | None = None) -> np.ndarray:
    """Every tile's mark log-likelihoods (T, 3, 7) the readings use: the levels only as far as the photo resolves them
    (``TileEvidence.mark_ll_resolved``: a blurred dot and dash leave levels 0 and 1 to the ground) and at the marks'
    reliability here (``weight``, per ink as each band's ink: they agree with the ground colours that far; a webcam
    loses them, often one ink's), and whether a band carries a mark at all (the last column, a K tile's "no mark") at
    the marks' reliability over all inks (``pooled``; without it, the band's ink's): a photo that blurs the dots
    into the band also blurs a K tile's bare band into "a mark" (webcam simulation: K tiles read "a mark" at -7 to
    -18 while their black corners and letter say K, ``cmyk_read.k_ground_loglik``)."""
    if not evidence:
        return np.zeros((0, 3, 7))
    w = np.broadcast_to(np.asarray(weight, np.float64), (3,))
    band_w = w[_ROTATION_INKS[[ev.rotation for ev in evidence]]][..., None]  # (T, 3 bands, 1)
    levels = np.stack([(ev.mark_ll if ev.mark_ll_resolved is None else ev.mark_ll_resolved)[:, :6] for ev in evidence])
    marks = np.stack([ev.mark_ll[:, 6:] for ev in evidence]) * (band_w if pooled is None else pooled)
    return np.concatenate([levels * band_w, marks], axis=2)


def _marks_weighed_by_band(ev: rd.TileEvidence, band_w: np.ndarray) -> rd.TileEvidence:
    """The tile's mark log-likelihoods (as measured and as resolved) times each band's reliability (3, 1)."""
    resolved = None if ev.mark_ll_resolved is None else ev.mark_ll_resolved * band_w
    return replace(ev, mark_ll=ev.mark_ll * band_w, mark_ll_resolved=resolved)


def _band_weights(ev: rd.TileEvidence, weight: float | np.ndarray) -> np.ndarray:
    """The marks' reliability per band of the tile (its ink's weight, ``cmyk_read.ink_mark_weights``), shape (3, 1)."""
    w = np.broadcast_to(np.asarray(weight, np.float64), (3,))
    return np.array([w[rd.INKS.index(ink)] for ink in rd.ROTATIONS[ev.rotation]])[:, None]


def _calibrated_evidence(evidence: list[rd.TileEvidence], config: CmykVisionConfig, marks_resolved: bool = False
                         ) -> tuple[list[rd.TileEvidence], np.ndarray, float, np.ndarray]:
    """The evidence with its ground colours as levels under this photo's ground model, the marks' reliability here,
    and the ground's spread (levels).

    The ground model is fitted first from the grounds alone (``cmyk_read.calibrate_ground_levels`` at mark weight
    0: the levels' spacing and the set's proportions), each ink's marks' reliability measured against it
    (``cmyk_read.ink_mark_weights``), and the model fitted again with the marks at those weights, and their
    reliability measured again (``ground_fit_rounds`` in all): sharp marks calibrate the ground, lost ones (a
    webcam's, often one ink's: a dot shows least on the dark magenta band) are down-weighted and pull it less. (Fitted
    first with the marks as modelled, an ink's wrong marks bend its model to themselves and then witness for it:
    photoreal dev webcam s100000_08.)

    Where the photo resolves the marks' dots (``marks_resolved``: its worst-direction blur at most
    ``marks_resolved_blur_mm``), the marks are read as printed and the grounds do not judge them: the model is fitted
    with the marks as modelled and their weight stays 1. There the ground is the weaker witness: a phone's tone
    mapping and saturation boost bend a yellow ground's levels (photoreal dev s100000_10 as a phone delivers it: level 5
    reads 3.1-3.8, level 0 -0.2-0.8) while its marks read every level right; photoreal dev + cmyk_tune, 3,400 bands
    per device: marks right 94-100 % per level as rendered and as a phone delivers them, none wrong by more than 5
    nats, against 62-78 % and 108 sure and wrong under the webcam simulation.

    Returns
    -------
    evidence : list of TileEvidence
        ``ground_est`` as levels.
    weight : ndarray, shape (3,)
        The marks' levels' reliability per ink, C M Y (1: as modelled).
    pooled : float
        The marks' reliability over all inks (``cmyk_read.mark_weight``): whether a band carries a mark at all.
    sigma : ndarray, shape (3,)
        The ground model's spread per ink (levels).
    """
    if marks_resolved:
        model = rd.calibrate_ground_levels(evidence, np.ones(3), config.read)
        levelled = [replace(ev, ground_est=model.levels(ev.ground_est)) for ev in evidence]
        return levelled, np.ones(3), 1.0, model.sigma
    weight = np.zeros(3)
    raw = np.array([ev.ground_est for ev in evidence], np.float64).reshape(-1, 3)
    for _ in range(config.ground_fit_rounds):
        model = rd.calibrate_ground_levels(evidence, weight, config.read)
        levels = model.levels(raw)  # (T, 3): every tile's ground as levels
        weight, pooled = rd.ink_mark_weights_at(evidence, levels, config.read)
    levelled = [replace(ev, ground_est=levels[t]) for t, ev in enumerate(evidence)]
    return levelled, weight, pooled, model.sigma


def _confidence_scores(evidence: list[rd.TileEvidence], scores: np.ndarray, bonus: np.ndarray,
                       gsigma: np.ndarray, config: CmykVisionConfig, cells: list, chosen: np.ndarray,
                       columns: list) -> np.ndarray:
    """The log-posteriors the readings' confidences come from (the readings themselves stay those of ``scores``).

    Two corrections of the modelled certainty, both measured on the photo: the marks are weighted by how well
    they agree with the ground colours here, with how often they misread a level (``cmyk_read.mark_error_model``:
    a webcam's blur, noise and JPEG make them sure and wrong), and a normal tile's levels combine marks and ground
    robustly (``cmyk_read.robust_level_loglik``, each wrong with probability ``evidence_outlier``): where the marks say
    one level and the ground another, neither is sure, and a confident +-1 misread becomes a doubtful one. The
    marks count only as far as the photo resolves them (``TileEvidence.mark_ll_resolved``: a blurred dot and
    dash tell nothing between levels 0 and 1), and a touching neighbour witnesses an edge's level only as surely
    as its own marks and ground read it (``cmyk_read.witnessed_contact_bonus``). The K-or-normal split keeps the
    modelled posterior.

    Parameters
    ----------
    evidence : list of TileEvidence
        Ground estimates as levels (:func:`_calibrated_evidence`), marks as measured.
    scores : ndarray, shape (T, 84)
        The readings' scores (marks at ``weight``, ground, contacts).

    Returns
    -------
    ndarray, shape (T, 84)
        Log-probabilities over the score-matrix columns (82 normal tiles, 2 K).
    """
    weight, errors = rd.mark_error_model(evidence, config.read)
    if np.any(np.asarray(weight) < 1.0):
        evidence = [_marks_weighed_by_band(ev, _band_weights(ev, weight)) for ev in evidence]
    n_normal = len(rd.tile_types())
    types = np.array(rd.tile_types())
    robust = rd.robust_level_loglik(evidence, gsigma, config.evidence_outlier, errors, config.read)  # (T, 3, 6)
    # each tile's own level probabilities; a tile read as K (or left unassigned: column -1, the last K column)
    # witnesses no level
    own = np.exp(robust - robust.max(axis=2, keepdims=True))
    own = own / own.sum(axis=2, keepdims=True) * np.array([columns[c] != "k" for c in chosen])[:, None, None]
    witnessed = rd.witnessed_contact_bonus(cells, [ev.rotation for ev in evidence], own, columns,
                                           config.contact_weight, lambda c, d: tl.neighbour(*c, d))
    normal = sum(robust[:, ink, types[:, ink]] for ink in range(3)) + witnessed[:, :n_normal]
    # the K-or-normal split as modelled, the levels of a normal tile as robustly as the evidence allows
    k_cols = rd.posteriors(scores)[:, n_normal:]
    p_k = k_cols.sum(axis=1)
    p_normal = rd.posteriors(normal) * (1 - p_k)[:, None]
    return np.log(np.maximum(np.concatenate([p_normal, k_cols], axis=1), 1e-300))


def _unreliable_flags(tiles: list[TileReading], flags: list[Flag], config: CmykVisionConfig) -> list[Flag]:
    """``readings_unreliable`` when so many tiles are in doubt that the confident ones are suspect too.

    A photo that defeats the mark reader (blur, noise, too few pixels per dot) shows it as many doubtful
    tiles; then every tile is named, so that the score range covers what any reading could give.
    """
    doubted = {tuple(c) for f in flags if f.code in _TILE_DOUBT_CODES for c in f.data.get("cells", [])}
    if not tiles or len(doubted) < config.doubt_summary_share * len(tiles):
        return []
    return [Flag("readings_unreliable", f"{len(doubted)} of {len(tiles)} tiles are read with doubt: the photo does not "
                 "show the marks well enough (blur, noise or resolution), so every tile's levels are in doubt",
                 {"cells": [list(t.cell) for t in tiles]})]


def _risk_flags(tiles: list[TileReading], flags: list[Flag], config: CmykVisionConfig) -> list[Flag]:
    """``tile_doubtful`` for the least sure of the tiles no doubt names yet, as many as it takes for the rest to be
    expected to hold at most ``unflagged_misread_budget`` misreads (the sum of one minus their confidences).

    Each tile's confidence is its reading's probability; a tile at 0.8 is misread one time in five, and a mosaic of
    such tiles would hide several misreads behind readings none of which is below ``min_tile_confidence``.
    """
    doubted = {tuple(c) for f in flags if f.code in _TILE_DOUBT_CODES for c in f.data.get("cells", [])}
    sure = sorted((t for t in tiles if t.cell not in doubted), key=lambda t: t.confidence)
    risk = sum(1.0 - t.confidence for t in sure)
    out = []
    for t in sure:
        if risk <= config.unflagged_misread_budget:
            break
        out.append(Flag("tile_doubtful", f"tile at {list(t.cell)} read with confidence {t.confidence:.2f}: the "
                        f"mosaic's other readings together are expected to hold {risk:.1f} misread tiles, more than "
                        f"{config.unflagged_misread_budget:.1f}", {"cells": [list(t.cell)]}))
        risk -= 1.0 - t.confidence
    return out


#: Per-tile doubts that count towards ``readings_unreliable``: the reader's own, and the disagreements that
#: betray a misread (touching edges that do not match, marks against the ground colour).
_TILE_DOUBT_CODES = ("tile_doubtful", "tile_set_conflict", "tile_unassigned", "edge_colours_doubtful",
                     "contact_doubtful", "marks_vs_ground")


def _tile_reading(cell, ev: rd.TileEvidence, scores: np.ndarray, col: int, columns: list, purity: float,
                  config: CmykVisionConfig, sure_scores: np.ndarray | None = None,
                  sure_posterior: np.ndarray | None = None) -> tuple[TileReading, list[Flag]]:
    """One tile's reading from its score row and assigned column, and its own doubts; the confidences come from
    ``sure_scores`` when given (:func:`_confidence_scores`), or from their posterior ``sure_posterior`` (the
    same, computed for every tile at once)."""
    flags = []
    rot = rd.ROTATIONS[ev.rotation]
    if sure_posterior is not None:
        post = sure_posterior
    else:
        post = rd.posterior(scores if sure_scores is None else sure_scores)
    levels = _column_levels(tuple(columns))
    own_best = int(np.argmax(scores))
    if col < 0:
        col = own_best
        flags.append(Flag("tile_unassigned", f"tile at {list(cell)} matches no tile left in the set",
                          {"cells": [list(cell)]}))
    kind = "k" if columns[col] == "k" else "normal"
    tile_conf = float(post[col] if columns[col] != "k" else post[-2:].sum())
    reg = min(max((purity - config.purity_bad) / (config.purity_good - config.purity_bad), 0.0), 1.0)  # np.clip's
    tile_conf *= reg * config.confidence_scale
    k_light = kind == "k" and _k_ground_sigmas(ev, config) > config.k_ground_max_sigma
    if k_light:  # the best of bad readings, not a K: a tile whose marks the photo lost, on a light ground
        z = _k_ground_sigmas(ev, config)
        tile_conf = min(tile_conf, float(np.exp(-0.5 * (z * z - config.k_ground_max_sigma ** 2))))
    edges = {}
    for d, dn in enumerate(rd.DIRS):
        ink = rot[d]
        ci = rd.INKS.index(ink)
        if kind == "k":
            edges[dn] = EdgeReading(ink, None, round(ev.rotation_confidence, 3))
            continue
        lv = columns[col][ci]
        lv_post = float(post[levels[:, ci] == lv].sum())
        edges[dn] = EdgeReading(ink, int(lv), round(float(min(lv_post, ev.rotation_confidence)), 3))
    tile = TileReading(cell=cell, kind=kind, edges=edges, confidence=round(tile_conf, 3))
    if own_best != col and columns[own_best] != columns[col]:
        flags.append(Flag("tile_set_conflict",
                          f"tile at {list(cell)} looks most like {_name(columns[own_best])} but that tile "
                          f"is taken by another reading; read as {_name(columns[col])}",
                          {"cells": [list(cell)]}))
    elif k_light:
        flags.append(Flag("tile_doubtful", f"tile at {list(cell)} read as a K tile, but its ground is far lighter "
                          f"than a K tile's (luminance {ev.dark_luminance:.2f}): its marks may be lost",
                          {"cells": [list(cell)]}))
    elif tile_conf < config.min_tile_confidence:
        flags.append(Flag("tile_doubtful", f"tile at {list(cell)} read as {_name(columns[col])} with "
                          f"confidence {tile_conf:.2f}", {"cells": [list(cell)]}))
    if kind == "normal":
        gap = np.abs(ev.ground_est - np.array(columns[col], float)).max()
        mark_best = [int(np.argmax(ev.mark_ll[d, :6])) for d in range(3)]
        mark_cmy = [mark_best[rot.index(ink)] for ink in rd.INKS]
        if gap > config.ground_disagree_levels and tuple(mark_cmy) == tuple(columns[col]):
            flags.append(Flag("marks_vs_ground", f"tile at {list(cell)}: marks read {tuple(mark_cmy)} but "
                              f"the ground colour looks like {tuple(np.round(ev.ground_est, 1))}",
                              {"cells": [list(cell)]}))
    if ev.rotation_confidence < config.min_edge_confidence:
        flags.append(Flag("edge_colours_doubtful", f"tile at {list(cell)}: the edge inks do not clearly "
                          "follow the clockwise cyan-magenta-yellow order", {"cells": [list(cell)]}))
    return tile, flags


@lru_cache(maxsize=4)
def _column_levels(columns: tuple) -> np.ndarray:
    """The score-matrix columns' levels (C, M, Y), a K column's (-1, -1, -1), shape (len(columns), 3)."""
    return _read_only(np.array([c if c != "k" else (-1, -1, -1) for c in columns]))


def _k_ground_sigmas(ev: rd.TileEvidence, config: CmykVisionConfig) -> float:
    """How many sigmas of the K ground model (``cmyk_read.k_ground_loglik``) the tile's ground is from a K tile's."""
    return float(np.sqrt(-2.0 * rd.k_ground_loglik(ev, config.read)))


def _completeness_flags(mapper, frame: tl.TriangleLattice, coarse: _CoarseView, tiles: list[TileReading],
                        unread_cells: list, config: CmykVisionConfig, registered: bool = True) -> list[Flag]:
    """``mosaic_incomplete`` when tile-coloured area is left that no read tile explains.

    Two kinds: lattice cells next to the read ones whose edges show inks but were not read as tiles
    (partly hidden, glare, damaged), and tile evidence (all three inks together) away from every
    read tile. Each unexplained region is reported as a polygon in image pixels for the overlay.
    Where the bands sit off their places (not ``registered``: lens distortion, a bad frame), an empty cell
    enclosed by read tiles (a hole) cannot be told from a tile whose bands were missed: it is unread too.
    """
    e = config.edge_mm
    explained = np.zeros(coarse.evidence.shape, np.uint8)
    if tiles:
        v = frame.to_table(np.concatenate([tl.cell_vertices(*t.cell, e) for t in tiles]))
        cv2.fillPoly(explained, list(np.round(coarse.to_view(v)).astype(np.int32).reshape(-1, 3, 2)), 1)
    grow = max(3, int(round(config.explained_margin_mm / coarse.mm_per_px)) | 1)
    explained = cv2.dilate(explained, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow)))
    left = (coarse.evidence & (explained == 0)).astype(np.uint8)
    min_area = config.unexplained_min_tile_share * _cell_area_mm2(e) / coarse.mm_per_px ** 2
    # less tile evidence left than one region needs: no component can count (the labelling is most of this step's
    # cost)
    enough = np.count_nonzero(left) >= min_area
    n, comp, stats, _ = cv2.connectedComponentsWithStats(left) if enough else (1, None, None, None)
    regions_mm = []
    for c in range(1, n):
        if stats[c, cv2.CC_STAT_AREA] < min_area:
            continue
        cnts, _ = cv2.findContours((comp == c).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.convexHull(max(cnts, key=cv2.contourArea)).reshape(-1, 2).astype(np.float64)
        regions_mm.append(coarse.to_table(hull))
    read = {t.cell for t in tiles}
    cells = set(unread_cells) - read
    if not registered:
        cells |= _holes(read)
    # cells of the lattice under an unexplained region could hold tiles too
    for poly in regions_mm:
        lo, hi = poly.min(axis=0), poly.max(axis=0)
        for cell in _candidate_cells(frame, (lo[0], lo[1], hi[0], hi[1]), replace(config, candidate_margin_mm=0)):
            c = frame.to_table(np.array([tl.cell_centroid(*cell, e)]))[0].astype(np.float32)
            if cell not in read and cv2.pointPolygonTest(poly.astype(np.float32), (float(c[0]), float(c[1])),
                                                         False) >= 0:
                cells.add(cell)
    if not cells and not regions_mm:
        return []
    cell_polys = [frame.to_table(tl.cell_vertices(*c, e)) for c in sorted(cells)]
    regions_px = [np.round(mapper.to_px(p), 1).tolist() for p in regions_mm + cell_polys]
    area = sum(float(cv2.contourArea(p.astype(np.float32))) for p in regions_mm) + len(cells) * _cell_area_mm2(e)
    msg = (f"part of the mosaic was not read: {len(cells)} lattice cell(s) show tile colours but no tile was "
           f"read there" + (f", and {len(regions_mm)} tile-coloured region(s) lie off the read tiles"
                            if regions_mm else "") + "; the total could change with them")
    return [Flag("mosaic_incomplete", msg, {"unread_cells": [list(c) for c in sorted(cells)],
                                           "regions_px": regions_px, "unread_area_mm2": round(area, 1),
                                           "unexplained_regions": len(regions_mm)})]


def _holes(read: set) -> set:
    """Cells not in ``read`` whose three neighbours all are."""
    near = {tl.neighbour(*c, d) for c in read for d in rd.DIRS} - read
    return {c for c in near if all(tl.neighbour(*c, d) in read for d in rd.DIRS)}


def _name(t) -> str:
    return "a K tile" if t == "k" else f"C{t[0]} M{t[1]} Y{t[2]}"


def _contact_flags(tiles: list[TileReading], config: CmykVisionConfig) -> list[Flag]:
    """Touching edges that disagree (``geometry.mosaic``'s rule) while one side is unsure: the contact is in doubt."""
    by_cell = {t.cell: t for t in tiles}
    contacts = illegal_contacts({t.cell: {d: (e.colour, e.level) for d, e in t.edges.items()} for t in tiles})
    out = []
    for c in contacts:
        a, b = (by_cell[x].edges[c.direction] for x in c.cells)
        if min(a.confidence, b.confidence) < config.min_edge_confidence:
            msg = (f"tiles {list(c.cells[0])} and {list(c.cells[1])} disagree on their shared {c.direction} edge, "
                   "one reading unsure")
            out.append(Flag("contact_doubtful", msg, {"cells": [list(c.cells[0]), list(c.cells[1])]}))
    return out
