"""Cells something lies over (a hand, a sleeve, a phone): doubted, never read as empty or as a pale colour.

The cell reader takes each cell's own face ring as its white, which cancels casts and uneven light but
also lets a finger over the middle of a cell pass for an empty face (the finger raises the ring's noise
estimate, so nothing in the disc counts as symbol) and a skin-coloured patch pass for an orange symbol.
Two facts of the printed board and tiles tell them apart:

* an empty printed cell is one uniform face from its centre out to its face ring (read on the board's
  printed face, where it lies): a hand, a finger or its edge over part of the disc makes the disc darker than
  the face and uneven;
* a symbol is printed in a vivid ink on a uniform tile face: the same colour reads about as strongly on every
  tile and on its printed start symbol, while skin read as that colour is far paler, and the finger it belongs
  to crosses the tile's face ring, darkening part of it (glare, which also pales a symbol, leaves the ring
  evenly lit).

A cell failing either is read as in doubt (drawn with '?'), so a placement or a line that runs into it is
contested rather than scored short.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from geometry.hexgrid import Cell
from vision.hexboard import TopView
from vision.hexboard_cells import CellReadConfig, CellReading, face_uniformity


@dataclass(frozen=True)
class CoverConfig:
    """Tunables of the covered-cell checks (set on the hard synthetic seeds 0-29, fast renderer).

    Attributes
    ----------
    low_percentile : float
        The darker part of an empty cell's disc that is measured.
    empty_disc_low, empty_disc_low_ring : float
        An empty cell's disc at that percentile must be at least this bright relative to its face white, or
        the second relative to its face ring's median (covered cells: median 0.53 and 0.84; open empty cells:
        99 % above 0.85 and 0.94; the ring's median keeps a neighbouring tile's face, seen over the ring at a
        tilt, from making the face look darker than it is).
    empty_disc_cv : float
        An empty cell's disc brightness may vary at most this much (standard deviation over mean; covered:
        99 % above 0.061; open empty cells: median 0.01, 99 % below 0.047). On the slightly smoothed views the
        cells are read on (``IngeniousVisionConfig.cell_smooth_sigma_px``; hard synthetic seeds 0-29, empty cells
        the hand hides over half of): the check alone catches 73 % of them at 0.045 (65 % at 0.06, 69 % at 0.06
        unsmoothed), with 3.1 % of the other empty cells (2.8 % unsmoothed at 0.06), most beside the hand.
    strength_ratio : float
        A symbol read with less than this fraction of the median strength of its colour's confident readings
        (tiles and the printed start symbol of the photo) is pale (skin read as orange: 0.3-0.5 of it) ...
    tile_ring_low : float
        ... and doubted when the darker part of its tile's face ring is below this fraction of the face white
        (a finger across it: 0.32-0.66; open tiles: 99 % above 0.8).
    """

    low_percentile: float = 10.0
    empty_disc_low: float = 0.8
    empty_disc_low_ring: float = 0.85
    empty_disc_cv: float = 0.045
    strength_ratio: float = 0.6
    tile_ring_low: float = 0.7


def empty_cell_doubts(face_view: TopView, centres_mm: np.ndarray, readings: list[CellReading],
                      cells_config: CellReadConfig = CellReadConfig(),
                      config: CoverConfig = CoverConfig()) -> list[str]:
    """Why each cell read surely as empty is not a clean empty face ("" where it is, or where it was not read as
    empty).

    Parameters
    ----------
    face_view : TopView
        The board's printed face (where an empty cell's face lies).
    centres_mm : ndarray, shape (N, 2)
        Cell centres, table mm.
    readings : list of CellReading, N
    """
    empty = np.array([r.colour is None and not r.doubt for r in readings], dtype=bool)
    out = [""] * len(readings)
    if not empty.any():
        return out
    u = face_uniformity(face_view, np.asarray(centres_mm)[empty], cells_config, config.low_percentile)
    dark = (u.disc_low < config.empty_disc_low) & (u.disc_low_ring < config.empty_disc_low_ring)
    for i, lo, v, bad in zip(np.flatnonzero(empty), u.disc_low, u.disc_cv, dark | (u.disc_cv > config.empty_disc_cv),
                             strict=True):
        if bad:
            out[int(i)] = (f"the empty cell's face is not uniform (darker part {lo:.2f} of its face, variation "
                           f"{v:.2f}): a hand or an object over part of it?")
    return out


def pale_symbol_doubts(tile_view: TopView, centres_mm: np.ndarray, readings: list[CellReading],
                       peers: list[CellReading], cells_config: CellReadConfig = CellReadConfig(),
                       config: CoverConfig = CoverConfig()) -> list[str]:
    """Why each cell read surely as a colour may be skin or an object, not a tile ("" where it is a tile): its
    symbol far paler than its colour's ink and its tile face ring partly dark.

    Parameters
    ----------
    tile_view : TopView
        The tiles' top faces.
    centres_mm : ndarray, shape (N, 2)
        Cell centres, table mm.
    readings : list of CellReading, N
        The cells to check.
    peers : list of CellReading
        Readings of the same photo whose confident ones set each colour's usual strength (the tiles and the
        printed start symbols).
    """
    by_colour: dict[str, list[float]] = {}
    for r in peers:
        if r.colour is not None and not r.doubt:
            by_colour.setdefault(r.colour, []).append(r.strength)
    usual = {c: float(np.median(v)) for c, v in by_colour.items()}
    pale = [i for i, r in enumerate(readings) if r.colour is not None and not r.doubt and r.colour in usual
            and r.strength < config.strength_ratio * usual[r.colour]]
    out = [""] * len(readings)
    if not pale:
        return out
    ring_low = face_uniformity(tile_view, np.asarray(centres_mm)[pale], cells_config, config.low_percentile).ring_low
    for i, lo in zip(pale, ring_low, strict=True):
        r = readings[i]
        if lo < config.tile_ring_low:
            out[i] = (f"reads {r.colour} but far paler ({r.strength:.2f}) than the other {r.colour} symbols "
                      f"({usual[str(r.colour)]:.2f}) and its face ring is partly dark ({lo:.2f}): skin or an object "
                      "over the cell?")
    return out


def with_cover_doubts(cells: dict[Cell, CellReading], symbols: dict[Cell, CellReading], face_view: TopView,
                      tile_view: TopView, centres_mm: np.ndarray, cells_config: CellReadConfig = CellReadConfig(),
                      config: CoverConfig = CoverConfig()) -> dict[Cell, CellReading]:
    """The cell readings with the covered-cell doubts added (see the module docstring).

    Parameters
    ----------
    cells : dict Cell -> CellReading
        The board cells, in the order of ``centres_mm``.
    symbols : dict Cell -> CellReading
        The printed start symbols of the same photo (peers of the colour strengths).
    face_view, tile_view : TopView
        The board's printed face and the tiles' top faces.
    centres_mm : ndarray, shape (N, 2)
    """
    keys = list(cells)
    readings = [cells[c] for c in keys]
    empty = empty_cell_doubts(face_view, centres_mm, readings, cells_config, config)
    pale = pale_symbol_doubts(tile_view, centres_mm, readings, readings + list(symbols.values()), cells_config,
                              config)
    return {c: replace(r, doubt=e or p) if (e or p) else r
            for c, r, e, p in zip(keys, readings, empty, pale, strict=True)}
