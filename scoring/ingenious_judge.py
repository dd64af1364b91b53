"""Ingenious: the judgement of one placement from what the camera read (CLI contract). Pure rules.

``IngeniousContext`` is the validated context JSON (players, mover, scores before, team, first round,
optionally ``placed``); ``IngeniousState`` is what the photos showed (the board before and after,
the cells in doubt); ``adjudicate`` gives the contract's fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.records import ContractRecord
from geometry.hexgrid import Cell, ring
from scoring.flags import Flag
from scoring.ingenious import (
    COLOURS,
    START_CELLS,
    Board,
    Hex,
    check_placement,
    line_stops,
    placement_flags,
    placement_points,
    radius_for,
)
from scoring.ingenious_game import first_round_flags, symbols_touched
from scoring.ingenious_scores import apply_points, check_scores, rank

DECISIONS = (
    "a colour already at the cap does not reach it again: no extra placement, its points are lost",
    "team game: partners share one score board and both show it",
    "first round: every tile already on the board is a first-round tile, so the symbols they touch are taken",
)


@dataclass(frozen=True)
class IngeniousContext:
    """The context of one placement (DESIGN.md, ingenious)."""

    players: tuple[str, ...]
    mover: str
    scores_before: dict[str, dict[str, int]]
    team: bool = False
    first_round: bool = False
    placed: tuple[Cell, ...] | None = None

    @property
    def radius(self) -> int:
        return radius_for(len(self.players), self.team)

    def partners(self, player: str) -> tuple[str, ...]:
        """The players sharing ``player``'s score board (itself included)."""
        if not self.team:
            return (player,)
        i = self.players.index(player)
        return tuple(p for k, p in enumerate(self.players) if k % 2 == i % 2)

    @classmethod
    def from_json(cls, obj: dict | None) -> IngeniousContext:
        """Validate a context object; ``ValueError`` names the bad or missing field."""
        if not isinstance(obj, dict):
            raise ValueError("ingenious needs a context: {players, mover, scores_before, team, first_round}")
        for key in ("players", "mover", "scores_before"):
            if key not in obj:
                raise ValueError(f"context is missing the field {key!r}")
        players = obj["players"]
        if not isinstance(players, list) or not players or not all(isinstance(p, str) and p for p in players):
            raise ValueError("context field 'players' must be a list of 1 to 4 names")
        if len(set(players)) != len(players) or not 1 <= len(players) <= 4:
            raise ValueError("context field 'players' must be 1 to 4 different names")
        team = obj.get("team", False)
        if not isinstance(team, bool):
            raise ValueError("context field 'team' must be true or false")
        if team and len(players) != 4:
            raise ValueError("context field 'team' needs exactly 4 players")
        mover = obj["mover"]
        if mover not in players:
            raise ValueError(f"context field 'mover' ({mover!r}) is not one of the players")
        sb = obj["scores_before"]
        if not isinstance(sb, dict):
            raise ValueError("context field 'scores_before' must be an object {player: {colour: int}}")
        scores = {}
        for p in players:
            s = sb.get(p, {})
            if not isinstance(s, dict):
                raise ValueError(f"context field 'scores_before' for {p!r} must be an object {{colour: int}}")
            try:
                scores[p] = check_scores(s, team)
            except ValueError as exc:
                raise ValueError(f"context field 'scores_before' for {p!r}: {exc}") from None
        unknown = set(sb) - set(players)
        if unknown:
            raise ValueError(f"context field 'scores_before' names unknown players {sorted(unknown)}")
        first = obj.get("first_round", False)
        if not isinstance(first, bool):
            raise ValueError("context field 'first_round' must be true or false")
        placed = obj.get("placed")
        if placed is not None:
            ok = isinstance(placed, list) and len(placed) == 2 and all(
                isinstance(c, list) and len(c) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in c)
                for c in placed)
            if not ok:
                raise ValueError("context field 'placed' must be [[q, r], [q, r]]")
            placed = tuple((int(c[0]), int(c[1])) for c in placed)
        return cls(tuple(players), mover, scores, team, first, placed)


