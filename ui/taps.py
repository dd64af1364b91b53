"""Tap to correct: a tap on the straightened view or the diagram -> the piece under it -> the corrected state.

Pure functions on state JSON (the same JSON ``cli.py score`` reads): the page re-judges the returned state
and records it in the ledger as a correction of the original judgement. A piece a person has set is taken as
certain (confidence 1) and dropped from the detector's doubt flags.

Actions: ``"change"`` cycles a chip's kind/colour, a Kaleido cell's colour, a CMYK! edge's level (a tap near
the edge) or a tile's kind (a tap in its middle: normal <-> K); ``"remove"`` takes the piece away; ``"add"``
puts a piece at the tapped point (a chip there, a tile in an empty hole or lattice cell).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from components import load_components
from geometry import trilattice as tl
from geometry.hexboards import board_cells
from ui.diagram_cmyk import LatticeFrame
from ui.pieces import EDGE_DIRECTIONS, PieceRef

ACTIONS = ("change", "remove", "add")
KALEIDO_CYCLE = ("red", "yellow", "green", "blue", "purple", "white", None)
CMYK_ORDER = ("cyan", "magenta", "yellow")  # clockwise seen from above on every normal tile


@dataclass(frozen=True)
class TapConfig:
    """How near a tap must be.

    Attributes
    ----------
    chip_pick_mm : a tap this close to a chip centre picks the chip (the face is 12.5 mm in radius).
    edge_pick_mm : CMYK!: a tap this close to a tile's edge picks that edge (its level), farther in the tile.
    tap_sigma_mm : centre uncertainty given to a chip added by a tap.
    """

    chip_pick_mm: float = 14.0
    edge_pick_mm: float = 8.0
    tap_sigma_mm: float = 1.0


CONFIG = TapConfig()


class TapError(ValueError):
    """The tap cannot do that (nothing there to change, a hole already filled ...): one sentence for the page."""


@dataclass(frozen=True)
class TapEdit:
    """A corrected state and what changed.

    Attributes
    ----------
    state_json : dict
        The new state (the input is not modified).
    note : dict
        For the ledger: ``action``, ``piece`` (PieceRef JSON or None), ``xy_mm``, ``was``, ``now``.
    """

    state_json: dict
    note: dict


def chip_cycle() -> tuple[tuple[str, str | None], ...]:
    """The (kind, colour) sequence a tap on a chip steps through: every player colour, colourless, first star."""
    colours = tuple(load_components()["carrotain"]["player_colours"])
    return tuple(("star", c) for c in colours) + (("colourless", None), ("first_star", None))


# ---------------------------------------------------------------- which piece is under a tap


def hex_colour_after_tap(action: str, name: str, was: str | None, add_as: dict | None,
                         colours: tuple[str, ...]) -> str | None:
    """The colour a hex board's cell holds after a tap (Ingenious, Genial Spezial): ``remove`` empties it,
    ``add`` puts ``add_as["colour"]`` (default the first colour) in an empty cell, ``change`` cycles the colours
    and empty.

    Raises
    ------
    TapError
        Removing from an empty cell, adding to a full one (``name`` names the cell in the message).
    """
    if action == "remove":
        if was is None:
            raise TapError(f"cell {name} is already empty")
        return None
    if action == "add":
        if was is not None:
            raise TapError(f"cell {name} already holds a {was} hex: use change to cycle its colour")
        return str((add_as or {}).get("colour") or colours[0])
    cycle: tuple[str | None, ...] = (*colours, None)
    return cycle[(cycle.index(was) + 1) % len(cycle)] if was in cycle else colours[0]


def before_photo_follows(action: str, cell, was: str | None, after: dict, before: dict) -> bool:
    """Whether a tap on the after photo's ``cell`` corrects the before photo too: the cell held an old tile (the
    same in both photos), or a hex is added where two new hexes were read already (the detector missed it on both).
    ``after`` / ``before``: cell -> colour as read, before the tap."""
    new = [c for c, v in after.items() if before.get(c) != v]
    return (was is not None and before.get(cell) == was) or (action == "add" and len(new) >= 2)


def _cross(u: np.ndarray, v: np.ndarray) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _in_triangle(p: np.ndarray, tri: np.ndarray) -> bool:
    a, b, c = tri
    d = [_cross(b - a, p - a), _cross(c - b, p - b), _cross(a - c, p - c)]
    return (min(d) >= 0) or (max(d) <= 0)


def piece_at(game: str, state_json: dict, xy_mm, mosaic: int = 0, config: TapConfig = CONFIG) -> PieceRef | None:
    """The piece under a table point, or None.

    Parameters
    ----------
    game : str
    state_json : dict
    xy_mm : (float, float)
        The tapped table point (``Canvas.to_mm`` of the tap).
    mosaic : int
        CMYK!: which player's mosaic the view shows.

    Returns
    -------
    PieceRef or None
        Carrotain: the nearest chip within ``chip_pick_mm``; Kaleido: the board cell containing the point;
        CMYK!: the lattice cell's edge (near an edge) or tile (in its middle), an empty cell included.
    """
    p = np.asarray(xy_mm, dtype=np.float64).reshape(2)
    if game == "carrotain":
        chips = state_json.get("chips", [])
        if not chips:
            return None
        d = np.linalg.norm(np.asarray([c["xy_mm"] for c in chips], float) - p, axis=1)
        i = int(np.argmin(d))
        return PieceRef("chip", (i,)) if d[i] <= config.chip_pick_mm else None
    if game == "kaleido":
        e = float(state_json.get("edge_mm", 60.0))
        for b, bd in enumerate(state_json.get("boards", [])):
            tris = board_cells(bd["centre_mm"], bd["rotation_deg"], e)
            for k in range(6):
                if _in_triangle(p, tris[k]):
                    return PieceRef("cell", (b, k))
        return None
    if game == "cmyk":
        fr = LatticeFrame.of(state_json["mosaics"][mosaic])
        q = fr.to_lattice(p[None])[0]
        h = tl.row_height(fr.edge_mm)
        j = int(np.floor(q[1] / h))
        i0 = int(np.round(q[0] / (fr.edge_mm / 2.0)))
        for i in (i0 - 1, i0, i0 + 1):
            tri = tl.cell_vertices(i, j, fr.edge_mm)
            if _in_triangle(q, tri):
                for k, d in enumerate(EDGE_DIRECTIONS):
                    a, b = tl.edge_endpoints(i, j, d, fr.edge_mm)
                    if abs(_cross(b - a, q - a)) / np.linalg.norm(b - a) <= config.edge_pick_mm:
                        return PieceRef("edge", (mosaic, i, j, k))
                return PieceRef("tile", (mosaic, i, j))
        return None
    raise ValueError(f"unknown game {game!r}")


# ---------------------------------------------------------------- the corrected state


def _drop_from_flags(flags: list, key: str, gone, shift_above: int | None = None) -> list:
    """Flags without one item in their ``key`` list (indices above ``shift_above`` moved down by one)."""
    out = []
    for f in flags:
        items = f.get(key)
        if not isinstance(items, list):
            out.append(f)
            continue
        kept = [v for v in items if v != gone]
        if shift_above is not None:
            kept = [v - 1 if isinstance(v, int) and v > shift_above else v for v in kept]
        out.append({**f, key: kept})
    return out


def _carrotain(state: dict, ref: PieceRef | None, xy_mm, action: str, add_as: dict, config: TapConfig) -> dict:
    chips = state["chips"]
    if action == "add":
        kind, colour = add_as.get("kind", "star"), add_as.get("colour")
        chips.append({"kind": kind, "colour": colour if kind == "star" else None,
                      "xy_mm": [round(float(v), 3) for v in xy_mm], "centre_sigma_mm": config.tap_sigma_mm,
                      "confidence": 1.0})
        return {"now": {"kind": kind, "colour": colour}}
    if ref is None or ref.kind != "chip":
        raise TapError("no chip there: tap on a chip's centre")
    i = ref.index[0]
    was = {"kind": chips[i]["kind"], "colour": chips[i].get("colour")}
    if action == "remove":
        del chips[i]
        state["flags"] = _drop_from_flags(state.get("flags", []), "chips", i, shift_above=i)
        return {"was": was}
    cycle = chip_cycle()
    now = (was["kind"], was["colour"])
    nxt = cycle[(cycle.index(now) + 1) % len(cycle)] if now in cycle else cycle[0]
    chips[i].update({"kind": nxt[0], "colour": nxt[1], "confidence": 1.0, "presence_confidence": 1.0})
    state["flags"] = _drop_from_flags(state.get("flags", []), "chips", i)
    return {"was": was, "now": {"kind": nxt[0], "colour": nxt[1]}}


def _kaleido(state: dict, ref: PieceRef | None, action: str, add_as: dict) -> dict:
    if ref is None or ref.kind != "cell":
        raise TapError("no board hole there: tap inside a board")
    b, k = ref.index
    bd = state["boards"][b]
    was = bd["cells"][k]
    if action == "remove":
        if was is None:
            raise TapError(f"board {b}'s hole is already empty")
        now = None
    elif action == "add":
        if was is not None:
            raise TapError(f"board {b}'s hole already holds a {was} tile: use change to cycle its colour")
        now = add_as.get("colour", KALEIDO_CYCLE[0])
    else:
        now = KALEIDO_CYCLE[(KALEIDO_CYCLE.index(was) + 1) % len(KALEIDO_CYCLE)] if was in KALEIDO_CYCLE \
            else KALEIDO_CYCLE[0]
    bd["cells"][k] = now
    conf = list(bd.get("confidences", [1.0] * 6))
    conf[k] = 1.0
    bd["confidences"] = conf
    state["flags"] = _drop_from_flags(state.get("flags", []), "cells", [b, k])
    return {"was": was, "now": now}


def _new_cmyk_tile(tiles: dict, cell: tuple[int, int]) -> dict:
    """A normal tile for an empty cell: edge colours turned to match most neighbours, their levels copied."""
    # edges in clockwise order seen from above (lattice y up): up cell left, right, bottom; down cell top, right, left
    cw = ["P", "N", "H"] if tl.is_up(*cell) else ["H", "P", "N"]
    best, best_hits = None, -1
    for turn in range(3):
        colours = {cw[(k + turn) % 3]: CMYK_ORDER[k] for k in range(3)}
        hits = sum(1 for d, c in colours.items()
                   if tiles.get(tl.neighbour(*cell, d), {}).get("edges", {}).get(d, {}).get("colour") == c)
        if hits > best_hits:
            best, best_hits = colours, hits
    edges = {}
    for d, c in best.items():
        nb = tiles.get(tl.neighbour(*cell, d))
        lv = nb["edges"].get(d, {}).get("level") if nb is not None else None
        edges[d] = {"colour": c, "level": 0 if lv is None else int(lv), "confidence": 1.0}
    return {"cell": list(cell), "kind": "normal", "edges": dict(sorted(edges.items())), "confidence": 1.0}


def _cmyk(state: dict, ref: PieceRef | None, action: str) -> dict:
    if ref is None or ref.kind not in ("tile", "edge"):
        raise TapError("no lattice cell there: tap on a tile")
    m, i, j = ref.index[:3]
    mosaic = state["mosaics"][m]
    tiles = {(int(t["cell"][0]), int(t["cell"][1])): t for t in mosaic["tiles"]}
    cell = (i, j)
    tile = tiles.get(cell)
    mosaic["flags"] = _drop_from_flags(mosaic.get("flags", []), "cells", [i, j])
    if action == "add":
        if tile is not None:
            raise TapError(f"cell ({i}, {j}) already holds a tile: use change or remove")
        new = _new_cmyk_tile(tiles, cell)
        mosaic["tiles"].append(new)
        return {"now": new}
    if tile is None:
        raise TapError(f"no tile in cell ({i}, {j}): use add to put one there")
    was = copy.deepcopy(tile)
    if action == "remove":
        mosaic["tiles"] = [t for t in mosaic["tiles"] if tuple(t["cell"]) != cell]
        return {"was": was}
    tile["confidence"] = 1.0
    if ref.kind == "edge" and tile.get("kind") != "k":
        e = tile["edges"][EDGE_DIRECTIONS[ref.index[3]]]
        e["level"] = 0 if e.get("level") is None else (int(e["level"]) + 1) % 6
        e["confidence"] = 1.0
        return {"was": was, "now": copy.deepcopy(tile)}
    if tile.get("kind") == "k":
        tile["kind"] = "normal"
        for e in tile["edges"].values():
            e.update({"level": 0, "confidence": 1.0})
    else:
        tile["kind"] = "k"
        for e in tile["edges"].values():
            e.update({"level": None, "confidence": 1.0})
    return {"was": was, "now": copy.deepcopy(tile)}


def apply_tap(game: str, state_json: dict, xy_mm, action: str, mosaic: int = 0, add_as: dict | None = None,
              config: TapConfig = CONFIG) -> TapEdit:
    """The state after one tap.

    Parameters
    ----------
    game : str
    state_json : dict
        Not modified.
    xy_mm : (float, float)
        The tapped table point.
    action : {"change", "remove", "add"}
    mosaic : int
        CMYK!: the mosaic shown.
    add_as : dict, optional
        What ``"add"`` puts down: Carrotain ``{"kind", "colour"}``, Kaleido ``{"colour"}``.

    Raises
    ------
    TapError
        Nothing there to change or remove, or a place already taken for ``"add"``.
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown tap action {action!r}: one of {', '.join(ACTIONS)}")
    state = copy.deepcopy(state_json)
    ref = piece_at(game, state, xy_mm, mosaic, config)
    if game == "carrotain":
        change = _carrotain(state, ref, xy_mm, action, add_as or {}, config)
    elif game == "kaleido":
        change = _kaleido(state, ref, action, add_as or {})
    else:
        change = _cmyk(state, ref, action)
    note = {"action": action, "piece": None if ref is None else ref.to_json(),
            "xy_mm": [round(float(v), 1) for v in xy_mm], **change}
    return TapEdit(state, note)
