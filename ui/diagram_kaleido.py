"""The Kaleido reading as a clean diagram: the boards, every cell's colour, the junction hexagons.

Drawn from the state (boards and cell readings) and the judgement (``hexagons`` complete with their points,
``incomplete_hexagons``, ``boards`` full or not, ``flags``): nothing is re-scored. Complete hexagons are
outlined in gold with a numbered badge (their points are in the sentence of that number); incomplete ones
dashed; an empty hole shows the table; a cell read with low confidence (or named by a flag) is hatched grey with
'?' over the colour it was read as.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from components import load_components
from geometry.hexboards import board_cells, board_corners, hole_triangle
from ui import drawing as dr
from ui.canvas import Canvas, CanvasConfig, fit_canvas
from ui.pieces import PieceRef


@dataclass(frozen=True)
class KaleidoDiagramConfig:
    """Sizes and thresholds.

    Attributes
    ----------
    hole_inset_mm : distance from a cell's side to its hole's side (60 mm cell, 52 mm tile).
    unsure_confidence : cells read with a lower confidence are drawn as unknown.
    top_z_mm : height of the tiles' faces (the straightened view shows this plane).
    """

    hole_inset_mm: float = 2.3
    unsure_confidence: float = 0.6
    top_z_mm: float = 2.0


CONFIG = KaleidoDiagramConfig()
GOLD = (215, 160, 0)
BOARD_RGB = (205, 195, 172)
EMPTY_RGB = (232, 232, 228)


def tile_rgb(colour: str | None) -> tuple[int, int, int]:
    """Display colour of a tile colour name (grey for an unknown name)."""
    rgb = load_components()["kaleido"]["tile"]["colours"].get(colour or "", (150, 150, 150))
    return tuple(int(v) for v in rgb)


def unsure_cells(state_json: dict, result: dict, config: KaleidoDiagramConfig = CONFIG) -> set[tuple[int, int]]:
    """(board, cell) pairs read with low confidence or named by a flag's ``cells``."""
    out = {(int(c[0]), int(c[1])) for f in result.get("flags", []) for c in f.get("cells", [])
           if isinstance(c, (list, tuple)) and len(c) == 2}
    for b, bd in enumerate(state_json.get("boards", [])):
        for k, conf in enumerate(bd.get("confidences", [1.0] * 6)):
            if float(conf) < config.unsure_confidence:
                out.add((b, k))
    return out


def _cells(state_json: dict, b: int) -> np.ndarray:
    bd = state_json["boards"][b]
    return board_cells(bd["centre_mm"], bd["rotation_deg"], float(state_json.get("edge_mm", 60.0)))


def hexagon_ring_mm(state_json: dict, hexagon: dict) -> np.ndarray:
    """The outline of a junction hexagon (its six cells around ``vertex_mm``), shape (6, 2) table mm."""
    e = float(state_json.get("edge_mm", 60.0))
    pts = np.concatenate([_cells(state_json, int(b))[int(k)] for b, k in hexagon["cells"]])
    centre = np.asarray(hexagon["vertex_mm"], dtype=np.float64)
    far = pts[np.linalg.norm(pts - centre, axis=1) > 0.5 * e]
    uniq = []
    for p in far:
        if all(np.linalg.norm(p - q) > 0.2 * e for q in uniq):
            uniq.append(p)
    ring = np.asarray(uniq)
    return ring[np.argsort(np.arctan2(ring[:, 1] - centre[1], ring[:, 0] - centre[0]))]


def extent_mm(state_json: dict, result: dict | None = None) -> np.ndarray:
    """Every board corner, shape (6 B, 2)."""
    e = float(state_json.get("edge_mm", 60.0))
    pts = [board_corners(bd["centre_mm"], bd["rotation_deg"], e) for bd in state_json.get("boards", [])]
    return np.concatenate(pts) if pts else np.zeros((0, 2))


def canvas_for(state_json: dict, result: dict, config: CanvasConfig = CanvasConfig()) -> Canvas:
    return fit_canvas(extent_mm(state_json), config)


def draw(canvas: Canvas, state_json: dict, result: dict, highlight: tuple[PieceRef, ...] = (),
         style: dr.DiagramStyle = dr.DiagramStyle(), config: KaleidoDiagramConfig = CONFIG) -> np.ndarray:
    """The diagram on a new image of the canvas's size.

    Parameters
    ----------
    canvas : Canvas
    state_json : dict
        The Kaleido state (``edge_mm``, ``boards`` with ``centre_mm``, ``rotation_deg``, ``cells``, ``confidences``).
    result : dict
        The judgement (``hexagons``, ``incomplete_hexagons``, ``boards``, ``flags``).
    highlight : tuple of PieceRef
        Cells to ring in the highlight colour.

    Returns
    -------
    ndarray, shape (h, w, 3) uint8
    """
    img = canvas.blank(style.paper_rgb)
    s = canvas.px_per_mm()
    fs = dr.font_scale(style, s)
    e = float(state_json.get("edge_mm", 60.0))
    unsure = unsure_cells(state_json, result, config)
    full = {int(b.get("index", i)) for i, b in enumerate(result.get("boards", [])) if b.get("full")}
    for b, bd in enumerate(state_json.get("boards", [])):
        corners = canvas.to_px(board_corners(bd["centre_mm"], bd["rotation_deg"], e))
        dr.fill_polygon(img, corners, BOARD_RGB)
        cells = _cells(state_json, b)
        for k, colour in enumerate(bd["cells"]):
            hole = canvas.to_px(hole_triangle(cells[k], config.hole_inset_mm))
            dr.fill_polygon(img, hole, EMPTY_RGB if colour is None else tile_rgb(colour))
            dr.outline_polygon(img, hole, (110, 100, 85), 1)
            if (b, k) in unsure:
                dr.unknown(img, hole, style, fs)
            if colour is None:
                below = hole.mean(axis=0) + (0, 14 * fs if (b, k) in unsure else 0)
                dr.text(img, "empty", below, fs * 0.7, (110, 110, 110), halo_rgb=None)
        edge_rgb = style.ink_rgb if bd.get("on_lattice", True) else style.doubt_rgb
        dr.outline_polygon(img, corners, edge_rgb, 3 if b in full else 1)
        label = f"{b}" + (" full" if b in full else "")
        dr.text(img, label, canvas.to_px(bd["centre_mm"])[0], fs, style.ink_rgb, thickness=2)
    for h in result.get("incomplete_hexagons", []):
        dr.dashed_polygon(img, canvas.to_px(hexagon_ring_mm(state_json, h)), (120, 120, 120), 2)
    for h in result.get("hexagons", []):
        ring = canvas.to_px(hexagon_ring_mm(state_json, h))
        dr.outline_polygon(img, ring, GOLD, max(3, int(round(1.2 * s))))
    for n, h in enumerate(result.get("hexagons", []), start=1):
        # a numbered badge: the points are in the sentence "Hexagon n ..." (they do not fit on the picture)
        v = canvas.to_px(h["vertex_mm"])[0]
        dr.circle(img, v, 11 * fs + 4, GOLD)
        dr.circle(img, v, 11 * fs + 4, (90, 60, 0), 1)
        dr.text(img, str(n), v, fs * 1.1, (20, 20, 20), halo_rgb=None, thickness=2)
    for p in highlight:
        if p.kind == "cell" and p.index[0] < len(state_json.get("boards", [])):
            tri = canvas.to_px(_cells(state_json, p.index[0])[p.index[1]])
            dr.outline_polygon(img, tri, style.highlight_rgb, max(3, int(round(1.0 * s))))
    return img
