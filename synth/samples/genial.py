"""Genial Spezial sample renders: the after photo of a seeded placement, with ``placed`` in its context
(``cli.py render`` and ``bench`` judge one photo); ``synth.genial.render_pair`` gives both photos."""

from __future__ import annotations

import numpy as np


def render_sample(seed: int) -> tuple[np.ndarray, dict]:
    """Seeded synthetic after photo and its truth (``scene``, ``context`` with ``placed``, ``expected``)."""
    from synth.genial import render_pair

    images, truth = render_pair(seed)
    truth = dict(truth)
    ctx = dict(truth["context"])
    ctx["placed"] = truth["scene"]["move"]["cells"]
    truth["context"] = ctx
    truth["expected"] = {"placed": sorted(ctx["placed"])}
    return images[1], truth
