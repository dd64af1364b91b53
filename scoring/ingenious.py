"""Ingenious: the board, one placement and its line points (RULES.md section 4). Pure rules.

A board is the tile hexes on it (cell -> colour); the six printed start symbols are not tiles but
count as cells of their colour when lines are counted, and no tile may cover them. The cells in
play are those with ring <= 5 (2 players, solo), 6 (3 players) or 7 (4 players, team game).

Scoring a placement: for each of the tile's two hexes, look along the 5 directions other than
toward its partner and count the same-colour hexes in an unbroken straight line from it; the sum
is scored in that hex's colour (before the cap, which ``scoring.ingenious_scores`` applies).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from geometry.hexgrid import DIRECTIONS, Cell, add, are_neighbours, cells_within, direction_between, ray, ring
from scoring.flags import Flag
from scoring.ingenious_state import COLOURS, FULL_RADIUS, START_CELLS, Board, Hex, check_colour  # noqa: F401


def radius_for(n_players: int, team: bool = False) -> int:
    """Board radius in play: solo and 2 players 5, 3 players 6, 4 players and the team game 7."""
    if team:
        return 7
    if n_players not in (1, 2, 3, 4):
        raise ValueError(f"Ingenious is played by 1 to 4 players, not {n_players}")
    return {1: 5, 2: 5, 3: 6, 4: 7}[n_players]


def colour_at(cells: dict[Cell, str], cell: Cell) -> str | None:
    """A cell's colour: a tile hex, else a printed symbol, else None."""
    c = cells.get(cell)
    return c if c is not None else START_CELLS.get(cell)


@dataclass(frozen=True)
class Line:
    """One counted line of a placement: ``count`` same-colour hexes from ``start`` along ``direction``."""

    start: Cell
    direction: Cell
    colour: str
    count: int
    cells: tuple[Cell, ...]
    symbols: int = 0

    def to_json(self) -> dict:
        return {
            "start": list(self.start),
            "direction": list(self.direction),
            "colour": self.colour,
            "count": self.count,
            "cells": [list(c) for c in self.cells],
            "symbols": self.symbols,
        }


@dataclass(frozen=True)
class PlacementPoints:
    """The raw points (before the cap) of one placement and the lines that gave them."""

    raw: dict[str, int]
    lines: tuple[Line, ...]

    def to_json(self) -> dict:
        return {"raw": dict(self.raw), "lines": [ln.to_json() for ln in self.lines]}


def count_line(cells: dict[Cell, str], start: Cell, d: Cell, colour: str, radius: int) -> tuple[Cell, ...]:
    """The unbroken run of ``colour`` cells from ``start + d`` along ``d`` (in play only)."""
    out = []
    for c in ray(start, d, radius):
        if colour_at(cells, c) != colour:
            break
        out.append(c)
    return tuple(out)


def line_stops(board_after: Board, placed: tuple[Hex, Hex], radius: int) -> tuple[tuple[Cell, str], ...]:
    """The cell that ends each line of a placement: along each of the five directions from each placed hex
    (not towards its partner), the first cell in play past the run of its colour (none where the run reaches the
    edge of play). Lines of no hex count too: their first cell stopped them.

    A stopping cell read wrongly (a hand over a same-colour tile) makes its line short, so a judgement must
    doubt its points when any of these cells is in doubt (and may show the line's colour).

    Returns
    -------
    tuple of (Cell, colour of the line it stops), sorted, without repeats.
    """
    cells = board_after.cells()
    out: set[tuple[Cell, str]] = set()
    for me, partner in ((placed[0], placed[1]), (placed[1], placed[0])):
        toward = direction_between(me.qr, partner.qr)
        for d in DIRECTIONS:
            if d == toward:
                continue
            run = count_line(cells, me.qr, d, me.colour, radius)
            nxt = add(run[-1] if run else me.qr, d)
            if ring(nxt) <= radius:
                out.add((nxt, me.colour))
    return tuple(sorted(out))


