"""The Ingenious reading as a clean diagram: the hex board, every tile half, the new tile, its counted lines.

Drawn from the state (board pose, tile hexes read after the move, cells in doubt) and the judgement (``placed``,
``lines``, ``start_symbols``, ``flags``, ``colour_scores`` for the board in play): nothing is re-scored. Every
cell in play is drawn empty or as its tile half (a pale face in the half's colour with its symbol's shape in the
colour), the printed start symbols on the board's colour, the two new hexes outlined dark,
every counted line as a stroke from the new hex with its count just past its end, and a cell in doubt (or named by a
flag) hatched grey with '?'. Cells outside the board in play are drawn darker, as the board prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from components import load_components
from geometry.hexgrid import Cell, HexBoardPose, cells_within, hexagon_board_mm, ring
from scoring.ingenious import radius_for
from ui import drawing as dr
from ui.canvas import Canvas, CanvasConfig, fit_canvas
from ui.pieces import PieceRef


@dataclass(frozen=True)
class IngeniousDiagramConfig:
    """Sizes.

    Attributes
    ----------
    face_tint : how much of the half's colour the tile face shows (0: off-white, 1: the full colour).
    symbol_frac : the symbol's radius as a fraction of the cell's circumradius.
    tile_z_mm : height of the tiles' faces (2 mm board + 4 mm tile; the straightened view shows this plane).
    full_radius : the printed board's radius (cells drawn, in play or not).
    """

    face_tint: float = 0.3
    symbol_frac: float = 0.55
    tile_z_mm: float = 6.0
    full_radius: int = 7


CONFIG = IngeniousDiagramConfig()
BOARD_IN_PLAY_RGB = (232, 226, 208)
BOARD_OUT_RGB = (150, 150, 156)
CELL_LINE_RGB = (55, 58, 70)
RIM_RGB = (28, 38, 78)
NEW_RGB = (20, 20, 24)  # the new tile: a dark double outline (the highlight colour is for picked lines)


def colour_rgb(colour: str | None) -> tuple[int, int, int]:
    """Display colour of an Ingenious colour name (grey for an unknown name)."""
    got = load_components()["ingenious"]["tile"]["colours"].get(colour or "", {}).get("rgb", (150, 150, 150))
    return (int(got[0]), int(got[1]), int(got[2]))


def face_rgb(colour: str, config: IngeniousDiagramConfig = CONFIG) -> tuple[int, int, int]:
    """The tile face of a half: off-white tinted with its colour."""
    face = np.asarray(load_components()["ingenious"]["tile"]["face_rgb"], dtype=np.float64)
    rgb = (1.0 - config.face_tint) * face + config.face_tint * np.asarray(colour_rgb(colour), dtype=np.float64)
    return (int(round(rgb[0])), int(round(rgb[1])), int(round(rgb[2])))


def pose_of(state_json: dict) -> HexBoardPose | None:
    """The board pose the vision found (None: no board read)."""
    p = state_json.get("pose")
    return None if p is None else HexBoardPose.from_json(p)


def radius_in_play(result: dict) -> int:
    """The board radius in play, from the number of players the judgement scored (5, 6 or 7)."""
    n = len(result.get("colour_scores", {}))
    return radius_for(n) if 1 <= n <= 4 else CONFIG.full_radius


def hex_mm(pose: HexBoardPose, cell: Cell, scale: float = 1.0) -> np.ndarray:
    """A cell's hexagon on the table, shape (6, 2) mm."""
    centre = pose.to_board(pose.cell_centres_mm(np.asarray([cell], dtype=np.float64)))[0]
    return pose.to_table(hexagon_board_mm(centre, scale * pose.pitch_mm / np.sqrt(3.0)))


def _cell(obj) -> Cell:
    return (int(obj[0]), int(obj[1]))


def unsure_hexes(state_json: dict, result: dict) -> set[Cell]:
    """Cells read with doubt (the state's ``doubtful``) or named by a flag's ``cells``."""
    out = {_cell(d["qr"]) for d in state_json.get("doubtful", [])}
    for f in result.get("flags", []):
        for c in f.get("cells", []):
            if isinstance(c, dict) and "qr" in c:
                out.add(_cell(c["qr"]))
            elif isinstance(c, (list, tuple)) and len(c) == 2:
                out.add(_cell(c))
    return out


def tiles(state_json: dict) -> dict[Cell, str]:
    """The tile hexes read after the move: cell -> colour."""
    return {_cell(h["qr"]): str(h["colour"]) for h in state_json.get("after", [])}


def extent_mm(state_json: dict, config: IngeniousDiagramConfig = CONFIG) -> np.ndarray:
    """The printed board's outer cells' corners, shape (N, 2) table mm."""
    pose = pose_of(state_json)
    if pose is None:
        return np.zeros((0, 2))
    outer = [c for c in cells_within(config.full_radius) if ring(c) == config.full_radius]
    return np.concatenate([hex_mm(pose, c) for c in outer])


def canvas_for(state_json: dict, result: dict, config: CanvasConfig = CanvasConfig()) -> Canvas:
    return fit_canvas(extent_mm(state_json), config)