@dataclass(frozen=True)
class IngeniousState:
    """What the photos showed.

    Attributes
    ----------
    after : Board
        Tile hexes read on the after photo.
    before : Board or None
        Tile hexes read on the before photo (None: only the after photo, ``placed`` in the context).
    doubtful : dict Cell -> str
        Cells whose reading is in doubt (either photo), with the reason.
    doubt_colours : dict Cell -> tuple of str
        For doubtful cells whose doubt is only between some colours (a hue between two): those colours. A doubtful
        cell not listed may show anything (a hand over it).
    notes : tuple of str
        Vision notes for the explanation (pose, refinement).
    vision_flags : tuple of Flag
        Doubts from the vision (pose, missing markers).
    pose : dict or None
        The board pose (``HexBoardPose.to_json``) for the overlay.
    """

    after: Board
    before: Board | None = None
    doubtful: dict = field(default_factory=dict)
    doubt_colours: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    vision_flags: tuple[Flag, ...] = ()
    pose: dict | None = None

    def to_json(self) -> dict:
        return {
            "game": "ingenious",
            "after": self.after.to_json(),
            "before": self.before.to_json() if self.before is not None else None,
            "doubtful": [{"qr": list(c), "why": w, **({"colours": list(self.doubt_colours[c])}
                                                         if c in self.doubt_colours else {})}
                         for c, w in sorted(self.doubtful.items())],
            "notes": list(self.notes),
            "vision_flags": [f.to_json() for f in self.vision_flags],
            "pose": self.pose,
        }

    @classmethod
    def from_json(cls, obj: dict) -> IngeniousState:
        before = obj.get("before")
        return cls(
            after=Board.from_json(obj["after"]),
            before=Board.from_json(before) if before is not None else None,
            doubtful={(int(d["qr"][0]), int(d["qr"][1])): str(d.get("why", "")) for d in obj.get("doubtful", [])},
            doubt_colours={(int(d["qr"][0]), int(d["qr"][1])): tuple(str(c) for c in d["colours"])
                           for d in obj.get("doubtful", []) if d.get("colours")},
            notes=tuple(str(n) for n in obj.get("notes", [])),
            vision_flags=tuple(Flag.from_json(f) for f in obj.get("vision_flags", [])),
            pose=obj.get("pose"),
        )


def _placement(state: IngeniousState, ctx: IngeniousContext) -> tuple[tuple[Hex, ...], list[Flag], Board]:
    """The new hexes, the placement's flags, and the board before."""
    radius = ctx.radius
    if state.before is not None:
        chk = check_placement(state.before, state.after, radius)
        if chk.valid or not state.doubtful:
            return chk.placed, list(chk.flags), state.before
        # the cells read with doubt (a hand, glare) left out: is the rest one clean placement?
        drop = set(state.doubtful)
        keep_b = Board.of({c: v for c, v in state.before.cells().items() if c not in drop})
        keep_a = Board.of({c: v for c, v in state.after.cells().items() if c not in drop})
        clean = check_placement(keep_b, keep_a, radius)
        if not clean.valid:
            return chk.placed, list(chk.flags), state.before
        unread = [list(c) for c in sorted(drop)]
        note = Flag("contested", "the placement is clean only with the cells in doubt left out of the comparison: "
                    "check them", {"cells": unread})
        return clean.placed, [note], state.before
    cells = state.after.cells()
    assert ctx.placed is not None
    missing = [list(c) for c in ctx.placed if c not in cells]
    placed = tuple(Hex(c, cells[c]) for c in ctx.placed if c in cells)
    flags = placement_flags(placed, radius) if not missing else []
    if missing:
        flags.append(Flag("placed_not_seen", "a hex named in 'placed' shows no tile on the after photo",
                          {"cells": missing}))
    before = Board.of({c: v for c, v in cells.items() if c not in ctx.placed})
    return placed, flags, before


@dataclass(frozen=True)
class IngeniousAdjudication(ContractRecord):
    """One placement judged; ``to_json`` is the CLI contract's judgement (``timings_ms`` excepted).

    Attributes
    ----------
    placed : tuple of dict
        ``{qr, colour}`` of the new hexes (two for a clean placement).
    move_points : dict colour -> int
        What the placement adds to the mover, after the cap.
    colour_scores : dict player -> dict colour -> int
        Everyone's scores after the move (partners share a board in the team game).
    extra_placements : int
        Thresholds reached in this placement ("Ingenious!").
    board : tuple of dict
        The tile hexes read after the move.
    start_symbols : tuple of dict
    lines : tuple of dict
        Every counted line (start, direction, colour, count, cells, symbols).
    ranking : tuple of str
    ranking_detail : tuple of dict
    scores : dict player -> int
        Each player's lowest colour after the move.
    flags : tuple of dict
    explanation : tuple of str
    game : str
    """

    placed: tuple
    move_points: dict
    colour_scores: dict
    extra_placements: int
    board: tuple
    start_symbols: tuple
    lines: tuple
    ranking: tuple
    ranking_detail: tuple
    scores: dict
    flags: tuple = ()
    explanation: tuple = ()
    game: str = "ingenious"

    ORDER = ("game", "placed", "move_points", "colour_scores", "extra_placements", "board", "start_symbols", "lines",
             "ranking", "ranking_detail", "scores", "flags", "explanation")


def adjudicate(state: IngeniousState, ctx: IngeniousContext) -> dict:
    """The judgement of one placement in the CLI contract's fields (``timings_ms`` excepted)."""
    return judge_placement(state, ctx).to_json()


