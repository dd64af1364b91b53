"""TableCalibration: image pixels <-> table millimetres, from the four ArUco markers.

The table plane is fitted to all marker corners (:mod:`calibration.planefit`): a homography, each marker's
small rotation as laid by hand, and a radial lens model when the photo shows distortion (or a calibrated
lens profile). The camera pose (:mod:`calibration.camera`) gives points on planes above the table (chips,
boards lying on chips). The colour reference (:mod:`calibration.colour`) gives the frame's black and white.
Callers only use the methods: the lens is inside ``mm_to_px`` / ``px_to_mm``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.camera import CameraConfig, CameraPose, estimate_pose
from calibration.colour import ColourConfig, ColourReference, measure_colour_reference
from calibration.lensmodel import LensModel, guess_focal_px
from calibration.markers import MarkerDetections, MarkerDetectorConfig, MarkerLayout, aruco_dictionary, detect_markers
from calibration.planefit import PlaneFitConfig, apply_h, fit_plane, rotated_corners


class CalibrationError(Exception):
    """No usable table frame in this photo; the message says what was seen."""


@dataclass(frozen=True)
class CalibrationConfig:
    """Tunables of the marker-based calibration.

    Attributes
    ----------
    min_markers : int
        Fewest markers to fit the table. 3: two markers give 8 corners that fit a homography exactly but
        extrapolate badly across the table (a synthetic photo with only markers 0 and 3 found reported
        0.06 mm while the true error reached 12 mm), so such a photo is refused rather than judged wrong.
    ransac_reproj_px : float
        RANSAC threshold of the plain homography (:func:`fit_from_detections_plain`).
    height_iterations : int
        Fixed-point iterations of :meth:`TableCalibration.px_to_mm_at_height`.
    warn_rms_mm : float
        Corner RMS above which the calibration carries a warning (a marker moved, bent or misprinted).
    warn_rot_deg : float
        A marker fitted as turned more than this carries a warning.
    """

    min_markers: int = 3
    ransac_reproj_px: float = 3.0
    height_iterations: int = 4
    warn_rms_mm: float = 1.0
    warn_rot_deg: float = 3.0
    detector: MarkerDetectorConfig = field(default_factory=MarkerDetectorConfig)
    plane: PlaneFitConfig = field(default_factory=PlaneFitConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    colour: ColourConfig = field(default_factory=ColourConfig)


@dataclass(frozen=True)
class TableCalibration:
    """The table plane's mapping for one photo.

    Attributes
    ----------
    H_px_from_mm : ndarray, shape (3, 3)
        Homography taking table mm (z = 0) to *undistorted* px (photo px when ``lens`` is None).
        Use :meth:`mm_to_px` rather than this matrix: it includes the lens.
    image_size : tuple[int, int]
        (width, height) of the photo, px.
    reprojection_error_mm : float
        RMS distance between the markers' corners (fitted positions) and the detected corners mapped to
        the table, mm, over all corners used.
    marker_ids : tuple[int, ...]
        Markers used.
    px_per_mm : float
        Mean image scale over the markers (px per mm on the table), a resolution figure.
    colour : ColourReference or None
        The frame's marker black and paper white (None when not measured).
    lens : LensModel or None
        Distortion between undistorted and photo px (None: none modelled).
    camera : CameraPose or None
        Camera intrinsics and pose (None: not estimated; heights are then ignored).
    model : str
        Plane model chosen (``"homography+rotation+k1"`` ...).
    marker_rot_deg : dict[int, float]
        Fitted rotation of each marker on the table, degrees.
    edge_growth_mm : float
        Fitted apparent growth of the markers' black squares per edge, mm (detector bias, ink).
    height_iterations : int
        Fixed-point iterations of :meth:`px_to_mm_at_height`.
    warnings : tuple[str, ...]
        Doubts about this calibration, one sentence each (missing or ignored markers, poor fit): the
        caller should surface them as flags.
    rectify_grid_px : int
        :meth:`rectify` computes the exact mapping every this many output px and interpolates between.
    """

    H_px_from_mm: np.ndarray
    image_size: tuple[int, int]
    reprojection_error_mm: float
    marker_ids: tuple[int, ...]
    px_per_mm: float
    colour: ColourReference | None = None
    lens: LensModel | None = None
    camera: CameraPose | None = None
    model: str = "homography"
    marker_rot_deg: dict[int, float] = field(default_factory=dict)
    edge_growth_mm: float = 0.0
    height_iterations: int = 4
    warnings: tuple[str, ...] = ()
    rectify_grid_px: int = 8

    @property
    def H_mm_from_px(self) -> np.ndarray:
        """Homography taking undistorted px to table mm, shape (3, 3)."""
        return np.linalg.inv(self.H_px_from_mm)

    def mm_to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table points (z = 0) to photo pixels (lens included).

        Parameters
        ----------
        xy_mm : array_like, shape (N, 2)

        Returns
        -------
        ndarray, shape (N, 2), float64
        """
        und = apply_h(self.H_px_from_mm, xy_mm)
        return und if self.lens is None else self.lens.distort_px(und)

    def px_to_mm(self, xy_px: np.ndarray) -> np.ndarray:
        """Photo pixels to table points (z = 0) (lens included).

        Parameters
        ----------
        xy_px : array_like, shape (N, 2)

        Returns
        -------
        ndarray, shape (N, 2), float64
        """
        pts = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
        und = pts if self.lens is None else self.lens.undistort_px(pts)
        return apply_h(self.H_mm_from_px, und)

    def mm_to_px_at_height(self, xy_mm: np.ndarray, z_mm: float) -> np.ndarray:
        """Points on the plane ``z_mm`` above the table to photo pixels.

        The table mapping is exact at z = 0; the camera pose adds the parallax of the height, so
        ``mm_to_px_at_height(xy, 0) == mm_to_px(xy)``. Without a camera pose the height is ignored.

        Parameters
        ----------
        xy_mm : array_like, shape (N, 2)
        z_mm : float
            Height above the table, mm (a chip's top face: 2).

        Returns
        -------
        ndarray, shape (N, 2), float64
        """
        xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        base = self.mm_to_px(xy)
        if self.camera is None or z_mm == 0:
            return base
        p0 = self.camera.project(np.column_stack([xy, np.zeros(len(xy))]))
        pz = self.camera.project(np.column_stack([xy, np.full(len(xy), float(z_mm))]))
        return base + (pz - p0)

    def px_to_mm_at_height(self, xy_px: np.ndarray, z_mm: float) -> np.ndarray:
        """Photo pixels to points on the plane ``z_mm`` above the table (inverse of
        :meth:`mm_to_px_at_height`, by fixed-point iteration from the z = 0 answer).

        Parameters
        ----------
        xy_px : array_like, shape (N, 2)
        z_mm : float

        Returns
        -------
        ndarray, shape (N, 2), float64, table mm
        """
        px = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
        target = self.px_to_mm(px)
        if self.camera is None or z_mm == 0:
            return target
        xy = target.copy()
        for _ in range(self.height_iterations):
            xy = xy + (target - self.px_to_mm(self.mm_to_px_at_height(xy, z_mm)))
        return xy

    def rectify(
        self,
        image: np.ndarray,
        mm_per_px: float,
        region_mm: tuple[float, float, float, float],
        z_mm: float = 0.0,
    ) -> np.ndarray:
        """A top-down view of a table region (of the plane ``z_mm`` above the table).

        Parameters
        ----------
        image : ndarray, shape (H, W, C) or (H, W)
        mm_per_px : float
            Output resolution.
        region_mm : (x0, y0, x1, y1)
            Table rectangle to show; output pixel (0, 0) is centred at (x0, y0).
        z_mm : float
            Height of the plane shown (0: the table).

        Returns
        -------
        ndarray, shape (round((y1-y0)/mm_per_px), round((x1-x0)/mm_per_px), C)
            Outside the photo (or beyond the lens model's range): zeros.
        """
        x0, y0, x1, y1 = region_mm
        w = int(round((x1 - x0) / mm_per_px))
        h = int(round((y1 - y0) / mm_per_px))
        if self.lens is None and (self.camera is None or z_mm == 0):
            mm_from_out = np.array([[mm_per_px, 0, x0], [0, mm_per_px, y0], [0, 0, 1]], dtype=np.float64)
            px_from_out = self.H_px_from_mm @ mm_from_out
            return cv2.warpPerspective(image, px_from_out, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        # the exact mapping on a coarse grid (every ``step`` output px, ends included), then bilinear
        # interpolation of it (the mapping is smooth: the error is far below a pixel)
        step = max(1, self.rectify_grid_px)
        nx, ny = -(-(w - 1) // step) + 1, -(-(h - 1) // step) + 1
        gx, gy = np.meshgrid(x0 + mm_per_px * step * np.arange(nx), y0 + mm_per_px * step * np.arange(ny))
        grid = np.empty((gx.size, 2))
        grid[:, 0] = gx.ravel()
        grid[:, 1] = gy.ravel()
        px = self.mm_to_px_at_height(grid, z_mm)
        if self.lens is not None:
            px[~self.lens.valid_undistorted(apply_h(self.H_px_from_mm, grid))] = -1e4
        coarse = px.reshape(ny, nx, 2).astype(np.float32)
        if step > 1:
            ux = np.broadcast_to((np.arange(w, dtype=np.float32) / step)[None, :], (h, w))
            uy = np.broadcast_to((np.arange(h, dtype=np.float32) / step)[:, None], (h, w))
            fine = cv2.remap(coarse, np.ascontiguousarray(ux), np.ascontiguousarray(uy), cv2.INTER_LINEAR)
        else:
            fine = coarse[:h, :w]
        mapx = np.ascontiguousarray(fine[..., 0])
        mapy = np.ascontiguousarray(fine[..., 1])
        return cv2.remap(image, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)

    def describe(self) -> str:
        """One line for explanations and logs: markers, model, error, camera."""
        parts = [
            f"{len(self.marker_ids)} markers",
            f"model {self.model}",
            f"corner RMS {self.reprojection_error_mm:.2f} mm",
            f"{self.px_per_mm:.2f} px/mm",
        ]
        if self.lens is not None:
            parts.append(f"lens k1 {self.lens.k1:+.3f}")
        if self.warnings:
            parts.append("warnings: " + "; ".join(self.warnings))
        if self.camera is not None:
            parts.append(
                f"camera {self.camera.height_mm / 10:.0f} cm up, tilt {self.camera.tilt_deg:.0f} deg "
                f"(focal: {self.camera.focal_source})"
            )
        return "calibration: " + ", ".join(parts)

    def to_json(self) -> dict:
        return {
            "H_px_from_mm": self.H_px_from_mm.tolist(),
            "image_size": list(self.image_size),
            "reprojection_error_mm": self.reprojection_error_mm,
            "marker_ids": list(self.marker_ids),
            "px_per_mm": self.px_per_mm,
            "colour": None if self.colour is None else self.colour.to_json(),
            "lens": None if self.lens is None else self.lens.to_json(),
            "camera": None if self.camera is None else self.camera.to_json(),
            "model": self.model,
            "marker_rot_deg": {str(k): v for k, v in self.marker_rot_deg.items()},
            "edge_growth_mm": self.edge_growth_mm,
            "warnings": list(self.warnings),
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
            lens=LensModel.from_json(obj["lens"]) if obj.get("lens") else None,
            camera=CameraPose.from_json(obj["camera"]) if obj.get("camera") else None,
            model=str(obj.get("model", "homography")),
            marker_rot_deg={int(k): float(v) for k, v in (obj.get("marker_rot_deg") or {}).items()},
            edge_growth_mm=float(obj.get("edge_growth_mm", 0.0)),
            warnings=tuple(str(w) for w in obj.get("warnings", ())),
        )


def _check_enough(det: MarkerDetections, layout: MarkerLayout, config: CalibrationConfig) -> None:
    if len(det.ids) < config.min_markers:
        seen = ", ".join(str(i) for i in det.ids) or "none"
        expected = ", ".join(str(i) for i in sorted(layout.centres_mm))
        other = ""
        if det.other_ids:
            other = f"; also saw ids {', '.join(str(i) for i in det.other_ids)}, which are not table markers"
        raise CalibrationError(
            f"found {len(det.ids)} of the {len(layout.centres_mm)} calibration markers "
            f"({layout.dictionary} ids {expected}); ids seen: {seen}{other}; "
            f"{det.rejected} other marker-like squares did not decode; need at least {config.min_markers} "
            f"(are the markers in the picture, flat and uncovered?)"
        )


def fit_from_detections_plain(
    det: MarkerDetections,
    layout: MarkerLayout,
    image_size: tuple[int, int],
    config: CalibrationConfig = CalibrationConfig(),
) -> TableCalibration:
    """The plain homography fit (no lens, no marker rotation, no pose): the baseline.

    Raises
    ------
    CalibrationError
    """
    _check_enough(det, layout, config)
    src = np.concatenate([layout.corners_mm(int(i)) for i in det.ids])
    dst = det.corners_px.reshape(-1, 2)
    H, _ = cv2.findHomography(src, dst, cv2.RANSAC, config.ransac_reproj_px)
    if H is None:
        raise CalibrationError("marker corners are degenerate: no homography fits them")
    back = apply_h(np.linalg.inv(H), dst)
    err = float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1))))
    return TableCalibration(
        H_px_from_mm=H,
        image_size=image_size,
        reprojection_error_mm=err,
        marker_ids=tuple(int(i) for i in det.ids),
        px_per_mm=_px_per_mm(det, layout),
    )


