"""Seeded sample renders with their truth, one module per game: ``render_sample(seed) -> (image_rgb, truth)``.

The truth holds ``context`` (to judge the photo with) and ``expected`` (the judgement of the true scene
through the game's plugin). :mod:`synth.registry` finds a game's module here by its name.
"""
