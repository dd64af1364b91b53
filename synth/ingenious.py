"""Synthetic Ingenious tables: a game played to move k, then one placement, photographed before and after.

The board (2 mm printed cardboard: cells by ring, cell lines, the six printed symbols, dark blue rim)
lies rotated anywhere near the centre of the 640 x 560 mm marker layout (components, ``ingenious``);
each tile is two joined 29 mm hexagons, 4 mm thick: its top face (off-white, one symbol per half) is a
layer at z = 6 mm over a side layer at z = 4 mm, so a tilted camera sees the top faces off their cells.
Both photos share the camera and light (a phone on a stand); only the sensor noise differs.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from components import load_components
from geometry.hexgrid import DIRECTIONS, SQRT3, HexBoardPose, add, cells_within, centres_board_mm, ring
from scoring.ingenious import COLOURS, START_CELLS, Board, Hex, free_pairs, radius_for
from scoring.ingenious_game import IngeniousGame, symbols_touched
from synth.layers import Layer

NAMES = ("Aki", "Ben", "Chika", "Dan")


@dataclass(frozen=True)
class IngeniousSceneConfig:
    """Tunables of the random scene.

    Attributes
    ----------
    moves : (int, int)
        Placements before the move under test.
    invalid_prob : float
        Chance that the pair is not one clean placement (two tiles, or a moved tile).
    centre_jitter_mm : (float, float)
        Board centre offset from the layout's board centre, +- x, +- y.
    tile_jitter_mm, tile_jitter_deg : float
        Hand placement play of each tile.
    tilt_deg : (float, float)
        Camera tilt range.
    """

    moves: tuple[int, int] = (4, 30)
    invalid_prob: float = 0.15
    centre_jitter_mm: tuple[float, float] = (35.0, 30.0)
    tile_jitter_mm: float = 0.6
    tile_jitter_deg: float = 1.2
    tilt_deg: tuple[float, float] = (0.0, 35.0)


@dataclass(frozen=True)
class TextureConfig:
    """Texture resolution and sizes.

    Attributes
    ----------
    mm_per_px : float
    tile_flat_mm : float
        One tile hexagon across flats.
    board_top_mm, tile_top_mm, tile_side_mm : float
        Layer heights.
    """

    mm_per_px: float = 0.4
    tile_flat_mm: float = 29.0
    board_top_mm: float = 2.0
    tile_top_mm: float = 6.0
    tile_side_mm: float = 4.0


def _rgb(v) -> tuple[float, float, float]:
    return tuple(float(x) / 255.0 for x in v)


def _poly(img, pts_px, colour):
    cv2.fillPoly(img, [np.round(np.asarray(pts_px) * 16).astype(np.int32)], colour, lineType=cv2.LINE_AA, shift=4)


def draw_symbol(img: np.ndarray, colour: str, centre_px, px_per_mm: float, angle_deg: float, rgb, bg) -> None:
    """One 20 mm symbol (components: disc, sun, six-pointed star, hexagon, ring, six-petal flower)."""
    cx, cy = float(centre_px[0]), float(centre_px[1])
    R = 10.0 * px_per_mm
    a0 = np.deg2rad(angle_deg)

    def circle(r, n=48, start=0.0):
        t = start + a0 + 2 * np.pi * np.arange(n) / n
        return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)

    if colour == "red":
        _poly(img, circle(R), rgb)
    elif colour == "orange":
        _poly(img, circle(5.0 * px_per_mm), rgb)
        for k in range(12):
            a = a0 + np.deg2rad(15 + 30 * k)
            ca, sa = np.cos(a), np.sin(a)
            r0, r1, w0, w1 = 6.0 * px_per_mm, R, 1.25 * px_per_mm, 0.45 * px_per_mm
            quad = [(cx + ca * r0 - sa * w0, cy + sa * r0 + ca * w0), (cx + ca * r1 - sa * w1, cy + sa * r1 + ca * w1),
                    (cx + ca * r1 + sa * w1, cy + sa * r1 - ca * w1), (cx + ca * r0 + sa * w0, cy + sa * r0 - ca * w0)]
            _poly(img, quad, rgb)
    elif colour == "yellow":
        k = np.arange(12)
        r = np.where(k % 2 == 0, R, R / SQRT3)
        t = a0 + np.deg2rad(-90 + 30 * k)
        _poly(img, np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1), rgb)
    elif colour == "green":
        _poly(img, circle(0.95 * R, 6), rgb)
    elif colour == "blue":
        _poly(img, circle(R), rgb)
        _poly(img, circle(5.5 * px_per_mm), bg)
    elif colour == "purple":
        for k in range(6):
            a = a0 + np.deg2rad(-90 + 60 * k)
            ex, ey = cx + 5.4 * px_per_mm * np.cos(a), cy + 5.4 * px_per_mm * np.sin(a)
            t = 2 * np.pi * np.arange(32) / 32
            x, y = 4.6 * px_per_mm * np.cos(t), 3.1 * px_per_mm * np.sin(t)
            _poly(img, np.stack([ex + np.cos(a) * x - np.sin(a) * y, ey + np.sin(a) * x + np.cos(a) * y], axis=1), rgb)
        _poly(img, circle(3.2 * px_per_mm, 36), rgb)
    else:
        raise ValueError(f"unknown colour {colour!r}")


def _hexagon(centre, r, start_deg=30.0):
    t = np.deg2rad(start_deg + 60.0 * np.arange(6))
    return np.stack([centre[0] + r * np.cos(t), centre[1] + r * np.sin(t)], axis=1)


def board_layer(pose: HexBoardPose, rng: np.random.Generator, config: TextureConfig = TextureConfig()) -> Layer:
    """The printed board (radius 7 + rim) as a layer at the board's top face."""
    comp = load_components()["ingenious"]
    b = comp["board"]
    pitch = float(b["pitch_mm"])
    cell_r = pitch / SQRT3
    apothem = 7 * pitch * SQRT3 / 2 + cell_r + float(b["rim_mm"])
    R = apothem / np.cos(np.deg2rad(30))
    s = config.mm_per_px
    half = R + 2.0
    origin = np.asarray(pose.centre_mm) - half
    n = int(np.ceil(2 * half / s))
    img = np.zeros((n, n, 3), np.float32)

    def to_px(xy_board):
        return (pose.to_table(xy_board) - origin) / s - 0.5

    outline_b = np.array([[R * np.cos(np.deg2rad(60 * k)), R * np.sin(np.deg2rad(60 * k))] for k in range(6)])
    _poly(img, to_px(outline_b), _rgb(b["rim_rgb"]))
    ring_rgb = {}
    for key, v in b["cell_rgb_by_ring"].items():
        lo, hi = (int(x) for x in key.split("-")) if "-" in key else (int(key), int(key))
        for r in range(lo, hi + 1):
            ring_rgb[r] = _rgb(v)
    half_line = float(b["cell_line_mm"]) / 2
    inner_r = (pitch / 2 - half_line) / np.cos(np.deg2rad(30))
    line = _rgb(b["cell_line_rgb"])
    tile_cols = comp["tile"]["colours"]
    for cell in cells_within(7):
        c = centres_board_mm([cell], pitch)[0]
        _poly(img, to_px(_hexagon(c, cell_r + half_line)), line)
        face = ring_rgb[ring(cell)]
        _poly(img, to_px(_hexagon(c, inner_r)), face)
        if cell in START_CELLS:
            col = START_CELLS[cell]
            draw_symbol(img, col, to_px(c[None])[0], 1.0 / s, pose.rotation_deg, _rgb(tile_cols[col]["rgb"]), face)
    grain = 1.0 + 0.02 * cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), 2.0)
    rgba = np.zeros((n, n, 4), np.float32)
    rgba[..., :3] = np.clip(img * grain[..., None], 0, 1)
    alpha = np.zeros((n, n), np.float32)
    _poly(alpha, to_px(outline_b), 1.0)
    rgba[..., 3] = alpha
    return Layer(rgba=rgba, origin_mm=(float(origin[0]), float(origin[1])), mm_per_px=s, z_mm=config.board_top_mm,
                 material="matte", casts_shadow=False, name="ingenious_board")


