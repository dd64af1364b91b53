"""One entry point per game for the reading views: which views, their canvas, the diagram, the straightened photo.

A game shows one view (Carrotain, Kaleido) or one per photo (CMYK!: one mosaic per player); ``view`` below is
that index. The straightened photo and the diagram of a view share its :class:`~ui.canvas.Canvas`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ui import diagram_carrotain, diagram_cmyk, diagram_kaleido
from ui.canvas import Canvas, CanvasConfig, straightened_view
from ui.pieces import PieceRef


@dataclass(frozen=True)
class GameDrawing:
    """How one game is drawn.

    Attributes
    ----------
    canvas_for : callable(state_json, result, view, CanvasConfig) -> Canvas
    draw : callable(canvas, state_json, result, view, highlight) -> ndarray
    z_mm : float
        Height of the pieces' faces: the plane the straightened view shows.
    """

    canvas_for: Callable[..., Canvas]
    draw: Callable[..., np.ndarray]
    z_mm: float


DRAWINGS = {
    "carrotain": GameDrawing(
        lambda s, r, v, c: diagram_carrotain.canvas_for(s, r, c),
        lambda cv, s, r, v, h: diagram_carrotain.draw(cv, s, r, h),
        diagram_carrotain.CONFIG.face_z_mm),
    "kaleido": GameDrawing(
        lambda s, r, v, c: diagram_kaleido.canvas_for(s, r, c),
        lambda cv, s, r, v, h: diagram_kaleido.draw(cv, s, r, h),
        diagram_kaleido.CONFIG.top_z_mm),
    "cmyk": GameDrawing(
        lambda s, r, v, c: diagram_cmyk.canvas_for(s, r, v, c),
        lambda cv, s, r, v, h: diagram_cmyk.draw(cv, s, r, v, h),
        diagram_cmyk.CONFIG.tile_z_mm),
}


def view_count(game: str, state_json: dict) -> int:
    """How many views a reading has (CMYK!: one per mosaic)."""
    return max(1, len(state_json.get("mosaics", []))) if game == "cmyk" else 1


def view_of(game: str, piece: PieceRef) -> int:
    """The view a piece is drawn in."""
    return piece.index[0] if game == "cmyk" and piece.kind in ("tile", "edge") else 0


def canvas(game: str, state_json: dict, result: dict, view: int = 0, config: CanvasConfig = CanvasConfig()) -> Canvas:
    """The canvas that shows a view's pieces."""
    return DRAWINGS[game].canvas_for(state_json, result, view, config)


def diagram(game: str, cv: Canvas, state_json: dict, result: dict, view: int = 0,
            highlight: tuple[PieceRef, ...] = ()) -> np.ndarray:
    """The reading's diagram on a canvas (a new image)."""
    return DRAWINGS[game].draw(cv, state_json, result, view, tuple(highlight))


def markerless_homography(game: str, state_json: dict, view: int = 0) -> np.ndarray | None:
    """The table-mm -> photo-px homography a markerless detector stored in the state, if any."""
    if game == "kaleido" and state_json.get("h_px_from_mm") is not None:
        return np.asarray(state_json["h_px_from_mm"], dtype=np.float64)
    if game == "cmyk":
        fm = (state_json.get("mosaics") or [{}])[view].get("lattice_frame") or {}
        if fm.get("H_px_from_mm") is not None:
            return np.asarray(fm["H_px_from_mm"], dtype=np.float64)
    return None


def photo_view(game: str, image_rgb: np.ndarray, calibration, state_json: dict, cv: Canvas,
               view: int = 0) -> np.ndarray | None:
    """The photo straightened over the canvas at the pieces' height; None without any table frame."""
    h = markerless_homography(game, state_json, view) if calibration is None else None
    if calibration is None and h is None:
        return None
    return straightened_view(image_rgb, cv, calibration, h, DRAWINGS[game].z_mm)