def _px_per_mm(det: MarkerDetections, layout: MarkerLayout) -> float:
    sides_px = np.linalg.norm(np.roll(det.corners_px, -1, axis=1) - det.corners_px, axis=2)
    return float(sides_px.mean() / layout.side_mm)


def fit_from_detections(
    det: MarkerDetections,
    layout: MarkerLayout,
    image_size: tuple[int, int],
    config: CalibrationConfig = CalibrationConfig(),
    lens: LensModel | None = None,
) -> TableCalibration:
    """Fit the table plane (homography, marker rotations, lens) and the camera pose to detected corners.

    Parameters
    ----------
    det : MarkerDetections
    layout : MarkerLayout
    image_size : (width, height), px
    config : CalibrationConfig
    lens : LensModel, optional
        A calibrated lens for this camera and resolution; otherwise a radial k1 (k2) is fitted when the
        photo shows distortion.

    Raises
    ------
    CalibrationError
        Fewer than ``config.min_markers`` markers, or degenerate corners.
    """
    _check_enough(det, layout, config)
    nominal = np.array([layout.corners_mm(int(i)) for i in det.ids])
    try:
        fit = fit_plane(det.ids, nominal, det.corners_px, image_size, lens, config.plane)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise CalibrationError(f"marker corners are degenerate: no table plane fits them ({exc})") from exc
    keep = np.isin(det.ids, fit.marker_ids)
    nominal = nominal[keep]
    obs = det.corners_px[keep].reshape(-1, 2)
    rot = np.radians([fit.marker_rot_deg[int(i)] for i in det.ids[keep]])
    obj = rotated_corners(nominal, rot, fit.edge_growth_mm).reshape(-1, 2)
    und = obs if fit.lens is None else fit.lens.undistort_px(obs)
    f_guess = guess_focal_px(image_size, config.plane.hfov_guess_deg) if fit.lens is None else fit.lens.K[0, 0]
    camera = None
    if len(obj) >= 8:
        camera = estimate_pose(
            obj, und, fit.H_px_from_mm, image_size, fit.lens, lens is not None, f_guess, config.camera
        )
    warnings = _warnings(det, layout, fit, config)
    return TableCalibration(
        H_px_from_mm=fit.H_px_from_mm,
        image_size=image_size,
        warnings=warnings,
        reprojection_error_mm=fit.rms_mm,
        marker_ids=fit.marker_ids,
        px_per_mm=_px_per_mm(det, layout),
        lens=fit.lens if camera is None or fit.lens is None else camera.lens,
        camera=camera,
        model=fit.model,
        marker_rot_deg=fit.marker_rot_deg,
        edge_growth_mm=fit.edge_growth_mm,
        height_iterations=config.height_iterations,
    )


