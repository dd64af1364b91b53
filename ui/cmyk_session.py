"""CMYK! series on the page: "3 games" or "cumulative to 40", each game's result kept in the ledger.

The standings are recomputed from the recorded games by ``scoring.cmyk_series`` every time.
"""

from __future__ import annotations

import streamlit as st

from scoring.cmyk_series import cumulative, three_games

MODES = {"3 games (1st 2 VP, 2nd 1 VP)": "three_games", "cumulative to 40": "cumulative"}
STANDINGS = {"three_games": three_games, "cumulative": cumulative}


def _names(context: dict) -> list[str]:
    return [p.get("name") for p in context.get("players", [])]


def _latest_session(led, names: list[str]):
    """The newest series of these players, still running or just finished."""
    for s in led.sessions(game="cmyk", limit=20):
        if s.players == names:
            return s
    return None


def session_panel(led, context: dict, outcome: dict | None) -> None:
    """Start a series, add the judged game to it, show the standings, undo the last game.

    Parameters
    ----------
    led : Ledger
    context : dict
        The cmyk context (players in seating order, cards).
    outcome : dict or None
        The page's current judgement (``result``; ``corrected`` if any).
    """
    names = _names(context)
    if not names:
        return
    st.subheader("Series")
    session = _latest_session(led, names)
    if session is None or session.ended_utc is not None:
        if session is not None and session.result:
            st.success("Last series won by " + " and ".join(session.result.get("leaders", [])))
        label = st.selectbox("Series mode", list(MODES), key="cm-mode")
        if st.button("Start a series with these players", key="cm-start"):
            led.start_session("cmyk", names, {"mode": MODES[label]})
            st.rerun()
        return
    mode = session.settings.get("mode", "three_games")
    rounds = led.rounds(session.id)
    standing = STANDINGS[mode]([r.summary["result"] for r in rounds]) if rounds else None
    if standing is not None:
        st.table([{"player": p, "series points": standing.points.get(p, 0)} for p in standing.ranking])
        if standing.finished:
            st.success("Series over: " + " and ".join(standing.leaders))
    st.caption(f"{mode.replace('_', ' ')}: {len(rounds)} game(s) recorded")
    c1, c2 = st.columns(2)
    finished = standing is not None and standing.finished
    if not finished and outcome is not None and "result" in outcome:
        if c1.button("Add this game to the series", key="cm-add"):
            result = outcome.get("corrected", {}).get("result", outcome["result"])
            after = STANDINGS[mode]([r.summary["result"] for r in rounds] + [result])
            led.add_round(session.id, outcome.get("judgement_id"), {"result": result},
                          end_result=after.to_json() if after.finished else None)
            st.rerun()
    if rounds and c2.button("Undo the last game", key="cm-undo"):
        led.undo_last_round(session.id)
        st.rerun()
