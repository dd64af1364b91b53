"""The ledger on the page: the history survives a reload because it lives in SQLite, not the session."""

from __future__ import annotations

import os

import streamlit as st


@st.cache_resource
def _ledger(path: str | None):
    from ledger import Ledger

    return Ledger(path)


def open_ledger():
    """The page's ledger (``TABLE_JUDGE_LEDGER`` or ``table_judge.sqlite``), or None with an error shown.

    One connection per server process (``st.cache_resource``); the ledger serialises its own calls.
    """
    from ledger import LedgerError

    try:
        return _ledger(os.environ.get("TABLE_JUDGE_LEDGER"))
    except LedgerError as exc:
        st.error(f"Ledger unavailable: {exc}")
        return None


def show_history(game: str) -> None:
    """Recent judgements of this game, newest first (each summarised by the game's plugin)."""
    from judge.registry import game as game_plugin

    summary = game_plugin(game).summary
    led = open_ledger()
    if led is None:
        return
    rows = []
    for r in led.judgements(game=game, limit=50):
        j = r.to_json()
        res = j.get("result", {})
        rows.append({
            "id": j.get("id"), "time": j.get("created_utc"), "source": j.get("source"),
            "summary": summary(res) if res else "",
            "scores": res.get("scores"), "corrected_from": j.get("corrected_from"),
        })
    if rows:
        st.dataframe(rows, width="stretch")
    else:
        st.info("No judgements recorded yet for this game.")
