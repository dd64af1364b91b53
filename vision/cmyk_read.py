"""Read CMYK! tiles: edge inks, mark levels, ground colour, and the tile-set assignment.

Everything here works on colours and profiles already sampled from the photo (see ``vision.cmyk``):
no geometry, no I/O. Evidence is kept as log-likelihoods so that marks, ground colour, the clockwise
C-M-Y order and the known tile set (each tile exists once) are combined, and disagreements are
reported instead of silently resolved.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from core.order_stats import median_last, percentile_last
from vision.colour import linear_to_srgb, srgb_to_linear  # the project's one sRGB <-> linear conversion

INKS = ("cyan", "magenta", "yellow")
INK_RGB = np.array([[0, 170, 235], [230, 0, 135], [250, 225, 0]], dtype=np.float64)
K_GROUND_RGB = np.array([28, 28, 30], dtype=np.float64)
#: Allowed direction -> ink maps (H, P, N): the clockwise C, M, Y order seen from above.
ROTATIONS = (("yellow", "cyan", "magenta"), ("cyan", "magenta", "yellow"), ("magenta", "yellow", "cyan"))
#: Each rotation's band inks as indices into ``INKS``, shape (3 rotations, 3 bands H, P, N).
_ROTATION_INKS = np.array([[INKS.index(c) for c in rot] for rot in ROTATIONS], np.intp)
DIRS = ("H", "P", "N")
#: Hue of each ink on OpenCV's full 0..255 hue scale (cyan ~197 deg, magenta ~325, yellow ~54).
INK_HUES_256 = (140, 231, 38)


@dataclass(frozen=True)
class ReadConfig:
    """Tunables of tile reading."""

    ink_min_saturation: float = 0.35
    ink_min_chroma: float = 0.0
    ink_min_value: float = 0.48
    ink_hue_tolerance_256: int = 14
    ground_sigma_levels: float = 0.55
    ground_sigma_min: float = 0.3
    ground_sigma_max: float = 1.2
    mark_sigma_floor: float = 0.03
    mark_samples_per_independent: float = 8.0
    mark_min_amplitude: float = 0.12
    dot_pitch_mm: float = 4.0
    dot_diameter_mm: float = 2.5
    dash_length_mm: float = 5.0
    dash_amplitude_ratio: float = 0.6
    mark_shift_max_mm: float = 2.5
    mark_shift_step_mm: float = 0.5
    k_max_luminance: float = 0.04
    normal_min_luminance: float = 0.09
    k_log_sigma: float = 0.3
    #: A K tile seen without its letter resolved (``TileEvidence.k_corner_value``, ``k_centre_value``): its ground
    #: is black at the corners of its inner triangle, where the white letter never reaches, and lighter at the
    #: centre where the blurred letter lies; a grey normal tile ((2, 2, 2), (3, 3, 3)) is even, its corners lighter
    #: than its centre (the bands' inks bleed in). The corners' value (brightest channel, albedo) is expected at
    #: most ``k_corner_value`` (log-normal spread ``k_corner_log_sigma`` above it), the centre over the corners at
    #: least ``k_letter_ratio`` (``k_letter_log_sigma`` below it), and the ground's levels no further apart than
    #: ``k_neutral_spread`` (spread ``k_neutral_sigma``): a black tile reads neutral. Photoreal dev set under the
    #: webcam simulation: K corners 0.10-0.40 and centre/corners 1.3-5; (3, 3, 3) corners 0.30-0.50, centre/corners
    #: 0.4-0.9.
    k_corner_value: float = 0.2
    #: ... and where the photo resolves the letter (as rendered: K corners 0.01-0.1), at most this.
    k_sharp_corner_value: float = 0.1
    k_corner_log_sigma: float = 0.2
    #: ... and its centre and its ground's dark part (``dark_luminance``) no lighter than a letter over black can
    #: make them (K under the webcam simulation: centre 0.33-0.67, dark luminance 0.05-0.32; light normal tiles:
    #: centre ~1, dark luminance 0.4-0.75), log-normal spreads ``k_centre_log_sigma``, ``k_log_sigma``.
    k_centre_value: float = 0.7
    k_centre_log_sigma: float = 0.1
    k_blurred_luminance: float = 0.3
    k_letter_ratio: float = 1.8
    k_letter_log_sigma: float = 0.3
    k_neutral_spread: float = 1.0
    k_neutral_sigma: float = 0.5
    #: Percentile of the corner samples' values taken as the corners' value.
    k_corner_percentile: float = 30.0
    mark_ll_floor: float = 20.0
    dash_dot_softness: float = 0.25
    dash_dot_sigma_ref: float = 1.0
    ground_band_min_expected: float = 0.3
    ground_albedo_max: float = 1.5
    ground_dark_percentile: float = 30.0
    #: Votes each ink gets before counting (Laplace prior) in a rotation's log-likelihood.
    rotation_prior_votes: float = 1.0
    #: A printed dot's diameter in Gaussian sigmas (its darkness profile's model).
    dot_diameter_sigmas: float = 2.6
    #: Mark reliability (:func:`mark_weight`): an edge whose corrected ground estimate lies within this of a
    #: whole level witnesses that level ...
    weight_ground_tolerance: float = 0.25
    #: ... a witness is itself wrong with this probability (a ground misjudged by glare, a neighbour's bleed) ...
    weight_witness_outlier: float = 0.1
    #: ... at least this many witnesses are needed (else the marks keep their full weight) ...
    weight_min_witnesses: int = 12
    #: Witnesses an ink needs for a weight of its own (:func:`ink_mark_weights`).
    weight_min_ink_witnesses: int = 4
    #: ... and the weights tried (a likelihood temperature on the marks, 1 = as modelled).
    weight_grid: tuple[float, ...] = (1.0, 0.7, 0.5, 0.35, 0.25, 0.18, 0.12, 0.08, 0.05)
    #: Mark error rates (:func:`mark_error_model`): the off-by-one and any-level rates tried (each), and their
    #: largest sum.
    error_grid: tuple[float, ...] = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
    error_max_total: float = 0.8
    #: Level pairs whose marks differ in shape only slightly (a single dot and the dash: 2.5 vs 5 mm long; n and n + 1
    #: dots, merged by a motion blur along the band), checked for whether this photo resolves them at the most blur it
    #: may have along a band (:func:`resolve_level_pairs`) ...
    resolve_pairs: tuple[tuple[int, int], ...] = ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5))
    #: ... a band's mark evidence between such a pair is at most the log-likelihood margin the two templates'
    #: difference can give against the band's own noise, and nothing below this.
    resolve_min_ll: float = 2.0
    #: The ground model (:func:`calibrate_ground_levels`): a ground of level ``L`` reads ``offset + slope * L`` (raw
    #: level estimate), each per ink and photo. Priors (mean, sd) from the photoreal dev set (tune) as rendered and as
    #: devices deliver it: the offset (a dim webcam's white ground reads about -0.45, as rendered about -0.1) ...
    ground_offset_prior: tuple[float, float] = (-0.2, 0.35)
    #: ... and the slope (0.75 .. 1.25 on nine photos in ten) ...
    ground_slope_prior: tuple[float, float] = (1.0, 0.15)
    #: ... and how far each ink's raw estimate moves per level of each other ink (row: the ink read, column: the
    #: other ink; the diagonal unused): the grounds' inks are not read apart cleanly (a tone curve, a white balance,
    #: the bands' gain), most of all cyan's, which reads lighter the more magenta and yellow a ground holds. Fitted per
    #: photo to the true levels on the photoreal dev set (tune) as rendered (23 mosaics) and under the webcam
    #: simulation seeds 0-2 (64): means C <- M -0.14 / -0.15, C <- Y -0.08 / -0.10, M <- C -0.01 / -0.02,
    #: M <- Y -0.02 / -0.04, Y <- C -0.05 / -0.06, Y <- M 0.03 / 0.07 (their mean here); spread between photos 0.01 -
    #: 0.18 (C's 0.11-0.18): one normal prior sd for all, ``ground_cross_prior_sd``.
    ground_cross_prior: tuple[tuple[float, float, float], ...] = ((0.0, -0.145, -0.09), (-0.015, 0.0, -0.03),
                                                                  (-0.055, 0.05, 0.0))
    ground_cross_prior_sd: float = 0.12
    #: Where the confidences (:func:`robust_level_loglik`) expect each level's ground on the model's scale: a level-5
    #: ground never reads as dark as its ink's absorption says (blur, flare, a tone curve lift it; photoreal dev set
    #: (tune), a straight model fitted per photo and ink to the true levels: level 5 reads C 4.41, M 4.78, Y 4.27 in
    #: the mean as rendered (522 tiles), 4.50, 4.81, 4.66 under the webcam simulation seeds 0-2 (1,551), 3.86, 3.74,
    #: 4.44 as a phone delivers them (507), levels 1-4 within 0.35 of themselves), so a ground at 4 does not make
    #: level 4 sure against 5. (The readings keep whole levels: placing level 5 there moved other levels' readings,
    #: webcam seeds 0-3 of the dev set, a table's total wrong.)
    confidence_level_places: tuple[float, ...] = (0.0, 1.0, 2.0, 3.0, 4.0, 4.5)
    #: The light on a tile (:func:`band_gain`): where the photo shows at least ``gain_balance_min_tiles`` tiles, a
    #: brightness per tile times one colour for the photo (fitted over all tiles' bands, ``gain_balance_rounds`` of
    #: alternating medians), not each channel from the tile's own bands: a channel one band alone shows (blue: the
    #: cyan band's) then reads the tile's light through that band's blur and noise, the yellow ground's level with it.
    gain_photo_balance: bool = True
    #: ... where it balances, the share of a tile's own bands in its light, per channel they show (log scale: the light
    #: is the photo-wide estimate ^ (1 - share) times the tile's own ^ share). Neither witness is right everywhere: a
    #: band alone in a channel reads it through its blur (webcam dev: the yellow ground set by the cyan band's), but a
    #: light that darkens one channel on one tile darkens its band and ground alike (CMYK! live clip seed 2: a cyan-4
    #: tile's cyan band and white-in-blue ground both read a quarter dark in blue; the photo's light read its yellow
    #: 0 as 0.5-0.66, a level 1 in one frame of three, its own bands' as 0.06-0.11). Equal shares: the error of
    #: whichever is wrong halved. Photoreal dev set (tune) under the webcam simulation, seeds 0-9, share 0 / 0.5 / 1:
    #: 193 / 192 / 185 of 220 judgements exact (seeds 0-4: 97 / 96 / 98, seeds 5-9: 96 / 96 / 87), WRONG 0 each;
    #: browser 22 / 22 / 22; phone seeds 0-2 and as rendered 66 and 22 with 0 and 0.5 (share 1 not run there).
    gain_own_share: float = 0.5
    gain_balance_min_tiles: int = 4
    gain_balance_rounds: int = 3
    #: The photo's own ink hues (:func:`fit_ink_hues`): a colour cast the markers' black and white do not undo (a warm
    #: lamp, a phone's saturation boost, a webcam's white balance) turns an ink's hue after normalisation, photoreal
    #: dev set 5-22 steps (of 256) under a cast. Each ink's hue is the peak of the tile area's hue histogram (smoothed
    #: with this Gaussian sigma) within ``ink_hue_max_shift_256`` of the palette's, ...
    ink_hue_smooth_256: float = 3.0
    ink_hue_max_shift_256: int = 24
    #: ... weighed by a normal prior on the shift (this sigma: a peak near the palette's hue wins over an equal one far
    #: from it, e.g. a wood table next to yellow) ...
    ink_hue_prior_256: float = 16.0
    #: ... and kept only where at least this many pixels of the tile area lie within the hue tolerance of it (else
    #: the palette's hue).
    ink_hue_min_pixels: int = 40
    #: EM iterations of the ground model's fit.
    ground_fit_iterations: int = 30
    #: ... or until no offset, slope or spread moves by more than this (levels' raw units).
    ground_fit_tolerance: float = 1e-6


def tile_types() -> list[tuple[int, int, int]]:
    """The 82 normal tiles, in a fixed order."""
    out = [(c, m, y) for c in range(6) for m in range(6) for y in range(6) if c + m + y <= 6]
    out.append((3, 3, 3))
    return out


def normalise(rgb: np.ndarray, black_rgb: np.ndarray, white_rgb: np.ndarray) -> np.ndarray:
    """Map colours so the frame's black -> 0 and paper white -> 1 per channel (shape kept)."""
    return (np.asarray(rgb, np.float32) - black_rgb) / np.maximum(white_rgb - black_rgb, 1.0)


