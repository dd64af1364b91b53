"""The printed ArUco calibration markers as scene layers (paper with a white quiet zone)."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from calibration.markers import MarkerLayout, aruco_dictionary
from synth.layers import Layer


def marker_corners_mm(layout: MarkerLayout, marker_id: int, rot_deg: float) -> np.ndarray:
    """The printed black square's corners after a small rotation about its centre.

    Returns
    -------
    ndarray, shape (4, 2), mm, ArUco order (top-left, top-right, bottom-right, bottom-left)
    """
    c = np.asarray(layout.centres_mm[marker_id], dtype=np.float64)
    a = np.radians(rot_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return (layout.corners_mm(marker_id) - c) @ rot.T + c


def marker_layer(
    layout: MarkerLayout,
    marker_id: int,
    rot_deg: float,
    paper_rgb: tuple[float, float, float],
    ink_rgb: tuple[float, float, float],
    quiet_zone_mm: float = 8.0,
    mm_per_px: float = 0.25,
    z_mm: float = 0.1,
) -> Layer:
    """One marker printed on a paper square, rotated by ``rot_deg`` about its centre.

    Parameters
    ----------
    layout : MarkerLayout
    marker_id : int
    rot_deg : float
        Rotation, degrees (positive turns +x towards +y).
    paper_rgb, ink_rgb : sRGB in [0, 1]
    quiet_zone_mm : float
        White border around the black square.
    mm_per_px : float
        Texture resolution.
    z_mm : float
        Paper height above the table.

    Returns
    -------
    Layer
        Matte, casts no shadow.
    """
    side = layout.side_mm
    paper = side + 2 * quiet_zone_mm
    half_diag = paper / np.sqrt(2.0) + 2 * mm_per_px
    n = int(np.ceil(2 * half_diag / mm_per_px))
    cx, cy = layout.centres_mm[marker_id]
    origin = (cx - n * mm_per_px / 2.0, cy - n * mm_per_px / 2.0)
    ink_ss, paper_ss, ss = _marker_masks(layout.dictionary, int(marker_id), side, paper, n, mm_per_px)
    # Rotate the supersampled masks about the texture centre, then area-average to texels.
    c = (n * ss - 1) / 2.0
    M = cv2.getRotationMatrix2D((c, c), -float(rot_deg), 1.0)
    ink_r = cv2.warpAffine(ink_ss, M, (n * ss, n * ss), flags=cv2.INTER_LINEAR)
    paper_r = cv2.warpAffine(paper_ss, M, (n * ss, n * ss), flags=cv2.INTER_LINEAR)
    ink_a = cv2.resize(ink_r, (n, n), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(paper_r, (n, n), interpolation=cv2.INTER_AREA)
    p = np.asarray(paper_rgb, np.float32)
    k = np.asarray(ink_rgb, np.float32)
    rgb = p[None, None, :] * (1 - ink_a[..., None]) + k[None, None, :] * ink_a[..., None]
    return Layer(rgba=np.dstack([rgb, alpha]).astype(np.float32), origin_mm=origin, mm_per_px=mm_per_px,
                 z_mm=z_mm, material="matte", casts_shadow=False, name=f"marker{marker_id}")


@lru_cache(maxsize=64)
def _marker_masks(dictionary: str, marker_id: int, side_mm: float, paper_mm: float, n: int, mm_per_px: float):
    """Unrotated ink and paper masks of one marker, supersampled; (ink, paper, factor)."""
    ss = 4
    bits = cv2.aruco.generateImageMarker(aruco_dictionary(dictionary), marker_id, 6)  # 1 px per cell
    ink = (bits < 128).astype(np.float32)
    u = (np.arange(n * ss, dtype=np.float64) + 0.5) / ss * mm_per_px - n * mm_per_px / 2.0
    ci = np.floor((u + side_mm / 2) / (side_mm / 6.0)).astype(int)
    inside = (ci >= 0) & (ci < 6)
    cic = np.clip(ci, 0, 5)
    ink_ss = ink[cic[:, None], cic[None, :]] * (inside[:, None] & inside[None, :])
    pap = (np.abs(u) <= paper_mm / 2).astype(np.float32)
    paper_ss = pap[:, None] * pap[None, :]
    ink_ss = ink_ss.astype(np.float32)
    ink_ss.setflags(write=False)
    paper_ss.setflags(write=False)
    return ink_ss, paper_ss.astype(np.float32), ss
