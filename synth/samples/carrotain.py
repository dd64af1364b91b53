"""Carrotain sample renders: a seeded challenge photo and its truth."""

from __future__ import annotations

import numpy as np

from core.errors import CannotJudge
from judge.games.carrotain import adjudicate, parse_context, truth_state


def render_sample(seed: int, hard: bool = False) -> tuple[np.ndarray, dict]:
    """Seeded synthetic challenge photo and its truth (``scene``, ``context``, ``expected``, ``category``)."""
    from synth.carrotain import render_scene

    image, scene, _ = render_scene(seed, hard=hard)
    context = {"players": scene["players"], "challenger": scene["challenger"]}
    try:
        expected = adjudicate(truth_state(scene), parse_context(context)).to_json()
    except CannotJudge:
        expected = None
    return image, {"game": "carrotain", "category": scene["category"], "scene": scene, "context": context,
                   "expected": expected}