def tile_layers(pose: HexBoardPose, tiles: list[dict], config: TextureConfig = TextureConfig()) -> list[Layer]:
    """All tiles as two layers: their sides (z = 4) and their top faces with symbols (z = 6)."""
    comp = load_components()["ingenious"]
    face = _rgb(comp["tile"]["face_rgb"])
    side = _rgb(comp["tile"]["side_rgb"])
    cols = comp["tile"]["colours"]
    pitch = pose.pitch_mm
    s = config.mm_per_px
    half = 7 * pitch + pitch
    origin = np.asarray(pose.centre_mm) - half
    n = int(np.ceil(2 * half / s))
    top = np.zeros((n, n, 4), np.float32)
    sides = np.zeros((n, n, 4), np.float32)
    tile_r = config.tile_flat_mm / SQRT3
    for t in tiles:
        a, b = (tuple(c) for c in t["cells"])
        pa, pb = pose.cell_centres_mm([a, b])
        mid = (pa + pb) / 2
        dx, dy, da = t.get("jitter", (0.0, 0.0, 0.0))
        ang = np.deg2rad(da)
        rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        cen = [(p - mid) @ rot.T + mid + np.array([dx, dy]) for p in (pa, pb)]
        axis_deg = float(np.degrees(np.arctan2(pb[1] - pa[1], pb[0] - pa[0]))) + da
        hexes = [_hexagon(c, tile_r, 30.0 + axis_deg) for c in cen]
        # the bridge between the two hexagons (one piece)
        u = (cen[1] - cen[0]) / np.linalg.norm(cen[1] - cen[0])
        v = np.array([-u[1], u[0]])
        w = tile_r * 0.5
        bridge = np.array([cen[0] + v * w, cen[1] + v * w, cen[1] - v * w, cen[0] - v * w])
        for shape in (*hexes, bridge):
            px = (shape - origin) / s - 0.5
            _poly(top, px, (*face, 1.0))
            _poly(sides, px, (*side, 1.0))
        for c, colour in zip(cen, t["colours"], strict=True):
            px = (c - origin) / s - 0.5
            draw_symbol(top, colour, px, 1.0 / s, axis_deg, (*_rgb(cols[colour]["rgb"]), 1.0), (*face, 1.0))
    o = (float(origin[0]), float(origin[1]))
    return [
        Layer(rgba=sides, origin_mm=o, mm_per_px=s, z_mm=config.tile_side_mm, material="matte", casts_shadow=False,
              name="ingenious_tile_sides"),
        Layer(rgba=top, origin_mm=o, mm_per_px=s, z_mm=config.tile_top_mm, material="matte", casts_shadow=True,
              name="ingenious_tiles"),
    ]


