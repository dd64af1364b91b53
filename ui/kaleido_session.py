"""A Kaleido game on the page: the running score track kept in the ledger.

Each time a board fills, the players photograph the table and press "score the boards filled since the last
photo": the judge compares with the previous recorded photo of this game (``previous_state`` in the context,
see ``judge/kaleido.py``) and adds the new full boards' points to the track. The final photo adds the junction
hexagons and ends the game.
"""

from __future__ import annotations

import streamlit as st

from judge.pipeline import adjudicate, state_from_json
from judge.registry import game as get_game


def _players_key(players: dict) -> list:
    return [[name, list(colours)] for name, colours in players.items()]


def _live_session_id(led, players: dict) -> int | None:
    for s in led.sessions(game="kaleido", limit=20):
        if s.ended_utc is None and s.players == _players_key(players):
            return s.id
    return None


def _add(total: dict, points: dict) -> None:
    for p, v in points.items():
        total[p] = total.get(p, 0) + int(v)


def session_panel(led, context: dict, outcome: dict | None) -> None:
    """Start a game, score newly filled boards against the previous photo, final scoring, undo.

    Parameters
    ----------
    led : Ledger
    context : dict
        The kaleido context (players and colours).
    outcome : dict or None
        The page's current judgement (``state`` JSON, ``judgement_id``; ``corrected`` if any).
    """
    players = context.get("players") or {}
    if not players:
        return
    st.subheader("Score track")
    sid = _live_session_id(led, players)
    if sid is None:
        if st.button("Start a game with these players", key="ka-start"):
            led.start_session("kaleido", _players_key(players), {})
            st.rerun()
        return
    rounds = led.rounds(sid)
    track: dict[str, int] = {name: 0 for name in players}
    for r in rounds:
        _add(track, r.summary.get("points", {}))
    st.table([{"player": p, "points": v} for p, v in track.items()])
    st.caption(f"{len(rounds)} scoring photo(s) recorded")
    if outcome is None or "state" not in outcome:
        return
    state_json = outcome.get("corrected", {}).get("state", outcome["state"])
    game = get_game("kaleido")
    c1, c2, c3 = st.columns(3)
    if c1.button("Score the boards filled since the last photo", key="ka-boards"):
        # The first photo of a game compares with an empty table: every full board is new.
        previous = rounds[-1].summary["state"] if rounds else {**state_json, "boards": []}
        ctx = game.parse_context({**context, "previous_state": previous})
        result = adjudicate(game, state_from_json(game, state_json), ctx)
        led.add_round(sid, outcome.get("judgement_id"),
                      {"kind": "boards", "points": result["scores"], "boards": result.get("scored_boards", []),
                       "state": state_json})
        st.rerun()
    if c2.button("Final scoring (junction hexagons) and end", key="ka-final"):
        result = adjudicate(game, state_from_json(game, state_json), game.parse_context(context))
        _add(track, result["scores"])
        led.add_round(sid, outcome.get("judgement_id"), {"kind": "final", "points": result["scores"],
                                                          "state": state_json}, end_result={"track": track})
        st.rerun()
    if rounds and c3.button("Undo the last scoring", key="ka-undo"):
        led.undo_last_round(sid)
        st.rerun()
