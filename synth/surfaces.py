"""Procedural table surfaces (seeded): wood, laminate, cloth, near-white, dark, patterned.

Each texture is built from a few low-resolution random fields enlarged with ``cv2.resize`` (fast
smooth noise) and periodic functions of the table coordinates, so that a texture of a million
texels costs tens of milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

TABLE_KINDS = ("wood", "laminate", "cloth", "white", "dark", "patterned")


@dataclass(frozen=True)
class SurfaceConfig:
    """Tunables of the procedural textures (sizes in mm, colours sRGB in [0, 1])."""

    wood_ring_period_mm: tuple[float, float] = (5.0, 14.0)
    wood_plank_width_mm: tuple[float, float] = (90.0, 220.0)
    wood_warp_mm: tuple[float, float] = (2.0, 7.0)
    cloth_weave_period_mm: tuple[float, float] = (0.9, 2.2)
    pattern_period_mm: tuple[float, float] = (18.0, 70.0)
    mottling_scale_mm: float = 60.0
    mottling_amplitude: float = 0.05
    grain_noise_amplitude: float = 0.03


def smooth_noise(shape: tuple[int, int], cell_px: float, rng: np.random.Generator) -> np.ndarray:
    """Zero-mean smooth random field of about unit amplitude.

    Parameters
    ----------
    shape : (rows, cols)
    cell_px : float
        Feature size, texels.

    Returns
    -------
    ndarray, shape ``shape``, float32
    """
    h, w = shape
    gh = max(2, int(np.ceil(h / max(cell_px, 1.0))) + 2)
    gw = max(2, int(np.ceil(w / max(cell_px, 1.0))) + 2)
    coarse = rng.standard_normal((gh, gw), dtype=np.float32)
    return cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)


def fbm(shape: tuple[int, int], cell_px: float, rng: np.random.Generator, octaves: int = 4) -> np.ndarray:
    """Fractal sum of ``smooth_noise`` octaves (halving size, amplitude 0.5 each), float32."""
    out = np.zeros(shape, np.float32)
    amp = 1.0
    for k in range(octaves):
        out += amp * smooth_noise(shape, cell_px / (2**k), rng)
        amp *= 0.5
    return out / 1.9


def _mix(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    t = t[..., None]
    return a * (1.0 - t) + b * t


def _rgb(rng: np.random.Generator, lo: tuple[float, float, float], hi: tuple[float, float, float]) -> np.ndarray:
    return rng.uniform(np.array(lo), np.array(hi)).astype(np.float32)


def table_texture(
    kind: str,
    extent_mm: tuple[float, float, float, float],
    mm_per_px: float,
    seed: int,
    config: SurfaceConfig = SurfaceConfig(),
) -> np.ndarray:
    """A table surface texture covering ``extent_mm``.

    Parameters
    ----------
    kind : str
        One of ``TABLE_KINDS``.
    extent_mm : (x0, y0, x1, y1)
        Table rectangle, mm; texel (r, c) covers the square from ``(x0, y0) + (c, r) * mm_per_px``.
    mm_per_px : float
    seed : int
        The same seed and arguments give the same texture.

    Returns
    -------
    ndarray, shape (H, W, 3), float32, sRGB in [0, 1]
    """
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = extent_mm
    w = max(2, int(np.ceil((x1 - x0) / mm_per_px)))
    h = max(2, int(np.ceil((y1 - y0) / mm_per_px)))
    xs = (x0 + (np.arange(w, dtype=np.float32) + 0.5) * mm_per_px)[None, :]
    ys = (y0 + (np.arange(h, dtype=np.float32) + 0.5) * mm_per_px)[:, None]
    mott = 1.0 + config.mottling_amplitude * fbm((h, w), config.mottling_scale_mm / mm_per_px, rng, 3)
    fine = config.grain_noise_amplitude * smooth_noise((h, w), 1.0, rng)
    if kind == "wood":
        light = _rgb(rng, (0.55, 0.36, 0.20), (0.80, 0.62, 0.42))
        dark = light * rng.uniform(0.55, 0.8)
        period = rng.uniform(*config.wood_ring_period_mm)
        along_x = rng.random() < 0.5
        a, b = (ys, xs) if along_x else (xs, ys)
        shape_ab = (h, w)
        plank = rng.uniform(*config.wood_plank_width_mm)
        # Per-plank quantities depend on the across-grain coordinate only (1D); rings are a sawtooth
        # (early/late wood) of that coordinate warped by smooth noise; fibres are noise stretched
        # along the grain.
        a1 = (a + 1000.0).ravel() / plank
        plank_idx = np.floor(a1)
        seam = (np.abs(a1 - np.round(a1)) * plank < 0.6).astype(np.float32)
        tone = (1.0 + 0.12 * np.sin(plank_idx * 12.9898)).astype(np.float32)
        phase = (np.sin(plank_idx * 78.233) * 437.0).astype(np.float32)
        b_wave = (2.0 * np.sin(b.ravel() / 150.0)).astype(np.float32)
        a_term = (a.ravel() + phase).astype(np.float32)
        if along_x:  # a runs down the rows
            coord = a_term[:, None] + b_wave[None, :]
            tone2, seam2 = tone[:, None], seam[:, None]
        else:
            coord = a_term[None, :] + b_wave[:, None]
            tone2, seam2 = tone[None, :], seam[None, :]
        warp = np.float32(rng.uniform(*config.wood_warp_mm)) * fbm(shape_ab, 160.0 / mm_per_px, rng, 3)
        # A smooth, skewed ring profile: a hard sawtooth would alias into moire at ~1 mm texels.
        rings = np.float32(0.5) - np.float32(0.5) * np.cos((coord + warp) * np.float32(2 * np.pi / period))
        rings *= rings
        fine_cells = (max(2, int(h / (1.6 / mm_per_px))), max(2, int(w / (1.6 / mm_per_px))))
        long_cells = (max(2, int(h / (30.0 / mm_per_px))), max(2, int(w / (30.0 / mm_per_px))))
        # Grain along x: fibres vary quickly across it (rows), slowly along it (columns).
        streak_cells = (fine_cells[0], long_cells[1]) if along_x else (long_cells[0], fine_cells[1])
        fibres = cv2.resize(rng.standard_normal(streak_cells, dtype=np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        bright = (tone2 * mott + fine + np.float32(0.05) * fibres) * (1.0 - np.float32(0.45) * seam2)
        img = (light[None, None, :] + (dark - light)[None, None, :] * rings[..., None]) * bright[..., None]
    elif kind == "laminate":
        base = rng.choice([0.15, 0.45, 0.7]) + rng.uniform(-0.08, 0.08)
        base_rgb = np.clip(base + rng.uniform(-0.04, 0.06, 3), 0.05, 0.9).astype(np.float32)
        speck = (smooth_noise((h, w), 0.7, rng) > 2.2).astype(np.float32) * 0.08
        img = base_rgb[None, None, :] * (1.0 + 0.4 * (mott - 1.0) + 0.5 * fine - speck)[..., None]
    elif kind == "cloth":
        base_rgb = _rgb(rng, (0.05, 0.15, 0.08), (0.35, 0.45, 0.40))
        base_rgb = base_rgb[rng.permutation(3)]
        p = rng.uniform(*config.cloth_weave_period_mm)
        if p < 2.2 * mm_per_px:  # unresolvable weave: only its average shows
            weave = np.zeros((h, w), np.float32)
        else:
            weave = 0.08 * (np.sin(2 * np.pi * xs / p) * np.sin(2 * np.pi * ys / p)).astype(np.float32)
        fuzz = 0.06 * smooth_noise((h, w), 2.0 / mm_per_px, rng)
        img = base_rgb[None, None, :] * (mott + weave + fuzz + fine)[..., None]
    elif kind == "white":
        base_rgb = np.clip(rng.uniform(0.82, 0.95) + rng.uniform(-0.03, 0.03, 3), 0, 1).astype(np.float32)
        img = base_rgb[None, None, :] * (1.0 + 0.4 * (mott - 1.0) + 0.3 * fine)[..., None]
    elif kind == "dark":
        base_rgb = _rgb(rng, (0.03, 0.03, 0.03), (0.14, 0.12, 0.12))
        img = base_rgb[None, None, :] * (mott + 2.0 * fine)[..., None]
    elif kind == "patterned":
        c1 = _rgb(rng, (0.3, 0.3, 0.3), (0.9, 0.9, 0.9))
        c2 = _rgb(rng, (0.05, 0.05, 0.05), (0.7, 0.7, 0.7))
        period = rng.uniform(*config.pattern_period_mm)
        style = rng.integers(3)
        if style == 0:  # checks
            m = ((np.floor(xs / period) + np.floor(ys / period)) % 2).astype(np.float32)
        elif style == 1:  # plaid
            sx = (np.sin(2 * np.pi * xs / period) > 0.3).astype(np.float32)
            sy = (np.sin(2 * np.pi * ys / period) > 0.3).astype(np.float32)
            m = 0.5 * (sx + sy)
        else:  # dots
            gx = (xs / period) % 1.0 - 0.5
            gy = (ys / period) % 1.0 - 0.5
            m = ((gx * gx + gy * gy) < 0.06).astype(np.float32)
        m = cv2.GaussianBlur(np.broadcast_to(m, (h, w)).astype(np.float32), (0, 0), 0.6)
        img = _mix(np.broadcast_to(c1, (h, w, 3)), np.broadcast_to(c2, (h, w, 3)), m)
        img = img * (mott + fine)[..., None]
    else:
        raise ValueError(f"unknown table kind {kind!r}; expected one of {TABLE_KINDS}")
    return np.clip(img, 0.0, 1.0).astype(np.float32)


def background_texture(shape: tuple[int, int], seed: int) -> np.ndarray:
    """What lies beyond the table's edge (floor, room): dim, smooth, out of focus.

    Returns
    -------
    ndarray, shape (H, W, 3), float32 sRGB
    """
    rng = np.random.default_rng(seed)
    h, w = shape
    base = rng.uniform(0.08, 0.45, 3).astype(np.float32)
    small = (h // 16 + 2, w // 16 + 2)
    field = 1.0 + 0.3 * fbm(small, max(small) / 4.0, rng, 2)
    img = np.clip(base[None, None, :] * field[..., None], 0.0, 1.0)
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
