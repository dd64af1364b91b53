"""The Genial Spezial reading as a clean diagram: the double-hexagon board, every tile hex, every tower and its
token, the new tile, the mover's chain and the towers it links.

Drawn from the state (board pose, tiles and tokens read after the placement, cells the camera could not see) and
the judgement (``placed``, ``chain``, ``linked_towers``, ``scored_towers``, ``already_scored``, ``large_new``,
``flags``): nothing is re-scored. Every board cell is drawn empty (the bonus cells with their asterisk) or in the
colour of the tile covering it; each tower space in its printed colour, with its tower's token on top: a pale or
dark disc (its side) carrying the symbol's colour and the value, a large tower ringed twice. The new tile is
outlined thick (dark, white on a black tile), the chain's other hexes thin white; a linked tower is ringed green
when it scores now, grey when this chain scored it before, with '+1' on a large tower counted now. A cell the
camera could not see (or that a flag names) is hatched grey with '?', and a token read with doubt carries a '?'.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from components import load_components
from geometry.hexgrid import Cell, HexBoardPose, hexagon_board_mm
from judge.games.genial import QUIET, board
from ui import drawing as dr
from ui.canvas import Canvas, CanvasConfig, fit_canvas
from ui.pieces import PieceRef


@dataclass(frozen=True)
class GenialDiagramConfig:
    """Sizes.

    Attributes
    ----------
    tile_z_mm : height of the tiles' faces (2 mm board + 4 mm tile; the straightened view shows this plane).
    token_frac : the token disc's radius as a fraction of the cell's circumradius.
    symbol_frac : the symbol's radius as a fraction of the token's.
    bonus_frac : the bonus asterisk's radius as a fraction of the cell's circumradius.
    """

    tile_z_mm: float = 6.0
    token_frac: float = 0.78
    symbol_frac: float = 0.45
    bonus_frac: float = 0.5


CONFIG = GenialDiagramConfig()
CELL_LINE_RGB = (90, 80, 70)
NEW_RGB = (20, 20, 24)               # the new tile: a dark double outline
CHAIN_RGB = (255, 255, 255)          # the chain's other hexes: a white inner outline
SCORED_RGB = (30, 160, 60)           # a linked tower scored now
ALREADY_RGB = (140, 140, 140)        # a linked tower this chain scored before
LIGHT_FACE_RGB = (240, 236, 222)
DARK_FACE_RGB = (30, 30, 32)


@lru_cache(maxsize=1)
def _section() -> dict:
    return load_components()["genial_spezial"]


def cell_rgb() -> tuple[int, int, int]:
    """The empty cell's printed colour."""
    c = _section()["board"]["cell_rgb"]
    return (int(c[0]), int(c[1]), int(c[2]))


def tile_rgb(colour: str | None) -> tuple[int, int, int]:
    """Display colour of a player's tile colour (grey for an unknown name)."""
    got = _section()["tile"]["player_colours"].get(colour or "", (150, 150, 150))
    return (int(got[0]), int(got[1]), int(got[2]))


def symbol_rgb(symbol: str | None) -> tuple[int, int, int]:
    """Display colour of a token symbol (grey when unread)."""
    got = _section()["token"]["symbols"].get(symbol or "", {}).get("rgb", (150, 150, 150))
    return (int(got[0]), int(got[1]), int(got[2]))


def space_rgb(cell: Cell) -> tuple[int, int, int]:
    """The printed colour of a tower space."""
    colour = next((s.colour for s in board().tower_spaces if s.qr == cell), "greyblue")
    c = _section()["board"]["tower_space_rgb"][colour]
    return (int(c[0]), int(c[1]), int(c[2]))


def _cell(obj) -> Cell:
    return (int(obj[0]), int(obj[1]))


def pose_of(state_json: dict) -> HexBoardPose | None:
    """The board pose of the after photo (None: no board read)."""
    p = (state_json.get("after") or {}).get("pose")
    return None if p is None else HexBoardPose.from_json(p)


