"""Ingenious on the page: the context form, the move's result, and the whole game kept in the ledger.

A game is a ledger session (``ledger.ingenious``); the form takes the mover, the scores before the
move and the first-round state from the live game, so each move needs only its before/after photos.
Every player's six colour scores are shown as bars (18 or 36 at the top), "Ingenious!" extra
placements are announced, the first-round rule is checked, the swap right is shown for a rack the
player enters, and the end of the game shows the ranking with its tie-breaks. A misread cell is
corrected in the page's correction panel; the corrected move is the one recorded.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import streamlit as st

from scoring.ingenious import COLOURS, Hex
from scoring.ingenious_scores import CAP, TEAM_CAP, swap_right
from ui.sources import Photo, photo_input

GAME = "ingenious"

DEFAULT_NAMES = ("Aki", "Ben", "Chika", "Dan")


def _live_session(led, players: list[str], team: bool):
    for s in led.sessions(game="ingenious", limit=20):
        if s.ended_utc is None and list(s.players) == list(players) and bool(s.settings.get("team")) == team:
            return s.id
    return None


def _ledger():
    from ui.history import open_ledger

    return open_ledger()


def photos() -> tuple[list[Photo], dict | None]:
    """The photo before the move and the photo after it (the after photo alone needs 'placed')."""
    before = photo_input(GAME, key="before", label="Before the move", prefer="before")
    after = photo_input(GAME, key="photo", label="After the move", prefer="after")
    got = [p for p in (before, after) if p is not None]
    if len(got) == 2 and got[0].data == got[1].data:
        got = got[1:]  # the same photo twice: judged as the after photo alone (needs 'placed')
    ctx = next((p.context for p in reversed(got) if p.context), None)
    return got, ctx


def context_form(default: dict | None) -> dict:
    """Players (1 solo, 2-4, or the 2 v 2 team game); the mover, scores and first round come from the
    live game in the ledger when there is one, else from the form."""
    from ledger.ingenious import load_game

    default = default or {}
    dplayers = default.get("players") or list(DEFAULT_NAMES[:2])
    c1, c2 = st.columns(2)
    n = int(c1.number_input("Players (1 = solo)", 1, 4, value=len(dplayers), key="ig-n"))
    team = bool(c2.checkbox("Team game (2 v 2)", value=bool(default.get("team")), key="ig-team", disabled=n != 4))
    players = []
    for k in range(n):
        name = dplayers[k] if k < len(dplayers) else DEFAULT_NAMES[k]
        players.append(st.text_input(f"Player {k + 1} (turn order)", value=name, key=f"ig-name-{k}"))
    led = _ledger()
    sid = _live_session(led, players, team) if led is not None else None
    if sid is not None:
        game = load_game(led, sid)
        st.caption(f"Game in the ledger (session {sid}): {game.mover} to place"
                   + (f", {game.extra_pending} extra placement(s) owed" if game.extra_pending else "")
                   + (" - first round" if game.in_first_round else ""))
        return _with_placed({"players": players, "mover": game.mover, "scores_before": game.player_scores(),
                             "team": team, "first_round": game.in_first_round}, default)
    mover = st.selectbox("Mover", players, key="ig-mover")
    sb = default.get("scores_before") or {}
    scores = {}
    with st.expander("Scores before this move (no game in the ledger yet)"):
        for p in players:
            cols = st.columns(6)
            scores[p] = {c: int(cols[i].number_input(f"{p} {c}", 0, TEAM_CAP if team else CAP,
                                                     value=int(sb.get(p, {}).get(c, 0)), key=f"ig-sb-{p}-{c}"))
                         for i, c in enumerate(COLOURS)}
    first = st.checkbox("First round", value=bool(default.get("first_round")), key="ig-first")
    return _with_placed({"players": players, "mover": mover, "scores_before": scores, "team": team,
                         "first_round": first}, default)


def _with_placed(ctx: dict, default: dict) -> dict:
    """Keep a sample's ``placed`` (an after photo judged alone) in the context."""
    if default.get("placed"):
        ctx["placed"] = default["placed"]
    return ctx


def score_bars(colour_scores: dict, team: bool = False) -> None:
    """Every player's six colour scores as bars (as the online version shows them)."""
    top = TEAM_CAP if team else CAP
    rows = [{"player": p, **{c: int(s.get(c, 0)) for c in COLOURS}, "lowest": min(s.get(c, 0) for c in COLOURS)}
            for p, s in colour_scores.items()]
    cfg = {c: st.column_config.ProgressColumn(c, min_value=0, max_value=top, format="%d") for c in COLOURS}
    st.dataframe(rows, column_config=cfg, hide_index=True)


def result_panel(result: dict) -> None:
    """The move: placed hexes, points per colour, extra placements, scores after."""
    placed = ", ".join(f"{h['colour']} at ({h['qr'][0]},{h['qr'][1]})" for h in result.get("placed", []))
    moves = result.get("move_points", {})
    if result.get("placed") and len(result["placed"]) == 2 and not any(
            f.get("code") in ("not_one_tile", "not_neighbours", "moved_tile", "covers_symbol", "outside_play",
                              "first_round", "placed_not_seen") for f in result.get("flags", [])):
        st.success(f"Placed {placed}: " + (", ".join(f"{c} +{v}" for c, v in moves.items()) or "no points"))
    else:
        st.error("Not one clean placement: nothing scored (" + (placed or "no new hex") + ")")
    for _ in range(int(result.get("extra_placements", 0))):
        st.balloons()
    if result.get("extra_placements"):
        st.info(f"Ingenious! {result['extra_placements']} extra placement(s) now, before refilling.")
    score_bars(result.get("colour_scores", {}), any("team" in e for e in result.get("explanation", [])[:1]))
    if result.get("ranking"):
        st.caption("Ranking now (lowest colour, then the next): " + " > ".join(result["ranking"]))


