"""CMYK! on the page: one mosaic photo per player, players and cards, the ranking, the series."""

from __future__ import annotations

import streamlit as st

from ui.sources import Photo, photo_input

GAME = "cmyk"

CMYK_CARDS = {
    "omakase": "おまかせ！ (personal card doubled)",
    "not_only_hexagons": "六角形以外も欲しいな！ (hexagon = 3)",
    "want_space": "空間が欲しい！ (enclosed single holes)",
    "do_more": "もっとやって！ (double a card)",
    "like_this_tile": "このタイルいいね！ (three equal marks)",
    "never_mind": "やっぱりやめた！ (cancel a card)",
    "make_it_wide": "横に長くして！ (longest row run)",
    "want_height": "高さが欲しい！ (rows used)",
    "make_it_spiky": "トゲトゲさせて！ (spiky tiles)",
    "mirror_left_right": "左右対称にして！ (left-right symmetric)",
    "mirror_up_down": "上下対称にして！ (up-down symmetric)",
    "let_me_think": "もう少し考えさせて！ (swapped at the end)",
    "want_this_colour": "この色も欲しい！ (extra personal card)",
    "use_many": "たくさん使って！ (most tiles)",
    "neighbour_colour": "隣の色もいいな！ (neighbour's card)",
    "this_and_that": "あれもこれもやって！ (two more cards)",
}
INKS = ("cyan", "magenta", "yellow")


def photos() -> tuple[list[Photo], dict | None]:
    """One mosaic photo per player (the player count comes from the form's widget state)."""
    n = int(st.session_state.get("cm-n", 1))
    shots = [photo_input(GAME, key=f"photo-{k}", label=f"Mosaic photo, player {k + 1}") for k in range(n)]
    got = [p for p in shots if p is not None]
    return got, next((p.context for p in got if p.context), None)


def context_form(default: dict | None) -> dict:
    """Players in seating order (clockwise) with their personal cards, and the public cards in reveal order."""
    default = default or {}
    dplayers = default.get("players") or [{"name": "Aki", "personal_card": {"colour": "cyan", "level": 2}}]
    n = st.number_input("Number of players", 1, 5, value=len(dplayers), key="cm-n")
    players = []
    for k in range(int(n)):
        d = dplayers[k] if k < len(dplayers) else {"name": f"P{k + 1}", "personal_card": {"colour": "cyan", "level": 0}}
        c1, c2, c3 = st.columns([2, 1, 1])
        name = c1.text_input(f"Player {k + 1} (clockwise)", value=d["name"], key=f"cm-name-{k}")
        colour = c2.selectbox("Card colour", INKS, index=INKS.index(d["personal_card"]["colour"]), key=f"cm-col-{k}")
        level = c3.number_input("Card mark", 0, 5, value=int(d["personal_card"]["level"]), key=f"cm-lv-{k}")
        players.append({"name": name, "personal_card": {"colour": colour, "level": int(level)}})
    cards = st.multiselect(
        "Public cards, in the order they were revealed",
        list(CMYK_CARDS),
        default=[c for c in default.get("public_cards", []) if c in CMYK_CARDS],
        format_func=lambda c: f"{CMYK_CARDS[c]} — {c}",
        key="cm-cards",
    )
    ctx: dict = {"players": players, "public_cards": cards}
    answers: dict = {}
    if "let_me_think" in cards:
        answers["let_me_think"] = [
            st.selectbox("let_me_think: the deck's top card that replaces it", list(CMYK_CARDS), key="cm-lmt")
        ]
    if "want_this_colour" in cards:
        c1, c2 = st.columns(2)
        colour = c1.selectbox("want_this_colour: the unused personal card's colour", INKS, key="cm-wtc-c")
        level = c2.number_input("its mark", 0, 5, value=0, key="cm-wtc-l")
        answers["want_this_colour"] = [{"colour": colour, "level": int(level)}]
    if answers:
        ctx["answers"] = answers
    return ctx


def result_panel(result: dict) -> None:
    """The ranking and every player's points, card by card."""
    ranking = result.get("ranking", [])
    if ranking:
        st.success("Ranking: " + " > ".join(ranking))
    rows = []
    for name, p in result.get("players", {}).items():
        row = {"player": name, **{k: p.get(k) for k in ("tiles", "hexagons", "k_tiles", "illegal_contacts")}}
        row.update(p.get("breakdown", {}))
        row["total"] = p.get("total")
        rows.append(row)
    if rows:
        st.table(rows)


__all__ = ["CMYK_CARDS", "context_form", "photos", "result_panel"]
