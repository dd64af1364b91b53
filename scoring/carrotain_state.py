"""What the camera saw of a Carrotain challenge: chips and boards in table mm.

This is the contract between ``vision`` (which produces it) and ``scoring.carrotain`` (which
judges it); ``cli.py score`` reads it from JSON, so a hand-corrected state can be judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scoring.flags import Flag

CHIP_KINDS = ("star", "colourless", "first_star")


@dataclass(frozen=True)
class ChipReading:
    """One chip.

    Attributes
    ----------
    kind : str
        ``"star"`` (coloured centre dot), ``"colourless"`` (hole) or ``"first_star"`` (yellow, hole).
    colour : str or None
        Player colour of a star chip's dot; None for the others.
    xy_mm : tuple[float, float]
        The centre point (dot or hole centre) on the table, mm.
    centre_sigma_mm : float
        1-sigma uncertainty of ``xy_mm`` (isotropic), mm.
    confidence : float
        0..1, how sure the detector is of this chip's kind and colour.
    presence_confidence : float
        0..1, how sure the detector is that a chip lies here at all (a bright disc whose centre shows a hole or
        a dot of some player colour; glare on acrylic shows neither). Only a chip unsure in this sense may be a
        phantom that drops out of the count; a chip of unsure colour still counts for the verdict.
    """

    kind: str
    colour: str | None
    xy_mm: tuple[float, float]
    centre_sigma_mm: float = 0.5
    confidence: float = 1.0
    presence_confidence: float = 1.0

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "colour": self.colour,
            "xy_mm": [round(float(v), 3) for v in self.xy_mm],
            "centre_sigma_mm": round(float(self.centre_sigma_mm), 3),
            "confidence": round(float(self.confidence), 3),
            "presence_confidence": round(float(self.presence_confidence), 3),
        }

    @classmethod
    def from_json(cls, obj: dict) -> ChipReading:
        return cls(
            kind=str(obj["kind"]),
            colour=obj.get("colour"),
            xy_mm=(float(obj["xy_mm"][0]), float(obj["xy_mm"][1])),
            centre_sigma_mm=float(obj.get("centre_sigma_mm", 0.5)),
            confidence=float(obj.get("confidence", 1.0)),
            presence_confidence=float(obj.get("presence_confidence", 1.0)),
        )


@dataclass(frozen=True)
class BoardReading:
    """One acrylic board's footprint on the table.

    Attributes
    ----------
    id : str
        Board letter (``"A"`` .. ``"G"``) or ``"?"`` when the outline matched none well.
    outline_mm : ndarray, shape (N, 2)
        Footprint polygon in table mm (the board's bottom face projected straight down).
    pose_sigma_mm : float
        1-sigma uncertainty of the outline's position, mm (fit residual and camera model).
    fit_residual_mm : float
        RMS distance between the matched outline and the edge evidence, mm.
    role : str
        ``"challenge"`` (over the chip field) or ``"other"``.
    """

    id: str
    outline_mm: np.ndarray
    pose_sigma_mm: float = 0.5
    fit_residual_mm: float = 0.0
    role: str = "challenge"

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "outline_mm": np.round(np.asarray(self.outline_mm, dtype=float), 3).tolist(),
            "pose_sigma_mm": round(float(self.pose_sigma_mm), 3),
            "fit_residual_mm": round(float(self.fit_residual_mm), 3),
            "role": self.role,
        }

    @classmethod
    def from_json(cls, obj: dict) -> BoardReading:
        return cls(
            id=str(obj["id"]),
            outline_mm=np.asarray(obj["outline_mm"], dtype=np.float64).reshape(-1, 2),
            pose_sigma_mm=float(obj.get("pose_sigma_mm", 0.5)),
            fit_residual_mm=float(obj.get("fit_residual_mm", 0.0)),
            role=str(obj.get("role", "challenge")),
        )


@dataclass(frozen=True)
class CarrotainState:
    """Everything seen in one challenge photo (plus what a "before" photo added).

    Attributes
    ----------
    chips : tuple[ChipReading, ...]
    boards : tuple[BoardReading, ...]
    flags : tuple[Flag, ...]
        Detector-side problems (touched chips, low-confidence pieces, ...).
    """

    chips: tuple[ChipReading, ...]
    boards: tuple[BoardReading, ...]
    flags: tuple[Flag, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        return {
            "game": "carrotain",
            "chips": [c.to_json() for c in self.chips],
            "boards": [b.to_json() for b in self.boards],
            "flags": [f.to_json() for f in self.flags],
        }

    @classmethod
    def from_json(cls, obj: dict) -> CarrotainState:
        return cls(
            chips=tuple(ChipReading.from_json(c) for c in obj["chips"]),
            boards=tuple(BoardReading.from_json(b) for b in obj["boards"]),
            flags=tuple(Flag.from_json(f) for f in obj.get("flags", [])),
        )
