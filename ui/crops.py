"""Evidence crops: the photo itself around each doubtful piece, with the reading drawn BESIDE it (not on it).

Each crop is the straightened photo of a small square around the piece (so nothing hides the chip, cell or
tile being judged) next to the diagram of the same square with the piece ringed. Largest doubt first:
Carrotain: borderline chips, then chips the detector is unsure of, then the not-hidden chips nearest an edge;
Kaleido: the least confident cells; CMYK!: tiles at illegal contacts, then the least confident tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ui import reading
from ui.canvas import crop_canvas
from ui.diagram_carrotain import unsure_chips
from ui.diagram_cmyk import LatticeFrame, unsure_tiles
from ui.diagram_kaleido import unsure_cells
from ui.pieces import PieceRef
from ui.sentences import chip_name, chip_place


@dataclass(frozen=True)
class CropConfig:
    """Crop sizes and how many.

    Attributes
    ----------
    half_size_mm : half the crop's side per game, mm (a chip with its board edge; a cell; a tile).
    size_px : the side of each half of a crop, px.
    gap_px : white gap between the photo and the drawing.
    near_mm : Carrotain: not-hidden chips within this of the decision line are evidence too.
    max_crops : at most this many crops.
    """

    half_size_mm: tuple[tuple[str, float], ...] = (("carrotain", 22.0), ("kaleido", 40.0), ("cmyk", 32.0))
    size_px: int = 220
    gap_px: int = 6
    near_mm: float = 10.0
    max_crops: int = 8


CONFIG = CropConfig()


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


@dataclass(frozen=True)
class EvidenceCrop:
    """One crop: ``image`` is photo | gap | drawing, shape (size, 2 size + gap, 3) uint8."""

    piece: PieceRef
    image: np.ndarray
    caption: str


def carrotain_doubts(state_json: dict, result: dict, config: CropConfig = CONFIG) -> list[Doubt]:
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


def doubts(game: str, state_json: dict, result: dict, config: CropConfig = CONFIG) -> list[Doubt]:
    """The pieces worth a closer look, most doubtful first."""
    if game == "carrotain":
        out = carrotain_doubts(state_json, result, config)
    elif game == "kaleido":
        out = kaleido_doubts(state_json, result)
    else:
        out = cmyk_doubts(state_json, result)
    return sorted(out, key=lambda d: d.rank)[: config.max_crops]


def evidence_crops(game: str, images_rgb: list[np.ndarray], calibrations: list, state_json: dict, result: dict,
                   config: CropConfig = CONFIG) -> list[EvidenceCrop]:
    """The photo around each doubtful piece with its drawing beside it, most doubtful first.

    Parameters
    ----------
    game : str
    images_rgb : list of ndarray, shape (H, W, 3)
        The photo of each view (CMYK!: one per mosaic; else one). Not modified.
    calibrations : list of TableCalibration or None
        Per photo (None: the state's markerless homography is used, when it has one).
    state_json, result : dict

    Returns
    -------
    list of EvidenceCrop
    """
    half = dict(config.half_size_mm)[game]
    out = []
    for d in doubts(game, state_json, result, config):
        view = reading.view_of(game, d.piece)
        if view >= len(images_rgb):
            continue
        cv = crop_canvas(d.centre_mm, half, config.size_px)
        photo = reading.photo_view(game, images_rgb[view], calibrations[view], state_json, cv, view)
        if photo is None:
            continue
        drawing = reading.diagram(game, cv, state_json, result, view, (d.piece,))
        gap = np.full((config.size_px, config.gap_px, 3), 255, np.uint8)
        out.append(EvidenceCrop(d.piece, np.hstack([photo, gap, drawing]), d.caption))
    return out
