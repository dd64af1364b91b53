"""Kaleido: the table state the camera saw, and its judgement (RULES.md section 2). Pure rules.

``KaleidoState`` is the contract between ``vision.kaleido`` (which produces it) and this module;
``cli.py score`` reads it from JSON, so a hand-corrected state can be judged. It also reads the
photoreal truth files' ``scene`` form (boards with ``centre_mm``, ``rotation_deg``, ``cells``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry.hexboards import JunctionConfig, find_junctions
from scoring.flags import Flag
from scoring.kaleido_state import PLAYER_COLOURS, TILE_COLOURS, BoardReading, KaleidoState
from scoring.majority import MajorityRule, majority_points

__all__ = ["PLAYER_COLOURS", "TILE_COLOURS", "BoardReading", "KaleidoState", "KaleidoContext", "adjudicate"]



@dataclass(frozen=True)
class KaleidoContext:
    """Who plays which colours, and what to score.

    Attributes
    ----------
    players : tuple[tuple[str, tuple[str, ...]], ...] or None
        (player, colours) pairs; None: each colour seen is a player named by the colour.
    board : int or None
        Score only this board (mid-game: "this board just filled").
    previous_state : KaleidoState or None
        Score the boards that were not full in this earlier state and are full now.
    lone_first : int
        RULES.md decision ``lone_first`` (8 or 12).
    """

    players: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    board: int | None = None
    previous_state: KaleidoState | None = None
    lone_first: int = 8


@dataclass(frozen=True)
class KaleidoRules:
    """Tunables of the judgement.

    Attributes
    ----------
    junctions : JunctionConfig
    min_confidence : float
        A cell read with less confidence than this is flagged when it matters to a score.
    same_board_mm : float
        A board of the previous state is the same board when its centre is this close.
    """

    junctions: JunctionConfig = JunctionConfig()
    min_confidence: float = 0.6
    same_board_mm: float = 20.0


def _colour_owner(players, colours_seen) -> tuple[dict[str, str], list[str]]:
    if players is None:
        names = sorted(c for c in colours_seen if c != "white")
        return {c: c for c in names}, names
    owner = {}
    for name, cols in players:
        for c in cols:
            owner[c] = name
    return owner, [name for name, _ in players]


def _award(points_by_colour: dict[str, int], owner: dict[str, str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for colour, pts in points_by_colour.items():
        if colour in owner:
            out[owner[colour]] = out.get(owner[colour], 0) + pts
    return out


def _add(total: dict[str, int], more: dict[str, int]) -> None:
    for k, v in more.items():
        total[k] = total.get(k, 0) + v


def adjudicate(
    state: KaleidoState, ctx: KaleidoContext = KaleidoContext(), rules: KaleidoRules = KaleidoRules()
) -> dict:
    """Judge a Kaleido table.

    Parameters
    ----------
    state : KaleidoState
    ctx : KaleidoContext
    rules : KaleidoRules

    Returns
    -------
    dict
        The CLI contract's fields: ``game``, ``mode`` (``"final"`` or ``"board"``), ``scores``
        {player: points this judgement awards: the junction hexagons at the end, or the newly
        full board(s) mid-game}, ``complete_hexagons``, ``junction_hexagons``, ``hexagons``
        [{cells, colours, points, points_by_colour, vertex_mm, complete}],
        ``incomplete_hexagons`` [{cells, empty, vertex_mm}], ``full_boards``, ``board_points``
        {player: points of every full board}, ``boards`` [{index, full, points}], ``flags``,
        ``explanation``, ``decisions``.
    """
    majority = MajorityRule(lone_first=ctx.lone_first)
    boards = state.boards
    owner, names = _colour_owner(ctx.players, {c for b in boards for c in b.cells if c is not None})
    flags = list(state.flags) + _table_flags(boards, owner)
    board_rows, board_points, full_boards = _score_full_boards(boards, majority, owner, names)
    junctions = find_junctions(
        np.array([b.centre_mm for b in boards], dtype=np.float64).reshape(-1, 2),
        np.array([b.rotation_deg for b in boards], dtype=np.float64),
        state.edge_mm,
        rules.junctions,
    )
    hexagons, incomplete, final_scores, deciding = _score_hexagons(boards, junctions, majority, owner, names)
    explanation: list[str] = []
    if ctx.board is not None or ctx.previous_state is not None:
        mode = "board"
        scored_boards, scores, more, board_flags, lines = _score_filled_boards(boards, board_rows, ctx, names, rules)
        deciding += more
        flags += board_flags
        explanation += lines
    else:
        mode, scored_boards, scores = "final", [], final_scores
        deciding += [(i, k) for i, b in enumerate(boards) if b.full for k in range(6)]
    flags += _uncertain_flags(boards, deciding, rules)
    explanation.insert(0, f"{len(boards)} boards, {full_boards} full; {len(junctions)} junction hexagons, "
                       f"{len(hexagons)} complete")
    if mode == "final":
        explanation += _explain_hexagons(hexagons, incomplete)
    explanation.append(f"decision lone_first = {ctx.lone_first} (a sole first with no second); white never counts")
    if ctx.players is None:
        explanation.append("no players given: each colour seen is a player named by the colour")

    return {
        "game": "kaleido",
        "mode": mode,
        "scores": scores,
        "complete_hexagons": len(hexagons),
        "junction_hexagons": len(junctions),
        "hexagons": hexagons,
        "incomplete_hexagons": incomplete,
        "full_boards": full_boards,
        "board_points": board_points,
        "boards": board_rows,
        "scored_boards": scored_boards,
        "flags": [f.to_json() for f in flags],
        "explanation": explanation,
        "decisions": {"lone_first": ctx.lone_first},
    }


def _table_flags(boards: tuple[BoardReading, ...], owner: dict[str, str]) -> list[Flag]:
    """Colours nobody plays, colours that are no tile, boards off the common lattice."""
    seen = {c for b in boards for c in b.cells if c is not None}
    flags = []
    stray = sorted(c for c in seen if c != "white" and c not in owner)
    if stray:
        flags.append(Flag("colour_not_in_play", f"tiles of {', '.join(stray)} are on the table but no player "
                          "holds that colour: they count in majorities but score for nobody", {"colours": stray}))
    unknown = sorted(c for c in seen if c not in TILE_COLOURS)
    if unknown:
        flags.append(Flag("unknown_colour", f"cells read as {', '.join(unknown)}, not a Kaleido tile colour",
                          {"colours": unknown}))
    off = [i for i, b in enumerate(boards) if not b.on_lattice]
    if off:
        flags.append(Flag("off_lattice", f"board(s) {off} do not sit on the common lattice: check that they lie "
                          "edge to edge", {"boards": off}))
    return flags


def _score_full_boards(
    boards: tuple[BoardReading, ...], majority: MajorityRule, owner: dict[str, str], names: list[str]
) -> tuple[list[dict], dict[str, int], int]:
    """Each board's row (index, full, points, empty cells), the points of every full board, how many are full."""
    rows = []
    board_points: dict[str, int] = {n: 0 for n in names}
    full_boards = 0
    for i, b in enumerate(boards):
        pts = _award(majority_points(b.cells, majority), owner) if b.full else {}
        if b.full:
            full_boards += 1
            _add(board_points, pts)
        rows.append({"index": i, "full": b.full, "points": pts,
                     "empty": [k for k, c in enumerate(b.cells) if c is None]})
    return rows, board_points, full_boards