def _tile_bag(rng: np.random.Generator) -> list[tuple[str, str]]:
    bag = []
    for i, a in enumerate(COLOURS):
        for b in COLOURS[i:]:
            bag += [(a, b)] * (5 if a == b else 6)
    return [bag[i] for i in rng.permutation(len(bag))]


def _legal_pairs(game: IngeniousGame) -> list:
    pairs = free_pairs(game.board, game.radius)
    if game.in_first_round:
        taken = game.first_taken
        pairs = [p for p in pairs if symbols_touched(p) and not (symbols_touched(p) & taken)]
    return pairs


def _play(rng: np.random.Generator, game: IngeniousGame, bag: list, moves: int) -> tuple[IngeniousGame, list[dict]]:
    """Random legal placements (next to tiles already down, mostly)."""
    tiles: list[dict] = []
    for _ in range(moves):
        pairs = _legal_pairs(game)
        if not pairs or not bag:
            break
        occupied = set(game.board.cells()) | set(START_CELLS)
        near = [p for p in pairs if any(add(c, d) in occupied for c in p for d in DIRECTIONS)]
        pool = near if near and rng.random() < 0.85 else pairs
        a, b = pool[int(rng.integers(len(pool)))]
        ca, cb = bag.pop()
        game, res = game.play((Hex(a, ca), Hex(b, cb)))
        if not res.scored:
            continue
        tiles.append({"cells": [list(a), list(b)], "colours": [ca, cb], "player": res.player})
    return game, tiles