def placement_points(board_after: Board, placed: tuple[Hex, Hex], radius: int) -> PlacementPoints:
    """Line points of a placement, the tile already on ``board_after``.

    Parameters
    ----------
    board_after : Board
        The board with the placed tile on it.
    placed : (Hex, Hex)
        The tile's two hexes (neighbours).
    radius : int
        Board radius in play.

    Returns
    -------
    PlacementPoints
    """
    a, b = placed
    if not are_neighbours(a.qr, b.qr):
        raise ValueError(f"the two hexes {a.qr} and {b.qr} of a tile must be neighbours")
    cells = board_after.cells()
    raw: dict[str, int] = {}
    lines = []
    for me, partner in ((a, b), (b, a)):
        toward = direction_between(me.qr, partner.qr)
        for d in DIRECTIONS:
            if d == toward:
                continue
            run = count_line(cells, me.qr, d, me.colour, radius)
            if run:
                n_sym = sum(1 for c in run if c in START_CELLS)
                lines.append(Line(me.qr, d, me.colour, len(run), run, n_sym))
                raw[me.colour] = raw.get(me.colour, 0) + len(run)
    return PlacementPoints(raw, tuple(lines))


@dataclass(frozen=True)
class PlacementCheck:
    """What changed between two board readings, and whether it is one legal placement.

    Attributes
    ----------
    placed : tuple of Hex
        The hexes new in ``after`` (0, 1, 2, 3 ...).
    flags : tuple of Flag
        Every problem (empty when the change is exactly one legal tile).
    """

    placed: tuple[Hex, ...]
    flags: tuple[Flag, ...] = field(default_factory=tuple)

    @property
    def valid(self) -> bool:
        return not self.flags and len(self.placed) == 2


def check_placement(before: Board, after: Board, radius: int) -> PlacementCheck:
    """Find the placement between two boards and every reason it is not one legal tile.

    A tile hex that disappears or changes colour is a moved tile; the new hexes must be exactly
    two neighbouring cells in play, not on a printed symbol, and not already occupied.
    """
    b, a = before.cells(), after.cells()
    new = tuple(Hex(c, a[c]) for c in sorted(a) if c not in b)
    flags: list[Flag] = []
    gone = sorted(c for c in b if c not in a)
    changed = sorted(c for c in b if c in a and a[c] != b[c])
    if gone or changed:
        flags.append(
            Flag(
                "moved_tile",
                f"tile hexes changed between the photos: {len(gone)} gone, {len(changed)} changed colour",
                {"gone": [list(c) for c in gone], "changed": [list(c) for c in changed]},
            )
        )
    flags += placement_flags(new, radius)
    return PlacementCheck(new, tuple(flags))


def placement_flags(new: tuple[Hex, ...], radius: int) -> list[Flag]:
    """Problems of the new hexes themselves (count, neighbourhood, symbol cells, ring)."""
    flags: list[Flag] = []
    cells = [list(h.qr) for h in new]
    if len(new) != 2:
        flags.append(
            Flag("not_one_tile", f"{len(new)} new hexes, a placement is exactly 2 (one tile)", {"cells": cells})
        )
    elif not are_neighbours(new[0].qr, new[1].qr):
        flags.append(Flag("not_neighbours", "the two new hexes are not neighbours", {"cells": cells}))
    on_symbol = [list(h.qr) for h in new if h.qr in START_CELLS]
    if on_symbol:
        flags.append(Flag("covers_symbol", "a tile lies on a printed start symbol", {"cells": on_symbol}))
    outside = [list(h.qr) for h in new if ring(h.qr) > radius]
    if outside:
        flags.append(
            Flag("outside_play", f"a new hex lies outside the board in play (radius {radius})", {"cells": outside})
        )
    return flags


def free_pairs(board: Board, radius: int) -> list[tuple[Cell, Cell]]:
    """Every pair of neighbouring empty cells in play (no printed symbol): where a tile still fits."""
    occupied = set(board.cells()) | set(START_CELLS)
    free = {c for c in cells_within(radius) if c not in occupied}
    out = []
    for c in sorted(free):
        for d in DIRECTIONS[:3]:
            n = (c[0] + d[0], c[1] + d[1])
            if n in free:
                out.append((c, n))
    return out