def _hue_sat_value(norm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(hue 0..255, saturation 0..255, value, chroma) of normalised colours, each shape (N,).

    OpenCV's float HSV: value = max, saturation = (max - min) / max, hue in degrees; no clipping above 1.
    """
    x = np.clip(np.asarray(norm, np.float32).reshape(-1, 1, 3), 0.0, None)
    hsv = cv2.cvtColor(x, cv2.COLOR_RGB2HSV).reshape(-1, 3)
    value = hsv[:, 2]
    return ((hsv[:, 0] * (256.0 / 360.0)).astype(np.int16) % 256, hsv[:, 1] * 255.0, value, hsv[:, 1] * value)


def _label(hue, sat, value, chroma, config: ReadConfig, min_saturation: float,
           hues: tuple[int, ...] = INK_HUES_256) -> np.ndarray:
    out = np.full(len(hue), -1, np.int8)
    ok = (sat >= min_saturation * 255) & (value >= config.ink_min_value) & (chroma >= config.ink_min_chroma)
    for k, h in enumerate(hues):
        dh = np.abs(((hue - h + 128) % 256) - 128)
        out[ok & (dh <= config.ink_hue_tolerance_256)] = k
    return out


def classify_inks(norm: np.ndarray, config: ReadConfig = ReadConfig()) -> np.ndarray:
    """Per-pixel ink label from normalised colour, by hue, saturation and chroma.

    Brightness-invariant: hue and saturation are measured on the colour scaled to its own maximum, so
    a tile brighter than the markers' white (a lamp's hot spot) keeps its saturation instead of being
    clipped to grey.

    Parameters
    ----------
    norm : ndarray, shape (..., 3), float
        Normalised colour (frame black 0, white 1).

    Returns
    -------
    ndarray, shape (...), int8
        0 cyan, 1 magenta, 2 yellow, -1 not an ink.
    """
    return _label(*_hue_sat_value(norm), config, config.ink_min_saturation).reshape(norm.shape[:-1])


#: Levels per channel of the colour look-up tables (:func:`ink_table`).
LUT_LEVELS = 32
_LUT_BITS = LUT_LEVELS.bit_length() - 1
assert 3 * _LUT_BITS <= 16, "bin_index's flat index is 16 bits"


@dataclass(frozen=True)
class ColourBins:
    """The colour look-up grid's bins (``LUT_LEVELS`` per 8-bit channel, bin centres) normalised to one frame's black
    and white: what :func:`classify_inks` measures of each, flat in bin-index order (:func:`bin_index`).

    Attributes
    ----------
    hue, sat, value, chroma : ndarray, shape (LUT_LEVELS ** 3,)
        Hue 0..255, saturation 0..255, value and chroma (:func:`_hue_sat_value`).
    """

    hue: np.ndarray
    sat: np.ndarray
    value: np.ndarray
    chroma: np.ndarray


def colour_bins(black_rgb: np.ndarray, white_rgb: np.ndarray) -> ColourBins:
    """Every look-up bin's hue, saturation, value and chroma for one frame's black and white."""
    step = 256 // LUT_LEVELS
    c = np.arange(LUT_LEVELS, dtype=np.float32) * step + (step - 1) / 2
    # normalised channel by channel (as :func:`normalise` works), then every combination: the same numbers
    axes = normalise(np.stack([c, c, c], axis=1), np.asarray(black_rgb, np.float32), np.asarray(white_rgb, np.float32))
    norm = np.stack(np.meshgrid(axes[:, 0], axes[:, 1], axes[:, 2], indexing="ij"), axis=-1).reshape(-1, 3)
    return ColourBins(*_hue_sat_value(norm))


def label_tables(bins: ColourBins, config: ReadConfig = ReadConfig(), min_saturations: tuple[float, ...] = (),
                 hues: tuple[int, ...] = INK_HUES_256) -> list[np.ndarray]:
    """:func:`classify_inks` over the bins, with the inks at ``hues`` (0..255, C M Y).

    Returns
    -------
    list of ndarray, shape (L, L, L), int8
        The table for ``config``, then one per extra minimum saturation (``min_saturations``).
    """
    hsvc = (bins.hue, bins.sat, bins.value, bins.chroma)
    return [_label(*hsvc, config, sat, hues).reshape(LUT_LEVELS, LUT_LEVELS, LUT_LEVELS)
            for sat in (config.ink_min_saturation, *min_saturations)]


def ink_tables(black_rgb: np.ndarray, white_rgb: np.ndarray, config: ReadConfig = ReadConfig(),
               min_saturations: tuple[float, ...] = ()) -> list[np.ndarray]:
    """:func:`classify_inks` tabulated over 8-bit RGB for one frame's black and white.

    Classifying through a table (:func:`classify_table`) costs an index per pixel instead of a colour
    conversion; colours are quantised to ``256 / LUT_LEVELS`` steps, bin centres classified.

    Returns
    -------
    list of ndarray, shape (L, L, L), int8
        The table for ``config``, then one per extra minimum saturation (``min_saturations``).
    """
    return label_tables(colour_bins(black_rgb, white_rgb), config, min_saturations)


def bin_index(rgb: np.ndarray) -> np.ndarray:
    """Flat look-up bin index of 8-bit (or float 0..255) RGB colours, shape ``rgb.shape[:-1]``."""
    a = np.asarray(rgb)
    a = a if a.dtype == np.uint8 else np.clip(a, 0, 255).astype(np.uint8)
    if a.size == 0:
        return np.zeros(a.shape[:-1], np.uint16)
    # one flat index (r, g, b bins) into the table: a single gather instead of three, the index in 16 bits (the
    # table's 3 * _LUT_BITS), built from the channels as contiguous planes (cheaper than strided on a whole view)
    r, g, b = cv2.split(np.ascontiguousarray(a).reshape(-1, 1, 3))
    index = (r >> (8 - _LUT_BITS)).astype(np.uint16)
    index <<= 2 * _LUT_BITS
    index |= (g >> (8 - _LUT_BITS)).astype(np.uint16) << _LUT_BITS
    index |= b >> (8 - _LUT_BITS)
    return index.reshape(a.shape[:-1])


def classify_table(rgb: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Ink labels of 8-bit (or float 0..255) RGB colours through an :func:`ink_tables` table.

    Returns
    -------
    ndarray, shape ``rgb.shape[:-1]``, int8
    """
    return np.take(table.reshape(-1), bin_index(rgb))  # np.take: a fifth of fancy indexing's cost


