"""CMYK! scenes: a legal random mosaic of triangle tiles, drawn as one layer at the tiles' top face.

A scene is built in the lattice frame of ``geometry.trilattice`` and placed on the table by a
``MosaicFrame`` (origin and unit axes in table mm, table y down). Tiles are drawn exactly as
``components/default.json`` ``cmyk`` describes them: a ground triangle in the C/M/Y mix of the three
levels, a 6 mm band along each edge in that edge's ink, and in the middle of each band the level's
mark (k black dots of 2.5 mm in a row along the edge, 0 = a short dash); K tiles are near-black with a
white K and no marks.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from components import load_components
from geometry import trilattice as tl
from synth.layers import Layer

INK_RGB = {"cyan": (0, 170, 235), "magenta": (230, 0, 135), "yellow": (250, 225, 0)}
K_GROUND_RGB = (28, 28, 30)
#: The three direction -> colour maps allowed by the clockwise C, M, Y order (H, P, N).
DIRECTION_MAPS = (
    {"H": "yellow", "P": "cyan", "N": "magenta"},
    {"H": "cyan", "P": "magenta", "N": "yellow"},
    {"H": "magenta", "P": "yellow", "N": "cyan"},
)


def tile_set() -> tuple[tuple[int, int, int], ...]:
    """The 82 normal tiles: every (c, m, y) with levels 0..5 and c+m+y <= 6, plus (3, 3, 3)."""
    out = [(c, m, y) for c in range(6) for m in range(6) for y in range(6) if c + m + y <= 6]
    out.append((3, 3, 3))
    return tuple(out)


def ground_rgb(cmy: tuple[int, int, int]) -> tuple[int, int, int]:
    """Ground colour of a normal tile, ``255*(1 - level/5)`` per channel."""
    return tuple(int(round(255 * (1 - v / 5.0))) for v in cmy)


@dataclass(frozen=True)
class TileStyle:
    """Printed geometry of a tile face (mm)."""

    edge_mm: float = 45.0
    thickness_mm: float = 3.0
    band_mm: float = 6.0
    dot_diameter_mm: float = 2.5
    dot_pitch_mm: float = 4.0
    dash_length_mm: float = 5.0
    dash_width_mm: float = 1.2
    gap_line_mm: float = 0.35
    k_letter_mm: float = 12.0

    @classmethod
    def from_components(cls, components: dict | None = None) -> TileStyle:
        """Defaults, with the edge length read from the component file's tile shape text."""
        text = (components or load_components())["cmyk"]["tile"]["shape"]
        try:
            edge = float(text.split("edge")[1].split("mm")[0])
        except (IndexError, ValueError):
            edge = cls.edge_mm
        return cls(edge_mm=edge)


@dataclass(frozen=True)
class MosaicFrame:
    """The lattice frame on the table: origin and unit axes in table mm (y down)."""

    origin_mm: tuple[float, float]
    right: tuple[float, float]
    up: tuple[float, float]

    def to_table(self, xy_lattice: np.ndarray) -> np.ndarray:
        """Lattice-frame points (N, 2) -> table mm (N, 2)."""
        return tl.lattice_to_table(xy_lattice, np.array(self.origin_mm), np.array(self.right), np.array(self.up))


@dataclass(frozen=True)
class SceneTile:
    """One placed tile: its cell, kind, levels and its actual corners on the table."""

    cell: tuple[int, int]
    kind: str
    cmy: tuple[int, int, int] | None
    edges: dict[str, tuple[str, int | None]]
    vertices_mm: np.ndarray


@dataclass(frozen=True)
class MosaicScene:
    """A mosaic on the table."""

    tiles: tuple[SceneTile, ...]
    frame: MosaicFrame
    direction_colours: dict[str, str]
    style: TileStyle

    def to_json(self) -> dict:
        return {
            "edge_mm": self.style.edge_mm,
            "mosaic_frame": {"origin_mm": list(self.frame.origin_mm), "right": list(self.frame.right),
                             "up": list(self.frame.up)},
            "direction_colours": dict(self.direction_colours),
            "tiles": [
                {"cell": list(t.cell), "up": tl.is_up(*t.cell), "kind": t.kind,
                 "cmy": None if t.cmy is None else list(t.cmy),
                 "edges": {d: {"colour": c, "level": lv} for d, (c, lv) in t.edges.items()},
                 "vertices_mm": np.round(t.vertices_mm, 3).tolist()}
                for t in self.tiles
            ],
        }


