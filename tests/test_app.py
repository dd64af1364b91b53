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
    assert len(at.get("image")) >= 1, "the evidence picture (and chip crops) are shown"
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


def test_carrotain_game_rounds_and_undo(ledger):
    """Start a game, record the judged sample as round 1, undo it: the ledger follows, across reruns."""
    from ledger import Ledger

    at = _start()
    at.button(key="cr-start").click().run()
    assert not at.exception, at.exception
    at.button(key="cr-record").click().run()
    assert not at.exception, at.exception
    sid = Ledger(ledger).sessions(game="carrotain")[0].id
    assert len(Ledger(ledger).rounds(sid)) == 1
    at.button(key="cr-undo").click().run()
    assert not at.exception, at.exception
    assert len(Ledger(ledger).rounds(sid)) == 0


def test_kaleido_score_track(ledger):
    """Kaleido: the first photo's full boards go on the score track; the final scoring ends the game."""
    from ledger import Ledger

    at = _start("kaleido")
    at.button(key="ka-start").click().run()
    at.button(key="ka-boards").click().run()
    assert not at.exception, at.exception
    led = Ledger(ledger)
    s = led.sessions(game="kaleido")[0]
    (r,) = led.rounds(s.id)
    assert r.summary["kind"] == "boards"
    at.button(key="ka-final").click().run()
    assert not at.exception, at.exception
    assert Ledger(ledger).session(s.id).ended_utc is not None


def test_cmyk_series_of_three_games(ledger):
    """CMYK!: a "3 games" series records each judged game; after the third the series is over."""
    from ledger import Ledger

    at = _start("cmyk")
    at.button(key="cm-start").click().run()
    for _ in range(3):
        at.button(key="cm-add").click().run()
        assert not at.exception, at.exception
    s = Ledger(ledger).sessions(game="cmyk")[0]
    assert len(Ledger(ledger).rounds(s.id)) == 3
    assert s.ended_utc is not None
    assert any("Last series won by" in str(e.value) for e in at.success)
