"""A whole Carrotain game on the page: rounds, running scores, the end, undo.

The game lives in the ledger (``ledger.carrotain``: a session and its rounds), so a page reload
shows it again; the running score is always replayed from the recorded rounds.
"""

from __future__ import annotations

import streamlit as st

from ledger.carrotain import load_game, record_round, session_options, start_game, undo_round
from scoring.carrotain import adjudicate
from scoring.carrotain_game import game_over
from scoring.carrotain_state import CarrotainState


def _live_session_id(led, players: list[str]) -> int | None:
    for s in led.sessions(game="carrotain", limit=20):
        if s.ended_utc is None and list(s.players) == list(players):
            return s.id
    return None


def session_panel(led, context: dict, outcome: dict | None) -> None:
    """Start a game, record the judged challenge as a round, show scores, undo the last round.

    Parameters
    ----------
    led : Ledger
    context : dict
        The carrotain context (players, challenger).
    outcome : dict or None
        The page's current judgement (``state`` JSON, ``judgement_id``; ``corrected`` if any).
    """
    players = list(context.get("players", []))
    if not players:
        return
    st.subheader("Game")
    sid = _live_session_id(led, players)
    if sid is None:
        if st.button("Start a game with these players", key="cr-start"):
            start_game(led, players)
            st.rerun()
        return
    game = load_game(led, sid)
    end = game_over(game)
    points = game.points()
    st.table([{"player": p, "boards": len(game.boards_won[p]), "chips": game.chips_won[p], "points": points[p]}
              for p in game.players])
    st.caption(f"Round {len(game.rounds) + 1}; boards on the mat: {', '.join(game.boards_on_mat)}")
    if end is not None:
        who = " and ".join(end.winners)
        st.success(f"Game over ({end.reason.replace('_', ' ')}): " + ("draw between " if end.draw else "winner ") + who)
    c1, c2 = st.columns(2)
    if end is None and outcome is not None and "state" in outcome:
        if c1.button("Record this challenge as the next round", key="cr-record"):
            state = CarrotainState.from_json(outcome.get("corrected", {}).get("state", outcome["state"]))
            adj = adjudicate(state, players, context["challenger"], session_options(led, sid))
            record_round(led, sid, context["challenger"], adj, outcome.get("judgement_id"))
            st.rerun()
    if game.rounds and c2.button("Undo the last round", key="cr-undo"):
        undo_round(led, sid)
        st.rerun()
