"""Table Judge page: pick a game, give it a photo (sample, upload or camera), see the evidence.

Run with ``streamlit run app.py``. Thin by design: widgets here, logic in the packages. The games come from
``judge.registry``; each game's photo inputs, form, result panel and session panel from its ``ui/games/<game>.py``.
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
from ui.results import show_result
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
    game_name = st.sidebar.selectbox("Game", list(games), format_func=lambda g: games[g].title, key="game")
    game = games[game_name]
    page = game.ui()
    st.title(f"Table Judge — {game.title}")
    judge_tab, history_tab = st.tabs(["Judge", "History"])
    with judge_tab:
        left, right = st.columns([2, 3])
        with left:
            photos, sample_ctx = page.photos()
            context = page.context_form(sample_ctx)
        with right:
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
            show_result(game, shown["result"])
            st.image(np.asarray(shown["overlay"]), caption="evidence", width="stretch")
            if hasattr(page, "extra_panels"):
                page.extra_panels(outcome, shown)
            correction_panel(game_name, outcome, context)
            led = open_ledger()
            if led is not None and hasattr(page, "session_panel"):
                page.session_panel(led, context, outcome)
    with history_tab:
        show_history(game_name)


main()
