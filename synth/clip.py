"""Rendered video clips for live mode: a hand reaches in, places pieces, leaves; light flicker, sensor noise.

Each distinct moment (key frame: the pieces on the table and where the hand is) is rendered once by the
photo renderer (same camera, light and table throughout); the clip repeats key frames with a flickering
gain (mains-powered lamps beat with the camera's frame rate) and fresh sensor noise per frame, then is
written with ``cv2.VideoWriter`` (Motion-JPEG AVI: every frame JPEG-compressed again) or as Y4M (what
Chromium's fake camera plays).

Scenes per game (``before`` -> ``after``): Kaleido, tiles of one board missing -> placed; CMYK!, the last
tiles of the mosaic missing -> placed; Carrotain, chips alone -> the boards laid over them (the "before"
photo of a challenge, then the challenge). ``nudged`` (Kaleido): ``after`` with one tile moved.
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
    """

    game: str
    layers_before: list
    layers_after: list
    context: dict
    conditions: object
    seed: int
    layers_nudged: list | None = None


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
                     cond, seed)


def clip_scene(game: str, seed: int) -> ClipScene:
    """The game's scene for a clip (see the module's text for what changes)."""
    return {"kaleido": _kaleido_scene, "cmyk": _cmyk_scene, "carrotain": _carrotain_scene}[game](seed)


def _hands(scene: ClipScene, n: int) -> list[HandSpec]:
    from calibration.markers import MarkerLayout
    from synth.conditions import SampleConfig, _sample_hand

    rng = np.random.default_rng(scene.seed + 2)
    cond = scene.conditions
    out: list[HandSpec] = []
    for _ in range(n * 10):
        h = _sample_hand(rng, cond.camera(), MarkerLayout.from_components(), np.asarray(cond.look_at_mm),
                         SampleConfig())
        if h is not None:
            out.append(h)
        if len(out) == n:
            return out
    raise ValueError(f"no hand fits this camera (seed {scene.seed})")


def render_key(layers: list, scene: ClipScene, hand: HandSpec | None) -> np.ndarray:
    """One key frame: the layers under the scene's camera, with a hand or none, RGB uint8 (H, W, 3)."""
    from synth.photo import render_photo

    cond = replace(scene.conditions, hand=hand)
    return render_photo(layers, cond, np.random.default_rng(scene.seed + 3)).image_rgb


def key_frames(scene: ClipScene, story: str, config: ClipConfig = ClipConfig()) -> list[tuple[np.ndarray, int]]:
    """The clip's key frames and how many frames each lasts.

    ``story``: ``"place"`` (hand places the pieces and leaves: before+hand, after+hands, after; Carrotain
    starts with the chips alone, still) or ``"nudge"`` (after, a hand nudges a piece, nudged).
    """
    hands = _hands(scene, config.hands)
    if story == "place":
        keys = []
        if scene.game == "carrotain":  # the chips lie still before the challenger lays the boards
            keys.append((render_key(scene.layers_before, scene, None), config.still_frames))
        keys.append((render_key(scene.layers_before, scene, hands[0]), config.hand_frames))
        keys += [(render_key(scene.layers_after, scene, h), config.hand_frames) for h in hands[1:]]
        keys.append((render_key(scene.layers_after, scene, None), config.still_frames))
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
