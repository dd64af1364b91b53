"""Genial Spezial on the reading page: the placement told as sentences, the cells and tokens in doubt, and tap to
correct a cell.

Pieces are board cells (tower spaces included): ``PieceRef("hex", (q, r))``. Sentences and doubts come from the
state and the judgement only (nothing is re-scored); a tap returns the corrected state, which the page re-judges and
records as a correction.

A tap edits the tile hexes read after the placement; a hex that was already there before (an old tile the camera
misread on both photos) is edited on both photos, so the correction does not look like a moved tile. A tapped cell
is no longer unreadable: the player has said what lies there.
"""

from __future__ import annotations

import copy
import re

import numpy as np

from geometry.hexgrid import Cell, nearest_cells
from judge.games.genial import NOT_SCORED, board
from ui.diagram_genial import doubtful_tokens, pose_of, tiles, towers, unreadable
from ui.doubts import Doubt
from ui.pieces import PieceRef
from ui.sentences import Sentence
from ui.taps import ACTIONS, TapEdit, TapError, before_photo_follows, hex_colour_after_tap

COLOURS = ("red", "blue", "yellow", "black")
_CELL_TEXT = re.compile(r"\[(-?\d+), (-?\d+)\]")


def _cell(obj) -> Cell:
    return (int(obj[0]), int(obj[1]))


def _hex(cell: Cell) -> PieceRef:
    return PieceRef("hex", (int(cell[0]), int(cell[1])))


def _name(c: Cell) -> str:
    return f"({c[0]},{c[1]})"


def _told(line: str) -> tuple[str, tuple[PieceRef, ...]]:
    """A line of the judgement's explanation with its cells written as (q,r), and those cells as pieces."""
    cells = tuple(_hex((int(q), int(r))) for q, r in _CELL_TEXT.findall(line))
    text = _CELL_TEXT.sub(lambda m: f"({m.group(1)},{m.group(2)})", line)
    return text[:1].upper() + text[1:], cells


def sentences(state_json: dict, result: dict) -> list[Sentence]:
    """The placement, the chain and every token it scores (or why it was not scored), the large towers and bonus
    cells, and every cell or token read with doubt."""
    out: list[Sentence] = []
    placed = tuple(_hex(_cell(h["qr"])) for h in result.get("placed", []))
    bad = [f for f in result.get("flags", []) if f.get("code") in NOT_SCORED]
    chain = tuple(_hex(_cell(c)) for c in result.get("chain", []))
    if bad or len(placed) != 2:
        reason = "; ".join(str(f.get("message", f.get("code"))) for f in bad) or "no single new tile found"
        flagged = tuple(_hex(_cell(c)) for f in bad for c in f.get("cells", [])
                        if isinstance(c, (list, tuple)) and len(c) == 2)
        out.append(Sentence(f"Not one clean placement: nothing scored - {reason}",
                            tuple(dict.fromkeys(placed + flagged)), "bad"))
    else:
        scored = {_cell(c) for c in result.get("scored_towers", [])}
        for line in result.get("explanation", []):
            if line.startswith("flag "):
                continue
            text, cells = _told(line)
            if "chain of" in line:
                cells = chain + tuple(_hex(_cell(c)) for c in result.get("linked_towers", []))
                tone = "info"
            elif "large tower" in line:
                cells = placed + tuple(_hex(_cell(c)) for c in result.get("large_new", []))
                tone = "good"
            else:
                tone = "good" if " scores " in line and any(_cell(p.index) in scored for p in cells) else "info"
                cells = cells or placed
            out.append(Sentence(text, tuple(dict.fromkeys(placed + cells)), tone))
        already = [_cell(c) for c in result.get("already_scored", [])]
        if already:
            out.append(Sentence("Already scored by this chain, so not again: " + ", ".join(map(_name, already)),
                                tuple(_hex(c) for c in already), "info"))
    for f in result.get("flags", []):
        if f.get("code") in NOT_SCORED or f.get("code") in ("cells_unreadable", "calibration_warning"):
            continue
        cells = tuple(_hex(_cell(c)) for c in f.get("cells", []) if isinstance(c, (list, tuple)) and len(c) == 2)
        tone = "info" if f.get("code") in ("token_to_turn", "token_unread_note", "scores_unchecked") else "doubt"
        out.append(Sentence(str(f.get("message", f.get("code"))), cells, tone))
    hidden = sorted(unreadable(state_json))
    if hidden:
        out.append(Sentence(f"{len(hidden)} cell(s) could not be read from this camera (behind a tower, or a colour "
                            "between two): " + ", ".join(map(_name, hidden)) + ". The replayed game says what lies "
                            "there; tap one to say it yourself", tuple(_hex(c) for c in hidden), "doubt"))
    judged = towers(state_json, result)
    for c, why in sorted(doubtful_tokens(state_json, result).items()):
        t = judged.get(c, {})
        out.append(Sentence(f"The token on {_name(c)} ({t.get('symbol') or 'symbol unread'}, value "
                            f"{t.get('value', '?')}) was read with doubt: {why}", (_hex(c),), "doubt"))
    return out