def hex_mm(pose: HexBoardPose, cell: Cell, scale: float = 1.0) -> np.ndarray:
    """A cell's hexagon on the table, shape (6, 2) mm."""
    centre = pose.to_board(pose.cell_centres_mm(np.asarray([cell], dtype=np.float64)))[0]
    return pose.to_table(hexagon_board_mm(centre, scale * pose.pitch_mm / np.sqrt(3.0)))


def tiles(state_json: dict, photo: str = "after") -> dict[Cell, str]:
    """The tile hexes read on a photo: cell -> colour."""
    return {_cell(t["qr"]): str(t["colour"]) for t in (state_json.get(photo) or {}).get("tiles", [])}


def towers(state_json: dict, result: dict) -> dict[Cell, dict]:
    """Each tower and its token as judged (the judgement's ``towers``, else the after photo's reading)."""
    got = result.get("towers") or (state_json.get("after") or {}).get("towers", [])
    return {_cell(t["qr"]): t for t in got}


def unreadable(state_json: dict) -> dict[Cell, str]:
    """Cells the camera could not read on either photo, and why (the after photo's reason first)."""
    out: dict[Cell, str] = {}
    for photo in ("after", "before"):
        for u in (state_json.get(photo) or {}).get("unreadable", []):
            out.setdefault(_cell(u["qr"]), f"{photo} photo: {u.get('why', '')}")
    return out


def flagged_cells(result: dict, quiet: bool = False) -> set[Cell]:
    """Cells named by the judgement's flags: the doubt flags (``quiet=False``) or the token notes (``quiet``)."""
    out = set()
    for f in result.get("flags", []):
        if (f.get("code") in QUIET) != quiet:
            continue
        out |= {_cell(c) for c in f.get("cells", []) if isinstance(c, (list, tuple)) and len(c) == 2}
    return out


def doubtful_tokens(state_json: dict, result: dict) -> dict[Cell, str]:
    """Tokens read with doubt that a flag points at, and why."""
    named = flagged_cells(result, quiet=True)
    out = {}
    for photo in ("before", "after"):
        for t in (state_json.get(photo) or {}).get("towers", []):
            c = _cell(t["qr"])
            if t.get("doubt") and c in named:
                out.setdefault(c, str(t["doubt"]))
    return out


def extent_mm(state_json: dict) -> np.ndarray:
    """Every board cell's corners, shape (N, 2) table mm."""
    pose = pose_of(state_json)
    if pose is None:
        return np.zeros((0, 2))
    return np.concatenate([hex_mm(pose, c) for c in board().cells()])


def canvas_for(state_json: dict, result: dict, config: CanvasConfig = CanvasConfig()) -> Canvas:
    return fit_canvas(extent_mm(state_json), config)


def _asterisk(img: np.ndarray, centre_px, r_px: float, rgb) -> None:
    c = np.asarray(centre_px, dtype=np.float64).reshape(2)
    for k in range(4):
        a = k * np.pi / 4
        u = np.array([np.cos(a), np.sin(a)]) * r_px
        dr.line(img, c - u, c + u, rgb, max(1, int(round(r_px / 5))))


def draw_token(img: np.ndarray, token: dict, centre_px, r_px: float, fs: float,
               config: GenialDiagramConfig = CONFIG) -> None:
    """A token: its side's face, its symbol's colour as a disc beside the value, a second ring on a large tower."""
    c = np.asarray(centre_px, dtype=np.float64).reshape(2)
    dark = bool(token.get("dark"))
    face = DARK_FACE_RGB if dark else LIGHT_FACE_RGB
    if token.get("size") == "large":
        dr.circle(img, c, r_px * 1.12, (20, 20, 24))
    dr.circle(img, c, r_px, face)
    dr.circle(img, c, r_px, (20, 20, 24), 1)
    sym = c + np.array([-0.38, 0.0]) * r_px
    dr.circle(img, sym, config.symbol_frac * r_px, symbol_rgb(token.get("symbol")))
    ink = (250, 250, 250) if dark else (20, 20, 24)
    dr.text(img, str(token.get("value", "?")), c + np.array([0.42, 0.0]) * r_px, fs, ink, halo_rgb=None,
            thickness=2)