def fit_ink_hues(bins: ColourBins, index: np.ndarray, config: ReadConfig = ReadConfig(),
                 start: tuple[int, ...] = INK_HUES_256) -> tuple[int, ...]:
    """The inks' hues in this photo: per ink, the peak of the tile area's hue histogram near the palette's hue.

    The markers' black and white normalise the photo's exposure and grey balance, but not what a colour cast or a
    device's processing does to saturated colours: under a warm lamp magenta turns towards red and yellow towards
    orange, a phone's saturation boost turns them further. The tile area's own saturated pixels show where the inks
    lie: for each ink, the peak of their hue histogram (smoothed, ``ink_hue_smooth_256``) within
    ``ink_hue_max_shift_256`` of its palette hue, weighed by a normal prior on the shift (``ink_hue_prior_256``). An
    ink with fewer than ``ink_hue_min_pixels`` pixels within the hue tolerance of its peak keeps the palette's hue.

    Parameters
    ----------
    bins : ColourBins
        This frame's bins (:func:`colour_bins`).
    index : ndarray, shape (N,), int
        Bin indices (:func:`bin_index`) of the pixels of the tile area.
    config : ReadConfig
    start : tuple of int
        The palette's hues, C M Y (0..255).

    Returns
    -------
    tuple of int
        The fitted hues, C M Y (0..255).
    """
    idx = np.asarray(index, np.intp).reshape(-1)
    ok = (bins.sat[idx] >= config.ink_min_saturation * 255) & (bins.value[idx] >= config.ink_min_value) \
        & (bins.chroma[idx] >= config.ink_min_chroma)
    hist = np.bincount(bins.hue[idx[ok]].astype(np.intp) % 256, minlength=256).astype(np.float64)
    r = int(np.ceil(3 * config.ink_hue_smooth_256))
    k = np.arange(-r, r + 1)
    kernel = np.exp(-0.5 * (k / max(config.ink_hue_smooth_256, 1e-6)) ** 2)
    smooth = np.convolve(np.concatenate([hist[-r:], hist, hist[:r]]), kernel, "valid") if r > 0 else hist
    tol = config.ink_hue_tolerance_256
    shifts = np.arange(-config.ink_hue_max_shift_256, config.ink_hue_max_shift_256 + 1)
    prior = np.exp(-0.5 * (shifts / config.ink_hue_prior_256) ** 2)
    out = []
    for h0 in start:
        at = (h0 + shifts) % 256
        peak = int(at[np.argmax(smooth[at] * prior)])
        near = hist[(peak + np.arange(-tol, tol + 1)) % 256].sum()
        out.append(peak if near >= config.ink_hue_min_pixels else int(h0))
    return tuple(out)


def rotation_loglik(ink_counts: np.ndarray, config: ReadConfig = ReadConfig()) -> np.ndarray:
    """Log-likelihood of each allowed rotation from per-edge ink votes.

    Parameters
    ----------
    ink_counts : ndarray, shape (3, 3)
        Row = edge direction (H, P, N), column = ink (C, M, Y): band samples voting for that ink.
    config : ReadConfig

    Returns
    -------
    ndarray, shape (3,)
    """
    a = config.rotation_prior_votes
    p = (ink_counts + a) / (ink_counts.sum(axis=1, keepdims=True) + len(INKS) * a)
    lp = np.log(p)
    return np.array([sum(lp[d, INKS.index(rot[d])] for d in range(3)) for rot in ROTATIONS])


def rotation_logliks(ink_counts: np.ndarray, config: ReadConfig = ReadConfig()) -> np.ndarray:
    """:func:`rotation_loglik` of T tiles at once (the same numbers): shape (T, 3) from ink counts (T, 3, 3)."""
    a = config.rotation_prior_votes
    counts = np.asarray(ink_counts).reshape(-1, 3, 3)
    lp = np.log((counts + a) / (counts.sum(axis=2, keepdims=True) + len(INKS) * a))
    # each rotation's three bands added in band order, as rotation_loglik's sum
    return np.stack([lp[:, 0, i0] + lp[:, 1, i1] + lp[:, 2, i2] for i0, i1, i2 in _ROTATION_INKS.tolist()], axis=1)


def mark_templates(s_mm: np.ndarray, blur_mm: float,
                   config: ReadConfig = ReadConfig()) -> tuple[np.ndarray, np.ndarray]:
    """Darkness templates along a band's midline for levels 0..5, each at several shifts.

    Returns
    -------
    templates : ndarray, shape (6, S, L)
        Level, shift, position.
    shifts_mm : ndarray, shape (S,)
    """
    from core.special import erf as erf_fast  # noqa: PLC0415  (math.erf, not SciPy: CLI start-up)

    shifts = np.arange(-config.mark_shift_max_mm, config.mark_shift_max_mm + 1e-9, config.mark_shift_step_mm)
    sig = np.hypot(config.dot_diameter_mm / config.dot_diameter_sigmas, blur_mm)
    out = np.zeros((6, len(shifts), len(s_mm)))
    x = np.asarray(s_mm, np.float64)[None, :] - shifts[:, None]  # (S, L)
    half = config.dash_length_mm / 2
    dash = 0.5 * (erf_fast((x + half) / (np.sqrt(2) * sig)) - erf_fast((x - half) / (np.sqrt(2) * sig)))
    out[0] = dash * config.dash_amplitude_ratio
    dots = np.exp(-0.5 * ((x[..., None] - config.dot_pitch_mm * np.arange(-2.0, 2.001, 0.5)) / sig) ** 2)  # (S, L, 9)
    for k in range(1, 6):  # k dots centred: at (j - (k - 1) / 2) pitches, on the half-pitch grid of ``dots``
        out[k] = dots[..., (np.arange(k) * 2 - (k - 1)) + 4].sum(axis=2)
    return out, shifts


