#!/usr/bin/env bash
# Installs what the test suite needs on a fresh machine: a virtualenv with the pinned runtime and test
# dependencies, and from Debian: headless Chromium with its driver (the real-browser page tests), a CJK font
# (the Japanese game names in the browser's screenshots) and PostgreSQL (the ledger tests start a private
# server with initdb + pg_ctl). Without root + apt the system packages are left alone: those tests are then
# skipped, except under CI=true, where a test that cannot run fails.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt

DEBIAN_PACKAGES=(chromium chromium-driver fonts-noto-cjk postgresql)
have_pg() { command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; }
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
fc-list 2>/dev/null | grep -qi "CJK" || missing+=(fonts-noto-cjk)
have_pg || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
          apt-get install -y -qq --no-install-recommends "${DEBIAN_PACKAGES[@]}" >/dev/null); then
      echo "error: apt-get could not install ${DEBIAN_PACKAGES[*]}" >&2
      [ "${CI:-}" = true ] && exit 1
    fi
  else
    echo "note: not installed (needs root + apt): ${missing[*]}; the tests that need them are skipped" \
         "(and fail under CI=true)" >&2
  fi
fi
