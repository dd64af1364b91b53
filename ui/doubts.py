"""Which pieces deserve a closer look, most doubtful first (the evidence crops' order).

Carrotain: borderline chips, then chips the detector is unsure of, then the not-hidden chips nearest an edge;
Kaleido: the least confident cells; CMYK!: tiles at illegal contacts, then the least confident tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

from ui.diagram_carrotain import unsure_chips
from ui.diagram_cmyk import LatticeFrame, unsure_tiles
from ui.diagram_kaleido import unsure_cells
from ui.pieces import PieceRef
from ui.sentences import chip_name, chip_place


@dataclass(frozen=True)
class DoubtConfig:
    """Attributes
    ----------
    near_mm : Carrotain: not-hidden chips within this of the decision line are evidence too.
    """

    near_mm: float = 10.0


CONFIG = DoubtConfig()


@dataclass(frozen=True)
class Doubt:
    """A piece worth a closer look.

    Attributes
    ----------
    piece : PieceRef
    centre_mm : (float, float)
    caption : str
    rank : float
        Smaller = more doubtful (shown first).
    """

    piece: PieceRef
    centre_mm: tuple[float, float]
    caption: str
    rank: float


def carrotain_doubts(state_json: dict, result: dict, config: DoubtConfig = CONFIG) -> list[Doubt]:
    chips = result.get("chips", [])
    boards = result.get("boards", state_json.get("boards", []))
    unsure = unsure_chips(state_json, result)
    out = []
    for i, c in enumerate(chips):
        m = float(c.get("margin_mm", 0.0))
        near_miss = not c.get("hidden") and abs(m) <= config.near_mm
        if not (c.get("borderline") or i in unsure or near_miss):
            continue
        rank = abs(m) if c.get("borderline") else (100.0 if i in unsure else 200.0) + abs(m)
        state = "too close to call" if c.get("borderline") else ("hidden" if c.get("hidden") else "not hidden")
        unsure_note = ", misread?" if i in unsure else ""
        out.append(Doubt(PieceRef("chip", (i,)), tuple(c["xy_mm"]),
                         f"{chip_name(c)} {chip_place(c, boards)}: {state}, {m:+.1f} mm{unsure_note}", rank))
    return out


def kaleido_doubts(state_json: dict, result: dict) -> list[Doubt]:
    from geometry.hexboards import cell_centroids  # noqa: PLC0415

    out = []
    e = float(state_json.get("edge_mm", 60.0))
    for b, k in sorted(unsure_cells(state_json, result)):
        if b >= len(state_json.get("boards", [])):
            continue
        bd = state_json["boards"][b]
        conf = float(bd.get("confidences", [1.0] * 6)[k])
        c = cell_centroids(bd["centre_mm"], bd["rotation_deg"], e)[k]
        out.append(Doubt(PieceRef("cell", (b, k)), (float(c[0]), float(c[1])),
                         f"board {b}: read as {bd['cells'][k] or 'empty'} (confidence {conf:.2f})", conf))
    return out


def cmyk_doubts(state_json: dict, result: dict) -> list[Doubt]:
    out = []
    for m, mosaic in enumerate(state_json.get("mosaics", [])):
        fr = LatticeFrame.of(mosaic)
        tiles = {(int(t["cell"][0]), int(t["cell"][1])): t for t in mosaic.get("tiles", [])}
        name = str(mosaic.get("player", f"player{m + 1}"))
        illegal = {tuple(int(v) for v in cell) for c in result.get("players", {}).get(name, {})
                   .get("illegal_contact_cells", []) for cell in c["cells"]}
        for cell in sorted(illegal | unsure_tiles(state_json, result, m)):
            if cell not in tiles:
                continue
            conf = float(tiles[cell].get("confidence", 1.0))
            why = "illegal contact" if cell in illegal else f"confidence {conf:.2f}"
            c = fr.cell_mm(cell).mean(axis=0)
            out.append(Doubt(PieceRef("tile", (m, *cell)), (float(c[0]), float(c[1])), f"{name}: tile {cell}, {why}",
                             (0.0 if cell in illegal else 1.0) + conf))
    return out
