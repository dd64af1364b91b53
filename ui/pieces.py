"""Which piece a sentence, a tap or a highlight is about.

A :class:`PieceRef` names one piece of a reading by its place in the state JSON, so the page can
link an explanation line to the diagram, and a tap to the state it changes:

- Carrotain: ``PieceRef("chip", (i,))`` (``state["chips"][i]``), ``PieceRef("board", (i,))``;
- Kaleido: ``PieceRef("cell", (board, k))`` (``state["boards"][board]["cells"][k]``);
- CMYK!: ``PieceRef("tile", (mosaic, i, j))`` (the tile in lattice cell (i, j) of ``state["mosaics"][mosaic]``;
  it may be an empty cell, for adding a tile) and ``PieceRef("edge", (mosaic, i, j, direction_index))``
  (one of its edges, direction ``"HPN"[direction_index]``).
"""

from __future__ import annotations

from dataclasses import dataclass

EDGE_DIRECTIONS = ("H", "P", "N")


@dataclass(frozen=True)
class PieceRef:
    """One piece of a reading.

    Attributes
    ----------
    kind : str
        ``"chip"``, ``"board"``, ``"cell"``, ``"tile"`` or ``"edge"``.
    index : tuple[int, ...]
        Its place in the state JSON (see the module docstring).
    """

    kind: str
    index: tuple[int, ...]

    def to_json(self) -> dict:
        return {"kind": self.kind, "index": list(self.index)}

    @classmethod
    def from_json(cls, obj: dict) -> PieceRef:
        return cls(str(obj["kind"]), tuple(int(v) for v in obj["index"]))

    def tile(self) -> PieceRef:
        """The tile an edge belongs to (itself for anything else)."""
        return PieceRef("tile", self.index[:3]) if self.kind == "edge" else self
