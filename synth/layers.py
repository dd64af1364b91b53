"""A synthetic scene is a stack of flat textured sheets lying parallel to the table.

Game modules (``synth/<game>.py``) draw their pieces as layers in table millimetres; the
photo renderer (``synth.photo``) puts them under a camera and light.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Layer:
    """One sheet parallel to the table.

    Attributes
    ----------
    rgba : ndarray, shape (H, W, 4), float32 in [0, 1]
        Colour (sRGB, before lighting) and coverage alpha. Pixel (row r, col c) covers the table
        square whose top-left corner is ``origin_mm + (c, r) * mm_per_px``.
    origin_mm : tuple[float, float]
        Table position (x, y) of the texture's top-left corner, mm.
    mm_per_px : float
        Texture resolution, mm per texel (0.25-0.5 is typical).
    z_mm : float
        Height of the sheet above the table surface, mm (a chip's face: 2; a board lying on
        chips: its top face at 5).
    material : str
        ``"matte"`` (paper, cardboard, chips), ``"acrylic"`` (clear: dims and shifts what is
        below, adds edge highlights and glints) or ``"gloss"`` (glossy print: glints only).
    casts_shadow : bool
        Whether the sheet's alpha casts a soft shadow on the layers below.
    name : str
        For debugging and truth files.
    """

    rgba: np.ndarray
    origin_mm: tuple[float, float]
    mm_per_px: float
    z_mm: float = 0.0
    material: str = "matte"
    casts_shadow: bool = True
    name: str = ""

    @property
    def extent_mm(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) covered by the texture, mm."""
        h, w = self.rgba.shape[:2]
        x0, y0 = self.origin_mm
        return (x0, y0, x0 + w * self.mm_per_px, y0 + h * self.mm_per_px)
