"""Is a later frame of a still scene still the table an earlier frame was read from? (Carrotain live reads.)

A reading frame of a still scene is read in full once (chips, board evidence, board search); the later reading
frames of it only check, cheaply, that what was read is still there (``StillProbe``):

- each chip (and chip-like blob) read: its patch of the chip top view, sampled through the very same remap maps,
  still correlates with the patch it was read from (``chip_holds``);
- each board fitted: the level step across its outline (just outside minus just inside, sampled in the photo at
  the board tops' height) still follows the profile it had, up to the light's gain (``boards_hold``).

Both are insensitive to the light's overall gain (flicker, exposure drift) and to sensor noise averaged over a
patch or an outline, but a chip moved by a few mm, or a board pushed off its outline or taken away, breaks them.
When a check fails the frame is read in full again.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.acrylic import outline_samples
from vision.carrotain_view import TopViewMaps, mm_to_px

_MAP_COLS = 4096


@dataclass(frozen=True)
class StillConfig:
    """Tunables of the still-scene checks.

    Attributes
    ----------
    chip_patch_mm : float
        Half size of the square patch around each chip centre compared (a chip is 25 mm across).
    min_chip_correlation : float
        A chip's patch correlates at least this well with the patch it was read from, or the check fails.
    board_step_mm : float
        The outline's step is sampled this far outside and inside it.
    board_sample_mm : float
        Outline sampling step.
    max_board_gain, max_board_residual : float
        A board's outline step profile ``b`` is the one it was fitted on ``a`` up to a gain ``g`` (``b ~ g a``,
        least squares) within this factor either way (the light's flicker), with ``|b - g a| / |a|`` at most
        this (sensor noise; a board pushed 1 mm off its outline gives about 0.4 on the rendered clip, one
        removed about 0.5 with a gain near 0.3).
    """

    chip_patch_mm: float = 14.0
    min_chip_correlation: float = 0.9
    board_step_mm: float = 3.0
    board_sample_mm: float = 4.0
    max_board_gain: float = 1.25
    max_board_residual: float = 0.25


@dataclass(frozen=True)
class StillProbe:
    """What the checks sample on later frames, and the values the read frame gave there.

    Attributes
    ----------
    chip_map_xy, chip_map_frac : ndarray, shapes (1, M, 2) int16 and (1, M) uint16
        The chip top view's remap maps at the pixels of every chip patch, one after the other.
    chip_starts : ndarray, shape (n_chips + 1,), int
        Where each chip's patch starts in the maps (and where the last ends).
    chip_ref : ndarray, shape (M,), float32
        The read frame's level at those pixels.
    board_px : ndarray, shape (1, 2K, 2), float32
        Photo px of the points just outside, then just inside, every board's outline samples (K in all).
    board_starts : ndarray, shape (n_boards + 1,), int
        Where each board's samples start among the K.
    board_ref : ndarray, shape (K,), float32
        The read frame's step (outside - inside) at those samples.
    """

    chip_map_xy: np.ndarray
    chip_map_frac: np.ndarray
    chip_starts: np.ndarray
    chip_ref: np.ndarray
    board_px: np.ndarray
    board_starts: np.ndarray
    board_ref: np.ndarray


def _level(rgb: np.ndarray, ref) -> np.ndarray:
    """Normalised level (mean of the normalised channels) of sampled colours (..., 3) -> (...), float32."""
    return np.asarray(ref.normalise(rgb), dtype=np.float32).mean(axis=-1)


def _chip_maps(maps: TopViewMaps, chips_xy_mm: list, config: StillConfig
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The chip view's remap maps over each chip's patch (clipped to the view), concatenated (see ``StillProbe``)."""
    h, w = maps.map_frac.shape
    r = int(round(config.chip_patch_mm / maps.mm_per_px))
    xy_parts, frac_parts, starts = [], [], [0]
    for x_mm, y_mm in chips_xy_mm:
        cx = int(round((x_mm - maps.origin_mm[0]) / maps.mm_per_px))
        cy = int(round((y_mm - maps.origin_mm[1]) / maps.mm_per_px))
        x0, x1, y0, y1 = max(cx - r, 0), min(cx + r + 1, w), max(cy - r, 0), min(cy + r + 1, h)
        if x1 <= x0 or y1 <= y0:
            xy_parts.append(np.zeros((0, 2), np.int16))
            frac_parts.append(np.zeros(0, np.uint16))
        else:
            xy_parts.append(maps.map_xy[y0:y1, x0:x1].reshape(-1, 2))
            frac_parts.append(maps.map_frac[y0:y1, x0:x1].ravel())
        starts.append(starts[-1] + len(frac_parts[-1]))
    map_xy = np.concatenate(xy_parts or [np.zeros((0, 2), np.int16)])[None]
    map_frac = np.concatenate(frac_parts or [np.zeros(0, np.uint16)])[None]
    return map_xy, map_frac, np.asarray(starts)


def _rows(a: np.ndarray, cols: int = _MAP_COLS) -> np.ndarray:
    """A map of n entries (1, n, ...) as rows of ``cols`` (``cv2.remap`` takes fewer than 32767 per side), padded
    with zeros, shape (rows, cols, ...)."""
    n = a.shape[1]
    rows = max(-(-n // cols), 1)
    out = np.zeros((rows * cols,) + a.shape[2:], a.dtype)
    out[:n] = a[0]
    return out.reshape((rows, cols) + a.shape[2:])


def _sample_chips(probe: StillProbe, image_rgb: np.ndarray, ref) -> np.ndarray:
    n = probe.chip_map_frac.shape[1]
    if n == 0:
        return np.zeros(0, np.float32)
    out = cv2.remap(image_rgb, _rows(probe.chip_map_xy), _rows(probe.chip_map_frac), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return _level(out.reshape(-1, out.shape[-1])[:n], ref)


def _sample_steps(board_px: np.ndarray, image_rgb: np.ndarray, ref) -> np.ndarray:
    n = board_px.shape[1]
    if n == 0:
        return np.zeros(0, np.float32)
    out = cv2.remap(image_rgb, _rows(board_px), None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lv = _level(out.reshape(-1, out.shape[-1])[:n], ref)
    k = len(lv) // 2
    return lv[:k] - lv[k:]


def still_probe(image_rgb: np.ndarray, cal, ref, chip_maps: TopViewMaps, chips_xy_mm: list,
                board_outlines_mm: list[np.ndarray], board_z_mm: float, config: StillConfig = StillConfig()
                ) -> StillProbe:
    """The probe of a frame just read: its chips (and chip-like blobs) and board outlines, sampled there.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    cal : TableCalibration
    ref : colour reference (``normalise``)
    chip_maps : TopViewMaps
        The chip top view's maps (at the chip faces' height).
    chips_xy_mm : list of (float, float)
        Centres of the chips and chip-like blobs read, table mm.
    board_outlines_mm : list of ndarray, shape (N, 2)
        The fitted boards' outlines (top face), table mm.
    board_z_mm : float
        Height of the board tops.
    config : StillConfig
    """
    map_xy, map_frac, starts = _chip_maps(chip_maps, chips_xy_mm, config)
    out_pts, in_pts, b_starts = [], [], [0]
    for outline in board_outlines_mm:
        pts, nrm = outline_samples(np.asarray(outline, dtype=np.float64), config.board_sample_mm)
        out_pts.append(pts + config.board_step_mm * nrm)
        in_pts.append(pts - config.board_step_mm * nrm)
        b_starts.append(b_starts[-1] + len(pts))
    if out_pts:
        mm = np.concatenate(out_pts + in_pts)
        board_px = mm_to_px(cal, mm, board_z_mm).astype(np.float32)[None]
    else:
        board_px = np.zeros((1, 0, 2), np.float32)
    probe = StillProbe(map_xy, map_frac, starts, np.zeros(0, np.float32), board_px, np.asarray(b_starts),
                       np.zeros(0, np.float32))
    return StillProbe(map_xy, map_frac, starts, _sample_chips(probe, image_rgb, ref), board_px, np.asarray(b_starts),
                      _sample_steps(board_px, image_rgb, ref))


def _correlations(a: np.ndarray, b: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Pearson correlation of ``a`` and ``b`` over each segment ``starts[i]:starts[i+1]``, shape (n,) (0 where a
    segment is shorter than 3 or flat)."""
    out = np.zeros(len(starts) - 1)
    for i in range(len(out)):
        x, y = a[starts[i]:starts[i + 1]], b[starts[i]:starts[i + 1]]
        if len(x) < 3:
            continue
        x, y = x - x.mean(), y - y.mean()
        den = float(np.sqrt(np.dot(x, x) * np.dot(y, y)))
        out[i] = float(np.dot(x, y)) / den if den > 1e-12 else 0.0
    return out


def chip_correlations(probe: StillProbe, image_rgb: np.ndarray, ref) -> np.ndarray:
    """Per chip read, how well its patch on ``image_rgb`` correlates with the read frame's, shape (n_chips,)."""
    return _correlations(probe.chip_ref, _sample_chips(probe, image_rgb, ref), probe.chip_starts)


def board_steps(probe: StillProbe, image_rgb: np.ndarray, ref) -> tuple[np.ndarray, np.ndarray]:
    """Per board, its outline step profile on ``image_rgb`` against the read frame's ``a``: the gain ``g`` that
    fits it best (``b ~ g a``) and the relative residual ``|b - g a| / |a|``, shapes (n_boards,) (gain 0 and
    residual inf for a board without samples or steps)."""
    a, b, starts = probe.board_ref, _sample_steps(probe.board_px, image_rgb, ref), probe.board_starts
    gain = np.zeros(len(starts) - 1)
    resid = np.full(len(starts) - 1, np.inf)
    for i in range(len(gain)):
        x, y = a[starts[i]:starts[i + 1]].astype(np.float64), b[starts[i]:starts[i + 1]].astype(np.float64)
        xx = float(np.dot(x, x))
        if len(x) < 3 or xx < 1e-12:
            continue
        gain[i] = float(np.dot(x, y)) / xx
        resid[i] = float(np.linalg.norm(y - gain[i] * x)) / np.sqrt(xx)
    return gain, resid


def chips_hold(probe: StillProbe, image_rgb: np.ndarray, ref, config: StillConfig = StillConfig()) -> bool:
    """Every chip read is still where it was (its patch correlates at least ``min_chip_correlation``)."""
    return bool(np.all(chip_correlations(probe, image_rgb, ref) >= config.min_chip_correlation))


def boards_hold(probe: StillProbe, image_rgb: np.ndarray, ref, config: StillConfig = StillConfig()) -> bool:
    """Every board fitted still lies on its outline: its step profile is the read frame's up to a gain within
    ``max_board_gain`` either way, with a relative residual under ``max_board_residual``."""
    gain, resid = board_steps(probe, image_rgb, ref)
    with np.errstate(divide="ignore"):
        return bool(np.all((np.abs(np.log(np.maximum(gain, 0.0))) <= np.log(config.max_board_gain))
                           & (resid <= config.max_board_residual)))
