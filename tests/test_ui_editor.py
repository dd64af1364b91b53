"""The page's correction tables round-trip a state and apply moves (pure; no Streamlit server)."""

import pytest

from ui.editor import apply_tables, state_tables

STATE = {
    "game": "carrotain",
    "chips": [{"kind": "star", "colour": "red", "xy_mm": [10.0, 20.0]}],
    "boards": [{"id": "A", "outline_mm": [[0, 0], [10, 0], [10, 10], [0, 10]], "role": "challenge"}],
    "flags": [],
}


def test_round_trip_unchanged():
    assert apply_tables(STATE, state_tables(STATE)) == STATE


def test_edit_move_and_add():
    t = state_tables(STATE)
    t["chips"][0]["colour"] = "blue"
    t["chips"].append({"kind": "colourless", "colour": None, "x_mm": 5.0, "y_mm": 6.0})
    t["boards"][0]["shift_x_mm"] = 3.0
    t["boards"][0]["rotate_deg"] = 90.0
    out = apply_tables(STATE, t)
    assert out["chips"][0]["colour"] == "blue"
    assert out["chips"][1] == {"kind": "colourless", "colour": None, "xy_mm": [5.0, 6.0]}
    xs = sorted({round(p[0], 6) for p in out["boards"][0]["outline_mm"]})
    assert xs == [3.0, 13.0]


def test_bad_json_cell():
    state = {"tiles": [{"cell": [0, 0], "edges": {"H": 1}}]}
    t = state_tables(state)
    t["tiles"][0]["edges"] = "{broken"
    with pytest.raises(ValueError, match="edges"):
        apply_tables(state, t)
