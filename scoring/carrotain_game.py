"""A whole Carrotain game: rounds applied one after another, the end condition and the winner.

Pure and immutable: every change returns a new :class:`CarrotainGame`. The game keeps the round
summaries it was built from; undo rebuilds it from all rounds but the last, so the derived counts
can never drift from the record.

Rules (RULES.md section 1): a success takes the 2 challenge boards off the mat to the challenger;
chips won are the counts in the adjudication's awards (a player only ever wins chips of their own
colour, at most 10 in a game). The game ends at once when only 1 board is left on the mat (a third
success) or when a player has won all 10 of their chips. Points = boards + chips; a tie on points
goes to more boards, else it is a draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from scoring.carrotain import BOARDS_PER_SUCCESS, CarrotainAdjudication

DEFAULT_BOARDS = ("A", "B", "C", "D", "E", "F", "G")
CHIPS_PER_COLOUR = 10
#: The game ends when this many boards (or fewer) are left on the mat.
BOARDS_LEFT_AT_END = 1


@dataclass(frozen=True)
class RoundSummary:
    """What one judged round changed.

    Attributes
    ----------
    number : int
        1-based.
    challenger : str
    verdict : str
        ``"success"`` or ``"failure"``.
    boards : tuple[str, ...]
        Ids of the boards the challenger took (success only; resolved against the mat).
    awards : dict[str, dict[str, int]]
        ``{player: {"boards": int, "chips": int}}`` as adjudicated.
    contested : bool
        The verdict was contested (kept for the record).
    judgement_id : int or None
        The ledger's judgement, when recorded.
    """

    number: int
    challenger: str
    verdict: str
    boards: tuple[str, ...]
    awards: dict[str, dict[str, int]]
    contested: bool = False
    judgement_id: int | None = None

    def to_json(self) -> dict:
        return {
            "number": self.number, "challenger": self.challenger, "verdict": self.verdict,
            "boards": list(self.boards),
            "awards": {p: {"boards": int(a["boards"]), "chips": int(a["chips"])} for p, a in self.awards.items()},
            "contested": self.contested, "judgement_id": self.judgement_id,
        }

    @classmethod
    def from_json(cls, obj: dict) -> RoundSummary:
        jid = obj.get("judgement_id")
        return cls(
            number=int(obj["number"]), challenger=str(obj["challenger"]), verdict=str(obj["verdict"]),
            boards=tuple(str(b) for b in obj.get("boards", [])),
            awards={str(p): {"boards": int(a.get("boards", 0)), "chips": int(a.get("chips", 0))}
                    for p, a in obj["awards"].items()},
            contested=bool(obj.get("contested", False)), judgement_id=None if jid is None else int(jid),
        )


@dataclass(frozen=True)
class GameEnd:
    """How a finished game came out.

    Attributes
    ----------
    reason : str
        ``"third_success"`` (only 1 board left on the mat) or ``"all_chips"`` (a player won all 10).
    points, boards, chips : dict[str, int]
        Per player: boards + chips, boards won, chips won.
    winners : tuple[str, ...]
        One player, or every player of a draw.
    draw : bool
    ranking : tuple[str, ...]
        Players best first (points, then boards; equal ones in seat order).
    """

    reason: str
    points: dict[str, int]
    boards: dict[str, int]
    chips: dict[str, int]
    winners: tuple[str, ...]
    draw: bool
    ranking: tuple[str, ...]

    def to_json(self) -> dict:
        return {"reason": self.reason, "points": dict(self.points), "boards": dict(self.boards),
                "chips": dict(self.chips), "winners": list(self.winners), "draw": self.draw,
                "ranking": list(self.ranking)}


@dataclass(frozen=True)
class CarrotainGame:
    """The state of a game between rounds.

    Attributes
    ----------
    players : tuple[str, ...]
        Colours in seat order (clockwise).
    boards_on_mat : tuple[str, ...]
        Boards still in play.
    boards_won : dict[str, tuple[str, ...]]
        Per player, the ids of the boards won.
    chips_won : dict[str, int]
        Per player, chips of their own colour won (at most ``chips_per_colour``).
    rounds : tuple[RoundSummary, ...]
    initial_boards : tuple[str, ...]
        The boards on the mat at the start (for rebuilding).
    chips_per_colour : int
    """

    players: tuple[str, ...]
    boards_on_mat: tuple[str, ...]
    boards_won: dict[str, tuple[str, ...]]
    chips_won: dict[str, int]
    rounds: tuple[RoundSummary, ...] = field(default_factory=tuple)
    initial_boards: tuple[str, ...] = DEFAULT_BOARDS
    chips_per_colour: int = CHIPS_PER_COLOUR

    def points(self) -> dict[str, int]:
        """Boards + chips won, per player."""
        return {p: len(self.boards_won[p]) + self.chips_won[p] for p in self.players}

    def to_json(self) -> dict:
        end = game_over(self)
        return {
            "game": "carrotain", "players": list(self.players), "initial_boards": list(self.initial_boards),
            "chips_per_colour": self.chips_per_colour, "boards_on_mat": list(self.boards_on_mat),
            "boards_won": {p: list(b) for p, b in self.boards_won.items()}, "chips_won": dict(self.chips_won),
            "points": self.points(), "rounds": [r.to_json() for r in self.rounds],
            "end": None if end is None else end.to_json(),
        }

    @classmethod
    def from_json(cls, obj: dict) -> CarrotainGame:
        """Rebuild from players, initial boards and the rounds (derived fields are recomputed)."""
        return replay(obj["players"], obj.get("rounds", []), obj.get("initial_boards", DEFAULT_BOARDS),
                      int(obj.get("chips_per_colour", CHIPS_PER_COLOUR)))


def new_game(players: Sequence[str], boards: Sequence[str] = DEFAULT_BOARDS,
             chips_per_colour: int = CHIPS_PER_COLOUR) -> CarrotainGame:
    """A game before its first round.

    Raises
    ------
    ValueError
        No players, a colour listed twice, or board ids repeated / fewer than 3.
    """
    seats = tuple(str(p) for p in players)
    if not seats:
        raise ValueError("a game needs players")
    if len(set(seats)) != len(seats):
        raise ValueError(f"players lists a colour twice: {list(seats)}")
    mat = tuple(str(b) for b in boards)
    if len(set(mat)) != len(mat) or len(mat) <= BOARDS_LEFT_AT_END + 1:
        raise ValueError(f"need distinct board ids, at least {BOARDS_LEFT_AT_END + 2}: {list(mat)}")
    return CarrotainGame(players=seats, boards_on_mat=mat, boards_won={p: () for p in seats},
                         chips_won={p: 0 for p in seats}, rounds=(), initial_boards=mat,
                         chips_per_colour=int(chips_per_colour))


def _resolve_boards(mat: tuple[str, ...], wanted: Sequence[str]) -> tuple[str, ...]:
    """The ``BOARDS_PER_SUCCESS`` boards a success takes: the named ones on the mat, then (for ids
    the detector could not name, ``"?"``, or not on the mat) the remaining boards in mat order."""
    taken = [b for b in dict.fromkeys(wanted) if b in mat][:BOARDS_PER_SUCCESS]
    for b in mat:
        if len(taken) == BOARDS_PER_SUCCESS:
            break
        if b not in taken:
            taken.append(b)
    return tuple(taken)


def _apply_summary(game: CarrotainGame, summary: RoundSummary) -> CarrotainGame:
    if summary.challenger not in game.players:
        raise ValueError(f"challenger {summary.challenger!r} is not among the players {list(game.players)}")
    if game_over(game) is not None:
        raise ValueError("the game is over: no more rounds")
    chips = dict(game.chips_won)
    for p in game.players:
        won = int(summary.awards.get(p, {}).get("chips", 0))
        chips[p] = min(game.chips_per_colour, chips[p] + won)
    mat, boards_won = game.boards_on_mat, dict(game.boards_won)
    if summary.verdict == "success":
        taken = summary.boards
        mat = tuple(b for b in mat if b not in taken)
        boards_won[summary.challenger] = boards_won[summary.challenger] + taken
    return replace(game, boards_on_mat=mat, boards_won=boards_won, chips_won=chips, rounds=game.rounds + (summary,))


def apply_round(game: CarrotainGame, challenger: str, adjudication: CarrotainAdjudication,
                judgement_id: int | None = None) -> CarrotainGame:
    """The game after one judged challenge.

    Parameters
    ----------
    game : CarrotainGame
    challenger : str
    adjudication : CarrotainAdjudication
        Its verdict, awards and challenge board ids are applied (the measured verdict, also when
        contested: re-judge first if the players read it otherwise).
    judgement_id : int, optional
        Kept in the round summary.

    Raises
    ------
    ValueError
        Challenger not in the game, the game already over, or an unknown verdict.
    """
    if adjudication.verdict not in ("success", "failure"):
        raise ValueError(f"unknown verdict {adjudication.verdict!r}")
    if challenger not in game.players:
        raise ValueError(f"challenger {challenger!r} is not among the players {list(game.players)}")
    boards = _resolve_boards(game.boards_on_mat, adjudication.challenge_boards) \
        if adjudication.verdict == "success" else ()
    summary = RoundSummary(
        number=len(game.rounds) + 1, challenger=challenger, verdict=adjudication.verdict, boards=boards,
        awards={p: dict(adjudication.awards.get(p, {"boards": 0, "chips": 0})) for p in game.players},
        contested=adjudication.contested, judgement_id=judgement_id,
    )
    return _apply_summary(game, summary)


def replay(players: Sequence[str], summaries: Sequence[RoundSummary | dict], boards: Sequence[str] = DEFAULT_BOARDS,
           chips_per_colour: int = CHIPS_PER_COLOUR) -> CarrotainGame:
    """A game rebuilt from round summaries (objects or their JSON, e.g. the ledger's live rounds)."""
    game = new_game(players, boards, chips_per_colour)
    for s in summaries:
        game = _apply_summary(game, s if isinstance(s, RoundSummary) else RoundSummary.from_json(s))
    return game


def undo_last(game: CarrotainGame) -> CarrotainGame:
    """The game rebuilt from every round but the last; ValueError when there is no round."""
    if not game.rounds:
        raise ValueError("no round to undo")
    return replay(game.players, game.rounds[:-1], game.initial_boards, game.chips_per_colour)


def game_over(game: CarrotainGame) -> GameEnd | None:
    """The end of the game, or None while it goes on."""
    if len(game.boards_on_mat) <= BOARDS_LEFT_AT_END:
        reason = "third_success"
    elif any(game.chips_won[p] >= game.chips_per_colour for p in game.players):
        reason = "all_chips"
    else:
        return None
    points = game.points()
    boards = {p: len(game.boards_won[p]) for p in game.players}
    key = {p: (points[p], boards[p]) for p in game.players}
    ranking = tuple(sorted(game.players, key=lambda p: (-key[p][0], -key[p][1])))
    best = key[ranking[0]]
    winners = tuple(p for p in ranking if key[p] == best)
    return GameEnd(reason=reason, points=points, boards=boards, chips=dict(game.chips_won), winners=winners,
                   draw=len(winners) > 1, ranking=ranking)


def next_first_player(game: CarrotainGame) -> str:
    """Who places the first chip next round: the last challenger's left (clockwise) neighbour."""
    if not game.rounds:
        return game.players[0]
    i = game.players.index(game.rounds[-1].challenger)
    return game.players[(i + 1) % len(game.players)]
