"""The CMYK! reading as a clean diagram: one player's mosaic redrawn tile by tile.

Each tile is filled with the ground colour its levels give (K tiles black), each edge carries its ink band
and the level read from it; the hexagons the judgement counted are filled green, its illegal contacts drawn
in red (``result["players"][name]["geometry"]["hexagons"]`` and ``["illegal_contact_cells"]``: nothing is
re-scored). A tile read with low confidence, or named by a flag, is hatched grey with '?'; an edge read
with low confidence shows its level with '?'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry import trilattice as tl
from ui import drawing as dr
from ui.canvas import Canvas, CanvasConfig, fit_canvas
from ui.pieces import EDGE_DIRECTIONS, PieceRef

INK_RGB = {"cyan": (0, 170, 235), "magenta": (230, 0, 135), "yellow": (250, 225, 0)}
K_RGB = (28, 28, 30)
HEX_RGB = (40, 190, 70)
HEX_EDGE_RGB = (0, 120, 40)


@dataclass(frozen=True)
class CmykDiagramConfig:
    """Sizes (mm) and thresholds.

    Attributes
    ----------
    edge_mm : tile edge when the state gives none.
    band_mm : width of a tile's ink band along each edge.
    unsure_confidence : tiles and edges read with a lower confidence are marked unknown.
    hexagon_alpha : opacity of the hexagons' green fill.
    level_inset_mm : distance of a level's digit from its edge.
    tile_z_mm : height of the tiles' faces (the straightened view shows this plane).
    """

    edge_mm: float = 45.0
    band_mm: float = 6.0
    unsure_confidence: float = 0.6
    hexagon_alpha: float = 0.3
    level_inset_mm: float = 5.0
    tile_z_mm: float = 3.0


CONFIG = CmykDiagramConfig()


@dataclass(frozen=True)
class LatticeFrame:
    """A mosaic's lattice frame on the table (from the state's ``lattice_frame``)."""

    origin_mm: np.ndarray
    right: np.ndarray
    up: np.ndarray
    edge_mm: float

    @classmethod
    def of(cls, mosaic_json: dict, config: CmykDiagramConfig = CONFIG) -> LatticeFrame:
        fm = mosaic_json.get("lattice_frame") or {"origin_mm": [0.0, 0.0], "right": [1.0, 0.0], "up": [0.0, -1.0]}
        return cls(np.asarray(fm["origin_mm"], float), np.asarray(fm["right"], float), np.asarray(fm["up"], float),
                   float(fm.get("edge_mm", config.edge_mm)))

    def to_table(self, xy_lattice: np.ndarray) -> np.ndarray:
        """Lattice frame (N, 2) -> table mm (N, 2)."""
        return tl.lattice_to_table(xy_lattice, self.origin_mm, self.right, self.up)

    def to_lattice(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) -> lattice frame (N, 2)."""
        a = np.column_stack([self.right, self.up])
        return np.linalg.solve(a, (np.asarray(xy_mm, float).reshape(-1, 2) - self.origin_mm).T).T

    def cell_mm(self, cell: tuple[int, int]) -> np.ndarray:
        """The corners of a cell, shape (3, 2) table mm."""
        return self.to_table(tl.cell_vertices(int(cell[0]), int(cell[1]), self.edge_mm))

    def edge_mm_of(self, cell: tuple[int, int], direction: str) -> np.ndarray:
        """The two ends of one edge of a cell, shape (2, 2) table mm."""
        return self.to_table(tl.edge_endpoints(int(cell[0]), int(cell[1]), direction, self.edge_mm))

    def hexagon_mm(self, vertex: tuple[int, int]) -> np.ndarray:
        """The six outer corners of the hexagon around lattice vertex (k, l), shape (6, 2) table mm."""
        k, v = int(vertex[0]), int(vertex[1])
        c = np.array([k * self.edge_mm / 2.0, v * tl.row_height(self.edge_mm)])
        a = np.deg2rad(np.arange(6) * 60.0)
        return self.to_table(c + self.edge_mm * np.stack([np.cos(a), np.sin(a)], axis=1))


def ground_rgb(tile: dict) -> tuple[int, int, int]:
    """A tile's ground colour from its levels (255 * (1 - level / 5) per ink); K tiles black, unknown grey."""
    if tile.get("kind") == "k":
        return K_RGB
    levels = {e["colour"]: e.get("level") for e in tile.get("edges", {}).values()}
    if any(levels.get(c) is None for c in INK_RGB):
        return (190, 190, 190)
    return tuple(int(round(255 * (1 - levels[c] / 5))) for c in ("cyan", "magenta", "yellow"))


def player_of(state_json: dict, mosaic: int) -> str:
    m = state_json["mosaics"][mosaic]
    return str(m.get("player", f"player{mosaic + 1}"))


def unsure_tiles(state_json: dict, result: dict, mosaic: int, config: CmykDiagramConfig = CONFIG
                 ) -> set[tuple[int, int]]:
    """Cells of this mosaic read with low confidence or named by a flag (the mosaic's or this player's)."""
    m = state_json["mosaics"][mosaic]
    name = player_of(state_json, mosaic)
    flags = list(m.get("flags", [])) + [f for f in result.get("flags", []) if f.get("player") == name]
    out = {(int(c[0]), int(c[1])) for f in flags if f.get("code") != "illegal_contact" for c in f.get("cells", [])
           if isinstance(c, (list, tuple)) and len(c) == 2}
    for t in m.get("tiles", []):
        if float(t.get("confidence", 1.0)) < config.unsure_confidence:
            out.add((int(t["cell"][0]), int(t["cell"][1])))
    return out


