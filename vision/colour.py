"""Colour classification against a reference palette, in CIELAB.

Generic (shared by every game): the caller first normalises pixel colours with the frame's own
colour reference (``calibration.colour.ColourReference.normalise``: marker black -> 0, paper
white -> 1 per channel), so that the light's colour and level cancel out; this module then
compares the normalised colours with a palette of nominal colours (their sRGB values normalised
the same way, i.e. divided by 255) in CIELAB, where distances follow perceived differences.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# sRGB (D65) -> XYZ; CIE standard values, not tunables.
_RGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)
_WHITE_D65 = np.array([0.95047, 1.0, 1.08883])


@dataclass(frozen=True)
class ColourConfig:
    """Tunables of the classifier.

    Attributes
    ----------
    lightness_weight : float
        Weight of L* against a*, b* in the distance (< 1: the level of light under glare, acrylic
        or shadow varies more than hue does).
    scale_de : float
        Distance (delta E) over which confidence falls off: confidence of the best name is
        ``margin / (margin + scale_de)`` with margin the gap to the runner-up, times
        ``exp(-d_best / max_de)``.
    max_de : float
        Distance to the best palette colour at which confidence has dropped to 1/e.
    """

    lightness_weight: float = 0.5
    scale_de: float = 8.0
    max_de: float = 40.0


def srgb_to_linear(rgb: np.ndarray) -> np.ndarray:
    """sRGB-encoded values in [0, 1] to linear light (clipped to >= 0)."""
    c = np.clip(np.asarray(rgb, dtype=np.float64), 0.0, None)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v: np.ndarray) -> np.ndarray:
    """Linear light (clipped to >= 0) to sRGB-encoded values, the inverse of :func:`srgb_to_linear`."""
    v = np.clip(np.asarray(v, np.float64), 0.0, None)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def rgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB values in [0, 1] (normalised, may exceed 1 slightly) to CIELAB (D65).

    Parameters
    ----------
    rgb : array_like, shape (N, 3)

    Returns
    -------
    ndarray, shape (N, 3): L* (0..100), a*, b*
    """
    lin = srgb_to_linear(np.asarray(rgb, dtype=np.float64).reshape(-1, 3))
    xyz = lin @ _RGB_TO_XYZ.T / _WHITE_D65
    eps = (6.0 / 29.0) ** 3
    f = np.where(xyz > eps, np.cbrt(xyz), xyz / (3 * (6.0 / 29.0) ** 2) + 4.0 / 29.0)
    L = 116.0 * f[:, 1] - 16.0
    a = 500.0 * (f[:, 0] - f[:, 1])
    b = 200.0 * (f[:, 1] - f[:, 2])
    return np.stack([L, a, b], axis=1)


def lab_to_linear(lab: np.ndarray) -> np.ndarray:
    """CIELAB (D65) to linear-light sRGB, the inverse of :func:`rgb_to_lab` before its sRGB encoding.

    Parameters
    ----------
    lab : array_like, shape (N, 3)

    Returns
    -------
    ndarray, shape (N, 3): linear R, G, B (unclipped)
    """
    lab = np.asarray(lab, dtype=np.float64).reshape(-1, 3)
    fy = (lab[:, 0] + 16.0) / 116.0
    f = np.stack([fy + lab[:, 1] / 500.0, fy, fy - lab[:, 2] / 200.0], axis=1)
    d = 6.0 / 29.0
    xyz = np.where(f > d, f**3, 3.0 * d * d * (f - 4.0 / 29.0)) * _WHITE_D65
    return xyz @ np.linalg.inv(_RGB_TO_XYZ).T


def palette_to_normalised(palette_rgb255: dict[str, tuple[float, float, float]]) -> dict[str, np.ndarray]:
    """Nominal 0-255 sRGB colours (as in components/default.json) to normalised [0, 1] values."""
    return {k: np.asarray(v, dtype=np.float64) / 255.0 for k, v in palette_rgb255.items()}


def classify(
    rgb_normalised: np.ndarray,
    palette: dict[str, np.ndarray],
    config: ColourConfig = ColourConfig(),
) -> tuple[list[str], np.ndarray]:
    """Name each colour by its nearest palette entry in CIELAB.

    Parameters
    ----------
    rgb_normalised : array_like, shape (N, 3)
        Colours normalised by the frame's colour reference (black 0, white 1 per channel).
    palette : dict[str, array_like (3,)]
        Name -> nominal colour on the same normalised scale (e.g. ``palette_to_normalised``).
    config : ColourConfig

    Returns
    -------
    names : list[str], length N
    confidences : ndarray, shape (N,), in [0, 1]
        High when the colour is close to its palette entry and far from every other one.
    """
    rgb = np.asarray(rgb_normalised, dtype=np.float64).reshape(-1, 3)
    if not palette:
        raise ValueError("empty palette")
    names = list(palette)
    w = np.array([config.lightness_weight, 1.0, 1.0])
    lab = rgb_to_lab(rgb) * w
    ref = rgb_to_lab(np.stack([np.asarray(palette[n], dtype=np.float64) for n in names])) * w
    d = np.linalg.norm(lab[:, None, :] - ref[None, :, :], axis=2)  # (N, K)
    order = np.argsort(d, axis=1)
    best = d[np.arange(len(rgb)), order[:, 0]]
    if len(names) > 1:
        second = d[np.arange(len(rgb)), order[:, 1]]
        margin = second - best
        conf = margin / (margin + config.scale_de)
    else:
        conf = np.ones(len(rgb))
    conf = conf * np.exp(-best / config.max_de)
    return [names[i] for i in order[:, 0]], np.clip(conf, 0.0, 1.0)
