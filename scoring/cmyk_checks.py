"""Consistency checks on camera-made CMYK! mosaics, reported as flags (never raised).

The tile set makes misreadings visible: every normal tile ``(c, m, y)`` exists once (``c+m+y <= 6``,
each <= 5, plus ``(3, 3, 3)``), each tile has one edge of each ink, and there are two K tiles.
"""

from __future__ import annotations

from collections.abc import Sequence

from geometry.mosaic import IllegalContact
from scoring.cmyk_state import INKS, MosaicState, TileReading
from scoring.flags import Flag

K_TILES_IN_SET = 2
MAX_LEVEL = 5
MAX_LEVEL_SUM = 6
EXTRA_TILE = (3, 3, 3)


def tile_exists(cmy: tuple[int, int, int]) -> bool:
    """True when a normal tile with these levels is in the set."""
    return (all(0 <= v <= MAX_LEVEL for v in cmy) and sum(cmy) <= MAX_LEVEL_SUM) or tuple(cmy) == EXTRA_TILE


def _is_k(t: TileReading) -> bool:
    return t.kind.lower() == "k"


def doubtful_reading(t: TileReading, min_confidence: float, min_k_confidence: float) -> bool:
    """Whether a tile's reading is in doubt: the tile or an edge below ``min_confidence``, or a K reading below
    ``min_k_confidence`` (K is what a tile looks like when the photo lost its marks: blur, noise, glare)."""
    if t.confidence < min_confidence or any(e.confidence < min_confidence for e in t.edges.values()):
        return True
    return _is_k(t) and t.confidence < min_k_confidence


def mosaic_flags(player: str, mosaic: MosaicState, illegal: Sequence[IllegalContact],
                 min_confidence: float, min_k_confidence: float = 0.0) -> list[Flag]:
    """Flags about one player's mosaic: duplicates, illegal contacts, doubtful readings, impossible tiles.

    Parameters
    ----------
    player : str
    mosaic : MosaicState
    illegal : sequence of IllegalContact
        From :func:`geometry.mosaic.illegal_contacts`.
    min_confidence : float
        Tiles or edges read with less are flagged ``low_confidence``.
    min_k_confidence : float
        K readings with less are flagged too (:func:`doubtful_reading`).
    """
    out = []  # the detector's own flags (mosaic.flags) are reported by the caller (judge/games/cmyk.py), not repeated
    if not mosaic.tiles:
        out.append(Flag("no_tiles", f"{player}: no tiles found in the mosaic", {"player": player}))
    seen: dict[tuple[int, int], int] = {}
    for t in mosaic.tiles:
        seen[t.cell] = seen.get(t.cell, 0) + 1
    dup = sorted(c for c, n in seen.items() if n > 1)
    if dup:
        out.append(Flag("duplicate_cell", f"{player}: two tiles read in the same cell {dup}",
                        {"player": player, "cells": [list(c) for c in dup]}))
    if illegal:
        by_cell = {t.cell: t for t in mosaic.tiles}
        pairs = []
        for c in illegal:
            reads = [{"cell": list(x), **by_cell[x].edges[c.direction].to_json()} for x in c.cells]
            pairs.append({**c.to_json(), "readings": reads,
                          "likely_misread": min(reads, key=lambda r: r["confidence"])["cell"]
                          if reads[0]["confidence"] != reads[1]["confidence"] else None})
        out.append(Flag("illegal_contact", f"{player}: {len(illegal)} touching edge pair(s) do not match: "
                        + "; ".join(f"{c.cells[0]}-{c.cells[1]} {c.reason}" for c in illegal[:6]),
                        {"player": player, "contacts": pairs}))
    doubtful = sorted({t.cell for t in mosaic.tiles if doubtful_reading(t, min_confidence, min_k_confidence)})
    if doubtful:
        out.append(Flag("low_confidence", f"{player}: {len(doubtful)} tile(s) read with low confidence {doubtful[:8]}",
                        {"player": player, "cells": [list(c) for c in doubtful]}))
    bad = []
    for t in mosaic.tiles:
        colours = sorted(e.colour for e in t.edges.values())
        if len(t.edges) != 3 or colours != sorted(INKS):
            bad.append((t.cell, "edges must carry one cyan, one magenta and one yellow"))
        elif not _is_k(t):
            cmy = t.cmy
            lc, lm, ly = cmy
            if lc is None or lm is None or ly is None:
                bad.append((t.cell, "a normal tile edge has no level"))
            elif not tile_exists((lc, lm, ly)):
                bad.append((t.cell, f"no tile {cmy} exists in the set"))
    if bad:
        out.append(Flag("impossible_tile", f"{player}: {len(bad)} tile reading(s) impossible: "
                        + "; ".join(f"{c} {why}" for c, why in bad[:4]),
                        {"player": player, "cells": [list(c) for c, _ in bad]}))
    return out


def duplicate_readings(players: Sequence[str], mosaics: Sequence[MosaicState]) -> dict[tuple, list[dict]]:
    """Normal tiles read in more than one place across the table (each exists once): (c, m, y) -> places
    (``{"player", "cell"}``), sorted by tile."""
    where: dict[tuple, list] = {}
    for name, m in zip(players, mosaics):
        for t in m.tiles:
            if not _is_k(t) and None not in t.cmy:
                where.setdefault(t.cmy, []).append({"player": name, "cell": list(t.cell)})
    return {cmy: places for cmy, places in sorted(where.items()) if len(places) > 1}


def conflicting_cells(player: str, mosaic: MosaicState, illegal: Sequence[IllegalContact],
                      duplicates: dict[tuple, list[dict]]) -> frozenset[tuple[int, int]]:
    """This player's cells whose readings contradict another reading: both tiles of every illegal contact, and
    every place of a tile read more than once (:func:`duplicate_readings`). One reading of each pair is wrong
    (unless a contact really is illegal), whatever confidence either was read with."""
    out = {c for contact in illegal for c in contact.cells}
    out |= {(int(p["cell"][0]), int(p["cell"][1])) for places in duplicates.values() for p in places
            if p["player"] == player}
    return frozenset(out) & {t.cell for t in mosaic.tiles}


def tile_set_flags(players: Sequence[str], mosaics: Sequence[MosaicState]) -> list[Flag]:
    """Flags across the whole game: a tile read twice (each exists once), more K tiles than the set has."""
    out = []
    n_k = sum(_is_k(t) for m in mosaics for t in m.tiles)
    for cmy, places in duplicate_readings(players, mosaics).items():
        out.append(Flag("duplicate_tile", f"tile {cmy} read {len(places)} times but exists once: "
                        "one reading is wrong", {"cmy": list(cmy), "places": places}))
    if n_k > K_TILES_IN_SET:
        out.append(Flag("too_many_k", f"{n_k} K tiles read but the set has {K_TILES_IN_SET}", {"k_tiles": n_k}))
    return out


def flagged_cells(mosaic: MosaicState) -> frozenset[tuple[int, int]]:
    """Cells the detector named in its own flags (``data["cells"]``): readings it doubts."""
    out = set()
    for f in mosaic.flags:
        for c in f.data.get("cells", []) or []:
            if isinstance(c, (list, tuple)) and len(c) == 2:
                out.add((int(c[0]), int(c[1])))
    return frozenset(out)
