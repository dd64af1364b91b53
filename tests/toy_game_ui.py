"""The toy game's page parts (see ``tests/toy_game.py``)."""

from __future__ import annotations

import streamlit as st

from ui.sources import Photo, photo_input


def photos() -> tuple[list[Photo], dict | None]:
    p = photo_input("toy", key="photo", label="Table photo")
    return ([p], None) if p is not None else ([], None)


def context_form(default: dict | None) -> dict:
    return {"player": st.text_input("Player", value="table", key="toy-player")}


def result_panel(result: dict) -> None:
    st.success(f"TOY: {result['squares']} red square(s)")
