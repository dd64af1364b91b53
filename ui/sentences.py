"""The judgement told as sentences a player would say, each linked to the pieces it is about.

Built from the state and the judgement only (nothing is re-scored): "3 centre points are not hidden", "the blue
chip at the left edge of board C misses it by 1.2 mm". Every :class:`Sentence` carries the
:class:`~ui.pieces.PieceRef` of its pieces, so the page can highlight them on the diagram. Positions are
as seen in the straightened view (top = the far side of the table from the main seat).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ui.diagram_carrotain import unsure_chips
from ui.diagram_cmyk import player_of, unsure_tiles
from ui.diagram_kaleido import unsure_cells
from ui.pieces import EDGE_DIRECTIONS, PieceRef


@dataclass(frozen=True)
class SentenceConfig:
    """Wording thresholds.

    Attributes
    ----------
    far_mm : Carrotain chips farther than this outside every board are told as one group.
    """

    far_mm: float = 20.0


CONFIG = SentenceConfig()


@dataclass(frozen=True)
class Sentence:
    """One line of the explanation.

    Attributes
    ----------
    text : str
    pieces : tuple[PieceRef, ...]
        What it is about (highlighted on the diagram when the line is picked).
    tone : str
        ``"bad"``, ``"good"``, ``"doubt"`` or ``"info"`` (how the page colours it).
    """

    text: str
    pieces: tuple[PieceRef, ...] = ()
    tone: str = "info"


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def side_word(offset_xy: np.ndarray) -> str:
    """'left', 'top right' ... for a direction in the top-down view (y down)."""
    x, y = float(offset_xy[0]), float(offset_xy[1])
    ang = (np.degrees(np.arctan2(-y, x)) + 360.0) % 360.0
    names = ("right", "top right", "top", "top left", "left", "bottom left", "bottom", "bottom right")
    return names[int(((ang + 22.5) % 360.0) // 45.0)]


def chip_name(chip: dict) -> str:
    kind = chip.get("kind", "star")
    if kind == "colourless":
        return "colourless chip"
    if kind == "first_star":
        return "first-star chip"
    return f"{chip.get('colour') or 'unknown-colour'} chip"


def _edge_distance(p: np.ndarray, outline: np.ndarray) -> float:
    a, b = outline, np.roll(outline, -1, axis=0)
    ab = b - a
    t = np.clip(((p - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-9), 0.0, 1.0)
    return float(np.linalg.norm(a + ab * t[:, None] - p, axis=1).min())


def chip_place(chip: dict, boards: list[dict]) -> str:
    """'at the left edge of board C' (the nearest challenge board's edge), or 'away from the boards'."""
    p = np.asarray(chip["xy_mm"], dtype=np.float64)
    best = None
    for b in boards:
        if b.get("role", "challenge") != "challenge":
            continue
        outline = np.asarray(b["outline_mm"], dtype=np.float64).reshape(-1, 2)
        d = _edge_distance(p, outline)
        if best is None or d < best[0]:
            best = (d, b, outline)
    if best is None:
        return "on the mat"
    _, b, outline = best
    return f"at the {side_word(p - outline.mean(axis=0))} edge of board {b.get('id', '?')}"


def carrotain(state_json: dict, result: dict, config: SentenceConfig = CONFIG) -> list[Sentence]:
    """Sentences for a Carrotain challenge: not hidden chips (closest first), borderline, unsure, hidden."""
    chips = result.get("chips", [])
    boards = result.get("boards", state_json.get("boards", []))
    out: list[Sentence] = []
    nh = [i for i, c in enumerate(chips) if not c.get("hidden")]
    hid = [i for i, c in enumerate(chips) if c.get("hidden")]
    verdict = str(result.get("verdict", "?")).upper()
    tone = "doubt" if result.get("contested") else ("good" if result.get("verdict") == "success" else "bad")
    out.append(Sentence(f"{_plural(len(nh), 'centre point')} {'is' if len(nh) == 1 else 'are'} not hidden and "
                        f"{len(hid)} {'is' if len(hid) == 1 else 'are'} hidden: {verdict}"
                        + (f" (contested: the other reading is {result.get('other_reading')})"
                           if result.get("contested") else ""),
                        tuple(PieceRef("chip", (i,)) for i in nh), tone))
    near = sorted((i for i in nh if float(chips[i].get("margin_mm", 0)) >= -config.far_mm),
                  key=lambda i: abs(float(chips[i].get("margin_mm", 0))))
    for i in near:
        c = chips[i]
        m = abs(float(c.get("margin_mm", 0.0)))
        what = "misses it by" if not c.get("borderline") else "misses it by only"
        out.append(Sentence(f"The {chip_name(c)} {chip_place(c, boards)} {what} {m:.1f} mm"
                            + (" (too close to call)" if c.get("borderline") else ""),
                            (PieceRef("chip", (i,)),), "doubt" if c.get("borderline") else "bad"))
    far = [i for i in nh if float(chips[i].get("margin_mm", 0)) < -config.far_mm]
    if far:
        out.append(Sentence(f"{_plural(len(far), 'chip')} {'lies' if len(far) == 1 else 'lie'} well away from the "
                            f"challenge boards (more than {config.far_mm:g} mm)",
                            tuple(PieceRef("chip", (i,)) for i in far), "bad"))
    for i, c in enumerate(chips):
        if c.get("hidden") and c.get("borderline"):
            out.append(Sentence(f"The {chip_name(c)} {chip_place(c, boards)} is hidden by only "
                                f"{abs(float(c.get('margin_mm', 0))):.1f} mm (too close to call)",
                                (PieceRef("chip", (i,)),), "doubt"))
    for i in sorted(unsure_chips(state_json, result)):
        if i < len(chips):
            c = chips[i]
            out.append(Sentence(f"The {chip_name(c)} {chip_place(c, boards)} may be misread (not sure it is a chip, "
                                "or of its colour): tap it to fix it", (PieceRef("chip", (i,)),), "doubt"))
    if hid:
        under = sorted({str(chips[i].get("board")) for i in hid if chips[i].get("board")})
        out.append(Sentence(f"{_plural(len(hid), 'centre point')} {'is' if len(hid) == 1 else 'are'} hidden"
                            + (f" under board{'s' if len(under) > 1 else ''} {' and '.join(under)}" if under else ""),
                            tuple(PieceRef("chip", (i,)) for i in hid), "good"))
    return out


def _points(points: dict) -> str:
    shown = [f"{p} {v}" for p, v in points.items() if v]
    return ", ".join(shown) if shown else "no points"


def _meeting(cells: list) -> str:
    boards = sorted({int(b) for b, _ in cells})
    names = [str(b) for b in boards]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def _hole_place(state_json: dict, b: int, k: int) -> str:
    from geometry.hexboards import cell_centroids  # noqa: PLC0415

    bd = state_json["boards"][b]
    c = cell_centroids(bd["centre_mm"], bd["rotation_deg"], float(state_json.get("edge_mm", 60.0)))[k]
    return side_word(c - np.asarray(bd["centre_mm"], dtype=np.float64))


def kaleido(state_json: dict, result: dict) -> list[Sentence]:
    """Sentences for Kaleido: complete and incomplete hexagons, full boards, uncertain cells."""
    out: list[Sentence] = []
    for n, h in enumerate(result.get("hexagons", []), start=1):
        colours = h.get("colours", [])
        tally = ", ".join(f"{colours.count(c)} {c}" for c in dict.fromkeys(c for c in colours if c))
        out.append(Sentence(f"Hexagon {n}, where boards {_meeting(h['cells'])} meet, is complete"
                            + (f" ({tally})" if tally else "") + f": {_points(h.get('points', {}))}",
                            tuple(PieceRef("cell", (int(b), int(k))) for b, k in h["cells"]), "good"))
    for h in result.get("incomplete_hexagons", []):
        n = len(h.get("empty", []))
        out.append(Sentence(f"The hexagon where boards {_meeting(h['cells'])} meet has {_plural(n, 'empty hole')}: "
                            "it scores nothing", tuple(PieceRef("cell", (int(b), int(k))) for b, k in h["empty"]),
                            "info"))
    for b in result.get("boards", []):
        if b.get("full"):
            i = int(b["index"])
            out.append(Sentence(f"Board {i} is full: {_points(b.get('points', {}))}",
                                tuple(PieceRef("cell", (i, k)) for k in range(6)), "good"))
    for b, k in sorted(unsure_cells(state_json, result)):
        if b < len(state_json.get("boards", [])):
            read = state_json["boards"][b]["cells"][k] or "empty"
            out.append(Sentence(f"Board {b}'s {_hole_place(state_json, b, k)} hole was read as {read} with low "
                                "confidence: check it, tap it to change it", (PieceRef("cell", (b, k)),), "doubt"))
    return out


def _tile_place(cells: list[tuple[int, int]], cell: tuple[int, int]) -> str:
    """'row 2 from the bottom, 3rd from the left' within one mosaic."""
    rows = sorted({j for _, j in cells})
    row = [i for i, j in sorted(cells) if j == cell[1]]
    n = row.index(cell[0]) + 1 if cell[0] in row else 0
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n if n < 20 else n % 10, "th")
    return f"row {rows.index(cell[1]) + 1} from the bottom, {n}{suffix} from the left"


