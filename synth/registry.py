"""The renderer's registry: which function renders a seeded sample photo of each game.

Used by ``cli.py render``, ``judge``-free tools (``tools/make_samples.py``) and tests; no product package
imports it (import-linter). A game's renderer is, in this order: one given to :func:`register`;
``render_sample`` of ``synth/samples/<game>.py``; ``render_sample`` beside the game's plugin (a plugin
registered from outside, e.g. the tests' toy game).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

import numpy as np

from core.errors import BadInput

Renderer = Callable[[int], tuple[np.ndarray, dict]]
_registered: dict[str, Renderer] = {}


def register(game: str, render: Renderer) -> None:
    """Use ``render(seed) -> (image_rgb, truth)`` for ``game``."""
    _registered[game] = render


def renderer(game: str) -> Renderer:
    """The sample renderer of a game.

    Raises
    ------
    BadInput
        The game has no renderer.
    """
    if game in _registered:
        return _registered[game]
    try:
        module = importlib.import_module(f"synth.samples.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"synth.samples.{game}":
            raise
        module = None
    if module is None:
        from judge.registry import game as plugin_of

        module = sys.modules.get(plugin_of(game).detect.__module__)
    fn = getattr(module, "render_sample", None)
    if fn is None:
        raise BadInput(f"render: no sample renderer for {game!r}")
    return fn


def render_sample(game: str, seed: int) -> tuple[np.ndarray, dict]:
    """A seeded sample photo (RGB uint8) of a game and its truth (``context``, ``expected`` ...)."""
    return renderer(game)(seed)
