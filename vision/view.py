"""The frame/view service every detector can use: one photo and its table frame.

``TableView(image_rgb, calibration)`` answers, for any game:

- px <-> table mm on a plane ``z_mm`` above the table (camera pose when the calibration has one, else the
  homography fallback with an explicit field of view: no module state);
- a top view of a table region at a chosen mm/px and height (lens and height included, ``cv2.remap``);
- colour normalisation from the markers (black -> 0, paper white -> 1; the calibration's
  ``ColourReference`` or one measured here);
- sampling an image at sub-pixel points with one declared border rule (:func:`sample`);
- CIELAB (:func:`rgb_to_lab`, the one sRGB -> Lab conversion of the project, in ``vision.colour``).

The geometry is ``vision.carrotain_view``'s (the most complete of the four rectifiers); the Kaleido and CMYK!
recognizers still carry their own rectifiers (``vision/kaleido.py``, ``vision/cmyk.py``) and
``calibration.table.TableCalibration.rectify`` serves calibration itself: new detectors (the hex games) use
this service, and the others move to it call site by call site where their results stay the same.

>>> import numpy as np
>>> sample(np.arange(12.0).reshape(3, 4), np.array([[1.5, 1.0], [9.0, 9.0]]), border="nan").tolist()
[5.5, nan]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np

from calibration.markers import MarkerLayout
from vision import carrotain_view as _geometry
from vision.carrotain_view import DEFAULT_HFOV_DEG, TopView, has_height_model
from vision.colour import rgb_to_lab, srgb_to_linear

Border = Literal["replicate", "nan", "zero"]

__all__ = ["DEFAULT_HFOV_DEG", "TableView", "TopView", "has_height_model", "rgb_to_lab", "sample", "srgb_to_linear"]


def sample(image: np.ndarray, xy_px: np.ndarray, border: Border = "replicate") -> np.ndarray:
    """Bilinear samples of an image at sub-pixel points (the project's one sampler).

    Parameters
    ----------
    image : ndarray, shape (H, W) or (H, W, C)
    xy_px : array_like, shape (N, 2)
        (x, y) pixel positions; pixel centres at integers.
    border : {"replicate", "nan", "zero"}
        Outside the image: the nearest edge pixel, NaN, or 0. A point counts as outside when it is
        beyond the outermost pixel centres (x < 0 or x > W - 1, same for y).

    Returns
    -------
    ndarray, shape (N,) or (N, C), float64
    """
    img = np.asarray(image, dtype=np.float64)
    pts = np.asarray(xy_px, dtype=np.float64).reshape(-1, 2)
    coords = np.stack([pts[:, 1], pts[:, 0]])
    mode = "nearest" if border == "replicate" else "constant"
    cval = np.nan if border == "nan" else 0.0
    h, w = img.shape[:2]
    inside = (pts[:, 0] >= 0) & (pts[:, 1] >= 0) & (pts[:, 0] <= w - 1) & (pts[:, 1] <= h - 1)
    channels = img[..., None] if img.ndim == 2 else img
    from scipy.ndimage import map_coordinates  # noqa: PLC0415  (SciPy only when sampling: CLI start-up)

    out = np.stack([map_coordinates(channels[..., c], coords, order=1, mode=mode, cval=cval)
                    for c in range(channels.shape[2])], axis=1)
    if border != "replicate":
        out[~inside] = cval
    return out[:, 0] if img.ndim == 2 else out


@dataclass(frozen=True)
class TableView:
    """One photo and its table frame, as every detector needs it.

    Attributes
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration (or any frame with ``mm_to_px``/``px_to_mm``, e.g. a markerless lattice frame)
    hfov_deg : float
        Field of view assumed by the height fallback when the calibration has no camera pose.
    layout : MarkerLayout or None
        The markers, for a colour reference measured here (None: the components' default layout).
    """

    image_rgb: np.ndarray
    calibration: Any
    hfov_deg: float = DEFAULT_HFOV_DEG
    layout: MarkerLayout | None = field(default=None)

    @property
    def has_height_model(self) -> bool:
        """Whether heights come from a camera pose (else from the homography fallback)."""
        return has_height_model(self.calibration)

    def mm_to_px(self, xy_mm: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """Table points (N, 2) on the plane ``z_mm`` above the table -> photo px (N, 2)."""
        return _geometry.mm_to_px(self.calibration, xy_mm, z_mm, hfov_deg=self.hfov_deg)

    def px_to_mm(self, xy_px: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """Photo px (N, 2) -> table points (N, 2) on the plane ``z_mm`` above the table."""
        return _geometry.px_to_mm(self.calibration, xy_px, z_mm, hfov_deg=self.hfov_deg)

    def top_view(self, region_mm: tuple[float, float, float, float], mm_per_px: float, z_mm: float = 0.0,
                 image: np.ndarray | None = None) -> TopView:
        """A top-down view of ``region_mm`` (x0, y0, x1, y1) at ``mm_per_px`` on the plane ``z_mm``.

        ``image`` defaults to the photo; pass e.g. :attr:`normalised` to rectify the normalised colours.
        """
        src = self.image_rgb if image is None else image
        if self.hfov_deg == DEFAULT_HFOV_DEG or has_height_model(self.calibration) or z_mm == 0.0:
            return _geometry.top_view(self.calibration, src, region_mm, mm_per_px, z_mm)
        # the fallback's field of view must reach the per-pixel mapping: map through this view's own mm_to_px
        return _top_view_via(self, src, region_mm, mm_per_px, z_mm)

    @cached_property
    def colour(self) -> Any:
        """The frame's colour reference (``normalise(rgb) -> float``): the calibration's, else measured on the
        markers here."""
        return _geometry.colour_reference(self.calibration, self.image_rgb, self.layout)

    @cached_property
    def normalised(self) -> np.ndarray:
        """The photo with marker black -> 0 and paper white -> 1 per channel, float32 (H, W, 3)."""
        return np.asarray(self.colour.normalise(self.image_rgb), dtype=np.float32)

    def sample(self, xy_mm: np.ndarray, z_mm: float = 0.0, image: np.ndarray | None = None,
               border: Border = "nan") -> np.ndarray:
        """Values of ``image`` (default: the photo) at table points on the plane ``z_mm``; NaN outside."""
        src = self.image_rgb if image is None else image
        return sample(src, self.mm_to_px(xy_mm, z_mm), border)

    def lab(self, xy_mm: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """CIELAB of the normalised colours at table points (N, 3); NaN outside the photo."""
        return rgb_to_lab(self.sample(xy_mm, z_mm, self.normalised))


def _top_view_via(view: TableView, image: np.ndarray, region_mm: tuple[float, float, float, float],
                  mm_per_px: float, z_mm: float) -> TopView:
    import cv2

    x0, y0, x1, y1 = region_mm
    w = int(round((x1 - x0) / mm_per_px))
    h = int(round((y1 - y0) / mm_per_px))
    gx, gy = np.meshgrid(np.arange(w) * mm_per_px + x0, np.arange(h) * mm_per_px + y0)
    px = view.mm_to_px(np.stack([gx.ravel(), gy.ravel()], axis=1), z_mm).reshape(h, w, 2).astype(np.float32)
    out = cv2.remap(image, px[..., 0], px[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return TopView(out, (float(x0), float(y0)), float(mm_per_px), float(z_mm))
