"""CLI start-up: a command imports what it needs when it runs (measured by ``python -X importtime``; here the
structure that keeps it fast is asserted, not a time)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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


#: The built-in games and the sample photos a ``cli.py judge`` call reads (before, after for the tile games).
SAMPLES = {
    "carrotain": ("carrotain/carrotain_5",),
    "kaleido": ("kaleido/kaleido_1",),
    "cmyk": ("cmyk/cmyk_1",),
    "genial": ("genial/pair_before", "genial/pair_after"),
    "ingenious": ("ingenious/first_move_before", "ingenious/first_move_after"),
}
#: Heavy libraries a judgement never needs (scipy.special / scipy.optimize alone cost a CLI call ~0.3-0.6 s; Pillow
#: ~40 ms: a JPEG's size is read from its header). Shapely: Carrotain's acrylic boards only.
HEAVY = ("scipy", "shapely", "streamlit", "PIL", "sklearn", "matplotlib", "pandas")

_JUDGE_DRIVER = """
import contextlib, io, json, os, sys
photos = [os.path.abspath(p) for p in sys.argv[3:]]
seen = {}
def at_open(event, args):
    if event == "open" and "modules" not in seen and isinstance(args[0], str) and os.path.abspath(args[0]) in photos:
        seen["modules"] = sorted(sys.modules)
sys.addaudithook(at_open)
import cli
with contextlib.redirect_stdout(io.StringIO()):
    rc = cli.main(["judge", "--game", sys.argv[1], "--no-ledger", "--context", sys.argv[2], *photos])
print(json.dumps({"rc": rc, "before": seen.get("modules", []), "after": sorted(sys.modules)}))
"""


def _judge_modules(game: str, tmp_path: Path) -> tuple[int, set[str], set[str]]:
    """``cli.py judge --game game`` on its sample photos in a fresh interpreter: exit code, the modules loaded when
    the first photo file is opened, and those loaded at the end."""
    stems = SAMPLES[game]
    ctx = tmp_path / "context.json"
    truth = json.loads((ROOT / "sample_images" / f"{stems[-1]}.json").read_text(encoding="utf-8"))
    ctx.write_text(json.dumps(truth["context"]), encoding="utf-8")
    photos = [str(ROOT / "sample_images" / f"{s}.jpg") for s in stems]
    out = subprocess.run([sys.executable, "-c", _JUDGE_DRIVER, game, str(ctx), *photos], cwd=ROOT,
                         capture_output=True, text=True, timeout=300, check=True).stdout
    got = json.loads(out.splitlines()[-1])
    return got["rc"], set(got["before"]), set(got["after"])


def _other_games_modules(game: str, mods: set[str]) -> set[str]:
    """Modules of the other built-in games (plugin, vision, scoring), but the shared top-view geometry
    ``vision.carrotain_view`` that every game's ``vision.view`` maps through."""
    others = [g for g in SAMPLES if g != game]
    prefixes = tuple(f"{pkg}.{g}" for g in others for pkg in ("judge.games", "vision", "scoring"))
    return {m for m in mods if m.startswith(prefixes) and m != "vision.carrotain_view"}


@pytest.mark.parametrize("game", sorted(SAMPLES))
def test_judge_imports_only_what_the_game_needs(game, tmp_path):
    rc, before, after = _judge_modules(game, tmp_path)
    assert rc == 0
    assert f"judge.games.{game}" in before  # the driver saw the photo being read after the game was loaded
    allowed = {"shapely"} if game == "carrotain" else set()
    heavy_before = {m.split(".")[0] for m in before} & (set(HEAVY) - allowed)
    heavy_after = {m.split(".")[0] for m in after} & (set(HEAVY) - allowed)
    assert not heavy_before, f"imported before the photo is read: {sorted(heavy_before)}"
    assert not heavy_after, f"imported by the judgement: {sorted(heavy_after)}"
    assert not _other_games_modules(game, after), sorted(_other_games_modules(game, after))
