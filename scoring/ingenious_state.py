"""Ingenious state types: colours, printed start symbols, tile hexes and a board reading. Pure.

What the camera produces and the rules read (``vision`` imports these, never the rules).
"""

from __future__ import annotations

from dataclasses import dataclass

from geometry.hexgrid import Cell

COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")

# Printed start symbols: the six corner cells of the radius-5 area (components/default.json,
# ingenious.board.start_cells; a test checks the two agree).
START_CELLS: dict[Cell, str] = {
    (5, -5): "red",
    (5, 0): "orange",
    (0, 5): "yellow",
    (-5, 5): "green",
    (-5, 0): "blue",
    (0, -5): "purple",
}

FULL_RADIUS = 7


def check_colour(colour: str) -> str:
    if colour not in COLOURS:
        raise ValueError(f"unknown Ingenious colour {colour!r}: one of {', '.join(COLOURS)}")
    return colour


@dataclass(frozen=True)
class Hex:
    """One tile hex on the board."""

    qr: Cell
    colour: str

    def to_json(self) -> dict:
        return {"qr": [self.qr[0], self.qr[1]], "colour": self.colour}

    @classmethod
    def from_json(cls, obj) -> Hex:
        q, r = obj["qr"]
        return cls((int(q), int(r)), check_colour(str(obj["colour"])))


@dataclass(frozen=True)
class Board:
    """The tile hexes on the board (printed symbols excluded).

    Attributes
    ----------
    hexes : tuple of Hex
        Sorted by cell; at most one per cell.
    """

    hexes: tuple[Hex, ...] = ()

    @classmethod
    def of(cls, cells: dict[Cell, str]) -> Board:
        return cls(tuple(Hex((int(c[0]), int(c[1])), check_colour(v)) for c, v in sorted(cells.items())))

    def cells(self) -> dict[Cell, str]:
        return {h.qr: h.colour for h in self.hexes}

    def with_hexes(self, new: tuple[Hex, ...]) -> Board:
        d = self.cells()
        d.update({h.qr: h.colour for h in new})
        return Board.of(d)

    def to_json(self) -> list:
        return [h.to_json() for h in self.hexes]

    @classmethod
    def from_json(cls, obj) -> Board:
        return cls.of({Hex.from_json(h).qr: Hex.from_json(h).colour for h in obj})