def _placed_from(outcome: dict) -> tuple[Hex, ...]:
    res = outcome.get("corrected", outcome).get("result", {})
    return tuple(Hex.from_json(h) for h in res.get("placed", []))


def _rack_from_photo() -> list[tuple[str, str]] | None:
    """The rack read from an optional photo (markers in view, tiles loose on the table); None without one
    or when it cannot be read completely (the doubts are shown)."""
    from calibration.table import CalibrationError, calibrate_from_markers
    from core.errors import BadInput
    from judge.images import decode_image
    from vision.ingenious import marker_layout
    from vision.ingenious_rack import read_rack

    photo = photo_input(GAME, key="rack", label="Rack photo")
    if photo is None or photo.source.startswith("sample:"):
        return None
    try:
        img = decode_image(photo.data, photo.source)
        rd = read_rack(img, calibrate_from_markers(img, layout=marker_layout()))
    except (CalibrationError, BadInput, ValueError) as exc:
        st.warning(f"Rack photo not read: {exc}")
        return None
    st.write("Rack read: " + ", ".join(f"{a}/{b}" for a, b in rd.tiles))
    for d in rd.doubts:
        st.warning(d)
    if rd.doubts or len(rd.tiles) != 6:
        return None
    return [(str(a), str(b)) for a, b in rd.tiles]


def live_settled(led, context: dict, result: dict, judgement_id: int | None) -> tuple[str, dict | None]:
    """Live mode: a settled placement is played in the game kept in the ledger, when one is open for these players
    (once: the live judge settles each placement once). Returns what happened and the next placement's context
    from that game (the next mover, the scores, an Ingenious! extra placement owed), or None without a game."""
    from ledger.ingenious import record_move

    players = list(context.get("players", []))
    team = bool(context.get("team"))
    sid = _live_session(led, players, team)
    if sid is None:
        return "recorded as a judgement; start a game with these players to keep the moves", None
    placed = tuple(Hex.from_json(h) for h in result.get("placed", []))
    game, res = record_move(led, sid, placed, judgement_id)
    if not res.scored:
        return "NOT recorded in the game: " + "; ".join(f.message for f in res.flags), None
    nxt = {"players": players, "mover": game.mover, "scores_before": game.player_scores(), "team": team,
           "first_round": game.in_first_round}
    owed = f" ({game.extra_pending} extra placement(s) owed)" if game.extra_pending else ""
    return f"recorded in the game (session {sid}); {game.mover} to place next{owed}", nxt


def session_panel(led, context: dict, outcome: dict | None) -> None:
    """Start a game, record the judged (or corrected) move, undo, rack swap check, end and ranking, export."""
    from ledger.ingenious import load_game, record_move, start_game, undo_move

    players = list(context.get("players", []))
    team = bool(context.get("team"))
    if not players:
        return
    st.subheader("Game")
    sid = _live_session(led, players, team)
    if sid is None:
        if st.button("Start a game with these players", key="ig-start"):
            try:
                start_game(led, players, team)
            except ValueError as exc:
                st.error(str(exc))
                return
            st.rerun()
        return
    game = load_game(led, sid)
    score_bars(game.score_boards(), team)
    st.caption(f"Turn {game.turn + 1}: {game.mover} to place" + (" (first round)" if game.in_first_round else ""))
    if game.extra_pending:
        st.info(f"Ingenious! {game.mover} owes {game.extra_pending} extra placement(s).")
    end = game.end()
    if end is not None:
        ranking = game.ranking()
        st.success(f"Game over: {end}. Winner: " + " and ".join(r.name for r in ranking if r.place == 1))
        st.table([r.to_json() for r in ranking])
    c1, c2 = st.columns(2)
    if end is None and outcome is not None and "result" in outcome:
        placed = _placed_from(outcome)
        if c1.button("Record this move", key="ig-record", disabled=len(placed) != 2):
            _, res = record_move(led, sid, placed, outcome.get("judgement_id"))
            if not res.scored:
                st.error("Not recorded: " + "; ".join(f.message for f in res.flags))
            else:
                st.rerun()
    if game.turn or game.extra_pending or game.board.hexes:
        if c2.button("Undo the last move", key="ig-undo"):
            undo_move(led, sid)
            st.rerun()
    with st.expander("Swap right: photograph the rack after refilling (6 tiles, optional)"):
        who = st.selectbox("Whose rack", game.players, key="ig-rack-who")
        rack = _rack_from_photo()
        if rack is None:
            st.caption("Or enter the six tiles:")
            rack = []
            cols = st.columns(6)
            for k in range(6):
                a = cols[k].selectbox(f"tile {k + 1} a", COLOURS, key=f"ig-rack-{k}-a")
                b = cols[k].selectbox(f"tile {k + 1} b", COLOURS, key=f"ig-rack-{k}-b")
                rack.append((a, b))
        right = swap_right(game.player_scores()[who], rack)
        (st.success if right.allowed else st.info)(right.reason)
    with tempfile.TemporaryDirectory() as d:
        path = led.export_json(Path(d) / "ledger.json")
        st.download_button("Export the ledger (JSON)", Path(path).read_bytes(), file_name="table_judge_ledger.json",
                           mime="application/json", key="ig-export")
    st.caption("Moves recorded: " + json.dumps([r.summary.get("placed") for r in led.rounds(sid)])[:300])


__all__ = ["context_form", "photos", "result_panel", "session_panel"]
