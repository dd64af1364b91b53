"""The reading on the page: the diagram beside the straightened photo, tap to correct, the sentences, the crops.

Both pictures are ``streamlit-image-coordinates`` components: a tap on either maps (through the shared
canvas) to a table point, :mod:`ui.taps` turns it into a corrected state, and :mod:`ui.correct` judges it at
once and records it as a correction. Picking a sentence rings its pieces on the diagram. Everything is a
tap or a click (no hover) and stacks into one column on a phone.
"""

from __future__ import annotations

import streamlit as st
from streamlit_image_coordinates import streamlit_image_coordinates

from scoring.ingenious import COLOURS as INGENIOUS_COLOURS
from scoring.ingenious_judge import PLACEMENT_CODES
from ui import reading
from ui.correct import current, record_correction
from ui.crops import evidence_crops
from ui.reading_genial import COLOURS as GENIAL_COLOURS
from ui.taps import KALEIDO_CYCLE, TapError, chip_cycle

TONE_MARK = {"bad": "✗", "good": "✓", "doubt": "?", "info": "•"}
ACTION_LABELS = {"change": "change it", "remove": "remove it", "add": "add a piece"}


def has_reading(game: str) -> bool:
    """Whether this game has a reading diagram (other games show their overlay only)."""
    return reading.kit(game) is not None


def _frames_per_view(game: str, outcome: dict) -> list:
    frames = list(outcome.get("frames") or [outcome["frame"]])
    return frames if game == "cmyk" else frames[-1:]


def _add_as(game: str, key: str) -> dict:
    if game == "carrotain":
        options = chip_cycle()
        k, c = st.selectbox("Chip to add", options, key=f"{key}-add-chip",
                            format_func=lambda kc: kc[1] if kc[0] == "star" else kc[0].replace("_", " "))
        return {"kind": k, "colour": c}
    if game == "kaleido":
        return {"colour": st.selectbox("Tile to add", [c for c in KALEIDO_CYCLE if c], key=f"{key}-add-tile")}
    if game == "ingenious":
        return {"colour": st.selectbox("Hex to add", list(INGENIOUS_COLOURS), key=f"{key}-add-hex")}
    if game == "genial":
        return {"colour": st.selectbox("Tile hex to add", list(GENIAL_COLOURS), key=f"{key}-add-hex")}
    return {}


def _tap_controls(game: str, key: str) -> tuple[str, dict]:
    action = st.segmented_control("Tap a piece to", list(ACTION_LABELS), format_func=ACTION_LABELS.get,
                                  default="change", key=f"{key}-action") or "change"
    st.caption(reading.kit(game).tap_help)  # written out: a phone has no hover for a tooltip
    return action, (_add_as(game, key) if action == "add" else {})


def _handle_tap(game: str, outcome: dict, context: dict, tap: dict | None, cv, view: int, action: str,
                add_as: dict, key: str) -> None:
    """Turn a new tap into a recorded correction, then rerun so everything shows the new judgement."""
    if not tap or "x" not in tap:
        return
    seen = st.session_state.setdefault(f"{key}-seen", set())
    stamp = (key, tap.get("unix_time"), tap["x"], tap["y"])
    if stamp in seen:
        return
    seen.add(stamp)
    w, h = cv.size_px
    xy_px = (tap["x"] * w / max(tap.get("width") or w, 1), tap["y"] * h / max(tap.get("height") or h, 1))
    xy_mm = cv.to_mm(xy_px)[0]
    try:
        edit = reading.kit(game).tap(current(outcome)["state"], xy_mm, action, view, add_as)
    except TapError as exc:
        st.session_state[f"{key}-msg"] = str(exc)
        return
    taps = outcome.setdefault("taps", []) + [edit.note]
    error = record_correction(game, outcome, edit.state_json, context, {"taps": taps})
    if error:
        st.session_state[f"{key}-msg"] = f"Cannot judge that correction: {error}"
        return
    outcome["taps"] = taps
    st.session_state[f"{key}-msg"] = None
    st.rerun()