def sample_scene(rng: np.random.Generator, config: IngeniousSceneConfig = IngeniousSceneConfig()) -> dict:
    """A random game position, one move under test, and the board's pose (JSON-able)."""
    kind = int(rng.integers(4))
    team = kind == 3
    n = 4 if team else int(rng.integers(2, 5))
    players = list(NAMES[:n])
    game = IngeniousGame.new(players, team)
    bag = _tile_bag(rng)
    k = int(rng.integers(config.moves[0], config.moves[1] + 1))
    game, tiles = _play(rng, game, bag, k)
    scores_before = game.player_scores()
    mover = game.mover
    first_round = game.in_first_round
    invalid = None
    moved_index = None
    move_tiles: list[dict] = []
    g2, extra = _play(rng, game, bag, 1)
    move_tiles += extra
    if rng.random() < config.invalid_prob and move_tiles:
        if rng.random() < 0.5:
            _, more = _play(rng, g2, bag, 1)
            move_tiles += more
            invalid = "two_tiles"
        elif tiles:
            # an earlier tile slid to another place between the photos (its hexes gone, two new ones)
            moved = int(rng.integers(len(tiles)))
            t = tiles[moved]
            taken = {**game.board.cells(), **{tuple(c): "red" for m in move_tiles for c in m["cells"]}}
            free = free_pairs(Board.of(taken), radius_for(n, team))
            if free:
                a, b = free[int(rng.integers(len(free)))]
                move_tiles.append({"cells": [list(a), list(b)], "colours": t["colours"], "player": t["player"]})
                invalid = "moved_tile"
                moved_index = moved
    cx, cy = load_components()["ingenious"]["calibration"]["board_centre_mm"]
    jx, jy = config.centre_jitter_mm
    pose = HexBoardPose((float(cx + rng.uniform(-jx, jx)), float(cy + rng.uniform(-jy, jy))),
                        float(rng.uniform(0, 360)), float(load_components()["ingenious"]["board"]["pitch_mm"]))
    for t in tiles + move_tiles:
        t["jitter"] = [float(rng.uniform(-config.tile_jitter_mm, config.tile_jitter_mm)),
                       float(rng.uniform(-config.tile_jitter_mm, config.tile_jitter_mm)),
                       float(rng.uniform(-config.tile_jitter_deg, config.tile_jitter_deg))]
    return {
        "game": "ingenious",
        "players": players,
        "team": team,
        "radius": radius_for(n, team),
        "mover": mover,
        "first_round": first_round,
        "scores_before": scores_before,
        "board": pose.to_json(),
        "tiles": tiles,
        "move_tiles": move_tiles,
        "moved_tile": moved_index,
        "invalid": invalid,
    }


def board_of(tiles: list[dict]) -> Board:
    return Board.of({tuple(c): col for t in tiles for c, col in zip(t["cells"], t["colours"], strict=True)})


def after_tiles(scene: dict) -> list[dict]:
    """The tiles on the after photo: the earlier ones (less a moved one) and the move's."""
    moved = scene.get("moved_tile")
    return [t for i, t in enumerate(scene["tiles"]) if i != moved] + scene["move_tiles"]