def cmyk(state_json: dict, result: dict) -> list[Sentence]:
    """Sentences for CMYK!, per player: totals, hexagons, K tiles, illegal contacts, uncertain tiles."""
    out: list[Sentence] = []
    for m, mosaic in enumerate(state_json.get("mosaics", [])):
        name = player_of(state_json, m)
        p = result.get("players", {}).get(name, {})
        cells = [(int(t["cell"][0]), int(t["cell"][1])) for t in mosaic.get("tiles", [])]
        tiles = tuple(PieceRef("tile", (m, i, j)) for i, j in cells)
        counts = [_plural(int(p.get("tiles", len(cells))), "tile"), _plural(int(p.get("hexagons", 0)), "hexagon"),
                  _plural(int(p.get("k_tiles", 0)), "K tile")]
        out.append(Sentence(f"{name}: {', '.join(counts)}: {p.get('total', '?')} points", tiles, "info"))
        hexes = p.get("geometry", {}).get("hexagons", [])
        if hexes:
            from geometry import trilattice as tl  # noqa: PLC0415

            around = tuple(PieceRef("tile", (m, i, j)) for k, v in hexes for i, j in tl.vertex_cells(int(k), int(v)))
            out.append(Sentence(f"{name}'s {_plural(len(hexes), 'hexagon')} (filled green) score "
                                f"{p.get('breakdown', {}).get('hexagons', '?')}", around, "good"))
        for c in p.get("illegal_contact_cells", []):
            a, b = (tuple(int(v) for v in x) for x in c["cells"])
            d = EDGE_DIRECTIONS.index(c["direction"])
            out.append(Sentence(f"{name}: the tiles at {_tile_place(cells, a)} and at {_tile_place(cells, b)} touch "
                                f"with edges that differ in {c.get('reason', 'level')}: one is misread, or the mosaic "
                                "breaks the rules (red line); tap the edge to change its level",
                                (PieceRef("edge", (m, *a, d)), PieceRef("edge", (m, *b, d))), "bad"))
        for cell in sorted(unsure_tiles(state_json, result, m)):
            if cell in cells:
                out.append(Sentence(f"{name}: the tile at {_tile_place(cells, cell)} was read with low confidence: "
                                    "check its levels, tap an edge to change it", (PieceRef("tile", (m, *cell)),),
                                    "doubt"))
    return out
