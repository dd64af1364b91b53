"""The page through Streamlit's AppTest (the real script runner, in process): a bundled sample judged with no
camera, a photo from the camera widget, the other games, and the history read back from the ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


@pytest.fixture()
def ledger(tmp_path, monkeypatch):
    path = tmp_path / "page.sqlite"
    monkeypatch.setenv("TABLE_JUDGE_LEDGER", str(path))
    return path


def _texts(at: AppTest) -> str:
    parts = [e.value for kind in ("success", "error", "warning", "info") for e in getattr(at, kind)]
    return " | ".join(str(p) for p in parts)


def _start(game: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    if game:
        at.sidebar.selectbox(key="game").set_value(game).run()
    assert not at.exception, at.exception
    return at


def test_sample_is_judged_without_a_camera(ledger):
    at = _start()
    text = _texts(at)
    assert any(w in text for w in ("SUCCESS", "FAILURE", "CONTESTED")), text
    assert len(at.get("image")) == 1, "the evidence picture is shown"
    from ledger import Ledger

    assert len(Ledger(ledger).judgements(game="carrotain")) == 1


def test_camera_photo_is_judged(ledger):
    photo = sorted((ROOT / "sample_images" / "carrotain").glob("*.jpg"))[-1].read_bytes()
    at = _start()
    at.radio(key="photo-how").set_value("Camera").run()
    assert not at.exception, at.exception
    at.camera_input(key="photo-camera").set_value(("shot.jpg", photo, "image/jpeg")).run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert any(w in text for w in ("SUCCESS", "FAILURE", "CONTESTED")), text
    from ledger import Ledger

    sources = [r.source for r in Ledger(ledger).judgements(game="carrotain")]
    assert "camera" in sources


@pytest.mark.parametrize("game", ["kaleido", "cmyk"])
def test_other_games_judge_their_sample(ledger, game):
    at = _start(game)
    assert not at.exception, at.exception
    assert not at.error, _texts(at)
    assert at.table, "the scores table is shown"


def test_history_survives_a_reload(ledger):
    _start()
    again = AppTest.from_file(APP, default_timeout=120)
    again.run()
    assert not again.exception
    assert len(again.dataframe) >= 1, "the History tab lists the recorded judgement"
