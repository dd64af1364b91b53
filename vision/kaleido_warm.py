"""Kaleido on live video: the later reading frames of a still scene re-read the boards found by the first.

The first reading frame runs the whole recognizer (``vision.kaleido.detect_kaleido``) and keeps its lattice
fit and found boards (:class:`KaleidoCarry`). A later frame of the same still scene rectifies only the window
the boards lie in, checks that every board's neighbourhood still looks as it did (normalised correlation of the edges
of a coarse grey copy: light flicker and sensor noise keep it, a board pushed or a tile added drops it), and reads the
six holes of every board again on the carried lattice. When a board no longer matches, it returns None and the
caller runs the whole recognizer again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.timing import StageTimer
from geometry.hexboards import board_corners
from scoring.kaleido_state import KaleidoState
from vision.kaleido import KaleidoDetection, KaleidoVisionConfig, TopView, detect_kaleido, read_boards, top_view


@dataclass(frozen=True)
class WarmConfig:
    """Tunables of the warm re-read.

    Attributes
    ----------
    check_mm_per_px : float
        Resolution of the grey copy whose edges are compared, mm per pixel.
    board_margin_mm : float
        The compared neighbourhood: the board's bounding box widened by this, mm.
    min_correlation : float
        Below this normalised correlation of one board neighbourhood's edges (first frame vs now) the board
        is taken to have changed, and the frame is detected from scratch. On rendered clips (noise, flicker)
        a still board keeps >= 0.997, a board pushed by 3 mm drops to <= 0.86, a tile moved drops too.
    """

    check_mm_per_px: float = 2.0
    board_margin_mm: float = 15.0
    min_correlation: float = 0.9


@dataclass(frozen=True)
class KaleidoCarry:
    """What the first reading frame of a still scene found, for the later ones.

    Attributes
    ----------
    calibration : TableCalibration
        The calibration it was read with (a new one means a new scene: nothing carries).
    config : KaleidoVisionConfig
    detection : KaleidoDetection
        The first frame's detection (its ``fit`` and ``found`` are re-read).
    patches : tuple[ndarray, ...]
        Per board (on the lattice, in reading order), its neighbourhood's edges (of its grey copy), zero mean
        and unit norm, shape (h, w) float32.
    boxes_px : tuple[tuple[int, int, int, int], ...]
        Per board, that neighbourhood's (r0, r1, c0, c1) in the grey copy of the boards' window.
    """

    calibration: object
    config: KaleidoVisionConfig
    detection: KaleidoDetection
    patches: tuple[np.ndarray, ...]
    boxes_px: tuple[tuple[int, int, int, int], ...]


def _carries_colour(cal) -> bool:
    """The view's colours are normalised by the calibration's own reference (not by the view's percentiles,
    which would change with the window rectified)."""
    colour = getattr(cal, "colour", None)
    return colour is not None and hasattr(colour, "normalise")


def _edges(view: TopView, warm: WarmConfig) -> np.ndarray:
    """Gradient magnitude of a coarse grey copy of a view, shape (h, w) float32 (edges, not brightness: a
    flicker of the light keeps it, a board or tile moved by a few mm changes it)."""
    import cv2

    f = max(1, int(round(warm.check_mm_per_px / view.mm_per_px)))
    h, w = view.norm.shape[0] // f, view.norm.shape[1] // f
    small = cv2.resize(view.norm[: h * f, : w * f], (w, h), interpolation=cv2.INTER_AREA) if f > 1 else view.norm
    grey = cv2.cvtColor(np.ascontiguousarray(small, dtype=np.float32), cv2.COLOR_RGB2GRAY)
    return cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))


def _boxes(detection: KaleidoDetection, view: TopView, grey_shape: tuple[int, ...], config: KaleidoVisionConfig,
           warm: WarmConfig) -> tuple[tuple[int, int, int, int], ...]:
    s = view.mm_per_px * max(1, int(round(warm.check_mm_per_px / view.mm_per_px)))
    x0, y0 = view.origin_mm
    out = []
    for b in detection.state.boards:
        corners = board_corners(b.centre_mm, b.rotation_deg, config.edge_mm)
        lo = (corners.min(axis=0) - warm.board_margin_mm - (x0, y0)) / s
        hi = (corners.max(axis=0) + warm.board_margin_mm - (x0, y0)) / s
        c0, r0 = max(0, int(lo[0])), max(0, int(lo[1]))
        c1, r1 = min(grey_shape[1], int(np.ceil(hi[0]))), min(grey_shape[0], int(np.ceil(hi[1])))
        out.append((r0, r1, c0, c1))
    return tuple(out)


def _patch(grey: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    r0, r1, c0, c1 = box
    p = grey[r0:r1, c0:c1].astype(np.float32)
    p = p - p.mean() if p.size else p
    n = float(np.linalg.norm(p))
    return p / n if n > 1e-6 else p


def _window_view(image_rgb: np.ndarray, cal, window: TopView, config: KaleidoVisionConfig) -> TopView | None:
    """The top view of the boards' window (as the first frame cropped it), rectified a few pixels wider so that
    the border the valid mask is shrunk by falls outside it, as in the first frame's whole view."""
    s = window.mm_per_px
    pad = config.valid_erode_px + 2
    x0, y0, x1, y1 = window.region_mm
    wide = top_view(image_rgb, cal, config, region_mm=(x0 - pad * s, y0 - pad * s, x1 + pad * s, y1 + pad * s),
                    mask_markers=False)
    h, w = window.norm.shape[:2]
    if wide.norm.shape[0] < h + pad or wide.norm.shape[1] < w + pad:
        return None
    return wide.crop(pad, pad + h, pad, pad + w)


def detect_cold(image_rgb: np.ndarray, cal, config: KaleidoVisionConfig, timer: StageTimer,
                warm: WarmConfig = WarmConfig()) -> tuple[KaleidoDetection, KaleidoCarry | None]:
    """The whole recognizer, and what later frames of the same still scene may carry (None: nothing can, e.g.
    boards off the lattice, whose own lattices are not carried, or a calibration without a colour reference).
    """
    det = detect_kaleido(image_rgb, cal, config, timer=timer)
    if det.fit is None or det.found is None or det.off_lattice or not _carries_colour(cal):
        return det, None
    with timer.stage("carry"):
        view = det.fit.view
        grey = _edges(view, warm)
        boxes = _boxes(det, view, grey.shape, config, warm)
        patches = tuple(_patch(grey, b) for b in boxes)
    return det, KaleidoCarry(cal, config, det, patches, boxes)


def detect_carried(image_rgb: np.ndarray, cal, carry: KaleidoCarry, timer: StageTimer,
                   warm: WarmConfig = WarmConfig()) -> KaleidoState | None:
    """Re-read the carried boards in a later frame of the same still scene; None when they no longer fit
    (a board's neighbourhood changed, a new calibration): detect from scratch then.
    """
    if cal is not carry.calibration or carry.detection.fit is None or carry.detection.found is None:
        return None
    config, det = carry.config, carry.detection
    fit, found = det.fit, det.found
    with timer.stage("lattice"):
        view = _window_view(image_rgb, cal, fit.view, config)
        if view is None:
            return None
    with timer.stage("check"):
        grey = _edges(view, warm)
        for box, before in zip(carry.boxes_px, carry.patches, strict=True):
            now = _patch(grey, box)
            if now.shape != before.shape or float((now * before).sum()) < warm.min_correlation:
                return None
    with timer.stage("cells"):
        boards, flags = read_boards(view, fit.lattice, found, config)
    return KaleidoState(boards=boards, edge_mm=config.edge_mm, frame="markers", flags=found.flags + flags)