def doubts(state_json: dict, result: dict) -> list[Doubt]:
    """Cells and tokens read with doubt: those of the new tile, its chain or the towers it links first."""
    pose = pose_of(state_json)
    if pose is None:
        return []
    involved = {_cell(h["qr"]) for h in result.get("placed", [])}
    involved |= {_cell(c) for k in ("chain", "linked_towers") for c in result.get(k, [])}
    read = tiles(state_json)
    hidden = unreadable(state_json)
    out = []
    for c, why in sorted(hidden.items()):
        xy = pose.cell_centres_mm(np.asarray([c], dtype=np.float64))[0]
        out.append(Doubt(_hex(c), (float(xy[0]), float(xy[1])),
                         f"cell {_name(c)}: {read.get(c, 'not read')} ({why})", 0.5 + (0.0 if c in involved else 1.0)))
    for c, why in sorted(doubtful_tokens(state_json, result).items()):
        xy = pose.cell_centres_mm(np.asarray([c], dtype=np.float64))[0]
        out.append(Doubt(_hex(c), (float(xy[0]), float(xy[1])), f"token on {_name(c)}: {why}",
                         0.0 if c in involved else 1.0))
    return sorted(out, key=lambda d: d.rank)


def piece_at(state_json: dict, xy_mm) -> PieceRef | None:
    """The board cell under a table point (None: off the board or no board read)."""
    pose = pose_of(state_json)
    if pose is None:
        return None
    cells, dist = nearest_cells(pose.to_board(np.asarray(xy_mm, dtype=np.float64).reshape(1, 2)), pose.pitch_mm)
    c = _cell(cells[0])
    if not board().on_board(c) or float(dist[0]) > pose.pitch_mm / np.sqrt(3.0):
        return None
    return _hex(c)


def _set(photo: dict, cell: Cell, colour: str | None) -> None:
    kept = [t for t in photo.get("tiles", []) if _cell(t["qr"]) != cell]
    if colour is not None:
        kept.append({"qr": [cell[0], cell[1]], "colour": colour})
    photo["tiles"] = sorted(kept, key=lambda t: (int(t["qr"][0]), int(t["qr"][1])))
    photo["unreadable"] = [u for u in photo.get("unreadable", []) if _cell(u["qr"]) != cell]


def tap(state_json: dict, xy_mm, action: str, view: int = 0, add_as: dict | None = None) -> TapEdit:
    """The state after one tap: ``change`` cycles the cell's tile colour (red, blue, yellow, black, then empty),
    ``remove`` empties it, ``add`` puts ``add_as["colour"]`` (default red) in an empty cell.

    Raises
    ------
    TapError
        Off the board, a tower space, nothing to remove, or a cell already holding a hex for ``add``.
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown tap action {action!r}: one of {', '.join(ACTIONS)}")
    state = copy.deepcopy(state_json)
    ref = piece_at(state, xy_mm)
    if ref is None:
        raise TapError("no board cell there: tap on a cell of the board")
    cell = _cell(ref.index)
    if cell in board().space_cells():
        raise TapError(f"cell {_name(cell)} is a tower space: no tile goes there")
    after = tiles(state)
    before = tiles(state, "before") if state.get("before") else None
    was = after.get(cell)
    now = hex_colour_after_tap(action, _name(cell), was, add_as, COLOURS)
    _set(state["after"], cell, now)
    if before is not None and before_photo_follows(action, cell, was, after, before):
        _set(state["before"], cell, now)
    note = {"action": action, "piece": ref.to_json(), "xy_mm": [round(float(v), 1) for v in xy_mm],
            "was": was, "now": now}
    return TapEdit(state, note)
