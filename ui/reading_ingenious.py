"""Ingenious on the reading page: the move told as sentences, the cells in doubt, and tap to correct.

Pieces are cells: ``PieceRef("hex", (q, r))`` (axial coordinates of the board). Sentences and doubts come from
the state and the judgement only (nothing is re-scored); a tap returns the corrected state, which the page
re-judges and records as a correction.

A tap edits the tile hexes read after the move; a hex that was already there before the move (an old tile the
camera misread on both photos) is edited on both photos, so the correction does not look like a moved tile.
"""

from __future__ import annotations

import copy

import numpy as np

from geometry.hexgrid import Cell, centres_board_mm, nearest_cells
from scoring.ingenious import COLOURS, START_CELLS
from scoring.ingenious_judge import PLACEMENT_CODES
from ui.diagram_ingenious import pose_of, tiles, unsure_hexes
from ui.doubts import Doubt
from ui.pieces import PieceRef
from ui.sentences import Sentence, side_word
from ui.taps import ACTIONS, TapEdit, TapError, before_photo_follows, hex_colour_after_tap


def _cell(obj) -> Cell:
    return (int(obj[0]), int(obj[1]))


def _hex(cell: Cell) -> PieceRef:
    return PieceRef("hex", (int(cell[0]), int(cell[1])))


def direction_word(state_json: dict, direction) -> str:
    """'left', 'top right' ...: a board direction (dq, dr) as seen in the straightened view."""
    pose = pose_of(state_json)
    v = centres_board_mm(np.asarray([direction], dtype=np.float64), 1.0)[0]
    if pose is not None:
        v = pose.rotation() @ v
    return side_word(v)


def mover(result: dict) -> str | None:
    """The mover, when the judgement names only one player who can have gained ``move_points``."""
    gained = {c: int(v) for c, v in result.get("move_points", {}).items() if int(v) > 0}
    if not gained:
        return None
    scores = result.get("colour_scores", {})
    who = [p for p, s in scores.items() if all(int(s.get(c, 0)) >= v for c, v in gained.items())]
    return who[0] if len(who) == 1 else None


def sentences(state_json: dict, result: dict) -> list[Sentence]:
    """The tile and its points per colour (each counted line told by its length and direction), why a move was
    not scored, extra placements, and every cell read with doubt."""
    out: list[Sentence] = []
    placed = [(_cell(h["qr"]), str(h["colour"])) for h in result.get("placed", [])]
    bad = [f for f in result.get("flags", []) if f.get("code") in PLACEMENT_CODES]
    who = mover(result)
    owner = f"{who}'s" if who else "The mover's"
    tile = "/".join(c for _, c in placed) or "no"
    cells = tuple(_hex(c) for c, _ in placed)
    if bad or len(placed) != 2:
        reason = "; ".join(str(f.get("message", f.get("code"))) for f in bad) or "no single new tile found"
        flagged = tuple(_hex(_cell(c)) for f in bad for c in f.get("cells", [])
                        if isinstance(c, (list, tuple)) and len(c) == 2)
        out.append(Sentence(f"Not one clean placement ({tile} tile): nothing scored - {reason}",
                            tuple(dict.fromkeys(cells + flagged)),
                            "bad"))
    else:
        lines = result.get("lines", [])
        points = result.get("move_points", {})
        colours = list(dict.fromkeys(c for _, c in placed))
        for colour in colours:
            mine = [ln for ln in lines if ln.get("colour") == colour]
            raw = sum(int(ln["count"]) for ln in mine)
            parts = [f"{ln['count']} along the line to the {direction_word(state_json, ln['direction'])}"
                     + (" (a printed symbol included)" if ln.get("symbols") else "") for ln in mine]
            got = int(points.get(colour, 0))
            capped = f" ({raw - got} lost to the cap)" if raw > got else ""
            told = ", ".join(parts) if parts else "no line of its colour from the new hexes"
            linked = cells + tuple(_hex(_cell(c)) for ln in mine for c in ln["cells"])
            out.append(Sentence(f"{owner} {tile} tile scores {colour} {got}{capped}: {told}", linked,
                                "good" if got else "info"))
        extra = int(result.get("extra_placements", 0))
        if extra:
            out.append(Sentence(f"Ingenious! {extra} extra placement{'s' if extra > 1 else ''} now", cells, "good"))
    for f in result.get("flags", []):
        if f.get("code") == "contested":
            out.append(Sentence(f"Contested: {f.get('message', '')}",
                                tuple(_hex(_cell(c)) for c in f.get("cells", [])), "doubt"))
    why = {_cell(d["qr"]): str(d.get("why", "")) for d in state_json.get("doubtful", [])}
    read = tiles(state_json)
    for c in sorted(unsure_hexes(state_json, result) & set(why)):
        out.append(Sentence(f"The cell ({c[0]},{c[1]}) was read as {read.get(c, 'empty')} with doubt ({why[c]}): "
                            "check it, tap it to change it", (_hex(c),), "doubt"))
    return out


