"""``cli.py live``: settle judgements from a local webcam or a video file (OpenCV ``VideoCapture``).

stdout: one JSON line per settled judgement (the judgement JSON plus ``live``: frame, time, status);
stderr: progress (moving / settled / cannot judge). Agreed judgements are recorded in the ledger once.
A game judged from several photos (CMYK!: one mosaic per player) is shown them in turn, in the context's
player order: each settled photo is said on stderr, and the table's judgement is the one JSON line.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import BadInput


@contextlib.contextmanager
def _quiet_native_stderr() -> Iterator[None]:
    """Silence what OpenCV's video back ends print straight to file descriptor 2 (our own line says it)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def open_source(source: str) -> Any:
    """A ``cv2.VideoCapture`` for a camera index ("0") or a video file; ``BadInput`` when it cannot be read."""
    import cv2

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)  # our one line says what went wrong
    if source.isdigit():
        with _quiet_native_stderr():
            cap = cv2.VideoCapture(int(source))
        if not cap.isOpened():
            raise BadInput(f"--source {source}: no camera with this index can be opened")
        return cap
    p = Path(source)
    if not p.is_file():
        raise BadInput(f"--source {source}: no such file (give a video file or a camera index such as 0)")
    with _quiet_native_stderr():
        cap = cv2.VideoCapture(str(p))
    if not cap.isOpened():
        raise BadInput(f"--source {source}: not a video OpenCV can read")
    return cap


def frames_of(cap: Any, source: str, max_frames: int | None = None) -> Iterator[np.ndarray]:
    """RGB frames until the source ends; ``BadInput`` when not even the first frame can be read."""
    import cv2

    n = 0
    while max_frames is None or n < max_frames:
        if n == 0:
            with _quiet_native_stderr():
                ok, bgr = cap.read()
        else:
            ok, bgr = cap.read()
        if not ok or bgr is None:
            if n == 0:
                raise BadInput(f"--source {source}: no frame could be read (empty or broken video)")
            return
        n += 1
        yield cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def run_live(game: Any, source: str, context: dict | None, profile: Any = None, ledger: Any = None,
             config: Any = None, max_frames: int | None = None, out=None, err=None, table: str = "") -> int:
    """Judge a stream; returns the number of settled judgements written.

    Parameters
    ----------
    game : GameSpec
    source : str
        A camera index ("0") or a video file.
    context : dict or None
    profile : CalibrationProfile, optional
    ledger : Ledger, optional
        Agreed settled judgements are recorded here (once each).
    config : LiveRunConfig, optional
    max_frames : int, optional
        Stop after this many frames (a camera never ends).
    table : str
        The hall's table name recorded with each settled judgement ("" for none).
    """
    import cv2

    from judge.live_run import LiveJudge, LiveRunConfig, describe, event_json, record_settled

    out = out or sys.stdout
    err = err or sys.stderr
    live = LiveJudge(game, context, profile, config or LiveRunConfig(), source=f"live:{source}")
    cap = open_source(source)
    if live.photos:
        err.write(f"{len(live.photos)} photo(s) per judgement, shown to the camera in turn: "
                  + ", ".join(label for label, _ in live.photos) + "\n")
    fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0) or None
    written = 0
    t0 = time.perf_counter()
    try:
        for image in frames_of(cap, source, max_frames):
            for ev in live.feed(image):
                err.write(describe(ev) + "\n")
                if ev.kind not in ("settled", "contested"):
                    continue
                line = event_json(ev, game.name, fps)
                if ev.kind == "settled" and not ev.votes[0].reading.ok:
                    continue  # a still table that cannot be judged: said on stderr, nothing to record
                if ledger is not None and ev.kind == "settled":
                    line["judgement_id"] = record_settled(ledger, game.name, ev, f"live:{source}", table)
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
                out.flush()
                written += 1
    finally:
        cap.release()
    secs = time.perf_counter() - t0
    err.write(f"{live.frame_index} frames in {secs:.1f} s; {written} settled judgement(s)\n")
    return written
