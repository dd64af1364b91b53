"""``cli.py bench``: per-stage milliseconds and peak memory of judging, measured, not guessed.

Frames are rendered first (not timed), then each is judged once through the same pipeline as
``cli.py judge``; a real photo can be timed instead (``--image``, two for a pair game's before and after),
e.g. a 12 MP phone photo. Besides the wall-clock stages, each judgement's CPU time on one core is measured
(OpenCV's threads set to one while timing; decoding the photo included), with the process's peak memory, and
each stage's CPU time beside its wall clock: on a loaded machine the wall clock counts the time other processes
held the core, the CPU time does not.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.errors import BadInput
from judge.images import load_image
from judge.one_core import one_core
from judge.pipeline import judge_images
from judge.registry import game as get_game


@dataclass(frozen=True)
class BenchReport:
    """Timings over several judged frames.

    Attributes
    ----------
    game : str
    frames : int
    image_size : tuple[int, int]
        (width, height) of the (last) frame judged, px.
    stages_ms : dict[str, tuple[float, float, float]]
        Stage -> (mean, p50, max) wall-clock ms.
    total_ms : tuple[float, float, float]
        Whole judgement (load excluded) -> (mean, p50, max) ms.
    load_ms : float
        Decoding the photo (``--image`` only; 0 for rendered frames).
    peak_rss_mb : float
        Process peak resident memory after judging, MB.
    baseline_rss_mb : float
        Peak resident memory before the first judgement (imports, renders), MB.
    failures : dict[str, int]
        Exceptions raised by frames that could not be judged, by message.
    floor_ms : float
        JPEG decode + ArUco + top view at 2 px/mm on the same photo, same run (:mod:`judge.floor`).
    cpu_ms : tuple[float, float, float]
        CPU time of one judgement on one core, decoding the photo(s) included -> (mean, p50, max) ms.
    floor_cpu_ms : float
        The floor in CPU time.
    stages_cpu_ms : dict[str, tuple[float, float, float]]
        Stage -> (mean, p50, max) CPU ms on one core, the same stages as ``stages_ms``.
    """

    game: str
    frames: int
    image_size: tuple[int, int]
    stages_ms: dict[str, tuple[float, float, float]]
    total_ms: tuple[float, float, float]
    load_ms: float
    peak_rss_mb: float
    baseline_rss_mb: float
    failures: dict[str, int] = field(default_factory=dict)
    floor_ms: float = 0.0
    cpu_ms: tuple[float, float, float] = (0.0, 0.0, 0.0)
    floor_cpu_ms: float = 0.0
    stages_cpu_ms: dict[str, tuple[float, float, float]] = field(default_factory=dict)

    def to_json(self) -> dict:
        def trio(t: tuple[float, float, float]) -> dict:
            return {"mean": round(t[0], 2), "p50": round(t[1], 2), "max": round(t[2], 2)}

        return {
            "game": self.game,
            "frames": self.frames,
            "image_size": list(self.image_size),
            "stages_ms": {k: trio(v) for k, v in self.stages_ms.items()},
            "stages_cpu_ms": {k: trio(v) for k, v in self.stages_cpu_ms.items()},
            "total_ms": trio(self.total_ms),
            "load_ms": round(self.load_ms, 2),
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            "baseline_rss_mb": round(self.baseline_rss_mb, 1),
            "failures": self.failures,
            "floor_ms": round(self.floor_ms, 2),
            "ratio_to_floor": round(self.total_ms[0] / self.floor_ms, 2) if self.floor_ms else None,
            "cpu_ms": trio(self.cpu_ms),
            "floor_cpu_ms": round(self.floor_cpu_ms, 2),
            "cpu_ratio_to_floor": round(self.cpu_ms[0] / self.floor_cpu_ms, 2) if self.floor_cpu_ms else None,
        }

    def table(self) -> str:
        """A human-readable table for stderr."""
        w, h = self.image_size
        lines = [f"bench {self.game}: {self.frames} frame(s) of {w}x{h} px (one core)",
                 f"{'stage':<16}{'wall mean':>10}{'p50':>8}{'max':>8}{'CPU mean':>10}{'p50':>8}{'max':>8}   (ms)"]
        for k, (m, p, x) in self.stages_ms.items():
            cm, cp, cx = self.stages_cpu_ms.get(k, (float("nan"),) * 3)
            lines.append(f"{k:<16}{m:>10.1f}{p:>8.1f}{x:>8.1f}{cm:>10.1f}{cp:>8.1f}{cx:>8.1f}")
        m, p, x = self.total_ms
        cm, cp, cx = self.cpu_ms
        lines.append(f"{'total':<16}{m:>10.1f}{p:>8.1f}{x:>8.1f}{cm:>10.1f}{cp:>8.1f}{cx:>8.1f}"
                     "   (CPU: decoding the photo included)")
        if self.floor_ms:
            lines.append(f"floor (JPEG decode + ArUco + top view at 2 px/mm, same photo): {self.floor_ms:.1f} ms; "
                         f"total = {m / self.floor_ms:.1f}x the floor")
        m = self.cpu_ms[0]
        if self.floor_cpu_ms:
            lines.append(f"floor in CPU time: {self.floor_cpu_ms:.1f} ms; CPU = {m / self.floor_cpu_ms:.1f}x the floor")
        if self.load_ms:
            lines.append(f"decode photo: {self.load_ms:.1f} ms")
        lines.append(f"peak memory: {self.peak_rss_mb:.0f} MB (before judging: {self.baseline_rss_mb:.0f} MB)")
        for msg, n in self.failures.items():
            lines.append(f"not judged x{n}: {msg}")
        return "\n".join(lines)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _stats(values: list[float]) -> tuple[float, float, float]:
    a = np.asarray(values, dtype=float)
    return (float(a.mean()), float(np.median(a)), float(a.max()))


def run_bench(game_name: str, frames: int = 10, image_path: str | list[str] | None = None,
              context: dict | None = None,
              render: Callable[[int], tuple[np.ndarray, dict]] | None = None) -> BenchReport:
    """Judge rendered frames (or one photo, repeated) and collect per-stage timings.

    Parameters
    ----------
    game_name : str
    frames : int
        How many rendered frames (or repetitions of ``image_path``).
    image_path : str or list of str, optional
        A photo to time instead of rendered frames (several: judged together, e.g. before and after).
    context : dict, optional
        The context JSON for ``image_path`` (rendered frames bring their own).
    render : callable(seed) -> (image_rgb, truth), optional
        The game's sample renderer (``synth.registry.renderer``; given by the caller, since ``judge/``
        does not import the renderer). Needed unless ``image_path`` is given.
    """
    if frames < 1:
        raise BadInput("--frames must be at least 1")

    game = get_game(game_name)
    load_ms = 0.0
    paths = [image_path] if isinstance(image_path, str) else list(image_path or [])
    if paths:
        t0 = time.perf_counter()
        images = [(load_image(p), Path(p).name) for p in paths]
        load_ms = (time.perf_counter() - t0) * 1000.0
        work = [(images, context)] * frames
    else:
        if render is None:
            raise BadInput("bench: give a photo (--image) or a renderer")
        work = []
        for seed in range(frames):
            image, truth = render(seed)
            work.append(([(image, f"render:{seed}")], truth.get("context")))
    baseline = _peak_rss_mb()
    per_stage: dict[str, list[float]] = {}
    per_stage_cpu: dict[str, list[float]] = {}
    totals: list[float] = []
    cpu: list[float] = []
    failures: dict[str, int] = {}
    with one_core():
        for photos, ctx in work:
            c0, t0 = time.process_time(), time.perf_counter()
            try:
                if paths:  # decoding is part of judging a photo file
                    photos = [(load_image(p), Path(p).name) for p in paths]
                j = judge_images(game, photos, ctx)
            except Exception as exc:  # counted and reported; a bench never stops on one frame
                key = f"{exc.__class__.__name__}: {exc}"[:160]
                failures[key] = failures.get(key, 0) + 1
                continue
            totals.append((time.perf_counter() - t0) * 1000.0)
            cpu.append((time.process_time() - c0) * 1000.0)
            for k, v in j.result.get("timings_ms", {}).items():
                per_stage.setdefault(k, []).append(float(v))
            for k, v in j.cpu_ms.items():
                per_stage_cpu.setdefault(k, []).append(float(v))
        if not totals:
            raise BadInput(f"no frame could be judged: {next(iter(failures))}")
        from judge.floor import FloorConfig, encode_jpeg, measure_floor

        last = paths[-1] if paths else None
        jpeg = Path(last).read_bytes() if last and Path(last).suffix.lower() in (".jpg", ".jpeg") \
            else encode_jpeg(work[0][0][-1][0])
        layout = game.marker_layout() if game.marker_layout is not None else None
        floor_ms, _ = measure_floor(jpeg, layout=layout)
        floor_cpu_ms, _ = measure_floor(jpeg, FloorConfig(cpu=True), layout)
    h, w = work[-1][0][-1][0].shape[:2]
    return BenchReport(
        game=game.name,
        frames=len(totals),
        image_size=(w, h),
        stages_ms={k: _stats(v) for k, v in per_stage.items()},
        total_ms=_stats(totals),
        load_ms=load_ms,
        peak_rss_mb=_peak_rss_mb(),
        baseline_rss_mb=baseline,
        failures=failures,
        floor_ms=floor_ms,
        cpu_ms=_stats(cpu),
        floor_cpu_ms=floor_cpu_ms,
        stages_cpu_ms={k: _stats(v) for k, v in per_stage_cpu.items()},
    )
