"""A correction of a judgement: a new state is judged at once and recorded in the ledger as a correction.

Shared by the tap-to-correct views and the correction tables; keeps the page's ``outcome`` dict up to date
(``outcome["corrected"]``: ``state``, ``result``, ``overlay``; ``outcome["taps"]``: the taps so far).
"""

from __future__ import annotations

from core.errors import BadInput
from judge.pipeline import adjudicate_typed, state_from_json
from judge.registry import game as get_game
from ui.history import open_ledger


def current(outcome: dict) -> dict:
    """The judgement on show: the latest correction, else the original (``state``, ``result``)."""
    return outcome.get("corrected", outcome)


def record_correction(game_name: str, outcome: dict, new_state_json: dict, context: dict,
                      corrections: dict) -> str | None:
    """Judge a corrected state, show it, and record it as a correction of the original judgement.

    Parameters
    ----------
    game_name : str
    outcome : dict
        The page's judgement (``state``, ``result``, ``frame``, ``judgement_id``); updated in place.
    new_state_json : dict
    context : dict
        The game's context JSON.
    corrections : dict
        What the person changed (``{"taps": [...]}`` or ``{"tables": ...}``), stored with the correction.

    Returns
    -------
    str or None
        The reason the state could not be judged (nothing changed then), or None.
    """
    game = get_game(game_name)
    try:
        state = state_from_json(game, new_state_json)
        adj = adjudicate_typed(game, state, game.parse_context(context))
    except (BadInput, ValueError) as exc:
        return str(exc)
    result = adj.to_json()
    outcome["corrected"] = {"result": result, "state": new_state_json,
                            "overlay": game.annotate(outcome["frame"], state, adj)}
    led = open_ledger()
    if led is not None:
        outcome["corrected"]["judgement_id"] = led.record_judgement(
            game_name, state=new_state_json, result=result, source="correction",
            corrected_from=outcome.get("judgement_id"), corrections=corrections,
        )
    return None