def _star(n: int, r_out: float, r_in: float, phase: float = -np.pi / 2) -> np.ndarray:
    a = phase + np.arange(2 * n) * np.pi / n
    r = np.where(np.arange(2 * n) % 2 == 0, r_out, r_in)
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=1)


def draw_symbol(img: np.ndarray, colour: str, centre_px, radius_px: float, paper_rgb) -> None:
    """A colour's symbol (disc, sun, six-pointed star, hexagon, ring, six-petal flower), in place."""
    c = np.asarray(centre_px, dtype=np.float64).reshape(2)
    rgb = colour_rgb(colour)
    r = float(radius_px)
    if colour == "red":
        dr.circle(img, c, r, rgb)
    elif colour == "orange":
        for k in range(12):
            a = k * np.pi / 6
            u = np.array([np.cos(a), np.sin(a)])
            dr.line(img, c + 0.5 * r * u, c + r * u, rgb, max(1, int(round(r / 8))))
        dr.circle(img, c, 0.55 * r, rgb)
    elif colour == "yellow":
        dr.fill_polygon(img, c + _star(6, r, 0.5 * r), rgb)
    elif colour == "green":
        dr.fill_polygon(img, hexagon_board_mm(c, r), rgb)
    elif colour == "blue":
        dr.circle(img, c, r, rgb)
        dr.circle(img, c, 0.55 * r, paper_rgb)
    elif colour == "purple":
        for k in range(6):
            a = k * np.pi / 3
            dr.circle(img, c + 0.5 * r * np.array([np.cos(a), np.sin(a)]), 0.45 * r, rgb)
        dr.circle(img, c, 0.3 * r, paper_rgb)
    else:
        dr.text(img, "?", c, 0.6, rgb)


def draw(canvas: Canvas, state_json: dict, result: dict, highlight: tuple[PieceRef, ...] = (),
         style: dr.DiagramStyle = dr.DiagramStyle(), config: IngeniousDiagramConfig = CONFIG) -> np.ndarray:
    """The diagram on a new image of the canvas's size.

    Parameters
    ----------
    canvas : Canvas
    state_json : dict
        The Ingenious state (``pose``, ``after``, ``doubtful``).
    result : dict
        The judgement (``placed``, ``lines``, ``start_symbols``, ``flags``, ``colour_scores``).
    highlight : tuple of PieceRef
        Cells (``PieceRef("hex", (q, r))``) to ring in the highlight colour.

    Returns
    -------
    ndarray, shape (h, w, 3) uint8
    """
    img = canvas.blank(style.paper_rgb)
    pose = pose_of(state_json)
    if pose is None:
        return img
    s = canvas.px_per_mm()
    fs = dr.font_scale(style, s)
    radius = radius_in_play(result)
    read = tiles(state_json)
    symbols = {_cell(h["qr"]): str(h["colour"]) for h in result.get("start_symbols", [])}
    unsure = unsure_hexes(state_json, result)
    r_sym = config.symbol_frac * pose.pitch_mm / np.sqrt(3.0) * s
    for c in cells_within(config.full_radius):
        poly = canvas.to_px(hex_mm(pose, c))
        centre = poly.mean(axis=0)
        colour = read.get(c)
        if colour is not None:
            dr.fill_polygon(img, poly, face_rgb(colour, config))
            draw_symbol(img, colour, centre, r_sym, face_rgb(colour, config))
        else:
            base = BOARD_IN_PLAY_RGB if ring(c) <= radius else BOARD_OUT_RGB
            dr.fill_polygon(img, poly, base)
            if c in symbols:
                draw_symbol(img, symbols[c], centre, 0.8 * r_sym, base)
        dr.outline_polygon(img, poly, CELL_LINE_RGB, 1)
        if c in unsure:
            dr.unknown(img, poly, style, fs)
    for ln in result.get("lines", []):
        pts = canvas.to_px(pose.cell_centres_mm(np.asarray([ln["start"]] + ln["cells"], dtype=np.float64)))
        width = max(2, int(round(1.2 * s)))
        dr.outline_polygon(img, pts, (255, 255, 255), width + 4, closed=False)
        dr.outline_polygon(img, pts, colour_rgb(ln["colour"]), width, closed=False)
        badge = pts[-1] + 0.55 * (pts[-1] - pts[-2])  # just past the line's last cell, its symbol left visible
        dr.circle(img, badge, 9 * fs + 4, style.ink_rgb)
        dr.text(img, str(ln["count"]), badge, fs, (255, 255, 255), halo_rgb=None, thickness=2)
    for h in result.get("placed", []):
        poly = canvas.to_px(hex_mm(pose, _cell(h["qr"]), 0.92))
        dr.outline_polygon(img, poly, NEW_RGB, max(3, int(round(1.2 * s))))
        dr.outline_polygon(img, poly, (255, 255, 255), 1)
    for p in highlight:
        if p.kind == "hex":
            poly = canvas.to_px(hex_mm(pose, _cell(p.index), 1.0))
            dr.outline_polygon(img, poly, style.highlight_rgb, max(3, int(round(1.0 * s))))
            dr.outline_polygon(img, canvas.to_px(hex_mm(pose, _cell(p.index), 0.7)), style.ink_rgb, 1)
    return img
