"""Genial Spezial rules: chains and their memories, tokens, the large-tower bonus, bonus cells (RULES.md section 5).

Pure rules (no images). A chain is a maximal set of one player's tile hexes connected through shared edges;
it links a tower when one of its hexes touches the tower's cell. Every chain remembers the towers whose tokens
it has scored and the large towers it has counted; a merged chain remembers the union. Chains are not visible
on the table, so the game is rebuilt by replaying every earlier placement in order (`GenialReplay`).

Decisions (RULES.md, and where it is silent):
- A memory grows only when its condition holds: a chain linking a single tower remembers nothing for it, so
  when it later links a second one both score.
- Within one placement each newly scored tower scores the value showing before the placement.
- A bonus point goes to the named symbol; when none is named, to the mover's lowest symbol after steps 1-2
  (cap applied; ties in the order orange, blue, green, purple), and the explanation says so.
- Empty tower spaces (not used at this player count) cannot be covered and break chains like towers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from scoring.genial_board import Cell, GenialBoard, are_neighbours, cells_of, neighbours

SYMBOLS: tuple[str, ...] = ("orange", "blue", "green", "purple")
PLAYER_COLOURS: tuple[str, ...] = ("red", "blue", "yellow", "black")


@dataclass(frozen=True)
class GenialRulesConfig:
    """Numbers of the rules.

    Attributes
    ----------
    cap : int
        A symbol's score stops here; the excess is lost.
    min_linked : int
        Towers (or large towers) a chain must link before tokens (or the large bonus) score.
    """

    cap: int = 20
    min_linked: int = 2


@dataclass(frozen=True)
class Tower:
    """A tower and the token on it.

    Attributes
    ----------
    qr : (int, int)
    size : str
        ``"large"`` or ``"small"``.
    symbol : str
        One of `SYMBOLS`.
    light_value : int
        The value on the token's light side (1 or 2); the dark side shows one more.
    dark : bool
        True once the token has been turned.
    """

    qr: Cell
    size: str
    symbol: str
    light_value: int
    dark: bool = False

    @property
    def value(self) -> int:
        """What the token scores now."""
        return self.light_value + (1 if self.dark else 0)

    def to_json(self) -> dict:
        return {"qr": list(self.qr), "size": self.size, "symbol": self.symbol, "value": self.value, "dark": self.dark}

    @classmethod
    def from_json(cls, obj: Mapping) -> Tower:
        """From ``{qr, size, symbol, value, dark}`` (value as shown) or ``{..., light}``."""
        dark = bool(obj.get("dark", False))
        light = int(obj["light"]) if "light" in obj else int(obj["value"]) - (1 if dark else 0)
        size, symbol = str(obj["size"]), str(obj["symbol"])
        if size not in ("large", "small"):
            raise ValueError(f"tower size must be large or small, not {size!r}")
        if symbol not in SYMBOLS:
            raise ValueError(f"token symbol must be one of {', '.join(SYMBOLS)}, not {symbol!r}")
        if light not in (1, 2):
            raise ValueError(f"token light value must be 1 or 2 (dark shows one more), not {light}")
        qr = cells_of([obj["qr"]])[0]
        return cls(qr, size, symbol, light, dark)


@dataclass(frozen=True)
class Placement:
    """One tile placed by a player.

    Attributes
    ----------
    player : str
    cells : tuple of two (int, int)
    bonus_symbol : str or None
        The symbol the mover names for a bonus cell.
    """

    player: str
    cells: tuple[Cell, ...]
    bonus_symbol: str | None = None

    def to_json(self) -> dict:
        out: dict = {"player": self.player, "cells": [list(c) for c in self.cells]}
        if self.bonus_symbol:
            out["bonus_symbol"] = self.bonus_symbol
        return out

    @classmethod
    def from_json(cls, obj: Mapping) -> Placement:
        bonus = obj.get("bonus_symbol")
        if bonus is not None and bonus not in SYMBOLS:
            raise ValueError(f"bonus_symbol must be one of {', '.join(SYMBOLS)}, not {bonus!r}")
        return cls(str(obj["player"]), cells_of(obj["cells"]), bonus)


@dataclass(frozen=True)
class Chain:
    """One player's connected tile hexes and what the chain remembers.

    Attributes
    ----------
    player : str
    cells : frozenset of (int, int)
    scored : frozenset of (int, int)
        Towers whose tokens this chain has scored.
    counted : frozenset of (int, int)
        Large towers this chain has counted for the large-tower bonus.
    """

    player: str
    cells: frozenset[Cell]
    scored: frozenset[Cell] = frozenset()
    counted: frozenset[Cell] = frozenset()


@dataclass(frozen=True)
class MoveScore:
    """What one placement scores.

    Attributes
    ----------
    placement : Placement
    chain : Chain
        The chain holding the new tile, after the placement (with its updated memories).
    merged_chains : int
        Earlier chains joined by the tile.
    linked_towers : tuple of (int, int)
    scored_towers : tuple of Tower
        The towers whose tokens score now, with the value they scored (as they stood before).
    large_new : tuple of (int, int)
        Large towers counted for the first time by this chain (each +1 in every symbol).
    bonus_cells : tuple of (int, int)
        Tile halves on bonus cells.
    bonus_symbol : str or None
    bonus_symbol_named : bool
        False when the judge chose the bonus symbol (the mover's lowest).
    raw_points : dict symbol -> int
        Before the cap.
    move_points : dict symbol -> int
        What the mover's score rose by.
    lost_to_cap : dict symbol -> int
    scores_before, scores_after : dict symbol -> int
    """

    placement: Placement
    chain: Chain
    merged_chains: int
    linked_towers: tuple[Cell, ...]
    scored_towers: tuple[Tower, ...]
    large_new: tuple[Cell, ...]
    bonus_cells: tuple[Cell, ...]
    bonus_symbol: str | None
    bonus_symbol_named: bool
    raw_points: dict[str, int]
    move_points: dict[str, int]
    lost_to_cap: dict[str, int]
    scores_before: dict[str, int]
    scores_after: dict[str, int]

    def explanation(self) -> list[str]:
        """Sentences a player would say, one per point source."""
        who = self.placement.player
        lines = []
        size = len(self.chain.cells)
        merged = f", joining {self.merged_chains} chains" if self.merged_chains > 1 else ""
        lines.append(f"{who}'s tile makes a chain of {size} hexes{merged} linking {len(self.linked_towers)} tower(s).")
        for t in self.scored_towers:
            lines.append(f"tower {list(t.qr)} ({t.size}) scores {t.value} {t.symbol} and its token turns dark.")
        if not self.scored_towers and self.linked_towers:
            lines.append("no token scores: every linked tower is already scored by this chain, or it links one only.")
        if self.large_new:
            lines.append(f"{len(self.large_new)} large tower(s) counted for the first time by this chain: "
                         f"+{len(self.large_new)} in every symbol.")
        if self.bonus_cells:
            how = "named by the mover" if self.bonus_symbol_named else "the mover's lowest symbol (none was named)"
            n = len(self.bonus_cells)
            lines.append(f"{n} bonus cell(s): +{n} {self.bonus_symbol} ({how}).")
        for s, lost in self.lost_to_cap.items():
            lines.append(f"{s} stops at the cap: {lost} point(s) lost.")
        return lines


def lowest_symbol(scores: Mapping[str, int]) -> str:
    """The lowest symbol of a score board (ties in the order orange, blue, green, purple)."""
    return min(SYMBOLS, key=lambda s: (int(scores.get(s, 0)), SYMBOLS.index(s)))


def capped(before: Mapping[str, int], raw: Mapping[str, int], cap: int) -> dict[str, int]:
    """Scores after adding ``raw`` with the cap (a score already at or past the cap stays)."""
    return {s: max(int(before[s]), min(cap, int(before[s]) + int(raw.get(s, 0)))) for s in SYMBOLS}


class GenialReplay:
    """A game rebuilt placement by placement: tiles, chains with memories, tokens, score boards.

    Parameters
    ----------
    board : GenialBoard
    players : sequence of str
        Names in turn order.
    towers : sequence of Tower
        The towers standing, with their tokens as at the start of the replay.
    config : GenialRulesConfig
    """

    def __init__(self, board: GenialBoard, players: Sequence[str], towers: Sequence[Tower],
                 config: GenialRulesConfig = GenialRulesConfig()):
        self.board = board
        self.config = config
        self.players = tuple(players)
        self.towers: dict[Cell, Tower] = {t.qr: t for t in towers}
        self.blocked = board.space_cells() | frozenset(self.towers)
        self.owner: dict[Cell, str] = {}
        self.chains: list[Chain] = []
        self.scores: dict[str, dict[str, int]] = {p: {s: 0 for s in SYMBOLS} for p in self.players}
        self.history: list[MoveScore] = []

    def why_not(self, placement: Placement) -> str:
        """'' when the placement is legal now, else the reason in a few words."""
        cells = placement.cells
        if placement.player not in self.scores:
            return f"{placement.player!r} is not a player"
        if len(cells) != 2:
            return f"{len(cells)} hexes (a tile is 2)"
        if not are_neighbours(cells[0], cells[1]):
            return "the two hexes are not neighbours"
        for c in cells:
            if not self.board.on_board(c):
                return f"hex {list(c)} is off the board"
            if c in self.blocked:
                return f"hex {list(c)} is a tower space"
            if c in self.owner:
                return f"hex {list(c)} is already covered"
        return ""

    def linked(self, cells: frozenset[Cell]) -> frozenset[Cell]:
        """Towers touched by any of ``cells``."""
        return frozenset(n for c in cells for n in neighbours(c) if n in self.towers)

    def play(self, placement: Placement) -> MoveScore:
        """Score a placement and apply it (tiles, chains, tokens, scores).

        Raises
        ------
        ValueError
            When the placement is not legal (`why_not`).
        """
        why = self.why_not(placement)
        if why:
            raise ValueError(why)
        joined = self._chains_touching(placement)
        chain = self._merged_chain(placement, joined)
        linked = self.linked(chain.cells)
        scored_now, chain = self._score_tokens(chain, linked)
        large_new, chain = self._count_large(chain, linked)
        raw = {s: 0 for s in SYMBOLS}
        for t in scored_now:
            raw[t.symbol] += t.value
        for s in SYMBOLS:
            raw[s] += len(large_new)
        before = dict(self.scores[placement.player])
        bonus = tuple(c for c in placement.cells if c in self.board.bonus_cells)
        symbol = placement.bonus_symbol
        if bonus:
            if symbol is None:
                symbol = lowest_symbol(capped(before, raw, self.config.cap))
            raw[symbol] += len(bonus)
        after = capped(before, raw, self.config.cap)
        gained = {s: after[s] - before[s] for s in SYMBOLS}
        move = MoveScore(
            placement=placement, chain=chain, merged_chains=len(joined), linked_towers=tuple(sorted(linked)),
            scored_towers=scored_now, large_new=large_new, bonus_cells=bonus,
            bonus_symbol=symbol if bonus else None, bonus_symbol_named=placement.bonus_symbol is not None,
            raw_points=raw, move_points=gained,
            lost_to_cap={s: raw[s] - gained[s] for s in SYMBOLS if raw[s] > gained[s]},
            scores_before=before, scores_after=after,
        )
        self._apply(move, joined)
        return move

    def _chains_touching(self, placement: Placement) -> list[Chain]:
        touching = {n for c in placement.cells for n in neighbours(c) if self.owner.get(n) == placement.player}
        return [ch for ch in self.chains if ch.cells & touching]

    @staticmethod
    def _merged_chain(placement: Placement, joined: list[Chain]) -> Chain:
        cells = frozenset(placement.cells).union(*(ch.cells for ch in joined))
        scored = frozenset().union(*(ch.scored for ch in joined))
        counted = frozenset().union(*(ch.counted for ch in joined))
        return Chain(placement.player, cells, scored, counted)

    def _score_tokens(self, chain: Chain, linked: frozenset[Cell]) -> tuple[tuple[Tower, ...], Chain]:
        if len(linked) < self.config.min_linked:
            return (), chain
        fresh = tuple(self.towers[qr] for qr in sorted(linked - chain.scored))
        return fresh, Chain(chain.player, chain.cells, chain.scored | linked, chain.counted)

    def _count_large(self, chain: Chain, linked: frozenset[Cell]) -> tuple[tuple[Cell, ...], Chain]:
        large = frozenset(qr for qr in linked if self.towers[qr].size == "large")
        if len(large) < self.config.min_linked:
            return (), chain
        return tuple(sorted(large - chain.counted)), Chain(chain.player, chain.cells, chain.scored,
                                                           chain.counted | large)

    def _apply(self, move: MoveScore, joined: list[Chain]) -> None:
        for c in move.placement.cells:
            self.owner[c] = move.placement.player
        self.chains = [ch for ch in self.chains if all(ch is not j for j in joined)] + [move.chain]
        for t in move.scored_towers:
            self.towers[t.qr] = Tower(t.qr, t.size, t.symbol, t.light_value, True)
        self.scores[move.placement.player] = dict(move.scores_after)
        self.history.append(move)

    def tower_list(self) -> tuple[Tower, ...]:
        """Every tower, sorted by cell, with its token as it stands now."""
        return tuple(self.towers[qr] for qr in sorted(self.towers))


def rank_by_lowest(scores: Mapping[str, Mapping[str, int]],
                   players: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """Players best first: the highest lowest symbol, ties by the next lowest, and so on.

    Returns
    -------
    order : list of str
        Full ties keep the given player order.
    ties : list of list of str
        Groups of players fully tied (a shared place).
    """
    def key(p: str) -> tuple[int, ...]:
        return tuple(sorted(int(scores[p][s]) for s in SYMBOLS))

    order = sorted(players, key=lambda p: tuple(-v for v in key(p)))
    groups: dict[tuple[int, ...], list[str]] = {}
    for p in order:
        groups.setdefault(key(p), []).append(p)
    return order, [g for g in groups.values() if len(g) > 1]


@dataclass(frozen=True)
class GameSetup:
    """Who plays, with which tiles, and the towers at the start of the game.

    Attributes
    ----------
    players : dict name -> tile colour
        In turn order (clockwise).
    towers : tuple of Tower
        Tokens light side up (as at the start).
    """

    players: dict[str, str]
    towers: tuple[Tower, ...] = field(default_factory=tuple)

    def replay(self, board: GenialBoard, moves: Sequence[Placement],
               config: GenialRulesConfig = GenialRulesConfig()) -> GenialReplay:
        """The game after ``moves`` in order (raises ValueError naming the first illegal one)."""
        game = GenialReplay(board, list(self.players), self.towers, config)
        for k, m in enumerate(moves):
            why = game.why_not(m)
            if why:
                raise ValueError(f"earlier placement {k + 1} ({m.player}): {why}")
            game.play(m)
        return game
