"""Synthetic Kaleido tables: a seeded scene (boards edge to edge, tiles in their holes) as layers.

The scene follows the photoreal truth files' convention (``geometry.hexboards``): each board has a
``centre_mm``, ``rotation_deg`` and six ``cells`` (colour or None). Boards are drawn as cardboard
sheets 2 mm thick (top face at z = 2) with six triangular holes; a tile (2 mm thick, standing on
the table in its hole) has its top face at z = 2 as well; an empty hole shows the table.

``render_scene`` puts the layers under a camera with ``synth.photo`` (the shared renderer) or,
until that lands, with the planar fallback in ``synth.kaleido_fallback``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from components import load_components
from geometry.hexboards import board_cells, hex_axial_to_offset_mm, hole_triangle
from synth.layers import Layer
from synth.photo import render_photo, sample_conditions

HEX_DIRS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
PLAYER_COLOURS = ("red", "yellow", "green", "blue", "purple")
PLAYER_NAMES = ("Aki", "Ben", "Chika", "Dan", "Emi")


@dataclass(frozen=True)
class SceneConfig:
    """Tunables of the random scene.

    Attributes
    ----------
    boards : (int, int)
        Range of the number of boards (inclusive).
    empty_fraction : (float, float)
        Range of the fraction of empty holes.
    white_fraction : float
        Share of white among placed tiles.
    two_player_prob : float
        Chance of the two-player variant (two colours each).
    centre_jitter_mm, rotation_jitter_deg : float
        Small gaps and misalignments of each board.
    tile_jitter_mm, tile_jitter_deg : float
        Play of a tile in its hole.
    look_at_mm : (float, float)
        Where the cluster is centred on the table.
    fit_mm : (float, float, float, float)
        The cluster must lie inside this table rectangle (inside the markers).
    """

    boards: tuple[int, int] = (3, 11)
    empty_fraction: tuple[float, float] = (0.0, 0.3)
    white_fraction: float = 0.12
    two_player_prob: float = 0.2
    centre_jitter_mm: float = 0.6
    rotation_jitter_deg: float = 0.4
    tile_jitter_mm: float = 0.3
    tile_jitter_deg: float = 1.0
    look_at_mm: tuple[float, float] = (280.0, 210.0)
    fit_mm: tuple[float, float, float, float] = (45.0, 45.0, 515.0, 375.0)


@dataclass(frozen=True)
class LayerConfig:
    """Texture tunables.

    Attributes
    ----------
    mm_per_px : float
        Texture resolution.
    hole_inset_mm : float
        Cardboard between a hole and the lattice line (a 4 mm bar between holes).
    tile_edge_mm : float
        Tile side.
    bevel_mm, bevel_shade : float
        Darker rim of a tile's top face (its edge).
    grain : float
        Cardboard texture amplitude.
    z_mm : float
        Height of the boards' and tiles' top faces.
    """

    mm_per_px: float = 0.3
    hole_inset_mm: float = 2.0
    tile_edge_mm: float = 52.0
    bevel_mm: float = 0.6
    bevel_shade: float = 0.85
    grain: float = 0.03
    z_mm: float = 2.0


def _cluster(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    cells = [(0, 0)]
    while len(cells) < n:
        q, r = cells[int(rng.integers(len(cells)))]
        dq, dr = HEX_DIRS[int(rng.integers(6))]
        nb = (q + dq, r + dr)
        if nb not in cells:
            cells.append(nb)
    return cells


def sample_scene(rng: np.random.Generator, config: SceneConfig = SceneConfig(), edge_mm: float = 60.0) -> dict:
    """A random Kaleido table.

    Returns
    -------
    dict
        ``game``, ``edge_mm``, ``players`` {name: [colours]}, ``boards`` [{axial, centre_mm,
        rotation_deg, cells, tile_jitter}], ``cell_convention`` (JSON-able).
    """
    n_players = int(rng.integers(2, 6))
    cols = list(rng.permutation(PLAYER_COLOURS))
    if rng.random() < config.two_player_prob:
        players = {PLAYER_NAMES[0]: cols[:2], PLAYER_NAMES[1]: cols[2:4]}
    else:
        players = {PLAYER_NAMES[i]: [cols[i]] for i in range(n_players)}
    in_play = [c for v in players.values() for c in v]
    for _ in range(50):
        n = int(rng.integers(config.boards[0], config.boards[1] + 1))
        axial = _cluster(rng, n)
        rot = float(rng.uniform(0.0, 360.0))
        offs = np.array([hex_axial_to_offset_mm(q, r, edge_mm, rot) for q, r in axial])
        corners = np.concatenate([board_cells(o, rot, edge_mm).reshape(-1, 2) for o in offs])
        mid = 0.5 * (corners.min(axis=0) + corners.max(axis=0))
        shift = np.asarray(config.look_at_mm) - mid + rng.uniform(-25, 25, 2)
        lo = corners.min(axis=0) + shift
        hi = corners.max(axis=0) + shift
        x0, y0, x1, y1 = config.fit_mm
        if lo[0] >= x0 and lo[1] >= y0 and hi[0] <= x1 and hi[1] <= y1:
            break
    empty = float(rng.uniform(*config.empty_fraction))
    boards = []
    for (q, r), o in zip(axial, offs):
        cells = []
        for _k in range(6):
            if rng.random() < empty:
                cells.append(None)
            elif rng.random() < config.white_fraction:
                cells.append("white")
            else:
                cells.append(str(in_play[int(rng.integers(len(in_play)))]))
        c = o + shift + rng.normal(0, config.centre_jitter_mm, 2)
        boards.append({
            "axial": [int(q), int(r)],
            "centre_mm": [float(c[0]), float(c[1])],
            "rotation_deg": float((rot + rng.normal(0, config.rotation_jitter_deg)) % 360.0),
            "cells": cells,
            "tile_jitter": [[float(rng.normal(0, config.tile_jitter_mm)), float(rng.normal(0, config.tile_jitter_mm)),
                             float(rng.normal(0, config.tile_jitter_deg))] for _ in range(6)],
        })
    return {
        "game": "kaleido",
        "edge_mm": edge_mm,
        "players": {k: [str(c) for c in v] for k, v in players.items()},
        "empty_fraction": empty,
        "boards": boards,
        "cell_convention": "cell k is the triangle (centre, v_k, v_k+1) with v_k = centre + edge*(cos(rot+60k), "
                           "sin(rot+60k)) in table mm (y down)",
    }


def _fill(mask_shape, poly_px: np.ndarray, ss: int = 4) -> np.ndarray:
    """Anti-aliased polygon coverage, float32 in [0, 1]."""
    h, w = mask_shape
    big = np.zeros((h * ss, w * ss), np.uint8)
    cv2.fillPoly(big, [np.round(poly_px * ss).astype(np.int32)], 255, lineType=cv2.LINE_8)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def board_layer(board: dict, rng: np.random.Generator, edge_mm: float, config: LayerConfig = LayerConfig(),
                components: dict | None = None) -> Layer:
    """One board with its tiles as a textured sheet at z = 2 (holes without a tile are transparent)."""
    comp = components or load_components()
    face = np.asarray(comp["kaleido"]["board"]["face_rgb"], np.float32) / 255.0
    tile_rgb = {k: np.asarray(v, np.float32) / 255.0 for k, v in comp["kaleido"]["tile"]["colours"].items()}
    s = config.mm_per_px
    c = np.asarray(board["centre_mm"], np.float64)
    half = edge_mm + 1.0
    origin = c - half
    n = int(np.ceil(2 * half / s))
    to_px = lambda p: (np.asarray(p) - origin) / s - 0.5  # noqa: E731 - texel centres
    cells = board_cells(c, board["rotation_deg"], edge_mm)
    hexagon = np.array([cells[k, 1] for k in range(6)])
    body = _fill((n, n), to_px(hexagon))
    rgba = np.zeros((n, n, 4), np.float32)
    grain = 1.0 + config.grain * cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), 1.5)
    rgba[..., :3] = face[None, None] * grain[..., None]
    alpha = body.copy()
    jit = board.get("tile_jitter") or [[0.0, 0.0, 0.0]] * 6
    for k in range(6):
        hole = hole_triangle(cells[k], config.hole_inset_mm)
        alpha = alpha * (1.0 - _fill((n, n), to_px(hole)))
        colour = board["cells"][k]
        if colour is None:
            continue
        cen = cells[k].mean(axis=0) + np.asarray(jit[k][:2])
        a = np.deg2rad(jit[k][2])
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        scale = config.tile_edge_mm / edge_mm
        tri = cen + ((cells[k] - cells[k].mean(axis=0)) * scale) @ rot.T
        cover = _fill((n, n), to_px(tri))
        inner = _fill((n, n), to_px(hole_triangle(tri, config.bevel_mm)))
        shade = config.bevel_shade + (1.0 - config.bevel_shade) * inner
        col = tile_rgb.get(colour, np.array([0.5, 0.5, 0.5], np.float32))
        rgba[..., :3] = rgba[..., :3] * (1 - cover[..., None]) + (col[None, None] * shade[..., None]) * cover[..., None]
        alpha = np.maximum(alpha, cover)
    rgba[..., 3] = alpha
    return Layer(rgba=np.clip(rgba, 0, 1), origin_mm=(float(origin[0]), float(origin[1])), mm_per_px=s,
                 z_mm=config.z_mm, material="matte", casts_shadow=True, name="board")


def scene_layers(scene: dict, rng: np.random.Generator, config: LayerConfig = LayerConfig()) -> list[Layer]:
    """Every board (with its tiles) as layers."""
    comp = load_components()
    return [board_layer(b, rng, float(scene["edge_mm"]), config, comp) for b in scene["boards"]]


def render_scene(seed: int, hard: bool = False, table: str | None = None, config: SceneConfig = SceneConfig()):
    """Seeded scene -> photo and truth.

    Parameters
    ----------
    seed : int
    hard : bool
        Harder conditions (steeper tilt, lens distortion, dim or tinted light...).
    table : str, optional
        Table kind for the renderer (e.g. ``"white"``: empty holes look like white tiles).

    Returns
    -------
    image_rgb : ndarray, shape (H, W, 3), uint8
    truth : dict
        ``scene``, ``context``, ``expected`` (the judgement per RULES.md).
    photo : the renderer's photo (``project`` gives ground-truth image px)
    """
    rng = np.random.default_rng(seed)
    scene = sample_scene(rng, config)
    scene["seed"] = int(seed)
    return render_given(scene, rng, hard=hard, table=table, look_at_mm=config.look_at_mm)


def render_given(scene: dict, rng: np.random.Generator, hard: bool = False, table: str | None = None,
                 look_at_mm: tuple[float, float] = (280.0, 210.0)):
    """Photograph a given scene (see ``render_scene``; the scene may be edited by hand)."""
    from scoring.kaleido import KaleidoContext, KaleidoState, adjudicate

    layers = scene_layers(scene, rng)
    kwargs = {"look_at_mm": look_at_mm, "hard": hard}
    if table is not None:
        kwargs["table"] = table
    cond = sample_conditions(rng, **kwargs)
    photo = render_photo(layers, cond, rng)
    scene["render"] = {"renderer": "synth.photo", "hard": hard, "table": table}
    context = {"players": scene["players"]}
    players = tuple((k, tuple(v)) for k, v in scene["players"].items())
    expected = adjudicate(KaleidoState.from_json(scene), KaleidoContext(players=players))
    truth = {"game": "kaleido", "scene": scene, "context": context, "expected": expected}
    return photo.image_rgb, truth, photo
