"""Live mode on the page: the browser camera as a WebRTC video stream (streamlit-webrtc), judged as it plays.

Frames arrive in streamlit-webrtc's worker thread; :class:`LiveProcessor` feeds them to
:class:`judge.live_run.LiveJudge` (settling and voting), draws the settled judgement's evidence (or the
current status) on the video sent back, and queues the settled events. The page script drains that queue:
a settled judgement is shown large and recorded in the ledger once (in the script's thread, where the
ledger lives).

Pair games (Ingenious, Genial Spezial): every settled placement is listed with its points; a game whose page
module has ``live_settled`` (Ingenious) also plays it in the game kept in the ledger, whose next context (the
next mover, the scores) the live judge then uses. Games of one photo per player (CMYK!): the players show their
mosaics to the camera in turn, in the order of the form; the page says whose is next, and the table's ranking
settles once the last has.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import streamlit as st

from core.errors import BadInput
from judge.live_run import LiveJudge, LiveRunConfig, describe, event_json, record_settled


@dataclass(frozen=True)
class LivePageConfig:
    """Tunables of the page's live mode.

    Attributes
    ----------
    poll_s : float
        How often the page looks for news from the video thread.
    ideal_size_px : (width, height)
        Camera resolution asked of the browser.
    banner_px : int
        Height of the status banner drawn on the video.
    ice_servers_env : str
        Environment variable with the ICE servers as JSON (e.g. a STUN/TURN list for phones on another
        network); none by default: the camera and the server reach each other directly.
    """

    poll_s: float = 0.3
    ideal_size_px: tuple[int, int] = (1280, 960)
    banner_px: int = 44
    ice_servers_env: str = "TABLE_JUDGE_ICE_SERVERS"


STATUS_TEXT = {
    "waiting": "waiting for a still table",
    "moving": "moving - waiting for the table to be still",
    "still": "still - about to read",
    "reading": "still - reading",
    "settled": "SETTLED",
}


def headline(game: Any, result: dict) -> str:
    """A few words for the settled judgement, shown large (the plugin's one-line ``summary``)."""
    if result.get("contested") and result.get("live", {}).get("status") == "contested":
        return "CONTESTED"
    return game.summary(result)


class LiveProcessor:
    """Thread-safe bridge between the video thread (``__call__``) and the page script (``drain``, ``status``)."""

    def __init__(self, game: Any, context: dict | None, config: LivePageConfig = LivePageConfig(),
                 run_config: LiveRunConfig = LiveRunConfig()) -> None:
        self.game = game
        self.config = config
        self.live = LiveJudge(self.game, context, config=run_config, source="live camera")
        self._lock = threading.Lock()
        self.events: queue.Queue = queue.Queue()
        self.error: str | None = None
        self.frames = 0
        self._contexts = {_canonical(context)}  # the form's context, and every one the live judge moved on to
        self.log: list[dict] = []  # a pair game's settled placements, as the page lists them (script thread only)

    def accepts(self, context: dict | None) -> bool:
        """Whether the form's context is one this processor judged with (a pair game's moves on): keep it."""
        with self._lock:
            return _canonical(context) in self._contexts

    def set_context(self, context: dict) -> None:
        """The next placement's context (from the game kept in the ledger); ``BadInput`` when not valid."""
        with self._lock:
            self.live.set_context(context)
            self._contexts.add(_canonical(context))

    def restart_table(self) -> None:
        """Forget the photos of the table gathered so far (several photos per judgement)."""
        with self._lock:
            self.live.restart_table()

    def next_photo(self) -> tuple[str | None, tuple[str, ...]]:
        """(the photo the camera should see next, the labels of those gathered) for several photos per judgement."""
        with self._lock:
            done = tuple(self.live.photos[k][0] for k in range(len(self.live.gathered)))
            return self.live.next_photo, done

    def status(self) -> tuple[str, int, str | None]:
        """(phase, frames seen, last error)."""
        with self._lock:
            return self.live.phase, self.frames, self.error

    def process(self, image_rgb: np.ndarray) -> np.ndarray:
        """One frame -> the frame to show (evidence or status drawn on a copy)."""
        with self._lock:
            self.frames += 1
            try:
                for ev in self.live.feed(image_rgb):
                    if ev.kind in ("settled", "contested", "moving", "baseline", "gathered") or ev.note:
                        self.events.put(ev)
                self._contexts.add(_canonical(self.live.context_json))
                shown = self.live.overlay(image_rgb) if self.live.phase == "settled" else None
            except Exception as exc:  # the stream must go on; the page shows the error
                self.error = f"{exc.__class__.__name__}: {exc}"
                shown = None
            phase = self.live.phase
            contested = self.live.settled is not None and self.live.settled.kind == "contested"
        return self._banner(image_rgb if shown is None else shown, phase, contested)

    def _banner(self, image_rgb: np.ndarray, phase: str, contested: bool) -> np.ndarray:
        out = image_rgb.copy()
        text = "CONTESTED" if phase == "settled" and contested else STATUS_TEXT.get(phase, phase)
        colour = (40, 160, 60) if phase == "settled" and not contested else (200, 120, 20)
        h = self.config.banner_px
        cv2.rectangle(out, (0, 0), (out.shape[1], h), colour, -1)
        cv2.putText(out, text, (12, int(h * 0.72)), cv2.FONT_HERSHEY_SIMPLEX, h / 40.0, (255, 255, 255), 2,
                    cv2.LINE_AA)
        return out

    def __call__(self, frame: Any) -> Any:
        """streamlit-webrtc's ``video_frame_callback``: av.VideoFrame in, av.VideoFrame out."""
        import av

        out = self.process(frame.to_ndarray(format="rgb24"))
        return av.VideoFrame.from_ndarray(out, format="rgb24")

    def drain(self) -> list:
        """The events queued since the last call."""
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out


def ice_servers(config: LivePageConfig = LivePageConfig()) -> list:
    """ICE servers from the environment (JSON list), else none."""
    raw = os.environ.get(config.ice_servers_env)
    if not raw:
        return []
    try:
        servers = json.loads(raw)
    except json.JSONDecodeError:
        st.warning(f"{config.ice_servers_env} is not JSON; using no ICE servers")
        return []
    return servers if isinstance(servers, list) else []


def _canonical(context: dict | None) -> str:
    return json.dumps(context, sort_keys=True, default=str)


def _processor(game: Any, context: dict | None) -> LiveProcessor:
    """The game's live processor; a new one when the form's context is not one it judged with (a changed form)."""
    key = "live-processor:" + game.name
    proc = st.session_state.get(key)
    if proc is None or not proc.accepts(context):
        proc = LiveProcessor(game, context)
        st.session_state[key] = proc
    return proc


def _guide(box: Any, proc: LiveProcessor) -> None:
    """What the players do: whose photo the camera should see next (several photos per judgement)."""
    nxt, done = proc.next_photo()
    if nxt is None:
        return
    labels = [label for label, _ in proc.live.photos]
    read = ("Read: " + ", ".join(f"{d} ✓" for d in done) + " · ") if done else ""
    box.info(f"{read}Now show **{nxt}** to the camera and take your hand away. (A table: "
             + ", then ".join(labels) + ", in turn; the ranking comes when the last has settled.)")


def _show_log(box: Any, log: list[dict]) -> None:
    """Every placement settled so far (a pair game), newest last."""
    if log:
        with box.container():
            st.markdown(f"**Placements settled: {len(log)}**")
            st.table(log)


def _show_settled(box: Any, game: Any, item: dict) -> None:
    from ui.results import show_result

    with box.container():
        result = item["result"]
        colour = "#1f7a34" if not result.get("contested") else "#b36b00"
        st.markdown(f"<div style='font-size:2.6rem;font-weight:800;color:{colour}'>Settled: "
                    f"{headline(game, result)}</div>", unsafe_allow_html=True)
        before = result.get("live", {}).get("before_frame")
        st.caption(f"frame {item['frame']}" + (f" · 'before' photo: frame {before}" if before is not None else "")
                   + (f" · recorded as judgement #{item['id']}" if item.get("id") else ""))
        if result.get("contested"):
            st.warning("The still frames disagreed; nothing picked, nothing recorded. "
                       + "; ".join(f"{r['frames']} frame(s): {r['cannot_judge'] or 'a judgement'}"
                                   for r in result["live"]["readings"]))
        else:
            show_result(game, result)


def _placement(page: Any, proc: LiveProcessor, ledger: Any, line: dict, judgement_id: int | None,
               context: dict | None) -> dict:
    """A settled placement as a row of the page's list; played in the game kept in the ledger when the game's
    page module can (``live_settled``), whose next context the live judge then uses."""
    note = "recorded as a judgement" if judgement_id else "not recorded (no ledger)"
    if ledger is not None and hasattr(page, "live_settled"):
        note, nxt = page.live_settled(ledger, line["live"].get("context") or context or {}, line, judgement_id)
        if nxt is not None:
            try:
                proc.set_context(nxt)
            except BadInput as exc:
                note += f" (the live judge keeps its own context: {exc})"
    return {"frame": line["live"]["frame"], "placement": proc.game.summary(line),
            "judgement": f"#{judgement_id}" if judgement_id else "-", "game": note}


def live_panel(game: Any, context: dict | None, ledger: Any, config: LivePageConfig = LivePageConfig(),
               table: str = "") -> None:
    """The live camera, its status, and the settled judgement (shown large, recorded once).

    Parameters
    ----------
    game : GamePlugin
    context : dict or None
        From the game's context form.
    ledger : Ledger or None
    """
    from streamlit_webrtc import WebRtcMode, webrtc_streamer

    game_name = game.name
    try:
        proc = _processor(game, context)
    except BadInput as exc:
        st.error(f"Bad input: {exc}")
        return
    page = game.ui()
    _game_controls(proc, page, ledger, context, game_name)
    w, h = config.ideal_size_px
    ctx = webrtc_streamer(
        key=f"live-{game_name}",
        mode=WebRtcMode.SENDRECV,
        rtc_configuration={"iceServers": ice_servers(config)},
        media_stream_constraints={"video": {"width": {"ideal": w}, "height": {"ideal": h}}, "audio": False},
        video_frame_callback=proc,
        async_processing=True,
    )
    guide_box = st.empty()
    status_box = st.empty()
    settled_box = st.empty()
    log_box = st.empty()
    settled_key = f"live-settled:{game_name}"
    log = proc.log
    if st.session_state.get(settled_key):
        _show_settled(settled_box, game, st.session_state[settled_key])
    _show_log(log_box, log)
    _guide(guide_box, proc)
    if not ctx.state.playing:
        status_box.info("Press START to judge the table from the camera. The judgement settles when no hand is in "
                        "the picture and nothing moves.")
        return
    shown = None
    while ctx.state.playing:
        for ev in proc.drain():
            status_box.caption(describe(ev))
            if ev.kind in ("gathered", "unchanged"):  # a photo of the table read (or the same one still)
                _guide(guide_box, proc)
                continue
            if ev.kind == "moving":
                if st.session_state.get(settled_key):
                    status_box.warning("Pieces moving: below is the last settled judgement; waiting for the table to "
                                       "be still again.")
                continue
            if ev.kind == "baseline":  # a pair game's board before the next placement: nothing to judge yet
                status_box.info("The board is read; place a tile and take your hand away to have it judged.")
                continue
            if ev.kind == "contested" and proc.live.photos:  # one photo's frames disagree: no judgement yet
                status_box.warning(ev.note or "This photo reads differently from frame to frame; it is read again.")
                continue
            if ev.kind == "settled" and not ev.votes[0].reading.ok:
                if proc.live.before_frame == ev.frame:  # Carrotain's chips alone: the "before" of the challenge
                    status_box.info(f"Frame {ev.frame} is kept as the 'before' photo ({ev.votes[0].reading.value}); "
                                    "now lay the boards and take your hand away.")
                else:
                    status_box.warning(f"Still, but cannot judge: {ev.votes[0].reading.value}")
                continue
            line = event_json(ev, game_name, None)
            item = {"result": line, "frame": ev.frame, "id": None}
            if ev.kind == "settled" and ledger is not None:
                item["id"] = record_settled(ledger, game_name, ev, "live camera", table)
            st.session_state[settled_key] = item
            _show_settled(settled_box, game, item)
            if ev.kind == "settled" and proc.live.pairs:
                log.append(_placement(page, proc, ledger, line, item["id"], context))
                _show_log(log_box, log)
            _guide(guide_box, proc)
        shown = _show_status(status_box, proc, shown)
        time.sleep(config.poll_s)


def _game_controls(proc: Any, page: Any, ledger: Any, context: dict | None, game_name: str) -> None:
    """Above the camera: a pair game's guide and its game in the ledger; a CMYK!-style table's restart button."""
    if proc.live.pairs:
        st.caption("Place a tile and take your hand away: each placement settles once, is shown with its points "
                   "and recorded once.")
        if ledger is not None and hasattr(page, "session_panel"):
            with st.expander("The game in the ledger", expanded=True):
                page.session_panel(ledger, context, None)
    if proc.live.photos and st.button("Start the table again", key=f"live-restart-{game_name}",
                                      help="forget the mosaics read so far: the next one is the first player's"):
        proc.restart_table()


def _show_status(status_box: Any, proc: Any, shown: tuple | None) -> tuple:
    """The processor's phase and frame count (every 10 frames), or the error that stopped it; returns what is
    shown now, so an unchanged status is not redrawn."""
    phase, frames, error = proc.status()
    now = (phase, frames // 10, error)
    if now != shown:
        if error:
            status_box.error(f"Live judging stopped on a frame: {error}")
        elif phase not in ("settled", "moving"):
            status_box.caption(f"{STATUS_TEXT.get(phase, phase)} · {frames} frames")
    return now