def judge_placement(state: IngeniousState, ctx: IngeniousContext) -> IngeniousAdjudication:
    """The judgement of one placement, typed (see ``IngeniousAdjudication``)."""
    if state.before is None and ctx.placed is None:
        raise ValueError("one photo needs 'placed' in the context ([[q, r], [q, r]]); or give before and after")
    radius = ctx.radius
    placed, flags, before = _placement(state, ctx)
    explanation = [f"board radius {radius} in play ({len(ctx.players)} player{'s' if len(ctx.players) > 1 else ''}"
                   f"{', team game' if ctx.team else ''}); cap {36 if ctx.team else 18} per colour"]
    explanation += list(state.notes)
    flags = list(state.vision_flags) + flags
    outside = [list(h.qr) for h in state.after.hexes if ring(h.qr) > radius and h not in placed]
    if outside:
        flags.append(Flag("tiles_outside_play", f"tiles read outside the board in play (radius {radius})",
                          {"cells": outside}))
    if ctx.first_round and len(placed) == 2 and not flags:
        taken = symbols_touched(h.qr for h in before.hexes)
        flags += first_round_flags(placed, taken)
    # every doubtful cell is flagged; those on the placement or its lines make the verdict contested
    scores_before = {p: dict(s) for p, s in ctx.scores_before.items()}
    colour_scores = {p: dict(s) for p, s in scores_before.items()}
    move_points: dict[str, int] = {}
    extra = 0
    lines = []
    valid = len(placed) == 2 and not any(f.code in PLACEMENT_CODES for f in flags)
    if valid:
        board_after = state.after if state.before is not None else before.with_hexes(placed)
        pts = placement_points(board_after, (placed[0], placed[1]), radius)
        upd = apply_points(scores_before[ctx.mover], pts.raw, ctx.team)
        move_points = dict(upd.gained)
        extra = upd.extra_placements
        lines = [ln.to_json() for ln in pts.lines]
        for p in ctx.partners(ctx.mover):
            colour_scores[p] = dict(upd.after)
        for h in placed:
            sub = [ln for ln in pts.lines if ln.start == h.qr]
            desc = ", ".join(f"{ln.count} along ({ln.direction[0]},{ln.direction[1]})"
                             + (f" (incl. {ln.symbols} printed symbol)" if ln.symbols else "") for ln in sub)
            explanation.append(f"{h.colour} half at ({h.qr[0]},{h.qr[1]}): {sum(ln.count for ln in sub)} point(s)"
                               + (f" - {desc}" if desc else " - no same-colour line"))
        for c, v in upd.lost.items():
            explanation.append(f"{c}: {v} point(s) lost to the cap")
        for c, t in upd.reached:
            explanation.append(f"{c} reached {t}: Ingenious! one extra placement")
        involved = {h.qr for h in placed} | {c for ln in pts.lines for c in ln.cells}
        # a line runs on under a doubtful stopping cell that may show its colour
        involved |= {c for c, colour in line_stops(board_after, (placed[0], placed[1]), radius)
                     if colour in state.doubt_colours.get(c, (colour,))}
        in_doubt = sorted(c for c in state.doubtful if c in involved)
        if in_doubt:
            flags.append(Flag("contested", "a cell of this placement, of its counted lines or where a line stops is "
                              "in doubt (a line may run on under it): check it",
                              {"cells": [list(c) for c in in_doubt]}))
    else:
        explanation.append("not one clean placement: nothing scored (see flags)")
    if state.doubtful:
        flags.append(Flag("uncertain_cells", f"{len(state.doubtful)} cell(s) read with doubt",
                          {"cells": [{"qr": list(c), "why": w} for c, w in sorted(state.doubtful.items())]}))
    ranking = rank(colour_scores)
    explanation += [f"decision: {d}" for d in DECISIONS]
    return IngeniousAdjudication(
        placed=tuple(h.to_json() for h in placed),
        move_points=move_points,
        colour_scores=colour_scores,
        extra_placements=extra,
        board=tuple(state.after.to_json()),
        start_symbols=tuple({"qr": list(c), "colour": v} for c, v in sorted(START_CELLS.items())),
        lines=tuple(lines),
        ranking=tuple(r.name for r in ranking),
        ranking_detail=tuple(r.to_json() for r in ranking),
        scores={p: min(colour_scores[p][c] for c in COLOURS) for p in ctx.players},
        flags=tuple(f.to_json() for f in flags),
        explanation=tuple(explanation),
    )


# flags that make the change not one legal placement (never scored)
PLACEMENT_CODES = frozenset({"not_one_tile", "not_neighbours", "moved_tile", "covers_symbol", "outside_play",
                             "placed_not_seen", "first_round", "occupied"})
