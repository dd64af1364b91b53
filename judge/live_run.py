"""Judging a video stream: motion -> settling -> readings, reusing what is known while the table is still.

``LiveJudge.feed(image_rgb)`` takes frames in order (a webcam, a video file, the browser's WebRTC stream)
and returns the settling events (:mod:`judge.live`). Costs per frame:

- every frame: the motion measure (:mod:`judge.motion`: a shrunk top view, a few ms);
- a frame that must be read (the vote window after the scene became still): the game's detection and
  rules; the markers are found again only on the first read after motion (the camera or a marker may
  have been bumped), later reads in the window reuse that calibration, and a game with a warm detection
  (``LiveSupport.detect_warm``) carries what its first read found (board poses, a lattice) to the next;
- once settled, frames cost the motion measure alone until something moves.

"Before" photos (``GamePlugin.live.before``): Carrotain keeps the last scene that settled with chips and
no boards as the "before" photo of the next challenge (judged as ``[before, challenge]``). Pair games
(Ingenious, Genial Spezial) keep the previous settled scene: the first still scene is the baseline (judged
as the pair ``[scene, scene]``, which checks that its board can be read, and reported as ``baseline``);
every later still scene is judged as ``[before, now]``. A pair that shows a change settles (one judgement
per placement) and becomes the next "before"; a pair that shows none (a hand passed over the table)
reports ``unchanged``; a scene that cannot be judged or is contested leaves the "before" as it was. After a
placement the game's ``LiveSupport.next_context`` gives the next placement's context (the turn passed on,
the scores after it); a game without one judges later placements with the context as given, flagged
``live_context_stale`` (the mover and scores before may be out of date).

Several photos per judgement (``GamePlugin.live.per_photo``; CMYK!: one mosaic per player): the players show
their photos to the camera one after the other, in the context's order. Each still scene is read alone as the
next photo (with that photo's own context) and reported as ``gathered``; a hand that passes over the photo
just kept without changing it reports ``unchanged``; when the last photo has settled, all of them are judged
together (each photo's last voted frame, detected again with the whole context) and that table judgement
settles. ``restart_table`` forgets the photos gathered so far.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.errors import BadInput, CannotJudge
from core.timing import StageTimer
from judge.images import ImageLimits
from judge.live import LiveConfig, LiveEvent, Reading, Settler, Vote, cannot_key, reading_key
from judge.motion import MotionConfig, MotionMeter, MotionSample
from judge.pipeline import add_calibration_notes, adjudicate, make_frame, parse_context
from judge.plugin import Frame, GamePlugin


@dataclass(frozen=True)
class LiveRunConfig:
    """Tunables of the live driver.

    Attributes
    ----------
    settle : LiveConfig
    motion : MotionConfig
    warm : bool
        Use the game's warm detection across the reading frames of one still scene, when it has one.
    work_long_side_px : int
        Frames larger than this (a 4K camera) are shrunk to it first, as photos are (``judge.images``).
    """

    settle: LiveConfig = field(default_factory=LiveConfig)
    motion: MotionConfig = field(default_factory=MotionConfig)
    warm: bool = True
    work_long_side_px: int = ImageLimits().work_long_side_px


@dataclass(frozen=True)
class ReadPayload:
    """What a reading keeps for the caller: the frame read, when judged its state (for the overlay), the
    index of the frame judged as its "before" photo (None: none), a pair game's context it was judged with,
    the frame's own judgement (before the vote merged every frame's doubts into it), and for a judgement of
    several photos shown in turn the frame index of each photo."""

    frame: Frame
    state: Any = None
    before_frame: int | None = None
    context: dict | None = None
    result: dict | None = None
    photo_frames: tuple[int, ...] = ()


class LiveJudge:
    """Settle judgements from a stream of frames of one game.

    Parameters
    ----------
    game : GamePlugin
    context : dict or None
        The game's context JSON (validated now: ``BadInput``).
    profile : CalibrationProfile, optional
    config : LiveRunConfig
    source : str
        Where the frames come from (for the judgements' frames).

    Attributes
    ----------
    frame_index : int
        Frames fed so far.
    last_sample : MotionSample or None
    last_timings_ms : dict[str, float]
        Stage -> wall-clock ms of the last frame (``motion``, ``markers``, ``reading`` and the game's stages).
    last_cpu_ms : dict[str, float]
        The same stages' CPU ms (``core.timing.StageTimer.cpu_ms``).
    settled : LiveEvent or None
        The last ``settled``/``contested`` event.
    before : Frame or None
        The kept "before" photo (Carrotain's chips alone; a pair game's previous settled scene).
    context_json : dict or None
        The context judged with now (a pair game's advances after each placement).
    placements : int
        A pair game's placements settled so far.
    stale : str or None
        Why the context may be out of date (a pair game whose next context could not be told), else None.
    reads : int
        Frames read (detection run) so far; ``warm_reads`` of them with what an earlier frame found.
    photos : tuple[(str, dict), ...]
        A judgement of several photos shown in turn (``LiveSupport.per_photo``, two or more): each photo's label
        and own context; empty for a game judged from one still scene.
    gathered : list of (int, Reading)
        The photos of the table settled so far (frame index, agreed reading), in order.
    """

    def __init__(self, game: GamePlugin, context: dict | None, profile: Any = None,
                 config: LiveRunConfig = LiveRunConfig(), source: str = "video") -> None:
        from calibration.markers import MarkerLayout

        self.game = game
        self.context_json = context
        self.ctx = parse_context(game, context)
        photos = game.live.per_photo(context) if game.live.per_photo is not None else ()
        self.photos = photos if len(photos) > 1 else ()  # one photo: every still scene is a judgement
        self._photo_ctx = tuple(parse_context(game, c) for _, c in self.photos)
        self.gathered: list[tuple[int, Reading]] = []
        self._kept_view: np.ndarray | None = None  # the motion view of the table when the last photo was kept
        self.placements = 0
        self.stale: str | None = None
        self.profile = profile
        self.config = config
        self.source = source
        self.layout = game.marker_layout() if game.marker_layout is not None else MarkerLayout.from_components()
        if profile is not None:
            self.layout = profile.layout
        self.motion = MotionMeter(config.motion, self.layout.centres_mm)
        self.settler = Settler(config.settle)
        self._vote = replace(config.settle, ignore_keys=config.settle.ignore_keys + game.live.vote_ignores)
        self.frame_index = 0
        self.last_sample: MotionSample | None = None
        self.last_timings_ms: dict[str, float] = {}
        self.last_cpu_ms: dict[str, float] = {}
        self.settled: LiveEvent | None = None
        self.before: Frame | None = None
        self.before_frame: int | None = None  # index of the frame kept as ``before``
        self.reads = 0
        self.warm_reads = 0
        self._carry: Any = None  # the game's warm-detection carry, for the still scene being read
        self._carry_frame: Frame | None = None  # the frame whose read gave ``_carry``
        self._before_carry: Any = None  # what a new scene's detection starts with (``LiveSupport.keep_before``)
        self._calibration: Any = None  # TableCalibration, reused while the scene is still
        self._fresh = False  # the calibration was found after the last motion
        self._shape: tuple[int, ...] | None = None
        self._judged: tuple[Any, Any, dict] | None = None  # the last reading frame's (state, context, judgement)

    @property
    def phase(self) -> str:
        """``waiting``, ``moving``, ``still``, ``reading`` or ``settled``."""
        return self.settler.phase

    def feed(self, image_rgb: np.ndarray) -> list[LiveEvent]:
        """One frame (RGB uint8, (H, W, 3)) -> the events it caused (usually none)."""
        timer = StageTimer()
        image_rgb = self._working(image_rgb, timer)
        i = self.frame_index
        self.frame_index += 1
        image_rgb = self._same_size(image_rgb, timer)
        resized = self._shape is not None and image_rgb.shape != self._shape
        if resized:  # another camera (another aspect ratio): nothing known about the picture holds
            self._calibration, self._fresh = None, False
            self.motion.track(None)
        self._shape = image_rgb.shape
        with timer.stage("motion"):
            sample = self.motion.measure(image_rgb)
        self.last_sample = sample
        if sample.moving or resized:
            self._fresh = False
            self._carry = None
        events = self.settler.step(i, sample.moving or resized, lambda: self._read(image_rgb, timer))
        events = [self._gather_event(self._pair_event(ev), timer) for ev in events]
        for ev in events:
            if ev.kind in ("settled", "contested", "unchanged", "baseline", "baseline_contested", "gathered"):
                self.motion.mark_still()
                self._keep_before(ev)
            if ev.kind in ("settled", "contested"):
                self.settled = ev
        self.last_timings_ms = timer.rounded()
        self.last_cpu_ms = timer.rounded_cpu()
        return events

    def _working(self, image_rgb: np.ndarray, timer: StageTimer) -> np.ndarray:
        """The frame at the working size (shrunk by area averaging when larger)."""
        h, w = image_rgb.shape[:2]
        k = self.config.work_long_side_px / max(h, w)
        if k >= 1.0:
            return image_rgb
        import cv2

        with timer.stage("resize"):
            return cv2.resize(image_rgb, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)

    def _same_size(self, image_rgb: np.ndarray, timer: StageTimer) -> np.ndarray:
        """A frame of the stream's first size: a WebRTC stream lowers (and raises) its resolution when the
        browser's CPU or the network is short, keeping the aspect ratio; scaled back, its frames still pair with
        the kept "before" photo and its calibration. Another aspect ratio is left as it is (a new camera)."""
        if self._shape is None or image_rgb.shape == self._shape:
            return image_rgb
        (h0, w0), (h, w) = self._shape[:2], image_rgb.shape[:2]
        if abs(w * h0 - h * w0) > 0.01 * w0 * h:  # not the same picture scaled
            return image_rgb
        import cv2

        with timer.stage("resize"):
            return cv2.resize(image_rgb, (w0, h0), interpolation=cv2.INTER_LINEAR)

    def _frame(self, image_rgb: np.ndarray, timer: StageTimer) -> Frame:
        if self._fresh and self._calibration is not None:
            return Frame(image_rgb=image_rgb, calibration=self._calibration, source=self.source,
                         profile=self.profile)
        with timer.stage("markers"):
            frame = make_frame(image_rgb, self.source, self.profile, self.layout)
        if frame.calibration is not None:
            self._calibration = frame.calibration
            self._fresh = True
            self._carry = None
            self.motion.track(frame.calibration)
        return frame

    @property
    def pairs(self) -> bool:
        """The game is judged on photo pairs, the previous settled scene as "before"."""
        return self.game.live.before == "previous"

    def set_context(self, context: dict) -> None:
        """Judge the next placement with this context (e.g. the game kept in the ledger after a recorded move,
        which knows an Ingenious! extra placement owed); ``BadInput`` when it is not valid for the game."""
        self.ctx, self.context_json, self.stale = parse_context(self.game, context), context, None

    @property
    def next_photo(self) -> str | None:
        """The label of the photo the camera should see next (several photos per judgement), else None."""
        return self.photos[len(self.gathered)][0] if self.photos else None

    def restart_table(self) -> None:
        """Forget the photos gathered so far: the next still scene is the first photo again."""
        self.gathered, self._kept_view = [], None

    def _read(self, image_rgb: np.ndarray, timer: StageTimer) -> Reading:
        frame = self._frame(image_rgb, timer)
        ctx = self._photo_ctx[len(self.gathered)] if self.photos else self.ctx
        if self.before is not None:
            frames = [self.before, frame]
        else:  # a pair game's baseline is judged against itself: its board must be readable
            frames = [frame, frame] if self.pairs else [frame]
        before = self.before_frame if self.before is not None else None
        try:
            with timer.stage("reading"):
                state = self._detect(frames, ctx, timer)
                result = self._judge(state, ctx)
        except CannotJudge as exc:
            return Reading(cannot_key(str(exc)), False, str(exc), ReadPayload(frame, None, before))
        except BadInput as exc:  # e.g. a context that does not fit what is on the table
            return Reading(cannot_key(str(exc)), False, str(exc), ReadPayload(frame, None, before))
        add_calibration_notes(result, (frame,))
        if self.stale and self.before is not None:
            result.setdefault("flags", []).append({"code": "live_context_stale", "message": self.stale})
        payload = ReadPayload(frame, state, before, self.context_json if self.pairs else None, result)
        return Reading(reading_key(result, self._vote), True, result, payload)

    def _judge(self, state: Any, ctx: Any) -> dict:
        """The rules on a reading frame's state: the previous reading frame's judgement again (a copy) when the game
        says equal states judge the same (``LiveSupport.same_state_same_judgement``), this state equals that
        frame's and the context is the same object; else judged."""
        last = self._judged
        if (self.game.live.same_state_same_judgement and last is not None and last[1] is ctx
                and last[0] == state):
            return copy.deepcopy(last[2])
        result = adjudicate(self.game, state, ctx)
        self._judged = (state, ctx, copy.deepcopy(result))
        return result

    def _detect(self, frames: list[Frame], ctx: Any, timer: StageTimer) -> Any:
        """The game's detection; warm (carrying what earlier reads of this still scene found) when it can."""
        warm = self.game.live.detect_warm if self.config.warm else None
        self.reads += 1
        if warm is None:
            return self.game.detect(frames, ctx, timer)
        self.warm_reads += self._carry is not None
        start = self._carry if self._carry is not None else self._before_carry
        try:
            state, self._carry = warm(frames, ctx, timer, start)
        except CannotJudge as exc:  # what it read may still carry to the scene's next frames (a chips-only scene)
            if exc.carry is not None:
                self._carry = exc.carry
            raise
        finally:
            self._carry_frame = frames[-1]
        return state

    def _scene_key(self, reading: Reading) -> str:
        """What a photo's reading says about the pieces alone (not whose photo it was judged as)."""
        state = reading.payload.state.to_json() if reading.payload.state is not None else {}
        return reading_key(state, replace(self._vote, ignore_keys=self._vote.ignore_keys + ("player", "source")))

    def _same_photo(self, reading: Reading) -> bool:
        """The still table is the photo kept last: it looks as it did then (the motion view; a mark read another
        way does not make it another player's mosaic), or its pieces read the same."""
        looks_same = self.motion.changed_from(self._kept_view) <= self.config.motion.moving_fraction * 4
        return looks_same or self._scene_key(self.gathered[-1][1]) == self._scene_key(reading)

    def _gather_event(self, ev: LiveEvent, timer: StageTimer) -> LiveEvent:
        """Several photos per judgement: an agreed photo is ``gathered`` (the same pieces as the photo just kept:
        ``unchanged``); the last one makes the table judgement, which settles. The event's note names the photos."""
        r = ev.reading
        n = len(self.gathered)
        if not self.photos:
            return ev
        if ev.kind == "contested":  # this photo's frames disagree: nothing kept, read again
            return LiveEvent(ev.kind, ev.frame, ev.votes, f"{self.photos[n][0]} ({n + 1} of {len(self.photos)}) "
                             "reads differently from frame to frame: nothing kept yet; it is read again")
        if ev.kind != "settled" or r is None or not r.ok:
            return ev
        if n and self._same_photo(r):  # a hand passed over the photo kept
            return LiveEvent("unchanged", ev.frame, ev.votes, f"still {self.photos[n - 1][0]}; "
                             f"now show {self.photos[n][0]} and take your hand away")
        self.gathered.append((ev.frame, r))
        self._kept_view = self.motion.snapshot()
        if n + 1 < len(self.photos):
            return LiveEvent("gathered", ev.frame, ev.votes, f"{self.photos[n][0]} read ({n + 1} of "
                             f"{len(self.photos)}); now show {self.photos[n + 1][0]} and take your hand away")
        gathered, self.gathered = self.gathered, []
        table = self._table_reading(gathered, timer)
        note = f"the table of {len(self.photos)}: " + ", ".join(label for label, _ in self.photos)
        return LiveEvent("settled", ev.frame, (Vote(table, ev.votes[0].count),), note)

    def _table_reading(self, gathered: list[tuple[int, Reading]], timer: StageTimer) -> Reading:
        """All photos of a table judged together with the whole context: each photo's last voted frame detected
        again (named by its frame, so an overlay finds its photo), with every doubt the votes saw."""
        frames = [replace(r.payload.frame, source=f"{self.source} frame {i}") for i, r in gathered]
        photo_frames = tuple(i for i, _ in gathered)
        try:
            with timer.stage("reading"):
                state = self.game.detect(frames, self.ctx, timer)
                result = adjudicate(self.game, state, self.ctx)
        except (CannotJudge, BadInput) as exc:
            payload = ReadPayload(frames[-1], None, photo_frames=photo_frames)
            return Reading(cannot_key(str(exc)), False, str(exc), payload)
        add_calibration_notes(result, tuple(frames))
        seen = {json.dumps(f, sort_keys=True, default=str) for f in result.get("flags", [])}
        for _, r in gathered:  # doubts seen in the other voted frames of a photo, not in its last one
            own = {json.dumps(f, sort_keys=True, default=str) for f in (r.payload.result or {}).get("flags", [])}
            for f in r.value.get("flags", []):
                k = json.dumps(f, sort_keys=True, default=str)
                if k not in own and k not in seen:
                    seen.add(k)
                    result.setdefault("flags", []).append(f)
        payload = ReadPayload(frames[-1], state, None, None, result, photo_frames)
        return Reading(reading_key(result, self._vote), True, result, payload)

    def _pair_event(self, ev: LiveEvent) -> LiveEvent:
        """Pair games: an agreed reading with no change is ``baseline`` (nothing kept yet) or ``unchanged``; a
        first board whose frames disagree is ``baseline_contested`` (nothing kept, no placement to report)."""
        if self.pairs and self.before is None and ev.kind in ("contested", "unchanged") and ev.reading is None:
            return LiveEvent("baseline_contested", ev.frame, ev.votes)
        if not self.pairs or ev.kind not in ("settled", "unchanged") or ev.reading is None or not ev.reading.ok:
            return ev
        if self.before is None:
            return LiveEvent("baseline", ev.frame, ev.votes)
        if ev.kind == "settled" and not self._changed(ev.reading.value):
            return LiveEvent("unchanged", ev.frame, ev.votes)
        return ev

    def _changed(self, result: dict) -> bool:
        codes = {f.get("code") for f in result.get("flags", []) if isinstance(f, dict)}
        return bool(result.get("placed")) or bool(codes & set(self.game.live.change_codes))

    def _keep_before(self, ev: LiveEvent) -> None:
        live = self.game.live
        r = ev.reading
        if r is None:
            return
        if live.before == "cannot_judge" and not r.ok and live.before_reason and live.before_reason in str(r.value):
            self.before, self.before_frame = r.payload.frame, ev.frame
            # the kept frame's own reading starts the next scenes' detection (not read again)
            hook, same = live.keep_before, self._carry is not None and self._carry_frame is r.payload.frame
            self._before_carry = hook(self._carry, r.payload.frame) if hook is not None and same else None
        elif live.before == "previous" and r.ok:  # baseline, placement, or the same board again (fresher)
            self.before, self.before_frame = r.payload.frame, ev.frame
            if ev.kind == "settled":
                self._advance_context(r.value)

    def _advance_context(self, result: dict) -> None:
        """After a settled placement: the next placement's context, or the reason it may be stale."""
        self.placements += 1
        hook = self.game.live.next_context
        nxt = hook(self.context_json, result) if hook is not None and not self.stale else None
        if nxt is not None:
            try:
                self.ctx, self.context_json = parse_context(self.game, nxt), nxt
                return
            except BadInput:
                pass
        if not self.stale:
            self.stale = (f"judged with the context given before placement {self.placements} (live could not "
                          "carry the turn and scores on): the mover and the scores before may be out of date; "
                          "check them, or judge the photo pair with the right context")

    def overlay(self, image_rgb: np.ndarray) -> np.ndarray | None:
        """The settled judgement's evidence drawn on this frame (None before anything settled or when contested).

        The calibration of the settled reading is reused: right while the camera has not moved. A frame larger
        than the working size is drawn on shrunk to it (the size the calibration belongs to).
        """
        ev = self.settled
        if ev is None or ev.reading is None or not ev.reading.ok:
            return None
        image_rgb = self._working(image_rgb, StageTimer())
        payload: ReadPayload = ev.reading.payload
        frame = Frame(image_rgb=image_rgb, calibration=payload.frame.calibration, source=payload.frame.source,
                      profile=self.profile)
        return self.game.overlay(frame, payload.state, ev.reading.value)


def event_json(ev: LiveEvent, game: str, fps: float | None, before_frame: int | None = None) -> dict:
    """A settled or contested event as the CLI's JSON line: the judgement plus a ``live`` field.

    Several photos per judgement (CMYK!'s table): ``photo_frames`` (the frame each photo settled on) and ``note``
    (a contested photo: whose it was).

    ``live``: ``frame``, ``status``, ``time_s`` (when the frame rate is known), ``before_frame`` (the settled
    frame judged as the "before" photo: Carrotain's chips alone, a pair game's previous settled board; by
    default the one the event's reading was judged against), ``context`` (a pair game: the context this
    placement was judged with, which advances from placement to placement). Contested: ``contested`` true,
    every distinct reading with its frame count under ``live.readings``, a ``contested_reading`` flag, no
    scores picked.
    """
    payload = ev.votes[0].reading.payload if ev.votes else None
    if before_frame is None and isinstance(payload, ReadPayload):
        before_frame = payload.before_frame
    live: dict[str, Any] = {"frame": ev.frame, "status": ev.kind}
    if isinstance(payload, ReadPayload) and payload.context is not None:
        live["context"] = payload.context  # a pair game's context as it stood for this placement
    if fps:
        live["time_s"] = round(ev.frame / fps, 3)
    if before_frame is not None:
        live["before_frame"] = before_frame
    if isinstance(payload, ReadPayload) and payload.photo_frames:
        live["photo_frames"] = list(payload.photo_frames)  # each photo of the judgement: its settled frame
    if ev.note:
        live["note"] = ev.note  # e.g. whose photo a contested reading was, and what the players do next
    if ev.kind in ("settled", "unchanged"):
        r = ev.votes[0].reading
        live["frames_agreeing"] = ev.votes[0].count
        return {**r.value, "live": live}
    live["readings"] = [{"frames": v.count, "judgement": v.reading.value if v.reading.ok else None,
                         "cannot_judge": None if v.reading.ok else v.reading.value} for v in ev.votes]
    n = sum(v.count for v in ev.votes)
    return {
        "game": game,
        "contested": True,
        "scores": {},
        "flags": [{"code": "contested_reading",
                   "message": f"{len(ev.votes)} different readings over {n} still frames: not picking one"}],
        "explanation": ["The frames of the still table did not agree; see live.readings. Hold the camera "
                        "steady, improve the light, or judge a photo."],
        "live": live,
    }


def thumbnail_jpeg(image_rgb: np.ndarray, long_side_px: int = 320) -> bytes:
    """A small JPEG of a frame for the ledger."""
    import cv2

    h, w = image_rgb.shape[:2]
    k = long_side_px / max(h, w)
    small = cv2.resize(image_rgb, (max(1, int(w * k)), max(1, int(h * k))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(small, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 80])
    return buf.tobytes() if ok else b""


def record_settled(ledger: Any, game: str, ev: LiveEvent, source: str, table: str | None = None) -> int:
    """Record an agreed settled judgement (its last frame's state and the merged judgement) once, at ``table``
    (the hall's table name, "" or None for none); its id."""
    import hashlib

    reading = ev.votes[0].reading
    frame = reading.payload.frame
    return ledger.record_judgement(
        game, state=reading.payload.state.to_json(), result=reading.value,
        photo_sha256=hashlib.sha256(frame.image_rgb.tobytes()).hexdigest(),
        source=f"{source} frame {ev.frame}", thumbnail_jpeg=thumbnail_jpeg(frame.image_rgb), table=table)


def describe(ev: LiveEvent) -> str:
    """One line for stderr (with the event's note, e.g. whose photo the camera should see next)."""
    line = _describe(ev)
    return f"{line} - {ev.note}" if ev.note else line


def _describe(ev: LiveEvent) -> str:
    if ev.kind == "moving":
        return f"frame {ev.frame}: pieces moving; waiting for the table to be still"
    if ev.kind == "baseline":
        return f"frame {ev.frame}: the board read; kept as the 'before' of the next placement"
    if ev.kind == "baseline_contested":
        return (f"frame {ev.frame}: the board reads differently from frame to frame ({len(ev.votes)} readings); "
                "not kept as the 'before' yet, reading it again")
    if ev.kind == "contested":
        return f"frame {ev.frame}: settled as CONTESTED ({len(ev.votes)} different readings)"
    if ev.kind == "gathered":
        return f"frame {ev.frame}: photo read and kept for the judgement"
    r = ev.votes[0].reading
    what = "judged" if r.ok else f"cannot judge: {r.value}"
    if ev.kind == "unchanged":
        if len(ev.votes) > 1:
            return f"frame {ev.frame}: still contested ({len(ev.votes)} different readings)"
        return f"frame {ev.frame}: still again, same reading as settled ({what})"
    return f"frame {ev.frame}: settled ({what})"