def draw(canvas: Canvas, state_json: dict, result: dict, highlight: tuple[PieceRef, ...] = (),
         style: dr.DiagramStyle = dr.DiagramStyle(), config: GenialDiagramConfig = CONFIG) -> np.ndarray:
    """The diagram on a new image of the canvas's size.

    Parameters
    ----------
    canvas : Canvas
    state_json : dict
        The Genial state (``after`` and ``before`` photos: ``pose``, ``tiles``, ``towers``, ``unreadable``).
    result : dict
        The judgement (``placed``, ``chain``, ``linked_towers``, ``scored_towers``, ``large_new``, ``towers``,
        ``flags``).
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
    b = board()
    read = tiles(state_json)
    spaces = b.space_cells()
    unsure = set(unreadable(state_json)) | flagged_cells(result)
    r_cell = pose.pitch_mm / np.sqrt(3.0) * s
    for c in b.cells():
        poly = canvas.to_px(hex_mm(pose, c))
        centre = poly.mean(axis=0)
        if c in spaces:
            dr.fill_polygon(img, poly, space_rgb(c))
        elif c in read:
            dr.fill_polygon(img, poly, tile_rgb(read[c]))
        else:
            dr.fill_polygon(img, poly, cell_rgb())
            if c in b.bonus_cells:
                _asterisk(img, centre, config.bonus_frac * r_cell, (60, 50, 40))
        dr.outline_polygon(img, poly, CELL_LINE_RGB, 1)
        if c in unsure and c not in spaces:
            dr.unknown(img, poly, style, fs)
    placed = {_cell(h["qr"]) for h in result.get("placed", [])}
    for c in result.get("chain", []):
        if _cell(c) not in placed:
            dr.outline_polygon(img, canvas.to_px(hex_mm(pose, _cell(c), 0.72)), CHAIN_RGB, max(2, int(round(0.6 * s))))
    for c in sorted(placed):   # dark on a light tile, white on a black one
        poly = canvas.to_px(hex_mm(pose, c, 0.9))
        on_dark = read.get(c) == "black"
        dr.outline_polygon(img, poly, (255, 255, 255) if on_dark else NEW_RGB, max(3, int(round(1.2 * s))))
        dr.outline_polygon(img, poly, NEW_RGB if on_dark else (255, 255, 255), 1)
    scored = {_cell(c) for c in result.get("scored_towers", [])}
    linked = {_cell(c) for c in result.get("linked_towers", [])}
    large_new = {_cell(c) for c in result.get("large_new", [])}
    token_doubt = doubtful_tokens(state_json, result)
    r_tok = config.token_frac * r_cell
    judged = towers(state_json, result)
    missing = {_cell(c) for c in (state_json.get("after") or {}).get("missing_towers", [])}
    for c in sorted(spaces):
        centre = canvas.to_px(pose.cell_centres_mm(np.asarray([c], dtype=np.float64)))[0]
        if c in linked:
            ring = SCORED_RGB if c in scored else ALREADY_RGB
            dr.circle(img, centre, r_tok * 1.35, ring, max(3, int(round(1.0 * s))))
        if c in judged:
            draw_token(img, judged[c], centre, r_tok, fs, config)
        elif c in missing:
            dr.unknown(img, dr.circle_polygon(centre, r_tok), style, fs)
        if c in token_doubt:
            dr.text(img, "?", centre + np.array([r_tok, -r_tok]), fs * 1.3, style.doubt_rgb, thickness=2)
        if c in large_new:
            dr.text(img, "+1", centre + np.array([0.0, -1.6 * r_tok]), fs, SCORED_RGB, thickness=2)
    for p in highlight:
        if p.kind == "hex":
            poly = canvas.to_px(hex_mm(pose, _cell(p.index), 1.0))
            dr.outline_polygon(img, poly, style.highlight_rgb, max(3, int(round(1.0 * s))))
            dr.outline_polygon(img, canvas.to_px(hex_mm(pose, _cell(p.index), 0.7)), style.ink_rgb, 1)
    return img
