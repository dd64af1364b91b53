"""Carrotain's warm live reads (``LiveSupport.detect_warm``): the later reading frames of a still scene reuse the
first frame's reading when quick checks find every chip and board where it was (else they re-fit the boards where
the first frame found them), reuse the chips of the same "before" photo, and judge exactly as a cold read; a board
nudged without the motion being seen fails the checks and the frame is searched afresh."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from core.timing import StageTimer
from judge.live import reading_key
from judge.live_run import LiveJudge, LiveRunConfig
from judge.pipeline import adjudicate, make_frame
from judge.registry import game as get_game
from synth.clip import ClipConfig, clip_scene, expand, key_frames, render_key

pytestmark = pytest.mark.slow  # rendered clip frames, each judged warm and cold

CONFIG = ClipConfig()
SEED = 1


def _verdict(result: dict) -> tuple[str, list[str]]:
    """What a judgement says about the table (``reading_key``) and which kinds of flag it raises."""
    return reading_key(result), sorted({f["code"] for f in result.get("flags", [])})


def _nudged_board_frame(scene, push_mm: tuple[float, float]) -> np.ndarray:
    """The clip's ``after`` table with its first challenge board pushed by ``push_mm``, still."""
    return _nudged_board(scene, push_mm)[0]


def _nudged_board(scene, push_mm: tuple[float, float]) -> tuple[np.ndarray, str, np.ndarray]:
    """``_nudged_board_frame``'s image, the pushed board's id and its true outline's vertex mean (mm, (2,))."""
    from components import load_components
    from synth.carrotain import board_outline_mm, sample_scene, scene_layers

    comp = load_components()
    table = sample_scene(np.random.default_rng(scene.seed), components=comp)  # the clip's table (drawn first)
    pushed = copy.deepcopy(table)
    b = next(b for b in pushed["boards"] if b["role"] == "challenge")
    b["centre_mm"] = [c + d for c, d in zip(b["centre_mm"], push_mm, strict=True)]
    b["outline_mm"] = np.round(board_outline_mm(b["id"], b["centre_mm"], b["rotation_deg"], b["mirrored"], comp),
                               3).tolist()
    image = render_key(scene_layers(pushed, np.random.default_rng(scene.seed + 1), components=comp), scene, None)
    return image, b["id"], np.mean(np.asarray(b["outline_mm"], dtype=float), axis=0)


def test_warm_reads_judge_as_cold_ones_and_a_nudged_board_is_searched_afresh():
    plugin = get_game("carrotain")
    scene = clip_scene("carrotain", SEED)
    keys = key_frames(scene, "place", CONFIG)
    before_img, after_img = keys[0][0], keys[-1][0]
    before = make_frame(expand([(before_img, 1)], CONFIG, seed=2)[0], "clip")
    first, *later = expand([(after_img, 3)], CONFIG, seed=3)
    frame = make_frame(first, "clip")
    assert before.calibration is not None and frame.calibration is not None
    ctx = plugin.parse_context(scene.context)
    state, carry = plugin.live.detect_warm([before, frame], ctx, StageTimer(), None)
    assert carry is not None and len(carry.boards) >= 2 and carry.before_chips

    def warm_and_cold(image_rgb):
        f = type(frame)(image_rgb=image_rgb, calibration=frame.calibration, source="clip", profile=frame.profile)
        timer = StageTimer()
        warm_state, new_carry = plugin.live.detect_warm([before, f], ctx, timer, carry)
        cold_timer = StageTimer()
        cold_state = plugin.detect([before, f], ctx, cold_timer)
        carried = new_carry is carry and "boards" not in timer.ms and "boards_carried" in timer.ms
        return (_verdict(adjudicate(plugin, warm_state, ctx)), _verdict(adjudicate(plugin, cold_state, ctx)), carried,
                warm_state, cold_state)

    for img in later:  # later frames of the still scene (noise, flicker): the boards re-fitted where they were
        warm, cold, carried, warm_state, cold_state = warm_and_cold(img)
        assert carried and warm == cold
        for w, c in zip(warm_state.boards, cold_state.boards, strict=True):  # the same boards, re-read
            assert w.id == c.id and w.role == c.role
            assert np.max(np.hypot(*(w.outline_mm - c.outline_mm).T)) < 1.0
    # a challenge board nudged by 6 mm (same calibration, the motion not seen): it no longer fits where it was,
    # so the frame is searched afresh and judged as a cold read, with the board where it now lies
    pushed_img, pushed_id, pushed_xy_mm = _nudged_board(scene, (6.0, 0.0))
    warm, cold, carried, warm_state, _ = warm_and_cold(expand([(pushed_img, 1)], CONFIG, seed=5)[0])
    assert not carried and warm == cold
    # the pushed board is read where it now truly lies (compared with the truth, not with the earlier frame's read,
    # which carries that frame's own error of about a millimetre)
    read = [np.mean(w.outline_mm, axis=0) for w in warm_state.boards if w.id == pushed_id and w.role == "challenge"]
    assert read and np.hypot(*(read[0] - pushed_xy_mm)) < 1.5


