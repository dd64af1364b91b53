"""Kaleido sample renders: a seeded table photo and its truth (``synth.kaleido`` judges the true scene)."""

from __future__ import annotations

import numpy as np


def render_sample(seed: int) -> tuple[np.ndarray, dict]:
    """Seeded synthetic photo and its truth (``scene``, ``context``, ``expected``)."""
    from synth.kaleido import render_scene

    image, truth, _ = render_scene(seed)
    return image, truth