@dataclass(frozen=True)
class RenderedPair:
    """Two photos of one placement and the truth (photoreal truth-file shape)."""

    before_rgb: np.ndarray
    after_rgb: np.ndarray
    truth: dict
    after_photo: object = None


def expected_judgement(scene: dict) -> dict:
    """The judgement the scene calls for (``flagged`` when the pair is not one clean placement)."""
    from scoring.ingenious_judge import IngeniousContext, IngeniousState, adjudicate

    ctx = IngeniousContext.from_json(context_of(scene))
    state = IngeniousState(after=board_of(after_tiles(scene)), before=board_of(scene["tiles"]))
    out = adjudicate(state, ctx)
    out["flagged"] = scene["invalid"] is not None
    return out


def context_of(scene: dict) -> dict:
    return {"players": scene["players"], "mover": scene["mover"], "scores_before": scene["scores_before"],
            "team": scene["team"], "first_round": scene["first_round"]}


def render_pair(seed: int, hard: bool = False, config: IngeniousSceneConfig = IngeniousSceneConfig()) -> RenderedPair:
    """Seeded scene -> before and after photos and their truth."""
    from synth.photo import render_photo, sample_conditions
    from vision.ingenious import marker_layout

    rng = np.random.default_rng(seed)
    scene = sample_scene(rng, config)
    scene["seed"] = int(seed)
    pose = HexBoardPose.from_json(scene["board"])
    layout = marker_layout()
    board = board_layer(pose, rng)
    cond = sample_conditions(rng, look_at_mm=tuple(pose.centre_mm), hard=hard, tilt_deg=config.tilt_deg,
                             marker_layout=layout)
    before = render_photo([board, *tile_layers(pose, scene["tiles"])], cond, np.random.default_rng(seed + 1),
                          marker_layout=layout)
    after = render_photo([board, *tile_layers(pose, after_tiles(scene))], cond,
                         np.random.default_rng(seed + 2), marker_layout=layout)
    expected = expected_judgement(scene)
    truth = {"name": f"ingenious_synth_{seed}", "game": "ingenious",
             "category": "invalid" if scene["invalid"] else "all", "scene": scene, "context": context_of(scene),
             "expected": expected, "render": {"renderer": "synth.photo", "hard": hard, "tilt_deg":
                                              float(cond.to_json().get("tilt_deg", 0.0) or 0.0)}}
    return RenderedPair(before.image_rgb, after.image_rgb, truth, after)


def render_rack(seed: int, n_tiles: int = 6) -> tuple[np.ndarray, list[tuple[str, str]], object]:
    """A photo of a rack: ``n_tiles`` tiles lying loose on the table inside the markers (no board).

    Returns the photo (RGB uint8), the tiles (colour pairs, truth) and the renderer's photo.
    """
    from synth.photo import render_photo, sample_conditions
    from vision.ingenious import marker_layout

    rng = np.random.default_rng(seed)
    bag = _tile_bag(rng)
    rack = [bag.pop() for _ in range(n_tiles)]
    pose = HexBoardPose((320.0 + float(rng.uniform(-20, 20)), 280.0 + float(rng.uniform(-20, 20))),
                        float(rng.uniform(0, 360)), 31.0)
    slots = [((3 * k - 4, -2), (3 * k - 3, -2)) for k in range(3)]
    slots += [((3 * k - 5, 2), (3 * k - 4, 2)) for k in range(3)]
    tiles = []
    for (a, b), cols in zip(slots, rack, strict=False):
        tiles.append({"cells": [list(a), list(b)], "colours": list(cols),
                      "jitter": [float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)), float(rng.uniform(-20, 20))]})
    layout = marker_layout()
    cond = sample_conditions(rng, look_at_mm=tuple(pose.centre_mm), tilt_deg=(0.0, 30.0), marker_layout=layout)
    layers = tile_layers(pose, tiles, TextureConfig(tile_top_mm=4.0, tile_side_mm=2.0))
    photo = render_photo(layers, cond, np.random.default_rng(seed + 1), marker_layout=layout)
    return photo.image_rgb, [tuple(t["colours"]) for t in tiles], photo


