"""The Genial Spezial page through Streamlit's AppTest: a before/after sample pair judged, the placement recorded
in the ledger (the game joined mid-way), the next placement's context taken from the ledger, undo."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def test_judge_record_and_undo_a_placement(tmp_path, monkeypatch):
    path = tmp_path / "page.sqlite"
    monkeypatch.setenv("TABLE_JUDGE_LEDGER", str(path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.sidebar.selectbox(key="game").set_value("genial").run()
    at.selectbox(key="before-sample").set_value("pair_before.jpg").run()
    at.selectbox(key="photo-sample").set_value("pair_after.jpg").run()
    assert not at.exception, at.exception
    text = " | ".join(str(e.value) for e in at.info)
    assert "Placed" in text and "+3 purple" in text, text
    at.button(key="ge-start").click().run()
    assert not at.exception, at.exception
    at.button(key="ge-add").click().run()
    assert not at.exception, at.exception
    from ledger import Ledger

    led = Ledger(path)
    sid = led.sessions(game="genial")[0].id
    rounds = led.rounds(sid)
    assert len(rounds) == 1 and rounds[0].summary["move_points"]["purple"] == 3
    assert any("to place" in str(c.value) for c in at.caption)
    at.button(key="ge-undo").click().run()
    assert not at.exception, at.exception
    assert Ledger(path).rounds(sid) == []
