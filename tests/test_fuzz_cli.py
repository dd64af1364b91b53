"""Fuzz the CLI with broken input (tests/fuzz_cli.py makes the seeded cases): truncated and byte-flipped
photos of every game, decompression bombs, odd JSON contexts / profiles / states. Every case must end in
exit 0, 2 or 3 with one line on stderr (or one JSON object on stdout): 0 tracebacks, 0 exit-1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from tests.fuzz_cli import ROOT, build_cases


def _run_fuzz(tmp_path, seed: int, photo_mutations: int, json_cases: int | None, timeout_s: float) -> Counter:
    cases = build_cases(tmp_path, seed, photo_mutations, json_cases)
    spec = tmp_path / "cases.json"
    spec.write_text(json.dumps(cases))
    p = subprocess.run([sys.executable, "-m", "tests.fuzz_cli", str(spec)], cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout_s, stdin=subprocess.DEVNULL)
    outcomes = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    assert p.returncode == 0 and len(outcomes) == len(cases), (
        f"driver died (rc {p.returncode}) after {len(outcomes)}/{len(cases)} cases, at "
        f"{cases[len(outcomes)]['name'] if len(outcomes) < len(cases) else '-'}: {p.stderr[-1500:]}")
    bad = []
    for o in outcomes:
        err_lines = [ln for ln in o["stderr"].splitlines() if ln.strip()]
        if o["escaped"] or o["rc"] not in (0, 2, 3) or "Traceback" in o["stderr"]:
            bad.append(f"{o['name']}: rc {o['rc']}: {o['escaped'] or o['stderr']}"[-600:])
        elif o["rc"] != 0 and (len(err_lines) != 1 or o["stdout_lines"]):
            bad.append(f"{o['name']}: rc {o['rc']} but stderr has {len(err_lines)} lines / stdout {o['stdout'][:80]!r}")
        elif o["rc"] == 0 and not o["stdout_one_object"]:
            bad.append(f"{o['name']}: exit 0 without exactly one JSON object on stdout")
    assert not bad, "\n".join(bad)
    return Counter(o["rc"] for o in outcomes)


def test_fuzz_quick(tmp_path):
    """A small seeded sample of every kind of case (a few seconds of judging)."""
    codes = _run_fuzz(tmp_path, seed=1, photo_mutations=4, json_cases=8, timeout_s=600)
    assert codes[2] > 0  # the broken input was refused as such, not judged
    assert sum(codes.values()) >= 40


@pytest.mark.slow
def test_fuzz_full(tmp_path):
    """Every odd JSON case and 24 corruptions of each game's photo."""
    codes = _run_fuzz(tmp_path, seed=2026, photo_mutations=24, json_cases=None, timeout_s=1800)
    assert codes[2] > 0 and sum(codes.values()) >= 150
