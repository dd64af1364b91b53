"""Drawing what the CMYK! recognizer could not read (``mosaic_incomplete`` regions) on a photo."""

from __future__ import annotations

import cv2
import numpy as np

from scoring.cmyk_state import MosaicState

#: Outline colour (RGB) and width (px) of unread regions.
UNREAD_RGB = (255, 60, 200)
UNREAD_WIDTH_PX = 3
#: Opacity of the hatch filling an unread region.
UNREAD_FILL_ALPHA = 0.3


def draw_unread(image_rgb: np.ndarray, mosaic: MosaicState) -> np.ndarray:
    """A copy of the photo with every unread region of the mosaic outlined and hatched.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    mosaic : MosaicState
        Its ``mosaic_incomplete`` flags carry ``regions_px``: polygons in image pixels.

    Returns
    -------
    ndarray, shape (H, W, 3), uint8
    """
    out = image_rgb.copy()
    for f in mosaic.flags:
        if f.code != "mosaic_incomplete":
            continue
        for poly in f.data.get("regions_px", []):
            p = np.round(np.asarray(poly, np.float64)).astype(np.int32).reshape(-1, 1, 2)
            if len(p) < 3:
                continue
            hatch = out.copy()
            cv2.fillPoly(hatch, [p], UNREAD_RGB)
            out = cv2.addWeighted(out, 1.0 - UNREAD_FILL_ALPHA, hatch, UNREAD_FILL_ALPHA, 0)
            cv2.polylines(out, [p], True, UNREAD_RGB, UNREAD_WIDTH_PX, cv2.LINE_AA)
    return out
