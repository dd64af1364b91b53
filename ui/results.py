"""Presenting a judgement: the verdict or scores, flags, explanation and timings."""

from __future__ import annotations

import streamlit as st

TITLES = {"carrotain": "Carrotain (星をなくしたキャロテイン)", "kaleido": "Kaleido (かれいど)", "cmyk": "CMYK!",
          "ingenious": "Ingenious (頭脳絶好調)"}


def show_carrotain(result: dict) -> None:
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


def show_kaleido(result: dict) -> None:
    st.info(f"{result.get('complete_hexagons', 0)} complete junction hexagon(s); "
            f"{result.get('full_boards', 0)} full board(s)")
    rows = [{"player": p, "final hexagons": pts, "full boards": result.get("board_points", {}).get(p, 0)}
            for p, pts in result.get("scores", {}).items()]
    if rows:
        st.table(rows)


def show_cmyk(result: dict) -> None:
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


def show_ingenious(result: dict) -> None:
    from ui.ingenious_page import show_ingenious as show

    show(result)


SHOW = {"carrotain": show_carrotain, "kaleido": show_kaleido, "cmyk": show_cmyk, "ingenious": show_ingenious}


def show_result(game: str, result: dict) -> None:
    """The game's headline, then flags, explanation and per-stage timings."""
    SHOW[game](result)
    for f in result.get("flags", []):
        st.warning(f"{f.get('code')}: {f.get('message')}")
    with st.expander("Why (explanation)", expanded=False):
        for line in result.get("explanation", []):
            st.write("- " + line)
    timings = result.get("timings_ms", {})
    if timings:
        st.caption("Timings: " + ", ".join(f"{k} {v:.0f} ms" for k, v in timings.items()))
