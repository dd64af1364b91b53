"""The ledger on the page: the history survives a reload because it lives in the ledger (a SQLite file or a
shared PostgreSQL database), not the session. The History and Hall tabs are drawn by ``ui.hall``."""

from __future__ import annotations

import os
import time

import streamlit as st

#: After the ledger could not be opened (e.g. the server is down), how long the page works without it before
#: trying again, s (every try may wait for the connect timeout).
RETRY_S = 10.0


@st.cache_resource
def _ledger(path: str | None):
    from ledger import Ledger

    return Ledger(path)


def open_ledger():
    """The page's ledger (``TABLE_JUDGE_LEDGER``: a file or a ``postgresql://`` URL; else ``table_judge.sqlite``),
    or None with an error shown (then not tried again for ``RETRY_S``; ``ledger_failure()`` says why).

    One connection per server process (``st.cache_resource``); the ledger serialises its own calls.
    """
    from ledger import LedgerError

    failed = st.session_state.get("ledger-failed")
    if failed is not None and time.monotonic() - failed[0] < RETRY_S:
        return None
    try:
        led = _ledger(os.environ.get("TABLE_JUDGE_LEDGER"))
    except LedgerError as exc:
        st.session_state["ledger-failed"] = (time.monotonic(), str(exc))
        st.error(f"Ledger unavailable: {exc}")
        return None
    st.session_state.pop("ledger-failed", None)
    return led


def ledger_failure() -> str | None:
    """Why the ledger could not be opened the last time it was tried (None: it could)."""
    failed = st.session_state.get("ledger-failed")
    return None if failed is None else failed[1]

