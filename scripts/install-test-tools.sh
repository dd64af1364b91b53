#!/usr/bin/env bash
# Installs what the test suite needs on a fresh machine: a virtualenv with the pinned runtime and test
# dependencies, and Debian's headless Chromium for the real-browser page test (skipped if apt is unavailable).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
if ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || echo "note: could not install chromium; the browser test will be skipped" >&2
  else
    echo "note: chromium not installed (needs root + apt); the browser test will be skipped" >&2
  fi
fi
