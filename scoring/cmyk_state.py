"""What the camera saw of one CMYK! mosaic: tiles on the triangle lattice.

The contract between ``vision`` (which produces it) and ``scoring.cmyk`` (which scores it).
Cells follow ``geometry.trilattice`` (row ``j``, ``(i + j)`` even points up; edge directions
``H``/``P``/``N``). The lattice frame's "up" is the mosaic's up as seen from the player's seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.flags import Flag

INKS = ("cyan", "magenta", "yellow")


@dataclass(frozen=True)
class EdgeReading:
    """One tile edge.

    Attributes
    ----------
    colour : str
        ``"cyan"``, ``"magenta"`` or ``"yellow"``.
    level : int or None
        Mark level 0..5; None on a K tile (wild).
    confidence : float
        0..1.
    """

    colour: str
    level: int | None
    confidence: float = 1.0

    def to_json(self) -> dict:
        return {"colour": self.colour, "level": self.level, "confidence": round(float(self.confidence), 3)}

    @classmethod
    def from_json(cls, obj: dict) -> EdgeReading:
        lv = obj.get("level")
        return cls(colour=str(obj["colour"]), level=None if lv is None else int(lv),
                   confidence=float(obj.get("confidence", 1.0)))


@dataclass(frozen=True)
class TileReading:
    """One tile in its lattice cell.

    Attributes
    ----------
    cell : tuple[int, int]
        Lattice cell (i, j).
    kind : str
        ``"normal"`` or ``"k"``.
    edges : dict[str, EdgeReading]
        Edge direction (``"H"``, ``"P"``, ``"N"``) -> what that edge carries.
    confidence : float
        0..1 for the whole tile reading.
    """

    cell: tuple[int, int]
    kind: str
    edges: dict[str, EdgeReading]
    confidence: float = 1.0

    @property
    def cmy(self) -> tuple[int | None, int | None, int | None]:
        """Levels (c, m, y) read from the edges (None where wild or missing)."""
        by_colour = {e.colour: e.level for e in self.edges.values()}
        return (by_colour.get("cyan"), by_colour.get("magenta"), by_colour.get("yellow"))

    def to_json(self) -> dict:
        return {
            "cell": list(self.cell),
            "kind": self.kind,
            "edges": {d: e.to_json() for d, e in sorted(self.edges.items())},
            "confidence": round(float(self.confidence), 3),
        }

    @classmethod
    def from_json(cls, obj: dict) -> TileReading:
        return cls(
            cell=(int(obj["cell"][0]), int(obj["cell"][1])),
            kind=str(obj.get("kind", "normal")),
            edges={str(d): EdgeReading.from_json(e) for d, e in obj["edges"].items()},
            confidence=float(obj.get("confidence", 1.0)),
        )


@dataclass(frozen=True)
class MosaicState:
    """One player's finished mosaic.

    Attributes
    ----------
    tiles : tuple[TileReading, ...]
    flags : tuple[Flag, ...]
        Detector-side problems (marks disagreeing with the ground colour, duplicate tiles, ...).
    """

    tiles: tuple[TileReading, ...]
    flags: tuple[Flag, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        return {"tiles": [t.to_json() for t in self.tiles], "flags": [f.to_json() for f in self.flags]}

    @classmethod
    def from_json(cls, obj: dict) -> MosaicState:
        return cls(
            tiles=tuple(TileReading.from_json(t) for t in obj["tiles"]),
            flags=tuple(Flag.from_json(f) for f in obj.get("flags", [])),
        )