@dataclass(frozen=True)
class MosaicSceneConfig:
    """Ranges of the random mosaics."""

    min_tiles: int = 10
    max_tiles: int = 35
    k_tile_probability: float = 0.25
    centre_mm: tuple[float, float] = (280.0, 210.0)
    centre_jitter_mm: float = 60.0
    max_rotation_deg: float = 25.0
    jitter_mm: float = 0.5
    jitter_deg: float = 0.6
    max_attempts: int = 400


def random_mosaic(rng: np.random.Generator, config: MosaicSceneConfig = MosaicSceneConfig(),
                  style: TileStyle | None = None) -> MosaicScene:
    """A random legal mosaic: connected, touching edges match (colour and mark; K tiles are wild).

    Grows from tile (0, 0) by adding, at a random free cell next to the mosaic, a random unused tile
    whose levels fit every touching edge.
    """
    style = style or TileStyle()
    dmap = DIRECTION_MAPS[int(rng.integers(3))]
    colour_dir = {c: d for d, c in dmap.items()}
    target = int(rng.integers(config.min_tiles, config.max_tiles + 1))
    unused = list(tile_set())
    k_left = 2
    placed: dict[tuple[int, int], tuple[int, int, int] | None] = {}  # None = K tile

    def edge_level(cell, d):
        cmy = placed[cell]
        if cmy is None:
            return None
        return cmy[("cyan", "magenta", "yellow").index(dmap[d])]

    for _ in range(config.max_attempts):
        if len(placed) >= target:
            break
        if not placed:
            cell = (0, 0)
        else:
            frontier = sorted({tl.neighbour(*c, d) for c in placed for d in tl.DIRECTIONS} - set(placed))
            cell = frontier[int(rng.integers(len(frontier)))]
        if k_left and placed and rng.random() < config.k_tile_probability / 10:
            placed[cell] = None
            k_left -= 1
            continue
        need = {}
        for d in tl.DIRECTIONS:
            nb = tl.neighbour(*cell, d)
            if nb in placed:
                lv = edge_level(nb, d)
                if lv is not None:
                    need[dmap[d]] = lv
        fits = [t for t in unused if all(t[("cyan", "magenta", "yellow").index(c)] == lv for c, lv in need.items())]
        if not fits:
            continue
        pick = fits[int(rng.integers(len(fits)))]
        unused.remove(pick)
        placed[cell] = pick

    ang = np.deg2rad(rng.uniform(-config.max_rotation_deg, config.max_rotation_deg))
    right = np.array([np.cos(ang), np.sin(ang)])
    up = np.array([right[1], -right[0]])
    cells = np.array([tl.cell_centroid(i, j, style.edge_mm) for (i, j) in placed])
    mid = cells.mean(axis=0)
    centre = np.array(config.centre_mm) + rng.uniform(-config.centre_jitter_mm, config.centre_jitter_mm, 2)
    origin = centre - (mid[0] * right + mid[1] * up)
    frame = MosaicFrame(tuple(origin), tuple(right), tuple(up))
    tiles = []
    for cell, cmy in placed.items():
        verts = frame.to_table(tl.cell_vertices(*cell, style.edge_mm))
        c = verts.mean(axis=0)
        a = np.deg2rad(rng.normal(0, config.jitter_deg))
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        verts = (verts - c) @ rot.T + c + rng.normal(0, config.jitter_mm, 2)
        if cmy is None:
            edges = {d: (dmap[d], None) for d in tl.DIRECTIONS}
        else:
            edges = {colour_dir[col]: (col, lv) for col, lv in zip(("cyan", "magenta", "yellow"), cmy)}
        tiles.append(SceneTile(cell=cell, kind="normal" if cmy is not None else "k", cmy=cmy,
                               edges=edges, vertices_mm=verts))
    return MosaicScene(tiles=tuple(tiles), frame=frame, direction_colours=dict(dmap), style=style)