def extent_mm(state_json: dict, mosaic: int) -> np.ndarray:
    """Every tile corner of one mosaic, shape (3 N, 2) table mm."""
    m = state_json["mosaics"][mosaic]
    fr = LatticeFrame.of(m)
    pts = [fr.cell_mm(t["cell"]) for t in m.get("tiles", [])]
    return np.concatenate(pts) if pts else np.zeros((0, 2))


def canvas_for(state_json: dict, result: dict, mosaic: int = 0, config: CanvasConfig = CanvasConfig()) -> Canvas:
    return fit_canvas(extent_mm(state_json, mosaic), config)


def _band(tri_mm: np.ndarray, a: np.ndarray, b: np.ndarray, width_mm: float) -> np.ndarray:
    """The strip of a triangle along its edge a-b, ``width_mm`` wide, shape (4, 2)."""
    c = tri_mm.mean(axis=0)
    mid = (a + b) / 2.0
    t = min(width_mm / max(np.linalg.norm(c - mid), 1e-6), 1.0)
    return np.array([a, b, b + (c - b) * t, a + (c - a) * t])


def draw(canvas: Canvas, state_json: dict, result: dict, mosaic: int = 0, highlight: tuple[PieceRef, ...] = (),
         style: dr.DiagramStyle = dr.DiagramStyle(), config: CmykDiagramConfig = CONFIG) -> np.ndarray:
    """One player's mosaic on a new image of the canvas's size.

    Parameters
    ----------
    canvas : Canvas
    state_json : dict
        The CMYK! state (``mosaics`` with ``tiles`` and ``lattice_frame``).
    result : dict
        The judgement (``players[name]["geometry"]["hexagons"]``, ``["illegal_contact_cells"]``, ``flags``).
    mosaic : int
        Which player's mosaic (photo order).
    highlight : tuple of PieceRef
        Tiles or edges to ring in the highlight colour (those of other mosaics are ignored).

    Returns
    -------
    ndarray, shape (h, w, 3) uint8
    """
    img = canvas.blank(style.paper_rgb)
    m = state_json["mosaics"][mosaic]
    fr = LatticeFrame.of(m, config)
    s = canvas.px_per_mm()
    fs = dr.font_scale(style, s)
    player = result.get("players", {}).get(player_of(state_json, mosaic), {})
    unsure = unsure_tiles(state_json, result, mosaic, config)
    tiles = m.get("tiles", [])
    for t in tiles:
        tri = fr.cell_mm(t["cell"])
        dr.fill_polygon(img, canvas.to_px(tri), ground_rgb(t))
        for d, e in t.get("edges", {}).items():
            a, b = fr.edge_mm_of(t["cell"], d)
            dr.fill_polygon(img, canvas.to_px(_band(tri, a, b, config.band_mm)), INK_RGB.get(e["colour"], (150,) * 3))
    hexes = [canvas.to_px(fr.hexagon_mm(v)) for v in player.get("geometry", {}).get("hexagons", [])]
    if hexes:  # one tint over their union: overlapping hexagons do not bury the tiles' colours
        tint = img.copy()
        for ring in hexes:
            dr.fill_polygon(tint, ring, HEX_RGB)
        covered = np.any(tint != img, axis=2)
        img[covered] = np.round(img[covered] * (1 - config.hexagon_alpha) + np.asarray(HEX_RGB) *
                                config.hexagon_alpha).astype(np.uint8)
        for ring in hexes:
            dr.outline_polygon(img, ring, HEX_EDGE_RGB, max(3, int(round(1.0 * s))))
    for t in tiles:
        cell = (int(t["cell"][0]), int(t["cell"][1]))
        tri = fr.cell_mm(cell)
        tri_px = canvas.to_px(tri)
        dr.outline_polygon(img, tri_px, (60, 60, 60), 1)
        if cell in unsure:
            dr.hatch(img, tri_px, style.unknown_rgb, spacing_px=max(4.0, 3.0 * s))
        centre = tri.mean(axis=0)
        if t.get("kind") == "k":
            dr.text(img, "K", canvas.to_px(centre)[0], fs * 1.6, (255, 255, 255), halo_rgb=None, thickness=2)
        for d, e in t.get("edges", {}).items():
            if e.get("level") is None and t.get("kind") == "k":
                continue  # K marks are wild
            a, b = fr.edge_mm_of(cell, d)
            mid = (a + b) / 2.0
            at = mid + (centre - mid) * (config.level_inset_mm / max(np.linalg.norm(centre - mid), 1e-6))
            doubt = e.get("level") is None or float(e.get("confidence", 1.0)) < config.unsure_confidence
            label = "?" if e.get("level") is None else f"{e['level']}" + ("?" if doubt else "")
            dr.text(img, label, canvas.to_px(at)[0], fs,
                    style.doubt_rgb if doubt else style.ink_rgb, thickness=2)
        if cell in unsure:
            dr.text(img, "?", canvas.to_px(centre)[0], fs * 1.6, style.ink_rgb, thickness=2)
    for c in player.get("illegal_contact_cells", []):
        a, b = canvas.to_px(fr.edge_mm_of(tuple(c["cells"][0]), c["direction"]))
        dr.line(img, a, b, style.bad_rgb, max(4, int(round(1.5 * s))))
    for p in highlight:
        if p.kind in ("tile", "edge") and p.index[0] == mosaic:
            cell = (p.index[1], p.index[2])
            pts = fr.cell_mm(cell) if p.kind == "tile" else fr.edge_mm_of(cell, EDGE_DIRECTIONS[p.index[3]])
            dr.outline_polygon(img, canvas.to_px(pts), style.highlight_rgb, max(3, int(round(1.0 * s))),
                               closed=p.kind == "tile")
    return img
