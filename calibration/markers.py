"""ArUco calibration markers: their layout on the table and their detection in a photo."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from components import load_components


@dataclass(frozen=True)
class MarkerLayout:
    """Where the printed markers lie on the table.

    Attributes
    ----------
    dictionary : str
        OpenCV ArUco dictionary name, e.g. ``"DICT_4X4_50"``.
    side_mm : float
        Printed side of a marker's black square, mm.
    centres_mm : dict[int, tuple[float, float]]
        Marker id -> centre in the table frame (mm, x right, y down). Markers lie axis-aligned,
        their top edge towards -y.
    """

    dictionary: str = "DICT_4X4_50"
    side_mm: float = 50.0
    centres_mm: dict[int, tuple[float, float]] = field(
        default_factory=lambda: {0: (0.0, 0.0), 1: (560.0, 0.0), 2: (560.0, 420.0), 3: (0.0, 420.0)}
    )

    @classmethod
    def from_components(cls, components: dict | None = None) -> MarkerLayout:
        """The layout described in ``components/default.json`` (or a given component dict)."""
        cal = (components or load_components())["calibration"]
        return cls(
            dictionary=cal["aruco_dictionary"],
            side_mm=float(cal["marker_side_mm"]),
            centres_mm={int(k): (float(v[0]), float(v[1])) for k, v in cal["marker_centres_mm"].items()},
        )

    def corners_mm(self, marker_id: int) -> np.ndarray:
        """Corners of one marker in ArUco order (top-left, top-right, bottom-right, bottom-left).

        Returns
        -------
        ndarray, shape (4, 2), float64, mm
        """
        cx, cy = self.centres_mm[marker_id]
        h = self.side_mm / 2.0
        return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], dtype=np.float64)

    def to_json(self) -> dict:
        return {
            "dictionary": self.dictionary,
            "side_mm": self.side_mm,
            "centres_mm": {str(k): list(v) for k, v in self.centres_mm.items()},
        }

    @classmethod
    def from_json(cls, obj: dict) -> MarkerLayout:
        return cls(
            dictionary=str(obj["dictionary"]),
            side_mm=float(obj["side_mm"]),
            centres_mm={int(k): (float(v[0]), float(v[1])) for k, v in obj["centres_mm"].items()},
        )


@dataclass(frozen=True)
class MarkerDetections:
    """Markers found in one image.

    Attributes
    ----------
    ids : ndarray, shape (N,), int
    corners_px : ndarray, shape (N, 4, 2), float64
        Sub-pixel corners in ArUco order, image pixels.
    rejected : int
        Candidate squares that decoded to no marker (a hint when nothing is found).
    other_ids : tuple[int, ...]
        Markers of the dictionary that decoded but are not in the layout (e.g. a ChArUco board's).
    """

    ids: np.ndarray
    corners_px: np.ndarray
    rejected: int = 0
    other_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class MarkerDetectorConfig:
    """Tunables of ArUco detection.

    Attributes
    ----------
    corner_refinement_win_px : int
        Sub-pixel corner refinement window.
    adaptive_thresh_win_min_px, adaptive_thresh_win_max_px, adaptive_thresh_win_step_px : int
        Adaptive-threshold windows of the first pass (7, 17: fast; a 3 px window mostly finds noise).
    retry_win_min_px, retry_win_max_px : int
        Windows of a second pass run only when the first misses layout markers (large, blurred or
        low-contrast markers); its finds are merged in. Many windows in one pass can lose markers when
        OpenCV groups their candidates, which is why this is a separate pass.
    min_marker_perimeter_rate : float
        Smallest marker perimeter as a fraction of the image's larger side.
    blur_margin_per_cell : float
        Third pass (still missing markers): read only the middle of each cell (blurred, bloomed or tiny
        markers whose white cells bleed into the black ones). OpenCV's default is 0.13.
    corrected_bits_rate : float
        Fourth pass: also accept markers with one wrong bit (OpenCV ``errorCorrectionRate``) ...
    corrected_max_offset_rel : float
        ... but only where the markers already found predict them: centre within this fraction of the
        marker's side (in px) of the prediction (needs two markers found).
    """

    corner_refinement_win_px: int = 5
    adaptive_thresh_win_min_px: int = 7
    adaptive_thresh_win_max_px: int = 23
    adaptive_thresh_win_step_px: int = 10
    retry_win_min_px: int = 23
    retry_win_max_px: int = 63
    min_marker_perimeter_rate: float = 0.02
    blur_margin_per_cell: float = 0.3
    corrected_bits_rate: float = 1.0
    corrected_max_offset_rel: float = 0.5


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    """The OpenCV predefined dictionary of that name (e.g. ``"DICT_4X4_50"``)."""
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def _predict_centres_px(best: dict[int, np.ndarray], layout: MarkerLayout) -> dict[int, np.ndarray]:
    """Where the layout's other markers should appear, from a homography of the found ones' corners."""
    src = np.concatenate([layout.corners_mm(i) for i in best]).astype(np.float32)
    dst = np.concatenate([best[i] for i in best]).astype(np.float32)
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        return {i: np.array([np.inf, np.inf]) for i in layout.centres_mm}
    pts = np.array([layout.centres_mm[i] for i in layout.centres_mm], dtype=np.float32).reshape(-1, 1, 2)
    out = cv2.perspectiveTransform(pts, H).reshape(-1, 2)
    return {i: out[k].astype(np.float64) for k, i in enumerate(layout.centres_mm)}


def detect_markers(
    image_rgb: np.ndarray, layout: MarkerLayout, config: MarkerDetectorConfig = MarkerDetectorConfig()
) -> MarkerDetections:
    """Find the layout's markers in an RGB (or grey) image.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3) or (H, W), uint8
    layout : MarkerLayout
    config : MarkerDetectorConfig

    Returns
    -------
    MarkerDetections
        Only ids that belong to the layout; a duplicated id keeps its largest instance.
    """
    gray = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2GRAY) if image_rgb.ndim == 3 else image_rgb
    dictionary = aruco_dictionary(layout.dictionary)
    best: dict[int, np.ndarray] = {}
    others: set[int] = set()
    rejected_n = 0
    base = dict(
        cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX,
        cornerRefinementWinSize=config.corner_refinement_win_px,
        adaptiveThreshWinSizeMin=config.adaptive_thresh_win_min_px,
        adaptiveThreshWinSizeMax=config.adaptive_thresh_win_max_px,
        adaptiveThreshWinSizeStep=config.adaptive_thresh_win_step_px,
        minMarkerPerimeterRate=config.min_marker_perimeter_rate,
    )
    passes = [
        {},
        dict(adaptiveThreshWinSizeMin=config.retry_win_min_px, adaptiveThreshWinSizeMax=config.retry_win_max_px),
        dict(perspectiveRemoveIgnoredMarginPerCell=config.blur_margin_per_cell),
        dict(
            perspectiveRemoveIgnoredMarginPerCell=config.blur_margin_per_cell,
            errorCorrectionRate=config.corrected_bits_rate,
        ),
    ]
    for k, overrides in enumerate(passes):
        if k > 0 and len(best) == len(layout.centres_mm):
            break
        checked = "errorCorrectionRate" in overrides
        if checked and len(best) < 2:
            break
        params = cv2.aruco.DetectorParameters()
        for name, value in {**base, **overrides}.items():
            setattr(params, name, value)
        corners, ids, rejected = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(gray)
        if k == 0:
            rejected_n = 0 if rejected is None else len(rejected)
        if ids is None:
            continue
        predicted = _predict_centres_px(best, layout) if checked else {}
        for c, i in zip(corners, ids.ravel()):
            i = int(i)
            if i not in layout.centres_mm:
                if not checked:
                    others.add(i)
                continue
            c = c.reshape(4, 2).astype(np.float64)
            if k > 0 and i in best:
                continue  # the first find stands
            if checked:
                side_px = float(np.mean(np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)))
                if np.linalg.norm(c.mean(axis=0) - predicted[i]) > config.corrected_max_offset_rel * side_px:
                    continue
            if i not in best or cv2.contourArea(c.astype(np.float32)) > cv2.contourArea(best[i].astype(np.float32)):
                best[i] = c
    keys = sorted(best)
    return MarkerDetections(
        ids=np.array(keys, dtype=int),
        corners_px=np.array([best[k] for k in keys], dtype=np.float64).reshape(-1, 4, 2),
        rejected=rejected_n,
        other_ids=tuple(sorted(others)),
    )
