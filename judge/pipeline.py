"""One judgement, start to end: photos -> frames -> state -> adjudication (+ overlay).

Shared by ``cli.py`` and ``app.py`` so that both judge exactly the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.table import CalibrationError, calibrate_from_markers
from core.errors import BadInput
from core.timing import StageTimer
from judge.plugin import Frame, GamePlugin


@dataclass(frozen=True)
class Judgement:
    """The outcome of judging photos.

    Attributes
    ----------
    frames : tuple[Frame, ...]
    state : object
        The game's detected state (frozen dataclass with ``to_json``).
    result : dict
        The CLI contract's judgement (``adjudication.to_json()`` with the photos' calibration notes and
        ``timings_ms``).
    adjudication : object
        The game's typed adjudication (``GamePlugin.adjudicate``), for overlays.
    cpu_ms : dict[str, float]
        CPU milliseconds of this process per stage, the same stages as ``result["timings_ms"]`` (wall clock);
        not part of the CLI contract (``cli.py bench`` reports it).
    """

    frames: tuple[Frame, ...]
    state: Any
    result: dict
    adjudication: Any = None
    cpu_ms: dict[str, float] = field(default_factory=dict)


def make_frame(image_rgb: np.ndarray, source: str = "", profile: Any = None, layout: Any = None) -> Frame:
    """Calibrate one photo from its markers; a photo without markers keeps the reason instead.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    source : str
        Where the photo came from, for the ledger.
    profile : CalibrationProfile, optional
        A saved calibration profile (marker layout, lens, registered colours).
    layout : MarkerLayout, optional
        The game's marker layout (a profile's layout wins).
    """
    try:
        kwargs: dict[str, Any] = {"profile": profile} if profile is not None else {}
        if layout is not None and profile is None:
            kwargs["layout"] = layout
        cal = calibrate_from_markers(image_rgb, **kwargs)
        return Frame(image_rgb=image_rgb, calibration=cal, source=source, profile=profile)
    except CalibrationError as exc:
        return Frame(image_rgb=image_rgb, calibration=None, calibration_error=str(exc), source=source,
                     profile=profile)


def parse_context(game: GamePlugin, context: dict | None) -> Any:
    """Validate a context object for a game (``BadInput`` naming the problem)."""
    if context is not None and not isinstance(context, dict):
        raise BadInput("context must be a JSON object")
    try:
        return game.parse_context(context)
    except BadInput:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:  # a value of the wrong kind
        raise BadInput(f"context is malformed ({type(exc).__name__}: {exc})") from None


def judge_images(
    game: GamePlugin, images: list[tuple[np.ndarray, str]], context: dict | None, profile: Any = None
) -> Judgement:
    """Judge photos of one game.

    Parameters
    ----------
    game : GamePlugin
    images : list of (image_rgb (H, W, 3) uint8, source name)
    context : dict or None
        The game's context JSON (players, challenger, cards ...).
    profile : CalibrationProfile, optional

    Raises
    ------
    BadInput, CannotJudge
    """
    timer = StageTimer()
    with timer.stage("context"):
        ctx = parse_context(game, context)
    with timer.stage("calibration"):
        layout = game.marker_layout() if game.marker_layout is not None else None
        frames = tuple(make_frame(img, src, profile, layout) for img, src in images)
    state = game.detect(list(frames), ctx, timer)
    with timer.stage("rules"):
        adj = adjudicate_typed(game, state, ctx)
        result = adj.to_json()
    add_calibration_notes(result, frames)
    result["timings_ms"] = timer.rounded()
    return Judgement(frames=frames, state=state, result=result, adjudication=adj, cpu_ms=timer.rounded_cpu())


def add_calibration_notes(result: dict, frames: tuple[Frame, ...]) -> None:
    """Put each photo's calibration summary into the explanation and its warnings into the flags (in place)."""
    many = len(frames) > 1
    for k, f in enumerate(frames):
        if f.calibration is None:
            continue
        prefix = f"photo {k + 1}: " if many else ""
        result.setdefault("explanation", []).append(prefix + f.calibration.describe())
        for w in f.calibration.warnings:
            result.setdefault("flags", []).append({"code": "calibration_warning", "message": prefix + w})


def adjudicate_typed(game: GamePlugin, state: Any, ctx: Any) -> Any:
    """Apply the rules to a (detected or corrected) state: the game's typed adjudication; rule-side
    ``ValueError`` becomes ``BadInput``."""
    try:
        return game.adjudicate(state, ctx)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def adjudicate(game: GamePlugin, state: Any, ctx: Any) -> dict:
    """:func:`adjudicate_typed` as the CLI contract's JSON object."""
    return adjudicate_typed(game, state, ctx).to_json()


def state_from_json(game: GamePlugin, obj: Any) -> Any:
    """Read a state JSON object, turning any malformation into ``BadInput``."""
    if not isinstance(obj, dict):
        raise BadInput("state must be a JSON object")
    try:
        return game.state_from_json(obj)
    except BadInput:
        raise
    except KeyError as exc:
        raise BadInput(f"state JSON is missing the field {exc.args[0]!r}") from None
    except (ValueError, TypeError, IndexError) as exc:
        raise BadInput(f"state JSON is malformed: {exc}") from None
