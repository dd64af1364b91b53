"""System components some tests need (installed by scripts/install-test-tools.sh as root): look them up, or
skip the test; ``tests/conftest.py`` turns such a skip into a failure under ``CI=true``."""

from __future__ import annotations

import os
import shutil

import pytest

#: Markers of tests that need a system component installed by scripts/install-test-tools.sh.
MUST_RUN_IN_CI = ("browser", "postgres")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def browser_binaries() -> tuple[str, str]:
    """Debian's Chromium and its driver, or skip (a failure under CI=true)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.skip("Debian chromium + chromium-driver not installed")
    return chromium, driver
