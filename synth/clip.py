"""Rendered video clips for live mode: a hand reaches in, places pieces, leaves; light flicker, sensor noise.

Each distinct moment (key frame: the pieces on the table and where the hand is) is rendered once by the
photo renderer (same camera, light and table throughout); the clip repeats key frames with a flickering
gain (mains-powered lamps beat with the camera's frame rate) and fresh sensor noise per frame, then is
written with ``cv2.VideoWriter`` (Motion-JPEG AVI: every frame JPEG-compressed again) or as Y4M (what
Chromium's fake camera plays).

Scenes per game (``before`` -> ``after``): Kaleido, tiles of one board missing -> placed; CMYK!, the last
tiles of the mosaic missing -> placed (``players`` > 1: a table, each player's whole mosaic shown to the camera in
turn, a hand swapping them); Carrotain, chips alone -> the boards laid over them (the "before"
photo of a challenge, then the challenge); Ingenious and Genial Spezial, the board before the mover's
placement (still: the live judge's baseline) -> the tile placed (``placements`` > 1: further placements, each
with its own hand visit and still table). ``nudged`` (Kaleido): ``after`` with one tile moved.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from synth.hand import HandSpec


@dataclass(frozen=True)
class ClipConfig:
    """Tunables of a rendered clip.

    Attributes
    ----------
    fps : float
        Frame rate written into the video.
    hand_frames : int
        Frames each hand position is held (the hand moves between positions).
    still_frames : int
        Frames of the still table after the hand has left.
    flicker : float
        Amplitude of the lamp's flicker, a fraction of the brightness.
    flicker_period_frames : float
        Period of the flicker's beat with the frame rate, frames.
    noise_dn : float
        Sensor noise added per frame, standard deviation in 8-bit levels.
    hands : int
        Hand positions while placing.
    """

    fps: float = 10.0
    hand_frames: int = 2
    still_frames: int = 14
    flicker: float = 0.03
    flicker_period_frames: float = 7.0
    noise_dn: float = 2.0
    hands: int = 4


@dataclass(frozen=True)
class ClipScene:
    """A game scene in two states, and the camera that films it.

    Attributes
    ----------
    game : str
    layers_before, layers_after : list of Layer
    context : dict
        The game's context JSON.
    conditions : PhotoConditions
    seed : int
    layers_nudged : list of Layer or None
        ``after`` with one piece moved (a different judgement), when the game has one.
    marker_layout : MarkerLayout or None
        The game's own calibration markers (None: the components' common layout).
    starts_still : bool
        The "place" story starts with the ``before`` table still (a "before" photo the live judge keeps).
    layers_more : list of list of Layer
        Pair games: the tables after further placements, in order (each judged against the one before).
    """

    game: str
    layers_before: list
    layers_after: list
    context: dict
    conditions: object
    seed: int
    layers_nudged: list | None = None
    marker_layout: object = None
    starts_still: bool = False
    layers_more: tuple = ()


def _kaleido_scene(seed: int) -> ClipScene:
    from scoring.kaleido import KaleidoContext, KaleidoState, adjudicate
    from synth.kaleido import sample_scene, scene_layers
    from synth.photo import sample_conditions

    rng = np.random.default_rng(seed)
    scene = sample_scene(rng)
    cond = sample_conditions(rng, look_at_mm=(280.0, 210.0))
    players = tuple((k, tuple(v)) for k, v in scene["players"].items())

    def judged(s: dict) -> dict:
        out = adjudicate(KaleidoState.from_json(s), KaleidoContext(players=players))
        return {k: v for k, v in out.items() if k != "explanation"}

    before = copy.deepcopy(scene)
    filled = [(b, k) for b, board in enumerate(before["boards"]) for k, c in enumerate(board["cells"]) if c]
    for b, k in filled[-3:]:
        before["boards"][b]["cells"][k] = None
    nudged = None
    empty = [(b, k) for b, board in enumerate(scene["boards"]) for k, c in enumerate(board["cells"]) if c is None]
    base = judged(scene)
    for b, k in filled:  # move one tile to an empty cell so that the judgement changes
        for eb, ek in empty:
            cand = copy.deepcopy(scene)
            cand["boards"][eb]["cells"][ek] = cand["boards"][b]["cells"][k]
            cand["boards"][b]["cells"][k] = None
            if judged(cand) != base:
                nudged = cand
                break
        if nudged is not None:
            break
    if nudged is None:  # no empty cell helps: take a tile away
        nudged = copy.deepcopy(scene)
        b, k = filled[0]
        nudged["boards"][b]["cells"][k] = None

    def layers(s: dict) -> list:
        return scene_layers(s, np.random.default_rng(seed + 1))

    return ClipScene("kaleido", layers(before), layers(scene), {"players": scene["players"]}, cond, seed,
                     layers(nudged))


def _cmyk_scene(seed: int) -> ClipScene:
    from synth.cmyk import mosaic_layer, random_mosaic
    from synth.photo import sample_conditions
    from synth.registry import renderer

    rng = np.random.default_rng(seed)
    scene = random_mosaic(rng)
    cond = sample_conditions(rng, look_at_mm=(280, 210))
    context = renderer("cmyk")(seed)[1]["context"]
    before = replace(scene, tiles=scene.tiles[:-3])
    return ClipScene("cmyk", [mosaic_layer(before)], [mosaic_layer(scene)], context, cond, seed)


def _cmyk_table_scene(seed: int, players: int) -> ClipScene:
    """A CMYK! table of ``players`` mosaics, no tile in two of them (each exists once), shown one after the other."""
    from scoring.cmyk_checks import K_TILES_IN_SET
    from synth.cmyk import MosaicSceneConfig, mosaic_layer, random_mosaic
    from synth.photo import sample_conditions
    from synth.registry import renderer

    rng = np.random.default_rng(seed)
    config = MosaicSceneConfig(min_tiles=9, max_tiles=13, centre_jitter_mm=30.0)
    mosaics: list = []
    for _ in range(200):
        if len(mosaics) == players:
            break
        cand = random_mosaic(rng, config)
        used = {t.cmy for m in mosaics for t in m.tiles if t.cmy is not None}
        k_tiles = sum(t.cmy is None for m in [*mosaics, cand] for t in m.tiles)
        if not used & {t.cmy for t in cand.tiles if t.cmy is not None} and k_tiles <= K_TILES_IN_SET:
            mosaics.append(cand)
    if len(mosaics) < players:
        raise ValueError(f"no {players} mosaics without a shared tile (seed {seed})")
    cond = sample_conditions(rng, look_at_mm=(280, 210))
    names = ("Aki", "Ben", "Chika", "Dan", "Emi")
    inks = ("cyan", "magenta", "yellow")
    context = {**renderer("cmyk")(seed)[1]["context"],
               "players": [{"name": names[k], "personal_card": {"colour": inks[int(rng.integers(3))],
                                                                  "level": int(rng.integers(6))}}
                           for k in range(players)]}
    layers = [[mosaic_layer(m)] for m in mosaics]
    return ClipScene("cmyk", layers[0], layers[1], context, cond, seed, starts_still=True,
                     layers_more=tuple(layers[2:]))


def _carrotain_scene(seed: int) -> ClipScene:
    from components import load_components
    from synth.carrotain import sample_scene, scene_layers
    from synth.photo import sample_conditions

    rng = np.random.default_rng(seed)
    comp = load_components()
    scene = sample_scene(rng, components=comp)
    after = scene_layers(scene, np.random.default_rng(seed + 1), components=comp)
    cond = sample_conditions(rng, look_at_mm=(280, 210))
    before = [layer for layer in after if not layer.name.startswith(("board", "print"))]
    return ClipScene("carrotain", before, after, {"players": scene["players"], "challenger": scene["challenger"]},
                     cond, seed, starts_still=True)


def _ingenious_scene(seed: int, placements: int = 1, from_start: bool = False) -> ClipScene:
    """A valid placement by the mover (and ``placements - 1`` more legal ones after it); ``from_start``: the game's
    first placements on the empty board (the first player to place, no scores yet, the first round)."""
    from geometry.hexgrid import HexBoardPose
    from scoring.ingenious import Hex
    from scoring.ingenious_game import IngeniousGame
    from synth.ingenious import (
        IngeniousSceneConfig,
        _play,
        _tile_bag,
        after_tiles,
        board_layer,
        context_of,
        sample_scene,
        tile_layers,
    )
    from synth.photo import sample_conditions
    from vision.ingenious import marker_layout

    rng = np.random.default_rng(seed)
    config = replace(IngeniousSceneConfig(), invalid_prob=0.0)
    scene = sample_scene(rng, replace(config, moves=(0, 0)) if from_start else config)
    pose = HexBoardPose.from_json(scene["board"])
    layout = marker_layout()
    board = board_layer(pose, rng)
    cond = sample_conditions(rng, look_at_mm=tuple(pose.centre_mm), tilt_deg=(0.0, 35.0), marker_layout=layout)
    tiles = after_tiles(scene)
    game = IngeniousGame.new(scene["players"], scene["team"])
    for t in tiles:
        game, _ = game.play(tuple(Hex(tuple(c), col) for c, col in zip(t["cells"], t["colours"], strict=True)))
    more = []
    bag = _tile_bag(rng)
    for _ in range(placements - 1):
        game, extra = _play(rng, game, bag, 1)
        tiles = tiles + [{**t, "jitter": [0.0, 0.0, 0.0]} for t in extra]
        more.append([board, *tile_layers(pose, tiles)])
    return ClipScene("ingenious", [board, *tile_layers(pose, scene["tiles"])],
                     [board, *tile_layers(pose, after_tiles(scene))], context_of(scene), cond, seed,
                     marker_layout=layout, starts_still=True, layers_more=tuple(more))


def _genial_scene(seed: int, placements: int = 1) -> ClipScene:
    """The mover's placement in a seeded Genial Spezial game (as ``synth.genial.render_pair`` draws it), and
    ``placements - 1`` more by the next players in turn (no bonus symbol named)."""
    from components import load_components
    from scoring.genial import GameSetup, Placement, Tower
    from scoring.genial_board import GenialBoard
    from synth.genial import (
        GenialLayerConfig,
        _random_tile,
        board_layer,
        marker_layout,
        sample_game,
        tile_layers,
        tower_layers,
    )
    from synth.photo import sample_conditions

    rng = np.random.default_rng(seed)
    comp = load_components()
    gboard = GenialBoard.from_components(comp["genial_spezial"])
    scene = sample_game(rng, gboard)
    setup = GameSetup(scene["players"], tuple(Tower.from_json(t) for t in scene["towers"]))
    layout = marker_layout(comp)
    cond = sample_conditions(rng, look_at_mm=(350.0, 280.0), marker_layout=layout, tilt_deg=(0.0, 35.0))
    config = GenialLayerConfig()
    board = board_layer(scene, gboard, comp, config)

    def layers(moves: list) -> list:
        game = setup.replay(gboard, [Placement.from_json(m) for m in moves])
        tiles: dict = {p: [] for p in scene["players"]}
        for move in game.history:
            tiles[move.placement.player].append(move.placement.cells)
        return [board, *tile_layers(scene, tiles, gboard, comp, config),
                *tower_layers(scene, list(game.tower_list()), gboard, comp, config)]

    context = {"players": scene["players"], "mover": scene["mover"], "moves_before": scene["moves_before"]}
    if scene["move"].get("bonus_symbol"):
        context["bonus_symbol"] = scene["move"]["bonus_symbol"]
    moves = scene["moves_before"] + [scene["move"]]
    names = list(scene["players"])
    more = []
    for k in range(placements - 1):
        game = setup.replay(gboard, [Placement.from_json(m) for m in moves])
        free = [c for c in gboard.cells() if c not in gboard.space_cells() and c not in game.owner]
        player = names[(names.index(scene["mover"]) + 1 + k) % len(names)]
        moves = moves + [{"player": player, "cells": [list(c) for c in _random_tile(rng, free, game.owner, player)]}]
        more.append(layers(moves))
    return ClipScene("genial", layers(scene["moves_before"]), layers(scene["moves_before"] + [scene["move"]]),
                     context, cond, seed, marker_layout=layout, starts_still=True, layers_more=tuple(more))


def clip_scene(game: str, seed: int, placements: int = 1, players: int = 1, from_start: bool = False) -> ClipScene:
    """The game's scene for a clip (see the module's text for what changes); ``placements``: the pair games;
    ``players``: CMYK!, a table of that many mosaics shown in turn (2 or more); ``from_start``: Ingenious, the
    game's first placements on the empty board."""
    if game == "cmyk" and players > 1:
        return _cmyk_table_scene(seed, players)
    if game == "ingenious":
        return _ingenious_scene(seed, placements, from_start)
    if game == "genial":
        return _genial_scene(seed, placements)
    scenes = {"kaleido": _kaleido_scene, "cmyk": _cmyk_scene, "carrotain": _carrotain_scene, "genial": _genial_scene}
    return scenes[game](seed)


