"""What the page needs to show and correct a game's reading: one :class:`ReadingKit` per game.

A game shows one view (Carrotain, Kaleido) or one per photo (CMYK!: one mosaic per player); ``view`` below is
that index. The straightened photo and the diagram of a view share its :class:`~ui.canvas.Canvas`. A new game
(Ingenious, Genial Spezial ...) gets the same page by registering its kit with :func:`register_kit`; a game
without one shows its overlay only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ui import (
    diagram_carrotain,
    diagram_cmyk,
    diagram_genial,
    diagram_ingenious,
    diagram_kaleido,
    doubts,
    reading_genial,
    reading_ingenious,
    sentences,
    taps,
)
from ui.canvas import Canvas, CanvasConfig, straightened_view
from ui.pieces import PieceRef


@dataclass(frozen=True)
class ReadingKit:
    """How one game's reading is drawn, explained and corrected.

    Attributes
    ----------
    canvas_for : callable(state_json, result, view, CanvasConfig) -> Canvas
    draw : callable(canvas, state_json, result, view, highlight) -> ndarray (h, w, 3) uint8
    z_mm : float
        Height of the pieces' faces: the plane the straightened photo shows.
    sentences : callable(state_json, result) -> list[Sentence]
    doubts : callable(state_json, result) -> list[Doubt]
    tap : callable(state_json, xy_mm, action, view, add_as) -> TapEdit
        Raises ``TapError`` when the tap cannot do that.
    tap_help : str
        What "change" does, written out (a phone has no hover).
    crop_half_mm : float
        Half the side of an evidence crop, mm.
    views : callable(state_json) -> int
    view_of : callable(PieceRef) -> int
    homography : callable(state_json, view) -> ndarray (3, 3) or None
        A markerless detector's table-mm -> photo-px homography stored in the state.
    """

    canvas_for: Callable[..., Canvas]
    draw: Callable[..., np.ndarray]
    z_mm: float
    sentences: Callable[[dict, dict], list]
    doubts: Callable[[dict, dict], list]
    tap: Callable[..., taps.TapEdit]
    tap_help: str
    crop_half_mm: float
    views: Callable[[dict], int] = lambda state_json: 1
    view_of: Callable[[PieceRef], int] = lambda piece: 0
    homography: Callable[[dict, int], np.ndarray | None] = lambda state_json, view: None


def _kaleido_homography(state_json: dict, view: int) -> np.ndarray | None:
    h = state_json.get("h_px_from_mm")
    return None if h is None else np.asarray(h, dtype=np.float64)


def _cmyk_homography(state_json: dict, view: int) -> np.ndarray | None:
    fm = (state_json.get("mosaics") or [{}])[view].get("lattice_frame") or {}
    return None if fm.get("H_px_from_mm") is None else np.asarray(fm["H_px_from_mm"], dtype=np.float64)


def _tap(game: str) -> Callable[..., taps.TapEdit]:
    return lambda state_json, xy_mm, action, view=0, add_as=None: taps.apply_tap(
        game, state_json, xy_mm, action, view, add_as)


_KITS: dict[str, ReadingKit] = {
    "carrotain": ReadingKit(
        canvas_for=lambda s, r, v, c: diagram_carrotain.canvas_for(s, r, c),
        draw=lambda cv, s, r, v, h: diagram_carrotain.draw(cv, s, r, h),
        z_mm=diagram_carrotain.CONFIG.face_z_mm,
        sentences=sentences.carrotain, doubts=doubts.carrotain_doubts, tap=_tap("carrotain"),
        tap_help="change: the tapped chip's next colour or kind", crop_half_mm=22.0),
    "kaleido": ReadingKit(
        canvas_for=lambda s, r, v, c: diagram_kaleido.canvas_for(s, r, c),
        draw=lambda cv, s, r, v, h: diagram_kaleido.draw(cv, s, r, h),
        z_mm=diagram_kaleido.CONFIG.top_z_mm,
        sentences=sentences.kaleido, doubts=doubts.kaleido_doubts, tap=_tap("kaleido"),
        tap_help="change: the tapped hole's next colour (then empty)", crop_half_mm=40.0,
        homography=_kaleido_homography),
    "cmyk": ReadingKit(
        canvas_for=lambda s, r, v, c: diagram_cmyk.canvas_for(s, r, v, c),
        draw=lambda cv, s, r, v, h: diagram_cmyk.draw(cv, s, r, v, h),
        z_mm=diagram_cmyk.CONFIG.tile_z_mm,
        sentences=sentences.cmyk, doubts=doubts.cmyk_doubts, tap=_tap("cmyk"),
        tap_help="change: near an edge, its level +1; in the middle, normal <-> K tile", crop_half_mm=32.0,
        views=lambda s: max(1, len(s.get("mosaics", []))),
        view_of=lambda p: p.index[0] if p.kind in ("tile", "edge") else 0,
        homography=_cmyk_homography),
    "ingenious": ReadingKit(
        canvas_for=lambda s, r, v, c: diagram_ingenious.canvas_for(s, r, c),
        draw=lambda cv, s, r, v, h: diagram_ingenious.draw(cv, s, r, h),
        z_mm=diagram_ingenious.CONFIG.tile_z_mm,
        sentences=reading_ingenious.sentences, doubts=reading_ingenious.doubts, tap=reading_ingenious.tap,
        tap_help="change: the tapped cell's next colour (red, orange, yellow, green, blue, purple, then empty)",
        crop_half_mm=40.0),
    "genial": ReadingKit(
        canvas_for=lambda s, r, v, c: diagram_genial.canvas_for(s, r, c),
        draw=lambda cv, s, r, v, h: diagram_genial.draw(cv, s, r, h),
        z_mm=diagram_genial.CONFIG.tile_z_mm,
        sentences=reading_genial.sentences, doubts=reading_genial.doubts, tap=reading_genial.tap,
        tap_help="change: the tapped cell's next tile colour (red, blue, yellow, black, then empty)",
        crop_half_mm=45.0),
}


def register_kit(game: str, kit: ReadingKit) -> None:
    """Give a game the reading views (replaces a kit of the same name)."""
    _KITS[game] = kit


def kit(game: str) -> ReadingKit | None:
    """The game's kit, or None (the page then shows the overlay only)."""
    return _KITS.get(game)


