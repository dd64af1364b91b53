"""The floor: what any marker-based judge must spend on a frame, measured on the same photo as the judge.

JPEG decode + ArUco detection (the project's detector) + a top view of the markers' rectangle at 2 px/mm.
Benchmarks print it beside their own figures and the ratio, so a number means the same on any machine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class FloorConfig:
    """Tunables of the floor measurement.

    Attributes
    ----------
    px_per_mm : float
        Resolution of the top view.
    margin_mm : float
        The top view reaches this far beyond the markers' centres.
    jpeg_quality : int
        Quality used when the frame is not already a JPEG file.
    repeats : int
        Timed repetitions; the median is reported.
    cpu : bool
        Time CPU time of this process (``time.process_time``) rather than the wall clock.
    """

    px_per_mm: float = 2.0
    margin_mm: float = 40.0
    jpeg_quality: int = 90
    repeats: int = 5
    cpu: bool = False


def encode_jpeg(image_rgb: np.ndarray, quality: int = 90) -> bytes:
    """RGB uint8 -> JPEG bytes."""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("cannot encode the frame as JPEG")
    return buf.tobytes()


def _floor_once(jpeg: bytes, config: FloorConfig, layout=None) -> tuple[float, dict[str, float]]:
    from calibration.markers import MarkerLayout, detect_markers

    layout = layout or MarkerLayout.from_components()
    clock = time.process_time if config.cpu else time.perf_counter
    t0 = clock()
    bgr = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if bgr is None:
        raise ValueError("the floor's frame is not a JPEG OpenCV can decode")
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    t1 = clock()
    det = detect_markers(rgb, layout)
    t2 = clock()
    src, dst = [], []
    for i, corners in zip(det.ids, det.corners_px):
        if int(i) in layout.centres_mm:
            src.append(np.asarray(corners, dtype=np.float64).reshape(4, 2))
            dst.append(layout.corners_mm(int(i)))
    if len(src) >= 2:
        H, _ = cv2.findHomography(np.concatenate(dst), np.concatenate(src))
        c = np.array(list(layout.centres_mm.values()), dtype=float)
        x0, y0 = c.min(axis=0) - config.margin_mm
        x1, y1 = c.max(axis=0) + config.margin_mm
        s = config.px_per_mm
        out_from_mm = np.array([[s, 0, -x0 * s], [0, s, -y0 * s], [0, 0, 1]])
        size = (int(round((x1 - x0) * s)), int(round((y1 - y0) * s)))
        cv2.warpPerspective(rgb, out_from_mm @ np.linalg.inv(H), size, flags=cv2.INTER_LINEAR)
    t3 = clock()
    return (t3 - t0) * 1000.0, {"decode": (t1 - t0) * 1000.0, "aruco": (t2 - t1) * 1000.0,
                                "top_view": (t3 - t2) * 1000.0}


def measure_floor(jpeg: bytes, config: FloorConfig = FloorConfig(), layout=None) -> tuple[float, dict[str, float]]:
    """Median floor over ``config.repeats`` runs: (total ms, {decode, aruco, top_view} ms of that run).

    ``layout``: the game's marker layout (default: the components' common one).
    """
    runs = sorted((_floor_once(jpeg, config, layout) for _ in range(max(1, config.repeats))), key=lambda r: r[0])
    return runs[len(runs) // 2]
