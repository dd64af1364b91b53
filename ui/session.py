"""A whole game on the page, for every game: start, the standings, add the judged photo as a round, undo.

Everything is in the ledger (``judge.session``), so a page reload shows the game again; the standings are
replayed from the recorded rounds each time. What differs per game is its plugin's ``session`` rules.
"""

from __future__ import annotations

import streamlit as st

from core.errors import BadInput
from judge.plugin import GamePlugin
from judge.session import Outcome, latest, record, start, undo


def _current_outcome(outcome: dict | None) -> Outcome | None:
    if outcome is None or "state" not in outcome or "result" not in outcome:
        return None
    shown = outcome.get("corrected", outcome)
    return Outcome(result=shown["result"], state=shown["state"], judgement_id=outcome.get("judgement_id"))


def session_panel(game: GamePlugin, led, context: dict, outcome: dict | None) -> None:
    """The game's session panel.

    Parameters
    ----------
    game : GamePlugin
        With ``session`` rules.
    led : Ledger
    context : dict
        The game's context (players ...), as the form gave it.
    outcome : dict or None
        The page's current judgement (``result``, ``state`` JSON, ``judgement_id``; ``corrected`` if any).
    """
    rules = game.session
    if rules is None:
        return
    players = rules.players(context)
    if not players:
        return
    st.subheader(rules.title)
    view = latest(led, game.name, players)
    if view is None or view.ended:
        if view is not None:
            message = rules.standings(view).message
            if message:
                st.success(message)
        chosen = {c.key: c.options[st.selectbox(c.label, list(c.options), key=c.key)] for c in rules.choices}
        if st.button(rules.start_label, key=f"{rules.key_prefix}-start"):
            try:
                start(led, game.name, rules, context, chosen)
            except (ValueError, BadInput) as exc:
                st.error(str(exc))
                return
            st.rerun()
        return
    standings = rules.standings(view)
    if standings.rows:
        st.table(list(standings.rows))
    if standings.caption:
        st.caption(standings.caption)
    current = _current_outcome(outcome)
    cols = st.columns(len(rules.actions) + 1)
    if current is not None and not standings.finished:
        for col, action in zip(cols, rules.actions):
            if col.button(action.label, key=action.key):
                try:
                    record(led, rules, view, action, current, context)
                except (ValueError, BadInput) as exc:
                    st.error(str(exc))
                    return
                st.rerun()
    if view.summaries and cols[-1].button(rules.undo_label, key=f"{rules.key_prefix}-undo"):
        undo(led, view)
        st.rerun()