def _kit(game: str) -> ReadingKit:
    k = _KITS.get(game)
    if k is None:
        raise KeyError(f"no reading kit for game {game!r}")
    return k


def view_count(game: str, state_json: dict) -> int:
    """How many views a reading has (CMYK!: one per mosaic)."""
    return _kit(game).views(state_json)


def view_of(game: str, piece: PieceRef) -> int:
    """The view a piece is drawn in."""
    return _kit(game).view_of(piece)


def canvas(game: str, state_json: dict, result: dict, view: int = 0, config: CanvasConfig = CanvasConfig()) -> Canvas:
    """The canvas that shows a view's pieces."""
    return _kit(game).canvas_for(state_json, result, view, config)


def diagram(game: str, cv: Canvas, state_json: dict, result: dict, view: int = 0,
            highlight: tuple[PieceRef, ...] = ()) -> np.ndarray:
    """The reading's diagram on a canvas (a new image)."""
    return _kit(game).draw(cv, state_json, result, view, tuple(highlight))


def photo_view(game: str, image_rgb: np.ndarray, calibration, state_json: dict, cv: Canvas,
               view: int = 0) -> np.ndarray | None:
    """The photo straightened over the canvas at the pieces' height; None without any table frame."""
    k = _kit(game)
    h = k.homography(state_json, view) if calibration is None else None
    if calibration is None and h is None:
        return None
    return straightened_view(image_rgb, cv, calibration, h, k.z_mm)
