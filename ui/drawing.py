"""Drawing primitives shared by the reading diagrams (new images only; cv2 on RGB uint8 arrays)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

SHIFT = 4  # sub-pixel bits for cv2 polygon drawing
ONE = 1 << SHIFT


@dataclass(frozen=True)
class DiagramStyle:
    """Colours (RGB) and sizes shared by every game's diagram.

    Attributes
    ----------
    paper_rgb : background.
    ink_rgb : outlines and text.
    good_rgb, bad_rgb, doubt_rgb : hidden / not hidden (or illegal) / borderline.
    unknown_rgb : the hatching of what the judge could not read.
    highlight_rgb : the ring around the piece a sentence or a tap is about.
    font_scale : text size at 1 px per mm (scaled with the canvas zoom, clamped).
    """

    paper_rgb: tuple[int, int, int] = (246, 246, 242)
    ink_rgb: tuple[int, int, int] = (30, 30, 34)
    good_rgb: tuple[int, int, int] = (30, 160, 60)
    bad_rgb: tuple[int, int, int] = (220, 30, 30)
    doubt_rgb: tuple[int, int, int] = (240, 150, 0)
    unknown_rgb: tuple[int, int, int] = (120, 120, 120)
    highlight_rgb: tuple[int, int, int] = (255, 0, 200)
    font_scale: float = 0.6
    min_font_scale: float = 0.35
    max_font_scale: float = 0.9


def font_scale(style: DiagramStyle, px_per_mm: float, factor: float = 1.0) -> float:
    """Text size for a canvas zoom, clamped to stay legible."""
    return float(np.clip(style.font_scale * factor * max(px_per_mm, 0.5) ** 0.5,
                         style.min_font_scale, style.max_font_scale))


def _fixed(pts_px: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(pts_px, dtype=np.float64).reshape(-1, 2) * ONE).astype(np.int32)


def fill_polygon(img: np.ndarray, pts_px: np.ndarray, rgb, alpha: float = 1.0) -> None:
    """Fill a polygon (in place on a canvas the caller owns), optionally translucent."""
    if alpha >= 1.0:
        cv2.fillPoly(img, [_fixed(pts_px)], rgb, cv2.LINE_AA, SHIFT)
        return
    layer = img.copy()
    cv2.fillPoly(layer, [_fixed(pts_px)], rgb, cv2.LINE_AA, SHIFT)
    cv2.addWeighted(layer, alpha, img, 1.0 - alpha, 0, dst=img)


def outline_polygon(img: np.ndarray, pts_px: np.ndarray, rgb, thickness: int = 1, closed: bool = True) -> None:
    cv2.polylines(img, [_fixed(pts_px)], closed, rgb, max(1, int(thickness)), cv2.LINE_AA, SHIFT)


def dashed_polygon(img: np.ndarray, pts_px: np.ndarray, rgb, thickness: int = 1, dash_px: float = 8.0) -> None:
    """A closed polygon drawn in dashes (boards that are not in the challenge, incomplete hexagons)."""
    pts = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
    for a, b in zip(pts, np.roll(pts, -1, axis=0)):
        n = max(1, int(np.linalg.norm(b - a) / dash_px))
        for k in range(0, n, 2):
            p, q = a + (b - a) * k / n, a + (b - a) * min(k + 1, n) / n
            cv2.line(img, tuple(_fixed(p)[0]), tuple(_fixed(q)[0]), rgb, max(1, int(thickness)), cv2.LINE_AA, SHIFT)


def line(img: np.ndarray, a_px, b_px, rgb, thickness: int = 1) -> None:
    cv2.line(img, tuple(_fixed(a_px)[0]), tuple(_fixed(b_px)[0]), rgb, max(1, int(thickness)), cv2.LINE_AA, SHIFT)


def circle(img: np.ndarray, centre_px, radius_px: float, rgb, thickness: int = -1) -> None:
    """A circle; ``thickness`` -1 fills it."""
    c = _fixed(centre_px)[0]
    cv2.circle(img, (int(c[0]), int(c[1])), int(round(radius_px * ONE)), rgb, int(thickness), cv2.LINE_AA, SHIFT)


def hatch(img: np.ndarray, pts_px: np.ndarray, rgb, spacing_px: float = 6.0, thickness: int = 1) -> None:
    """Diagonal hatching inside a polygon: the mark of something the judge could not read."""
    pts = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
    x0, y0 = np.floor(pts.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int)
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1 + 1, w), min(y1 + 1, h)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [_fixed(pts - [x0, y0])], 255, cv2.LINE_8, SHIFT)
    lines = img[y0:y1, x0:x1].copy()
    step = max(3.0, spacing_px)
    span = (x1 - x0) + (y1 - y0)
    for s in np.arange(-span, span, step):
        cv2.line(lines, (int(s), 0), (int(s + (y1 - y0)), y1 - y0), rgb, max(1, int(thickness)), cv2.LINE_AA)
    region = img[y0:y1, x0:x1]
    region[mask > 0] = lines[mask > 0]


def text(img: np.ndarray, s: str, centre_px, scale: float, rgb, halo_rgb=(255, 255, 255),
         thickness: int = 1) -> None:
    """Text centred on a point, with a halo so it reads on any fill."""
    (tw, th), _ = cv2.getTextSize(s, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    c = np.asarray(centre_px, dtype=np.float64).reshape(2)
    org = (int(round(c[0] - tw / 2)), int(round(c[1] + th / 2)))
    if halo_rgb is not None:
        cv2.putText(img, s, org, cv2.FONT_HERSHEY_SIMPLEX, scale, halo_rgb, thickness + 2, cv2.LINE_AA)
    cv2.putText(img, s, org, cv2.FONT_HERSHEY_SIMPLEX, scale, rgb, thickness, cv2.LINE_AA)


def unknown(img: np.ndarray, pts_px: np.ndarray, style: DiagramStyle, scale: float, mark: str = "?") -> None:
    """Hatch a polygon grey and put a mark ('?') in it: the judge could not read this piece."""
    pts = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
    size = float(np.ptp(pts, axis=0).max())
    hatch(img, pts, style.unknown_rgb, spacing_px=max(4.0, size / 6.0))
    text(img, mark, pts.mean(axis=0), scale * 1.4, style.ink_rgb, thickness=2)


def circle_polygon(centre_px, radius_px: float, n: int = 24) -> np.ndarray:
    """A circle as a polygon, shape (n, 2), for hatching round pieces."""
    a = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    return np.asarray(centre_px, dtype=np.float64).reshape(1, 2) + radius_px * np.stack([np.cos(a), np.sin(a)], 1)
