"""Kaleido's table state: the contract between ``vision.kaleido`` (which produces it) and
``scoring.kaleido`` (which judges it). Pure data: no cv2, no rules.

``cli.py score`` reads it from JSON, so a hand-corrected state can be judged. It also reads the
photoreal truth files' ``scene`` form (boards with ``centre_mm``, ``rotation_deg``, ``cells``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.flags import Flag

PLAYER_COLOURS = ("red", "yellow", "green", "blue", "purple")
TILE_COLOURS = (*PLAYER_COLOURS, "white")


@dataclass(frozen=True)
class BoardReading:
    """One board and what lies in its six holes.

    Attributes
    ----------
    centre_mm : tuple[float, float]
        Board centre, table mm.
    rotation_deg : float
        Corner ``v_k`` lies at ``rotation_deg + 60 k`` degrees from the centre (y down).
    cells : tuple[str or None, ...]
        Six tile colours, None for an empty hole; cell k is ``(centre, v_k, v_(k+1))``.
    confidences : tuple[float, ...]
        Six values 0..1: how sure the reading of each cell is.
    on_lattice : bool
        False when the board does not sit on the common lattice (shifted or turned).
    lattice_offset_mm : float
        Distance of the board's own fitted centre from its lattice vertex, mm.
    """

    centre_mm: tuple[float, float]
    rotation_deg: float
    cells: tuple[str | None, ...]
    confidences: tuple[float, ...] = (1.0,) * 6
    on_lattice: bool = True
    lattice_offset_mm: float = 0.0

    @property
    def full(self) -> bool:
        """All six holes hold a tile."""
        return all(c is not None for c in self.cells)

    def to_json(self) -> dict:
        return {
            "centre_mm": [round(float(v), 2) for v in self.centre_mm],
            "rotation_deg": round(float(self.rotation_deg), 3),
            "cells": list(self.cells),
            "confidences": [round(float(v), 3) for v in self.confidences],
            "on_lattice": bool(self.on_lattice),
            "lattice_offset_mm": round(float(self.lattice_offset_mm), 2),
        }

    @classmethod
    def from_json(cls, obj: dict) -> BoardReading:
        cells = tuple(None if c is None else str(c) for c in obj["cells"])
        if len(cells) != 6:
            raise ValueError(f"a board has 6 cells, got {len(cells)}")
        conf = tuple(float(v) for v in obj.get("confidences", [1.0] * 6))
        return cls(
            centre_mm=(float(obj["centre_mm"][0]), float(obj["centre_mm"][1])),
            rotation_deg=float(obj["rotation_deg"]),
            cells=cells,
            confidences=conf,
            on_lattice=bool(obj.get("on_lattice", True)),
            lattice_offset_mm=float(obj.get("lattice_offset_mm", 0.0)),
        )


@dataclass(frozen=True)
class KaleidoState:
    """Every board on the table.

    Attributes
    ----------
    boards : tuple[BoardReading, ...]
    edge_mm : float
        Board edge (= lattice edge), mm.
    frame : str
        ``"markers"`` (table mm from the calibration markers), ``"lattice"`` (markerless: the
        boards' own size gave the scale) or ``"given"`` (typed in).
    flags : tuple[Flag, ...]
        What the detector was unsure of.
    h_px_from_mm : tuple of 3 tuples of 3 floats, or None
        Markerless frame only: the homography from this state's table mm to the photo's px
        (for overlays).
    frame_sigma_mm : float
        Estimated 1-sigma error of positions in this frame, mm (0 when unknown).
    """

    boards: tuple[BoardReading, ...]
    edge_mm: float = 60.0
    frame: str = "given"
    flags: tuple[Flag, ...] = field(default_factory=tuple)
    h_px_from_mm: tuple[tuple[float, ...], ...] | None = None
    frame_sigma_mm: float = 0.0

    def to_json(self) -> dict:
        return {
            "game": "kaleido",
            "edge_mm": self.edge_mm,
            "frame": self.frame,
            "boards": [b.to_json() for b in self.boards],
            "flags": [f.to_json() for f in self.flags],
            "h_px_from_mm": None if self.h_px_from_mm is None else [list(r) for r in self.h_px_from_mm],
            "frame_sigma_mm": round(float(self.frame_sigma_mm), 2),
        }

    @classmethod
    def from_json(cls, obj: dict) -> KaleidoState:
        """Read a state (or a truth file's ``scene``, or a whole truth file)."""
        if "scene" in obj and "boards" not in obj:
            obj = obj["scene"]
        return cls(
            boards=tuple(BoardReading.from_json(b) for b in obj["boards"]),
            edge_mm=float(obj.get("edge_mm", 60.0)),
            frame=str(obj.get("frame", "given")),
            flags=tuple(Flag.from_json(f) for f in obj.get("flags", [])),
            h_px_from_mm=None if obj.get("h_px_from_mm") is None
            else tuple(tuple(float(v) for v in row) for row in obj["h_px_from_mm"]),
            frame_sigma_mm=float(obj.get("frame_sigma_mm", 0.0)),
        )
