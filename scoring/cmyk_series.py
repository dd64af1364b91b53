"""CMYK! multi-game series (the rulebook's optional rules). Pure functions over a list of game results.

- ``three_games``: each game, 1st gets 2 victory points and 2nd gets 1; after 3 games the most victory
  points wins. Players sharing a place (fully tied after every tie-break) all get that place's points
  and the places they fill are used up (two tied 1st: both 2 VP, nobody gets the 1 VP).
- ``cumulative``: scores add up game after game; the series ends after the game in which someone reaches
  40; the highest cumulative score wins.

Series-level ties (the rulebook is silent) are broken by the sum of game scores when
``SeriesOptions.break_ties_by_points`` (default), else reported as shared; either way they are flagged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.flags import Flag


@dataclass(frozen=True)
class GameOutcome:
    """What a series needs from one game: points and places (1-based, shared on full ties)."""

    scores: dict[str, int]
    places: dict[str, int]


@dataclass(frozen=True)
class SeriesOptions:
    """Series parameters (rulebook values by default)."""

    victory_points: tuple[int, ...] = (2, 1)
    games_in_series: int = 3
    cumulative_target: int = 40
    break_ties_by_points: bool = True


@dataclass(frozen=True)
class SeriesStanding:
    """Where a series stands.

    Attributes
    ----------
    mode : str
        ``"three_games"`` or ``"cumulative"``.
    games_counted : int
    finished : bool
    points : dict name -> int
        Victory points (three_games) or cumulative score (cumulative).
    per_game : tuple of dict name -> int
        What each counted game added.
    ranking : tuple of str
        Best first.
    leaders : tuple of str
        The winner(s) when finished, else who leads now (several on an unbroken tie).
    """

    mode: str
    games_counted: int
    finished: bool
    points: dict[str, int]
    per_game: tuple[dict[str, int], ...]
    ranking: tuple[str, ...]
    leaders: tuple[str, ...]
    flags: tuple[Flag, ...] = field(default_factory=tuple)
    explanation: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        return {
            "mode": self.mode, "games_counted": self.games_counted, "finished": self.finished,
            "points": dict(self.points), "per_game": [dict(g) for g in self.per_game],
            "ranking": list(self.ranking), "leaders": list(self.leaders),
            "flags": [f.to_json() for f in self.flags], "explanation": list(self.explanation),
        }


def outcome_of(result: object) -> GameOutcome:
    """A GameOutcome from a ``CmykResult``, its ``to_json()`` dict (as a ledger stores it), or a GameOutcome.

    A dict without ``places`` takes them from ``ranking`` (no shared places then).
    """
    if isinstance(result, GameOutcome):
        return result
    if isinstance(result, dict):
        scores = {str(n): int(v) for n, v in result["scores"].items()}
        places = result.get("places") or {n: k + 1 for k, n in enumerate(result.get("ranking", []))}
        if set(places) != set(scores):
            raise ValueError("a game result needs a place for every scored player (places or ranking)")
        return GameOutcome(scores, {str(n): int(p) for n, p in places.items()})
    scored: Any = result  # a CmykResult (not imported here: scoring.cmyk imports this module's users)
    return GameOutcome(dict(scored.scores), dict(scored.ranking.places))


def _names(games: Sequence[GameOutcome]) -> list[str]:
    names: list[str] = []
    for g in games:
        names.extend(n for n in g.scores if n not in names)
    return names


def _finish(mode: str, games: Sequence[GameOutcome], per_game: list[dict[str, int]], finished: bool,
            opts: SeriesOptions, flags: list[Flag], lines: list[str]) -> SeriesStanding:
    names = _names(games)
    points = {n: sum(g.get(n, 0) for g in per_game) for n in names}
    game_pts = {n: sum(g.scores.get(n, 0) for g in games) for n in names}
    for g_no, g in enumerate(games):
        missing = [n for n in names if n not in g.scores]
        if missing:
            flags.append(Flag("player_missing", f"game {g_no + 1}: no result for {', '.join(missing)} (counted as 0)",
                              {"game": g_no + 1, "players": missing}))
    key = (lambda n: (-points[n], -game_pts[n])) if opts.break_ties_by_points else (lambda n: -points[n])
    ranking = tuple(sorted(names, key=key))
    top = [n for n in names if points[n] == max(points.values(), default=0)]
    leaders = tuple(n for n in ranking if key(n) == key(ranking[0])) if ranking else ()
    if len(top) > 1:
        how = (f"broken by total game points: {', '.join(leaders)}" if opts.break_ties_by_points and len(leaders) == 1
               else "unbroken")
        flags.append(Flag("series_tie", f"{', '.join(top)} tie on {points[top[0]]}; {how}", {"players": top}))
    lines.append(f"{mode}: {len(per_game)} game(s) counted, {'finished' if finished else 'not finished'}; "
                 + ", ".join(f"{n} {points[n]}" for n in ranking))
    return SeriesStanding(mode, len(per_game), finished, points, tuple(per_game), ranking, leaders,
                          tuple(flags), tuple(lines))


def three_games(results: Sequence[object], options: SeriesOptions = SeriesOptions()) -> SeriesStanding:
    """Victory points over the first ``games_in_series`` games (1st 2 VP, 2nd 1 VP).

    Parameters
    ----------
    results : sequence of CmykResult or GameOutcome
        In the order played.
    options : SeriesOptions

    Returns
    -------
    SeriesStanding
        ``points`` are victory points.
    """
    games = [outcome_of(r) for r in results]
    flags: list[Flag] = []
    lines: list[str] = []
    if len(games) > options.games_in_series:
        flags.append(Flag("extra_games_ignored", f"{len(games) - options.games_in_series} game(s) after game "
                          f"{options.games_in_series} ignored", {"games": len(games)}))
        games = games[: options.games_in_series]
    per_game = []
    for g_no, g in enumerate(games):
        vp = {}
        for n, place in g.places.items():
            vp[n] = options.victory_points[place - 1] if place <= len(options.victory_points) else 0
        per_game.append(vp)
        lines.append(f"game {g_no + 1}: " + ", ".join(f"{n} place {g.places[n]} -> {vp[n]} VP"
                                                        for n in sorted(vp, key=lambda n: g.places[n])))
    return _finish("three_games", games, per_game, len(games) >= options.games_in_series, options, flags, lines)


def cumulative(results: Sequence[object], options: SeriesOptions = SeriesOptions()) -> SeriesStanding:
    """Cumulative scores; the series ends after the game in which someone reaches ``cumulative_target``.

    Parameters
    ----------
    results : sequence of CmykResult or GameOutcome
        In the order played; games after the ending one are ignored (flagged).

    Returns
    -------
    SeriesStanding
        ``points`` are cumulative scores.
    """
    games = [outcome_of(r) for r in results]
    flags: list[Flag] = []
    lines: list[str] = []
    running: dict[str, int] = {}
    per_game = []
    finished = False
    for g_no, g in enumerate(games):
        if finished:
            flags.append(Flag("extra_games_ignored", f"{len(games) - g_no} game(s) after the series ended ignored",
                              {"games": len(games)}))
            games = games[:g_no]
            break
        per_game.append(dict(g.scores))
        for n, s in g.scores.items():
            running[n] = running.get(n, 0) + s
        reached = [n for n, s in running.items() if s >= options.cumulative_target]
        lines.append(f"game {g_no + 1}: " + ", ".join(f"{n} {s:+d} = {running[n]}" for n, s in g.scores.items())
                     + (f"; {', '.join(reached)} reached {options.cumulative_target}: series ends" if reached else ""))
        finished = bool(reached)
    return _finish("cumulative", games, per_game, finished, options, flags, lines)
