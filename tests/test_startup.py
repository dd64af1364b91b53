"""CLI start-up: a command imports what it needs when it runs (measured by ``python -X importtime``; here the
structure that keeps it fast is asserted, not a time)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return set(out.split())


def test_help_imports_no_numpy_opencv_or_scipy():
    mods = _modules_after("import cli\ncli.build_parser()")
    assert not {m.split(".")[0] for m in mods} & {"numpy", "cv2", "scipy", "shapely", "streamlit"}


def test_one_game_is_loaded_without_the_others_or_scipy():
    mods = _modules_after("from judge.registry import game\ngame('kaleido')")
    assert "judge.games.kaleido" in mods
    assert not {"judge.games.cmyk", "judge.games.carrotain"} & mods
    assert not any(m.startswith("scipy") for m in mods)


def test_cmyk_judge_path_does_not_import_scipy_before_the_photo_is_read():
    mods = _modules_after("from judge.registry import game\ngame('cmyk')\nimport judge.pipeline, judge.images")
    assert not any(m.startswith("scipy") for m in mods)
