"""Per-game context forms: who plays, with which colours or cards. Each returns the context JSON
object the CLI takes with ``--context`` (DESIGN.md), so page and command line judge alike."""

from __future__ import annotations

import streamlit as st

from components import load_components

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


def carrotain_context(default: dict | None) -> dict:
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


def kaleido_context(default: dict | None) -> dict:
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


def cmyk_context(default: dict | None) -> dict:
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


def ingenious_context(default: dict | None) -> dict:
    from ui.ingenious_page import ingenious_context as form

    return form(default)


FORMS = {"carrotain": carrotain_context, "kaleido": kaleido_context, "cmyk": cmyk_context,
         "ingenious": ingenious_context}