def _edge_vertex_pairs(cell: tuple[int, int]) -> dict[str, tuple[int, int]]:
    """Indices into ``cell_vertices`` of each edge's corners."""
    if tl.is_up(*cell):
        return {"H": (0, 1), "P": (0, 2), "N": (1, 2)}
    return {"H": (1, 2), "N": (0, 2), "P": (0, 1)}


def draw_tile(canvas: np.ndarray, tile: SceneTile, to_px, style: TileStyle, px_per_mm: float) -> None:
    """Draw one tile face onto an RGBA uint8 canvas in place (helper of ``mosaic_layer``)."""
    shift = 4
    sc = float(1 << shift)

    def poly(pts_mm, colour):
        pts = np.round(to_px(pts_mm) * sc).astype(np.int32)
        cv2.fillPoly(canvas, [pts], (*colour, 255), lineType=cv2.LINE_AA, shift=shift)

    v = tile.vertices_mm
    c = v.mean(axis=0)
    inradius = style.edge_mm / (2 * np.sqrt(3))
    inner = c + (v - c) * (inradius - style.band_mm) / inradius
    poly(v, (60, 60, 60))
    shrink = c + (v - c) * (inradius - style.gap_line_mm) / inradius
    poly(shrink, K_GROUND_RGB if tile.kind == "k" else ground_rgb(tile.cmy))
    pairs = _edge_vertex_pairs(tile.cell)
    for d, (a, b) in pairs.items():
        colour, level = tile.edges[d]
        poly(np.array([shrink[a], shrink[b], inner[b], inner[a]]), INK_RGB[colour])
        if tile.kind == "k" or level is None:
            continue
        u = (v[b] - v[a]) / np.linalg.norm(v[b] - v[a])
        inward = c - (v[a] + v[b]) / 2
        inward /= np.linalg.norm(inward)
        mid = (v[a] + v[b]) / 2 + inward * style.band_mm / 2
        if level == 0:
            hl, hw = style.dash_length_mm / 2, style.dash_width_mm / 2
            poly(np.array([mid - u * hl - inward * hw, mid + u * hl - inward * hw,
                           mid + u * hl + inward * hw, mid - u * hl + inward * hw]), (15, 15, 15))
        else:
            for k in range(level):
                p = mid + u * (k - (level - 1) / 2) * style.dot_pitch_mm
                q = np.round(to_px(p[None]) * sc).astype(np.int32)[0]
                r = int(round(style.dot_diameter_mm / 2 * px_per_mm * sc))
                cv2.circle(canvas, (int(q[0]), int(q[1])), r, (15, 15, 15, 255), -1, cv2.LINE_AA, shift)
    if tile.kind == "k":
        size = style.k_letter_mm * px_per_mm
        scale = cv2.getFontScaleFromHeight(cv2.FONT_HERSHEY_SIMPLEX, int(size), 3)
        (tw, th), _ = cv2.getTextSize("K", cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(size / 6)))
        cp = to_px(c[None])[0]
        cv2.putText(canvas, "K", (int(cp[0] - tw / 2), int(cp[1] + th / 2)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (245, 245, 245, 255), max(1, int(size / 6)), cv2.LINE_AA)


def mosaic_layer(scene: MosaicScene, mm_per_px: float = 0.25, margin_mm: float = 3.0) -> Layer:
    """The mosaic's top faces as one matte layer at the tile thickness (z = 3 mm)."""
    pts = np.concatenate([t.vertices_mm for t in scene.tiles])
    x0, y0 = pts.min(axis=0) - margin_mm
    x1, y1 = pts.max(axis=0) + margin_mm
    w = int(np.ceil((x1 - x0) / mm_per_px))
    h = int(np.ceil((y1 - y0) / mm_per_px))
    canvas = np.zeros((h, w, 4), np.uint8)
    origin = np.array([x0, y0])

    def to_px(p):
        return (np.asarray(p, np.float64).reshape(-1, 2) - origin) / mm_per_px

    for t in scene.tiles:
        draw_tile(canvas, t, to_px, scene.style, 1.0 / mm_per_px)
    return Layer(rgba=canvas.astype(np.float32) / 255.0, origin_mm=(float(x0), float(y0)), mm_per_px=mm_per_px,
                 z_mm=scene.style.thickness_mm, material="matte", casts_shadow=True, name="cmyk_mosaic")
