"""Carrotain on the page: before/challenge photos, players and challenger, the verdict, the game.

The reading diagram, tap corrections and the chips' evidence crops (from the photo itself) come from the
generic reading views (``ui.reading``, ``ui.reading_panel``)."""

from __future__ import annotations

import streamlit as st

from components import load_components
from ui.sources import Photo, photo_input

GAME = "carrotain"


def photos() -> tuple[list[Photo], dict | None]:
    """An optional "before" photo and the challenge photo."""
    before = None
    with st.expander("Optional: the 'before' photo (scatter finished, no boards yet)"):
        if st.checkbox("Use a before photo", key="use-before"):
            before = photo_input(GAME, key="before", label="Before photo")
    shots = ([before] if before else []) + [photo_input(GAME, key="photo", label="Challenge photo")]
    got = [p for p in shots if p is not None]
    return got, next((p.context for p in got if p.context), None)


def context_form(default: dict | None) -> dict:
    """Players (their chip colours, in seat order) and the challenger."""
    colours = list(load_components()["carrotain"]["player_colours"])
    default = default or {}
    players = st.multiselect(
        "Players (chip colours, in seat order)", colours, default=default.get("players", colours[:3]), key="cr-players"
    )
    if not players:
        st.info("Choose the players' colours.")
        return {"players": [], "challenger": ""}
    want = default.get("challenger")
    challenger = st.selectbox("Challenger", players, index=players.index(want) if want in players else 0)
    return {"players": players, "challenger": challenger}


def result_panel(result: dict) -> None:
    """The verdict (or CONTESTED with both readings) and the awards."""
    verdict = result.get("verdict", "?").upper()
    text = f"{verdict}: {result.get('not_hidden')} centre point(s) not hidden, {result.get('hidden')} hidden"
    if result.get("contested"):
        st.warning(f"CONTESTED — measured {text}; the other reading is {result.get('other_reading')}. "
                   "Look at the borderline chips below and decide together.")
    elif result.get("verdict") == "success":
        st.success(text)
    else:
        st.error(text)
    awards = result.get("awards", {})
    if awards:
        st.table([{"player": p, "boards": a.get("boards", 0), "chips": a.get("chips", 0),
                   "points": result.get("scores", {}).get(p, 0)} for p, a in awards.items()])


__all__ = ["context_form", "photos", "result_panel"]
