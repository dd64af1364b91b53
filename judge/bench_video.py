"""``cli.py bench --video FILE`` / ``--clip``: per-frame cost of live judging on video, with the floor.

Every frame of the video goes through :class:`judge.live_run.LiveJudge` as ``cli.py live`` does; the
report splits frames into *tracked* (nothing moved since the table settled, or motion: only the motion
measure runs) and *read* (a vote of the settling window: the game's detection runs), the read ones again into
*read_cold* (detection from scratch: the first read of a still scene, and every read of a game without a
warm detection) and *read_warm* (later reads of the same still scene, which reuse what the first found), and
gives the floor (JPEG decode + ArUco +
top view at 2 px/mm, :mod:`judge.floor`) measured on a frame of the same video in the same run, and the
ratios. Per-frame costs and the floor are CPU time of this process on one core (OpenCV's threads are set to
one while it runs), so a loaded machine does not inflate them; each stage is given in both, wall-clock and CPU
milliseconds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from core.errors import BadInput
from judge.one_core import one_core


@dataclass(frozen=True)
class VideoBenchReport:
    """Timings of live judging over one video.

    Attributes
    ----------
    game, source : str
    frames : int
    image_size : (width, height) px
    stages_ms : dict[str, tuple[float, float, float]]
        Stage -> (mean over all frames, p50 over the frames that ran it, max) wall-clock ms. ``decode`` is
        reading the video frame.
    stages_cpu_ms : dict[str, tuple[float, float, float]]
        The same stages in CPU ms on one core.
    per_frame_ms : dict[str, tuple[float, float, float, int]]
        ``all`` / ``tracked`` / ``read`` / ``read_cold`` / ``read_warm`` -> (mean, p50, max, count) of the
        whole per-frame cost, CPU ms on one core.
    floor_ms : float
    floor_stages_ms : dict[str, float]
    events : list[str]
        What settled, in order.
    """

    game: str
    source: str
    frames: int
    image_size: tuple[int, int]
    stages_ms: dict[str, tuple[float, float, float]]
    per_frame_ms: dict[str, tuple[float, float, float, int]]
    floor_ms: float
    floor_stages_ms: dict[str, float]
    events: list[str]
    stages_cpu_ms: dict[str, tuple[float, float, float]] = field(default_factory=dict)

    def ratio(self, kind: str = "all") -> float:
        """Mean per-frame cost of ``kind`` frames over the floor."""
        return self.per_frame_ms[kind][0] / self.floor_ms if self.floor_ms > 0 else float("nan")

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "source": self.source,
            "frames": self.frames,
            "image_size": list(self.image_size),
            "stages_ms": {k: {"mean": round(m, 2), "p50": round(p, 2), "max": round(x, 2)}
                          for k, (m, p, x) in self.stages_ms.items()},
            "stages_cpu_ms": {k: {"mean": round(m, 2), "p50": round(p, 2), "max": round(x, 2)}
                              for k, (m, p, x) in self.stages_cpu_ms.items()},
            "per_frame_ms": {k: {"mean": round(m, 2), "p50": round(p, 2), "max": round(x, 2), "frames": n}
                             for k, (m, p, x, n) in self.per_frame_ms.items()},
            "floor_ms": round(self.floor_ms, 2),
            "floor_stages_ms": {k: round(v, 2) for k, v in self.floor_stages_ms.items()},
            "ratio_to_floor": {k: round(self.ratio(k), 2) for k in self.per_frame_ms if self.per_frame_ms[k][3]},
            "events": self.events,
        }

    def table(self) -> str:
        """A human-readable table for stderr."""
        w, h = self.image_size
        lines = [f"bench {self.game} on video {self.source}: {self.frames} frames of {w}x{h} px (one core)",
                 f"{'stage':<16}{'wall mean':>10}{'p50':>8}{'max':>8}{'CPU mean':>10}{'p50':>8}{'max':>8}"
                 "   (ms; mean: all frames)"]
        for k, (m, p, x) in self.stages_ms.items():
            cm, cp, cx = self.stages_cpu_ms.get(k, (float("nan"),) * 3)
            lines.append(f"{k:<16}{m:>10.1f}{p:>8.1f}{x:>8.1f}{cm:>10.1f}{cp:>8.1f}{cx:>8.1f}")
        lines.append(f"{'per frame (CPU)':<16}{'mean ms':>10}{'p50 ms':>10}{'max ms':>10}{'frames':>8}{'x floor':>9}")
        for k, (m, p, x, n) in self.per_frame_ms.items():
            if n:
                lines.append(f"{k:<16}{m:>10.1f}{p:>10.1f}{x:>10.1f}{n:>8}{self.ratio(k):>9.1f}")
        fs = ", ".join(f"{k} {v:.1f}" for k, v in self.floor_stages_ms.items())
        lines.append(f"floor (JPEG decode + ArUco + top view at 2 px/mm, same video, CPU): {self.floor_ms:.1f} ms "
                     f"({fs})")
        lines.extend(self.events)
        return "\n".join(lines)


def _stats(values: list[float]) -> tuple[float, float, float]:
    a = np.asarray(values, dtype=float)
    return (float(a.mean()), float(np.median(a)), float(a.max())) if a.size else (0.0, 0.0, 0.0)


def _warm_up(game, cap, context: dict | None) -> None:
    """Judge the video's first frame once, untimed, so that the timed run is a warm process (the game's modules
    imported, its caches filled), then rewind the video."""
    import cv2

    from judge.pipeline import judge_images

    ok, bgr = cap.read()
    cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
    if not ok or bgr is None:
        return
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    photos = 2 if game.live.before == "previous" else 1
    try:
        judge_images(game, [(rgb, "warm-up")] * photos, context)
    except Exception:  # noqa: BLE001 - a first frame that cannot be judged still warms the modules up
        pass


def run_video_bench(game_name: str, video: str, context: dict | None = None, source: str | None = None,
                    warm: bool = True) -> VideoBenchReport:
    """Time live judging of a video file, frame by frame, as ``cli.py live`` judges it.

    Parameters
    ----------
    game_name : str
    video : str
        A video file (``cli.py bench --clip`` renders one first, untimed).
    context : dict, optional
        The game's context JSON.
    source : str, optional
        How to name the video in the report (default: its path).
    warm : bool
        Let the game's warm detection carry what the first read of a still scene found (False: every read
        from scratch, for comparison).
    """

    from judge.floor import FloorConfig, encode_jpeg, measure_floor
    from judge.live_cli import frames_of, open_source
    from judge.live_run import LiveJudge, LiveRunConfig, describe
    from judge.registry import game as get_game

    game = get_game(game_name)
    source = source or video
    live = LiveJudge(game, context, source=source, config=LiveRunConfig(warm=warm))
    cap = open_source(video)
    _warm_up(game, cap, context)
    stages: dict[str, list[float]] = {}
    stages_cpu: dict[str, list[float]] = {}
    totals: dict[str, list[float]] = {"all": [], "tracked": [], "read": [], "read_cold": [], "read_warm": []}
    events: list[str] = []
    last = None
    it = frames_of(cap, video)
    try:
        with one_core():
            while True:
                c0, t0 = time.process_time(), time.perf_counter()
                image = next(it, None)
                decode_ms = (time.perf_counter() - t0) * 1000.0
                decode_cpu_ms = (time.process_time() - c0) * 1000.0
                if image is None:
                    break
                warm_before = live.warm_reads
                events.extend(describe(ev) for ev in live.feed(image))
                total = (time.process_time() - c0) * 1000.0
                timings = {"decode": decode_ms, **live.last_timings_ms}
                for k, v in timings.items():
                    stages.setdefault(k, []).append(v)
                for k, v in {"decode": decode_cpu_ms, **live.last_cpu_ms}.items():
                    stages_cpu.setdefault(k, []).append(v)
                totals["all"].append(total)
                if "reading" in live.last_timings_ms:
                    totals["read"].append(total)
                    totals["read_warm" if live.warm_reads > warm_before else "read_cold"].append(total)
                else:
                    totals["tracked"].append(total)
                last = image
            if last is None:
                raise BadInput(f"{video}: no frame could be read")
            floor, floor_stages = measure_floor(encode_jpeg(last), FloorConfig(cpu=True), live.layout)
    finally:
        cap.release()
    n = len(totals["all"])
    h, w = last.shape[:2]
    return VideoBenchReport(
        game=game.name,
        source=source,
        frames=n,
        image_size=(w, h),
        stages_ms={k: (float(np.sum(v)) / n, *_stats(v)[1:]) for k, v in stages.items()},
        per_frame_ms={k: (*_stats(v), len(v)) for k, v in totals.items()},
        floor_ms=floor,
        floor_stages_ms=floor_stages,
        events=events,
        stages_cpu_ms={k: (float(np.sum(v)) / n, *_stats(v)[1:]) for k, v in stages_cpu.items()},
    )
