"""An Ingenious game kept in the ledger: the session's live rounds are its placements.

Each round's summary is one placement (``{"player", "placed": [{qr, colour}], ...}``); the game is
always rebuilt by replaying the live rounds (``scoring.ingenious_game``), so undo, reload and a
corrected move cannot disagree with the scores shown. The placement that ends the game ends the
session in the same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.store import Ledger, LedgerError
from scoring.ingenious import Hex
from scoring.ingenious_game import IngeniousGame, MoveResult

GAME = "ingenious"


def start_game(led: Ledger, players: Sequence[str], team: bool = False) -> tuple[int, IngeniousGame]:
    """Open a session for a new game (ValueError for bad players); return its id and the game."""
    game = IngeniousGame.new(players, team)
    return led.start_session(GAME, list(game.players), {"team": team}), game


def _placed(summary: dict) -> tuple[Hex, ...]:
    return tuple(Hex.from_json(h) for h in summary["placed"])


def load_game(led: Ledger, sid: int) -> IngeniousGame:
    """The game of session ``sid``, replayed from its live rounds."""
    s = led.session(sid)
    if s.game != GAME:
        raise LedgerError(f"session {sid} is a {s.game} game, not {GAME}")
    game = IngeniousGame.new(s.players, bool(s.settings.get("team", False)))
    for r in led.rounds(sid):
        game, res = game.play(_placed(r.summary))
        if not res.scored:
            raise LedgerError(f"session {sid} round {r.number} no longer replays: "
                              + "; ".join(f.message for f in res.flags))
    return game


def record_move(led: Ledger, sid: int, placed: tuple[Hex, ...], judgement_id: int | None = None
                ) -> tuple[IngeniousGame, MoveResult]:
    """Play the mover's placement in the session's game and store it when it scores.

    Returns the new game and the move's result; a flagged placement (first-round rule, occupied
    cell, ...) is not stored and the game is returned unchanged.
    """
    game = load_game(led, sid)
    new, res = game.play(placed)
    if not res.scored:
        return game, res
    summary = {"player": res.player, "placed": [h.to_json() for h in placed], "move": res.to_json()}
    end = new.end()
    end_result = None
    if end is not None:
        end_result = {"reason": end, "ranking": [r.to_json() for r in new.ranking()],
                      "scores": new.score_boards()}
    led.add_round(sid, judgement_id, summary, end_result)
    return new, res


def undo_move(led: Ledger, sid: int) -> IngeniousGame:
    """Undo the session's last live placement (reopening an ended game); return the game now."""
    led.undo_last_round(sid)
    return load_game(led, sid)
