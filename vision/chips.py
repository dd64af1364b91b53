"""Carrotain chips: find every chip on a top-down view of the chip faces, its kind, colour and centre.

Works on a ``TopView`` resampled on the plane of the chip faces (2 mm above the table), with its
colours normalised by the frame's colour reference (black 0, white 1). Chips are bright discs on
a dark mat, dimmer under acrylic; the centre point of each is found by fitting a circle to the
rim (sub-pixel crossings along rays) and checked against the centre dot/hole.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from core.order_stats import median
from vision.colour import ColourConfig, classify, rgb_to_lab
from vision.morphology import disc_close, disc_open


@dataclass(frozen=True)
class ChipConfig:
    """Tunables of the chip detector (lengths in mm, levels on the normalised 0-1 scale).

    Attributes
    ----------
    diameter_mm, dot_diameter_mm, hole_diameter_mm : float
        Nominal chip geometry (from the component set).
    bright_fraction : float
        A pixel is "chip-bright" when its level exceeds its surroundings' by this fraction of (white - mat).
    min_rim_contrast : float
        Least face - surroundings level difference along the rays for a rim fit.
    background_kernel_mm, background_mm_per_px : float
        The surroundings: a grey opening this wide (wider than a chip), computed at this resolution.
    open_mm : float
        Opening diameter that removes print lines, print dots and mat specks.
    close_mm : float
        Closing diameter that mends shading cracks in a chip's face.
    max_hole_fill_mm : float
        Holes in the bright mask up to this diameter are filled (the chips' centre holes).
    min_peak_fraction : float
        A chip candidate needs a distance-transform peak of at least this fraction of the radius.
    nms_mm : float
        Minimum distance between two chips found (the best fit wins).
    peak_window_mm : float
        Distance-transform peaks are local maxima over this window (several per merged blob).
    skip_near_fit_mm : float
        Candidates this close to an already fitted centre are skipped.
    fit_iters : int
        Rim-fit iterations (rays re-cast from the new centre).
    n_rays : int
        Rays cast to find the rim.
    ray_range_mm : (float, float)
        Radii searched for the rim crossing.
    rim_tolerance_mm : float
        Rim crossings further than this from the nominal radius are outliers.
    min_rim_rays : float
        Fraction of rays with a good crossing needed to accept a chip, and of rays whose crossing lies on the circle
        fitted to them (within ``rim_outlier_mm``): fewer, and the crossings are no rim (a glare streak or crescent).
    rim_outlier_mm : float
        Crossings further than this from the first circle fit are dropped before the refit.
    fallback_peak_fraction, fallback_sigma_mm, fallback_confidence, fallback_max_area : float
        A chip-sized bright blob (distance peak >= this fraction of the radius, its component at most
        this many chip areas) whose rim cannot be fitted (print lines, glare, bevel shading) is kept
        with its blob centre, this sigma and its confidence scaled by this factor.
    rim_smooth_mm, ray_step_mm : float
        Smoothing of the level before the rays are sampled; radius step along a ray.
    rim_face_band_mm : (float, float)
        Radii where the face level is measured for the rim threshold.
    rim_outside_gap_mm : float
        The outside level is measured beyond the nominal radius plus this.
    rim_sigma_factor : float
        Centre sigma = this x the rim RMS / sqrt(rays used) (with the floor).
    rim_converged_mm : float
        The rim fit stops early once the centre moves less than this.
    patch_mm : float
        Half size of the patch read for the colours.
    read_patch_mm : float
        Half size of the view read around each candidate when the chips are searched on a coarser view
        (``find_chips``' ``patches``): the rays reach ``ray_range_mm`` from a centre that may move a few mm.
    face_annulus_mm : (float, float)
        Radii sampled for the face colour.
    centre_radius_mm : float
        Radius sampled for the dot/hole colour.
    centre_keep_fraction : float
        The fraction of those pixels, the least white, whose median is the centre's colour (``_centre_colour``: the
        board's white print crossing the dot is left out).
    radius_tolerance : float
        Accepted relative error of the fitted radius.
    base_sigma_mm : float
        Floor of the centre uncertainty (calibration and model errors).
    low_confidence : float
        Colour confidence under which a chip is flagged.
    out_of_play_margin_de : float
        With the colours in play known, a dot is named by the nearest colour in play unless a colour not in
        play is nearer by more than this (weighted delta E): about two standard deviations of one colour's
        dots within the photos of the dev set (a cast, glare or acrylic moves a dot about 7 per axis), while
        the palette's colours lie 28 or more apart. Chips of colours not in play are rare (they stay in the box).
    fallback_presence : float
        A blob chip (no rim fitted) may be glare or print, not a chip: its ``presence_confidence`` is at most this
        (under the rules' ``min_confidence``, so it may drop out of the count: the verdict is contested if that
        matters).
    dot_lightness_weight : float
        Weight of L* in a dot's colour distance (``_faded_distances``): a dot's lightness survives a camera's blur
        and chroma subsampling, its chroma does not, so lightness counts more than in ``ColourConfig``.
    dot_chroma_range : (float, float)
        The factors a dot's chroma may have been scaled by (faded by blur and chroma subsampling down to about a
        quarter at 960x720 behind motion blur; boosted by a phone's saturation up to 1.3x).
    photo_within_de, photo_between_de : float
        The photo's own dots as its colour reference (``_photo_colours``): the dots of one colour in one photo scatter
        about ``photo_within_de`` (weighted delta E per axis: print over the dot, glare, noise) around where that colour
        lies in that photo, which itself lies about ``photo_between_de`` per axis from where the palette predicts it (a
        phone's saturation and hue processing, the light, the acrylic). Measured on the tune sets' dots (within-photo
        and total spreads per colour: 4-8 and 5-13).
    photo_iters : int
        Rounds of the photo's reference (assign the dots, move each colour's reference, assign again).
    """

    diameter_mm: float = 25.0
    dot_diameter_mm: float = 7.0
    hole_diameter_mm: float = 6.0
    bright_fraction: float = 0.25
    min_rim_contrast: float = 0.06
    background_kernel_mm: float = 40.0
    background_mm_per_px: float = 2.0
    open_mm: float = 8.0
    close_mm: float = 2.5
    max_hole_fill_mm: float = 12.0
    min_peak_fraction: float = 0.55
    nms_mm: float = 18.0
    peak_window_mm: float = 5.0
    skip_near_fit_mm: float = 3.0
    fit_iters: int = 4
    n_rays: int = 48
    ray_range_mm: tuple[float, float] = (6.0, 19.0)
    rim_tolerance_mm: float = 2.0
    min_rim_rays: float = 0.35
    rim_outlier_mm: float = 1.0
    fallback_peak_fraction: float = 0.75
    fallback_sigma_mm: float = 1.5
    fallback_confidence: float = 0.5
    fallback_max_area: float = 2.0
    rim_smooth_mm: float = 0.5
    ray_step_mm: float = 0.25
    rim_face_band_mm: tuple[float, float] = (7.0, 10.0)
    rim_outside_gap_mm: float = 3.0
    rim_sigma_factor: float = 2.0
    rim_converged_mm: float = 0.02
    patch_mm: float = 12.0
    read_patch_mm: float = 28.0
    face_annulus_mm: tuple[float, float] = (5.5, 10.0)
    centre_radius_mm: float = 2.5
    centre_keep_fraction: float = 0.85
    radius_tolerance: float = 0.2
    base_sigma_mm: float = 0.4
    low_confidence: float = 0.35
    out_of_play_margin_de: float = 15.0
    fallback_presence: float = 0.3
    dot_lightness_weight: float = 1.5
    dot_chroma_range: tuple[float, float] = (0.25, 1.4)
    photo_within_de: float = 5.0
    photo_between_de: float = 8.0
    photo_iters: int = 3


#: Reads the chip faces' view around a table point: ``(centre_mm, half_mm) -> (rgb_norm (h, w, 3) float32, origin_mm,
#: mm_per_px)``, the square ``half_mm`` either side of the centre, colours normalised by the frame's reference.
PatchReader = Callable[[tuple[float, float], float], tuple[np.ndarray, tuple[float, float], float]]


@dataclass(frozen=True)
class ChipDetection:
    """One chip found in a top view.

    Attributes
    ----------
    xy_mm : (float, float)
        Centre (table mm, on the face plane).
    radius_mm : float
        Fitted rim radius.
    kind : str
        ``star``, ``colourless`` or ``first_star``.
    colour : str or None
        Dot colour name for a star chip.
    colour_confidence : float
    centre_sigma_mm : float
        1-sigma centre uncertainty from the rim fit.
    rim_residual_mm : float
        RMS distance of the rim crossings to the fitted circle.
    face_level : float
        Mean normalised level of the face (about 0.9 in the open, lower under acrylic).
    face_rgb : ndarray (3,)
        Normalised face colour.
    centre_rgb : ndarray (3,)
        Normalised colour at the centre (dot or hole).
    presence_confidence : float
        How sure it is that a chip lies here at all (``_read_chip``), apart from its kind and colour.
    kind_confidence : float
        How sure the hole-or-dot decision is (``colour_confidence`` is the least of this and the dot's colour
        confidence, times ``confidence_scale``).
    confidence_scale : float
        Factor on the confidence (a blob chip, no rim fitted: ``ChipConfig.fallback_confidence``).
    """

    xy_mm: tuple[float, float]
    radius_mm: float
    kind: str
    colour: str | None
    colour_confidence: float
    centre_sigma_mm: float
    rim_residual_mm: float
    face_level: float
    face_rgb: np.ndarray
    centre_rgb: np.ndarray
    presence_confidence: float = 1.0
    kind_confidence: float = 1.0
    confidence_scale: float = 1.0


def _bilinear(img: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sample a float image (H, W) or (H, W, C) at px coordinates (any shape), border-clamped."""
    return cv2.remap(img, x.astype(np.float32), y.astype(np.float32), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _fit_circle(pts: np.ndarray) -> tuple[np.ndarray, float]:
    """Algebraic (Kasa) circle fit; pts (N, 2) -> centre (2,), radius."""
    A = np.column_stack([2 * pts, np.ones(len(pts))])
    b = (pts ** 2).sum(axis=1)
    sol, *_ = np.linalg.lstsq(A, b, rcond=None)
    c = sol[:2]
    r = float(np.sqrt(max(sol[2] + c @ c, 1e-9)))
    return c, r


@dataclass(frozen=True)
class ChipFinding:
    """What the chip detector saw.

    Attributes
    ----------
    chips : list[ChipDetection]
    unread_xy_mm : list[(float, float)]
        Chip-like bright blobs (a chip-sized peak in the bright mask) that could be read neither by a
        rim fit nor as a blob chip, nor explained by a chip found: flagged, never dropped silently.
    """

    chips: list[ChipDetection]
    unread_xy_mm: list[tuple[float, float]]


@dataclass(frozen=True)
class _Rim:
    centre_px: np.ndarray
    radius_px: float
    rms_mm: float
    n_good: int
    fallback: bool


def detect_chips(
    rgb_norm: np.ndarray,
    origin_mm: tuple[float, float],
    mm_per_px: float,
    palette: dict[str, np.ndarray],
    face_palette: dict[str, np.ndarray],
    hole_rgb: np.ndarray,
    exclude_mm: list[tuple[float, float, float, float]] | None = None,
    config: ChipConfig = ChipConfig(),
    colour_config: ColourConfig = ColourConfig(lightness_weight=0.8),
    in_play: frozenset[str] = frozenset(),
) -> list[ChipDetection]:
    """Find the chips in a normalised top view of the chip-face plane (see ``find_chips``).

    Returns
    -------
    list[ChipDetection]
    """
    return find_chips(rgb_norm, origin_mm, mm_per_px, palette, face_palette, hole_rgb, exclude_mm, config,
                      colour_config, in_play).chips


def find_chips(
    rgb_norm: np.ndarray,
    origin_mm: tuple[float, float],
    mm_per_px: float,
    palette: dict[str, np.ndarray],
    face_palette: dict[str, np.ndarray],
    hole_rgb: np.ndarray,
    exclude_mm: list[tuple[float, float, float, float]] | None = None,
    config: ChipConfig = ChipConfig(),
    colour_config: ColourConfig = ColourConfig(lightness_weight=0.8),
    in_play: frozenset[str] = frozenset(),
    patches: PatchReader | None = None,
) -> ChipFinding:
    """Find the chips in a normalised top view of the chip-face plane.

    Steps: a bright mask (brighter than the surroundings), chip-sized distance-transform peaks as
    candidates, a rim circle fit per candidate (or the blob's centre where the rim cannot be fitted),
    the face and centre colours read, one chip per place.

    Parameters
    ----------
    rgb_norm : ndarray, shape (h, w, 3), float32
        Top view, normalised by the frame's colour reference.
    origin_mm : (float, float)
        Table position of view pixel (0, 0).
    mm_per_px : float
    palette : dict[str, ndarray (3,)]
        Dot colours (normalised nominal values), e.g. the six player colours.
    face_palette : dict[str, ndarray (3,)]
        Face colours: ``{"white": ..., "yellow": ...}`` (yellow = the first-star chip).
    hole_rgb : ndarray (3,)
        The mat's nominal colour (what a hole shows).
    exclude_mm : list of (x0, y0, x1, y1), optional
        Table rectangles to ignore (the calibration markers and their white paper).
    config, colour_config
    in_play : frozenset[str]
        The dot colours in play (the players' colours), when known: a dot is named by the nearest of these
        unless a colour not in play is clearly nearer (``ChipConfig.out_of_play_margin_de``). Empty: every
        colour of ``palette`` alike.
    patches : PatchReader, optional
        Where the chips are read: the normalised view around a table point at a finer resolution (``rgb_norm``
        is then only searched: its bright blobs give the candidates, each fitted and read on its patch). None:
        fitted and read on ``rgb_norm`` itself.

    Returns
    -------
    ChipFinding
    """
    s = mm_per_px
    whole = _view(rgb_norm, origin_mm, s, config)
    surround = _surround(whole.level, s, config)
    mask = _bright_mask(whole.level, surround, origin_mm, s, exclude_mm, config)
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5) * s  # mm
    R = config.diameter_mm / 2.0
    components: list = []  # the mask's connected components (labels, stats), computed when first needed
    found: list[tuple[float, ChipDetection]] = []
    fitted: list[np.ndarray] = []  # rim centres fitted, px of the view searched
    failed: list[np.ndarray] = []
    for c in _candidates(dist, s, config):
        if any(np.hypot(*(c - q)) * s < config.skip_near_fit_mm for q in fitted):
            continue
        view = whole if patches is None else _patch(patches, whole.mm(c), config)
        rim = _fit_rim(view.smooth, c if view is whole else view.px(whole.mm(c)), view.s, config)
        # searched on a coarser view, a blob without a rim is measured on its fine patch: a blob chip, or an unread
        # candidate, only where the fine view would find it as deep (``_fine_depth``)
        depth = np.inf if rim is not None or view is whole else _fine_depth(view, whole.mm(c), surround, whole,
                                                                           config)
        if rim is None and depth >= config.fallback_peak_fraction * R:
            if not components:
                components.extend(cv2.connectedComponentsWithStats(mask, connectivity=8)[1:3])
            rim = _blob_centre(mask, dist, components[0], components[1], c, s, config)
            if rim is not None and patches is not None:  # read on a patch around the blob's centre
                centre_mm = whole.mm(rim.centre_px)
                view = _patch(patches, centre_mm, config)
                rim = replace(rim, centre_px=view.px(centre_mm), radius_px=rim.radius_px * s / view.s)
        if rim is None:
            if depth >= config.min_peak_fraction * R:
                failed.append(c)
            continue
        det = _read_chip(view.img, rim, view.origin_mm, view.s, palette, face_palette, hole_rgb, config,
                         colour_config, in_play)
        if not rim.fallback:
            fitted.append(whole.px(view.mm(rim.centre_px)) if view is not whole else rim.centre_px)
        found.append((-1.0 if rim.fallback else rim.n_good / config.n_rays - rim.rms_mm, det))
    chips = _photo_colours(_one_per_place(found, config), palette, face_palette["white"], in_play, config,
                           colour_config)
    unread = []
    for c in failed:
        xy = np.asarray(origin_mm) + c * s
        if all(np.hypot(xy[0] - d.xy_mm[0], xy[1] - d.xy_mm[1]) >= config.nms_mm for d in chips) and \
                all(np.hypot(*(xy - u)) >= config.nms_mm for u in unread):
            unread.append(xy)
    return ChipFinding(chips, [(float(u[0]), float(u[1])) for u in unread])


@dataclass(frozen=True)
class _View:
    """A normalised top view of the chip faces (the whole view searched, or a patch read), its level and where it
    lies.

    Attributes
    ----------
    img : ndarray, shape (h, w, 3), float32
        Colours normalised by the frame's colour reference.
    level, smooth : ndarray, shape (h, w), float32
        Mean of the channels; smoothed by ``ChipConfig.rim_smooth_mm`` (what the rim fit samples).
    origin_mm : ndarray, shape (2,)
        Table position of pixel (0, 0).
    s : float
        mm per px.
    """

    img: np.ndarray
    level: np.ndarray
    smooth: np.ndarray
    origin_mm: np.ndarray
    s: float

    def mm(self, xy_px: np.ndarray) -> np.ndarray:
        """View px (2,) -> table mm (2,)."""
        return self.origin_mm + np.asarray(xy_px, dtype=np.float64) * self.s

    def px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table mm (2,) -> view px (2,)."""
        return (np.asarray(xy_mm, dtype=np.float64) - self.origin_mm) / self.s


def _view(rgb_norm: np.ndarray, origin_mm, s: float, config: ChipConfig) -> _View:
    img = np.asarray(rgb_norm, dtype=np.float32)  # read only: no copy when it is float32 already
    level = cv2.transform(img, np.full((1, 3), 1.0 / 3.0, np.float32)).reshape(img.shape[:2])  # the mean of RGB
    return _View(img, level, cv2.GaussianBlur(level, (0, 0), config.rim_smooth_mm / s),
                 np.asarray(origin_mm, dtype=np.float64), float(s))


def _patch(patches: PatchReader, centre_mm: np.ndarray, config: ChipConfig) -> _View:
    """The view read around a candidate (``ChipConfig.read_patch_mm`` either side of it)."""
    img, origin_mm, s = patches((float(centre_mm[0]), float(centre_mm[1])), config.read_patch_mm)
    return _view(img, origin_mm, s, config)


@dataclass(frozen=True)
class _Surround:
    """What a pixel must stand out of to be chip-bright: the level around it (a grey opening wider than a chip, on a
    coarse grid) and the margin above it.

    Attributes
    ----------
    level : ndarray, shape (h', w'), float32
        The opened level, smoothed, on the grid of ``ChipConfig.background_mm_per_px``.
    shape : (int, int)
        (h, w) of the view it was made from (``cv2.resize`` maps the grid onto it).
    margin : float
        ``bright_fraction`` of (white - mat).
    """

    level: np.ndarray
    shape: tuple[int, int]
    margin: float

    def full(self) -> np.ndarray:
        """The level around every pixel of the view it was made from, shape (h, w)."""
        return cv2.resize(self.level, (self.shape[1], self.shape[0]), interpolation=cv2.INTER_LINEAR)

    def at(self, x_px: np.ndarray, y_px: np.ndarray) -> np.ndarray:
        """The level around (fractional) px of the view it was made from, interpolated as ``full`` does, shape of
        ``x_px``."""
        fy, fx = self.level.shape[0] / self.shape[0], self.level.shape[1] / self.shape[1]
        gx = ((x_px + 0.5) * fx - 0.5).astype(np.float32)
        gy = ((y_px + 0.5) * fy - 0.5).astype(np.float32)
        return cv2.remap(self.level, gx, gy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _surround(level: np.ndarray, s: float, config: ChipConfig) -> _Surround:
    """The level a chip must stand out of (``_Surround``): chips stand out on the dark mat, under dimming acrylic and
    under a board lit by glare alike."""
    mat_level = median(level)
    f = s / config.background_mm_per_px
    small = cv2.resize(level, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    kb = max(int(round(config.background_kernel_mm / config.background_mm_per_px)) | 1, 3)
    bg = cv2.blur(disc_open(small, kb), (3, 3))
    return _Surround(bg, (level.shape[0], level.shape[1]), config.bright_fraction * (1.0 - mat_level))


def _bright_mask(level: np.ndarray, surround: _Surround, origin_mm, s: float, exclude_mm, config: ChipConfig
                 ) -> np.ndarray:
    """Chip-bright pixels (brighter than their surroundings by the margin), holes filled, thin print removed,
    uint8 (h, w)."""
    mask = (level - surround.full() > surround.margin).astype(np.uint8)
    for x0, y0, x1, y1 in exclude_mm or []:
        c0, r0 = int(np.floor((x0 - origin_mm[0]) / s)), int(np.floor((y0 - origin_mm[1]) / s))
        c1, r1 = int(np.ceil((x1 - origin_mm[0]) / s)), int(np.ceil((y1 - origin_mm[1]) / s))
        mask[max(r0, 0):max(r1, 0), max(c0, 0):max(c1, 0)] = 0
    return _mended(mask, s, config)


def _mended(mask: np.ndarray, s: float, config: ChipConfig) -> np.ndarray:
    """A bright mask (h, w) uint8 with its holes (colourless / first-star chips) and shading gaps filled first, then
    thin bright print dropped."""
    hk = max(int(round(config.close_mm / s)) | 1, 3)
    mask = disc_close(mask, hk)
    contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    max_hole_px = np.pi * (config.max_hole_fill_mm / 2.0) ** 2 / s ** 2
    if hier is not None:
        holes = [c for c, h in zip(contours, hier[0]) if h[3] >= 0 and cv2.contourArea(c) < max_hole_px]
        cv2.drawContours(mask, holes, -1, 1, -1)
    k = max(int(round(config.open_mm / s)) | 1, 3)
    return disc_open(mask, k)


def _fine_depth(patch: _View, centre_mm: np.ndarray, surround: _Surround, searched: _View, config: ChipConfig
                ) -> float:
    """How deep (mm) the bright mask runs at a candidate found on a coarser view, measured on its fine patch: the
    patch's own bright mask (the searched view's surroundings and margin, mended at the patch's resolution), its
    distance transform's largest value within one coarse pixel of the candidate: the depth the fine view of the whole
    mat measures there. The coarse view's own is off by up to half its pixel either way (its pixels quantise the
    mask and the distances), which decides blobs near the depth thresholds (a glare crescent on a board's edge).

    Parameters
    ----------
    patch : _View
        The fine view around the candidate.
    centre_mm : ndarray, shape (2,)
        The candidate (table mm).
    surround : _Surround
        The searched view's surroundings.
    searched : _View
        The coarser view searched (where ``surround`` was made).
    """
    h, w = patch.level.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    x_px = (patch.origin_mm[0] + xs * patch.s - searched.origin_mm[0]) / searched.s
    y_px = (patch.origin_mm[1] + ys * patch.s - searched.origin_mm[1]) / searched.s
    mask = _mended((patch.level - surround.at(x_px, y_px) > surround.margin).astype(np.uint8), patch.s, config)
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5) * patch.s
    cx, cy = patch.px(centre_mm)
    r = searched.s / patch.s
    near = (xs - cx) ** 2 + (ys - cy) ** 2 <= r * r
    return float(dist[near].max()) if near.any() else 0.0


def _candidates(dist: np.ndarray, s: float, config: ChipConfig) -> list[np.ndarray]:
    """Distance-transform peaks at least ``min_peak_fraction`` of a chip radius deep (px), deepest first."""
    R = config.diameter_mm / 2.0
    win = max(int(round(config.peak_window_mm / s)) | 1, 3)
    peaks = (dist >= config.min_peak_fraction * R) & (dist >= cv2.dilate(dist, np.ones((win, win), np.uint8)) - 1e-6)
    ys, xs = np.nonzero(peaks)
    cands: list[np.ndarray] = []
    for i in np.argsort(-dist[ys, xs]):
        p = np.array([xs[i], ys[i]], dtype=np.float64)
        if all(np.hypot(*(p - q)) * s >= config.peak_window_mm for q in cands):
            cands.append(p)
    return cands


def _fit_rim(smooth: np.ndarray, c: np.ndarray, s: float, config: ChipConfig) -> _Rim | None:
    """Circle fit to the rim: half-level crossings along rays from the centre, re-cast a few times."""
    R = config.diameter_mm / 2.0
    ang = np.linspace(0, 2 * np.pi, config.n_rays, endpoint=False)
    step = config.ray_step_mm
    radii = np.arange(config.ray_range_mm[0], config.ray_range_mm[1], step)
    face_band = (radii > config.rim_face_band_mm[0]) & (radii < config.rim_face_band_mm[1])
    centre = c.copy()
    rim = None
    ar = np.arange(config.n_rays)
    for _it in range(config.fit_iters):
        rx = centre[0] + np.cos(ang)[:, None] * radii[None, :] / s
        ry = centre[1] + np.sin(ang)[:, None] * radii[None, :] / s
        prof = _bilinear(smooth, rx, ry)  # (n_rays, n_r)
        face = float(np.median(prof[:, face_band]))
        outside = float(np.median(prof[:, radii > R + config.rim_outside_gap_mm]))
        if face - outside < config.min_rim_contrast:
            break
        half = 0.5 * (face + outside)
        # per ray, the face -> outside crossing nearest the nominal radius
        above = prof > half
        trans = above[:, :-1] & ~above[:, 1:] & (np.abs(radii[:-1] - R) < config.rim_tolerance_mm + 1.0)[None, :]
        cost = np.where(trans, np.abs(radii[:-1] - R)[None, :], np.inf)
        j = np.argmin(cost, axis=1)
        a, b = prof[ar, j], prof[ar, j + 1]
        crossing = np.where(np.isfinite(cost[ar, j]), radii[j] + step * (a - half) / np.maximum(a - b, 1e-6), np.nan)
        good = np.isfinite(crossing) & (np.abs(crossing - R) < config.rim_tolerance_mm)
        if good.mean() < config.min_rim_rays:
            break
        pts = np.column_stack([np.cos(ang[good]) * crossing[good], np.sin(ang[good]) * crossing[good]]) / s
        pts = pts + centre
        cc, rr = _fit_circle(pts)
        resid = np.hypot(*(pts - cc).T) - rr
        keep = np.abs(resid) * s < config.rim_outlier_mm
        on_circle = keep.sum() >= config.min_rim_rays * config.n_rays
        if on_circle and not keep.all():
            pts = pts[keep]
            cc, rr = _fit_circle(pts)
            resid = np.hypot(*(pts - cc).T) - rr
        moved = float(np.hypot(*(cc - centre))) * s
        centre = cc
        # a rim is a circle: too few crossings on the circle fitted to them (a glare crescent, print) is none
        ok = abs(rr * s - R) < config.radius_tolerance * R and on_circle
        rim = _Rim(cc, rr, float(np.sqrt(np.mean(resid ** 2))) * s, len(pts), False) if ok else None
        if moved < config.rim_converged_mm:
            break
    return rim


def _blob_centre(mask, dist, labels, stats, c: np.ndarray, s: float, config: ChipConfig) -> _Rim | None:
    """A chip-sized bright blob whose rim cannot be fitted (print lines, glare, bevel shading): its
    centre is the mask's centroid within a chip radius of the peak; None if not chip-like."""
    R = config.diameter_mm / 2.0
    chip_area_px = np.pi * R ** 2 / s ** 2
    peak = float(dist[int(c[1]), int(c[0])])
    st = stats[labels[int(c[1]), int(c[0])]]
    touches_border = (st[0] == 0 or st[1] == 0 or st[0] + st[2] >= mask.shape[1] or st[1] + st[3] >= mask.shape[0])
    if peak < config.fallback_peak_fraction * R or touches_border or st[4] > config.fallback_max_area * chip_area_px:
        return None
    yy0, xx0 = np.mgrid[-int(R / s):int(R / s) + 1, -int(R / s):int(R / s) + 1]
    inside = np.hypot(xx0, yy0) * s <= R
    qx = np.clip(int(c[0]) + xx0[inside], 0, mask.shape[1] - 1)
    qy = np.clip(int(c[1]) + yy0[inside], 0, mask.shape[0] - 1)
    m = mask[qy, qx] > 0
    return _Rim(np.array([qx[m].mean(), qy[m].mean()]), R / s, config.fallback_sigma_mm, 1, True)


def _read_chip(img, rim: _Rim, origin_mm, s: float, palette, face_palette, hole_rgb, config: ChipConfig,
               colour_config: ColourConfig, in_play: frozenset[str] = frozenset()) -> ChipDetection:
    """Face colour (annulus) -> white or yellow face; centre colour relative to the face -> hole or dot
    (and the dot's colour); confidence the least sure of these decisions."""
    centre = rim.centre_px
    half = int(config.patch_mm / s)
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1]
    rr_mm = np.hypot(xx, yy) * s
    px = np.clip(np.round(centre[0]) + xx, 0, img.shape[1] - 1).astype(int)
    py = np.clip(np.round(centre[1]) + yy, 0, img.shape[0] - 1).astype(int)
    patch = img[py, px]
    ring = (rr_mm > config.face_annulus_mm[0]) & (rr_mm < config.face_annulus_mm[1])
    core = rr_mm < config.centre_radius_mm
    face_rgb = np.median(patch[ring], axis=0)
    centre_rgb = _centre_colour(patch[core], face_rgb, config)
    face_names, face_conf = classify(face_rgb[None], face_palette, colour_config)
    face_name = face_names[0]
    nominal_face = face_palette[face_name]
    rel = centre_rgb / np.maximum(face_rgb, 1e-3) * nominal_face
    # hole or dot: a yellow face is the first-star chip, which has a hole (no chip of the set has a yellow face and
    # a dot). On a white face, channel by channel: a hole shows the dark mat in every channel, every dot colour is
    # as bright as the face in at least one (green, the darkest so, at 0.70). Blur lightens a hole's centre and
    # fades a dot's chroma towards its lightness, but the brightest channel of a dot stays above a hole's.
    ratio = float(np.max(centre_rgb / np.maximum(face_rgb, 1e-3)))
    hole_ratio = float(np.max(hole_rgb / nominal_face))
    dark_dot = min(float(np.max(np.asarray(v) / nominal_face)) for v in palette.values())
    split = 0.5 * (hole_ratio + dark_dot)
    hole_conf = float(np.clip(abs(ratio - split) / max(0.5 * (dark_dot - hole_ratio), 1e-3), 0.0, 1.0))
    if face_name == "yellow":
        ratio, hole_conf = -np.inf, 1.0
    if ratio < split:
        kind, colour = ("first_star" if face_name == "yellow" else "colourless"), None
        confidence = float(min(hole_conf, face_conf[0]))
        presence = 1.0  # a dark centre on a bright disc: a holed chip, or a chip with a dark dot
    else:
        dist = _faded_distances(rel, palette, config)  # once, for its colour and its presence
        colour, dot_conf = _name_dot(dist, in_play, config, colour_config)
        kind = "star"
        confidence = float(min(hole_conf, dot_conf))
        presence = _presence_of(dist, colour_config)
    sigma = float(np.hypot(config.base_sigma_mm, config.rim_sigma_factor * rim.rms_mm / np.sqrt(max(rim.n_good, 1))))
    scale = 1.0
    if rim.fallback:
        sigma = max(sigma, config.fallback_sigma_mm)
        scale = config.fallback_confidence
        presence = min(presence, config.fallback_presence)
    confidence *= scale
    xy = np.asarray(origin_mm) + centre * s
    return ChipDetection(
        xy_mm=(float(xy[0]), float(xy[1])), radius_mm=float(rim.radius_px * s), kind=kind, colour=colour,
        colour_confidence=confidence, centre_sigma_mm=sigma, rim_residual_mm=rim.rms_mm,
        face_level=float(face_rgb.mean()), face_rgb=face_rgb, centre_rgb=centre_rgb, presence_confidence=presence,
        kind_confidence=hole_conf, confidence_scale=scale,
    )


def _centre_colour(core_rgb: np.ndarray, face_rgb: np.ndarray, config: ChipConfig) -> np.ndarray:
    """The colour a chip's centre shows (its dot, or the mat through its hole), print on a board above it left out.

    A board's constellation is printed in white on its acrylic, and a chip lies where its star is: print lines and
    the star's dot often cross the chip's centre, whitening a plain median (a red dot read pink, a hole read as a pale
    dot). Every dot colour is darker than the face in at least one channel, as is a hole in all of them, while print
    is as white as the face: the pixels ranked by their least channel relative to the face (``whiteness``), the
    least white ``ChipConfig.centre_keep_fraction`` of them are the centre's own; their median is its colour.

    Parameters
    ----------
    core_rgb : ndarray, shape (N, 3)
        The pixels within ``ChipConfig.centre_radius_mm`` of the chip's centre (normalised).
    face_rgb : ndarray, shape (3,)
        The chip face's colour.

    Returns
    -------
    ndarray, shape (3,)
    """
    whiteness = (core_rgb / np.maximum(face_rgb, 1e-3)).min(axis=1)
    keep = max(int(round(config.centre_keep_fraction * len(core_rgb))), 1)
    least_white = np.argpartition(whiteness, keep - 1)[:keep]
    return np.median(core_rgb[least_white], axis=0)


def _dot_colour(rel_rgb: np.ndarray, palette: dict[str, np.ndarray], in_play: frozenset[str], config: ChipConfig,
                colour_config: ColourConfig) -> tuple[str, float]:
    """A dot's colour name and confidence: the nearest colour in play (its confidence among the colours in
    play), or a colour not in play only when it is nearer by more than ``out_of_play_margin_de`` (its
    confidence among all colours). Without colours in play (or none of them in the palette), among all.
    Nearness is ``_faded_distances``: a colour's lightness as painted, its chroma faded or boosted.

    Parameters
    ----------
    rel_rgb : ndarray, shape (3,)
        The dot colour relative to its chip's face, on the normalised scale.
    """
    return _name_dot(_faded_distances(rel_rgb, palette, config), in_play, config, colour_config)


def _name_dot(dist: dict[str, float], in_play: frozenset[str], config: ChipConfig, colour_config: ColourConfig
              ) -> tuple[str, float]:
    """``_dot_colour``'s choice among the colours in play (or not) given the distances to every palette colour."""
    names = list(dist)
    playing = [k for k in names if k in in_play]
    if not playing or len(playing) == len(names):
        return _nearest(dist, names, colour_config)
    nearest_out = min((k for k in names if k not in in_play), key=dist.__getitem__)
    if dist[nearest_out] < min(dist[k] for k in playing) - config.out_of_play_margin_de:
        return _nearest(dist, names, colour_config)
    return _nearest(dist, playing, colour_config)


def _dot_presence(rel_rgb: np.ndarray, palette: dict[str, np.ndarray], config: ChipConfig,
                  colour_config: ColourConfig) -> float:
    """How sure it is that a bright disc read as a star chip is a chip: its centre must look like a dot of some
    palette colour, exp(-d / ``max_de``) with d the distance to the nearest (``_faded_distances``, every colour of
    the palette). Glare on acrylic is a bright disc whose centre is as white as its face: about 43 from every
    colour (presence 0.34); the dots of the tune sets lie within 28 (0.5) but for 1-7 % of them.

    Parameters
    ----------
    rel_rgb : ndarray, shape (3,)
        The centre's colour relative to its chip's face, on the normalised scale.
    """
    return _presence_of(_faded_distances(rel_rgb, palette, config), colour_config)


def _presence_of(dist: dict[str, float], colour_config: ColourConfig) -> float:
    """``_dot_presence`` given the distances to every palette colour (``_faded_distances``)."""
    return float(np.exp(-min(dist.values()) / colour_config.max_de))


def _faded_distances(rel_rgb: np.ndarray, palette: dict[str, np.ndarray], config: ChipConfig) -> dict[str, float]:
    """How far a dot's colour lies from each palette colour once that colour's chroma may have faded.

    A dot is small (7 mm): a camera's blur and its chroma subsampling (JPEG 4:2:0 keeps colour at half the
    resolution of the lightness) mix the dot's chroma with the white face around it, and a phone boosts it,
    while its lightness survives. A palette colour (L, a, b) therefore predicts the dot as (L, k a, k b) for
    some chroma factor k in ``dot_chroma_range`` (fitted per colour by least squares); the distance is the
    residual, with the lightness weighted by ``dot_lightness_weight``.

    Parameters
    ----------
    rel_rgb : ndarray, shape (3,)
        The dot colour relative to its chip's face, on the normalised scale.
    palette : dict[str, ndarray (3,)]

    Returns
    -------
    dict[str, float]
        Palette name -> weighted delta E.
    """
    d = np.linalg.norm(_faded_residuals(np.asarray(rel_rgb, np.float64)[None], palette, config)[0], axis=1)
    return {n: float(v) for n, v in zip(palette, d)}


def _faded_residuals(rel_rgb: np.ndarray, palette: dict[str, np.ndarray], config: ChipConfig) -> np.ndarray:
    """``_faded_distances``' residuals: what remains of each dot's colour once each palette colour's best faded
    prediction is taken away, (weighted dL*, da*, db*).

    Parameters
    ----------
    rel_rgb : ndarray, shape (N, 3)
        Dot colours relative to their chips' faces, on the normalised scale.
    palette : dict[str, ndarray (3,)], K colours

    Returns
    -------
    ndarray, shape (N, K, 3)
    """
    lab = rgb_to_lab(np.asarray(rel_rgb, np.float64).reshape(-1, 3))
    ref = rgb_to_lab(np.stack([np.asarray(v, np.float64) for v in palette.values()]))
    chroma = ref[:, 1:]
    k = np.clip(lab[:, 1:] @ chroma.T / np.maximum((chroma ** 2).sum(axis=1), 1e-9), *config.dot_chroma_range)  # (N, K)
    d_l = config.dot_lightness_weight * (lab[:, None, 0] - ref[None, :, 0])
    return np.concatenate([d_l[..., None], lab[:, None, 1:] - k[..., None] * chroma[None]], axis=2)


def _photo_colours(chips: list[ChipDetection], palette: dict[str, np.ndarray], nominal_face: np.ndarray,
                   in_play: frozenset[str], config: ChipConfig, colour_config: ColourConfig) -> list[ChipDetection]:
    """The star chips' dot colours named again, with the photo's other dots as its colour reference.

    Where a colour's dots lie in a photo depends on the photo (a phone's saturation and hue processing, the light, the
    acrylic over them) by about ``ChipConfig.photo_between_de`` per axis, while the dots of one colour in that photo
    scatter only about ``photo_within_de`` around it: the other dots read in the same photo tell where each colour
    lies in it. Each colour's offset from the palette's prediction (``_faded_residuals``) is the mean residual of
    the other dots of that colour (weighted by how surely each is of it), shrunk towards none by the prior
    (a colour with few dots in the photo keeps nearly the palette's prediction); a chip never counts in its own
    reference. Each dot is then named (``_name_dot``) by its distances to these references, its confidence at most
    its reading's alone (the photo may settle a name, never make a reading surer).

    Parameters
    ----------
    chips : list[ChipDetection]
    palette : dict[str, ndarray (3,)]
        Dot colours (normalised nominal values).
    nominal_face : ndarray (3,)
        The chips' white face (what the dots are read relative to).
    in_play, config, colour_config
        As ``find_chips``.

    Returns
    -------
    list[ChipDetection]
        The chips, the star chips' ``colour`` and ``colour_confidence`` named again.
    """
    stars = [i for i, c in enumerate(chips) if c.kind == "star"]
    if len(stars) < 2:
        return chips
    names = list(palette)
    rel = np.stack([chips[i].centre_rgb / np.maximum(chips[i].face_rgb, 1e-3) * nominal_face for i in stars])
    res = _faded_residuals(rel, palette, config)  # (N, K, 3)
    allowed = np.array([k in in_play for k in names]) if any(k in in_play for k in names) else np.ones(len(names), bool)
    prior = (config.photo_within_de / config.photo_between_de) ** 2
    offset = np.zeros_like(res)  # each chip's view of each colour's offset (the others' residuals), (N, K, 3)
    for _ in range(config.photo_iters):
        d2 = ((res - offset) ** 2).sum(axis=2) / (2.0 * config.photo_within_de ** 2)
        d2 = np.where(allowed[None], d2, np.inf)
        w = np.exp(-(d2 - d2.min(axis=1, keepdims=True)))
        w /= w.sum(axis=1, keepdims=True)  # (N, K): how surely each dot is of each colour
        total = (w[..., None] * res).sum(axis=0)  # (K, 3)
        offset = (total[None] - w[..., None] * res) / (w.sum(axis=0)[None, :, None] - w[..., None] + prior)
    dist = np.linalg.norm(res - offset, axis=2)
    out = list(chips)
    for row, i in enumerate(stars):
        c = chips[i]
        colour, dot_conf = _name_dot({n: float(v) for n, v in zip(names, dist[row])}, in_play, config, colour_config)
        confidence = float(min(c.kind_confidence, dot_conf) * c.confidence_scale)
        out[i] = replace(c, colour=colour, colour_confidence=min(confidence, c.colour_confidence))
    return out


def _nearest(dist: dict[str, float], names: list[str], colour_config: ColourConfig) -> tuple[str, float]:
    """The nearest of ``names`` and its confidence, as ``vision.colour.classify`` rates it: the gap to the
    runner-up over (gap + ``scale_de``), times exp(-distance / ``max_de``)."""
    order = sorted(names, key=dist.__getitem__)
    best = dist[order[0]]
    conf = 1.0
    if len(order) > 1:
        margin = dist[order[1]] - best
        conf = margin / (margin + colour_config.scale_de)
    return order[0], float(np.clip(conf * np.exp(-best / colour_config.max_de), 0.0, 1.0))


def _one_per_place(found: list[tuple[float, ChipDetection]], config: ChipConfig) -> list[ChipDetection]:
    """One chip per place: the best fit wins (real chips are a diameter apart)."""
    out: list[ChipDetection] = []
    for _, det in sorted(found, key=lambda f: -f[0]):
        if all(np.hypot(det.xy_mm[0] - o.xy_mm[0], det.xy_mm[1] - o.xy_mm[1]) >= config.nms_mm for o in out):
            out.append(det)
    return out
