"""A Carrotain game kept in the ledger: the session's live rounds are the game's record.

The session's ``settings`` hold the rules options and the starting boards; each round's summary is
``RoundSummary.to_json()``; the game is always rebuilt by replaying the live rounds, so undo in the
ledger and undo in the game cannot disagree. The round that ends the game ends the session in the
same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.store import Ledger, LedgerError
from scoring.carrotain import CarrotainAdjudication, CarrotainOptions
from scoring.carrotain_game import (
    CHIPS_PER_COLOUR,
    DEFAULT_BOARDS,
    CarrotainGame,
    apply_round,
    game_over,
    new_game,
    replay,
)

GAME = "carrotain"


def start_game(led: Ledger, players: Sequence[str], options: CarrotainOptions = CarrotainOptions(),
               boards: Sequence[str] = DEFAULT_BOARDS) -> tuple[int, CarrotainGame]:
    """Open a session for a new game; return its id and the empty game (ValueError for bad players)."""
    game = new_game(players, boards)
    settings = {"options": options.to_json(), "boards": list(game.initial_boards),
                "chips_per_colour": game.chips_per_colour}
    return led.start_session(GAME, list(game.players), settings), game


def load_game(led: Ledger, sid: int) -> CarrotainGame:
    """The game of session ``sid``, replayed from its live rounds."""
    s = led.session(sid)
    if s.game != GAME:
        raise LedgerError(f"session {sid} is a {s.game} game, not {GAME}")
    return replay(s.players, [r.summary for r in led.rounds(sid)], s.settings.get("boards", DEFAULT_BOARDS),
                  int(s.settings.get("chips_per_colour", CHIPS_PER_COLOUR)))


def session_options(led: Ledger, sid: int) -> CarrotainOptions:
    """The rules options the session was started with."""
    return CarrotainOptions.from_json(led.session(sid).settings.get("options"))


def record_round(led: Ledger, sid: int, challenger: str, adjudication: CarrotainAdjudication,
                 judgement_id: int | None = None) -> CarrotainGame:
    """Apply a judged challenge to the session's game and store the round (ending the session when the
    game ends); return the new game. ValueError when the game is over or the challenger unknown."""
    game = apply_round(load_game(led, sid), challenger, adjudication, judgement_id)
    end = game_over(game)
    led.add_round(sid, judgement_id, game.rounds[-1].to_json(), None if end is None else end.to_json())
    return game


def undo_round(led: Ledger, sid: int) -> CarrotainGame:
    """Undo the session's last live round (reopening an ended game); return the game as it now stands."""
    led.undo_last_round(sid)
    return load_game(led, sid)
