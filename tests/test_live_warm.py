"""Warm live reads of the single-photo games (``LiveSupport.detect_warm``): the later reading frames of a still
scene reuse what the first found and judge exactly as a cold read; a changed board falls back to a cold read."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.timing import StageTimer
from judge.live import reading_key
from judge.live_run import LiveJudge, LiveRunConfig
from judge.pipeline import adjudicate
from judge.registry import game as get_game
from synth.clip import ClipConfig, clip_scene, expand, key_frames, render_key

CONFIG = ClipConfig()


def _verdict(result: dict) -> tuple[str, list[str]]:
    """What a judgement says about the table (``reading_key``: scores, cells, counts; not the jittering mm
    positions of a frame) and which kinds of flag it raises (how many tiles a borderline doubt flag names
    varies from frame to frame, cold or warm)."""
    return reading_key(result), sorted({f["code"] for f in result.get("flags", [])})


def _events(game: str, context: dict, frames: list, warm: bool) -> tuple[list, LiveJudge]:
    live = LiveJudge(get_game(game), context, config=LiveRunConfig(warm=warm))
    events = [(ev.kind, ev.frame, _verdict(ev.reading.value) if ev.reading and ev.reading.ok else None)
              for f in frames for ev in live.feed(f)]
    return events, live


@pytest.mark.parametrize(("game", "seed"), [("kaleido", 1), ("kaleido", 2), ("cmyk", 1), ("cmyk", 2)])
def test_warm_live_reads_judge_exactly_as_cold_ones(game, seed):
    scene = clip_scene(game, seed)
    frames = expand(key_frames(scene, "place", CONFIG), CONFIG, seed=7)
    if scene.layers_nudged is not None:
        frames += expand(key_frames(scene, "nudge", CONFIG)[1:], CONFIG, seed=8)
    warm, live_warm = _events(game, scene.context, frames, True)
    cold, live_cold = _events(game, scene.context, frames, False)
    assert warm == cold
    # placed (then nudged: settles again)
    assert [k for k, _, _ in warm].count("settled") == 1 + (scene.layers_nudged is not None)
    assert live_cold.warm_reads == 0
    assert live_warm.reads == live_cold.reads and live_warm.warm_reads == live_warm.reads * 2 // 3


def _pushed_board_frame(scene, seed: int, push_mm: tuple[float, float]):
    """The clip's ``after`` table with its first board pushed by ``push_mm`` (off the common lattice), still."""
    import copy

    import numpy as np

    from synth.kaleido import sample_scene, scene_layers

    table = sample_scene(np.random.default_rng(seed))  # the clip's table (synth.clip draws it first)
    pushed = copy.deepcopy(table)
    pushed["boards"][0]["centre_mm"] = [c + d for c, d in zip(table["boards"][0]["centre_mm"], push_mm, strict=True)]
    return render_key(scene_layers(pushed, np.random.default_rng(seed + 1)), scene, None)


def _with_image(frame, image_rgb):
    return type(frame)(image_rgb=image_rgb, calibration=frame.calibration, source="clip", profile=frame.profile)


@pytest.mark.parametrize("seed", [1, 2])
def test_kaleido_warm_read_equals_a_cold_read_and_a_pushed_board_falls_back(seed):
    plugin = get_game("kaleido")
    scene = clip_scene("kaleido", seed)
    after = key_frames(scene, "place", CONFIG)[-1][0]
    tile_moved = key_frames(scene, "nudge", CONFIG)[-1][0]
    first, *later = expand([(after, 3)], CONFIG, seed=3)
    ctx = plugin.parse_context(scene.context)
    frame = LiveJudge(plugin, scene.context)._frame(first, StageTimer())
    assert frame.calibration is not None
    state, carry = plugin.live.detect_warm([frame], ctx, StageTimer(), None)
    assert carry is not None  # markers seen, boards on the lattice: the lattice fit and boards carry

    def warm_and_cold(image_rgb):
        f = _with_image(frame, image_rgb)
        timer = StageTimer()
        warm_state, new_carry = plugin.live.detect_warm([f], ctx, timer, carry)
        cold = _verdict(adjudicate(plugin, plugin.detect([f], ctx, StageTimer()), ctx))
        carried = new_carry is carry and "boards" not in timer.rounded()
        return _verdict(adjudicate(plugin, warm_state, ctx)), cold, carried

    for img in later:  # later frames of the still scene (noise, flicker): re-read on the carried lattice
        warm, cold, carried = warm_and_cold(img)
        assert carried and warm == cold
    # one tile moved to another hole (same calibration, the motion not seen): the re-read cells see it
    warm, cold, _ = warm_and_cold(expand([(tile_moved, 1)], CONFIG, seed=4)[0])
    assert warm == cold != _verdict(adjudicate(plugin, state, ctx))
    # a board pushed off the lattice: the carried boards no longer fit, so the frame is detected afresh
    warm, cold, carried = warm_and_cold(expand([(_pushed_board_frame(scene, seed, (9.0, 4.0)), 1)], CONFIG, seed=5)[0])
    assert not carried and warm == cold != _verdict(adjudicate(plugin, state, ctx))


@pytest.mark.parametrize("seed", [1, 2])
def test_cmyk_warm_read_equals_a_cold_read_and_a_changed_mosaic_falls_back(seed):
    plugin = get_game("cmyk")
    scene = clip_scene("cmyk", seed)
    keys = key_frames(scene, "place", CONFIG)
    before, after = keys[0][0], keys[-1][0]  # three tiles fewer; a hand over it in the clip
    first, *later = expand([(after, 3)], CONFIG, seed=3)
    ctx = plugin.parse_context(scene.context)
    frame = LiveJudge(plugin, scene.context)._frame(first, StageTimer())
    assert frame.calibration is not None
    state, carry = plugin.live.detect_warm([frame], ctx, StageTimer(), None)
    assert carry is not None

    def warm_and_cold(image_rgb):
        f = _with_image(frame, image_rgb)
        timer = StageTimer()
        warm_state, new_carry = plugin.live.detect_warm([f], ctx, timer, carry)
        cold = _verdict(adjudicate(plugin, plugin.detect([f], ctx, StageTimer()), ctx))
        return _verdict(adjudicate(plugin, warm_state, ctx)), cold, new_carry is carry

    for img in later:  # later frames of the still scene: read on the carried lattice, judged as cold reads
        warm, cold, carried = warm_and_cold(img)
        assert carried and warm == cold
    # tiles taken away (the motion not seen): other cells than the first frame's, so detected afresh
    warm, cold, carried = warm_and_cold(expand([(before, 1)], CONFIG, seed=4)[0])
    assert not carried and warm == cold != _verdict(adjudicate(plugin, state, ctx))
    # the whole mosaic pushed by a few mm (the same cells): read as a cold read would, carried lattice or not
    for push_mm in ((2.0, 0.0), (4.0, 0.0)):
        layers = [replace(la, origin_mm=(la.origin_mm[0] + push_mm[0], la.origin_mm[1] + push_mm[1]))
                  for la in scene.layers_after]
        warm, cold, _ = warm_and_cold(expand([(render_key(layers, scene, None), 1)], CONFIG, seed=5)[0])
        assert warm == cold
