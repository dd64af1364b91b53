"""``cli.py bench``: every stage's CPU time reported beside its wall clock (issue 11: wall clocks mean nothing on a
loaded machine), and ``StageTimer`` measuring both."""

from __future__ import annotations

import json
import time

import pytest

from core.timing import StageTimer
from tests.cli_helpers import run_cli


def test_stage_timer_tells_waiting_from_working():
    t = StageTimer()
    with t.stage("waiting"):
        time.sleep(0.08)
    with t.stage("working"):
        end = time.process_time() + 0.05
        while time.process_time() < end:
            pass
    assert t.ms["waiting"] >= 75 and t.cpu_ms["waiting"] < 0.5 * t.ms["waiting"]
    assert t.cpu_ms["working"] >= 45
    assert t.rounded_cpu() == {k: round(v, 2) for k, v in t.cpu_ms.items()}


def test_stage_timer_adds_up_a_stage_entered_twice():
    t = StageTimer()
    for _ in range(2):
        with t.stage("s"):
            end = time.process_time() + 0.02
            while time.process_time() < end:
                pass
    assert t.cpu_ms["s"] >= 38


def test_bench_reports_each_stages_cpu_time_beside_its_wall_clock():
    run = run_cli("bench", "--game", "carrotain", "--frames", "1")
    assert run.rc == 0, run.stderr
    out = run.json
    wall, cpu = out["stages_ms"], out["stages_cpu_ms"]
    assert set(cpu) == set(wall) and {"views", "chips", "board_maps", "boards", "calibration"} <= set(cpu)
    for k, v in cpu.items():
        assert 0 <= v["p50"] <= v["max"], k
    assert cpu["boards"]["mean"] > 0 and cpu["chips"]["mean"] > 0
    # the stages are parts of the judgement: their CPU time adds up to no more than the whole judgement's
    assert sum(v["mean"] for v in cpu.values()) <= out["cpu_ms"]["mean"] * 1.02 + 1.0
    assert sum(v["mean"] for v in cpu.values()) == pytest.approx(out["cpu_ms"]["mean"], rel=0.35)
    assert "CPU mean" in run.stderr and "board_maps" in run.stderr


def test_video_bench_reports_each_stages_cpu_time_beside_its_wall_clock(tmp_path):
    """A still table filmed for a second: the frames are read (a vote), the stages given in wall and CPU ms."""
    import cv2

    from synth.registry import renderer

    image, truth = renderer("kaleido")(0)
    video = tmp_path / "still.avi"
    h, w = image.shape[:2]
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (w, h))
    for _ in range(10):
        out.write(cv2.cvtColor(image, cv2.COLOR_RGB2BGR))
    out.release()
    ctx = tmp_path / "ctx.json"
    ctx.write_text(json.dumps(truth["context"]))
    run = run_cli("bench", "--game", "kaleido", "--video", str(video), "--context", str(ctx))
    assert run.rc == 0, run.stderr
    out_json = run.json
    wall, cpu = out_json["stages_ms"], out_json["stages_cpu_ms"]
    assert set(cpu) == set(wall) and {"decode", "motion", "reading"} <= set(cpu)
    assert cpu["reading"]["max"] > 0
    assert "CPU mean" in run.stderr