def _warnings(det: MarkerDetections, layout: MarkerLayout, fit, config: CalibrationConfig) -> tuple[str, ...]:
    out = []
    missing = sorted(set(layout.centres_mm) - {int(i) for i in det.ids})
    if missing:
        out.append(
            f"only {len(det.ids)} of {len(layout.centres_mm)} markers found (missing "
            f"{', '.join(map(str, missing))}): positions towards the missing ones are extrapolated"
        )
    dropped = sorted({int(i) for i in det.ids} - set(fit.marker_ids))
    if dropped:
        out.append(f"marker {', '.join(map(str, dropped))} ignored: it does not fit the others (moved or bent?)")
    if fit.rms_mm > config.warn_rms_mm:
        out.append(f"markers fit poorly (corner RMS {fit.rms_mm:.2f} mm): one may be moved, bent or misprinted")
    turned = [f"{i} ({a:+.1f} deg)" for i, a in fit.marker_rot_deg.items() if abs(a) > config.warn_rot_deg]
    if turned:
        out.append(f"marker {', '.join(turned)} lies turned: lay the markers square to each other")
    return tuple(out)


def calibrate_from_markers(
    image_rgb: np.ndarray,
    layout: MarkerLayout | None = None,
    config: CalibrationConfig = CalibrationConfig(),
    profile=None,
) -> TableCalibration:
    """Detect the markers in a photo and fit the table frame, lens, camera pose and colour reference.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    layout : MarkerLayout, optional
        Defaults to the profile's layout, else ``components/default.json``.
    config : CalibrationConfig
    profile : calibration.profile.CalibrationProfile, optional
        Its lens (scaled to this photo's size) replaces the fitted radial model.

    Raises
    ------
    CalibrationError
        No usable markers; the message says how many marker-like squares and which ids were seen.
    """
    if layout is None:
        layout = profile.layout if profile is not None else MarkerLayout.from_components()
    h, w = image_rgb.shape[:2]
    lens = None
    if profile is not None and getattr(profile, "lens", None) is not None:
        lens = profile.lens.for_image_size((w, h))
    det = detect_markers(image_rgb, layout, config.detector)
    cal = fit_from_detections(det, layout, (w, h), config, lens)
    keep = np.isin(det.ids, cal.marker_ids)
    colour = measure_colour_reference(
        image_rgb, det.ids[keep], det.corners_px[keep], aruco_dictionary(layout.dictionary), config.colour
    )
    extra = () if colour is None else colour.warnings(config.colour)
    return replace(cal, colour=colour, warnings=cal.warnings + extra)
