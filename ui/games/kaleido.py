"""Kaleido on the page: one table photo, players and their colours, hexagons and boards, the score track."""

from __future__ import annotations

import streamlit as st

from components import load_components
from ui.sources import Photo, photo_input

GAME = "kaleido"


def photos() -> tuple[list[Photo], dict | None]:
    """One table photo."""
    p = photo_input(GAME, key="photo", label="Table photo")
    return ([p], p.context) if p is not None else ([], None)


def context_form(default: dict | None) -> dict:
    """Players and the colours each owns (two each in the two-player variant)."""
    colours = [c for c in load_components()["kaleido"]["tile"]["colours"] if c != "white"]
    default_players = (default or {}).get("players") or {c.title(): [c] for c in colours[:3]}
    n = st.number_input("Number of players", 2, 5, value=len(default_players), key="ka-n")
    names = list(default_players)
    players: dict[str, list[str]] = {}
    for k in range(int(n)):
        c1, c2 = st.columns([1, 2])
        name = c1.text_input(f"Player {k + 1}", value=names[k] if k < len(names) else f"P{k + 1}", key=f"ka-name-{k}")
        own = default_players.get(names[k], []) if k < len(names) else []
        players[name] = c2.multiselect(f"{name}'s colours", colours, default=own, key=f"ka-col-{k}")
    return {"players": players}


def result_panel(result: dict) -> None:
    """Complete junction hexagons, full boards and the points."""
    st.info(f"{result.get('complete_hexagons', 0)} complete junction hexagon(s); "
            f"{result.get('full_boards', 0)} full board(s)")
    rows = [{"player": p, "final hexagons": pts, "full boards": result.get("board_points", {}).get(p, 0)}
            for p, pts in result.get("scores", {}).items()]
    if rows:
        st.table(rows)


__all__ = ["context_form", "photos", "result_panel"]
