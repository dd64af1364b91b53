"""What a phone, a cheap webcam or a browser camera does to a photo before the judge sees it.

Used by ``tools/eval_photoreal.py --device``: the photoreal renders are clean camera images; real
users' frames have been through a device's processing. Each simulation is seeded (same photo, same
device, same seed -> same bytes) and returns a new image.

- phone: local tone mapping (CLAHE on L*), sharpening halos (unsharp mask), boosted saturation, JPEG.
- webcam: scaled to fit 960x720, a dim room (exposure down, gamma), motion blur, sensor noise, heavy JPEG.
- browser: scaled to fit 704x528 (a browser camera left at its default), JPEG.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import cv2
import numpy as np

DEVICES = ("none", "phone", "webcam", "browser")


@dataclass(frozen=True)
class PhoneSim:
    """A phone's processing.

    Attributes
    ----------
    clahe_clip : float
        CLAHE clip limit on L* (local tone mapping strength).
    clahe_tiles : int
        CLAHE tiles per side.
    sharpen_sigma_px : float
        Gaussian sigma of the unsharp mask (the halo width).
    sharpen_amount : float
        Unsharp mask gain (1 + amount) * img - amount * blur.
    saturation_gain : float
        Multiplier on HSV saturation.
    jpeg_quality : int
    """

    clahe_clip: float = 2.5
    clahe_tiles: int = 8
    sharpen_sigma_px: float = 2.0
    sharpen_amount: float = 0.8
    saturation_gain: float = 1.3
    jpeg_quality: int = 85


@dataclass(frozen=True)
class WebcamSim:
    """A cheap webcam in a dim room.

    Attributes
    ----------
    size_px : (int, int)
        (width, height) the frame is scaled to fit.
    exposure_gain : float
        Linear multiplier on intensity (a dim room).
    gamma : float
        Output gamma after the gain (>1 darkens the mid-tones).
    blur_len_px : (int, int)
        Range of the motion-blur streak length.
    noise_sigma : (float, float)
        Range of the Gaussian sensor noise sigma (8-bit units).
    jpeg_quality : int
    """

    size_px: tuple[int, int] = (960, 720)
    exposure_gain: float = 0.6
    gamma: float = 1.15
    blur_len_px: tuple[int, int] = (3, 7)
    noise_sigma: tuple[float, float] = (4.0, 7.0)
    jpeg_quality: int = 45


@dataclass(frozen=True)
class BrowserSim:
    """A browser camera at its default resolution.

    Attributes
    ----------
    size_px : (int, int)
        (width, height) the frame is scaled to fit.
    jpeg_quality : int
    """

    size_px: tuple[int, int] = (704, 528)
    jpeg_quality: int = 80


def seed_for(name: str, device: str, seed: int = 0) -> int:
    """A stable 32-bit seed from a photo name, the device and a base seed."""
    return zlib.crc32(f"{name}|{device}|{seed}".encode()) & 0xFFFFFFFF


def jpeg_roundtrip(image_rgb: np.ndarray, quality: int) -> np.ndarray:
    """Encode as JPEG at ``quality`` and decode again (RGB uint8 in, RGB uint8 out)."""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def fit_size(image_rgb: np.ndarray, size_px: tuple[int, int]) -> np.ndarray:
    """Scale down (never up) to fit inside (width, height), keeping the aspect ratio."""
    h, w = image_rgb.shape[:2]
    scale = min(size_px[0] / w, size_px[1] / h)
    if scale >= 1.0:
        return image_rgb.copy()
    return cv2.resize(image_rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)


def simulate_phone(image_rgb: np.ndarray, rng: np.random.Generator, cfg: PhoneSim = PhoneSim()) -> np.ndarray:
    """Phone processing (see module doc); ``rng`` is unused (kept for a common signature)."""
    lab = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2LAB)
    clahe = cv2.createCLAHE(clipLimit=cfg.clahe_clip, tileGridSize=(cfg.clahe_tiles, cfg.clahe_tiles))
    lab[..., 0] = clahe.apply(lab[..., 0])
    img = cv2.cvtColor(lab, cv2.COLOR_LAB2RGB)
    blur = cv2.GaussianBlur(img, (0, 0), cfg.sharpen_sigma_px)
    img = cv2.addWeighted(img, 1.0 + cfg.sharpen_amount, blur, -cfg.sharpen_amount, 0)
    hsv = cv2.cvtColor(img, cv2.COLOR_RGB2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * cfg.saturation_gain, 0, 255)
    img = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2RGB)
    return jpeg_roundtrip(img, cfg.jpeg_quality)


def motion_kernel(length_px: int, angle_deg: float) -> np.ndarray:
    """A normalised line kernel, shape (length_px, length_px), float32."""
    k = np.zeros((length_px, length_px), np.float32)
    c = (length_px - 1) / 2.0
    dx, dy = np.cos(np.radians(angle_deg)) * c, np.sin(np.radians(angle_deg)) * c
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
    return k / k.sum()


def simulate_webcam(image_rgb: np.ndarray, rng: np.random.Generator, cfg: WebcamSim = WebcamSim()) -> np.ndarray:
    """Cheap-webcam processing (see module doc)."""
    img = fit_size(image_rgb, cfg.size_px).astype(np.float32) / 255.0
    img = np.clip(img * cfg.exposure_gain, 0.0, 1.0) ** cfg.gamma
    length = int(rng.integers(cfg.blur_len_px[0], cfg.blur_len_px[1] + 1))
    img = cv2.filter2D(img, -1, motion_kernel(length, float(rng.uniform(0.0, 180.0))))
    sigma = float(rng.uniform(*cfg.noise_sigma)) / 255.0
    img = img + rng.normal(0.0, sigma, img.shape).astype(np.float32)
    img = (np.clip(img, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    return jpeg_roundtrip(img, cfg.jpeg_quality)


def simulate_browser(image_rgb: np.ndarray, rng: np.random.Generator, cfg: BrowserSim = BrowserSim()) -> np.ndarray:
    """Browser-camera default resolution (see module doc); ``rng`` is unused."""
    return jpeg_roundtrip(fit_size(image_rgb, cfg.size_px), cfg.jpeg_quality)


def simulate(image_rgb: np.ndarray, device: str, seed: int) -> np.ndarray:
    """The photo as ``device`` delivers it.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    device : str
        One of ``DEVICES``; ``"none"`` returns a copy.
    seed : int

    Returns
    -------
    ndarray, shape (H', W', 3), uint8
    """
    rng = np.random.default_rng(seed)
    if device == "none":
        return image_rgb.copy()
    if device == "phone":
        return simulate_phone(image_rgb, rng)
    if device == "webcam":
        return simulate_webcam(image_rgb, rng)
    if device == "browser":
        return simulate_browser(image_rgb, rng)
    raise ValueError(f"unknown device {device!r}: choose one of {', '.join(DEVICES)}")