def _score_hexagons(
    boards: tuple[BoardReading, ...], junctions: list, majority: MajorityRule, owner: dict[str, str], names: list[str]
) -> tuple[list[dict], list[dict], dict[str, int], list[tuple[int, int]]]:
    """Complete and incomplete junction hexagons, the final scores, and the cells that decide them."""
    hexagons, incomplete = [], []
    scores: dict[str, int] = {n: 0 for n in names}
    deciding: list[tuple[int, int]] = []
    for j in junctions:
        colours = [boards[b].cells[k] for b, k in j.cells]
        cells = [list(c) for c in j.cells]
        vertex = [round(j.vertex_mm[0], 1), round(j.vertex_mm[1], 1)]
        if all(c is not None for c in colours):
            by_colour = majority_points(colours, majority)
            pts = _award(by_colour, owner)
            _add(scores, pts)
            deciding += list(j.cells)
            hexagons.append({"cells": cells, "colours": colours, "points": pts, "points_by_colour": by_colour,
                             "vertex_mm": vertex, "complete": True})
        else:
            empty = [list(c) for c, col in zip(j.cells, colours) if col is None]
            deciding += [c for c, col in zip(j.cells, colours) if col is None]
            incomplete.append({"cells": cells, "empty": empty, "vertex_mm": vertex, "complete": False})
    return hexagons, incomplete, scores, deciding


