"""Genial Spezial scenes for tests: a game played to move k, photographed before and after the next placement.

The board (a double hexagon of 247 pointy-top cells, components ``genial_spezial``) lies anywhere near the
middle of the 700 x 560 mm marker rectangle at any rotation; tiles are 4 mm thick player-coloured double
hexes; towers are light-grey hexagonal prisms (28 or 45 mm) drawn as stacks of slices, each with a round token
on top, drawn as the photoreal kit prints it (light face with the symbol around a face-coloured centre and a
black numeral there, or dark face with a white numeral; the numeral's outline from the components). The truth comes
from the product's rules (the photoreal kit gives independent truth).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.markers import MarkerLayout
from components import load_components
from scoring.genial import SYMBOLS, GameSetup, Placement, Tower
from scoring.genial_board import Cell, GenialBoard, neighbours
from synth.conditions import sample_conditions
from synth.layers import Layer
from synth.photo import render_photo
from vision.genial_numeral import numeral_outlines

SQRT3 = float(np.sqrt(3.0))


@dataclass(frozen=True)
class GenialSceneConfig:
    """How scenes are drawn at random.

    Attributes
    ----------
    moves_before : (int, int)
        Earlier placements (inclusive range).
    centre_jitter_mm : float
        Board centre offset from the middle of the marker rectangle.
    """

    moves_before: tuple[int, int] = (4, 40)
    centre_jitter_mm: float = 12.0


@dataclass(frozen=True)
class GenialLayerConfig:
    """Drawing resolution and piece heights (mm)."""

    mm_per_px: float = 0.4
    board_top_mm: float = 2.0
    tile_thickness_mm: float = 4.0
    tower_across_flats_mm: float = 20.0
    token_diameter_mm: float = 18.0
    token_thickness_mm: float = 2.0
    slice_step_mm: float = 3.0
    tile_inset_mm: float = 1.0
    tower_rgb: tuple[int, int, int] = (196, 198, 204)
    token_light_rgb: tuple[int, int, int] = (240, 236, 222)
    token_dark_rgb: tuple[int, int, int] = (30, 30, 32)


def board_to_table(qr: np.ndarray, centre_mm: np.ndarray, rotation_deg: float, pitch_mm: float) -> np.ndarray:
    """Axial cells -> table mm. ``qr`` shape (N, 2) -> (N, 2)."""
    qr = np.asarray(qr, np.float64).reshape(-1, 2)
    local = pitch_mm * np.column_stack([qr[:, 0] + qr[:, 1] / 2.0, qr[:, 1] * SQRT3 / 2.0])
    a = np.radians(rotation_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return local @ rot.T + centre_mm


def hexagon_mm(centre: np.ndarray, across_flats_mm: float, rotation_deg: float) -> np.ndarray:
    """A pointy-top hexagon (in the board frame) turned with the board. Shape (6, 2)."""
    r = across_flats_mm / SQRT3
    ang = np.radians(30.0 + 60.0 * np.arange(6) + rotation_deg)
    return centre + r * np.column_stack([np.cos(ang), np.sin(ang)])


def sample_game(rng: np.random.Generator, board: GenialBoard, config: GenialSceneConfig = GenialSceneConfig()) -> dict:
    """A random game to move k and the mover's next placement, as a JSON-able scene."""
    n = int(rng.integers(2, 5))
    names = ["Aki", "Ben", "Cho", "Dee"][:n]
    colours = dict(zip(names, ["red", "blue", "yellow", "black"], strict=False))
    layout = board.tower_layout(n)
    tokens = [(s, v) for s in SYMBOLS for v in (1, 1, 1, 2, 2, 2)]
    picks = rng.permutation(len(tokens))[: len(layout)]
    towers = tuple(Tower(c, layout[c], tokens[i][0], tokens[i][1]) for c, i in zip(sorted(layout), picks, strict=True))
    setup = GameSetup(colours, towers)
    game = setup.replay(board, [])
    free = [c for c in board.cells() if c not in board.space_cells()]
    k = int(rng.integers(config.moves_before[0], config.moves_before[1] + 1))
    moves: list[Placement] = []
    for turn in range(k + 1):
        player = names[turn % n]
        cells = _random_tile(rng, free, game.owner, player)
        move = Placement(player, cells, str(rng.choice(SYMBOLS)) if set(cells) & board.bonus_cells else None)
        if turn < k:
            game.play(move)
            free = [c for c in free if c not in cells]
        moves.append(move)
    centre = np.array([350.0, 280.0]) + rng.uniform(-1, 1, 2) * config.centre_jitter_mm
    return {
        "game": "genial", "players": colours, "mover": moves[-1].player,
        "towers": [{"qr": list(t.qr), "size": t.size, "symbol": t.symbol, "light": t.light_value} for t in towers],
        "moves_before": [m.to_json() for m in moves[:-1]], "move": moves[-1].to_json(),
        "board": {"centre_mm": centre.tolist(), "rotation_deg": float(rng.uniform(0, 360))},
    }


