"""A whole game (or series) in the ledger, the same way for every game: one common session API.

A game's plugin carries ``session = SessionRules(...)``: who the players are (from the context), how a round is
made from the page's current judgement, and the standings replayed from the recorded rounds. The functions below
are the only ones that write a game's sessions: a session is opened with the players and settings, each round
stores a JSON summary (with the judgement it came from), the round that finishes the game ends the session in the
same transaction, and undo takes the last live round back (reopening an ended session). The standings are never
stored but always replayed from the live rounds, so undo and the record cannot disagree.

The ledger is used through its session calls only (``start_session``, ``sessions``, ``session``, ``rounds``,
``add_round``, ``undo_last_round``), so any backend that has them serves. The page's panel is
``ui/session.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Standings:
    """Where a game stands after its recorded rounds.

    Attributes
    ----------
    rows : tuple[dict, ...]
        A table, one row per player (column -> value).
    caption : str
        One line under the table (round number, mode ...).
    finished : bool
        The game (series) is over: the round that made it so ends the session.
    end_result : dict or None
        Stored as the session's result when it ends.
    message : str
        A sentence for a finished game ("Game over: winner red").
    """

    rows: tuple[dict, ...] = ()
    caption: str = ""
    finished: bool = False
    end_result: dict | None = None
    message: str = ""


@dataclass(frozen=True)
class SessionView:
    """A recorded session with its live rounds' summaries (oldest first)."""

    id: int
    players: list
    settings: dict
    summaries: tuple[dict, ...]
    ended: bool
    result: dict | None = None


@dataclass(frozen=True)
class Outcome:
    """The page's current judgement: the result and state JSON (corrected ones when corrected)."""

    result: dict
    state: dict
    judgement_id: int | None = None


@dataclass(frozen=True)
class Choice:
    """A setting chosen when a session starts (e.g. a series mode): label -> stored value."""

    key: str
    label: str
    options: dict[str, Any]


@dataclass(frozen=True)
class RoundAction:
    """One way to add a round from the current judgement (a button on the page).

    ``summarise(view, outcome, context) -> dict`` is the round's summary (ValueError when it cannot be added).
    """

    key: str
    label: str
    summarise: Callable[[SessionView, Outcome, dict], dict]


@dataclass(frozen=True)
class SessionRules:
    """How one game keeps a whole game in the ledger.

    Attributes
    ----------
    title : str
        "Game", "Series", "Score track".
    players : callable(context dict) -> list
        The session's players as stored (JSON); empty: the form is not complete yet.
    standings : callable(SessionView) -> Standings
    actions : tuple[RoundAction, ...]
    key_prefix : str
        Widget keys: ``<prefix>-start``, ``<prefix>-undo``.
    settings : callable(context dict, chosen dict) -> dict
        The session's settings when it starts (ValueError for players the game refuses).
    choices : tuple[Choice, ...]
    start_label, undo_label : str
    """

    title: str
    players: Callable[[dict], list]
    standings: Callable[[SessionView], Standings]
    actions: tuple[RoundAction, ...]
    key_prefix: str
    settings: Callable[[dict, dict], dict] = field(default=lambda context, chosen: dict(chosen))
    choices: tuple[Choice, ...] = ()
    start_label: str = "Start a game with these players"
    undo_label: str = "Undo the last round"


def view_of(led: Any, sid: int) -> SessionView:
    """A session and its live rounds."""
    s = led.session(sid)
    return SessionView(id=s.id, players=s.players, settings=dict(s.settings or {}),
                       summaries=tuple(r.summary for r in led.rounds(sid)), ended=s.ended_utc is not None,
                       result=s.result)


def latest(led: Any, game: str, players: list, recent: int = 20) -> SessionView | None:
    """The newest session of this game with exactly these players (running or ended), or None."""
    for s in led.sessions(game=game, limit=recent):
        if s.players == players:
            return view_of(led, s.id)
    return None


def start(led: Any, game: str, rules: SessionRules, context: dict, chosen: dict | None = None) -> int:
    """Open a session for these players; ValueError when the game refuses them."""
    players = rules.players(context)
    if not players:
        raise ValueError("choose the players first")
    return led.start_session(game, players, rules.settings(context, dict(chosen or {})))


def record(led: Any, rules: SessionRules, view: SessionView, action: RoundAction, outcome: Outcome,
           context: dict) -> Standings:
    """Add a round made by ``action`` from the current judgement; end the session when that finishes the game.

    Raises
    ------
    ValueError
        The session has ended, or the action refuses the judgement.
    """
    if view.ended:
        raise ValueError("this game has ended: start a new one")
    summary = action.summarise(view, outcome, context)
    after = rules.standings(replace(view, summaries=view.summaries + (summary,)))
    led.add_round(view.id, outcome.judgement_id, summary, end_result=after.end_result if after.finished else None)
    return after


def undo(led: Any, view: SessionView) -> bool:
    """Take back the last live round (an ended session opens again); False when there was none."""
    return bool(led.undo_last_round(view.id))
