"""The game plugin API: a toy game registered from outside (``tests/toy_game.py``) is judged through the real
CLI (a subprocess, registered by ``TABLE_JUDGE_PLUGINS``) and the real page (AppTest, ``judge.registry.register``)
with no edit anywhere else; the built-in games' typed adjudications write exactly the CLI contract."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from judge import registry
from tests.cli_helpers import assert_one_line_error, run_cli

ROOT = Path(__file__).resolve().parents[1]
TOY_ENV = {**os.environ, registry.ENV_VAR: "tests.toy_game"}


def test_builtin_games_come_from_the_registry_in_menu_order():
    assert registry.names()[:3] == ("carrotain", "kaleido", "cmyk")
    for name, plugin in registry.plugins().items():
        assert plugin.name == name and plugin.title and plugin.ui_module.startswith("ui.games.")


@pytest.mark.parametrize("game", ["carrotain", "kaleido", "cmyk"])
def test_typed_adjudication_writes_exactly_the_contract(game):
    """A recorded judgement (a sample's truth) read back into the game's adjudication type writes the same
    JSON, same keys in the same order; the summary and headline read it."""
    plugin = registry.game(game)
    for truth_path in sorted((ROOT / "sample_images" / game).glob("*.json")):
        expected = json.loads(truth_path.read_text(encoding="utf-8"))["expected"]
        adj = plugin.adjudication_from_json(expected)
        again = adj.to_json()
        assert list(again) == list(expected)
        assert json.dumps(again, sort_keys=False) == json.dumps(expected, sort_keys=False)
        assert plugin.summary(expected)
        assert plugin.headline(again) == plugin.headline(expected)


def test_unknown_game_without_the_plugin_is_exit_2():
    assert_one_line_error(run_cli("judge", "--game", "toy", "--no-ledger", "x.jpg"), 2, "unknown game", "carrotain")


def test_toy_game_through_the_cli(tmp_path):
    """games -> render -> judge (overlay, ledger) -> detect -> score -> ledger export, all for a game the CLI
    has never heard of."""
    listed = run_cli("games", env=TOY_ENV)
    assert listed.rc == 0, listed.stderr
    assert "toy" in [g["name"] for g in listed.json["games"]]

    rendered = run_cli("render", "--game", "toy", "--seed", "3", "--out", str(tmp_path), env=TOY_ENV)
    assert rendered.rc == 0, rendered.stderr
    truth = json.loads(Path(rendered.json["truth"]).read_text())
    ctx = tmp_path / "ctx.json"
    ctx.write_text(json.dumps(truth["context"]))
    led = tmp_path / "l.sqlite"
    overlay = tmp_path / "ov.png"
    judged = run_cli("judge", "--game", "toy", "--context", str(ctx), "--overlay", str(overlay), "--ledger", str(led),
                     rendered.json["image"], env=TOY_ENV)
    assert judged.rc == 0, judged.stderr
    out = judged.json
    assert out["squares"] == truth["expected"]["squares"] == 4
    assert {"game", "scores", "flags", "explanation", "timings_ms", "judgement_id"} <= set(out)
    assert "squares" in out["timings_ms"]
    ov = np.asarray(Image.open(overlay))
    assert ov.shape[:2] == (480, 640) and (ov[..., 1] == 255).sum() > 100  # the green rings drawn from the result

    det = run_cli("detect", "--game", "toy", rendered.json["image"], env=TOY_ENV)
    assert det.rc == 0, det.stderr
    state = tmp_path / "state.json"
    state.write_text(det.stdout)
    scored = run_cli("score", "--game", "toy", "--context", str(ctx), "--no-ledger", str(state), env=TOY_ENV)
    assert scored.rc == 0 and scored.json["squares"] == 4, scored.stderr

    exported = run_cli("ledger", "export-csv", "--ledger", str(led), "--out", str(tmp_path / "csv"), env=TOY_ENV)
    assert exported.rc == 0, exported.stderr
    rows = list(csv.DictReader(open(tmp_path / "csv" / "judgements.csv", encoding="utf-8")))
    assert [(r["game"], r["summary"]) for r in rows] == [("toy", "4 square(s)")]

    blank = tmp_path / "blank.png"
    Image.fromarray(np.full((100, 100, 3), 120, np.uint8)).save(blank)
    assert_one_line_error(run_cli("judge", "--game", "toy", "--no-ledger", str(blank), env=TOY_ENV), 3, "red squares")
    assert_one_line_error(run_cli("register", "--game", "toy", "--out", str(tmp_path / "p.json"), str(blank),
                                  env=TOY_ENV), 2, "register")


@pytest.fixture()
def toy_registered(tmp_path, monkeypatch):
    from tests.toy_game import PLUGIN

    monkeypatch.setenv("TABLE_JUDGE_LEDGER", str(tmp_path / "page.sqlite"))
    registry.register(PLUGIN)
    yield tmp_path / "page.sqlite"
    registry.reset()


def test_toy_game_through_the_page(toy_registered):
    """The page offers the registered game, takes a camera photo through the game's own photo input and form,
    judges it, shows the game's result panel and the evidence, records it, and lists it in the history."""
    import io

    from streamlit.testing.v1 import AppTest

    from ledger import Ledger
    from tests.toy_game import draw_table

    buf = io.BytesIO()
    Image.fromarray(draw_table(3, seed=1)).save(buf, format="JPEG", quality=95)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert "Toy (red squares)" in at.sidebar.selectbox(key="game").options
    at.sidebar.selectbox(key="game").set_value("toy").run()
    assert not at.exception, at.exception
    at.radio(key="photo-how").set_value("Camera").run()
    at.camera_input(key="photo-camera").set_value(("shot.jpg", buf.getvalue(), "image/jpeg")).run()
    assert not at.exception, at.exception
    assert any("TOY: 3 red square(s)" in str(s.value) for s in at.success), [s.value for s in at.success]
    assert len(at.get("image")) >= 1
    (rec,) = Ledger(toy_registered).judgements(game="toy")
    assert rec.result["squares"] == 3 and rec.source == "camera"
    history = at.dataframe
    assert history and "3 square(s)" in history[0].value.to_string()


def test_one_builtin_game_is_found_without_the_entry_points():
    """``registry.game`` of a built-in game (what a CLI call judging it does) leaves ``importlib.metadata`` unimported
    (about 40 ms of CPU on the dev machine); listing every game still reads the entry points."""
    import subprocess
    import sys

    seen = "print('importlib.metadata' in sys.modules)"
    code = f"import sys; from judge import registry; registry.game('cmyk'); {seen}; registry.names(); {seen}"
    env = {k: v for k, v in os.environ.items() if k != registry.ENV_VAR}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
