"""Live mode on the page: the browser camera as a WebRTC video stream (streamlit-webrtc), judged as it plays.

Frames arrive in streamlit-webrtc's worker thread; :class:`LiveProcessor` feeds them to
:class:`judge.live_run.LiveJudge` (settling and voting), draws the settled judgement's evidence (or the
current status) on the video sent back, and queues the settled events. The page script drains that queue:
a settled judgement is shown large and recorded in the ledger once (in the script's thread, where the
ledger lives).
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
                    if ev.kind in ("settled", "contested", "moving", "baseline"):
                        self.events.put(ev)
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


def _processor(game: Any, context: dict | None) -> LiveProcessor:
    key = "live-processor:" + game.name + ":" + json.dumps(context, sort_keys=True, default=str)
    proc = st.session_state.get(key)
    if proc is None:
        proc = LiveProcessor(game, context)
        st.session_state[key] = proc
    return proc


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
    w, h = config.ideal_size_px
    ctx = webrtc_streamer(
        key=f"live-{game_name}",
        mode=WebRtcMode.SENDRECV,
        rtc_configuration={"iceServers": ice_servers(config)},
        media_stream_constraints={"video": {"width": {"ideal": w}, "height": {"ideal": h}}, "audio": False},
        video_frame_callback=proc,
        async_processing=True,
    )
    status_box = st.empty()
    settled_box = st.empty()
    settled_key = f"live-settled:{game_name}"
    if st.session_state.get(settled_key):
        _show_settled(settled_box, game, st.session_state[settled_key])
    if not ctx.state.playing:
        status_box.info("Press START to judge the table from the camera. The judgement settles when no hand is in "
                        "the picture and nothing moves.")
        return
    shown = None
    while ctx.state.playing:
        for ev in proc.drain():
            status_box.caption(describe(ev))
            if ev.kind == "moving":
                if st.session_state.get(settled_key):
                    status_box.warning("Pieces moving: below is the last settled judgement; waiting for the table to "
                                       "be still again.")
                continue
            if ev.kind == "baseline":  # a pair game's board before the next placement: nothing to judge yet
                status_box.info("The board is read; place a tile and take your hand away to have it judged.")
                continue
            if ev.kind == "settled" and not ev.votes[0].reading.ok:
                status_box.warning(f"Still, but cannot judge: {ev.votes[0].reading.value}")
                continue
            line = event_json(ev, game_name, None)
            item = {"result": line, "frame": ev.frame, "id": None}
            if ev.kind == "settled" and ledger is not None:
                item["id"] = record_settled(ledger, game_name, ev, "live camera", table)
            st.session_state[settled_key] = item
            _show_settled(settled_box, game, item)
        phase, frames, error = proc.status()
        now = (phase, frames // 10, error)
        if now != shown:
            shown = now
            if error:
                status_box.error(f"Live judging stopped on a frame: {error}")
            elif phase not in ("settled", "moving"):
                status_box.caption(f"{STATUS_TEXT.get(phase, phase)} · {frames} frames")
        time.sleep(config.poll_s)
