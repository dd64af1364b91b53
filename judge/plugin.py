"""The game plugin: everything one game provides, in one typed object.

A game is its stage modules (``vision/``, ``scoring/``, ``geometry/``), one plugin module
``judge/games/<game>.py`` that defines ``PLUGIN = GamePlugin(...)``, a section in
``components/default.json``, and, for the page, ``ui/games/<game>.py``. The CLI, the page, the
history, the ledger export, the sample maker and the contract tests find games through
:mod:`judge.registry` and never name one.

Types flow one way::

    context JSON --parse_context--> C
    photos --make_frame--> Frame --detect(frames, C, timer)--> S (state, ``to_json``/``from_json``)
    S, C --adjudicate--> A (adjudication, ``to_json`` = the CLI contract's fields)
    Frame, S, A --annotate--> overlay image (drawn from A, never recomputed)

The page parts (photo inputs, context form, result panel, session panel) live in a ``ui``
module named by the plugin as a string and imported only by the page, so ``judge/`` never
imports Streamlit.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

from calibration.table import TableCalibration
from core.timing import StageTimer
from judge.session import SessionRules


@dataclass(frozen=True)
class Frame:
    """One photo ready for a detector.

    Attributes
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration or None
        From the markers; None when they were not found (``calibration_error`` says why), so a
        game with a markerless fallback can still try.
    calibration_error : str or None
    source : str
        Where the photo came from (file name, "camera", "sample:<name>"), for the ledger.
    profile : CalibrationProfile or None
        The user's saved profile (lens, layout, registered colours and board outlines), if given.
    """

    image_rgb: np.ndarray
    calibration: TableCalibration | None
    calibration_error: str | None = None
    source: str = ""
    profile: Any = None


@runtime_checkable
class JsonRecord(Protocol):
    """What states and adjudications are: frozen dataclasses that write themselves as JSON."""

    def to_json(self) -> dict: ...


C = TypeVar("C")
S = TypeVar("S", bound=JsonRecord)
A = TypeVar("A", bound=JsonRecord)


@dataclass(frozen=True)
class Registration:
    """What ``cli.py register`` put into a profile.

    Attributes
    ----------
    profile : CalibrationProfile
        The new profile (the old one with the user's pieces added).
    summary : dict
        JSON-able description of what was registered (colours, a board's point count), for stdout.
    """

    profile: Any
    summary: dict


@dataclass(frozen=True)
class LiveSupport:
    """How live video (``judge/live_run.py``) judges a game; the default judges every still scene alone.

    Attributes
    ----------
    before : str
        Which earlier scene is the "before" photo of a still scene: ``"none"`` (every still scene is judged
        alone); ``"cannot_judge"`` (the last still scene that could not be judged for ``before_reason``, e.g.
        Carrotain's chips before the boards are laid); ``"previous"`` (pair games: the previous settled scene;
        the first still scene is only the baseline, and each later one is judged as ``[before, now]``).
    before_reason : str
        ``"cannot_judge"``: text of the could-not-judge reason that marks a "before" scene.
    change_codes : tuple[str, ...]
        ``"previous"``: flag codes that say a piece of the before photo moved or went missing. A pair with
        nothing in ``placed`` and none of these flags is no change (a hand passed over the table): nothing is
        reported and the before photo stays.
    detect_warm : callable(list[Frame], C, StageTimer, carry) -> (S, carry), or None
        Detection that reuses what an earlier reading frame of the same still scene found (board poses, a
        lattice, the reading of a before photo that is the same image): ``carry`` is what the previous call
        returned for this still scene (None on its first reading frame; opaque to the caller). It must
        look at every frame again (the frames are voted on: read the pieces again, or check that what it
        carries is still there) and give the same state as ``detect`` would. A ``CannotJudge`` it raises may
        carry the carry (``CannotJudge.carry``). None: every reading frame runs ``detect``.
    keep_before : callable(carry, Frame) -> carry, or None
        ``"cannot_judge"``: when a still scene's frame is kept as the "before" photo, what of that scene's carry
        (the reading of that very frame) the next scenes' ``detect_warm`` starts with instead of None (the before
        photo's reading, not made again). None: the next scenes start with nothing.
    next_context : callable(context JSON or None, judgement JSON) -> context JSON or None, or None
        ``"previous"``: the context of the next placement after this settled one (the turn passed on, the
        scores after it), or None when the game cannot tell. Without it (or after a None) every later
        placement is judged with the context as it was and flagged ``live_context_stale``.
    vote_ignores : tuple[str, ...]
        Judgement fields left out when the frames of a still scene are compared (besides the live config's:
        flags, prose, measurements), e.g. a readout of every piece whose frame-to-frame doubt the scores and
        flags already carry; what is scored is always compared.
    per_photo : callable(context JSON or None) -> tuple[(label, context JSON), ...], or None
        A judgement of several photos shown to the camera one after the other (CMYK!: one mosaic per player):
        each photo's label ("Aki's mosaic") and the context that judges it alone, in the order they are shown.
        Live mode reads each still scene as the next photo and judges them together once the last has
        settled. None: every still scene is one judgement.
    same_state_same_judgement : bool
        The game's state is a frozen value (no arrays) whose equality holds exactly when the rules see the same
        thing: a reading frame whose state equals the previous reading frame's, judged with the same context, takes
        that frame's judgement instead of running the rules again (the frames of a still board read the same).
    """

    before: str = "none"
    before_reason: str = ""
    change_codes: tuple[str, ...] = ()
    detect_warm: Callable[[list[Frame], Any, StageTimer, Any], tuple[Any, Any]] | None = None
    keep_before: Callable[[Any, Frame], Any] | None = None
    next_context: Callable[[dict | None, dict], dict | None] | None = None
    vote_ignores: tuple[str, ...] = ()
    per_photo: Callable[[dict | None], tuple[tuple[str, dict], ...]] | None = None
    same_state_same_judgement: bool = False


@dataclass(frozen=True)
class FrameMemo:
    """Per-photo readings already made, for a warm detection (``LiveSupport.detect_warm``) to reuse.

    A pair game's "before" photo is the same :class:`Frame` object in every reading frame of a still scene
    (and a baseline is judged as ``[frame, frame]``): its reading is looked up by identity, never recomputed.
    The memo holds the frames, so an identity is never reused for another frame while it is kept.

    Attributes
    ----------
    items : tuple of (Frame, reading)
    """

    items: tuple[tuple[Frame, Any], ...] = ()

    def get(self, frame: Frame) -> Any:
        """The reading of this very frame object, or None."""
        return next((r for f, r in self.items if f is frame), None)

    def keep(self, frames: list[Frame], readings: list[Any], limit: int = 4) -> FrameMemo:
        """A memo with these frames' readings added (the newest ``limit`` kept)."""
        items = list(self.items)
        for f, r in zip(frames, readings, strict=True):
            if not any(g is f for g, _ in items):
                items.append((f, r))
        return FrameMemo(tuple(items[-limit:]))


@dataclass(frozen=True)
class GamePlugin(Generic[C, S, A]):
    """One game, as the shared pipeline, CLI, page and ledger see it.

    Attributes
    ----------
    name : str
        The ``--game`` name and the ledger's ``game`` column (lower case, no spaces).
    title : str
        Shown on the page.
    parse_context : callable(dict or None) -> C
        Validate a context JSON object; raise ``core.errors.BadInput`` naming the bad field.
    detect : callable(list[Frame], C, StageTimer) -> S
        Photos -> table state; raise ``CannotJudge`` with the reason.
    state_from_json : callable(dict) -> S
        Inverse of ``state.to_json()`` (KeyError/ValueError/TypeError become ``BadInput``).
    adjudicate : callable(S, C) -> A
        The rules on a state. ``A.to_json()`` is the CLI contract's judgement (``game``, ``scores``,
        ``flags``, ``explanation`` and the game's own fields), without ``timings_ms``.
    adjudication_from_json : callable(dict) -> A
        Inverse of ``A.to_json()`` (a recorded judgement back into its type, e.g. for overlays).
    annotate : callable(Frame, S, A) -> ndarray
        The evidence drawn on a new copy of the frame's image (RGB uint8), from the adjudication.
    summary : callable(dict) -> str
        One short line from a judgement JSON (history table, ledger export's ``summary`` column).
    headline : callable(dict) -> dict
        The fields that say whether two judgements agree (sample making, regression checks).
    photos : str
        How many photos ``judge`` takes, for help texts: e.g. ``"1 (or before + challenge)"``.
    ui_module : str
        Dotted name of the page module (``ui/games/<game>.py``) with ``photos() -> (list[Photo],
        sample context)``, ``context_form(default) -> dict``, ``result_panel(result)`` and optionally
        ``extra_panels(outcome, shown)`` (and ``session_panel(ledger, context, outcome)`` for a game whose
        whole-game record does not fit ``session``).
        Imported by the page only (never by ``judge/``).
    register : callable(ndarray, TableCalibration, profile or None, dict) -> Registration, or None
        Register the user's own pieces from one photo into a calibration profile:
        ``register(image_rgb, calibration, old_profile, options)``; ``options`` holds the CLI's
        register options the game names in ``register_options``. Raise ``CannotJudge`` (the
        photo does not show what is needed) or ``BadInput``. None: the game has nothing to register.
    register_options : tuple[str, ...]
        Which ``cli.py register`` options the game takes (``"board_id"``).
    session : SessionRules or None
        How a whole game (rounds, a series, a score track) is kept in the ledger (``judge.session``); the page's
        panel for it is generic (``ui/session.py``). None: single judgements only.
    camera_resolution : str
        Browser camera capture size the game needs (``"720p"``, ``"1080p"``).
    order : int
        Position in menus (lower first).
    marker_layout : callable() -> MarkerLayout, optional
        The game's own calibration marker layout (default: the components' common layout; a user's
        profile layout wins over both).
    live : LiveSupport
        How live video judges the game (a "before" scene kept, detection warm across the frames of a still
        scene).
    """

    name: str
    title: str
    parse_context: Callable[[dict | None], C]
    detect: Callable[[list[Frame], C, StageTimer], S]
    state_from_json: Callable[[dict], S]
    adjudicate: Callable[[S, C], A]
    adjudication_from_json: Callable[[dict], A]
    annotate: Callable[[Frame, S, A], np.ndarray]
    summary: Callable[[dict], str]
    headline: Callable[[dict], dict]
    photos: str = "1"
    ui_module: str = ""
    register: Callable[[np.ndarray, TableCalibration, Any, dict], Registration] | None = None
    register_options: tuple[str, ...] = ()
    session: SessionRules | None = None
    camera_resolution: str = "1080p"
    order: int = 100
    marker_layout: Callable[[], Any] | None = None
    live: LiveSupport = LiveSupport()

    # ------------------------------------------------------------------ conveniences over the fields
    @property
    def images(self) -> str:
        """Alias of ``photos`` (the name the first registry used)."""
        return self.photos

    def judgement_json(self, state: S, ctx: C) -> dict:
        """``adjudicate(state, ctx).to_json()``: the contract's judgement as a fresh dict."""
        return self.adjudicate(state, ctx).to_json()

    def overlay(self, frame: Frame, state: S, result: A | dict) -> np.ndarray:
        """``annotate`` that also takes a judgement JSON (as recorded in the ledger or shown on the page)."""
        adj = self.adjudication_from_json(result) if isinstance(result, dict) else result
        return self.annotate(frame, state, adj)

    def ui(self) -> Any:
        """The page module (imports Streamlit): call from the page only."""
        if not self.ui_module:
            raise LookupError(f"game {self.name!r} has no page module")
        return importlib.import_module(self.ui_module)
