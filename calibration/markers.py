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
    """Tunables of ArUco detection."""

    corner_refinement_win_px: int = 5
    adaptive_thresh_win_max_px: int = 53
    min_marker_perimeter_rate: float = 0.02


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    """The OpenCV predefined dictionary of that name (e.g. ``"DICT_4X4_50"``)."""
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


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
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = config.corner_refinement_win_px
    params.adaptiveThreshWinSizeMax = config.adaptive_thresh_win_max_px
    params.minMarkerPerimeterRate = config.min_marker_perimeter_rate
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(layout.dictionary), params)
    corners, ids, rejected = detector.detectMarkers(gray)
    best: dict[int, np.ndarray] = {}
    others: set[int] = set()
    if ids is not None:
        for c, i in zip(corners, ids.ravel()):
            i = int(i)
            if i not in layout.centres_mm:
                others.add(i)
                continue
            c = c.reshape(4, 2).astype(np.float64)
            if i not in best or cv2.contourArea(c.astype(np.float32)) > cv2.contourArea(best[i].astype(np.float32)):
                best[i] = c
    keys = sorted(best)
    return MarkerDetections(
        ids=np.array(keys, dtype=int),
        corners_px=np.array([best[k] for k in keys], dtype=np.float64).reshape(-1, 4, 2),
        rejected=0 if rejected is None else len(rejected),
        other_ids=tuple(sorted(others)),
    )
