"""Ingenious sample renders: the after photo of a seeded placement, with ``placed`` in its context
(``cli.py render`` and ``bench`` judge one photo); ``synth.ingenious.render_pair`` gives both photos."""

from __future__ import annotations

import numpy as np


def render_sample(seed: int) -> tuple[np.ndarray, dict]:
    """Seeded synthetic after photo and its truth (``scene``, ``context`` with ``placed``, ``expected``)."""
    from synth.ingenious import render_pair

    pair = render_pair(seed)
    truth = dict(pair.truth)
    ctx = dict(truth["context"])
    if not truth["expected"].get("flagged"):
        ctx["placed"] = [h["qr"] for h in truth["expected"]["placed"]]
    truth["context"] = ctx
    return pair.after_rgb, truth
