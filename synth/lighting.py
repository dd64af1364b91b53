"""Light for the synthetic photos: lamp colour, fall-off, blotches, specular glints, white balance."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from synth.camera import CameraTruth


@dataclass(frozen=True)
class LightConfig:
    """Tunables of the light fields.

    Attributes
    ----------
    grid_step_px : int
        The smooth fields are computed every this many canvas pixels and enlarged.
    blotch_wavelength_mm : (lo, hi)
        Wavelengths of the uneven-illumination sinusoids.
    blotch_waves : int
        How many sinusoids make the blotches.
    direct_max : float
        Cap on the lamp's relative irradiance (a lamp close to part of the table).
    specular_ref_width_deg : float
        Highlight lobes wider than this are proportionally dimmer (energy spread).
    """

    grid_step_px: int = 8
    blotch_wavelength_mm: tuple[float, float] = (180.0, 700.0)
    blotch_waves: int = 4
    direct_max: float = 2.0
    specular_ref_width_deg: float = 4.0


def kelvin_to_linear_rgb(temp_k: float) -> np.ndarray:
    """Colour of a black-body-like light, linear RGB with green = 1, shape (3,).

    Tanner Helland's fit of the Planckian locus in sRGB, squared to linear light.
    """
    t = float(np.clip(temp_k, 1000.0, 40000.0)) / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * np.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307)
    srgb = np.clip(np.array([r, g, b]) / 255.0, 0.02, 1.0)
    lin = srgb**2
    return lin / lin[1]


def white_balance_gains(light_temp_k: float, white_balance_k: float) -> np.ndarray:
    """Per-channel gains of a camera balanced for ``white_balance_k``, applied to light already
    coloured by ``kelvin_to_linear_rgb(light_temp_k)``; shape (3,). Equal temperatures cancel."""
    return 1.0 / kelvin_to_linear_rgb(white_balance_k)


def motion_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    """Normalised line kernel for a short camera shake, shape (k, k), float32."""
    k = int(np.ceil(length_px)) | 1
    k = max(k, 3)
    ker = np.zeros((k, k), np.float32)
    c = (k - 1) / 2.0
    a = np.radians(angle_deg)
    for s in np.linspace(-length_px / 2, length_px / 2, 4 * k):
        x, y = c + s * np.cos(a), c + s * np.sin(a)
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        fx, fy = x - x0, y - y0
        for dx, dy, wgt in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy),
                            (1, 1, fx * fy)):
            if 0 <= x0 + dx < k and 0 <= y0 + dy < k:
                ker[y0 + dy, x0 + dx] += wgt
    return ker / ker.sum()


def light_fields(cond, cam: CameraTruth, K_c: np.ndarray, canvas_size: tuple[int, int],
                 cfg: LightConfig = LightConfig()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lamp's direct light and specular highlight over the canvas (table plane z = 0).

    Parameters
    ----------
    cond : PhotoConditions
    cam : CameraTruth
    K_c : ndarray, shape (3, 3)
        Canvas intrinsics.
    canvas_size : (width, height)

    Returns
    -------
    direct : ndarray, shape (H, W), float32
        Irradiance relative to the look-at point (cosine / distance^2 fall-off, blotches).
    spec : ndarray, shape (H, W), float32
        Mirror-reflection highlight of the lamp in [0, 1] (before material gloss).
    light_rgb : ndarray, shape (3,)
        Lamp colour, linear RGB, green = 1.
    """
    cw, ch = canvas_size
    step = cfg.grid_step_px
    gw, gh = cw // step + 2, ch // step + 2
    gx = (np.arange(gw) * step).astype(np.float64)
    gy = (np.arange(gh) * step).astype(np.float64)
    GX, GY = np.meshgrid(gx, gy)
    Hinv = np.linalg.inv(cam.homography_px_from_mm(0.0, K_c))
    p = np.stack([GX.ravel(), GY.ravel(), np.ones(GX.size)], 1) @ Hinv.T
    w = p[:, 2]
    w = np.where(np.abs(w) < 1e-9, 1e-9, w)
    xy = p[:, :2] / w[:, None]
    behind = w < 0  # rays above the horizon: no table point; use the look-at point's values
    look = np.array(cond.look_at_mm, dtype=np.float64)
    xy[behind] = look
    X = np.column_stack([xy, np.zeros(len(xy))])
    lamp = cond.light_position_mm()

    def irradiance(pts):
        v = lamp - pts
        d2 = np.sum(v * v, axis=1)
        return np.maximum(v[:, 2], 0.0) / d2**1.5

    e = irradiance(X) / irradiance(np.array([[look[0], look[1], 0.0]]))[0]
    rng = np.random.default_rng(cond.uneven_seed)
    blot = np.zeros(len(xy))
    for _ in range(cfg.blotch_waves):
        lam = rng.uniform(*cfg.blotch_wavelength_mm)
        ang = rng.uniform(0, 2 * np.pi)
        blot += np.sin(2 * np.pi * (xy[:, 0] * np.cos(ang) + xy[:, 1] * np.sin(ang)) / lam + rng.uniform(0, 6.3))
    e = np.clip(e, 0.0, cfg.direct_max) * (1.0 + cond.uneven_amplitude * blot / np.sqrt(cfg.blotch_waves))
    l_dir = lamp - X
    l_dir /= np.linalg.norm(l_dir, axis=1, keepdims=True)
    v_dir = cam.centre_mm - X
    v_dir /= np.linalg.norm(v_dir, axis=1, keepdims=True)
    half = l_dir + v_dir
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    theta = np.arccos(np.clip(half[:, 2], -1.0, 1.0))
    lamp_ang = 0.5 * np.arctan2(cond.light_size_mm / 2.0, cond.light_distance_mm)
    sig = np.hypot(np.radians(cond.specular_width_deg), lamp_ang)
    # The same reflected energy spread over a wider lobe is dimmer: peak scales as (ref / width)^2.
    peak = min(1.0, (np.radians(cfg.specular_ref_width_deg) / sig) ** 2)
    spec = peak * np.exp(-0.5 * (theta / sig) ** 2)
    spec[behind] = 0.0
    direct = cv2.resize(e.reshape(gh, gw).astype(np.float32), (gw * step, gh * step),
                        interpolation=cv2.INTER_LINEAR)[:ch, :cw]
    spec_f = cv2.resize(spec.reshape(gh, gw).astype(np.float32), (gw * step, gh * step),
                        interpolation=cv2.INTER_LINEAR)[:ch, :cw]
    return direct, spec_f, kelvin_to_linear_rgb(cond.light_temp_k)
