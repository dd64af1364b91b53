"""Table Judge page: pick a game, give it a photo (sample, upload or camera), see the evidence.

Run with ``streamlit run app.py``. Thin by design: widgets here, logic in the packages.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import streamlit as st

from judge.errors import BadInput, CannotJudge
from judge.games import GAME_NAMES, get_game
from judge.images import decode_image
from judge.pipeline import adjudicate, judge_images, state_from_json
from ui import carrotain_session, cmyk_session, ingenious_page, kaleido_session
from ui.editor import apply_tables, state_tables
from ui.forms import FORMS
from ui.history import open_ledger, show_history
from ui.results import TITLES, show_result
from ui.sources import Photo, photo_input
from ui.zoom import chip_crops

SESSION_PANELS = {
    "carrotain": carrotain_session.session_panel,
    "kaleido": kaleido_session.session_panel,
    "cmyk": cmyk_session.session_panel,
    "ingenious": ingenious_page.session_panel,
}


def photos_for(game: str) -> tuple[list[Photo], dict | None]:
    """The photos this game needs, and a sample's context to prefill the form with."""
    if game == "cmyk":
        n = int(st.session_state.get("cm-n", 1))
        photos = [photo_input(game, key=f"photo-{k}", label=f"Mosaic photo, player {k + 1}") for k in range(n)]
    elif game == "carrotain":
        before = None
        with st.expander("Optional: the 'before' photo (scatter finished, no boards yet)"):
            if st.checkbox("Use a before photo", key="use-before"):
                before = photo_input(game, key="before", label="Before photo")
        photos = ([before] if before else []) + [photo_input(game, key="photo", label="Challenge photo")]
    elif game == "ingenious":
        photos = [photo_input(game, key="before", label="Before the move"),
                  photo_input(game, key="photo", label="After the move")]
    else:
        photos = [photo_input(game, key="photo", label="Table photo")]
    sample_ctx = next((p.context for p in photos if p is not None and p.context), None)
    return [p for p in photos if p is not None], sample_ctx


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
            "overlay": game.overlay(frame, j.state, j.result),
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
                result = adjudicate(game, state, game.parse_context(context))
            except (BadInput, ValueError) as exc:
                st.error(str(exc))
                return
            outcome["corrected"] = {
                "result": result, "state": new_state_json, "overlay": game.overlay(outcome["frame"], state, result),
            }
            led = open_ledger()
            if led is not None:
                led.record_judgement(
                    game_name, state=new_state_json, result=result, source="correction",
                    corrected_from=outcome.get("judgement_id"), corrections={"tables": edited},
                )


def main() -> None:
    st.set_page_config(page_title="Table Judge", layout="wide")
    game_name = st.sidebar.selectbox("Game", GAME_NAMES, format_func=lambda g: TITLES[g], key="game")
    st.title(f"Table Judge — {TITLES[game_name]}")
    judge_tab, history_tab = st.tabs(["Judge", "History"])
    with judge_tab:
        left, right = st.columns([2, 3])
        with left:
            photos, sample_ctx = photos_for(game_name)
            context = FORMS[game_name](sample_ctx)
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
            show_result(game_name, shown["result"])
            st.image(np.asarray(shown["overlay"]), caption="evidence", width="stretch")
            if game_name == "carrotain" and outcome["frame"].calibration is not None:
                crops = chip_crops(np.asarray(shown["overlay"]), outcome["frame"].calibration,
                                   shown["result"].get("chips", []))
                if crops:
                    st.caption("Chips that decide it (borderline first; margin to the nearest board edge, + = under)")
                    cols = st.columns(min(len(crops), 6))
                    for k, (img, caption) in enumerate(crops):
                        cols[k % len(cols)].image(img, caption=caption)
            correction_panel(game_name, outcome, context)
            led = open_ledger()
            if led is not None and game_name in SESSION_PANELS:
                SESSION_PANELS[game_name](led, context, outcome)
    with history_tab:
        show_history(game_name)


main()
