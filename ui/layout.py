"""Phone or desktop: which layout the page uses.

A phone (its browser says "Mobi" or "Android" in its user agent) gets one column with the verdict, the reading
and the camera first; a wide screen gets the inputs beside the result. Either can be forced with the
``layout`` query parameter (``?layout=phone`` / ``?layout=wide``), e.g. to try the phone layout on a desktop.
"""

from __future__ import annotations

import streamlit as st

PHONE_MARKS = ("Mobi", "Android", "iPhone")


def is_phone_agent(user_agent: str) -> bool:
    """Whether a browser user agent is a phone's."""
    return any(m in (user_agent or "") for m in PHONE_MARKS)


def is_phone() -> bool:
    """The layout for this page view: the ``layout`` query parameter, else the browser's user agent."""
    forced = st.query_params.get("layout")
    if forced in ("phone", "wide"):
        return forced == "phone"
    try:
        return is_phone_agent(st.context.headers.get("User-Agent", ""))
    except Exception:  # no browser (AppTest, bare mode): the wide layout
        return False