def _hands(scene: ClipScene, n: int) -> list[HandSpec]:
    from calibration.markers import MarkerLayout
    from synth.conditions import SampleConfig, _sample_hand

    rng = np.random.default_rng(scene.seed + 2)
    cond = scene.conditions
    out: list[HandSpec] = []
    for _ in range(n * 10):
        layout = scene.marker_layout or MarkerLayout.from_components()
        h = _sample_hand(rng, cond.camera(), layout, np.asarray(cond.look_at_mm), SampleConfig())
        if h is not None:
            out.append(h)
        if len(out) == n:
            return out
    raise ValueError(f"no hand fits this camera (seed {scene.seed})")


def render_key(layers: list, scene: ClipScene, hand: HandSpec | None) -> np.ndarray:
    """One key frame: the layers under the scene's camera, with a hand or none, RGB uint8 (H, W, 3)."""
    from synth.photo import render_photo

    cond = replace(scene.conditions, hand=hand)
    rng = np.random.default_rng(scene.seed + 3)
    return render_photo(layers, cond, rng, marker_layout=scene.marker_layout).image_rgb


def key_frames(scene: ClipScene, story: str, config: ClipConfig = ClipConfig()) -> list[tuple[np.ndarray, int]]:
    """The clip's key frames and how many frames each lasts.

    ``story``: ``"place"`` (hand places the pieces and leaves: before+hand, after+hands, after; Carrotain,
    the pair games and a CMYK! table start with the ``before`` table still; further placements of a pair game
    (further mosaics of a table) follow, each a hand visit and a still table) or ``"nudge"`` (after, a hand
    nudges a piece, nudged).
    """
    hands = _hands(scene, config.hands)
    if story == "place":
        keys = []
        if scene.starts_still:  # the chips (the board) lie still before the boards are laid (a tile is placed)
            keys.append((render_key(scene.layers_before, scene, None), config.still_frames))
        keys.append((render_key(scene.layers_before, scene, hands[0]), config.hand_frames))
        keys += [(render_key(scene.layers_after, scene, h), config.hand_frames) for h in hands[1:]]
        keys.append((render_key(scene.layers_after, scene, None), config.still_frames))
        for layers in scene.layers_more:
            keys.append((render_key(layers, scene, hands[0]), config.hand_frames))
            keys.append((render_key(layers, scene, None), config.still_frames))
        return keys
    if story == "nudge":
        if scene.layers_nudged is None:
            raise ValueError(f"{scene.game}: no nudged scene")
        return [(render_key(scene.layers_after, scene, None), config.still_frames),
                (render_key(scene.layers_after, scene, hands[0]), config.hand_frames),
                (render_key(scene.layers_nudged, scene, hands[-1]), config.hand_frames),
                (render_key(scene.layers_nudged, scene, None), config.still_frames)]
    raise ValueError(f"unknown story {story!r}")


