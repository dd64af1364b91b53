"""CMYK! sample renders: a seeded photo of one player's mosaic and its truth."""

from __future__ import annotations

import numpy as np

from core.errors import CannotJudge
from judge.games.cmyk import CmykGameState, adjudicate, parse_context
from scoring.cmyk_state import EdgeReading, MosaicState, TileReading

CARDS_FOR_RENDER = ("do_more", "use_many", "like_this_tile", "want_height", "make_it_spiky", "omakase",
                    "not_only_hexagons", "want_space", "mirror_left_right")


def render_scene(seed: int, hard: bool = False):
    """A seeded synthetic CMYK! photo: (image, truth scene, photo object with ``project``)."""
    from synth.cmyk import mosaic_layer, random_mosaic
    from synth.photo import render_photo, sample_conditions

    rng = np.random.default_rng(seed)
    scene = random_mosaic(rng)
    cond = sample_conditions(rng, look_at_mm=(280, 210), hard=hard)
    photo = render_photo([mosaic_layer(scene)], cond, rng)
    return photo.image_rgb, scene, photo


def render_sample(seed: int) -> tuple[np.ndarray, dict]:
    """Seeded synthetic photo of one player's mosaic and its truth (scene, context, expected)."""
    image, scene, _ = render_scene(seed)
    rng = np.random.default_rng(seed + 7919)
    colour = ("cyan", "magenta", "yellow")[int(rng.integers(3))]
    cards = [str(c) for c in rng.choice(CARDS_FOR_RENDER, size=2, replace=False)]
    context = {"players": [{"name": "P1", "personal_card": {"colour": colour, "level": int(rng.integers(6))}}],
               "public_cards": cards}
    truth_state = MosaicState(tiles=tuple(
        TileReading(cell=t.cell, kind=t.kind, edges={d: EdgeReading(c, lv) for d, (c, lv) in t.edges.items()})
        for t in scene.tiles))
    truth = {"game": "cmyk", "seed": seed, "scene": {"game": "cmyk", **scene.to_json()}, "context": context}
    try:
        ctx = parse_context(context)
        truth["expected"] = adjudicate(CmykGameState(mosaics=(truth_state,), players=ctx.player_names), ctx).to_json()
    except CannotJudge:
        pass
    return image, truth
