"""Kaleido: the table state the camera saw, and its judgement (RULES.md section 2). Pure rules.

``KaleidoState`` is the contract between ``vision.kaleido`` (which produces it) and this module;
``cli.py score`` reads it from JSON, so a hand-corrected state can be judged. It also reads the
photoreal truth files' ``scene`` form (boards with ``centre_mm``, ``rotation_deg``, ``cells``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    seen = {c for b in boards for c in b.cells if c is not None}
    owner, names = _colour_owner(ctx.players, seen)
    flags: list[Flag] = list(state.flags)
    explanation: list[str] = []

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

    def uncertain(cells: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(b, k) for b, k in cells if boards[b].confidences[k] < rules.min_confidence]

    # Full boards
    board_rows: list[dict[str, Any]] = []
    board_points: dict[str, int] = {n: 0 for n in names}
    full_boards = 0
    for i, b in enumerate(boards):
        pts = _award(majority_points(b.cells, majority), owner) if b.full else {}
        if b.full:
            full_boards += 1
            _add(board_points, pts)
        board_rows.append({"index": i, "full": b.full, "points": pts,
                           "empty": [k for k, c in enumerate(b.cells) if c is None]})

    # Junction hexagons
    centres = np.array([b.centre_mm for b in boards], dtype=np.float64).reshape(-1, 2)
    rots = np.array([b.rotation_deg for b in boards], dtype=np.float64)
    junctions = find_junctions(centres, rots, state.edge_mm, rules.junctions)
    hexagons: list[dict[str, Any]] = []
    incomplete: list[dict[str, Any]] = []
    final_scores: dict[str, int] = {n: 0 for n in names}
    shaky: list[tuple[int, int]] = []
    for j in junctions:
        colours = [boards[b].cells[k] for b, k in j.cells]
        cells = [list(c) for c in j.cells]
        vertex = [round(j.vertex_mm[0], 1), round(j.vertex_mm[1], 1)]
        if all(c is not None for c in colours):
            by_colour = majority_points(colours, majority)
            pts = _award(by_colour, owner)
            _add(final_scores, pts)
            shaky += uncertain(list(j.cells))
            hexagons.append({"cells": cells, "colours": colours, "points": pts, "points_by_colour": by_colour,
                             "vertex_mm": vertex, "complete": True})
        else:
            empty = [list(c) for c, col in zip(j.cells, colours) if col is None]
            shaky += uncertain([c for c, col in zip(j.cells, colours) if col is None])
            incomplete.append({"cells": cells, "empty": empty, "vertex_mm": vertex, "complete": False})

    mode = "final"
    scores = final_scores
    scored_boards: list[int] = []
    if ctx.board is not None or ctx.previous_state is not None:
        mode = "board"
        if ctx.board is not None:
            if not 0 <= ctx.board < len(boards):
                flags.append(Flag("no_such_board", f"board {ctx.board} is not on the table "
                                  f"({len(boards)} boards, numbered from 0)", {"board": ctx.board}))
            else:
                scored_boards = [ctx.board]
        else:
            assert ctx.previous_state is not None  # the branch's condition
            prev = ctx.previous_state.boards
            for i, b in enumerate(boards):
                was_full = any(p.full and np.hypot(p.centre_mm[0] - b.centre_mm[0], p.centre_mm[1] - b.centre_mm[1])
                               < rules.same_board_mm for p in prev)
                if b.full and not was_full:
                    scored_boards.append(i)
        scores = {n: 0 for n in names}
        for i in scored_boards:
            if not boards[i].full:
                flags.append(Flag("board_not_full", f"board {i} still has empty cells "
                                  f"{board_rows[i]['empty']}: it scores nothing yet", {"board": i}))
                continue
            _add(scores, board_rows[i]["points"])
            shaky += uncertain([(i, k) for k in range(6)])
            explanation.append(f"board {i} is full: {_fmt(board_rows[i]['points'])}")
        if not scored_boards:
            explanation.append("no board filled since the previous photo")
    else:
        for i in range(len(boards)):
            if boards[i].full:
                shaky += uncertain([(i, k) for k in range(6)])

    shaky = sorted(set(shaky))
    if shaky:
        flags.append(Flag("uncertain_cells", f"{len(shaky)} cell(s) that decide a score were read with low "
                          "confidence: check them on the picture", {"cells": [list(c) for c in shaky]}))

    explanation.insert(0, f"{len(boards)} boards, {full_boards} full; {len(junctions)} junction hexagons, "
                       f"{len(hexagons)} complete")
    if mode == "final":
        for h in hexagons:
            explanation.append(f"hexagon at {h['vertex_mm']} mm: {_tally(h['colours'])} -> {_fmt(h['points'])}")
        for h in incomplete:
            explanation.append(f"hexagon at {h['vertex_mm']} mm has {len(h['empty'])} empty cell(s): no score")
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


def _tally(colours: list[str | None]) -> str:
    counts: dict[str, int] = {}
    for c in colours:
        counts[str(c)] = counts.get(str(c), 0) + 1
    return ", ".join(f"{c} {n}" for c, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def _fmt(points: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in points.items()) or "nobody scores"
