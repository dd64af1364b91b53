"""Per-frame colour reference measured on the calibration markers.

Each ArUco marker is printed black on white paper: its 1-cell border and its black data cells are the
frame's black, its white data cells and the white quiet zone around it are the frame's paper white.
Measuring both in every photo gives a per-channel affine map (black -> 0, white -> 1) that removes the
white balance and the exposure at once, so detectors classify colours against this reference instead
of fixed RGB thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from core.order_stats import percentile_last

#: Cells across an ArUco 4x4 marker including its black border.
_CELLS_4X4 = 6


@dataclass(frozen=True)
class ColourConfig:
    """Tunables of the colour reference.

    Attributes
    ----------
    cell_inner_frac : float
        Fraction of a marker cell (centred) that is sampled; the rest is left out because blur and
        sub-pixel corner error mix it with the neighbouring cells.
    samples_per_cell : int
        Samples per side inside each cell (``samples_per_cell ** 2`` per cell).
    quiet_band : tuple[float, float]
        The white quiet-zone ring sampled outside the black square, as (inner, outer) distance
        from the square's edge in units of the marker side.
    quiet_samples_per_side : int
        Samples along each side of the ring (per band line).
    trim_percentiles : tuple[float, float]
        Samples whose luminance falls outside these percentiles (per marker and class) are
        dropped before averaging (glare, shadows, misplaced samples).
    min_contrast : float
        Smallest white - black difference (0-255, any channel) for the reference to be reliable.
    clip_level : float
        A white channel at or above this (0-255) is clipped by the exposure: colours brighter than
        paper cannot be told apart in it.
    """

    cell_inner_frac: float = 0.5
    samples_per_cell: int = 3
    quiet_band: tuple[float, float] = (0.04, 0.11)
    quiet_samples_per_side: int = 12
    trim_percentiles: tuple[float, float] = (20.0, 80.0)
    min_contrast: float = 25.0
    clip_level: float = 250.0


@dataclass(frozen=True)
class ColourReference:
    """The frame's black and paper white, measured on the markers.

    Attributes
    ----------
    white_rgb : ndarray, shape (3,), float64
        Paper white as the camera recorded it (0-255 per channel).
    black_rgb : ndarray, shape (3,), float64
        Marker black as recorded (0-255 per channel).
    n_samples : int
        Pixels the two values are made from (after trimming).
    per_marker_white_rgb : ndarray, shape (M, 3), float64
        White of each marker used (diagnostic: spread = uneven light).
    per_marker_black_rgb : ndarray, shape (M, 3), float64
    per_marker_xy_px : ndarray, shape (M, 2), float64
        Image centres of those markers (for :meth:`normalise_at`).
    """

    white_rgb: np.ndarray
    black_rgb: np.ndarray
    n_samples: int
    per_marker_white_rgb: np.ndarray | None = None
    per_marker_black_rgb: np.ndarray | None = None
    per_marker_xy_px: np.ndarray | None = None

    @property
    def contrast(self) -> float:
        """Smallest per-channel white - black difference (0-255)."""
        return float(np.min(self.white_rgb - self.black_rgb))

    def is_reliable(self, config: ColourConfig = ColourConfig()) -> bool:
        """Whether white and black are far enough apart to normalise with."""
        return self.contrast >= config.min_contrast

    def warnings(self, config: ColourConfig = ColourConfig()) -> tuple[str, ...]:
        """Doubts about this reference, one sentence each (empty when it is sound)."""
        out = []
        if not self.is_reliable(config):
            out.append(
                f"markers show too little contrast (white - black {self.contrast:.0f} of 255): "
                "too dark or washed out to judge colours"
            )
        clipped = [c for c, v in zip("RGB", self.white_rgb) if v >= config.clip_level]
        if clipped:
            out.append(
                f"paper white is clipped in {'/'.join(clipped)} (over-exposed or strong colour cast): "
                "pale colours may read as white"
            )
        return tuple(out)

    @property
    def cast(self) -> np.ndarray:
        """Colour cast of the light: white / mean(white), shape (3,) (1, 1, 1) under neutral light."""
        return self.white_rgb / float(np.mean(self.white_rgb))

    def normalise(self, rgb: np.ndarray) -> np.ndarray:
        """Map colours so that marker black is 0 and paper white is 1, per channel.

        Parameters
        ----------
        rgb : array_like, shape (..., 3)
            Colours as recorded in this frame (0-255, any numeric dtype).

        Returns
        -------
        ndarray, shape (..., 3), float32
            Not clipped: brighter than paper gives > 1, darker than the marker black < 0.
        """
        span = np.maximum(self.white_rgb - self.black_rgb, 1.0)
        scale = (1.0 / span).astype(np.float32)
        offset = (-self.black_rgb / span).astype(np.float32)
        if isinstance(rgb, np.ndarray) and rgb.dtype == np.uint8 and rgb.ndim == 3 and rgb.shape[2] == 3:
            # an 8-bit image: the same values through one table look-up per channel (one pass, not three)
            lut = (np.arange(256, dtype=np.float32)[:, None] * scale + offset).reshape(1, 256, 3)
            return cv2.LUT(rgb, lut)
        return np.asarray(rgb, dtype=np.float32) * scale + offset

    def local_reference(self, xy_px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """White and black interpolated at image points from the per-marker measurements.

        Light falls off across a table (lamp distance, vignette), so paper near one marker can be 30 %
        brighter than near another. With three or more markers a plane ``a + b x + c y`` is fitted per
        channel (least squares) and clamped to the range the markers span; otherwise the global values.

        Parameters
        ----------
        xy_px : array_like, shape (N, 2)

        Returns
        -------
        (white_rgb, black_rgb) : ndarrays, shape (N, 3), float64
        """
        pts = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
        n = len(pts)
        if self.per_marker_xy_px is None or len(self.per_marker_xy_px) < 3:
            return np.tile(self.white_rgb, (n, 1)), np.tile(self.black_rgb, (n, 1))
        A = np.column_stack([np.ones(len(self.per_marker_xy_px)), self.per_marker_xy_px])
        Q = np.column_stack([np.ones(n), pts])
        out = []
        for vals in (self.per_marker_white_rgb, self.per_marker_black_rgb):
            coef, *_ = np.linalg.lstsq(A, vals, rcond=None)
            out.append(np.clip(Q @ coef, vals.min(axis=0), vals.max(axis=0)))
        return out[0], out[1]

    def normalise_at(self, rgb: np.ndarray, xy_px: np.ndarray) -> np.ndarray:
        """Like :meth:`normalise`, with the reference interpolated where each colour was seen.

        Parameters
        ----------
        rgb : array_like, shape (N, 3)
            Colours (0-255).
        xy_px : array_like, shape (N, 2)
            Where each was sampled, image px.

        Returns
        -------
        ndarray, shape (N, 3), float32
        """
        white, black = self.local_reference(xy_px)
        span = np.maximum(white - black, 1.0)
        return ((np.asarray(rgb, dtype=np.float64).reshape(-1, 3) - black) / span).astype(np.float32)

    def denormalise(self, rgb01: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`normalise`: reference colours (0-1) to how this frame records them (0-255).

        Parameters
        ----------
        rgb01 : array_like, shape (..., 3)

        Returns
        -------
        ndarray, shape (..., 3), float32
        """
        span = self.white_rgb - self.black_rgb
        return (np.asarray(rgb01, dtype=np.float64) * span + self.black_rgb).astype(np.float32)

    def to_json(self) -> dict:
        return {
            "white_rgb": [float(v) for v in self.white_rgb],
            "black_rgb": [float(v) for v in self.black_rgb],
            "n_samples": int(self.n_samples),
            "per_marker": None
            if self.per_marker_xy_px is None
            else {
                "white_rgb": np.asarray(self.per_marker_white_rgb).tolist(),
                "black_rgb": np.asarray(self.per_marker_black_rgb).tolist(),
                "xy_px": np.asarray(self.per_marker_xy_px).tolist(),
            },
        }

    @classmethod
    def from_json(cls, obj: dict) -> ColourReference:
        return cls(
            white_rgb=np.asarray(obj["white_rgb"], dtype=np.float64).reshape(3),
            black_rgb=np.asarray(obj["black_rgb"], dtype=np.float64).reshape(3),
            n_samples=int(obj["n_samples"]),
            per_marker_white_rgb=_opt_array(obj, "white_rgb", 3),
            per_marker_black_rgb=_opt_array(obj, "black_rgb", 3),
            per_marker_xy_px=_opt_array(obj, "xy_px", 2),
        )


