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
    coarse_min_side_px : int
        A photo whose larger side has at least this many px is first searched in a box-averaged copy about
        ``coarse_side_px`` across, and the first pass then runs only on a crop about each marker found there
        (:func:`_first_pass_in_regions`); 0 turns this off. Most of the first pass's time goes over the whole
        photo (thresholds, contours; a dark, noisy table's speckle), little over the markers. Smaller photos
        (a webcam's 960 px, a browser's 704 px) lose markers at half size: they are searched whole.
    coarse_side_px : int
        The reduced copy's larger side, at least (an integer factor of the photo's).
    coarse_thresh_win_px : int
        The reduced copy is searched with this one adaptive-threshold window (it only places the crops; the
        first pass's windows read them). On the photoreal dev photos as rendered and as a phone delivers them
        (seeds 0, 1: 284 photos) it found every marker the first pass's two windows found there.
    region_margin_min_px, region_margin_sides : float
        Each crop reaches this far beyond the marker found at the reduced scale: the larger of the px and of the
        marker's mean side times this. Far enough that the thresholds (windows up to 23 px), the contour and
        the quiet ring about the marker are those of the whole photo (at 24 px and half a side, 8 of 71
        photoreal dev photos kept a marker unconfirmed in its crop; at 48 px and a side, none as rendered;
        every corner found was the whole photo's to the bit).
    region_margin_tries : int
        A crop that does not confirm its marker is tried again this many times in all, each reaching one margin
        further (a phone's sharpening halos about a marker: 18 of those 284 photos needed the second margin).
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
    coarse_min_side_px: int = 1280
    coarse_side_px: int = 640
    coarse_thresh_win_px: int = 7
    region_margin_min_px: float = 48.0
    region_margin_sides: float = 1.0
    region_margin_tries: int = 2


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
    base = _first_pass_settings(config)
    if config.coarse_min_side_px and max(gray.shape) >= config.coarse_min_side_px:
        found = _first_pass_in_regions(gray, layout, dictionary, base, config)
        if found is not None:
            return found
    best: dict[int, np.ndarray] = {}
    others: set[int] = set()
    rejected_n = 0
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
        corners, ids, rejected = _detector(dictionary, {**base, **overrides}).detectMarkers(gray)
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
            _keep_largest(best, i, c)
    return _detections(best, rejected_n, others)


def _keep_largest(best: dict[int, np.ndarray], marker_id: int, corners_px: np.ndarray) -> None:
    """Keep ``corners_px`` (4, 2) as ``marker_id``'s unless a larger instance of that id is kept (in place)."""
    kept = best.get(marker_id)
    if kept is None or cv2.contourArea(corners_px.astype(np.float32)) > cv2.contourArea(kept.astype(np.float32)):
        best[marker_id] = corners_px


def _detections(best: dict[int, np.ndarray], rejected: int, others: set[int]) -> MarkerDetections:
    keys = sorted(best)
    return MarkerDetections(
        ids=np.array(keys, dtype=int),
        corners_px=np.array([best[k] for k in keys], dtype=np.float64).reshape(-1, 4, 2),
        rejected=rejected,
        other_ids=tuple(sorted(others)),
    )


def _first_pass_settings(config: MarkerDetectorConfig) -> dict:
    """The first pass's ``cv2.aruco.DetectorParameters`` (the later passes override some)."""
    return dict(
        cornerRefinementMethod=cv2.aruco.CORNER_REFINE_SUBPIX,
        cornerRefinementWinSize=config.corner_refinement_win_px,
        adaptiveThreshWinSizeMin=config.adaptive_thresh_win_min_px,
        adaptiveThreshWinSizeMax=config.adaptive_thresh_win_max_px,
        adaptiveThreshWinSizeStep=config.adaptive_thresh_win_step_px,
        minMarkerPerimeterRate=config.min_marker_perimeter_rate,
    )


def _detector(dictionary: cv2.aruco.Dictionary, settings: dict) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    for name, value in settings.items():
        setattr(params, name, value)
    return cv2.aruco.ArucoDetector(dictionary, params)


def _first_pass_in_regions(gray: np.ndarray, layout: MarkerLayout, dictionary: cv2.aruco.Dictionary, base: dict,
                           config: MarkerDetectorConfig) -> MarkerDetections | None:
    """The first pass's markers, found in a reduced copy and read at full resolution on a crop about each.

    The same corners as the first pass over the whole photo: each crop holds the marker, its contour and the
    thresholds about it as the whole photo has them (``region_margin_*``), so the crop's contour gives the same
    integer corners, and they are refined on the whole photo as the detector refines them
    (:func:`_refined_like_detector`), in the photo's own coordinates. None, for the whole photo's passes to run,
    unless the reduced copy shows every marker of the layout and each crop confirms its marker.

    Returns
    -------
    MarkerDetections or None
        ``rejected`` and ``other_ids`` are the reduced copy's.
    """
    h, w = gray.shape
    factor = max(h, w) // config.coarse_side_px
    if factor < 2:
        return None
    small = cv2.resize(gray, (w // factor, h // factor), interpolation=cv2.INTER_AREA)
    scale = np.array([w / small.shape[1], h / small.shape[0]])
    coarse = {**base, "cornerRefinementMethod": cv2.aruco.CORNER_REFINE_NONE}
    one_window = {"adaptiveThreshWinSizeMin": config.coarse_thresh_win_px,
                  "adaptiveThreshWinSizeMax": config.coarse_thresh_win_px}
    corners, ids, rejected = _detector(dictionary, {**coarse, **one_window}).detectMarkers(small)
    seen = [] if ids is None else [int(i) for i in ids.ravel()]
    if not set(layout.centres_mm) <= set(seen):
        return None
    min_perimeter_px = int(base["minMarkerPerimeterRate"] * max(h, w))
    max_perimeter_px = int(cv2.aruco.DetectorParameters().maxMarkerPerimeterRate * max(h, w))
    refiner = _detector(dictionary, base).getDetectorParameters()
    best: dict[int, np.ndarray] = {}
    for c, i in zip(corners, seen):
        if i not in layout.centres_mm:
            continue
        quad = c.reshape(4, 2) * scale
        side = float(np.mean(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)))
        margin = max(config.region_margin_min_px, config.region_margin_sides * side)
        for k in range(1, config.region_margin_tries + 1):
            x0, y0 = np.maximum(np.floor(quad.min(axis=0) - k * margin), 0).astype(int)
            x1, y1 = np.ceil(quad.max(axis=0) + k * margin).astype(int)
            crop = gray[y0:y1, x0:x1]
            # the whole photo's perimeter limits in px (a rate is of the image's larger side)
            n = max(crop.shape)
            in_crop = {**coarse, "minMarkerPerimeterRate": (min_perimeter_px + 0.5) / n,
                       "maxMarkerPerimeterRate": (max_perimeter_px + 0.5) / n}
            found, found_ids, _ = _detector(dictionary, in_crop).detectMarkers(crop)
            mine = [] if found_ids is None else [f for f, j in zip(found, found_ids.ravel()) if int(j) == i]
            if mine:
                break
        if not mine:
            return None
        for f in mine:
            quad_px = f.reshape(4, 2) + np.array([x0, y0], np.float32)
            _keep_largest(best, i, _refined_like_detector(gray, quad_px, refiner, dictionary).astype(np.float64))
    others = {i for i in seen if i not in layout.centres_mm}
    return _detections(best, 0 if rejected is None else len(rejected), others)


def _refined_like_detector(gray: np.ndarray, quad_px: np.ndarray, params: cv2.aruco.DetectorParameters,
                           dictionary: cv2.aruco.Dictionary) -> np.ndarray:
    """A candidate's integer corners (4, 2) refined as ``ArucoDetector`` refines them with
    ``CORNER_REFINE_SUBPIX`` (OpenCV 4.14): ``cornerSubPix`` in a window of ``relativeCornerRefinmentWinSize``
    times the marker's mean module (single precision, rounded), at most ``cornerRefinementWinSize``.

    Returns
    -------
    ndarray, shape (4, 2), float32
    """
    q = np.ascontiguousarray(quad_px, np.float32)
    perimeter = np.float32(0)
    for k in range(4):
        d = q[k] - q[(k + 1) % 4]
        perimeter = np.float32(perimeter + np.sqrt(np.float32(d[0] * d[0] + d[1] * d[1])))
    modules = np.float32(4 * (dictionary.markerSize + 2 * params.markerBorderBits))
    module_px = np.float32(perimeter / modules)
    win = max(1, int(np.rint(np.float32(params.relativeCornerRefinmentWinSize) * module_px)))
    win = min(win, params.cornerRefinementWinSize)
    criteria = (cv2.TERM_CRITERIA_MAX_ITER | cv2.TERM_CRITERIA_EPS, params.cornerRefinementMaxIterations,
                params.cornerRefinementMinAccuracy)
    return cv2.cornerSubPix(gray, q.reshape(-1, 1, 2), (win, win), (-1, -1), criteria).reshape(4, 2)
