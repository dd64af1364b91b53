"""Settling and voting for live video: when is a reading of the table final?

Pure logic (no images, no cv2): each frame brings a *motion* verdict (a hand or moving pieces seen,
measured by :mod:`judge.motion`) and, when asked for, a *reading* (the game's judgement of that frame,
or why it could not judge). The scene is *still* when no motion has been seen for
``LiveConfig.still_frames`` frames; then the next ``LiveConfig.vote_frames`` frames are read. When
every reading agrees the judgement *settles* (emitted once); when they disagree it settles as
*contested*, listing every reading and picking none. Motion afterwards says so and the judgement settles
again once the scene is still; a scene that comes back to the reading already settled is not emitted
again (recorded once).

Example
-------
>>> s = Settler(LiveConfig(still_frames=2, vote_frames=2))
>>> read = lambda: Reading(key="a", ok=True, value={"verdict": "a"})
>>> [e.kind for i in range(5) for e in s.step(i, moving=False, read=read)]
['settled']
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LiveConfig:
    """Tunables of settling and voting.

    Attributes
    ----------
    still_frames : int
        Frames without motion (and without a hand) before the scene counts as still and is read.
    vote_frames : int
        Consecutive still frames read and compared; all must agree for an agreed judgement.
    repeat_same : bool
        Emit a settled judgement again when the scene settles back to the reading already settled
        (False: a hand passing over the table without moving anything records nothing new).
    retry_contested : bool
        After a contested vote, keep voting on the still table (the camera's picture may improve: focus,
        exposure, a video stream's quality ramping up); a later agreed vote settles, a contested one with the
        same readings is not emitted again.
    ignore_keys : tuple[str, ...]
        Judgement fields left out when comparing readings (per-frame measurements, prose, timings, and the
        flags: doubts are not a reading; the settled judgement carries every frame's flags).
    ignore_suffixes : tuple[str, ...]
        Fields whose name ends so are measurements that jitter from frame to frame (positions, margins,
        score ranges: the settled judgement carries the widest range seen).
    """

    still_frames: int = 6
    vote_frames: int = 3
    repeat_same: bool = False
    retry_contested: bool = True
    ignore_keys: tuple[str, ...] = ("timings_ms", "explanation", "flags", "judgement_id", "live", "borderline")
    ignore_suffixes: tuple[str, ...] = ("_mm", "_px", "_deg", "_score", "confidence", "_range")


@dataclass(frozen=True)
class Reading:
    """What one frame says about the table.

    Attributes
    ----------
    key : str
        Canonical text of what is compared between frames (see :func:`reading_key`).
    ok : bool
        True: ``value`` is a judgement (dict in the CLI contract); False: the frame could not be judged
        and ``value`` is the reason (str).
    value : Any
    payload : Any
        Whatever the caller wants back with the settled event (e.g. the frame and its state).
    """

    key: str
    ok: bool
    value: Any
    payload: Any = None


@dataclass(frozen=True)
class Vote:
    """One distinct reading in a vote window and how many frames gave it."""

    reading: Reading
    count: int


@dataclass(frozen=True)
class LiveEvent:
    """Something the caller reports.

    Attributes
    ----------
    kind : str
        ``"moving"`` (the scene changed after being still or settled), ``"settled"`` (all readings agreed),
        ``"contested"`` (readings disagreed), ``"unchanged"`` (settled back to the reading already settled);
        the live driver adds ``"baseline"`` (a pair game's first still scene, kept as the next "before") and
        ``"baseline_contested"`` (its frames disagreed: not kept, read again) and ``"gathered"`` (one photo of a
        judgement of several shown in turn, kept until the last one settles).
    frame : int
        Index of the frame that caused it.
    votes : tuple[Vote, ...]
        Settled/contested/unchanged: the distinct readings of the vote window, most frequent first.
    note : str
        What the driver adds for the people at the table when the event happens (e.g. whose photo is next).
    """

    kind: str
    frame: int
    votes: tuple[Vote, ...] = ()
    note: str = ""

    @property
    def reading(self) -> Reading | None:
        """The agreed reading (settled, baseline, gathered, or unchanged after settled), else None."""
        agreed = self.kind in ("settled", "unchanged", "baseline", "gathered") and len(self.votes) == 1
        return self.votes[0].reading if agreed else None


@dataclass
class Settler:
    """The settling state machine; feed it every frame in order with :meth:`step`.

    Phases: ``"waiting"`` (nothing still yet), ``"moving"``, ``"still"`` (counting still frames),
    ``"reading"`` (collecting votes), ``"settled"``.
    """

    config: LiveConfig = field(default_factory=LiveConfig)
    phase: str = "waiting"
    still_count: int = 0
    votes: list[Reading] = field(default_factory=list)
    last_settled_key: str | None = None

    def step(self, frame: int, moving: bool, read: Callable[[], Reading]) -> list[LiveEvent]:
        """Advance by one frame.

        Parameters
        ----------
        frame : int
            The frame's index.
        moving : bool
            Motion or a hand seen in this frame (or the scene differs from the settled one).
        read : callable () -> Reading
            Reads this frame; called only when a vote is needed (reading is the expensive part).

        Returns
        -------
        list of LiveEvent
            Usually empty; at most one event.
        """
        if moving:
            was = self.phase
            self.phase, self.still_count, self.votes = "moving", 0, []
            return [LiveEvent("moving", frame)] if was in ("settled", "reading") else []
        if self.phase == "settled":
            if not (self.config.retry_contested and self.last_settled_key and
                    self.last_settled_key.startswith("contested:")):
                return []
            self.phase, self.still_count = "still", 0
        self.still_count += 1
        if self.still_count < self.config.still_frames:
            self.phase = "still"
            return []
        self.phase = "reading"
        self.votes.append(read())
        if len(self.votes) < self.config.vote_frames:
            return []
        return [self._decide(frame)]

    def wants_reading(self, moving: bool) -> bool:
        """Whether :meth:`step` with this motion verdict would read the frame (lets a caller skip work)."""
        retry = self.config.retry_contested and (self.last_settled_key or "").startswith("contested:")
        if moving or (self.phase == "settled" and not retry):
            return False
        count = 0 if self.phase == "settled" else self.still_count
        return count + 1 >= self.config.still_frames

    @staticmethod
    def _merged(group: list[Reading]) -> Reading:
        """The last frame of a group of agreeing readings stands for it, with all of their doubts."""
        last = group[-1]
        if not last.ok or len(group) == 1:
            return last
        return Reading(last.key, True, merge_judgements([r.value for r in group]), last.payload)

    def _decide(self, frame: int) -> LiveEvent:
        counts = Counter(r.key for r in self.votes)
        votes = tuple(Vote(self._merged([r for r in self.votes if r.key == k]), n) for k, n in counts.most_common())
        self.votes = []
        self.phase = "settled"
        if len(votes) > 1:
            key = "contested:" + json.dumps(sorted(v.reading.key for v in votes))
            kind = "unchanged" if key == self.last_settled_key else "contested"
            self.last_settled_key = key
            return LiveEvent(kind, frame, votes)
        key = votes[0].reading.key
        if key == self.last_settled_key and not self.config.repeat_same:
            return LiveEvent("unchanged", frame, votes)
        self.last_settled_key = key
        return LiveEvent("settled", frame, votes)


def _strip(obj: Any, config: LiveConfig) -> Any:
    if isinstance(obj, dict):
        return {k: _strip(v, config) for k, v in obj.items()
                if k not in config.ignore_keys and not any(k.endswith(s) for s in config.ignore_suffixes)}
    if isinstance(obj, list):
        items = [_strip(v, config) for v in obj]
        if items and all(isinstance(v, (dict, list)) for v in items):  # pieces, cells: a set, not a sequence
            items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return items
    if isinstance(obj, float):
        return round(obj, 1)
    return obj


def reading_key(judgement: dict, config: LiveConfig = LiveConfig()) -> str:
    """Canonical text of what a judgement says about the table, for comparing frames.

    Leaves out timings, prose, flags and per-frame measurements (``*_mm``, ``*_px`` ...) and compares lists
    of pieces as sets (their order follows jittering positions), so two frames of an unchanged table give
    the same key while any change of verdict, score, count, kind or colour gives a different one.
    """
    return json.dumps(_strip(judgement, config), sort_keys=True, ensure_ascii=False)


def merge_judgements(judgements: list[dict]) -> dict:
    """One judgement for frames that agree: the latest, with every frame's flags and the widest ``*_range``.

    Parameters
    ----------
    judgements : list of dict
        Agreeing readings, oldest first.
    """
    out = copy.deepcopy(judgements[-1])
    flags: list = []
    seen: set[str] = set()
    for j in judgements:
        for f in j.get("flags", []):
            k = json.dumps(f, sort_keys=True, default=str)
            if k not in seen:
                seen.add(k)
                flags.append(f)
    if flags or "flags" in out:
        out["flags"] = flags
    _widen(out, judgements[:-1])
    return out


def _widen(out: Any, others: list[Any]) -> None:
    """Widen every ``*_range`` [lo, hi] in ``out`` (in place) to cover the same field in ``others``."""
    if not isinstance(out, dict):
        return
    for k, v in out.items():
        peers = [o.get(k) for o in others if isinstance(o, dict)]
        if k.endswith("_range") and isinstance(v, list) and len(v) == 2:
            lows = [v[0]] + [p[0] for p in peers if isinstance(p, list) and len(p) == 2]
            highs = [v[1]] + [p[1] for p in peers if isinstance(p, list) and len(p) == 2]
            out[k] = [min(lows), max(highs)]
        elif isinstance(v, dict):
            _widen(v, peers)


def cannot_key(reason: str) -> str:
    """The key of a frame that could not be judged: its reason."""
    return "cannot:" + reason
