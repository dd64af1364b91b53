"""Genial Spezial board: the 247-cell double hexagon, its tower spaces and bonus cells, set-up by player count.

Pure geometry and set-up (RULES.md section 5; components/default.json ``genial_spezial``). Cells are axial
``(q, r)`` pairs (``geometry.hexgrid``), origin at the board centre; a cell is on the board when its hex
distance to one of the two half-centres is at most the half radius.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from geometry.hexgrid import Cell, are_neighbours, neighbours, ring

__all__ = ["Cell", "GenialBoard", "TowerSpace", "are_neighbours", "cells_of", "hex_distance", "neighbours"]


def hex_distance(a: Cell, b: Cell) -> int:
    """Steps between two axial cells."""
    return ring((a[0] - b[0], a[1] - b[1]))


@dataclass(frozen=True)
class TowerSpace:
    """A printed tower space.

    Attributes
    ----------
    qr : (int, int)
    colour : str
        ``"navy"`` or ``"greyblue"``.
    large_for_players : tuple of int
        The player counts for which a large tower stands here.
    """

    qr: Cell
    colour: str
    large_for_players: tuple[int, ...]

    def tower_size(self, n_players: int) -> str | None:
        """``"large"``, ``"small"`` or None (the space stays empty) for a game of ``n_players``."""
        if n_players in self.large_for_players:
            return "large"
        if self.colour == "greyblue":
            return "small"
        return None


@dataclass(frozen=True)
class GenialBoard:
    """The printed board.

    Attributes
    ----------
    half_centres : tuple of (int, int)
        Centres of the two hexagonal halves.
    half_radius : int
    pitch_mm : float
        Centre-to-centre distance of neighbouring cells.
    tower_spaces : tuple of TowerSpace
    bonus_cells : frozenset of (int, int)
    """

    half_centres: tuple[Cell, ...]
    half_radius: int
    pitch_mm: float
    tower_spaces: tuple[TowerSpace, ...]
    bonus_cells: frozenset[Cell]

    @classmethod
    def from_components(cls, section: Mapping) -> GenialBoard:
        """Build from the ``genial_spezial`` section of the component description."""
        board = section["board"]
        spaces = tuple(
            TowerSpace(cells_of([s["qr"]])[0], str(s["colour"]), tuple(int(n) for n in s["large_for_players"]))
            for s in board["tower_spaces"]
        )
        bonus = frozenset((int(q), int(r)) for q, r in board["bonus_cells"])
        return cls(((-3, -3), (3, 3)), 6, float(board["pitch_mm"]), spaces, bonus)

    def on_board(self, cell: Cell) -> bool:
        """True when ``cell`` is one of the board's cells."""
        return any(hex_distance(cell, c) <= self.half_radius for c in self.half_centres)

    def cells(self) -> tuple[Cell, ...]:
        """Every cell of the board, sorted (247 for the default board)."""
        reach = 2 * self.half_radius + max(abs(v) for c in self.half_centres for v in c)
        span = range(-reach, reach + 1)
        return tuple(sorted((q, r) for q in span for r in span if self.on_board((q, r))))

    def space_cells(self) -> frozenset[Cell]:
        """Every tower space, used or not: no tile may cover one."""
        return frozenset(s.qr for s in self.tower_spaces)

    def tower_layout(self, n_players: int) -> dict[Cell, str]:
        """``{qr: "large" | "small"}`` of the towers standing in a game of ``n_players`` (2-4)."""
        out = {}
        for s in self.tower_spaces:
            size = s.tower_size(n_players)
            if size is not None:
                out[s.qr] = size
        return out


def cells_of(pairs: Iterable[Iterable[int]]) -> tuple[Cell, ...]:
    """``[[q, r], ...]`` (JSON) -> tuple of ``(q, r)``."""
    out = []
    for p in pairs:
        q, r = (int(v) for v in p)
        out.append((q, r))
    return tuple(out)