@dataclass(frozen=True)
class RenderedGame:
    """Photos of a game from its start, one after each placement, from one camera.

    Attributes
    ----------
    photos : tuple of ndarray, shape (H, W, 3), uint8
        The empty board, then the board after each placement (``len(moves) + 1`` photos).
    moves : tuple of dict
        Each placement: ``cells``, ``colours``, ``player``, ``move_points`` (colour -> points).
    players : tuple of str
    scores : dict player -> dict colour -> int
        Every player's colour scores after the last placement.
    """

    photos: tuple[np.ndarray, ...]
    moves: tuple[dict, ...]
    players: tuple[str, ...]
    scores: dict


def _scoring_move(rng: np.random.Generator, game: IngeniousGame, bag: list) -> tuple[IngeniousGame, dict] | None:
    """The next tile from the bag placed where it scores (any legal place when none scores)."""
    pairs = _legal_pairs(game)
    if not pairs or not bag:
        return None
    ca, cb = bag.pop()
    options = []
    for a, b in pairs:
        for x, y in ((ca, cb), (cb, ca)):
            g2, res = game.play((Hex(a, x), Hex(b, y)))
            if res.scored:
                options.append((sum(res.points.raw.values()) if res.points else 0, a, b, x, y, g2, res.player))
    if not options:
        return None
    scoring = [o for o in options if o[0] > 0] or options
    _, a, b, x, y, g2, player = scoring[int(rng.integers(len(scoring)))]
    return g2, {"cells": [list(a), list(b)], "colours": [x, y], "player": player, "jitter": [0.0, 0.0, 0.0]}


def render_game(seed: int, players: tuple[str, ...] = ("Aki", "Ben"), moves: int = 2,
                tilt_deg: tuple[float, float] = (0.0, 25.0)) -> RenderedGame:
    """A seeded game from its first placement: legal placements that score where the tile drawn can
    (the first-round rule kept), photographed after each, for page tests that play moves from photos."""
    from synth.photo import render_photo, sample_conditions
    from vision.ingenious import marker_layout

    rng = np.random.default_rng(seed)
    game = IngeniousGame.new(list(players))
    bag = _tile_bag(rng)
    cx, cy = load_components()["ingenious"]["calibration"]["board_centre_mm"]
    pose = HexBoardPose((float(cx + rng.uniform(-20, 20)), float(cy + rng.uniform(-20, 20))),
                        float(rng.uniform(0, 360)), float(load_components()["ingenious"]["board"]["pitch_mm"]))
    layout = marker_layout()
    board = board_layer(pose, rng)
    cond = sample_conditions(rng, look_at_mm=tuple(pose.centre_mm), tilt_deg=tilt_deg, marker_layout=layout)
    tiles: list[dict] = []
    played: list[dict] = []
    photos = [render_photo([board], cond, np.random.default_rng(seed + 1), marker_layout=layout).image_rgb]
    for k in range(moves):
        before = game.player_scores()
        got = _scoring_move(rng, game, bag)
        if got is None:
            raise ValueError(f"seed {seed}: no legal placement at move {k + 1}")
        game, t = got
        tiles.append(t)
        was, now = before[t["player"]], game.player_scores()[t["player"]]
        played.append({**t, "move_points": {c: now[c] - was[c] for c in COLOURS if now[c] != was[c]}})
        photos.append(render_photo([board, *tile_layers(pose, tiles)], cond, np.random.default_rng(seed + 2 + k),
                                   marker_layout=layout).image_rgb)
    return RenderedGame(tuple(photos), tuple(played), tuple(players), game.player_scores())
