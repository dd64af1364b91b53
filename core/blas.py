"""One BLAS thread for the whole process.

The judge's linear algebra is small (least squares over a few hundred points, 3x3 homographies, 2x2 fits), so
the worker threads OpenBLAS starts for NumPy and SciPy never pay: they spin while they wait for work. Measured on
the two bundled Carrotain samples judged three times each (2-core machine, another process busy): 3.3-16 s of CPU
and 5-65 s wall with the default two BLAS threads, 1.6-1.8 s of CPU with one - the spinning threads take the
core the judge needs. The entry points (``cli.main``, ``app.py``, the test session) call
:func:`single_thread_blas` first; OpenCV's own thread pool is left as it is.
"""

from __future__ import annotations

import os
import sys

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def single_thread_blas() -> None:
    """Hold BLAS to one thread: by the environment for libraries not loaded yet (and child processes), and
    through threadpoolctl for those already loaded. A value the user set in the environment is kept."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    if "numpy" in sys.modules and os.environ.get("OPENBLAS_NUM_THREADS") == "1":
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