def _random_tile(rng: np.random.Generator, free: list[Cell], owner: dict, player: str) -> tuple[Cell, Cell]:
    """Two free neighbouring cells, next to the player's own tiles half of the time."""
    free_set = set(free)
    own = [c for c, p in owner.items() if p == player]
    if own and rng.random() < 0.6:
        starts = [n for c in own for n in neighbours(c) if n in free_set]
    else:
        starts = list(free)
    for _ in range(200):
        a = starts[int(rng.integers(len(starts)))] if starts else free[int(rng.integers(len(free)))]
        options = [b for b in neighbours(a) if b in free_set]
        if options:
            return a, options[int(rng.integers(len(options)))]
        starts = list(free)
    raise ValueError("no two free neighbouring cells left")


class _Canvas:
    """A texture over a table rectangle (mm) to draw polygons into."""

    def __init__(self, x0: float, y0: float, x1: float, y1: float, mpp: float):
        self.origin = np.array([x0, y0])
        self.mpp = mpp
        self.w, self.h = int(np.ceil((x1 - x0) / mpp)), int(np.ceil((y1 - y0) / mpp))
        self.rgba = np.zeros((self.h, self.w, 4), np.float32)

    def px(self, pts_mm: np.ndarray) -> np.ndarray:
        return (np.asarray(pts_mm) - self.origin) / self.mpp - 0.5

    def fill(self, pts_mm: np.ndarray, rgb, alpha: float = 1.0, ss: int = 4) -> None:
        """Paint a polygon (anti-aliased, ``ss`` x supersampled) inside its bounding box only."""
        pts = self.px(pts_mm)
        x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int) - 1, 0)
        x1, y1 = np.minimum(np.ceil(pts.max(axis=0)).astype(int) + 2, (self.w, self.h))
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros(((y1 - y0) * ss, (x1 - x0) * ss), np.uint8)
        cv2.fillPoly(mask, [np.round((pts - (x0, y0) + 0.5) * ss - 0.5).astype(np.int32)], 255)
        cover = cv2.resize(mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
        roi = self.rgba[y0:y1, x0:x1]
        col = np.asarray(rgb, np.float32).reshape(1, 1, 3) / 255.0
        roi[..., :3] = roi[..., :3] * (1 - cover) + col * cover
        roi[..., 3:] = np.maximum(roi[..., 3:], cover * alpha)

    def layer(self, z_mm: float, name: str, shadow: bool = True) -> Layer:
        return Layer(np.clip(self.rgba, 0, 1), (float(self.origin[0]), float(self.origin[1])), self.mpp, z_mm,
                     "matte", shadow, name)


def board_layer(scene: dict, board: GenialBoard, comp: dict, config: GenialLayerConfig) -> Layer:
    """The printed board: rim, cells with their lines, tower spaces, bonus asterisks."""
    spec = comp["genial_spezial"]["board"]
    centre, rot, pitch = np.asarray(scene["board"]["centre_mm"]), scene["board"]["rotation_deg"], board.pitch_mm
    cells = board.cells()
    xy = board_to_table(np.array(cells), centre, rot, pitch)
    reach = 11.0 * pitch + spec["rim_mm"]
    cv = _Canvas(*(centre - reach), *(centre + reach), config.mm_per_px)
    rim = _Canvas(*(centre - reach), *(centre + reach), config.mm_per_px)
    for p in xy:
        rim.fill(hexagon_mm(p, pitch, rot), spec["rim_rgb"])
    k = int(round(2 * spec["rim_mm"] / config.mm_per_px)) | 1
    rim.rgba = cv2.dilate(rim.rgba, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    cv.rgba = rim.rgba.copy()
    spaces = {s.qr: s.colour for s in board.tower_spaces}
    for c, p in zip(cells, xy, strict=True):
        cv.fill(hexagon_mm(p, pitch + 0.2, rot), spec["cell_line_rgb"])
        face = spec["tower_space_rgb"][spaces[c]] if c in spaces else spec["cell_rgb"]
        cv.fill(hexagon_mm(p, pitch - spec["cell_line_mm"], rot), face)
        if c in board.bonus_cells:
            for a in range(4):
                ang = np.radians(rot + 45.0 * a)
                d = np.array([np.cos(ang), np.sin(ang)]) * 7.0
                n = np.array([-d[1], d[0]]) / 7.0 * 0.9
                cv.fill(np.array([p - d - n, p + d - n, p + d + n, p - d + n]), (70, 60, 50))
    return cv.layer(config.board_top_mm, "genial_board")


def tile_layers(scene: dict, cells_by_player: dict[str, list[tuple[Cell, Cell]]], board: GenialBoard, comp: dict,
                config: GenialLayerConfig) -> list[Layer]:
    """Every tile as a 4 mm slab (a side slice and the top face)."""
    spec = comp["genial_spezial"]["tile"]["player_colours"]
    centre, rot, pitch = np.asarray(scene["board"]["centre_mm"]), scene["board"]["rotation_deg"], board.pitch_mm
    reach = 11.5 * pitch
    top = _Canvas(*(centre - reach), *(centre + reach), config.mm_per_px)
    side = _Canvas(*(centre - reach), *(centre + reach), config.mm_per_px)
    for player, tiles in cells_by_player.items():
        rgb = np.asarray(spec[scene["players"][player]], np.float32)
        for tile in tiles:
            xy = board_to_table(np.array(tile), centre, rot, pitch)
            outline = np.concatenate([hexagon_mm(p, pitch - config.tile_inset_mm, rot) for p in xy])
            hull = cv2.convexHull(outline.astype(np.float32)).reshape(-1, 2)
            side.fill(hull, rgb * 0.7)
            top.fill(hull, rgb * 0.85)
            for p in xy:
                top.fill(hexagon_mm(p, pitch - config.tile_inset_mm - 3.0, rot), rgb)
    z0 = config.board_top_mm
    return [side.layer(z0 + config.tile_thickness_mm / 2, "genial_tile_sides"),
            top.layer(z0 + config.tile_thickness_mm, "genial_tiles")]


def _symbol(cv: _Canvas, p: np.ndarray, shape: str, rgb, rot: float) -> float:
    """A token's symbol centred on ``p``, turned by ``rot`` degrees, in the photoreal kit's geometry (mm): a sun
    (disc 5.7 and twelve rays to 8.3), a ring (disc 7.8), a hexagon (corners at 8.2) or a six-petal flower (petals
    at 5.7 around a disc of 3.9). Returns the radius of the face-coloured disc left inside it for the numeral."""
    def at(r: float, deg: float) -> np.ndarray:
        a = np.radians(deg + rot)
        return p + r * np.array([np.cos(a), np.sin(a)])

    if shape == "sun":
        for k in range(12):
            cv.fill(np.array([at(8.3, 30 * k), at(5.3, 30 * k - 9), at(5.3, 30 * k + 9)]), rgb)
        cv.fill(_circle(p, 5.7), rgb)
        return 4.3
    if shape == "ring":
        cv.fill(_circle(p, 7.8, 64), rgb)
        return 4.6
    if shape == "hexagon":
        cv.fill(np.array([at(8.2, 30 + 60 * k) for k in range(6)]), rgb)
        return 4.9
    for k in range(6):
        a = np.radians(60 * k + 90 + rot)
        u = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        er, et = 2.55 * np.cos(u), 2.05 * np.sin(u)
        centre = p + 5.7 * np.array([np.cos(a), np.sin(a)])
        cv.fill(centre + np.column_stack([er * np.cos(a) - et * np.sin(a), er * np.sin(a) + et * np.cos(a)]), rgb)
    cv.fill(_circle(p, 3.9), rgb)
    return 3.9


def _circle(p: np.ndarray, r: float, n: int = 32) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return p + r * np.column_stack([np.cos(a), np.sin(a)])


def token_turn(qr: Cell, board_rotation_deg: float) -> float:
    """How a token lies on its tower (degrees): any turn, fixed per tower so that both photos of a pair agree."""
    return float((board_rotation_deg + 47.0 * qr[0] + 89.0 * qr[1] + 13.0) % 360.0)


def tower_layers(scene: dict, towers: list[Tower], board: GenialBoard, comp: dict,
                 config: GenialLayerConfig) -> list[Layer]:
    """Every tower as slices of a grey hexagonal prism, and its token on top."""
    spec = comp["genial_spezial"]
    symbols_rgb = {k: tuple(v["rgb"]) for k, v in spec["token"]["symbols"].items()}
    centre, rot, pitch = np.asarray(scene["board"]["centre_mm"]), scene["board"]["rotation_deg"], board.pitch_mm
    heights = {"large": float(spec["tower"]["large_height_mm"]), "small": float(spec["tower"]["small_height_mm"])}
    out = []
    for t in towers:
        p = board_to_table(np.array([t.qr]), centre, rot, pitch)[0]
        h = heights[t.size]
        x0, y0 = p - 13.0
        body = _Canvas(x0, y0, x0 + 26, y0 + 26, config.mm_per_px / 2)
        body.fill(hexagon_mm(p, config.tower_across_flats_mm, rot), np.asarray(config.tower_rgb) * 0.8)
        n = max(2, int(np.ceil(h / config.slice_step_mm)))
        slab = body.layer(config.board_top_mm, "genial_tower")   # one texture shared by every slice
        for k, z in enumerate(np.linspace(config.board_top_mm + h / n, config.board_top_mm + h, n)):
            out.append(replace(slab, z_mm=float(z), casts_shadow=k in (0, n - 1)))
        face = _Canvas(x0, y0, x0 + 26, y0 + 26, config.mm_per_px / 2)
        face_rgb = config.token_dark_rgb if t.dark else config.token_light_rgb
        face.fill(_circle(p, config.token_diameter_mm / 2, 64), face_rgb)
        turn = token_turn(t.qr, rot)
        inner = _symbol(face, p, spec["token"]["symbols"][t.symbol]["shape"], symbols_rgb[t.symbol], turn)
        face.fill(_circle(p, inner, 48), face_rgb)
        _numeral(face, p, str(t.value), turn, (250, 250, 250) if t.dark else (12, 12, 12))
        out.append(face.layer(config.board_top_mm + h + config.token_thickness_mm, "genial_token"))
    return out


def _numeral(cv: _Canvas, p: np.ndarray, digit: str, turn_deg: float, rgb) -> None:
    """The token's value as printed: the digit's outline (DejaVu Sans Bold, 6.6 mm font size, centred on the
    token; ``components/genial_numerals.json``) turned with the token."""
    a = np.radians(turn_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    for poly in numeral_outlines()[digit]:
        cv.fill(p + poly @ rot.T, rgb, ss=8)


def marker_layout(comp: dict) -> MarkerLayout:
    """The 700 x 560 mm marker rectangle of Genial Spezial."""
    cal = comp["genial_spezial"]["calibration"]
    base = MarkerLayout.from_components(comp)
    return MarkerLayout(base.dictionary, base.side_mm,
                        {int(k): (float(v[0]), float(v[1])) for k, v in cal["marker_centres_mm"].items()})


def render_pair(seed: int, hard: bool = False, config: GenialLayerConfig = GenialLayerConfig()):
    """A seeded game photographed before and after the mover's placement (same camera and light).

    Returns
    -------
    images : list of two ndarray, shape (H, W, 3), uint8
    truth : dict
        ``scene`` and ``context`` (DESIGN.md's genial context).
    """
    rng = np.random.default_rng(seed)
    comp = load_components()
    board = GenialBoard.from_components(comp["genial_spezial"])
    scene = sample_game(rng, board)
    setup = GameSetup(scene["players"], tuple(Tower.from_json(t) for t in scene["towers"]))
    before = setup.replay(board, [Placement.from_json(m) for m in scene["moves_before"]])
    after = setup.replay(board, [Placement.from_json(m) for m in scene["moves_before"] + [scene["move"]]])
    layout = marker_layout(comp)
    cond = sample_conditions(rng, look_at_mm=(350.0, 280.0), hard=hard, marker_layout=layout,
                             tilt_deg=(0.0, 35.0))
    images = []
    board_lay = board_layer(scene, board, comp, config)
    for game in (before, after):
        tiles: dict[str, list[tuple[Cell, Cell]]] = {p: [] for p in scene["players"]}
        for move in game.history:
            tiles[move.placement.player].append(move.placement.cells)
        layers = [board_lay] + tile_layers(scene, tiles, board, comp, config)
        layers += tower_layers(scene, list(game.tower_list()), board, comp, config)
        photo = render_photo(layers, cond, np.random.default_rng(seed + 1), marker_layout=layout)
        images.append(photo.image_rgb)
    context = {"players": scene["players"], "mover": scene["mover"], "moves_before": scene["moves_before"]}
    if scene["move"].get("bonus_symbol"):
        context["bonus_symbol"] = scene["move"]["bonus_symbol"]
    scene["render"] = {"renderer": "synth.photo", "hard": hard, "conditions": cond.to_json()}
    return images, {"game": "genial", "scene": scene, "context": context}
