"""Evidence crops: the photo itself around each doubtful piece, with the reading drawn BESIDE it (not on it).

Each crop is the straightened photo of a small square around the piece (so nothing hides the chip, cell or
tile being judged) next to the diagram of the same square with the piece ringed, most doubtful first
(:mod:`ui.doubts`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ui import reading
from ui.canvas import crop_canvas
from ui.pieces import PieceRef


@dataclass(frozen=True)
class CropConfig:
    """Crop sizes and how many.

    Attributes
    ----------
    size_px : the side of each half of a crop, px.
    gap_px : white gap between the photo and the drawing.
    max_crops : at most this many crops.
    """

    size_px: int = 220
    gap_px: int = 6
    max_crops: int = 8


CONFIG = CropConfig()


@dataclass(frozen=True)
class EvidenceCrop:
    """One crop: ``image`` is photo | gap | drawing, shape (size, 2 size + gap, 3) uint8."""

    piece: PieceRef
    image: np.ndarray
    caption: str


def evidence_crops(game: str, images_rgb: list[np.ndarray], calibrations: list, state_json: dict, result: dict,
                   config: CropConfig = CONFIG) -> list[EvidenceCrop]:
    """The photo around each doubtful piece with its drawing beside it, most doubtful first.

    Parameters
    ----------
    game : str
    images_rgb : list of ndarray, shape (H, W, 3)
        The photo of each view (CMYK!: one per mosaic; else one). Not modified.
    calibrations : list of TableCalibration or None
        Per photo (None: the state's markerless homography is used, when it has one).
    state_json, result : dict

    Returns
    -------
    list of EvidenceCrop
    """
    kit = reading.kit(game)
    out = []
    for d in sorted(kit.doubts(state_json, result), key=lambda d: d.rank)[: config.max_crops]:
        view = kit.view_of(d.piece)
        if view >= len(images_rgb):
            continue
        cv = crop_canvas(d.centre_mm, kit.crop_half_mm, config.size_px)
        photo = reading.photo_view(game, images_rgb[view], calibrations[view], state_json, cv, view)
        if photo is None:
            continue
        drawing = reading.diagram(game, cv, state_json, result, view, (d.piece,))
        gap = np.full((config.size_px, config.gap_px, 3), 255, np.uint8)
        out.append(EvidenceCrop(d.piece, np.hstack([photo, gap, drawing]), d.caption))
    return out
