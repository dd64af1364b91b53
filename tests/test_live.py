"""Settling and voting (judge/live.py) and the motion measure (judge/motion.py) on a real rendered photo."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from judge.live import LiveConfig, Reading, Settler, merge_judgements, reading_key

ROOT = Path(__file__).resolve().parents[1]


def _reader(values: list[str]):
    """Readings from a list, one per call; counts the calls."""
    calls = []

    def read() -> Reading:
        v = values[min(len(calls), len(values) - 1)]
        calls.append(v)
        return Reading(key=v, ok=True, value={"verdict": v})

    return read, calls


def _run(settler: Settler, moving: list[bool], read) -> list[tuple[int, str]]:
    return [(i, e.kind) for i, m in enumerate(moving) for e in settler.step(i, m, read)]


def test_still_scene_settles_once_after_still_and_vote_frames():
    cfg = LiveConfig(still_frames=3, vote_frames=2)
    read, calls = _reader(["a"])
    events = _run(Settler(cfg), [True, True] + [False] * 10, read)
    assert events == [(5, "settled")]  # frames 2,3,4 still; 4 and 5 read
    assert len(calls) == 2  # nothing read after settling


def test_flipping_reading_is_contested_not_picked():
    cfg = LiveConfig(still_frames=1, vote_frames=3)
    read, _ = _reader(["a", "b", "a"])
    s = Settler(cfg)
    events = [e for i in range(3) for e in s.step(i, False, read)]
    assert [e.kind for e in events] == ["contested"]
    assert events[0].reading is None
    assert sorted((v.reading.key, v.count) for v in events[0].votes) == [("a", 2), ("b", 1)]


def test_motion_unsettles_and_a_changed_table_settles_again():
    cfg = LiveConfig(still_frames=2, vote_frames=2)
    values = iter(["a", "a", "b", "b", "b", "b"])
    s = Settler(cfg)

    def read() -> Reading:
        v = next(values)
        return Reading(v, True, {"verdict": v})

    moving = [False] * 4 + [True] * 2 + [False] * 5
    events = _run(s, moving, read)
    assert events == [(2, "settled"), (4, "moving"), (8, "settled")]


def test_same_reading_after_motion_is_not_emitted_again():
    cfg = LiveConfig(still_frames=1, vote_frames=1)
    read, _ = _reader(["a"])
    s = Settler(cfg)
    events = _run(s, [False, True, False, False], read)
    assert [k for _, k in events] == ["settled", "moving", "unchanged"]
    again = Settler(LiveConfig(still_frames=1, vote_frames=1, repeat_same=True))
    assert [k for _, k in _run(again, [False, True, False], read)] == ["settled", "moving", "settled"]


def test_wants_reading_matches_step():
    cfg = LiveConfig(still_frames=2, vote_frames=2)
    s = Settler(cfg)
    read, calls = _reader(["a"])
    for i, m in enumerate([False, False, False, True, False]):
        before = len(calls)
        expected = s.wants_reading(m)
        s.step(i, m, read)
        assert expected == (len(calls) > before)


def test_reading_key_ignores_jitter_and_order_but_not_verdicts():
    a = {"game": "carrotain", "verdict": "success", "hidden": 3, "timings_ms": {"x": 1.0},
         "chips": [{"kind": "star", "xy_mm": [1.0, 2.0]}, {"kind": "colourless", "xy_mm": [5.0, 6.0]}],
         "flags": [{"code": "borderline", "message": "chip 1 at 0.4 mm"}], "explanation": ["..."]}
    b = {**a, "timings_ms": {"x": 9.0}, "chips": [{"kind": "colourless", "xy_mm": [5.2, 6.1]},
                                                   {"kind": "star", "xy_mm": [1.1, 2.0]}],
         "flags": [], "explanation": ["other words"]}
    assert reading_key(a) == reading_key(b)
    assert reading_key(a) != reading_key({**a, "verdict": "failure"})
    assert reading_key(a) != reading_key({**a, "hidden": 4})
    assert reading_key(a) != reading_key({**a, "chips": a["chips"][:1]})


def test_merge_keeps_every_frames_doubts_and_the_widest_range():
    j1 = {"scores": {"P1": 24}, "flags": [{"code": "tile_doubtful", "cells": [[0, 1]]}],
          "players": {"P1": {"total": 24, "total_range": [24, 25]}}}
    j2 = {"scores": {"P1": 24}, "flags": [{"code": "tile_doubtful", "cells": [[0, 2]]}],
          "players": {"P1": {"total": 24, "total_range": [23, 24]}}}
    m = merge_judgements([j1, j2])
    assert m["players"]["P1"]["total_range"] == [23, 25]
    assert {str(f["cells"]) for f in m["flags"]} == {"[[0, 1]]", "[[0, 2]]"}
    assert j2["players"]["P1"]["total_range"] == [23, 24]  # inputs untouched


@pytest.fixture(scope="module")
def photo_and_calibration():
    from calibration.table import calibrate_from_markers

    path = sorted((ROOT / "sample_images" / "kaleido").glob("*.jpg"))[0]
    image = cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB)
    return image, calibrate_from_markers(image)


def _noisy(image: np.ndarray, gain: float, rng: np.random.Generator) -> np.ndarray:
    return np.clip(image.astype(np.float32) * gain + rng.normal(0, 2.0, image.shape), 0, 255).astype(np.uint8)


def test_motion_ignores_flicker_and_noise_but_sees_a_moved_piece(photo_and_calibration):
    from calibration.markers import MarkerLayout
    from judge.motion import MotionConfig, MotionMeter

    image, cal = photo_and_calibration
    rng = np.random.default_rng(0)
    meter = MotionMeter(MotionConfig(), MarkerLayout.from_components().centres_mm)
    meter.track(cal)
    samples = [meter.measure(_noisy(image, g, rng)) for g in (1.0, 1.03, 0.97, 1.02)]
    assert not any(s.moving for s in samples), samples
    meter.mark_still()
    moved = image.copy()
    centre = np.round(cal.mm_to_px(np.array([[280.0, 210.0]]))[0]).astype(int)
    cv2.circle(moved, tuple(int(v) for v in centre), 30, (20, 60, 200), -1)  # a piece ~ 3 cm across appears
    s = meter.measure(_noisy(moved, 1.0, rng))
    assert s.moving and s.changed_fraction > MotionConfig().moving_fraction


def test_skin_reaching_in_from_the_edge_is_a_hand_even_when_still(photo_and_calibration):
    from calibration.markers import MarkerLayout
    from judge.motion import MotionConfig, MotionMeter

    image, cal = photo_and_calibration
    meter = MotionMeter(MotionConfig(), MarkerLayout.from_components().centres_mm)
    meter.track(cal)
    assert not meter.measure(image).hand
    arm = image.copy()
    a, b = cal.mm_to_px(np.array([[280.0, -80.0], [280.0, 200.0]]))
    cv2.line(arm, tuple(int(v) for v in a), tuple(int(v) for v in b), (205, 150, 120), 60)  # a forearm, skin
    first = meter.measure(arm)
    second = meter.measure(arm)  # the same frame again: no frame-to-frame change, the hand is still there
    assert first.hand and second.hand and second.changed_fraction == 0.0 and second.moving


def test_contested_vote_is_retried_and_an_agreed_one_settles():
    cfg = LiveConfig(still_frames=1, vote_frames=2)
    read, calls = _reader(["a", "b", "a", "b", "c", "c"])
    s = Settler(cfg)
    kinds = [e.kind for i in range(6) for e in s.step(i, False, read)]
    assert kinds == ["contested", "unchanged", "settled"]  # the same disagreement is not emitted twice
    assert len(calls) == 6
    no_retry = Settler(LiveConfig(still_frames=1, vote_frames=2, retry_contested=False))
    read2, calls2 = _reader(["a", "b", "c"])
    assert [e.kind for i in range(6) for e in no_retry.step(i, False, read2)] == ["contested"]
    assert len(calls2) == 2


def test_a_frame_larger_than_the_working_size_is_read_shrunk_and_judged_as_the_photo(photo_and_calibration):
    import json

    from judge.live_run import LiveJudge
    from judge.pipeline import judge_images
    from judge.registry import game as get_game

    image, _ = photo_and_calibration
    context = json.loads(sorted((ROOT / "sample_images" / "kaleido").glob("*.json"))[0].read_text())["context"]
    big = cv2.resize(image, (image.shape[1] * 2, image.shape[0] * 2), interpolation=cv2.INTER_CUBIC)  # 2560x1920
    live = LiveJudge(get_game("kaleido"), context)
    assert live.config.work_long_side_px < max(big.shape[:2])
    events = [ev for _ in range(12) for ev in live.feed(big)]
    assert [ev.kind for ev in events] == ["settled"]
    read = events[0].reading
    assert max(read.payload.frame.image_rgb.shape[:2]) == live.config.work_long_side_px
    photo = judge_images(get_game("kaleido"), [(image, "photo")], context).result
    assert reading_key(read.value) == reading_key(photo)
    shown = live.overlay(big)
    assert shown is not None and shown.shape == read.payload.frame.image_rgb.shape


class _Rec:
    """A toy state/adjudication: a judgement dict."""

    def __init__(self, d: dict) -> None:
        self.d = d

    def to_json(self) -> dict:
        return dict(self.d)


def _toy_pair_game(readings: list[dict], next_context=None):
    """A pair game whose detection returns the scripted readings in order (the last one repeated)."""
    from judge.plugin import GamePlugin, LiveSupport

    calls: list[int] = []

    def detect(frames, ctx, timer):
        calls.append(len(frames))
        return _Rec({"game": "toypair", "flags": [], **readings[min(len(calls), len(readings)) - 1]})

    plugin = GamePlugin(
        name="toypair", title="toy pair", parse_context=lambda obj: obj, detect=detect, state_from_json=_Rec,
        adjudicate=lambda state, ctx: state, adjudication_from_json=_Rec, annotate=lambda f, s, a: f.image_rgb,
        summary=lambda r: "", headline=lambda r: r, live=LiveSupport(before="previous", next_context=next_context))
    return plugin, calls


def _scene(seed: int) -> np.ndarray:
    """A still scene: a random grey pattern (a flat picture would look unchanged under any brightness; grey
    has no skin in it)."""
    grey = np.random.default_rng(seed).integers(0, 255, (24, 32, 1), dtype=np.uint8).repeat(3, axis=2)
    return cv2.resize(grey, (320, 240), interpolation=cv2.INTER_NEAREST)


def _scenes(live, scenes: list[int]) -> list:
    """Feed still scenes of 12 frames each (one moving frame between): the events."""
    events = []
    for k, seed in enumerate(scenes):
        if k:
            events += live.feed(_scene(1000 + k))
        events += [ev for _ in range(12) for ev in live.feed(_scene(seed))]
    return events


def test_pair_game_baseline_placement_and_a_hand_that_moved_nothing():
    from judge.live_run import LiveJudge

    board = {"placed": [], "board": "A"}
    placed = {"placed": [[0, 0]], "board": "A+x"}
    plugin, calls = _toy_pair_game([board] * 3 + [placed] * 3 + [{"placed": [], "board": "A+x"}] * 3)
    live = LiveJudge(plugin, {"mover": "Aki"})
    kinds = [ev.kind for ev in _scenes(live, [100, 110, 110])]
    assert [k for k in kinds if k != "moving"] == ["baseline", "settled", "unchanged"]
    assert calls == [2] * 9  # every reading is a pair: [scene, scene] for the baseline, then [before, now]
    assert live.placements == 1 and live.stale  # no next_context: later placements would be flagged


def test_pair_game_first_board_that_flips_is_not_kept_and_is_read_again():
    from judge.live_run import LiveJudge

    a, b = {"placed": [], "board": "A"}, {"placed": [], "board": "B"}
    plugin, calls = _toy_pair_game([a, b, a] + [a] * 3)
    live = LiveJudge(plugin, None)
    kinds = [ev.kind for ev in _scenes(live, [100, 100])]
    assert kinds == ["baseline_contested", "baseline"]  # nothing printed for the first board, then it is kept
    assert live.before is not None and len(calls) == 6


def test_pair_game_context_advances_or_later_placements_are_flagged_stale():
    from judge.live_run import LiveJudge

    readings = [{"placed": [], "board": "A"}] * 3 + [{"placed": [[0, 0]], "board": "A1"}] * 3 \
        + [{"placed": [[1, 0]], "board": "A12"}] * 3
    for hook, stale in ((lambda ctx, r: {"mover": "Ben" if ctx["mover"] == "Aki" else "Aki"}, False), (None, True)):
        plugin, _ = _toy_pair_game(readings, hook)
        live = LiveJudge(plugin, {"mover": "Aki"})
        got = [ev for ev in _scenes(live, [100, 110, 120]) if ev.kind == "settled"]
        contexts = [ev.reading.payload.context["mover"] for ev in got]
        codes = [{f["code"] for f in ev.reading.value["flags"]} for ev in got]
        assert contexts == (["Aki", "Ben"] if not stale else ["Aki", "Aki"])
        assert ("live_context_stale" in codes[1]) is stale and "live_context_stale" not in codes[0]
