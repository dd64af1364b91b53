"""The Ingenious page through Streamlit's AppTest: a before/after sample judged, the game started in the
ledger, the move recorded, the scores shown as bars, undo."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def test_judge_record_and_undo_a_move(tmp_path, monkeypatch):
    path = tmp_path / "page.sqlite"
    monkeypatch.setenv("TABLE_JUDGE_LEDGER", str(path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.sidebar.selectbox(key="game").set_value("ingenious").run()
    at.number_input(key="ig-n").set_value(4).run()
    for k, name in enumerate(["Aki", "Ben", "Chika", "Dan"]):
        at.text_input(key=f"ig-name-{k}").set_value(name).run()
    at.selectbox(key="before-sample").set_value("first_move_before.jpg").run()
    at.selectbox(key="photo-sample").set_value("first_move_after.jpg").run()
    assert not at.exception, at.exception
    text = " | ".join(str(e.value) for e in at.success)
    assert "Placed" in text and "orange +1" in text, text
    at.button(key="ig-start").click().run()
    assert not at.exception, at.exception
    at.button(key="ig-record").click().run()
    assert not at.exception, at.exception
    from ledger import Ledger
    from ledger.ingenious import load_game

    led = Ledger(path)
    sid = led.sessions(game="ingenious")[0].id
    assert load_game(led, sid).player_scores()["Aki"]["orange"] == 1
    assert any("Ben to place" in str(c.value) for c in at.caption)
    at.button(key="ig-undo").click().run()
    assert not at.exception, at.exception
    assert load_game(Ledger(path), sid).player_scores()["Aki"]["orange"] == 0
