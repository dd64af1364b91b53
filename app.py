"""Table Judge page: pick a game, give it a photo (sample, upload or camera), see the evidence.

Run with ``streamlit run app.py``. Thin by design: widgets here, logic in the packages. The games come from
``judge.registry``; each game's photo inputs, form and result panel from its ``ui/games/<game>.py``, its whole-game
record from its plugin's ``session`` rules (``ui/session.py``).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import streamlit as st

from core.blas import single_thread_blas
from core.errors import BadInput, CannotJudge
from judge.images import decode_image
from judge.pipeline import adjudicate_typed, judge_images, state_from_json
from judge.registry import game as get_game
from judge.registry import plugins
from ui.editor import apply_tables, state_tables
from ui.hall import ledger_sidebar, record, show_hall, show_history, table_sidebar
from ui.history import open_ledger
from ui.layout import is_phone
from ui.reading_panel import crops_panel, has_reading, legend, reading_panel, show_headline
from ui.results import show_result
from ui.session import session_panel
from ui.sources import Photo


def run_judgement(game_name: str, photos: list[Photo], context: dict, table: str = "") -> dict:
    """Judge once per distinct input and record it in the ledger (with the table's name); reruns reuse the
    stored outcome. ``ledger_error`` in the outcome: the judgement was NOT recorded."""
    key = hashlib.sha256(
        game_name.encode() + b"".join(p.data for p in photos) + json.dumps(context, sort_keys=True).encode()
        + table.encode()
    ).hexdigest()
    done = st.session_state.setdefault("judged", {})
    if key in done:
        return done[key]
    game = get_game(game_name)
    try:
        images = [(decode_image(p.data, p.source), p.source) for p in photos]
        j = judge_images(game, images, context)
    except (BadInput, CannotJudge) as exc:
        outcome = {"error": str(exc), "cannot_judge": isinstance(exc, CannotJudge)}
    else:
        frame = j.frames[-1]
        outcome = {
            "result": j.result,
            "state": j.state.to_json(),
            "overlay": game.annotate(frame, j.state, j.adjudication),
            "frame": frame,
            "frames": list(j.frames),
        }
        jid, why = record(open_ledger(), game_name, state=outcome["state"], result=j.result, table=table,
                          photo_sha256=hashlib.sha256(photos[-1].data).hexdigest(), source=photos[-1].source)
        outcome["judgement_id" if why is None else "ledger_error"] = jid if why is None else why
    done[key] = outcome
    return outcome


def correction_panel(game_name: str, outcome: dict, context: dict, table: str = "") -> None:
    """Edit what the camera saw; the judgement is recomputed and recorded as corrected."""
    with st.expander("Correct the detection", expanded=False):
        st.caption("Change a colour or kind, delete a row to remove a piece, add a row to add one, "
                   "shift/rotate a board; then re-judge.")
        tables = state_tables(outcome["state"])
        edited = {name: st.data_editor(rows, num_rows="dynamic", key=f"edit-{name}") for name, rows in tables.items()}
        if st.button("Re-judge with corrections", key="rejudge"):
            game = get_game(game_name)
            try:
                new_state_json = apply_tables(outcome["state"], edited)
                state = state_from_json(game, new_state_json)
                adj = adjudicate_typed(game, state, game.parse_context(context))
            except (BadInput, ValueError) as exc:
                st.error(str(exc))
                return
            result = adj.to_json()
            outcome["corrected"] = {
                "result": result, "state": new_state_json, "overlay": game.annotate(outcome["frame"], state, adj),
            }
            _, why = record(open_ledger(), game_name, state=new_state_json, result=result, source="correction",
                            corrected_from=outcome.get("judgement_id"), corrections={"tables": edited}, table=table)
            if why is not None:
                outcome["corrected"]["ledger_error"] = why


def judge_panel(game_name: str, game, page, phone: bool, live: bool, table: str, other_tabs) -> bool:
    """The Judge tab: photos and context, the verdict, the reading and its evidence (phone: one column), or the
    live video. ``other_tabs()`` draws History and Hall; True when it was called here (live mode)."""
    if live:
        from ui.live import live_panel

        other_tabs()  # first: the live panel below runs for as long as the camera plays
        if phone:  # the video first, the players below
            video_box, form_box = st.container(), st.container()
        else:  # the players beside the video
            form_box, video_box = st.columns([2, 3])
        with form_box:
            context = page.context_form(None)
        with video_box:
            live_panel(game, context, open_ledger(), table=table)
        return True
    if phone:  # one column: the verdict, the reading, then the camera; the rest below
        verdict_box, reading_box, inputs_box, details_box = (st.container() for _ in range(4))
    else:  # inputs beside the verdict, the reading across the page below
        inputs_box, verdict_box = st.columns([2, 3])
        reading_box, details_box = st.container(), st.container()
    with inputs_box:
        if phone:
            st.caption("Camera: the switch button on the preview turns to the rear camera; Upload opens the "
                       "phone's own camera app.")
        photos, sample_ctx = page.photos()
        if phone:
            with st.expander("Players and cards", expanded=False):
                context = page.context_form(sample_ctx)
        else:
            context = page.context_form(sample_ctx)
    with verdict_box:
        if not photos:
            st.info("Take or upload a photo to judge.")
            return False
        outcome = run_judgement(game_name, photos, context, table)
        if "error" in outcome:
            (st.warning if outcome["cannot_judge"] else st.error)(
                ("Cannot judge this photo: " if outcome["cannot_judge"] else "Bad input: ") + outcome["error"]
            )
            st.image(decode_image(photos[-1].data, photos[-1].source), caption="the photo as received")
            return False
        shown = outcome.get("corrected", outcome)
        if "corrected" in outcome:
            st.caption("Showing the corrected judgement (recorded in the ledger as a correction).")
        if shown.get("ledger_error") or outcome.get("ledger_error"):
            st.error("NOT recorded in the ledger: " + (shown.get("ledger_error") or outcome["ledger_error"]))
        reads = has_reading(game_name)
        if phone and reads:
            show_headline(game_name, shown["result"])
        else:
            show_result(game, shown["result"])
    with reading_box:
        if reads:
            reading_panel(game_name, outcome, context)
            st.caption(legend(game_name))
    with details_box:
        if phone and reads:
            show_result(game, shown["result"])
        if reads:
            crops_panel(game_name, outcome)
        with st.expander("The whole photo with the evidence drawn on it", expanded=not reads):
            st.image(np.asarray(shown["overlay"]), caption="evidence", width="stretch")
        if hasattr(page, "extra_panels"):
            page.extra_panels(outcome, shown)
        correction_panel(game_name, outcome, context, table)
        led = open_ledger()
        if led is not None and game.session is not None:
            session_panel(game, led, context, outcome)
        elif led is not None and hasattr(page, "session_panel"):
            page.session_panel(led, context, outcome)
    return False


def main() -> None:
    single_thread_blas()
    st.set_page_config(page_title="Table Judge", layout="wide")
    games = plugins()
    phone = is_phone()
    where = st if phone else st.sidebar  # no sidebar to open on a phone: the game choice is on the page
    asked = st.query_params.get("game")  # ?game=kaleido: a table's bookmark opens its game
    names = list(games)
    game_name = where.selectbox("Game", names, format_func=lambda g: games[g].title, key="game",
                                index=names.index(asked) if asked in names else 0)
    game = games[game_name]
    page = game.ui()
    table = table_sidebar(where)
    ledger_sidebar(open_ledger(), where)
    if phone:
        st.markdown(f"**Table Judge — {game.title}**")
    else:
        st.title(f"Table Judge — {game.title}")
    live = where.radio("Mode", ["Photo", "Live video"], key="mode", horizontal=True) == "Live video"
    judge_tab, history_tab, hall_tab = st.tabs(["Judge", "History", "Hall"])

    def other_tabs() -> None:
        with history_tab:
            show_history(open_ledger(), game_name, games)
        with hall_tab:
            show_hall(open_ledger(), games)

    with judge_tab:
        drawn = judge_panel(game_name, game, page, phone, live, table, other_tabs)
    if not drawn:  # after judging: the judgement just made is listed
        other_tabs()


main()
