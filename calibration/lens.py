"""Lens calibration from photos of a printed ChArUco board, and the saved lens profile.

A user prints :func:`charuco_board_image` (7 x 5 squares of 30 mm, 22 mm DICT_4X4_50 markers with ids from
10, so they never clash with the table markers 0-3), photographs it 8-20 times from different angles
with the camera that will watch the table, and runs :func:`calibrate_camera`. The resulting
:class:`LensProfile` (intrinsics + distortion) replaces the per-photo radial fit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.lensmodel import LensModel
from calibration.markers import aruco_dictionary
from calibration.table import CalibrationError


@dataclass(frozen=True)
class CharucoBoardSpec:
    """A printed ChArUco board.

    Attributes
    ----------
    squares_x, squares_y : int
        Chessboard squares across and down.
    square_mm : float
        Printed side of a square, mm.
    marker_mm : float
        Printed side of the ArUco marker inside each white square, mm.
    dictionary : str
    first_id : int
        Id of the board's first marker (the others follow).
    """

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_4X4_50"
    first_id: int = 10

    @property
    def n_markers(self) -> int:
        return (self.squares_x * self.squares_y) // 2

    @property
    def size_mm(self) -> tuple[float, float]:
        """(width, height) of the chessboard, mm."""
        return self.squares_x * self.square_mm, self.squares_y * self.square_mm

    def board(self) -> cv2.aruco.CharucoBoard:
        """The OpenCV board object (units: mm)."""
        ids = np.arange(self.first_id, self.first_id + self.n_markers, dtype=np.int32)
        return cv2.aruco.CharucoBoard(
            (self.squares_x, self.squares_y),
            float(self.square_mm),
            float(self.marker_mm),
            aruco_dictionary(self.dictionary),
            ids,
        )

    def to_json(self) -> dict:
        return {
            "squares_x": self.squares_x,
            "squares_y": self.squares_y,
            "square_mm": self.square_mm,
            "marker_mm": self.marker_mm,
            "dictionary": self.dictionary,
            "first_id": self.first_id,
        }


@dataclass(frozen=True)
class LensCalibrationConfig:
    """Tunables of :func:`calibrate_camera`.

    Attributes
    ----------
    min_corners_per_view : int
        Views with fewer detected chessboard corners are skipped.
    min_views : int
        Fewest usable views to calibrate.
    fix_k3, zero_tangent : bool
        Restrict the model to k1, k2 (steadier with few views; phone lenses rarely need more).
    fix_aspect : bool
        Square pixels (fx = fy).
    coverage_cells : int
        The picture is cut into this many cells across and down to measure how much of it the board's
        corners covered (over all photos).
    min_coverage : float
        Below this fraction of cells covered the profile carries a warning: the distortion towards the
        picture's edges is extrapolated.
    """

    min_corners_per_view: int = 8
    min_views: int = 4
    fix_k3: bool = True
    zero_tangent: bool = True
    fix_aspect: bool = True
    coverage_cells: int = 6
    min_coverage: float = 0.6


@dataclass(frozen=True)
class LensProfile:
    """A camera's calibrated lens at one resolution.

    Attributes
    ----------
    K : ndarray, shape (3, 3)
    dist : ndarray, shape (5,)
        OpenCV (k1, k2, p1, p2, k3).
    image_size : tuple[int, int]
        (width, height) the calibration photos had.
    rms_px : float
        RMS reprojection error of the calibration, px.
    n_views : int
        Photos used.
    coverage : float
        Fraction of the picture (cells of a grid) where the board's corners were seen.
    warnings : tuple[str, ...]
        Doubts about the calibration (poor coverage, high error).
    """

    K: np.ndarray
    dist: np.ndarray
    image_size: tuple[int, int]
    rms_px: float
    n_views: int = 0
    coverage: float = 1.0
    warnings: tuple[str, ...] = ()

    @property
    def hfov_deg(self) -> float:
        """Horizontal field of view, degrees."""
        return float(np.degrees(2 * np.arctan(self.image_size[0] / (2 * self.K[0, 0]))))

    def for_image_size(self, image_size: tuple[int, int], tolerance: float = 0.01) -> LensModel:
        """The lens model for photos of another resolution with the same framing (scaled K).

        Raises
        ------
        CalibrationError
            The aspect ratio differs (a crop: the profile does not apply).
        """
        w0, h0 = self.image_size
        w, h = image_size
        if abs((w / h) / (w0 / h0) - 1) > tolerance:
            raise CalibrationError(
                f"the lens profile is for {w0}x{h0} photos; this one is {w}x{h} (another aspect ratio)"
            )
        sx, sy = w / w0, h / h0
        K = np.array(self.K, dtype=np.float64).copy()
        K[0, 0] *= sx
        K[1, 1] *= sy
        K[0, 2] = (K[0, 2] + 0.5) * sx - 0.5
        K[1, 2] = (K[1, 2] + 0.5) * sy - 0.5
        return LensModel(K=K, dist=np.asarray(self.dist, dtype=np.float64).ravel()[:5])

    def to_json(self) -> dict:
        return {
            "K": np.asarray(self.K).tolist(),
            "dist": [float(v) for v in np.ravel(self.dist)],
            "image_size": list(self.image_size),
            "rms_px": float(self.rms_px),
            "n_views": int(self.n_views),
            "coverage": float(self.coverage),
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_json(cls, obj: dict) -> LensProfile:
        """Parse a profile.

        Raises
        ------
        ValueError
            Missing or malformed fields (the message names the field).
        """
        try:
            K = np.asarray(obj["K"], dtype=np.float64)
            dist = np.asarray(obj["dist"], dtype=np.float64).ravel()
            size = obj["image_size"]
            prof = cls(
                K=K.reshape(3, 3),
                dist=np.concatenate([dist, np.zeros(max(0, 5 - len(dist)))])[:5],
                image_size=(int(size[0]), int(size[1])),
                rms_px=float(obj.get("rms_px", 0.0)),
                n_views=int(obj.get("n_views", 0)),
                coverage=float(obj.get("coverage", 1.0)),
                warnings=tuple(str(w) for w in obj.get("warnings", ())),
            )
        except KeyError as exc:
            raise ValueError(f"lens profile: missing field {exc.args[0]!r}") from exc
        except (TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"lens profile: malformed field ({exc})") from exc
        if not (prof.K[0, 0] > 0 and prof.K[1, 1] > 0 and prof.image_size[0] > 0 and prof.image_size[1] > 0):
            raise ValueError("lens profile: focal lengths and image size must be positive")
        return prof

    def save(self, path: str) -> None:
        """Write the profile as JSON."""
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_json(), fh, indent=1)

    @classmethod
    def load(cls, path: str) -> LensProfile:
        """Read a profile written by :meth:`save`.

        Raises
        ------
        ValueError
            Not JSON or bad fields; OSError when unreadable.
        """
        with open(path, encoding="utf-8") as fh:
            try:
                obj = json.load(fh)
            except json.JSONDecodeError as exc:
                raise ValueError(f"lens profile {path}: not JSON ({exc})") from exc
        if not isinstance(obj, dict):
            raise ValueError(f"lens profile {path}: expected a JSON object")
        return cls.from_json(obj)


def charuco_board_image(spec: CharucoBoardSpec = CharucoBoardSpec(), px_per_mm: float = 10.0, margin_mm: float = 10.0):
    """A printable raster of the board (white margin around it).

    Returns
    -------
    ndarray, shape (H, W), uint8
        H = (squares_y * square_mm + 2 margin) * px_per_mm, likewise W.
    """
    w_mm, h_mm = spec.size_mm
    w = int(round((w_mm + 2 * margin_mm) * px_per_mm))
    h = int(round((h_mm + 2 * margin_mm) * px_per_mm))
    return spec.board().generateImage((w, h), marginSize=int(round(margin_mm * px_per_mm)), borderBits=1)


def detect_charuco(image: np.ndarray, spec: CharucoBoardSpec) -> tuple[np.ndarray, np.ndarray]:
    """Chessboard corners of the board in one photo.

    Returns
    -------
    (obj_mm (N, 3) float32, img_px (N, 2) float32)
        Matched board points and their image positions (N = 0 when none).
    """
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image
    board = spec.board()
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, _, _ = detector.detectBoard(gray)
    if ids is None or len(ids) == 0:
        return np.zeros((0, 3), np.float32), np.zeros((0, 2), np.float32)
    obj, img = board.matchImagePoints(corners, ids)
    return obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32)


def calibrate_camera(
    images_rgb: list[np.ndarray],
    board_spec: CharucoBoardSpec = CharucoBoardSpec(),
    config: LensCalibrationConfig = LensCalibrationConfig(),
) -> LensProfile:
    """Calibrate a camera's lens from photos of a ChArUco board.

    Parameters
    ----------
    images_rgb : list of ndarray, each (H, W, 3) or (H, W), uint8, all the same size
    board_spec : CharucoBoardSpec
    config : LensCalibrationConfig

    Returns
    -------
    LensProfile

    Raises
    ------
    CalibrationError
        Too few usable views, or mixed image sizes.
    """
    if not images_rgb:
        raise CalibrationError("no board photos given")
    sizes = {(im.shape[1], im.shape[0]) for im in images_rgb}
    if len(sizes) != 1:
        raise CalibrationError(f"board photos have different sizes: {sorted(sizes)}")
    size = sizes.pop()
    objs, imgs, counts = [], [], []
    for im in images_rgb:
        obj, img = detect_charuco(im, board_spec)
        counts.append(len(obj))
        if len(obj) >= config.min_corners_per_view:
            objs.append(obj)
            imgs.append(img)
    if len(objs) < config.min_views:
        raise CalibrationError(
            f"only {len(objs)} of {len(images_rgb)} photos show the ChArUco board well enough "
            f"(corners found per photo: {counts}); need {config.min_views} with at least "
            f"{config.min_corners_per_view} corners"
        )
    flags = 0
    if config.fix_k3:
        flags |= cv2.CALIB_FIX_K3
    if config.zero_tangent:
        flags |= cv2.CALIB_ZERO_TANGENT_DIST
    K0 = None
    if config.fix_aspect:
        flags |= cv2.CALIB_FIX_ASPECT_RATIO
        K0 = np.eye(3)
    rms, K, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, K0, None, flags=flags)
    n = config.coverage_cells
    pts = np.concatenate(imgs)
    cells = {(int(x * n / size[0]), int(y * n / size[1])) for x, y in pts}
    coverage = len(cells) / float(n * n)
    warnings = []
    if coverage < config.min_coverage:
        warnings.append(
            f"the board covered only {100 * coverage:.0f} % of the picture: photograph it near the edges and "
            "corners too, or the distortion there is a guess"
        )
    return LensProfile(
        K=np.asarray(K, dtype=np.float64),
        dist=np.asarray(dist, dtype=np.float64).ravel()[:5],
        image_size=size,
        rms_px=float(rms),
        n_views=len(objs),
        coverage=coverage,
        warnings=tuple(warnings),
    )
