"""Run a measurement on one core: OpenCV's worker threads and the BLAS/OpenMP pools behind NumPy and SciPy
(OpenBLAS starts worker threads for matrix products, and ``time.process_time`` counts their CPU time too) are
limited to one thread for the duration, then restored. The bench commands time the judge inside it, so their
"CPU time, one core" is what one core does."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import cv2
from threadpoolctl import threadpool_limits


@contextmanager
def one_core() -> Iterator[None]:
    """Limit OpenCV and the native thread pools (BLAS, OpenMP) to one thread inside the ``with`` block."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        cv2.setNumThreads(threads)
