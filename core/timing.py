"""Per-stage timing: wall-clock milliseconds (every judgement's ``timings_ms``) and CPU milliseconds beside them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class StageTimer:
    """Accumulate milliseconds per named stage, wall clock and CPU time.

    ``ms`` is wall-clock time (``time.perf_counter``), what the judgement's ``timings_ms`` reports; ``cpu_ms``
    is this process's CPU time over the same stage (``time.process_time``: every thread's, so it is the cost on
    one core only when the native thread pools are limited to one thread, as ``judge.one_core`` does). On a
    loaded machine the wall clock also counts the time other processes held the core; the CPU time does not.

    Examples
    --------
    >>> t = StageTimer()
    >>> with t.stage("calibration"):
    ...     pass
    >>> sorted(t.ms), sorted(t.cpu_ms)
    (['calibration'], ['calibration'])
    """

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self.cpu_ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        c0, t0 = time.process_time(), time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = self.ms.get(name, 0.0) + (time.perf_counter() - t0) * 1000.0
            self.cpu_ms[name] = self.cpu_ms.get(name, 0.0) + (time.process_time() - c0) * 1000.0

    def rounded(self) -> dict[str, float]:
        """The wall-clock timings rounded to 0.01 ms, for JSON output."""
        return {k: round(v, 2) for k, v in self.ms.items()}

    def rounded_cpu(self) -> dict[str, float]:
        """The CPU timings rounded to 0.01 ms."""
        return {k: round(v, 2) for k, v in self.cpu_ms.items()}