def expand(keys: list[tuple[np.ndarray, int]], config: ClipConfig = ClipConfig(), seed: int = 0
           ) -> list[np.ndarray]:
    """Every frame of the clip: key frames repeated with flicker and fresh sensor noise, RGB uint8."""
    rng = np.random.default_rng(seed)
    frames = []
    t = 0
    for image, n in keys:
        base = image.astype(np.float32)
        for _ in range(n):
            gain = 1.0 + config.flicker * np.sin(2 * np.pi * t / config.flicker_period_frames)
            noisy = base * gain + rng.normal(0.0, config.noise_dn, base.shape).astype(np.float32)
            frames.append(np.clip(noisy, 0, 255).astype(np.uint8))
            t += 1
    return frames


def write_video(frames: list[np.ndarray], path: str | Path, fps: float = 10.0) -> Path:
    """Frames (RGB uint8) -> a Motion-JPEG AVI that ``cv2.VideoCapture`` reads back."""
    path = Path(path)
    h, w = frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    if not out.isOpened():
        raise OSError(f"cannot write video {path}")
    try:
        for f in frames:
            out.write(cv2.cvtColor(f, cv2.COLOR_RGB2BGR))
    finally:
        out.release()
    return path


def write_y4m(frames: list[np.ndarray], path: str | Path, fps: int = 10) -> Path:
    """Frames (RGB uint8) -> Y4M 4:2:0, the format Chromium's fake camera plays (in a loop)."""
    path = Path(path)
    h, w = frames[0].shape[:2]
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for fr in frames:
            f.write(b"FRAME\n" + cv2.cvtColor(fr, cv2.COLOR_RGB2YUV_I420).tobytes())
    return path


def render_clip(game: str, seed: int, story: str, path: str | Path, config: ClipConfig = ClipConfig()
                ) -> tuple[Path, ClipScene, np.ndarray]:
    """Render and write a clip; returns (video path, scene, the final still key frame without noise)."""
    scene = clip_scene(game, seed)
    keys = key_frames(scene, story, config)
    write_video(expand(keys, config, seed), path, config.fps)
    return Path(path), scene, keys[-1][0]
