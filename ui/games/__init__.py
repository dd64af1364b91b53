"""Each game's page parts, one module per game, named by its plugin's ``ui_module``.

A module provides:

``photos() -> (list[Photo], dict or None)``
    The photo inputs the game needs, and a sample's context to prefill the form with.
``context_form(default: dict or None) -> dict``
    The context JSON (the same object the CLI takes with ``--context``).
``result_panel(result: dict) -> None``
    The game's headline (verdict, scores ...); flags, explanation and timings are shown by the page.
``session_panel(ledger, context: dict, outcome: dict or None) -> None`` (optional)
    Only for a game whose whole-game record does not fit its plugin's ``session`` rules (the generic panel,
    ``ui/session.py``, serves those).
``extra_panels(outcome: dict, shown: dict) -> None`` (optional)
    Anything more under the evidence picture.

The reading views (a diagram beside the straightened photo, tap to correct, player sentences, evidence crops)
come from the game's :class:`ui.reading.ReadingKit`: give a new game one with ``ui.reading.register_kit`` in
its page module; a game without one shows its evidence picture only.
"""