def reading_panel(game: str, outcome: dict, context: dict, key: str = "reading") -> None:
    """The diagram and straightened photo (tap to correct), the sentences (pick one to ring its pieces)."""
    shown = current(outcome)
    state, result = shown["state"], shown["result"]
    frames = _frames_per_view(game, outcome)
    views = reading.view_count(game, state)
    view = 0
    if views > 1:
        names = [m.get("player", f"player {k + 1}") for k, m in enumerate(state.get("mosaics", []))]
        view = st.radio("Mosaic", range(views), format_func=lambda k: names[k], horizontal=True, key=f"{key}-view")
    lines = reading.kit(game).sentences(state, result)
    picked = st.session_state.get(f"{key}-line")
    highlight = lines[picked].pieces if isinstance(picked, int) and picked < len(lines) else ()
    cv = reading.canvas(game, state, result, view)
    diagram = reading.diagram(game, cv, state, result, view, highlight)
    frame = frames[min(view, len(frames) - 1)]
    views_done = outcome.setdefault("straightened", {})  # reruns (a picked sentence, a tap) reuse the photo
    if (view, cv) not in views_done:
        views_done[(view, cv)] = reading.photo_view(game, frame.image_rgb, frame.calibration, state, cv, view)
    photo = views_done[(view, cv)]
    action, add_as = _tap_controls(game, key)
    if st.session_state.get(f"{key}-msg"):
        st.warning(st.session_state[f"{key}-msg"])
    left, right = st.columns(2)
    with left:
        st.caption("What the judge read — tap a piece to correct it")
        tap_d = streamlit_image_coordinates(diagram, width="stretch", key=f"{key}-diagram-{view}",
                                            png_compression_level=6, cursor="crosshair")
    tap_p = None
    with right:
        if photo is not None:
            st.caption("The photo, straightened — tap works here too")
            tap_p = streamlit_image_coordinates(photo, width="stretch", key=f"{key}-photo-{view}",
                                                image_format="JPEG", jpeg_quality=85, cursor="crosshair")
    if outcome.get("taps"):
        st.caption(f"{len(outcome['taps'])} tap correction(s), each recorded in the ledger as a correction of "
                   f"judgement #{outcome.get('judgement_id', '?')}.")
    _handle_tap(game, outcome, context, tap_d, cv, view, action, add_as, f"{key}-d")
    _handle_tap(game, outcome, context, tap_p, cv, view, action, add_as, f"{key}-p")
    if lines:
        st.radio("Why — pick a line to ring its pieces on the diagram", range(len(lines)), index=None,
                 format_func=lambda i: f"{TONE_MARK.get(lines[i].tone, '•')} {lines[i].text}", key=f"{key}-line")


def crops_panel(game: str, outcome: dict, key: str = "crops") -> None:
    """The photo around each doubtful piece, the drawing beside it, most doubtful first."""
    shown = current(outcome)
    frames = _frames_per_view(game, outcome)
    if "crops" not in shown:  # once per judgement (and per correction), not on every rerun
        shown["crops"] = evidence_crops(game, [f.image_rgb for f in frames], [f.calibration for f in frames],
                                        shown["state"], shown["result"])
    crops = shown["crops"]
    if not crops:
        return
    st.caption("Closer look, most doubtful first: the photo (left) and the reading (right)")
    cols = st.columns(3)  # a phone stacks them into one column
    for k, c in enumerate(crops):
        cols[k % 3].image(c.image, caption=c.caption, width="stretch")


def legend(game: str) -> str:
    """One caption line explaining the diagram's marks."""
    if game == "carrotain":
        return "Ring green: hidden · red: not hidden · amber: too close to call · grey hatching '?': unsure · " \
               "number: margin to the board edge in mm (+ under)"
    if game == "kaleido":
        return "Gold outline and number: complete hexagon (its points in the sentence of that number) · " \
               "dashed: incomplete · grey hatching '?': unsure"
    if game == "ingenious":
        return "Dark outline: the new tile · coloured line and number: a counted line and its count · " \
               "darker cells: outside the board in play · grey hatching '?': unsure"
    return "Green: counted hexagons · red line: illegal contact · digits: edge levels · grey hatching '?': unsure"


def headline(game: str, result: dict) -> tuple[str, str]:
    """The judgement in one line and its tone (``"good"``, ``"bad"``, ``"doubt"``, ``"info"``), for a phone."""
    scores = ", ".join(f"{p} {v}" for p, v in result.get("scores", {}).items())
    if game == "carrotain":
        verdict = str(result.get("verdict", "?")).upper()
        text = f"{verdict}: {result.get('not_hidden')} centre point(s) not hidden, {result.get('hidden')} hidden"
        if result.get("contested"):
            return "doubt", f"CONTESTED — {text}; the other reading is {result.get('other_reading')}"
        return ("good" if result.get("verdict") == "success" else "bad"), text
    if game == "kaleido":
        boards = ", ".join(f"{p} {v}" for p, v in result.get("board_points", {}).items() if v) or "no points"
        return "info", f"{result.get('complete_hexagons', 0)} complete hexagon(s) ({scores}); " \
                       f"{result.get('full_boards', 0)} full board(s) ({boards})"
    if game == "ingenious":
        from judge.games.ingenious import PLUGIN as INGENIOUS

        bad = any(f.get("code") in PLACEMENT_CODES for f in result.get("flags", []))
        contested = any(f.get("code") == "contested" for f in result.get("flags", []))
        return ("bad" if bad else "doubt" if contested else "good"), INGENIOUS.summary(result)
    ranking = result.get("ranking", [])
    totals = result.get("scores", {})
    return "good", "Ranking: " + " > ".join(f"{p} ({totals.get(p, '?')})" for p in ranking)


def show_headline(game: str, result: dict) -> None:
    """The one-line verdict, coloured by its tone, and how many doubts the judge has."""
    tone, text = headline(game, result)
    {"good": st.success, "bad": st.error, "doubt": st.warning}.get(tone, st.info)(text)
    if result.get("flags"):
        st.caption(f"{len(result['flags'])} doubt(s) flagged: see below")