def doubts(state_json: dict, result: dict) -> list[Doubt]:
    """Cells read with doubt: those on the new tile or its counted lines first (they change the points)."""
    pose = pose_of(state_json)
    if pose is None:
        return []
    involved = {_cell(h["qr"]) for h in result.get("placed", [])}
    involved |= {_cell(c) for ln in result.get("lines", []) for c in [ln["start"], *ln["cells"]]}
    why = {_cell(d["qr"]): str(d.get("why", "")) for d in state_json.get("doubtful", [])}
    read = tiles(state_json)
    out = []
    for c in sorted(unsure_hexes(state_json, result)):
        xy = pose.cell_centres_mm(np.asarray([c], dtype=np.float64))[0]
        rank = (0.0 if c in involved else 1.0) + (0.0 if c in why else 0.5)
        note = why.get(c) or "named by a flag"
        out.append(Doubt(_hex(c), (float(xy[0]), float(xy[1])),
                         f"cell ({c[0]},{c[1]}): read as {read.get(c, 'empty')} ({note})", rank))
    return out


def piece_at(state_json: dict, xy_mm) -> PieceRef | None:
    """The board cell under a table point (None: off the board or no board read)."""
    pose = pose_of(state_json)
    if pose is None:
        return None
    cells, dist = nearest_cells(pose.to_board(np.asarray(xy_mm, dtype=np.float64).reshape(1, 2)), pose.pitch_mm)
    c = _cell(cells[0])
    if max(abs(c[0]), abs(c[1]), abs(c[0] + c[1])) > 7 or float(dist[0]) > pose.pitch_mm / np.sqrt(3.0):
        return None
    return _hex(c)


def _set(board: list, cell: Cell, colour: str | None) -> list:
    kept = [h for h in board if _cell(h["qr"]) != cell]
    if colour is not None:
        kept.append({"qr": [cell[0], cell[1]], "colour": colour})
    return sorted(kept, key=lambda h: (int(h["qr"][0]), int(h["qr"][1])))


def tap(state_json: dict, xy_mm, action: str, view: int = 0, add_as: dict | None = None) -> TapEdit:
    """The state after one tap: ``change`` cycles the cell's colour (the six colours, then empty), ``remove``
    empties it, ``add`` puts ``add_as["colour"]`` (default red) in an empty cell.

    Raises
    ------
    TapError
        Off the board, a printed start symbol, nothing to remove, or a cell already holding a hex for ``add``.
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown tap action {action!r}: one of {', '.join(ACTIONS)}")
    state = copy.deepcopy(state_json)
    ref = piece_at(state, xy_mm)
    if ref is None:
        raise TapError("no board cell there: tap on a cell of the board")
    cell = _cell(ref.index)
    if cell in START_CELLS:
        raise TapError(f"cell ({cell[0]},{cell[1]}) carries a printed start symbol: no tile goes there")
    after = tiles(state)
    before = None if state.get("before") is None else {_cell(h["qr"]): str(h["colour"]) for h in state["before"]}
    was = after.get(cell)
    now = hex_colour_after_tap(action, f"({cell[0]},{cell[1]})", was, add_as, COLOURS)
    state["after"] = _set(state.get("after", []), cell, now)
    if before is not None and before_photo_follows(action, cell, was, after, before):
        state["before"] = _set(state["before"], cell, now)
    state["doubtful"] = [d for d in state.get("doubtful", []) if _cell(d["qr"]) != cell]
    note = {"action": action, "piece": ref.to_json(), "xy_mm": [round(float(v), 1) for v in xy_mm],
            "was": was, "now": now}
    return TapEdit(state, note)
