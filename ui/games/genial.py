"""Genial Spezial on the page: players and their tile colours, the mover, the game so far, the bonus symbol
when the new tile covers a bonus cell, a photo pair per placement, and the four symbol bars per player."""

from __future__ import annotations

import json

import streamlit as st

from ui.sources import Photo, photo_input

GAME = "genial"
SYMBOLS = ("orange", "blue", "green", "purple")
COLOURS = ("red", "blue", "yellow", "black")
CAP = 20


def photos() -> tuple[list[Photo], dict | None]:
    """The photo before the placement and the photo after it (the after photo alone needs 'placed')."""
    before = photo_input(GAME, key="before", label="Before the placement", prefer="before")
    after = photo_input(GAME, key="photo", label="After the placement", prefer="after")
    got = [p for p in (before, after) if p is not None]
    return got, next((p.context for p in got if p.context), None)


def context_form(default: dict | None) -> dict:
    """Players (2-4) and colours, the mover, the earlier placements (JSON) and the bonus symbol."""
    default = default or {}
    dplayers = default.get("players") or {"Aki": "red", "Ben": "blue"}
    n = int(st.number_input("Players", 2, 4, value=len(dplayers), key="ge-n"))
    names = list(dplayers)
    players: dict[str, str] = {}
    for k in range(n):
        c1, c2 = st.columns([2, 1])
        name = c1.text_input(f"Player {k + 1}", value=names[k] if k < len(names) else f"P{k + 1}", key=f"ge-name-{k}")
        own = dplayers.get(names[k]) if k < len(names) else COLOURS[k]
        players[name] = c2.selectbox("tiles", COLOURS, index=COLOURS.index(own) if own in COLOURS else k,
                                     key=f"ge-col-{k}")
    running = _running_game(players)
    if running is not None:
        ctx = running
        st.caption(f"Game in the ledger: {ctx['mover']} to place ({len(ctx['moves_before'])} placement(s) so far)")
        _bonus(ctx, default)
        return ctx
    mover = st.selectbox("Mover", list(players), index=max(0, list(players).index(default["mover"]))
                         if default.get("mover") in players else 0, key="ge-mover")
    moves = st.text_area("Earlier placements (JSON list of {player, cells, bonus_symbol})",
                         value=json.dumps(default.get("moves_before", [])), key="ge-moves")
    values = st.text_area("The tokens as set up, when the judge cannot read their numerals or symbols (JSON list "
                          'of {"qr": [q, r], "light": 1 or 2, "symbol": "orange" | "blue" | "green" | "purple"}; '
                          "kept for the whole game once it is in the ledger)",
                          value=json.dumps(default.get("token_values", [])), key="ge-tokens")
    ctx: dict = {"players": players, "mover": mover}
    try:
        ctx["moves_before"] = json.loads(moves or "[]")
        ctx["token_values"] = json.loads(values or "[]")
    except json.JSONDecodeError:
        st.error("Earlier placements or token values: not valid JSON")
    _bonus(ctx, default)
    return ctx


def _bonus(ctx: dict, default: dict) -> None:
    """The symbol the mover names when the new tile covers a bonus cell (asked on every placement)."""
    bonus = st.selectbox("Bonus symbol (when the new tile covers a bonus cell)", ["(none)", *SYMBOLS],
                         index=(SYMBOLS.index(default["bonus_symbol"]) + 1) if default.get("bonus_symbol") in SYMBOLS
                         else 0, key="ge-bonus")
    if bonus != "(none)":
        ctx["bonus_symbol"] = bonus


def _running_game(players: dict[str, str]) -> dict | None:
    """The next placement's context from the running game of these players in the ledger, or None."""
    from judge.games.genial import SESSION, next_context
    from judge.session import latest
    from ui.history import open_ledger

    led = open_ledger()
    if led is None:
        return None
    view = latest(led, GAME, SESSION.players({"players": players}))
    if view is None or view.ended or not view.summaries:
        return None   # no placement recorded yet: the first one takes the form (a game may join mid-way)
    return next_context(view)


def symbol_bars(symbol_scores: dict) -> None:
    """Each player's four symbol scores as bars up to the cap."""
    for player, row in symbol_scores.items():
        st.caption(f"{player}: lowest {min(row.values()) if row else 0}")
        cols = st.columns(len(SYMBOLS))
        for col, s in zip(cols, SYMBOLS, strict=True):
            v = int(row.get(s, 0))
            col.progress(min(v, CAP) / CAP, text=f"{s} {v}")


def result_panel(result: dict) -> None:
    """The placement, what it scored (tokens, large towers, bonus cells), the symbol bars and the ranking."""
    placed = ", ".join(str(q["qr"]) for q in result.get("placed", []))
    pts = ", ".join(f"+{v} {s}" for s, v in result.get("move_points", {}).items() if v) or "nothing"
    st.info(f"Placed {placed or '-'}: {pts}; {len(result.get('scored_towers', []))} token(s) scored, "
            f"{result.get('large_bonus', 0)} large tower(s) counted, {result.get('bonus_cells', 0)} bonus cell(s)")
    symbol_bars(result.get("symbol_scores", {}))
    if result.get("ranking"):
        st.write("Ranking: " + " > ".join(result["ranking"]))
    if result.get("towers"):
        with st.expander("The tokens as read (check the values, then paste into 'The tokens as set up')"):
            st.code(json.dumps(setup_as_read(result)), language="json")


def setup_as_read(result: dict) -> list[dict]:
    """The judgement's towers as the context's token set-up (``token_values``): symbol and light value (a dark
    token shows its light value + 1); the values are the reader's best guess, for the players to check."""
    return [{"qr": t["qr"], "light": max(1, min(2, int(t["value"]) - (1 if t.get("dark") else 0))),
             "symbol": t["symbol"]} for t in result.get("towers", []) if t.get("symbol")]


__all__ = ["context_form", "photos", "result_panel", "setup_as_read", "symbol_bars"]