def mark_loglik(profiles: np.ndarray, templates: np.ndarray, config: ReadConfig = ReadConfig(),
                resolved: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Log-likelihood of each level 0..5 and of "no mark" for darkness profiles (:func:`mark_fit`), and the fitted
    amplitudes; ``resolved``: with the evidence between unresolvable level pairs capped (:func:`resolve_level_pairs`).
    """
    ll, amp, noise_var = mark_fit(profiles, templates, config)
    return (resolve_level_pairs(ll, amp, templates, noise_var, config) if resolved else ll), amp


def mark_fit(profiles: np.ndarray, templates: np.ndarray,
             config: ReadConfig = ReadConfig()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log-likelihood of each level 0..5 and of "no mark" for darkness profiles.

    Parameters
    ----------
    profiles : ndarray, shape (M, L)
        Darkness (1 - luminance / band luminance) along each band's midline.
    templates : ndarray, shape (6, S, L)
    config : ReadConfig

    Returns
    -------
    loglik : ndarray, shape (M, 7)
        Levels 0..5, then "no mark" (K tiles).
    amplitude : ndarray, shape (M, 6)
        Fitted darkness amplitude per level (best shift).
    noise_var : ndarray, shape (M,)
        Per band: the residual variance per sample times the samples per independent one (log-likelihoods are
        ``-rss difference / (2 * noise_var)``).
    """
    m, n = profiles.shape
    y = profiles - profiles.mean(axis=1, keepdims=True)
    t = templates - templates.mean(axis=2, keepdims=True)
    tt = np.sum(t * t, axis=2)  # (6, S)
    cov = np.einsum("ml,ksl->mks", y, t)  # (M, 6, S)
    amp = cov / (tt[None] + 1e-12)
    yy = np.sum(y * y, axis=1)  # (M,)
    rss = yy[:, None, None] - np.where(amp > config.mark_min_amplitude, cov * amp, -np.inf)
    best = np.argmin(rss, axis=2)
    rss_k = np.take_along_axis(rss, best[..., None], axis=2)[..., 0]
    amp_k = np.take_along_axis(amp, best[..., None], axis=2)[..., 0]
    rss_all = np.concatenate([rss_k, yy[:, None]], axis=1)  # (M, 7)
    sigma2 = np.maximum(rss_all.min(axis=1) / n, config.mark_sigma_floor ** 2)
    neff = n / config.mark_samples_per_independent
    ll = -(rss_all - rss_all.min(axis=1, keepdims=True)) / (2 * sigma2[:, None] * n) * neff
    ll = np.maximum(ll, -config.mark_ll_floor)
    return ll, amp_k, sigma2 * n / neff


def template_separation(templates: np.ndarray, a: int, b: int) -> float:
    """The energy of level ``a``'s mark (at its template's unit amplitude, centred) that level ``b``'s template
    cannot explain at any amplitude or shift: how different the two marks still look at the templates' blur.

    Parameters
    ----------
    templates : ndarray, shape (6, S, L)
        :func:`mark_templates` (the middle shift is the unshifted mark).
    a, b : int
        Levels.

    Returns
    -------
    float
        Residual sum of squares in squared darkness units (0: ``b`` mimics ``a`` exactly).
    """
    return _centred_separation(templates - templates.mean(axis=2, keepdims=True), a, b)


def _centred_separation(t: np.ndarray, a: int, b: int) -> float:
    """:func:`template_separation` of templates already centred along their positions."""
    x, ys = t[a, t.shape[1] // 2], t[b]
    amp = (ys @ x) / np.maximum(np.sum(ys * ys, axis=1), 1e-12)
    return float(np.min(np.sum((x[None] - amp[:, None] * ys) ** 2, axis=1)))


def resolve_level_pairs(ll: np.ndarray, amplitude: np.ndarray, templates: np.ndarray, noise_var: np.ndarray,
                        config: ReadConfig = ReadConfig()) -> np.ndarray:
    """Cap the mark evidence between level pairs the photo cannot resolve (``config.resolve_pairs``).

    Blurred (a webcam's motion blur, JPEG), a single dot and the dash have nearly the same profile: whatever the
    fit prefers between them is then the noise's or the blur model's doing, not the mark's. The most a band can
    tell the pair apart is the two templates' separation (:func:`template_separation`) at the band's fitted
    amplitude, against its noise: ``amplitude^2 * separation / (2 * noise_var)`` in log-likelihood. The
    observed margin between the pair is clipped to that, and dropped entirely where that is below
    ``config.resolve_min_ll``: the level then comes from the ground colour (and is doubtful if that cannot
    separate the pair either). Pairs are capped in turn, each raising its weaker level (never lowering what an
    earlier pair raised).

    Parameters
    ----------
    ll : ndarray, shape (M, 7)
        :func:`mark_loglik`'s log-likelihoods (levels 0..5, no mark).
    amplitude : ndarray, shape (M, 6)
        Fitted amplitude per level.
    templates : ndarray, shape (6, S, L)
    noise_var : ndarray, shape (M,)
        Per band: residual variance per independent sample times the samples per independent one (the
        denominator of :func:`mark_loglik`'s log-likelihood, ``2 * noise_var``).
    config : ReadConfig

    Returns
    -------
    ndarray, shape (M, 7)
    """
    out = ll.copy()
    centred = templates - templates.mean(axis=2, keepdims=True)  # once for every pair (template_separation's)
    for a, b in config.resolve_pairs:
        a_wins = ll[:, a] >= ll[:, b]
        sep = np.where(a_wins, _centred_separation(centred, a, b), _centred_separation(centred, b, a))
        amp = np.where(a_wins, amplitude[:, a], amplitude[:, b])
        cap = np.clip(amp, 0.0, None) ** 2 * sep / (2 * noise_var)
        cap = np.where(cap < config.resolve_min_ll, 0.0, cap)
        top = np.maximum(ll[:, a], ll[:, b])
        out[:, a] = np.maximum(out[:, a], top - cap)
        out[:, b] = np.maximum(out[:, b], top - cap)
    return out


def ground_levels(ground_lin: np.ndarray, band_lin: np.ndarray, band_inks: np.ndarray,
                  black_lin: np.ndarray, config: ReadConfig = ReadConfig()) -> tuple[np.ndarray, float]:
    """Estimate (c, m, y) from a tile's ground colour, white-balanced by its own ink bands.

    Parameters
    ----------
    ground_lin : ndarray, shape (N, 3)
        Linear RGB of the ground samples.
    band_lin : ndarray, shape (3, 3)
        Median linear RGB of each band (rows follow ``band_inks``).
    band_inks : ndarray, shape (3,), int
        Ink index of each band.
    black_lin : ndarray, shape (3,)
    config : ReadConfig
        ``ground_dark_percentile``: percentile of the ground's luminance albedo reported (K tiles: dark
        even with their white letter); ``ground_band_min_expected``: channels of a band's ink used for
        the white balance; ``ground_albedo_max``: albedo clip.

    Returns
    -------
    levels : ndarray, shape (3,), float
        Raw continuous level estimates (0 = white ... 5 = full ink; below 0 where lighter than white) from the
        median ground colour, before this photo's ground model (:func:`calibrate_ground_levels`).
    dark_luminance : float
        Luminance albedo (linear, paper white = 1) at ``ground_dark_percentile`` of the ground samples.
    """
    levels, dark = ground_levels_batch(np.asarray(ground_lin)[None], np.asarray(band_lin)[None],
                                       np.asarray(band_inks)[None], black_lin, config)
    return levels[0], float(dark[0])


def _nanmedian_last(a: np.ndarray) -> np.ndarray:
    """``np.nanmedian(a, axis=-1)`` (NaN where a row has no number), the same values at a fifth of its cost on the
    small arrays here (numpy takes its masked-array path for them).

    Parameters
    ----------
    a : ndarray, shape (..., N), float

    Returns
    -------
    ndarray, shape (...)
    """
    ordered = np.sort(a, axis=-1)  # NaN last
    n = np.count_nonzero(~np.isnan(a), axis=-1)
    lo = np.take_along_axis(ordered, np.maximum((n - 1) // 2, 0)[..., None], -1)[..., 0]
    hi = np.take_along_axis(ordered, np.minimum(n // 2, a.shape[-1] - 1)[..., None], -1)[..., 0]
    return np.where(n > 0, (lo + hi) / 2, np.nan)


def band_gain(band_lin: np.ndarray, band_inks: np.ndarray, black_lin: np.ndarray,
              config: ReadConfig = ReadConfig()) -> np.ndarray:
    """Per tile and channel: the light falling on the tile, from its own ink bands (observed over printed).

    Parameters
    ----------
    band_lin : ndarray, shape (T, 3, 3)
        Median linear RGB of each band (rows follow ``band_inks``).
    band_inks : ndarray, shape (T, 3), int
    black_lin : ndarray, shape (3,)
    config : ReadConfig
        ``ground_band_min_expected``: channels of a band's ink used.

    Returns
    -------
    ndarray, shape (T, 3)
        Linear gain per channel (a channel no band shows takes the tile's pooled gain; with
        ``gain_photo_balance``, the photo-wide light's (:func:`_balanced_gain`), shared with the tile's own per
        channel its bands show, ``gain_own_share``).
    """
    expected = srgb_to_linear(INK_RGB[band_inks] / 255.0)  # (T, 3 bands, 3 channels)
    obs = band_lin - black_lin
    use = expected > config.ground_band_min_expected
    ratio = np.where(use, obs / np.maximum(expected, 1e-6), np.nan)
    with np.errstate(all="ignore"):
        gain = _nanmedian_last(np.moveaxis(ratio, 1, -1))  # (T, 3 channels): from the tile's own bands
    shown = np.isfinite(gain) & (gain > 1e-4)
    if config.gain_photo_balance and len(ratio) >= config.gain_balance_min_tiles:
        photo = _balanced_gain(ratio, config.gain_balance_rounds)
        share = config.gain_own_share
        return np.where(shown, photo ** (1.0 - share) * np.where(shown, gain, 1.0) ** share, photo)
    with np.errstate(all="ignore"):
        pooled = _nanmedian_last(ratio.reshape(len(ratio), -1))
    pooled = np.where(np.isfinite(pooled), pooled, 1.0)
    return np.where(shown, gain, pooled[:, None])


def _balanced_gain(ratio: np.ndarray, rounds: int) -> np.ndarray:
    """Per tile and channel, the light on the tile as a brightness of its own times one colour for the photo:
    ``log ratio[t, b, c] = log s_t + log w_c``, fitted by alternating medians (``rounds``) over the bands' usable
    channels (``ratio``, shape (T, 3 bands, 3 channels), NaN where unused); shape (T, 3)."""
    with np.errstate(all="ignore"):
        lr = np.log(np.where(ratio > 1e-4, ratio, np.nan))
        log_s = _median_where_unknown(_nanmedian_last(lr.reshape(len(lr), -1)))
        log_w = np.zeros(3)
        for _ in range(rounds):
            log_w = _nanmedian_last(np.moveaxis(lr - log_s[:, None, None], 2, 0).reshape(3, -1))
            log_w = np.where(np.isfinite(log_w), log_w, 0.0)
            log_s = _median_where_unknown(_nanmedian_last((lr - log_w).reshape(len(lr), -1)))
    return np.exp(log_s[:, None] + log_w[None, :])


def _median_where_unknown(log_s: np.ndarray) -> np.ndarray:
    """Tiles' log brightness (T,) with a NaN (no usable band) replaced by the others' median (0 when none is known)."""
    known = np.isfinite(log_s)
    return np.where(known, log_s, np.nanmedian(log_s) if known.any() else 0.0)


def letter_values(corner_lin: np.ndarray, centre_lin: np.ndarray, gain: np.ndarray, black_lin: np.ndarray,
                  config: ReadConfig = ReadConfig()) -> tuple[np.ndarray, np.ndarray]:
    """Per tile: the value (brightest channel's albedo) at the corners of its inner triangle and at its centre.

    A K tile's white letter lies within the centre; the corners show its black ground even when the photo
    blurs the letter into the rest (:attr:`ReadConfig.k_corner_value`).

    Parameters
    ----------
    corner_lin : ndarray, shape (T, N, 3)
        Linear RGB at the inner triangle's corners.
    centre_lin : ndarray, shape (T, M, 3)
        Linear RGB around the centroid.
    gain : ndarray, shape (T, 3)
        :func:`band_gain`.
    black_lin : ndarray, shape (3,)
    config : ReadConfig

    Returns
    -------
    corner_value : ndarray, shape (T,)
        The corners' value at ``k_corner_percentile``.
    centre_value : ndarray, shape (T,)
        The centre's median value.
    """
    g = np.maximum(gain, 1e-4)[:, None]

    def value(lin: np.ndarray) -> np.ndarray:  # (T, n, 3) -> (T, n): the brightest channel's albedo
        return np.clip((np.asarray(lin) - black_lin) / g, 0.0, config.ground_albedo_max).max(axis=2)

    return percentile_last(value(corner_lin), config.k_corner_percentile), median_last(value(centre_lin))


def ground_levels_batch(ground_lin: np.ndarray, band_lin: np.ndarray, band_inks: np.ndarray,
                        black_lin: np.ndarray, config: ReadConfig = ReadConfig()) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ground_levels` for T tiles at once.

    Parameters
    ----------
    ground_lin : ndarray, shape (T, N, 3)
    band_lin : ndarray, shape (T, 3, 3)
    band_inks : ndarray, shape (T, 3), int
    black_lin : ndarray, shape (3,)
    config : ReadConfig

    Returns
    -------
    levels : ndarray, shape (T, 3)
    dark_luminance : ndarray, shape (T,)
    """
    gain = band_gain(band_lin, band_inks, black_lin, config)
    albedo = np.clip((np.asarray(ground_lin) - black_lin) / np.maximum(gain, 1e-4)[:, None], 0.0,
                     config.ground_albedo_max)
    med = median_last(np.swapaxes(albedo, 1, 2))
    lum = albedo @ np.array([0.2126, 0.7152, 0.0722])
    # not clipped at paper white (only the albedo is, at ``ground_albedo_max``): a ground lighter than the bands'
    # white balance expects (a device's tone curve) reads below level 0, and the ground model
    # (:func:`calibrate_ground_levels`) learns how far
    levels = 5.0 * (1.0 - linear_to_srgb(med))
    return levels, percentile_last(lum, config.ground_dark_percentile)


@dataclass(frozen=True)
class TileEvidence:
    """Per-tile evidence for the assignment (rows of the score matrix)."""

    rotation: int
    rotation_confidence: float
    ground_est: np.ndarray
    mark_ll: np.ndarray
    mark_amp: np.ndarray
    dark_luminance: float = 0.5
    #: ``mark_ll`` with the evidence between unresolvable level pairs capped (:func:`resolve_level_pairs`); the
    #: readings' confidences use it (None: ``mark_ll`` as it is).
    mark_ll_resolved: np.ndarray | None = None
    #: The value at the inner triangle's corners and at its centre (:func:`letter_values`); None: not measured.
    k_corner_value: float | None = None
    k_centre_value: float | None = None


def k_ground_loglik(ev: TileEvidence, config: ReadConfig = ReadConfig()) -> float:
    """Log-likelihood (up to a constant, at most 0) that the tile's ground is a K tile's black.

    The better of two readings. Sharp: the ground dark where it is sampled (``dark_luminance`` at most
    ``k_max_luminance``: the white letter resolved and left out by the percentile) and as dark at the inner
    triangle's corners (at most ``k_sharp_corner_value``). Blurred or coarse: the letter lightens the centre, the
    corners stay dark (at most ``k_corner_value``) under it, the ground neutral (:attr:`ReadConfig.k_corner_value`).
    Without the corners measured, the ground where it is sampled alone.
    """
    lum = np.log(max(ev.dark_luminance, 1e-4))
    dark = -max(0.0, lum - np.log(config.k_max_luminance)) ** 2 / (2 * config.k_log_sigma ** 2)
    if ev.k_corner_value is None or ev.k_centre_value is None:
        return dark
    corner = max(ev.k_corner_value, 1e-4)
    centre = max(ev.k_centre_value, 1e-4)
    spread = float(np.ptp(ev.ground_est))

    def corners(limit: float) -> float:
        return -max(0.0, np.log(corner / limit)) ** 2 / (2 * config.k_corner_log_sigma ** 2)

    sharp = dark + corners(config.k_sharp_corner_value)
    blurred = (corners(config.k_corner_value)
               - max(0.0, np.log(config.k_letter_ratio * corner / centre)) ** 2 / (2 * config.k_letter_log_sigma ** 2)
               - max(0.0, np.log(centre / config.k_centre_value)) ** 2 / (2 * config.k_centre_log_sigma ** 2)
               - max(0.0, lum - np.log(config.k_blurred_luminance)) ** 2 / (2 * config.k_log_sigma ** 2)
               - max(0.0, spread - config.k_neutral_spread) ** 2 / (2 * config.k_neutral_sigma ** 2))
    return max(sharp, blurred)


@dataclass(frozen=True)
class GroundModel:
    """How this photo's ground colours read the levels: a ground of levels ``L`` (C, M, Y) reads
    ``offset + slope * L + cross @ L`` (the raw estimate of :func:`ground_levels_batch`, per ink), with spread
    ``sigma`` (levels).

    Attributes
    ----------
    offset : ndarray, shape (3,)
        Per ink (C, M, Y): the raw estimate of a level-0 ground.
    slope : ndarray, shape (3,)
        Raw estimate per level of the ink itself.
    sigma : ndarray, shape (3,)
        Spread of :meth:`levels` about the true level.
    cross : ndarray, shape (3, 3)
        Raw estimate of the ink of the row per level of the ink of the column (zero diagonal).
    """

    offset: np.ndarray
    slope: np.ndarray
    sigma: np.ndarray
    cross: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))

    def levels(self, raw: np.ndarray) -> np.ndarray:
        """Raw ground estimates (..., 3 inks) as levels (the model solved for them)."""
        mix = np.diag(self.slope) + self.cross  # raw = offset + mix @ levels
        return (np.asarray(raw, np.float64) - self.offset) @ np.linalg.inv(mix).T


def level_prior() -> np.ndarray:
    """How often each level 0..5 of an ink occurs in the tile set (26, 21, 15, 11, 6, 3 of 82), shape (6,)."""
    counts = np.bincount(np.array(tile_types())[:, 0], minlength=6).astype(np.float64)
    return counts / counts.sum()


def calibrate_ground_levels(evidence: list[TileEvidence], mark_weight: float | np.ndarray,
                            config: ReadConfig = ReadConfig()) -> GroundModel:
    """This photo's ground model (:class:`GroundModel`), fitted to its tiles' raw ground estimates.

    The levels are unknown, so the fit is a mixture's (EM): each normal-looking tile's ground of an ink is one of
    the levels 0..5, as often as the tile set holds them (:func:`level_prior`), and as likely as the tile's own
    marks say at ``mark_weight`` (0: the marks are ignored; 1: as modelled), the other inks' levels at their
    expected values. The offset, slope and cross terms are maximum-a-posteriori under ``ground_offset_prior``,
    ``ground_slope_prior`` and ``ground_cross_prior``. Where the marks are sharp
    (as rendered) they fix which level each ground is, and the fit is a calibration against them; where the photo
    loses them (a webcam), the levels' spacing and the set's proportions still place the levels: a dim webcam reads a
    white ground as about -0.45 and a level-1 tint as about 0.6 (photoreal dev set), which a gain through level
    0 (or the clipped estimate) cannot tell apart.

    Parameters
    ----------
    evidence : list of TileEvidence
        ``ground_est`` raw (:func:`ground_levels_batch`).
    mark_weight : float or ndarray, shape (3,)
        Temperature on the marks' log-likelihoods (:func:`mark_weight`), one for all inks or one per ink (C, M, Y).
    config : ReadConfig

    Returns
    -------
    GroundModel
        The priors' means and ``ground_sigma_levels`` where no tile looks normal.
    """
    (a0, sa), (b0, sb) = config.ground_offset_prior, config.ground_slope_prior
    cross0 = np.asarray(config.ground_cross_prior, np.float64)
    normal = [ev for ev in evidence if ev.dark_luminance >= config.normal_min_luminance]
    if not normal:
        return GroundModel(np.full(3, a0), np.full(3, b0), np.full(3, config.ground_sigma_levels),
                           cross0 * (1.0 - np.eye(3)))
    lv = np.arange(6, dtype=np.float64)
    log_prior = np.log(level_prior())
    raw = np.array([ev.ground_est for ev in normal])  # (T, 3)
    marks = np.zeros((len(normal), 3, 6))
    w_ink = np.broadcast_to(np.asarray(mark_weight, np.float64), (3,))
    band_ink = _ROTATION_INKS[[ev.rotation for ev in normal]]  # (T, 3 bands): each band's ink
    marks[np.arange(len(normal))[:, None], band_ink] = (w_ink[band_ink][..., None]
                                                        * np.array([ev.mark_ll[:, :6] for ev in normal]))
    w = log_prior + marks
    w = w - w.max(axis=2, keepdims=True)
    # per ink the coefficients (offset, slope, the two other inks' cross terms), their priors' means and sds
    mean0 = np.column_stack([np.full(3, a0), np.full(3, b0), np.take_along_axis(cross0, _OTHER_INKS, axis=1)])
    prior_prec = 1.0 / np.array([sa, sb, config.ground_cross_prior_sd, config.ground_cross_prior_sd]) ** 2
    coef = mean0.copy()
    s = np.full(3, config.ground_sigma_levels * b0)  # spread, raw units
    lo, hi = config.ground_sigma_min, config.ground_sigma_max
    expected = np.clip((raw - a0) / b0, 0.0, 5.0)  # (T, 3): each ground's expected levels, first from itself
    powers = np.stack([lv, lv * lv], axis=1)  # (6, 2): each level and its square
    ones = np.ones((len(raw), 1))
    raw_sq = (raw * raw).sum(axis=0)
    for _ in range(config.ground_fit_iterations):
        last_coef, last_s = coef, s
        resid = (raw - _level0_means(expected, coef))[:, :, None] - coef[:, 1:2] * lv  # (T, 3 inks, 6 levels)
        z = w - resid * resid * (0.5 / (s * s))[:, None]
        r = np.exp(z - z.max(axis=2, keepdims=True))
        r /= r.sum(axis=2, keepdims=True)  # (T, 3, 6): each ground's level
        moments = r @ powers  # (T, 3, 2): each ground's level's mean and second moment
        expected = moments[..., 0]
        # maximum a posteriori coefficients: per ink the 4 x 4 normal equations (features 1, its own level, the other
        # inks' expected levels) with the priors, from the moments of (1, C, M, Y) taken once for all inks
        design = np.hstack([ones, expected])  # (T, 4)
        normal = (design.T @ design)[_NORMAL_ROWS[:, :, None], _NORMAL_ROWS[:, None, :]]  # (3 inks, 4, 4)
        normal[:, 1, 1] = moments[..., 1].sum(axis=0)  # the own level's second moment, not its mean's square
        data = (design.T @ raw)[_NORMAL_ROWS, _INK_COLUMN]  # (3 inks, 4)
        prec = (s * s)[:, None] * prior_prec  # (3 inks, 4)
        coef = np.linalg.solve(normal + prec[:, :, None] * _EYE4, (data + prec * mean0)[..., None])[..., 0]
        coef[:, 1] = np.maximum(coef[:, 1], b0 - 3 * sb)
        # the spread at the new coefficients: sum over tiles and levels of r (raw - features . coef)^2, expanded
        rss = raw_sq - 2 * (coef * data).sum(axis=1) + (coef * (normal @ coef[..., None])[..., 0]).sum(axis=1)
        slope = coef[:, 1]
        s = np.clip(np.sqrt(np.maximum(rss, 0.0) / len(raw)) / slope, lo, hi) * slope
        if max(np.abs(coef - last_coef).max(), np.abs(s - last_s).max()) < config.ground_fit_tolerance:
            break
    cross = np.zeros((3, 3))
    np.put_along_axis(cross, _OTHER_INKS, coef[:, 2:], axis=1)
    return GroundModel(coef[:, 0].copy(), coef[:, 1].copy(), s / coef[:, 1], cross)


#: Per ink (C, M, Y), the other two inks.
_OTHER_INKS = np.array([[j for j in range(3) if j != i] for i in range(3)], np.intp)
#: Per ink, the rows of (1, C, M, Y) its normal equations take, in the order (1, itself, the other two), shape (3, 4).
_NORMAL_ROWS = np.column_stack([np.zeros(3, np.intp), np.arange(3) + 1, _OTHER_INKS + 1])
_INK_COLUMN = np.arange(3)[:, None]
_EYE4 = np.eye(4)


def _level0_means(expected: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """Each ground's expected raw estimate at level 0 of its own ink, the other inks at their expected levels:
    ``offset + cross @ expected``, shape (T, 3); ``expected`` (T, 3), ``coef`` (3 inks, 4: offset, slope, the other
    two inks' cross terms)."""
    cross_t = np.zeros((3, 3))
    cross_t[_OTHER_INKS, _INK_COLUMN] = coef[:, 2:]  # [other ink, ink]
    return coef[:, 0] + expected @ cross_t


def mark_weight(evidence: list[TileEvidence], config: ReadConfig = ReadConfig(),
                ink: int | None = None) -> tuple[float, int]:
    """How far this photo's mark log-likelihoods can be trusted, measured against its ground colours.

    The mark model assumes dots resolved as printed; a dim, blurred, noisy, heavily compressed photo (a webcam)
    breaks that and the marks come out sure and wrong, while the ground colours, averaged over an area, still
    tell most levels. Every edge whose corrected ground estimate lies within ``weight_ground_tolerance`` of a
    whole level witnesses that level; the weight ``w`` from ``weight_grid`` maximising the witnesses' likelihood
    under ``softmax(w * mark_ll)``, each witness wrong with probability ``weight_witness_outlier``, is the marks'
    reliability here: 1 where they agree with the ground as sharply as modelled.

    Parameters
    ----------
    evidence : list of TileEvidence
        Ground estimates already as levels (:meth:`GroundModel.levels`).
    config : ReadConfig

    ink : int, optional
        Only the bands of this ink (0 C, 1 M, 2 Y) witness.

    Returns
    -------
    weight : float
        In ``weight_grid``; 1.0 with fewer than ``weight_min_witnesses`` witnesses.
    n : int
        Witnesses used.
    """
    if not evidence:
        return 1.0, 0
    witnesses = _Witnesses.of(evidence, np.array([ev.ground_est for ev in evidence], np.float64), config)
    return witnesses.weight(config, config.weight_min_witnesses, ink)


@dataclass(frozen=True)
class _Witnesses:
    """The bands whose ground witnesses a level (:func:`mark_weight`), in tile then band order, and each one's
    log-likelihood term under the marks at every weight of ``weight_grid``.

    Attributes
    ----------
    ink : ndarray, shape (N,)
        The witness band's ink (0 C, 1 M, 2 Y).
    terms : ndarray, shape (W, N)
        ``log(eps / 6 + (1 - eps) p)``, ``p`` the witnessed level's probability under ``softmax(w * mark_ll)``.
    """

    ink: np.ndarray
    terms: np.ndarray

    @classmethod
    def of(cls, evidence: list[TileEvidence], ground_levels: np.ndarray, config: ReadConfig) -> _Witnesses:
        """Every tile's bands at once; ``ground_levels`` (T, 3 inks) the tiles' grounds as levels."""
        band_ink = _ROTATION_INKS[[ev.rotation for ev in evidence]]  # (T, 3 bands)
        g = np.take_along_axis(ground_levels, band_ink, axis=1)
        lv = np.rint(g)  # half to even, as round()
        witness = (lv >= 0) & (lv <= 5) & (np.abs(g - lv) <= config.weight_ground_tolerance)
        levels = lv[witness].astype(np.intp)
        ll = np.array([ev.mark_ll[:, :6] for ev in evidence])[witness]  # (N, 6)
        idx = np.arange(len(levels)), levels
        eps = config.weight_witness_outlier
        # every weight of the grid at once: (W, N, 6)
        z = np.asarray(config.weight_grid, np.float64)[:, None, None] * ll[None]
        z = z - z.max(axis=2, keepdims=True)
        p = np.exp(z[:, idx[0], idx[1]] - np.log(np.exp(z).sum(axis=2)))
        return cls(band_ink[witness], np.log(eps / 6 + (1 - eps) * p))

    def weight(self, config: ReadConfig, min_witnesses: int, ink: int | None = None) -> tuple[float, int]:
        """:func:`mark_weight` from these witnesses (those of ``ink`` only, where given): the weight and how many."""
        terms = self.terms if ink is None else self.terms[:, self.ink == ink]
        if terms.shape[1] < min_witnesses:
            return 1.0, terms.shape[1]
        return config.weight_grid[int(np.argmax(np.sum(terms, axis=1)))], terms.shape[1]


def ink_mark_weights(evidence: list[TileEvidence], config: ReadConfig = ReadConfig()) -> np.ndarray:
    """:func:`mark_weight` per ink (C, M, Y): a dot shows less on a dark band (magenta) than on a light one, so a
    blurred, noisy photo may lose one ink's marks and keep another's. An ink with fewer than
    ``weight_min_ink_witnesses`` witnesses takes the weight of all inks together.

    Returns
    -------
    ndarray, shape (3,)
    """
    return ink_mark_weights_at(evidence, np.array([ev.ground_est for ev in evidence], np.float64), config)[0]


def ink_mark_weights_at(evidence: list[TileEvidence], ground_levels: np.ndarray,
                        config: ReadConfig = ReadConfig()) -> tuple[np.ndarray, float]:
    """:func:`ink_mark_weights` with the tiles' grounds as levels given apart (shape (T, 3 inks), in place of their
    ``ground_est``), and the weight of all inks together (:func:`mark_weight`): weights shape (3,), pooled."""
    if not evidence:
        return np.ones(3), 1.0
    witnesses = _Witnesses.of(evidence, np.asarray(ground_levels, np.float64), config)
    pooled, _ = witnesses.weight(config, config.weight_min_witnesses)
    out = np.full(3, pooled)
    for ink in range(3):
        w, n = witnesses.weight(config, config.weight_min_ink_witnesses, ink)
        if n >= config.weight_min_ink_witnesses:
            out[ink] = w
    return out, pooled


def score_matrix(evidence: list[TileEvidence], config: ReadConfig = ReadConfig(),
                 ground_sigma: float | np.ndarray | None = None,
                 mark_ll: np.ndarray | None = None) -> tuple[np.ndarray, list]:
    """Log-likelihood of every tile being every type (82 normal, then 2 K columns).

    ``ground_sigma``: the ground's spread in levels, one for all inks or one per ink (shape (3,), C M Y).
    ``mark_ll``: the tiles' mark log-likelihoods, shape (T, 3, 7), in place of their own ``mark_ll``.

    Returns
    -------
    scores : ndarray, shape (T, 84)
    columns : list
        ``(c, m, y)`` per normal column, ``"k"`` for the two K columns.
    """
    types = tile_types()
    tarr = np.array(types, dtype=np.float64)
    ks2 = 2 * config.k_log_sigma ** 2
    out = np.zeros((len(evidence), len(types) + 2))
    sigma = np.asarray(ground_sigma if ground_sigma is not None else config.ground_sigma_levels, np.float64)
    s2 = 2 * sigma ** 2
    # a single dot and the dash differ only in length (2.5 vs 5 mm): at ~1 px/mm the marks tell "0 or 1"
    # well but not which; when this photo's ground colours are reliable, that choice leans on them
    soft = float(np.clip(np.median(sigma) / config.dash_dot_sigma_ref, config.dash_dot_softness, 1.0))
    if not evidence:
        return out, types + ["k", "k"]
    # every tile at once: its bands' marks (0 and 1 softened), each type's level of each band's ink
    marks = np.stack([ev.mark_ll for ev in evidence]) if mark_ll is None else np.asarray(mark_ll, np.float64)
    mll = marks.copy()  # (T, 3 bands, 7)
    m01 = np.maximum(mll[:, :, 0], mll[:, :, 1])
    mll[:, :, 0] = m01 + (mll[:, :, 0] - m01) * soft
    mll[:, :, 1] = m01 + (mll[:, :, 1] - m01) * soft
    ink_of_band = np.array([[INKS.index(ink) for ink in ROTATIONS[ev.rotation]] for ev in evidence])  # (T, 3)
    type_levels = tarr.astype(int)  # (types, 3 inks)
    ml = np.zeros((len(evidence), len(types)))
    for d in range(3):
        ml += np.take_along_axis(mll[:, d, :], type_levels[:, ink_of_band[:, d]].T, axis=1)
    ground = np.stack([ev.ground_est for ev in evidence])  # (T, 3)
    gl = -np.sum((ground[:, None, :] - tarr[None]) ** 2 / s2, axis=2)
    out[:, : len(types)] = ml + gl
    for r, ev in enumerate(evidence):
        k_ml = float(np.sum(marks[r, :, 6]))
        lum = np.log(max(ev.dark_luminance, 1e-4))
        out[r, : len(types)] -= max(0.0, np.log(config.normal_min_luminance) - lum) ** 2 / ks2
        out[r, len(types):] = k_ml + k_ground_loglik(ev, config)
    return out, types + ["k", "k"]


def robust_level_loglik(evidence: list[TileEvidence], ground_sigma: float | np.ndarray, outlier: float,
                        mark_errors: np.ndarray | None = None, config: ReadConfig = ReadConfig()) -> np.ndarray:
    """Per tile, ink and level: the log-likelihood of that level when the marks and the ground colour may each be
    wrong (with probability ``outlier``): ``log(e + (1 - e) p_marks) + log(e + (1 - e) p_ground)``, each p a
    distribution over the six levels. Where marks and ground contradict each other, no level is sure.

    ``mark_errors`` (per ink, :func:`mark_error_model`): how often this photo's marks read a level off by one, or
    any level, measured against its ground colours; ``p_marks`` is then the marks' own distribution mixed with
    those errors (:func:`marks_with_errors`), so that marks a photo often misreads by a level cannot make a level
    sure against the ground.

    ``p_ground`` is Gaussian about each level's place (``config.confidence_level_places``: level 5's ground reads
    lighter than a straight model says).

    Returns
    -------
    ndarray, shape (T, 3 inks, 6 levels)
    """
    if not evidence:
        return np.zeros((0, 3, 6))
    lv = np.asarray(config.confidence_level_places, np.float64)
    sigma = np.broadcast_to(np.asarray(ground_sigma, np.float64), (3,))  # per ink
    errors = np.zeros((3, 2)) if mark_errors is None else np.asarray(mark_errors, np.float64)
    # every band's marks, in ink order (C M Y) per tile
    ink_of_band = np.array([[INKS.index(ink) for ink in ROTATIONS[ev.rotation]] for ev in evidence])  # (T, 3)
    band_of_ink = np.argsort(ink_of_band, axis=1)
    marks = np.stack([(ev.mark_ll if ev.mark_ll_resolved is None else ev.mark_ll_resolved)[:, :6] for ev in evidence])
    marks = np.take_along_axis(marks, band_of_ink[..., None], axis=1)  # (T, 3 inks, 6)
    pm = marks_with_errors(_softmax(marks), errors[:, :1], errors[:, 1:])
    ground = np.stack([ev.ground_est for ev in evidence])  # (T, 3 inks)
    pg = _softmax(-(ground[..., None] - lv) ** 2 / (2 * sigma[None, :, None] ** 2))
    return np.log(outlier + (1 - outlier) * pm) + np.log(outlier + (1 - outlier) * pg)


def _softmax(z: np.ndarray) -> np.ndarray:
    """:func:`posterior` along the last axis."""
    p = np.exp(z - z.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


def neighbour_levels(p: np.ndarray) -> np.ndarray:
    """Each level's probability moved to the levels next to it (split equally; level 0's all to 1, 5's to 4).

    Parameters
    ----------
    p : ndarray, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6)
    """
    p = np.asarray(p, np.float64)
    out = np.zeros_like(p)
    out[..., 1] += p[..., 0]
    out[..., 4] += p[..., 5]
    out[..., :4] += 0.5 * p[..., 1:5]
    out[..., 2:] += 0.5 * p[..., 1:5]
    return out


def marks_with_errors(pm: np.ndarray, near: float | np.ndarray, far: float | np.ndarray) -> np.ndarray:
    """The marks' level distribution (..., 6) when they read a level off by one with probability ``near`` and any
    level with probability ``far`` (each broadcast against ``pm``, e.g. shape (3, 1) per ink):
    ``(1 - near - far) pm + near neighbour_levels(pm) + far / 6``."""
    return (1.0 - near - far) * pm + near * neighbour_levels(pm) + far / 6.0


def mark_error_model(evidence: list[TileEvidence], config: ReadConfig = ReadConfig()) -> tuple[np.ndarray, np.ndarray]:
    """How far this photo's marks can be trusted, per ink: a weight (a temperature on their log-likelihoods, as
    :func:`mark_weight`) and how often they misread a level off by one (``near``) or as anything (``far``).

    A webcam's motion blur merges a level's dots (two read as the dash, three as two) and its noise and JPEG invent
    or hide a dot: the marks then read a neighbouring level, often sure of it, which no temperature alone describes
    (a temperature low enough for those leaves every mark vague). Every band whose ground (as levels,
    :meth:`GroundModel.levels`) lies within ``weight_ground_tolerance`` of a whole level witnesses that level (a
    witness itself wrong with probability ``weight_witness_outlier``); the weight from ``weight_grid`` and
    ``(near, far)`` from ``error_grid`` maximise the witnesses' likelihood under :func:`marks_with_errors` of the
    bands' weighted mark posteriors. An ink with fewer than ``weight_min_ink_witnesses`` witnesses takes the model
    of all inks together; with fewer than ``weight_min_witnesses`` in all: weight 1, no errors.

    Parameters
    ----------
    evidence : list of TileEvidence
        Ground estimates as levels; marks as measured (``mark_ll_resolved`` where given).

    Returns
    -------
    weights : ndarray, shape (3,)
        Per ink, C M Y.
    errors : ndarray, shape (3 inks, 2)
        ``(near, far)`` per ink.
    """
    weights, errors = np.ones(3), np.zeros((3, 2))
    normal = [ev for ev in evidence if ev.dark_luminance >= config.normal_min_luminance]
    if not normal:
        return weights, errors
    bands, ink_of_band, ground = _band_grounds(normal)
    lv_all = np.round(ground)
    witness = (lv_all >= 0) & (lv_all <= 5) & (np.abs(ground - lv_all) <= config.weight_ground_tolerance)
    if witness.sum() < config.weight_min_witnesses:
        return weights, errors
    m, lv, ink_of = bands[witness], lv_all[witness].astype(int), ink_of_band[witness]
    rows = np.arange(len(lv))
    eps = config.weight_witness_outlier
    errs = np.array([(n, f) for n in config.error_grid for f in config.error_grid if n + f <= config.error_max_total])
    # per weight: each witness's own-level and neighbour-level probability under the marks at that weight, every
    # weight at once (W, N)
    z = np.asarray(config.weight_grid, np.float64)[:, None, None] * m  # (W, N, 6)
    p = np.exp(z - z.max(axis=2, keepdims=True))
    p /= p.sum(axis=2, keepdims=True)
    own_all, near_all = p[:, rows, lv], neighbour_levels(p)[:, rows, lv]
    keep = (1.0 - errs.sum(axis=1))[:, None]
    # every witness's log-likelihood term under every weight and error pair, once: (W, E, N)
    q = keep * own_all[:, None, :] + errs[:, :1] * near_all[:, None, :] + errs[:, 1:] / 6.0
    terms = np.log(eps / 6.0 + (1.0 - eps) * q)

    def best(sel: np.ndarray) -> tuple[float, np.ndarray]:
        s = np.sum(terms[:, :, sel], axis=2)  # (weights, error pairs)
        wi, ei = np.unravel_index(int(np.argmax(s)), s.shape)
        return config.weight_grid[wi], errs[ei]

    pooled = best(np.ones(len(lv), bool))
    for k in range(3):
        sel = ink_of == k
        weights[k], errors[k] = best(sel) if sel.sum() >= config.weight_min_ink_witnesses else pooled
    return weights, errors


def _band_grounds(evidence: list[TileEvidence]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every band's marks (resolved where given, levels 0..5), its ink and its ink's ground, tile by tile, band by
    band: shapes (T, 3, 6), (T, 3), (T, 3)."""
    bands = np.stack([(ev.mark_ll if ev.mark_ll_resolved is None else ev.mark_ll_resolved)[:, :6] for ev in evidence])
    ink_of_band = np.array([[INKS.index(ink) for ink in ROTATIONS[ev.rotation]] for ev in evidence])
    ground = np.take_along_axis(np.stack([ev.ground_est for ev in evidence]).astype(np.float64), ink_of_band, axis=1)
    return bands, ink_of_band, ground


def contact_bonus(cells: list[tuple[int, int]], rotations: list[int], chosen: np.ndarray, columns: list,
                  weight: float, neighbour_of) -> np.ndarray:
    """Soft evidence from touching edges: +weight for each edge whose level agrees with the neighbour's reading.

    Players place tiles legally, so a neighbour's reading is a (weak) witness of the shared edge's mark; a
    real illegal contact survives because the tile's own marks and ground outweigh it.

    Parameters
    ----------
    cells : list of (i, j)
    rotations : list of int
        Each tile's rotation index (``ROTATIONS``).
    chosen : ndarray, shape (T,)
        Current column of each tile.
    columns : list
        Score-matrix columns (``(c, m, y)`` or ``"k"``).
    weight : float
        Log-likelihood per agreeing edge.
    neighbour_of : callable((i, j), direction) -> (i, j)

    Returns
    -------
    ndarray, shape (T, len(columns))
    """
    normal = np.array([c if c != "k" else (-1, -1, -1) for c in columns], dtype=float)
    out = np.zeros((len(cells), len(columns)))
    pairs = [(t, d, n) for t, d, n in _touching(cells, neighbour_of)
             if chosen[n] >= 0 and columns[chosen[n]] != "k"]
    if not pairs:
        return out
    t, d, n = (np.array(x, np.intp) for x in zip(*pairs))
    nb_level = np.array([columns[chosen[k]][i] for k, i in zip(n.tolist(), _ROTATION_INKS[np.asarray(rotations)[n], d]
                                                                  .tolist())], float)
    ink = _ROTATION_INKS[np.asarray(rotations)[t], d]
    # every edge's term at once, added in tile then direction order (as one edge after the other): the same sums
    np.add.at(out, t, weight * (normal[:, ink].T == nb_level[:, None]))
    return out


def _touching(cells: list[tuple[int, int]], neighbour_of) -> list[tuple[int, int, int]]:
    """Every tile's touching neighbours among ``cells``: (tile, direction index into ``DIRS``, neighbour), in tile
    then direction order."""
    index = {c: k for k, c in enumerate(cells)}
    out = []
    for t, cell in enumerate(cells):
        for d, dn in enumerate(DIRS):
            n = index.get(neighbour_of(cell, dn))
            if n is not None:
                out.append((t, d, n))
    return out


def witnessed_contact_bonus(cells: list[tuple[int, int]], rotations: list[int], level_post: np.ndarray,
                            columns: list, weight: float, neighbour_of) -> np.ndarray:
    """:func:`contact_bonus` with each neighbour a witness only as sure as its own evidence: an edge earns
    ``weight`` times the neighbour's own probability of the level the column gives that edge.

    A neighbour read from marks the photo cannot resolve (:func:`resolve_level_pairs`) and an ambiguous ground
    witnesses nothing between the levels it cannot tell apart, instead of lending its guess the full weight.

    Parameters
    ----------
    cells, rotations, columns, weight, neighbour_of
        As :func:`contact_bonus`.
    level_post : ndarray, shape (T, 3 inks, 6 levels)
        Each tile's own level probabilities per ink (marks and ground, no contacts); zero for a tile read as K
        (wild: no witness).

    Returns
    -------
    ndarray, shape (T, len(columns))
    """
    normal = np.array([c if c != "k" else (-1, -1, -1) for c in columns], dtype=int)
    is_normal = normal[:, 0] >= 0
    out = np.zeros((len(cells), len(columns)))
    pairs = _touching(cells, neighbour_of)
    if not pairs:
        return out
    t, d, n = (np.array(x, np.intp) for x in zip(*pairs))
    rot = np.asarray(rotations, np.intp)
    nb_ink, ink = _ROTATION_INKS[rot[n], d], _ROTATION_INKS[rot[t], d]
    # every edge's term at once, added in tile then direction order (as one edge after the other): the same sums
    terms = weight * level_post[n[:, None], nb_ink[:, None], normal[is_normal][:, ink].T]  # (edges, normal columns)
    normal_out = np.zeros((len(cells), int(is_normal.sum())))
    np.add.at(normal_out, t, terms)
    out[:, is_normal] = normal_out
    return out


def assign(scores: np.ndarray) -> np.ndarray:
    """Each tile to a distinct type, maximising the summed log-likelihood. Returns column per row."""
    from core.assignment import linear_sum_assignment  # noqa: PLC0415  (SciPy's, without SciPy: CLI start-up)

    rows, cols = linear_sum_assignment(-scores)
    out = np.full(scores.shape[0], -1)
    out[rows] = cols
    return out


def posteriors(rows: np.ndarray) -> np.ndarray:
    """:func:`posterior` of every row (softmax along the last axis)."""
    return _softmax(np.asarray(rows, np.float64))


def posterior(row: np.ndarray) -> np.ndarray:
    """Softmax of one score row."""
    z = row - row.max()
    p = np.exp(z)
    return p / p.sum()
