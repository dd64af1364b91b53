"""Presenting a judgement: the game's own panel (verdict, scores ...), then flags, explanation and timings."""

from __future__ import annotations

import streamlit as st

from judge.plugin import GamePlugin


def show_result(game: GamePlugin, result: dict) -> None:
    """The game's headline (its ``ui`` module's ``result_panel``), then flags, explanation and per-stage timings."""
    game.ui().result_panel(result)
    for f in result.get("flags", []):
        st.warning(f"{f.get('code')}: {f.get('message')}")
    with st.expander("Why (explanation)", expanded=False):
        for line in result.get("explanation", []):
            st.write("- " + line)
    timings = result.get("timings_ms", {})
    if timings:
        st.caption("Timings: " + ", ".join(f"{k} {v:.0f} ms" for k, v in timings.items()))
