"""A simple planar photo renderer for Kaleido scenes, used until ``synth.photo`` is available.

Pinhole camera (tilt, yaw, height, field of view), a table of one of several kinds (light, dark,
wood, patterned, near-white), the four ArUco markers, each layer warped at its own height
(parallax), a soft shadow under the boards, uneven tinted light, blur, noise and JPEG. Optional
mild barrel distortion in hard mode.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from components import load_components
from synth.layers import Layer

TABLE_KINDS = ("light", "dark", "wood", "pattern", "white")
_ALIASES = {"laminate": "light", "cloth": "light", "patterned": "pattern"}


@dataclass(frozen=True)
class FallbackCamera:
    """Pinhole camera: table (x, y right/down, z up) mm -> image px (before distortion)."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    k1: float = 0.0

    def plane_homography(self, z_mm: float) -> np.ndarray:
        """Homography table (x, y) at height z -> undistorted image px, (3, 3)."""
        M = np.column_stack([self.R[:, 0], self.R[:, 1], -self.R[:, 2] * z_mm + self.t])
        return self.K @ M

    def project(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Table points (N, 3) -> image px (N, 2), with the lens distortion."""
        p = np.asarray(xyz_mm, dtype=np.float64).reshape(-1, 3) * [1.0, 1.0, -1.0]
        c = p @ self.R.T + self.t
        xn = c[:, :2] / c[:, 2:3]
        r2 = np.sum(xn**2, axis=1, keepdims=True)
        xd = xn * (1 + self.k1 * r2)
        return xd * [self.K[0, 0], self.K[1, 1]] + [self.K[0, 2], self.K[1, 2]]


@dataclass(frozen=True)
class FallbackPhoto:
    image_rgb: np.ndarray
    camera: FallbackCamera
    conditions: dict

    def project(self, xyz_mm: np.ndarray) -> np.ndarray:
        return self.camera.project(xyz_mm)


def _rot(axis: str, deg: float) -> np.ndarray:
    t = np.radians(deg)
    c, s = np.cos(t), np.sin(t)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _table_texture(kind: str, rng: np.random.Generator, size_px: int, mm_per_px: float) -> np.ndarray:
    n = size_px
    if kind == "white":
        base = rng.uniform(0.86, 0.95) * np.array([1.0, rng.uniform(0.97, 1.0), rng.uniform(0.93, 1.0)])
    elif kind == "dark":
        base = rng.uniform(0.08, 0.3) * np.array([1.0, rng.uniform(0.8, 1.0), rng.uniform(0.7, 1.0)])
    elif kind == "wood":
        base = rng.uniform(0.35, 0.65) * np.array([1.0, 0.72, 0.45])
    else:
        base = rng.uniform(0.45, 0.8) * np.array([1.0, rng.uniform(0.85, 1.0), rng.uniform(0.75, 1.0)])
    tex = np.empty((n, n, 3), np.float32)
    tex[:] = base
    noise = cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), 2.0)
    if kind == "wood":
        yy = np.arange(n, dtype=np.float32)[:, None] * mm_per_px
        stripes = np.sin(yy / rng.uniform(3, 8) + 3 * cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32),
                                                                      (0, 0), 25) * 8)
        tex *= (1.0 + 0.08 * stripes + 0.03 * noise)[..., None]
    elif kind == "pattern":
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) * mm_per_px
        period = rng.uniform(15, 40)
        check = ((np.floor(xx / period) + np.floor(yy / period)) % 2).astype(np.float32)
        other = np.clip(base * rng.uniform(0.6, 1.3, 3), 0, 1)
        tex = tex * (1 - check[..., None]) + other[None, None] * check[..., None]
        tex *= (1.0 + 0.02 * noise)[..., None]
    else:
        tex *= (1.0 + 0.015 * noise)[..., None]
    return np.clip(tex, 0, 1)


def _marker_layers(components: dict) -> list[Layer]:
    cal = components["calibration"]
    side = float(cal["marker_side_mm"])
    dic = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, cal["aruco_dictionary"]))
    out = []
    for k, (cx, cy) in cal["marker_centres_mm"].items():
        s = side / 240.0
        img = cv2.aruco.generateImageMarker(dic, int(k), 240)
        pad = int(round(10.0 / s))
        img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
        tex = np.ones(img.shape + (4,), np.float32)
        tex[..., :3] = (img.astype(np.float32) / 255.0 * 0.92 + 0.04)[..., None]
        out.append(Layer(tex, (cx - side / 2 - pad * s, cy - side / 2 - pad * s), s, 0.1, "matte", False, f"m{k}"))
    return out


def _warp_layer(img: np.ndarray, lay: Layer, Hm_plane: np.ndarray, shadow: np.ndarray | None) -> None:
    H_, W_ = img.shape[:2]
    s = lay.mm_per_px
    ox, oy = lay.origin_mm
    A = np.array([[s, 0, ox + 0.5 * s], [0, s, oy + 0.5 * s], [0, 0, 1]])
    Hm = Hm_plane @ A
    th, tw = lay.rgba.shape[:2]
    cn = np.array([[0, 0, 1], [tw, 0, 1], [tw, th, 1], [0, th, 1]], np.float64) @ Hm.T
    cn = cn[:, :2] / cn[:, 2:3]
    u0, v0 = np.clip(np.floor(cn.min(axis=0)).astype(int) - 4, 0, [W_, H_])
    u1, v1 = np.clip(np.ceil(cn.max(axis=0)).astype(int) + 4, 0, [W_, H_])
    if u1 <= u0 or v1 <= v0:
        return
    Hroi = np.array([[1, 0, -u0], [0, 1, -v0], [0, 0, 1]], np.float64) @ Hm
    warped = cv2.warpPerspective(lay.rgba, Hroi, (int(u1 - u0), int(v1 - v0)), flags=cv2.INTER_LINEAR,
                                 borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4]
    if shadow is not None:
        sh = cv2.warpPerspective(lay.rgba[..., 3], Hroi @ np.array([[1, 0, shadow[0] / s], [0, 1, shadow[1] / s],
                                                                   [0, 0, 1]]),
                                 (int(u1 - u0), int(v1 - v0)), flags=cv2.INTER_LINEAR)
        sh = cv2.GaussianBlur(sh, (0, 0), 1.5)[..., None]
        img[v0:v1, u0:u1] *= 1.0 - 0.35 * sh
    img[v0:v1, u0:u1] = img[v0:v1, u0:u1] * (1 - a) + warped[..., :3] * a


def render_fallback(layers: list[Layer], rng: np.random.Generator, hard: bool = False, table: str | None = None,
                    size: tuple[int, int] = (1280, 960), look_at_mm: tuple[float, float] = (280.0, 210.0)
                    ) -> FallbackPhoto:
    """Composite the layers under a random pinhole camera and light.

    Parameters
    ----------
    layers : list[Layer]
    rng : numpy Generator
    hard : bool
        Steeper tilt, darker/tinted light, more noise, mild barrel distortion.
    table : str, optional
        One of ``TABLE_KINDS``; random when omitted.
    size : (W, H)

    Returns
    -------
    FallbackPhoto
    """
    comp = load_components()
    W, H = size
    kind = _ALIASES.get(table, table) if table else str(rng.choice(TABLE_KINDS))
    height = rng.uniform(680, 900)
    tilt = rng.uniform(0, 40 if hard else 30)
    yaw = rng.uniform(-25, 25) + (180.0 if rng.random() < 0.5 else 0.0)
    hfov = rng.uniform(55, 70)
    f = W / 2 / np.tan(np.radians(hfov / 2))
    K = np.array([[f, 0, W / 2 - 0.5], [0, f, H / 2 - 0.5], [0, 0, 1]])
    R = _rot("x", -tilt) @ _rot("z", yaw)
    look = np.array([look_at_mm[0], look_at_mm[1], 0.0]) + np.append(rng.uniform(-20, 20, 2), 0.0)
    d = height / np.cos(np.radians(tilt))
    t = -R @ look + np.array([0, 0, d])
    k1 = float(rng.uniform(-0.08, 0.0)) if hard else 0.0
    cam = FallbackCamera(K, R, t, k1)
    # the table: a textured sheet under everything
    tmm = 1.0
    tsize = int(1200 / tmm)
    ttex = _table_texture(kind, rng, tsize, tmm)
    table_layer = Layer(np.concatenate([ttex, np.ones((tsize, tsize, 1), np.float32)], axis=2),
                        (look_at_mm[0] - 600.0, look_at_mm[1] - 600.0), tmm, 0.0, "matte", False, "table")
    img = np.zeros((H, W, 3), np.float32)
    shadow_mm = rng.uniform(-1.5, 1.5, 2)
    for lay in [table_layer, *_marker_layers(comp), *sorted(layers, key=lambda la: la.z_mm)]:
        sh = shadow_mm * max(lay.z_mm, 0.0) / 2.0 if lay.casts_shadow and lay.z_mm > 0.5 else None
        _warp_layer(img, lay, cam.plane_homography(lay.z_mm), sh)
    gain = rng.uniform(0.5, 1.1) if hard else rng.uniform(0.75, 1.1)
    cast = 1.0 + rng.uniform(-0.12, 0.12, 3) * (2.0 if hard else 1.0)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    gx, gy = rng.uniform(-0.3, 0.3, 2)
    light = 1.0 + gx * (xx / W - 0.5) + gy * (yy / H - 0.5)
    img = img * gain * cast[None, None, :] * light[..., None]
    if k1 != 0.0:
        xn = (xx - K[0, 2]) / f
        yn = (yy - K[1, 2]) / f
        # inverse of the radial model by one fixed-point step (k1 is small)
        r2 = xn**2 + yn**2
        xu = xn / (1 + k1 * r2)
        yu = yn / (1 + k1 * r2)
        img = cv2.remap(img, (xu * f + K[0, 2]).astype(np.float32), (yu * f + K[1, 2]).astype(np.float32),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    blur = rng.uniform(0.3, 1.1)
    img = cv2.GaussianBlur(img, (0, 0), blur)
    img = img + rng.normal(0, rng.uniform(0.004, 0.02 if hard else 0.01), img.shape).astype(np.float32)
    u8 = np.clip(np.clip(img, 0, 1) * 255 + 0.5, 0, 255).astype(np.uint8)
    q = int(rng.integers(70, 95))
    _, buf = cv2.imencode(".jpg", u8[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, q])
    u8 = cv2.imdecode(buf, cv2.IMREAD_COLOR)[..., ::-1].copy()
    cond = {"table": kind, "height_mm": round(float(height), 1), "tilt_deg": round(float(tilt), 2),
            "yaw_deg": round(float(yaw), 2), "hfov_deg": round(float(hfov), 2), "k1": round(k1, 4),
            "gain": round(float(gain), 3), "blur_px": round(float(blur), 2), "jpeg": q, "hard": hard}
    return FallbackPhoto(u8, cam, cond)
