"""Live judging of the pair games (Ingenious, Genial Spezial) on rendered clips (synth/clip.py: the board
still, a hand places a tile and leaves, light flicker, sensor noise, Motion-JPEG video): the first still board is
the baseline, each placement settles exactly once after the hand has left, judged against the previous settled
board, and equals the still-photo pair judgement of the same two scenes; a hand that moves nothing reports
nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import pytest

from judge.live import LiveConfig, reading_key
from synth.clip import ClipConfig, clip_scene, expand, key_frames, write_video

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ClipConfig()


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def _photo(image_rgb, path: Path) -> Path:
    cv2.imwrite(str(path), cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 95])
    return path


@pytest.fixture(scope="module")
def ingenious_clip(tmp_path_factory):
    """Two placements, one after the other: (dir, context path, video, key frames)."""
    d = tmp_path_factory.mktemp("ingenious_clip")
    scene = clip_scene("ingenious", 1, placements=2)
    ctx = d / "ctx.json"
    ctx.write_text(json.dumps(scene.context))
    keys = key_frames(scene, "place", CONFIG)
    return d, ctx, write_video(expand(keys, CONFIG, seed=7), d / "place.avi", CONFIG.fps), keys


def _still_keys(keys: list) -> list[tuple[int, int]]:
    """(index of the key frame, first frame of it) for every still key frame (no hand)."""
    out, start = [], 0
    for k, (_, n) in enumerate(keys):
        if n == CONFIG.still_frames:
            out.append((k, start))
        start += n
    return out


def _pair_judgement(keys: list, a: int, b: int, d: Path, ctx: Path | dict, game: str) -> dict:
    before = _photo(keys[a][0], d / f"still_{a}.jpg")
    after = _photo(keys[b][0], d / f"still_{b}.jpg")
    if isinstance(ctx, dict):
        (d / f"ctx_{a}_{b}.json").write_text(json.dumps(ctx))
        ctx = d / f"ctx_{a}_{b}.json"
    proc = _cli("judge", "--game", game, "--context", str(ctx), "--no-ledger", str(before), str(after))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_ingenious_each_placement_settles_once_against_the_previous_board(ingenious_clip, tmp_path):
    d, ctx, video, keys = ingenious_clip
    ledger = tmp_path / "live.sqlite"
    proc = _cli("live", "--game", "ingenious", "--source", str(video), "--context", str(ctx),
                "--ledger", str(ledger))
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    stills = _still_keys(keys)  # the board, the first placement, the second placement
    assert len(stills) == 3 and len(lines) == 2, proc.stderr
    assert "kept as the 'before'" in proc.stderr
    for line, (before, _), (after, hand_left_at) in zip(lines, stills, stills[1:]):
        assert line["live"]["status"] == "settled" and line["live"]["frame"] >= hand_left_at
        assert line["placed"], line  # a tile was placed and seen
        assert "live_context_stale" not in {f["code"] for f in line["flags"]}
        still = _pair_judgement(keys, before, after, tmp_path, line["live"]["context"], "ingenious")
        assert reading_key(line) == reading_key(still)
    first, second = lines
    given = json.loads(ctx.read_text())
    assert first["live"]["context"] == given
    players = given["players"]  # the turn passed on, the scores after the first placement before the second
    assert second["live"]["context"]["mover"] == players[(players.index(given["mover"]) + 1) % len(players)]
    assert second["live"]["context"]["scores_before"] == first["colour_scores"]
    assert first["live"]["before_frame"] < stills[1][1] <= first["live"]["frame"] == second["live"]["before_frame"]
    from ledger import Ledger

    recorded = Ledger(ledger).judgements()
    assert sorted(r.id for r in recorded) == sorted(x["judgement_id"] for x in lines)


def test_a_hand_that_moves_nothing_reports_nothing(ingenious_clip):
    from judge.live_run import LiveJudge
    from judge.registry import game as get_game

    d, ctx, _, keys = ingenious_clip
    board, hand_over_board = keys[0][0], keys[1][0]  # the still board; a hand above it, nothing placed yet
    story = [(board, CONFIG.still_frames), (hand_over_board, CONFIG.hand_frames), (board, CONFIG.still_frames)]
    live = LiveJudge(get_game("ingenious"), json.loads(ctx.read_text()))
    kinds = [ev.kind for f in expand(story, CONFIG, seed=5) for ev in live.feed(f)]
    assert kinds == ["baseline", "moving", "unchanged"]
    assert live.before_frame is not None and live.before_frame >= CONFIG.still_frames + CONFIG.hand_frames


def test_genial_placements_settle_once_each_equal_to_the_photo_pairs(tmp_path):
    scene = clip_scene("genial", 1, placements=2)
    ctx = tmp_path / "ctx.json"
    ctx.write_text(json.dumps(scene.context))
    keys = key_frames(scene, "place", CONFIG)
    video = write_video(expand(keys, CONFIG, seed=7), tmp_path / "place.avi", CONFIG.fps)
    proc = _cli("live", "--game", "genial", "--source", str(video), "--context", str(ctx), "--no-ledger")
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    stills = _still_keys(keys)
    assert len(stills) == 3 and len(lines) == 2, proc.stderr
    from judge.registry import game as get_game

    vote = replace(LiveConfig(), ignore_keys=LiveConfig().ignore_keys + get_game("genial").live.vote_ignores)
    for line, (before, _), (after, hand_left_at) in zip(lines, stills, stills[1:]):
        assert line["live"]["frame"] >= hand_left_at and line["placed"]
        codes = {f["code"] for f in line["flags"]}  # the history carried on agrees with the board
        assert not codes & {"live_context_stale", "board_disagrees_with_replay", "placement_invalid"}, codes
        still = _pair_judgement(keys, before, after, tmp_path, line["live"]["context"], "genial")
        assert reading_key(line, vote) == reading_key(still, vote)
        if reading_key(line) != reading_key(still):  # the totals replay tokens whose values were read with doubt
            assert codes & {"history_scores_doubtful", "token_unread_note"}, codes
    first, second = lines  # the first placement is history for the second, the turn passed on
    given = scene.context
    assert second["live"]["context"]["moves_before"] == given["moves_before"] + [
        {"player": given["mover"], "cells": [h["qr"] for h in first["placed"]],
         **({"bonus_symbol": given["bonus_symbol"]} if given.get("bonus_symbol") else {})}]
    names = list(given["players"])
    assert second["live"]["context"]["mover"] == names[(names.index(given["mover"]) + 1) % len(names)]


def _verdict(result: dict | None) -> tuple:
    """What a settled judgement says about the table (the vote's key with the board) and every flag raised with its
    cells; leaves out the prose (the pose's numbers, how many printed symbols one frame read)."""
    if result is None:
        return ()
    flags = sorted((f["code"], sorted(tuple(c["qr"] if isinstance(c, dict) else c) for c in f.get("cells", [])))
                   for f in result.get("flags", []))
    return reading_key(result), flags


def test_warm_reads_reuse_the_before_photo_and_judge_exactly_as_cold_ones(ingenious_clip):
    # warm reads keep the before photo's reading and the board pose of the scene's first reading frame (no search,
    # no refinement); every settled verdict is the cold one's
    from judge.live_run import LiveJudge, LiveRunConfig
    from judge.registry import game as get_game

    d, ctx, _, keys = ingenious_clip
    frames = expand(keys, CONFIG, seed=7)
    settled = {}
    for warm in (True, False):
        live = LiveJudge(get_game("ingenious"), json.loads(ctx.read_text()), config=LiveRunConfig(warm=warm))
        settled[warm] = [(ev.kind, ev.frame, ev.reading.value if ev.reading else None)
                         for f in frames for ev in live.feed(f)]
        assert live.reads == 9  # the baseline and two placements, three frames each
        assert live.warm_reads == (6 if warm else 0)  # the 2nd and 3rd frame of each still scene
    assert [(k, i, _verdict(r)) for k, i, r in settled[True]] == [(k, i, _verdict(r)) for k, i, r in settled[False]]
    assert [k for k, _, _ in settled[True]].count("settled") == 2
    kept = [r for k, _, r in settled[True] if k == "settled" and r is not None
            and any("pose kept from an earlier frame" in e for e in r["explanation"])]
    assert len(kept) == 2  # the settled (latest) frames were read warm


def test_a_game_that_cannot_carry_its_context_on_flags_later_placements(ingenious_clip):
    from dataclasses import replace

    from judge.live_run import LiveJudge
    from judge.registry import game as get_game

    d, ctx, _, keys = ingenious_clip
    plugin = get_game("ingenious")
    plugin = replace(plugin, live=replace(plugin.live, next_context=None))
    live = LiveJudge(plugin, json.loads(ctx.read_text()))
    settled = [ev.reading.value for f in expand(keys, CONFIG, seed=7) for ev in live.feed(f) if ev.kind == "settled"]
    assert len(settled) == 2
    codes = [{f["code"] for f in r["flags"]} for r in settled]
    assert "live_context_stale" not in codes[0] and "live_context_stale" in codes[1]


def test_a_stream_that_lowers_its_resolution_still_pairs_with_the_kept_board(ingenious_clip):
    """A browser short of CPU sends smaller frames (WebRTC keeps the aspect ratio): they are scaled back to the
    stream's first size, so the next placement still pairs with the board kept before (not 'differ in size')."""
    from judge.live_run import LiveJudge
    from judge.registry import game as get_game

    d, ctx, _, keys = ingenious_clip
    frames = expand(keys, CONFIG, seed=7)
    first_still_end = CONFIG.still_frames
    h, w = frames[0].shape[:2]
    smaller = [f if i < first_still_end else cv2.resize(f, (w * 2 // 3, h * 2 // 3), interpolation=cv2.INTER_AREA)
               for i, f in enumerate(frames)]
    live = LiveJudge(get_game("ingenious"), json.loads(ctx.read_text()))
    settled = [ev.reading.value for f in smaller for ev in live.feed(f) if ev.kind == "settled"]
    assert len(settled) == 2 and all(r["placed"] for r in settled)
