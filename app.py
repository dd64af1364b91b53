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

from core.errors import BadInput, CannotJudge
from judge.images import decode_image
from judge.pipeline import adjudicate_typed, judge_images, state_from_json
from judge.registry import game as get_game
from judge.registry import plugins
from ui.editor import apply_tables, state_tables
from ui.history import open_ledger, show_history
from ui.layout import is_phone
from ui.reading_panel import crops_panel, has_reading, legend, reading_panel, show_headline
from ui.results import show_result
from ui.session import session_panel
from ui.sources import Photo


def run_judgement(game_name: str, photos: list[Photo], context: dict) -> dict:
    """Judge once per distinct input and record it in the ledger; reruns reuse the stored outcome."""
    key = hashlib.sha256(
        game_name.encode() + b"".join(p.data for p in photos) + json.dumps(context, sort_keys=True).encode()
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
        led = open_ledger()
        if led is not None:
            outcome["judgement_id"] = led.record_judgement(
                game_name, state=outcome["state"], result=j.result,
                photo_sha256=hashlib.sha256(photos[-1].data).hexdigest(), source=photos[-1].source,
            )
    done[key] = outcome
    return outcome


def correction_panel(game_name: str, outcome: dict, context: dict) -> None:
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
            led = open_ledger()
            if led is not None:
                led.record_judgement(
                    game_name, state=new_state_json, result=result, source="correction",
                    corrected_from=outcome.get("judgement_id"), corrections={"tables": edited},
                )


def main() -> None:
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
    if phone:
        st.markdown(f"**Table Judge — {game.title}**")
    else:
        st.title(f"Table Judge — {game.title}")
    live = where.radio("Mode", ["Photo", "Live video"], key="mode", horizontal=True) == "Live video"
    judge_tab, history_tab = st.tabs(["Judge", "History"])
    with judge_tab:
        if live:
            from ui.live import live_panel

            with history_tab:  # first: the live panel below runs for as long as the camera plays
                show_history(game_name)
            if phone:  # the video first, the players below
                video_box, form_box = st.container(), st.container()
            else:  # the players beside the video
                form_box, video_box = st.columns([2, 3])
            with form_box:
                context = page.context_form(None)
            with video_box:
                live_panel(game, context, open_ledger())
            return
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
                return
            outcome = run_judgement(game_name, photos, context)
            if "error" in outcome:
                (st.warning if outcome["cannot_judge"] else st.error)(
                    ("Cannot judge this photo: " if outcome["cannot_judge"] else "Bad input: ") + outcome["error"]
                )
                st.image(decode_image(photos[-1].data, photos[-1].source), caption="the photo as received")
                return
            shown = outcome.get("corrected", outcome)
            if "corrected" in outcome:
                st.caption("Showing the corrected judgement (recorded in the ledger as a correction).")
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
            correction_panel(game_name, outcome, context)
            led = open_ledger()
            if led is not None and game.session is not None:
                session_panel(game, led, context, outcome)
            elif led is not None and hasattr(page, "session_panel"):
                page.session_panel(led, context, outcome)
    with history_tab:
        show_history(game_name)

main()
