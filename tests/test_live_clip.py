"""``cli.py live`` on rendered clips (synth/clip.py: a hand places pieces and leaves, light flicker, sensor
noise, Motion-JPEG video): one settled judgement after the hand has left, equal to the still photo's; a nudged
piece re-settles; Carrotain keeps the chips-only scene as the "before" photo; bad sources exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from judge.live import reading_key
from synth.clip import ClipConfig, clip_scene, expand, key_frames, write_video

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ClipConfig()


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def kaleido_clips(tmp_path_factory):
    """Both stories of one Kaleido scene: (dir, context path, {story: (video, keys)})."""
    d = tmp_path_factory.mktemp("clips")
    scene = clip_scene("kaleido", 1)
    ctx = d / "ctx.json"
    ctx.write_text(json.dumps(scene.context))
    out = {}
    for story in ("place", "nudge"):
        keys = key_frames(scene, story, CONFIG)
        out[story] = (write_video(expand(keys, CONFIG, seed=7), d / f"{story}.avi", CONFIG.fps), keys)
    return d, ctx, out


def _lines(proc: subprocess.CompletedProcess) -> list[dict]:
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]


def _still_judgement(image_rgb, tmp: Path, ctx: Path) -> dict:
    photo = tmp / "still.jpg"
    cv2.imwrite(str(photo), cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 95])
    proc = _cli("judge", "--game", "kaleido", "--context", str(ctx), "--no-ledger", str(photo))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_one_settled_judgement_after_the_hand_left_equal_to_the_still_photo(kaleido_clips, tmp_path):
    d, ctx, clips = kaleido_clips
    video, keys = clips["place"]
    ledger = tmp_path / "live.sqlite"
    proc = _cli("live", "--game", "kaleido", "--source", str(video), "--context", str(ctx), "--ledger", str(ledger),
                "--table", "Table 4")
    lines = _lines(proc)
    assert len(lines) == 1, proc.stderr
    got = lines[0]
    hand_left_at = sum(n for _, n in keys[:-1])  # first frame without the hand
    assert got["live"]["status"] == "settled" and got["live"]["frame"] >= hand_left_at
    still = _still_judgement(keys[-1][0], tmp_path, ctx)
    assert reading_key(got) == reading_key(still)
    from ledger import Ledger

    recorded = Ledger(ledger).judgements()
    assert len(recorded) == 1 and recorded[0].source.startswith("live:")
    assert got["judgement_id"] == recorded[0].id
    assert recorded[0].table == "Table 4"   # the hall's table name travels with a live judgement too


def test_a_nudged_piece_resettles_with_the_new_judgement(kaleido_clips, tmp_path):
    d, ctx, clips = kaleido_clips
    video, keys = clips["nudge"]
    proc = _cli("live", "--game", "kaleido", "--source", str(video), "--context", str(ctx), "--no-ledger")
    lines = _lines(proc)
    assert len(lines) == 2, proc.stderr
    assert "moving" in proc.stderr
    first, second = lines
    assert first["live"]["frame"] < keys[0][1] <= second["live"]["frame"] - keys[1][1] - keys[2][1]
    assert reading_key(first) != reading_key(second)
    assert reading_key(second) == reading_key(_still_judgement(keys[-1][0], tmp_path, ctx))


def test_carrotain_keeps_the_chips_alone_as_the_before_photo(tmp_path):
    from judge.live_run import LiveJudge
    from judge.registry import game as get_game

    scene = clip_scene("carrotain", 1)
    frames = expand(key_frames(scene, "place", CONFIG), CONFIG, seed=3)
    live = LiveJudge(get_game("carrotain"), scene.context)
    kinds = []
    for f in frames:
        for ev in live.feed(f):
            kinds.append((ev.kind, ev.votes[0].reading.ok if ev.votes else None))
            if ev.kind == "settled" and ev.votes[0].reading.ok:
                assert "before" in live.last_timings_ms  # the challenge was judged with the before photo
    assert kinds[0] == ("settled", False) and live.before is not None
    assert ("settled", True) in kinds
    assert live.before_frame is not None and live.before_frame < CONFIG.still_frames  # the chips-alone scene


@pytest.mark.parametrize("make", ["missing", "not_video", "truncated", "no_camera"])
def test_bad_source_is_one_line_and_exit_2(tmp_path, make, kaleido_clips):
    src = tmp_path / "clip.avi"
    if make == "not_video":
        src.write_text("this is not a video")
    elif make == "truncated":
        src.write_bytes(kaleido_clips[2]["place"][0].read_bytes()[:5000])
    arg = "99" if make == "no_camera" else str(src)
    proc = _cli("live", "--game", "kaleido", "--source", arg, "--no-ledger", timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_bench_on_video_reports_per_frame_cost_split_and_the_floor(kaleido_clips):
    d, ctx, clips = kaleido_clips
    video, keys = clips["place"]
    proc = _cli("bench", "--game", "kaleido", "--video", str(video), "--context", str(ctx))
    assert proc.returncode == 0, proc.stderr
    rep = json.loads(proc.stdout)
    n = sum(k for _, k in keys)
    per = rep["per_frame_ms"]
    assert rep["frames"] == n == per["all"]["frames"] == per["tracked"]["frames"] + per["read"]["frames"]
    assert per["read"]["frames"] == 3  # one vote window; every other frame only measures motion
    assert per["tracked"]["mean"] < per["read"]["mean"]
    assert rep["floor_ms"] > 0 and set(rep["floor_stages_ms"]) == {"decode", "aruco", "top_view"}
    assert rep["ratio_to_floor"]["all"] == pytest.approx(per["all"]["mean"] / rep["floor_ms"], rel=0.01)
    assert "floor" in proc.stderr and "x floor" in proc.stderr
    assert any("settled (judged)" in e for e in rep["events"])


def test_bench_on_a_photo_prints_the_floor_and_ratio():
    proc = _cli("bench", "--game", "cmyk", "--frames", "1")
    assert proc.returncode == 0, proc.stderr
    rep = json.loads(proc.stdout)
    assert rep["floor_ms"] > 0
    assert rep["ratio_to_floor"] == pytest.approx(rep["total_ms"]["mean"] / rep["floor_ms"], rel=0.01)
    assert "x the floor" in proc.stderr
    assert rep["cpu_ms"]["mean"] > 0 and rep["floor_cpu_ms"] > 0
    assert rep["cpu_ratio_to_floor"] == pytest.approx(rep["cpu_ms"]["mean"] / rep["floor_cpu_ms"], rel=0.01)


def test_bench_times_a_photo_pair_of_a_pair_game(tmp_path):
    d = ROOT / "sample_images" / "ingenious"
    ctx = tmp_path / "ctx.json"
    ctx.write_text(json.dumps(json.loads((d / "first_move_after.json").read_text())["context"]))
    proc = _cli("bench", "--game", "ingenious", "--frames", "2", "--context", str(ctx),
                "--image", str(d / "first_move_before.jpg"), str(d / "first_move_after.jpg"))
    assert proc.returncode == 0, proc.stderr
    rep = json.loads(proc.stdout)
    assert rep["frames"] == 2 and not rep["failures"]
    assert {"board_1", "board_2"} <= set(rep["stages_ms"])  # both photos judged as one pair
    assert rep["cpu_ms"]["mean"] > 0 and rep["peak_rss_mb"] >= rep["baseline_rss_mb"]
