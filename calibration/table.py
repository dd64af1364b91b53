"""TableCalibration: image pixels <-> table millimetres, from the four ArUco markers.

This first version fits a plane homography to every detected marker corner. The calibration
work (lens, camera pose, colour reference, profiles) extends this class without changing the
methods below, which the detectors rely on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.colour import ColourReference, measure_colour_reference
from calibration.markers import MarkerDetections, MarkerLayout, aruco_dictionary, detect_markers


class CalibrationError(Exception):
    """No usable table frame in this photo; the message says what was seen."""


@dataclass(frozen=True)
class CalibrationConfig:
    """Tunables of the marker-based fit."""

    min_markers: int = 2
    ransac_reproj_px: float = 3.0


@dataclass(frozen=True)
class TableCalibration:
    """The table plane's mapping for one photo.

    Attributes
    ----------
    H_px_from_mm : ndarray, shape (3, 3)
        Homography taking table mm (z = 0) to image px.
    image_size : tuple[int, int]
        (width, height) of the photo, px.
    reprojection_error_mm : float
        RMS distance between the markers' known corners and their detected corners mapped to mm.
    marker_ids : tuple[int, ...]
        Markers used.
    px_per_mm : float
        Mean image scale over the markers (px per mm on the table), a resolution figure.
    colour : ColourReference or None
        The frame's marker black and paper white (None when not measured).
    """

    H_px_from_mm: np.ndarray
    image_size: tuple[int, int]
    reprojection_error_mm: float
    marker_ids: tuple[int, ...]
    px_per_mm: float
    colour: ColourReference | None = None

    @property
    def H_mm_from_px(self) -> np.ndarray:
        """Homography taking image px to table mm, shape (3, 3)."""
        return np.linalg.inv(self.H_px_from_mm)

    def mm_to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table points (z = 0) to image pixels.

        Parameters
        ----------
        xy_mm : array_like, shape (N, 2)

        Returns
        -------
        ndarray, shape (N, 2), float64
        """
        return _apply_h(self.H_px_from_mm, xy_mm)

    def px_to_mm(self, xy_px: np.ndarray) -> np.ndarray:
        """Image pixels to table points (z = 0).

        Parameters
        ----------
        xy_px : array_like, shape (N, 2)

        Returns
        -------
        ndarray, shape (N, 2), float64
        """
        return _apply_h(self.H_mm_from_px, xy_px)

    def rectify(self, image: np.ndarray, mm_per_px: float, region_mm: tuple[float, float, float, float]) -> np.ndarray:
        """A top-down view of a table region.

        Parameters
        ----------
        image : ndarray, shape (H, W, C) or (H, W)
        mm_per_px : float
            Output resolution.
        region_mm : (x0, y0, x1, y1)
            Table rectangle to show; output pixel (0, 0) is at (x0, y0).

        Returns
        -------
        ndarray, shape (round((y1-y0)/mm_per_px), round((x1-x0)/mm_per_px), C)
        """
        x0, y0, x1, y1 = region_mm
        w = int(round((x1 - x0) / mm_per_px))
        h = int(round((y1 - y0) / mm_per_px))
        mm_from_out = np.array([[mm_per_px, 0, x0], [0, mm_per_px, y0], [0, 0, 1]], dtype=np.float64)
        px_from_out = self.H_px_from_mm @ mm_from_out
        return cv2.warpPerspective(image, px_from_out, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)

    def to_json(self) -> dict:
        return {
            "H_px_from_mm": self.H_px_from_mm.tolist(),
            "image_size": list(self.image_size),
            "reprojection_error_mm": self.reprojection_error_mm,
            "marker_ids": list(self.marker_ids),
            "px_per_mm": self.px_per_mm,
            "colour": None if self.colour is None else self.colour.to_json(),
        }

    @classmethod
    def from_json(cls, obj: dict) -> TableCalibration:
        return cls(
            H_px_from_mm=np.asarray(obj["H_px_from_mm"], dtype=np.float64).reshape(3, 3),
            image_size=(int(obj["image_size"][0]), int(obj["image_size"][1])),
            reprojection_error_mm=float(obj["reprojection_error_mm"]),
            marker_ids=tuple(int(i) for i in obj["marker_ids"]),
            px_per_mm=float(obj["px_per_mm"]),
            colour=ColourReference.from_json(obj["colour"]) if obj.get("colour") else None,
        )


def _apply_h(H: np.ndarray, xy: np.ndarray) -> np.ndarray:
    pts = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    hom = pts @ H[:, :2].T + H[:, 2]
    return hom[:, :2] / hom[:, 2:3]


def fit_from_detections(
    det: MarkerDetections,
    layout: MarkerLayout,
    image_size: tuple[int, int],
    config: CalibrationConfig = CalibrationConfig(),
) -> TableCalibration:
    """Fit the table homography to detected marker corners.

    Raises
    ------
    CalibrationError
        Fewer than ``config.min_markers`` markers.
    """
    if len(det.ids) < config.min_markers:
        seen = ", ".join(str(i) for i in det.ids) or "none"
        raise CalibrationError(
            f"found {len(det.ids)} of the {len(layout.centres_mm)} calibration markers (ids seen: {seen}; "
            f"{det.rejected} marker-like squares did not decode); need at least {config.min_markers}"
        )
    src = np.concatenate([layout.corners_mm(int(i)) for i in det.ids])
    dst = det.corners_px.reshape(-1, 2)
    H, _ = cv2.findHomography(src, dst, cv2.RANSAC, config.ransac_reproj_px)
    if H is None:
        raise CalibrationError("marker corners are degenerate: no homography fits them")
    back = _apply_h(np.linalg.inv(H), dst)
    err = float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1))))
    sides_px = np.linalg.norm(np.roll(det.corners_px, -1, axis=1) - det.corners_px, axis=2)
    return TableCalibration(
        H_px_from_mm=H,
        image_size=image_size,
        reprojection_error_mm=err,
        marker_ids=tuple(int(i) for i in det.ids),
        px_per_mm=float(sides_px.mean() / layout.side_mm),
    )


def calibrate_from_markers(
    image_rgb: np.ndarray, layout: MarkerLayout | None = None, config: CalibrationConfig = CalibrationConfig()
) -> TableCalibration:
    """Detect the markers in a photo and fit the table frame.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8

    Raises
    ------
    CalibrationError
    """
    layout = layout or MarkerLayout.from_components()
    det = detect_markers(image_rgb, layout)
    h, w = image_rgb.shape[:2]
    cal = fit_from_detections(det, layout, (w, h), config)
    colour = measure_colour_reference(image_rgb, det.ids, det.corners_px, aruco_dictionary(layout.dictionary))
    return replace(cal, colour=colour)