def _score_filled_boards(
    boards: tuple[BoardReading, ...], board_rows: list[dict], ctx: KaleidoContext, names: list[str],
    rules: KaleidoRules,
) -> tuple[list[int], dict[str, int], list[tuple[int, int]], list[Flag], list[str]]:
    """Mid-game: the board named in the context, or the boards full now and not in the previous state.

    Returns
    -------
    scored_boards, scores, deciding cells, flags, explanation lines
    """
    flags: list[Flag] = []
    lines: list[str] = []
    scored_boards: list[int] = []
    if ctx.board is not None:
        if not 0 <= ctx.board < len(boards):
            flags.append(Flag("no_such_board", f"board {ctx.board} is not on the table "
                              f"({len(boards)} boards, numbered from 0)", {"board": ctx.board}))
        else:
            scored_boards = [ctx.board]
    elif ctx.previous_state is not None:
        prev = ctx.previous_state.boards
        for i, b in enumerate(boards):
            was_full = any(p.full and np.hypot(p.centre_mm[0] - b.centre_mm[0], p.centre_mm[1] - b.centre_mm[1])
                           < rules.same_board_mm for p in prev)
            if b.full and not was_full:
                scored_boards.append(i)
    scores = {n: 0 for n in names}
    deciding: list[tuple[int, int]] = []
    for i in scored_boards:
        if not boards[i].full:
            flags.append(Flag("board_not_full", f"board {i} still has empty cells "
                              f"{board_rows[i]['empty']}: it scores nothing yet", {"board": i}))
            continue
        _add(scores, board_rows[i]["points"])
        deciding += [(i, k) for k in range(6)]
        lines.append(f"board {i} is full: {_fmt(board_rows[i]['points'])}")
    if not scored_boards:
        lines.append("no board filled since the previous photo")
    return scored_boards, scores, deciding, flags, lines


def _uncertain_flags(
    boards: tuple[BoardReading, ...], deciding: list[tuple[int, int]], rules: KaleidoRules
) -> list[Flag]:
    """One flag naming every cell that decides a score and was read with low confidence."""
    shaky = sorted({(b, k) for b, k in deciding if boards[b].confidences[k] < rules.min_confidence})
    if not shaky:
        return []
    return [Flag("uncertain_cells", f"{len(shaky)} cell(s) that decide a score were read with low "
                 "confidence: check them on the picture", {"cells": [list(c) for c in shaky]})]


def _explain_hexagons(hexagons: list[dict], incomplete: list[dict]) -> list[str]:
    lines = [f"hexagon at {h['vertex_mm']} mm: {_tally(h['colours'])} -> {_fmt(h['points'])}" for h in hexagons]
    lines += [f"hexagon at {h['vertex_mm']} mm has {len(h['empty'])} empty cell(s): no score" for h in incomplete]
    return lines


def _tally(colours: list[str | None]) -> str:
    counts: dict[str, int] = {}
    for c in colours:
        counts[str(c)] = counts.get(str(c), 0) + 1
    return ", ".join(f"{c} {n}" for c, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def _fmt(points: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in points.items()) or "nobody scores"
