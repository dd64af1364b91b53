"""The process-wide one-BLAS-thread policy (core/blas.py) that the CLI, the page and the test session apply."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.cli_helpers import ROOT


def test_loaded_blas_libraries_run_one_thread():
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    from core.blas import single_thread_blas

    single_thread_blas()
    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert blas, "NumPy and SciPy load a BLAS library"
    assert all(lib["num_threads"] == 1 for lib in blas), blas


def test_a_fresh_process_loads_blas_with_one_thread():
    code = ("from core.blas import single_thread_blas; single_thread_blas(); import numpy, scipy.linalg; "
            "from threadpoolctl import threadpool_info; "
            "print(sorted({l['num_threads'] for l in threadpool_info() if l['user_api'] == 'blas'}))")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    fresh = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert fresh.returncode == 0, fresh.stderr
    assert fresh.stdout.strip() == "[1]"


def test_a_users_own_setting_is_kept(monkeypatch):
    from core.blas import single_thread_blas

    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    single_thread_blas()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"
