"""The reading on the page through AppTest (the real script runner): for each game's bundled sample, the tappable
diagram the page sends to the browser is exactly the diagram of the judgement, beside the straightened photo."""

from __future__ import annotations

import base64
import json

import cv2
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from judge.pipeline import judge_images
from judge.registry import game as get_game
from tests.server_helpers import ROOT
from ui import reading
from ui.drawing import DiagramStyle

APP = str(ROOT / "app.py")


@pytest.fixture()
def ledger(tmp_path, monkeypatch):
    path = tmp_path / "page.sqlite"
    monkeypatch.setenv("TABLE_JUDGE_LEDGER", str(path))
    return path


def _sent_images(at: AppTest) -> list[np.ndarray]:
    """The pictures of the page's image components (diagram first, then the straightened photo), RGB."""
    out = []
    for el in at.get("component_instance"):
        args = json.loads(el.proto.json_args)
        head, data = args["src"].split(",", 1)
        img = cv2.imdecode(np.frombuffer(base64.b64decode(data), np.uint8), cv2.IMREAD_COLOR)
        out.append(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
    return out


def _expected(game: str):
    path = sorted((ROOT / "sample_images" / game).glob("*.jpg"))[0]
    ctx = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["context"]
    img = cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB)
    j = judge_images(get_game(game), [(img, path.name)], ctx)
    state, result = j.state.to_json(), j.result
    cv = reading.canvas(game, state, result, 0)
    return cv, reading.diagram(game, cv, state, result, 0), result


@pytest.mark.parametrize("game", ["carrotain", "kaleido", "cmyk"])
def test_the_page_shows_the_judgements_diagram(ledger, game):
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["game"] = game
    at.run()
    assert not at.exception, at.exception
    sent = _sent_images(at)
    assert len(sent) == 2, "the diagram and the straightened photo, both tappable"
    cv, want, result = _expected(game)
    assert np.array_equal(sent[0], want)
    photo = sent[1]
    assert photo.shape[:2] == (cv.size_px[1], cv.size_px[0])
    assert photo.std() > 10  # a real picture, not an empty frame
    style = DiagramStyle()
    has = lambda rgb: bool((np.abs(want.astype(int) - rgb).max(axis=2) < 25).any())  # noqa: E731
    if game == "carrotain":
        assert has(style.bad_rgb) and has(style.good_rgb)
    captions = " ".join(str(c.value) for c in at.caption)
    assert "tap a piece to correct it" in captions
    lines = at.radio(key="reading-line").options
    assert lines, "the explanation as sentences"


def test_picking_a_sentence_rings_its_pieces_on_the_diagram(ledger):
    """Carrotain: pick the line about the nearest miss; the diagram sent to the browser rings that chip."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    before = _sent_images(at)[0]
    cv, plain, result = _expected("carrotain")
    path = sorted((ROOT / "sample_images" / "carrotain").glob("*.jpg"))[0]
    ctx = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["context"]
    img = cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB)
    state = judge_images(get_game("carrotain"), [(img, path.name)], ctx).state.to_json()
    lines = reading.kit("carrotain").sentences(state, result)
    k = next(i for i, s in enumerate(lines) if "misses it by" in s.text)
    at.radio(key="reading-line").set_value(k).run()
    assert not at.exception, at.exception
    after = _sent_images(at)[0]
    assert np.array_equal(before, plain)
    assert np.array_equal(after, reading.diagram("carrotain", cv, state, result, 0, lines[k].pieces))
    magenta = np.abs(after.astype(int) - DiagramStyle().highlight_rgb).max(axis=2) < 30
    ys, xs = np.nonzero(magenta)
    centre = cv.to_px(result["chips"][lines[k].pieces[0].index[0]]["xy_mm"])[0]
    assert len(xs) > 50 and np.hypot(xs.mean() - centre[0], ys.mean() - centre[1]) < 5


def test_two_cmyk_players_each_get_their_mosaic(ledger):
    """Two mosaics (one photo each): the page offers one view per player; the second shows the second mosaic."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["game"] = "cmyk"
    at.run()
    at.number_input(key="cm-n").set_value(2).run()
    at.selectbox(key="photo-1-sample").set_value("cmyk_2.jpg").run()
    assert not at.exception, at.exception
    view = at.radio(key="reading-view")
    assert len(view.options) == 2
    view.set_value(1).run()
    assert not at.exception, at.exception
    from ledger import Ledger

    rec = Ledger(ledger).judgements(game="cmyk")[0].to_json()
    state, result = rec["state"], rec["result"]
    assert len(state["mosaics"]) == 2
    cv = reading.canvas("cmyk", state, result, 1)
    sent = _sent_images(at)
    assert np.array_equal(sent[0], reading.diagram("cmyk", cv, state, result, 1))
    first = reading.diagram("cmyk", reading.canvas("cmyk", state, result, 0), state, result, 0)
    assert sent[0].shape != first.shape or not np.array_equal(sent[0], first)  # not the first player's mosaic
