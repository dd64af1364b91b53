"""The game registry: what each game plugs into the shared pipeline.

Each game has a module ``judge/<game>.py`` that defines ``SPEC = GameSpec(...)``. The CLI and the
page look games up here and never import a game's internals directly.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration.table import TableCalibration
from judge.errors import BadInput
from judge.timing import StageTimer

GAME_NAMES = ("carrotain", "kaleido", "cmyk", "ingenious")


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


@dataclass(frozen=True)
class GameSpec:
    """The functions one game provides.

    Attributes
    ----------
    name : str
    parse_context : callable(dict or None) -> context
        Validate a context JSON object; raise ``BadInput`` naming the bad field.
    detect : callable(list[Frame], context, StageTimer) -> state
        Photos -> a table state (frozen dataclass with ``to_json``); raise ``CannotJudge``.
    state_from_json : callable(dict) -> state
        Inverse of ``state.to_json()``; raise ``BadInput`` (or KeyError/ValueError/TypeError,
        which the caller turns into ``BadInput``).
    adjudicate : callable(state, context) -> dict
        The judgement in the CLI contract's fields (``game``, ``scores``, ``flags``,
        ``explanation`` and the game's own), without ``timings_ms``.
    overlay : callable(Frame, state, dict) -> ndarray
        The evidence drawn on a new copy of the frame's image (RGB uint8).
    render : callable(int) -> (ndarray, dict)
        Seeded synthetic photo (RGB uint8) and its ground truth (JSON-able, with ``context``).
    images : str
        How many photos ``judge`` takes, for help texts: e.g. ``"1 (or before + challenge)"``.
    marker_layout : callable() -> MarkerLayout, optional
        The game's own marker layout (default: the components' common layout).
    """

    name: str
    parse_context: Callable[[dict | None], Any]
    detect: Callable[[list[Frame], Any, StageTimer], Any]
    state_from_json: Callable[[dict], Any]
    adjudicate: Callable[[Any, Any], dict]
    overlay: Callable[[Frame, Any, dict], np.ndarray]
    render: Callable[[int], tuple[np.ndarray, dict]]
    images: str = "1"
    marker_layout: Callable[[], Any] | None = None


def get_game(name: str) -> GameSpec:
    """The spec of a game by name.

    Raises
    ------
    BadInput
        Unknown game.
    """
    if name not in GAME_NAMES:
        raise BadInput(f"unknown game {name!r}: choose one of {', '.join(GAME_NAMES)}")
    module = importlib.import_module(f"judge.{name}")
    return module.SPEC