def test_the_carrotain_clip_judges_the_same_warm_and_cold():
    scene = clip_scene("carrotain", SEED)
    frames = expand(key_frames(scene, "place", CONFIG), CONFIG, seed=7)
    runs = {}
    for warm in (True, False):
        live = LiveJudge(get_game("carrotain"), scene.context, config=LiveRunConfig(warm=warm))
        events = [(ev.kind, ev.frame, _verdict(ev.reading.value) if ev.reading and ev.reading.ok else None)
                  for f in frames for ev in live.feed(f)]
        runs[warm] = (events, live)
    (warm_events, live_warm), (cold_events, live_cold) = runs[True], runs[False]
    assert warm_events == cold_events
    assert [k for k, _, v in warm_events if v is not None] == ["settled"]  # the challenge, judged once
    assert live_cold.warm_reads == 0 and live_warm.reads == live_cold.reads
    # only the first reading frame of each still scene (the chips-only "before", the challenge) is read cold: the
    # before scene's frames, which cannot be judged, carry their reading too
    assert live_warm.warm_reads == live_warm.reads - 2 > 0


def test_the_chips_read_on_the_kept_before_frame_are_its_before_chips_later():
    from dataclasses import replace

    from core.errors import CannotJudge
    from scoring.carrotain_state import ChipReading

    plugin = get_game("carrotain")
    scene = clip_scene("carrotain", SEED)
    keys = key_frames(scene, "place", CONFIG)
    before = make_frame(expand([(keys[0][0], 1)], CONFIG, seed=2)[0], "clip")
    frame = make_frame(expand([(keys[-1][0], 1)], CONFIG, seed=3)[0], "clip")
    ctx = plugin.parse_context(scene.context)
    with pytest.raises(CannotJudge) as chips_only:  # the "before" scene: chips, no boards
        plugin.live.detect_warm([before], ctx, StageTimer(), None)
    kept = plugin.live.keep_before(chips_only.value.carry, before)
    assert kept.before_image is before.image_rgb and kept.before_chips == chips_only.value.carry.chips != ()
    state, _ = plugin.live.detect_warm([before, frame], ctx, StageTimer(), kept)
    cold = plugin.detect([before, frame], ctx, StageTimer())
    assert _verdict(adjudicate(plugin, state, ctx)) == _verdict(adjudicate(plugin, cold, ctx))
    # they are what the challenge is compared with (not read again): moved away, every one goes missing
    away = replace(kept, before_chips=tuple(ChipReading(c.kind, c.colour, (c.xy_mm[0] + 300.0, c.xy_mm[1]),
                                                        c.centre_sigma_mm, c.confidence) for c in kept.before_chips))
    moved, _ = plugin.live.detect_warm([before, frame], ctx, StageTimer(), away)
    missing = [f for f in moved.flags if f.code == "chips_missing_since_before"]
    assert missing and len(missing[0].data["xy_mm"]) == len(kept.before_chips)
    assert not any(f.code == "chips_missing_since_before" for f in cold.flags)


def test_the_still_checks_hold_on_a_still_frame_and_fail_when_a_board_moves_or_goes():
    from vision.carrotain_still import boards_hold, chips_hold
    from vision.carrotain_view import colour_reference

    plugin = get_game("carrotain")
    scene = clip_scene("carrotain", SEED)
    keys = key_frames(scene, "place", CONFIG)
    before_img, after_img = keys[0][0], keys[-1][0]
    first, later = expand([(after_img, 2)], CONFIG, seed=11)
    frame = make_frame(first, "clip")
    assert frame.calibration is not None
    _, carry = plugin.live.detect_warm([frame], plugin.parse_context(scene.context), StageTimer(), None)
    probe = carry.probe
    assert probe is not None and len(probe.chip_starts) - 1 == len(carry.chips) + len(carry.unread_blobs) > 0
    assert len(probe.board_starts) - 1 == len(carry.boards) >= 2
    ref = colour_reference(frame.calibration, first)
    assert chips_hold(probe, later, ref) and boards_hold(probe, later, ref)  # noise and flicker only
    pushed = expand([(_nudged_board_frame(scene, (2.0, 0.0)), 1)], CONFIG, seed=12)[0]
    assert not boards_hold(probe, pushed, ref)
    gone = expand([(before_img, 1)], CONFIG, seed=13)[0]  # the boards lifted off the chips
    assert not boards_hold(probe, gone, ref) and not chips_hold(probe, gone, ref)