def _opt_array(obj: dict, key: str, width: int) -> np.ndarray | None:
    per = obj.get("per_marker")
    if not per or per.get(key) is None:
        return None
    return np.asarray(per[key], dtype=np.float64).reshape(-1, width)


def _marker_cells(dictionary: cv2.aruco.Dictionary, marker_id: int) -> np.ndarray:
    """The marker's cells, True = white, shape (6, 6) for a 4x4 dictionary."""
    n = dictionary.markerSize + 2
    img = cv2.aruco.generateImageMarker(dictionary, int(marker_id), n, borderBits=1)
    return img > 127


def _unit_to_px(corners_px: np.ndarray) -> np.ndarray:
    """Homography from the marker's unit square (u right, v down; ArUco corner order) to image px."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    return cv2.getPerspectiveTransform(unit, corners_px.astype(np.float32))


def _sample(image_rgb: np.ndarray, H: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Bilinear-free nearest samples of the image at unit-square points; drops those outside."""
    pts = cv2.perspectiveTransform(uv.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
    ij = np.rint(pts).astype(int)
    h, w = image_rgb.shape[:2]
    ok = (ij[:, 0] >= 0) & (ij[:, 0] < w) & (ij[:, 1] >= 0) & (ij[:, 1] < h)
    return image_rgb[ij[ok, 1], ij[ok, 0]].reshape(-1, 3).astype(np.float64)


def _trimmed_mean(samples: np.ndarray, lo_hi: tuple[float, float]) -> tuple[np.ndarray, int]:
    """Per-channel mean of the samples whose luminance lies within the percentiles; (mean (3,), count)."""
    lum = samples @ np.array([0.299, 0.587, 0.114])
    lo, hi = (percentile_last(lum, float(q)) for q in lo_hi)  # np.percentile's numbers
    keep = (lum >= lo) & (lum <= hi)
    if not np.any(keep):
        keep[:] = True
    return samples[keep].mean(axis=0), int(keep.sum())


def _cell_grid(cells: np.ndarray, config: ColourConfig) -> tuple[np.ndarray, np.ndarray]:
    """Unit-square sample points inside the white and black cells: (white_uv (N, 2), black_uv (M, 2))."""
    return _cell_grid_of(cells.shape[0], np.asarray(cells, bool).tobytes(), config)


@lru_cache(maxsize=64)
def _cell_grid_of(n: int, cells: bytes, config: ColourConfig) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_cell_grid` of an ``n`` x ``n`` marker given as its cells' bytes (cached per marker: read-only)."""
    white, black = _cell_points(np.frombuffer(cells, bool).reshape(n, n), config)
    white.setflags(write=False)
    black.setflags(write=False)
    return white, black


def _cell_points(cells: np.ndarray, config: ColourConfig) -> tuple[np.ndarray, np.ndarray]:
    n = cells.shape[0]
    k = config.samples_per_cell
    offs = (np.arange(k) + 0.5) / k - 0.5
    offs = offs * config.cell_inner_frac
    du, dv = np.meshgrid(offs, offs)
    local = np.stack([du.ravel(), dv.ravel()], axis=1)
    white, black = [], []
    for r in range(n):
        for c in range(n):
            pts = (np.array([c + 0.5, r + 0.5]) + local) / n
            (white if cells[r, c] else black).append(pts)
    return np.concatenate(white), np.concatenate(black)


@lru_cache(maxsize=8)
def _quiet_ring(config: ColourConfig) -> np.ndarray:
    """Unit-square points in the white ring just outside the black square, shape (N, 2) (cached: read-only)."""
    a, b = config.quiet_band
    t = (np.arange(config.quiet_samples_per_side) + 0.5) / config.quiet_samples_per_side
    pts = []
    for d in np.linspace(a, b, 3):
        s = -d + t * (1 + 2 * d)
        pts += [np.stack([s, np.full_like(s, -d)], 1), np.stack([s, np.full_like(s, 1 + d)], 1)]
        pts += [np.stack([np.full_like(s, -d), s], 1), np.stack([np.full_like(s, 1 + d), s], 1)]
    ring = np.concatenate(pts)
    ring.setflags(write=False)
    return ring


def measure_colour_reference(
    image_rgb: np.ndarray,
    ids: np.ndarray,
    corners_px: np.ndarray,
    dictionary: cv2.aruco.Dictionary,
    config: ColourConfig = ColourConfig(),
) -> ColourReference | None:
    """Measure black and paper white on the detected markers.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    ids : ndarray, shape (M,), int
        Detected marker ids.
    corners_px : ndarray, shape (M, 4, 2), float
        Their corners in ArUco order, image px (as detected, lens distortion included).
    dictionary : cv2.aruco.Dictionary
        The markers' dictionary (gives which cells are white).
    config : ColourConfig

    Returns
    -------
    ColourReference or None
        None when there are no markers or the image is not RGB.
    """
    if image_rgb.ndim != 3 or len(ids) == 0:
        return None
    ring = _quiet_ring(config)
    whites, blacks, centres, n = [], [], [], 0
    for mid, corners in zip(ids, corners_px):
        cells = _marker_cells(dictionary, int(mid))
        white_uv, black_uv = _cell_grid(cells, config)
        H = _unit_to_px(np.asarray(corners))
        ws = _sample(image_rgb, H, np.concatenate([white_uv, ring]))
        bs = _sample(image_rgb, H, black_uv)
        if len(ws) == 0 or len(bs) == 0:
            continue
        w, nw = _trimmed_mean(ws, config.trim_percentiles)
        b, nb = _trimmed_mean(bs, config.trim_percentiles)
        whites.append(w)
        blacks.append(b)
        centres.append(np.asarray(corners, dtype=np.float64).mean(axis=0))
        n += nw + nb
    if not whites:
        return None
    W = np.array(whites)
    B = np.array(blacks)
    return ColourReference(
        white_rgb=np.median(W, axis=0),
        black_rgb=np.median(B, axis=0),
        n_samples=n,
        per_marker_white_rgb=W,
        per_marker_black_rgb=B,
        per_marker_xy_px=np.array(centres),
    )
