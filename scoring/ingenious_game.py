"""Ingenious: a whole game move by move (turns, first round, extra placements, end). Pure rules.

``IngeniousGame`` is immutable: ``play(placed)`` returns the next game and the move's result, so
the page can keep every game in the ledger, undo (drop the last move) and re-score a corrected
move by replaying.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from geometry.hexgrid import Cell, neighbours
from scoring.flags import Flag
from scoring.ingenious import (
    COLOURS,
    START_CELLS,
    Board,
    Hex,
    PlacementPoints,
    free_pairs,
    placement_flags,
    placement_points,
    radius_for,
)
from scoring.ingenious_scores import ScoreUpdate, all_capped, apply_points, rank, zero_scores


def symbols_touched(cells) -> frozenset[Cell]:
    """The printed symbol cells neighbouring any of ``cells``."""
    return frozenset(n for c in cells for n in neighbours(tuple(c)) if n in START_CELLS)


def first_round_flags(placed: tuple[Hex, ...], taken: frozenset[Cell]) -> list[Flag]:
    """RULES.md 4, first round: the tile must touch a printed symbol no earlier first tile touches."""
    touched = symbols_touched(h.qr for h in placed)
    if not touched:
        return [Flag("first_round", "a first-round tile must touch a printed start symbol")]
    if touched & taken:
        shared = sorted(touched & taken)
        return [
            Flag(
                "first_round",
                "a first-round tile must not touch a symbol another player's first tile already touches",
                {"symbols": [list(c) for c in shared]},
            )
        ]
    return []


def game_end(board: Board, radius: int, boards: dict[str, dict[str, int]]) -> str | None:
    """Why the game is over, or None: no tile fits on the board in play, or a board all at 18."""
    done = [k for k, s in boards.items() if all_capped(s)]
    if done:
        return f"{done[0]} has all six colours at 18"
    if not free_pairs(board, radius):
        return "no tile can be placed on the board in play"
    return None


@dataclass(frozen=True)
class MoveResult:
    """One placement judged inside a game."""

    player: str
    placed: tuple[Hex, ...]
    points: PlacementPoints | None
    update: ScoreUpdate | None
    flags: tuple[Flag, ...]
    first_round: bool
    extra: bool
    extra_pending: int
    end: str | None

    @property
    def scored(self) -> bool:
        return self.update is not None

    def to_json(self) -> dict:
        return {
            "player": self.player,
            "placed": [h.to_json() for h in self.placed],
            "points": self.points.to_json() if self.points else None,
            "update": self.update.to_json() if self.update else None,
            "flags": [f.to_json() for f in self.flags],
            "first_round": self.first_round,
            "extra": self.extra,
            "extra_pending": self.extra_pending,
            "end": self.end,
        }


@dataclass(frozen=True)
class IngeniousGame:
    """A game in progress.

    Attributes
    ----------
    players : tuple of str
        In turn order (clockwise). One player is the solo game.
    team : bool
        2 v 2: players 1 & 3 and 2 & 4 share a score board (named ``"A & C"``).
    board : Board
    scores : dict board name -> dict colour -> int
    turn : int
        Turns completed (extra placements do not end a turn).
    extra_pending : int
        Extra placements the current player still owes.
    first_taken : frozenset of Cell
        Symbols touched by first-round tiles so far.
    firsts_done : int
        Players who placed their first tile.
    """

    players: tuple[str, ...]
    team: bool = False
    board: Board = Board()
    scores: tuple[tuple[str, tuple[int, ...]], ...] = ()
    turn: int = 0
    extra_pending: int = 0
    first_taken: frozenset = frozenset()
    firsts_done: int = 0

    @classmethod
    def new(cls, players, team: bool = False) -> IngeniousGame:
        players = tuple(str(p) for p in players)
        if len(set(players)) != len(players):
            raise ValueError("player names must differ")
        if team and len(players) != 4:
            raise ValueError("the team game is for exactly 4 players")
        radius_for(len(players), team)
        g = cls(players, team)
        return replace(g, scores=tuple((k, tuple(zero_scores().values())) for k in g.board_names()))

    @property
    def radius(self) -> int:
        return radius_for(len(self.players), self.team)

    def board_names(self) -> tuple[str, ...]:
        if not self.team:
            return self.players
        p = self.players
        return (f"{p[0]} & {p[2]}", f"{p[1]} & {p[3]}")

    def board_of(self, player: str) -> str:
        i = self.players.index(player)
        return self.board_names()[i % 2] if self.team else player

    def score_boards(self) -> dict[str, dict[str, int]]:
        return {k: dict(zip(COLOURS, v, strict=True)) for k, v in self.scores}

    def player_scores(self) -> dict[str, dict[str, int]]:
        """Every player's six colour scores (team partners show their shared board)."""
        b = self.score_boards()
        return {p: dict(b[self.board_of(p)]) for p in self.players}

    @property
    def mover(self) -> str:
        return self.players[self.turn % len(self.players)]

    @property
    def in_first_round(self) -> bool:
        return self.firsts_done < len(self.players) and self.extra_pending == 0

    def end(self) -> str | None:
        return game_end(self.board, self.radius, self.score_boards())

    def ranking(self):
        return rank(self.score_boards())

    def play(self, placed: tuple[Hex, ...]) -> tuple[IngeniousGame, MoveResult]:
        """Judge the mover's placement; a flagged placement changes nothing (the game stays)."""
        player = self.mover
        first = self.in_first_round
        flags = placement_flags(placed, self.radius)
        cells = self.board.cells()
        taken = [list(h.qr) for h in placed if h.qr in cells]
        if taken:
            flags.append(Flag("occupied", "a new hex lies on a cell already covered", {"cells": taken}))
        if first and not flags:
            flags += first_round_flags(placed, self.first_taken)
        ended = self.end()
        if ended and not flags:
            flags.append(Flag("game_over", f"the game is over: {ended}"))
        if flags:
            res = MoveResult(player, placed, None, None, tuple(flags), first, self.extra_pending > 0,
                             self.extra_pending, ended)
            return self, res
        board = self.board.with_hexes(placed)
        pts = placement_points(board, (placed[0], placed[1]), self.radius)
        key = self.board_of(player)
        boards = self.score_boards()
        upd = apply_points(boards[key], pts.raw, self.team)
        boards[key] = upd.after
        pending = max(0, self.extra_pending - 1) + upd.extra_placements
        g = replace(
            self,
            board=board,
            scores=tuple((k, tuple(v.values())) for k, v in boards.items()),
            extra_pending=pending,
            first_taken=self.first_taken | (symbols_touched(h.qr for h in placed) if first else frozenset()),
            firsts_done=self.firsts_done + (1 if first else 0),
            turn=self.turn + (1 if pending == 0 else 0),
        )
        end = g.end()
        res = MoveResult(player, placed, pts, upd, (), first, self.extra_pending > 0, pending, end)
        return g, res

    def to_json(self) -> dict:
        return {
            "players": list(self.players),
            "team": self.team,
            "board": self.board.to_json(),
            "scores": self.score_boards(),
            "turn": self.turn,
            "extra_pending": self.extra_pending,
            "first_taken": [list(c) for c in sorted(self.first_taken)],
            "firsts_done": self.firsts_done,
        }

    @classmethod
    def from_json(cls, obj: dict) -> IngeniousGame:
        g = cls.new(obj["players"], bool(obj.get("team", False)))
        sc = obj.get("scores", {})
        return replace(
            g,
            board=Board.from_json(obj.get("board", [])),
            scores=tuple((k, tuple(int(sc.get(k, {}).get(c, 0)) for c in zero_scores())) for k in g.board_names()),
            turn=int(obj.get("turn", 0)),
            extra_pending=int(obj.get("extra_pending", 0)),
            first_taken=frozenset((int(c[0]), int(c[1])) for c in obj.get("first_taken", [])),
            firsts_done=int(obj.get("firsts_done", 0)),
        )
