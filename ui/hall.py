"""A hall of many tables on the page: which table this judge stands at (the sidebar), which ledger it writes to,
the History filtered by table and game, and the hall view: the latest judgement of every table.

With a shared PostgreSQL ledger (``TABLE_JUDGE_LEDGER=postgresql://...``) every table's page writes to the same
record, so any page's Hall tab shows the whole room.
"""

from __future__ import annotations

import os
from typing import Any

import streamlit as st

TABLE_ENV = "TABLE_JUDGE_TABLE"
NO_TABLE = "(no table)"
ALL = "All"


def table_sidebar(where: Any = None) -> str:
    """The table name typed in the sidebar (``where``; the page itself on a phone), cleaned; ``""`` when none.

    At first: the ``?table=`` query parameter (a table's bookmark), else ``$TABLE_JUDGE_TABLE``.
    """
    from ledger import clean_table_name

    where = st.sidebar if where is None else where
    first = st.query_params.get("table") or os.environ.get(TABLE_ENV, "")
    name = where.text_input("Table", value=first, key="table", max_chars=64,
                            help="The name of this table in the hall (e.g. 'Table 4'); every judgement made here "
                                 "is recorded with it.")
    try:
        return clean_table_name(name)
    except ValueError as exc:
        where.error(f"Table name: {exc}")
        return ""


def ledger_sidebar(led: Any, where: Any = None) -> None:
    """Say which ledger the page records to (or that it records nothing)."""
    where = st.sidebar if where is None else where
    if led is None:
        from ui.history import ledger_failure

        why = ledger_failure()
        where.caption("Ledger: unavailable, judgements are NOT recorded" + (f" ({why})" if why else ""))
    else:
        where.caption(f"Ledger: {led.describe()}")


def record(led: Any, game: str, **fields: Any) -> tuple[int | None, str | None]:
    """Record one judgement: ``(id, None)``, or ``(None, why)`` when there is no ledger or it refused the write
    (then nothing was recorded, and the page must say so)."""
    from ledger import LedgerError

    if led is None:
        return None, "no ledger"
    try:
        return led.record_judgement(game, **fields), None
    except (LedgerError, ValueError) as exc:
        return None, str(exc)


def _summariser(games: dict) -> Any:
    from ledger.export import generic_summary

    def summarise(game: str, result: dict) -> str:
        if not isinstance(result, dict) or not result:
            return ""
        plugin = games.get(game)
        return plugin.summary(result) if plugin is not None else generic_summary(game, result)

    return summarise


def _rows(records: list, games: dict) -> list[dict]:
    summarise = _summariser(games)
    rows = []
    for r in records:
        title = games[r.game].title if r.game in games else r.game
        rows.append({"table": r.table or NO_TABLE, "game": title, "time (UTC)": r.created_utc[:19].replace("T", " "),
                     "summary": summarise(r.game, r.result), "flags": len((r.result or {}).get("flags") or []),
                     "id": r.id, "corrects": r.corrected_from, "source": r.source})
    return rows


def show_history(led: Any, game: str, games: dict) -> None:
    """Recorded judgements, newest first, filtered by game (this one at first) and table."""
    from ledger import LedgerError

    if led is None:
        st.info("No ledger: nothing is recorded.")
        return
    try:
        tables = led.tables()
        left, right = st.columns(2)
        names = [ALL, *games]
        pick_game = left.selectbox("Game", names, index=names.index(game) if game in names else 0,
                                   key=f"hist-game-{game}",  # follows the sidebar's game
                                   format_func=lambda g: g if g == ALL else games[g].title)
        labels = [ALL, *(t or NO_TABLE for t in tables)]
        pick_table = right.selectbox("Table", labels, key="hist-table")
        table = None if pick_table == ALL else ("" if pick_table == NO_TABLE else pick_table)
        records = led.judgements(game=None if pick_game == ALL else pick_game, table=table, limit=100)
    except LedgerError as exc:
        st.error(f"Ledger unavailable: {exc}")
        return
    if records:
        st.dataframe(_rows(records, games), width="stretch", hide_index=True)
    else:
        st.info("No judgements recorded yet for this choice.")


def show_hall(led: Any, games: dict) -> None:
    """The hall view: every table's latest judgement (corrections count as the latest), by table name."""
    from ledger import LedgerError

    if led is None:
        st.info("No ledger: nothing is recorded.")
        return
    try:
        latest = led.latest_per_table()
    except LedgerError as exc:
        st.error(f"Ledger unavailable: {exc}")
        return
    st.caption(f"The latest judgement of each table in {led.describe()}.")
    if latest:
        st.dataframe(_rows(latest, games), width="stretch", hide_index=True)
    else:
        st.info("No table has recorded a judgement yet.")
