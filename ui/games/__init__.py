"""Each game's page parts, one module per game, named by its plugin's ``ui_module``.

A module provides:

``photos() -> (list[Photo], dict or None)``
    The photo inputs the game needs, and a sample's context to prefill the form with.
``context_form(default: dict or None) -> dict``
    The context JSON (the same object the CLI takes with ``--context``).
``result_panel(result: dict) -> None``
    The game's headline (verdict, scores ...); flags, explanation and timings are shown by the page.
``session_panel(ledger, context: dict, outcome: dict or None) -> None`` (optional)
    A whole game / series kept in the ledger.
``extra_panels(outcome: dict, shown: dict) -> None`` (optional)
    Anything more under the evidence picture (e.g. Carrotain's zoomed chips).
"""
