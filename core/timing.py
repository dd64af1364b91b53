"""Per-stage wall-clock timing, reported in every judgement's ``timings_ms``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class StageTimer:
    """Accumulate milliseconds per named stage.

    Examples
    --------
    >>> t = StageTimer()
    >>> with t.stage("calibration"):
    ...     pass
    >>> sorted(t.ms)
    ['calibration']
    """

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = self.ms.get(name, 0.0) + (time.perf_counter() - t0) * 1000.0

    def rounded(self) -> dict[str, float]:
        """The timings rounded to 0.01 ms, for JSON output."""
        return {k: round(v, 2) for k, v in self.ms.items()}
