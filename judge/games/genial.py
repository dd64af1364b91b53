"""Genial Spezial's plugin: context, detection (before/after photos), the typed judgement, overlay."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from components import load_components
from core.errors import BadInput, CannotJudge
from core.timing import StageTimer
from geometry.hexgrid import HexBoardPose, hexagon_board_mm
from judge.plugin import Frame, FrameMemo, GamePlugin, LiveSupport
from judge.session import Outcome, RoundAction, SessionRules, SessionView, Standings
from scoring.flags import Flag
from scoring.genial import SYMBOLS, Tower
from scoring.genial_board import Cell, GenialBoard, cells_of
from scoring.genial_judgement import (
    GenialAdjudication,
    GenialContext,
    GenialReading,
    judge_placement,
    replayed_dark,
)
from vision.genial import GenialPhoto, GenialVisionConfig, TokenRead, marker_layout, read_photo
from vision.genial_doubt import FACE_UNCLEAR, Doubted, doubt_text
from vision.genial_tokens import settle_tokens

TILE_DRAW_RGB = {"red": (200, 42, 42), "blue": (38, 84, 190), "yellow": (236, 196, 34), "black": (38, 38, 42)}
NOT_SCORED = ("placement_invalid", "tile_moved_or_missing", "board_disagrees_with_replay", "board_pose",
              "token_value_doubtful", "towers_unread",
              "history_scores_doubtful")


#: Flags whose cells the overlay marks otherwise (a '?' on each doubtful token) rather than outlining them.
QUIET = ("token_unread_note", "token_value_doubtful", "history_scores_doubtful", "scores_unchecked", "towers_unseen")


@lru_cache(maxsize=1)
def board() -> GenialBoard:
    return GenialBoard.from_components(load_components()["genial_spezial"])


@dataclass(frozen=True)
class GenialPlayContext(GenialContext):
    """DESIGN.md's genial context plus the tokens as set up, when the players give them.

    Attributes
    ----------
    token_values : dict (q, r) -> int
        The light-side value (1 or 2) of the token on the tower at ``qr``: a token's numeral is too small to
        read in most photos, and its value never changes, so the players tell it once (the page keeps it).
    token_symbols : dict (q, r) -> str
        The token's symbol, when the players tell it (the page keeps the set-up's): a thin symbol (a ring, a
        sun) on an 18 mm token can be too small to read from a seat; it never changes either.
    """

    token_values: dict[Cell, int] = field(default_factory=dict)
    token_symbols: dict[Cell, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        out = super().to_json()
        cells = sorted(set(self.token_values) | set(self.token_symbols))
        if cells:
            out["token_values"] = [{"qr": list(c)} | ({"light": self.token_values[c]} if c in self.token_values
                                                      else {})
                                   | ({"symbol": self.token_symbols[c]} if c in self.token_symbols else {})
                                   for c in cells]
        return out


def parse_context(obj: dict | None) -> GenialPlayContext:
    """Validate a Genial Spezial context (``BadInput`` naming the field)."""
    try:
        base = GenialContext.from_json(obj if obj is not None else {})
        values, symbols = _token_setup(obj.get("token_values") if isinstance(obj, Mapping) else None)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return GenialPlayContext(base.players, base.mover, base.moves_before, base.scores_before, base.bonus_symbol,
                             base.placed, values, symbols)


def _token_setup(obj: object) -> tuple[dict[Cell, int], dict[Cell, str]]:
    """``token_values`` -> (light values, symbols) by tower cell."""
    if obj is None:
        return {}, {}
    bad = ('context field "token_values": expected [{"qr": [q, r], "light": 1 or 2, "symbol": "orange" | "blue" | '
           '"green" | "purple"}, ...] (light or symbol may be left out, not both)')
    if not isinstance(obj, list):
        raise ValueError(bad)
    values, symbols = {}, {}
    for item in obj:
        try:
            (c,) = cells_of([item["qr"]])
            light = int(item["light"]) if "light" in item else None
            symbol = item.get("symbol")
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ValueError(bad) from None
        if (light is None and symbol is None) or light not in (None, 1, 2) or symbol not in (None, *SYMBOLS):
            raise ValueError(bad)
        if light is not None:
            values[c] = light
        if symbol is not None:
            symbols[c] = str(symbol)
    return values, symbols


@dataclass(frozen=True)
class GenialState:
    """What the camera read: the before (optional) and after photos."""

    after: GenialPhoto
    before: GenialPhoto | None = None

    def to_json(self) -> dict:
        return {"after": self.after.to_json(), "before": self.before.to_json() if self.before else None}

    @classmethod
    def from_json(cls, obj: Mapping) -> GenialState:
        return cls(GenialPhoto.from_json(obj["after"]),
                   GenialPhoto.from_json(obj["before"]) if obj.get("before") else None)


def _expected_tiles(ctx: GenialContext) -> dict[Cell, str]:
    """The earlier placements' tiles (their cells and colours; no rules needed)."""
    return {c: ctx.players[m.player] for m in ctx.moves_before for c in m.cells if m.player in ctx.players}


def detect(frames: list[Frame], ctx: GenialContext, timer: StageTimer,
           config: GenialVisionConfig = GenialVisionConfig()) -> GenialState:
    """Photos (before, after; or after alone with ``placed``) -> what the camera read.

    Raises
    ------
    BadInput
        Not a photo pair (and no ``placed``), or photos of different sizes.
    CannotJudge
        No table frame from the markers.
    """
    return detect_warm(frames, ctx, timer, None, config)[0]


def detect_warm(frames: list[Frame], ctx: GenialContext, timer: StageTimer, carry: HexBoardPose | None,
                config: GenialVisionConfig = GenialVisionConfig(), memo: FrameMemo | None = None
                ) -> tuple[GenialState, HexBoardPose]:
    """``detect`` for a camera that keeps still (live video): the board pose of an earlier frame (``carry``) is only
    refined, and its turn kept, instead of searched again. Returns the state and the pose to carry on.

    ``memo``: readings of photos already read (the same :class:`Frame` object): a first photo found there is not
    read again (live video: the "before" photo is the same frame in every reading frame of a still scene).

    Raises
    ------
    BadInput, CannotJudge
        As ``detect``.
    """
    photos = read_frames(frames, ctx, timer, carry, config, memo)
    return _state_of(photos, ctx, config), photos[-1].pose


def read_frames(frames: list[Frame], ctx: GenialContext, timer: StageTimer, prior: HexBoardPose | None,
                config: GenialVisionConfig = GenialVisionConfig(), memo: FrameMemo | None = None,
                carried: GenialPhoto | None = None) -> list[GenialPhoto]:
    """Each photo as read by itself (``vision.genial.read_photo``; its tokens not yet settled with the other's):
    the first from ``memo`` when it holds that frame, the last reusing the numerals ``carried`` compared (its
    reading on an earlier frame of the same still scene). A baseline judged against itself (the live frame twice:
    the same :class:`Frame` object) is read once, both photos that reading.

    Raises
    ------
    BadInput, CannotJudge
        As ``detect``.
    """
    if len(frames) not in (1, 2):
        raise BadInput(f"genial takes 2 photos (before, after) or 1 with 'placed' in the context, not {len(frames)}")
    if len(frames) == 1 and ctx.placed is None:
        raise BadInput("one photo needs the context field 'placed' ([[q, r], [q, r]]); or give before and after")
    if len(frames) == 2 and frames[0].image_rgb.shape != frames[1].image_rgb.shape:
        raise BadInput("the before and after photos differ in size: not a photo pair from one camera")
    expected = _expected_tiles(ctx)
    photos: list[GenialPhoto] = []
    for k, frame in enumerate(frames):
        if frame.calibration is None:
            raise CannotJudge(f"{frame.source or 'photo'}: no table frame from the markers "
                              f"({frame.calibration_error})")
        with timer.stage(f"board_{k + 1}" if len(frames) > 1 else "board"):
            known = memo.get(frame) if memo is not None and k == 0 else None  # a later photo: the first one's pose
            if k == 1 and frame is frames[0]:   # a baseline judged against itself: the same photo, read once
                known = photos[0]
            ph = known if known is not None else read_photo(frame.image_rgb, frame.calibration, board(),
                                                            len(ctx.players), expected, prior, config,
                                                            photos[0] if photos else None,
                                                            carried if frame is frames[-1] else None)
        photos.append(ph)
        prior = ph.pose
    return photos


def _state_of(photos: list[GenialPhoto], ctx: GenialContext, config: GenialVisionConfig) -> GenialState:
    """The state of the photos as read, their tokens settled together (the pair, the token set and the sides the
    replayed earlier placements give them: ``vision.genial_tokens``)."""
    settled = settle_tokens(photos, len(ctx.players), config.token_set, replayed_dark(board(), ctx))
    return GenialState(after=settled[-1], before=settled[0] if len(settled) == 2 else None)


#: What live reading carries from one reading frame of a still scene to the next: the board pose, the memo of
#: photos already read (the "before"), and the last frame's own reading (its numerals).
LiveCarry = tuple[HexBoardPose, FrameMemo, GenialPhoto]


def live_detect(frames: list[Frame], ctx: GenialContext, timer: StageTimer,
                carry: LiveCarry | None) -> tuple[GenialState, LiveCarry]:
    """``LiveSupport.detect_warm``: :func:`detect_warm` with the pose carried from the previous reading frame of the
    still scene, the "before" photo's reading kept (read once per still scene, not once per frame), and the
    numerals the previous frame compared reused where a token shows the same side (a token's numeral does not
    change while nothing moves: every frame of a still board reads the same values, sure or doubtful; sides,
    symbols, tiles and the pose are read on every frame)."""
    config = GenialVisionConfig()
    pose, memo, last = carry if carry is not None else (None, FrameMemo(), None)
    photos = read_frames(frames, ctx, timer, pose, config, memo, last)
    return _state_of(photos, ctx, config), (photos[-1].pose, memo.keep(frames[:1], photos[:1]), photos[-1])


def state_from_json(obj: dict) -> GenialState:
    if not isinstance(obj, dict) or "after" not in obj:
        raise BadInput('state: expected a Genial Spezial state with "after" (and "before")')
    try:
        return GenialState.from_json(obj)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadInput(f"state: {exc}") from None


def _light(t, given: Mapping[Cell, int]) -> int:
    return given[t.qr] if t.qr in given else min(2, max(1, t.value - (1 if t.dark else 0)))


def reading_of(photo: GenialPhoto, colours: frozenset[str] | None = None,
               given: Mapping[Cell, int] | None = None, symbols: Mapping[Cell, str] | None = None,
               layout: Mapping[Cell, str] | None = None) -> GenialReading:
    """The rules' view of one photo: tokens whose symbol was neither read nor given are left out (the rules flag
    them); a cell read as a colour no player holds (``colours``) is unreadable (flagged), not a tile; a token's light
    value and symbol are the ones the players gave (``given``, ``symbols``) when they did. With ``layout`` (the
    set-up's towers), a tower the photo did not show but whose token the players gave in full is taken from the
    set-up; its side, and a side read with doubt, is not checked against the replay (``unseen``)."""
    given, symbols = given or {}, symbols or {}
    odd = {c for c, v in photo.tiles.items() if colours is not None and v not in colours}
    towers = [Tower(t.qr, t.size, sym, _light(t, given), t.dark)
              for t in photo.towers for sym in [symbols[t.qr] if t.qr in symbols else t.symbol] if sym is not None]
    seen = {t.qr for t in photo.towers}
    missing = frozenset(c for c in (layout or {}) if c not in seen and c in given and c in symbols)
    towers += [Tower(c, (layout or {})[c], symbols[c], given[c], False) for c in sorted(missing)]
    unseen = missing | {t.qr for t in photo.towers if t.any_of(FACE_UNCLEAR)}   # sides not to check
    tiles = {c: v for c, v in photo.tiles.items() if c not in odd}
    hidden = frozenset(c for c, why in photo.unreadable.items() if why.hidden)
    return GenialReading(tiles, tuple(sorted(towers, key=lambda t: t.qr)), frozenset(photo.unreadable) | frozenset(odd),
                         unseen, hidden)


def _open_doubt(t: TokenRead, values: Mapping[Cell, int], symbols: Mapping[Cell, str]) -> str:
    """What is still in doubt about a token once the players' set-up is taken (as the players read it; empty when
    nothing): a doubt about its symbol is settled by a given symbol, one about its numeral or side by a given value
    (the replay knows which side it shows)."""
    settled = (Doubted.SYMBOL if t.qr in symbols else Doubted(0)) \
        | (Doubted.NUMERAL | Doubted.SIDE if t.qr in values else Doubted(0))
    return doubt_text(d for d in t.doubts if not d.about(settled))


def _doubtful_tokens(state: GenialState, ctx: GenialContext) -> dict[Cell, str]:
    """Tokens (on the first photo) read with doubt the players' set-up does not settle, and why."""
    first = state.before or state.after
    values, symbols = getattr(ctx, "token_values", {}), getattr(ctx, "token_symbols", {})
    out = {t.qr: _open_doubt(t, values, symbols) for t in first.towers}
    return {c: why for c, why in out.items() if why}


def _symbol_disagreements(state: GenialState, ctx: GenialContext) -> list[Cell]:
    """Towers whose symbol was read clearly and differs from the one the players gave."""
    symbols = getattr(ctx, "token_symbols", {})
    first = state.before or state.after
    return sorted(t.qr for t in first.towers if t.qr in symbols and t.symbol is not None
                  and not t.doubted(Doubted.SYMBOL) and t.symbol != symbols[t.qr])


def _value_disagreements(state: GenialState, ctx: GenialContext) -> list[Cell]:
    """Towers whose numeral was read clearly (side and value) and says another light value than the players gave."""
    values = getattr(ctx, "token_values", {})
    first = state.before or state.after
    return sorted(t.qr for t in first.towers if t.qr in values and not t.value_doubted
                  and t.value - (1 if t.dark else 0) != values[t.qr])


def _vision_flags(state: GenialState, adj: GenialAdjudication, ctx: GenialContext) -> list[Flag]:
    flags = []
    photos = [("before", state.before), ("after", state.after)] if state.before else [("after", state.after)]
    for name, ph in photos:
        assert ph is not None
        for f in ph.flags:
            flags.append(Flag("board_pose", f"{name} photo: {f}"))
    scored = {t.qr for t in adj.move.scored_towers} if adj.move else set()
    first = state.before or state.after
    doubtful = _doubtful_tokens(state, ctx)
    used = sorted(c for c in doubtful if c in scored)
    if used:
        flags.append(Flag("token_value_doubtful", "a token scored now could not be read for sure: "
                          + "; ".join(f"{list(c)}: {doubtful[c]}" for c in used) + " - check its value",
                          {"cells": [list(c) for c in used]}))
    history = sorted(c for c in doubtful if c not in scored and any(t.qr == c and t.dark for t in first.towers))
    if history and ctx.scores_before is None:
        flags.append(Flag("history_scores_doubtful", f"{len(history)} token(s) scored earlier could not be read for "
                          "sure, so the replayed scores before this move may be off: give scores_before",
                          {"cells": [list(c) for c in history]}))
    other = sorted(c for c in doubtful if c not in scored and c not in history)
    values, symbols = getattr(ctx, "token_values", {}), getattr(ctx, "token_symbols", {})
    unseen = sorted(c for c in board().tower_layout(len(ctx.players)) if c not in {t.qr for t in first.towers}
                    and c in values and c in symbols)
    if unseen:
        flags.append(Flag("towers_unseen", f"{len(unseen)} tower(s) not seen on the photo (a hand, glare?): their "
                          "tokens are taken from the set-up you gave", {"cells": [list(c) for c in unseen]}))
    disagree = _symbol_disagreements(state, ctx)
    if disagree:
        flags.append(Flag("token_symbol_disagrees", "the photo shows another symbol than the set-up the players gave "
                          "on " + ", ".join(str(list(c)) for c in disagree) + " (the given one is used): check it",
                          {"cells": [list(c) for c in disagree]}))
    differ = _value_disagreements(state, ctx)
    if differ:
        first_by = {t.qr: t for t in first.towers}
        flags.append(Flag("token_value_disagrees", "the photo shows another value than the set-up the players gave on "
                          + ", ".join(f"{list(c)} (light side {first_by[c].value - (1 if first_by[c].dark else 0)}, "
                                      f"given {values[c]})" for c in differ)
                          + " (the given one is used): check it", {"cells": [list(c) for c in differ]}))
    if other:
        flags.append(Flag("token_unread_note", f"{len(other)} token(s) not scored now could not be read for sure "
                          "(their values are assumed)", {"cells": [list(c) for c in other]}))
    return flags


@dataclass(frozen=True)
class GenialVerdict:
    """The judgement (from ``GenialAdjudication``) with what the overlay draws.

    Attributes
    ----------
    result : dict
        ``GenialAdjudication.to_json()`` plus ``chain``, ``linked_towers``, ``already_scored``, ``large_new``.
    chain, linked_towers, scored_towers, already_scored, large_new : tuple of (int, int)
    """

    result: dict
    chain: tuple[Cell, ...] = ()
    linked_towers: tuple[Cell, ...] = ()
    scored_towers: tuple[Cell, ...] = ()
    already_scored: tuple[Cell, ...] = ()
    large_new: tuple[Cell, ...] = ()
    flagged: tuple[Cell, ...] = field(default_factory=tuple)

    @classmethod
    def of(cls, adj: GenialAdjudication) -> GenialVerdict:
        m = adj.move
        result = adj.to_json()
        chain = tuple(sorted(m.chain.cells)) if m else ()
        linked = tuple(sorted(m.linked_towers)) if m else ()
        scored = tuple(sorted(t.qr for t in m.scored_towers)) if m else ()
        already = tuple(c for c in linked if m and c in m.chain.scored and c not in scored)
        large = tuple(sorted(m.large_new)) if m else ()
        result |= {"chain": [list(c) for c in chain], "linked_towers": [list(c) for c in linked],
                   "already_scored": [list(c) for c in already], "large_new": [list(c) for c in large]}
        return cls.from_json(result)

    def to_json(self) -> dict:
        """The judgement as a new JSON object (nested lists and objects copied: a caller may add flags)."""
        return copy.deepcopy(self.result)

    @classmethod
    def from_json(cls, obj: Mapping) -> GenialVerdict:
        def cells(key: str) -> tuple[Cell, ...]:
            return cells_of(obj.get(key, []))

        flagged = [c for f in obj.get("flags", []) if f.get("code") not in QUIET for c in f.get("cells", [])
                   if isinstance(c, list) and len(c) == 2]
        return cls({k: v for k, v in obj.items() if k not in ("timings_ms", "judgement_id")}, cells("chain"),
                   cells("linked_towers"), cells_of(obj.get("scored_towers", [])), cells("already_scored"),
                   cells("large_new"), cells_of(flagged))


#: Left out when live frames of a still board are compared: the per-tower readout, and the totals after the move
#: (``scores``, ``symbol_scores``, ``ranking``), which replay the earlier placements with every token's value - a
#: value read with doubt (flagged ``history_scores_doubtful`` / ``token_unread_note``) can read either way from one
#: frame to the next and must not keep a still board from settling. The placement and its points are compared.
LIVE_VOTE_IGNORES = ("towers", "scores", "symbol_scores", "ranking")


def adjudicate(state: GenialState, ctx: GenialContext) -> GenialVerdict:
    """The rules on what the photos showed (``scoring.genial_judgement``), with the vision's doubts as flags.

    A pure function of the reading and the context (live frames of a still board that read the same state are
    judged once by the live runner: ``LiveSupport.same_state_same_judgement``)."""
    colours = frozenset(ctx.players.values())
    given, symbols = getattr(ctx, "token_values", {}), getattr(ctx, "token_symbols", {})
    layout = board().tower_layout(len(ctx.players))
    first = state.before or state.after   # the photo the towers are taken from (the replay starts there)
    before = reading_of(state.before, colours, given, symbols, layout if first is state.before else None) \
        if state.before else None
    after = reading_of(state.after, colours, given, symbols, layout if first is state.after else None)
    adj = judge_placement(board(), ctx, after, before,
                          unsure_values=frozenset(_doubtful_tokens(state, ctx)))
    extra = _vision_flags(state, adj, ctx)
    if extra:
        adj = replace(adj, flags=adj.flags + tuple(extra),
                      explanation=adj.explanation + tuple(f"flag {f.code}: {f.message}" for f in extra))
    return GenialVerdict.of(adj)


def annotate(frame: Frame, state: GenialState, verdict: GenialVerdict) -> np.ndarray:
    """The mover's chain, the new tile, the towers it links (green: scored now; grey: already scored by this
    chain), '+1' on large towers counted now, every flagged cell outlined (orange: hidden from the camera, red:
    any other flag) and '?' on every token read with doubt. Returns a new RGB image."""
    img = frame.image_rgb.copy()
    cal: Any = frame.calibration
    if cal is None:
        return img
    cfg = GenialVisionConfig()
    pose = state.after.pose
    s = max(1, int(round(max(img.shape[:2]) / 1000)))
    tile_z = cfg.board_top_mm + cfg.tile_thickness_mm
    sizes = {t.qr: t.size for t in state.after.towers}

    def hex_px(cell: Cell, z: float = tile_z, scale: float = 1.0) -> np.ndarray:
        centre = pose.to_board(pose.cell_centres_mm(np.asarray([cell], dtype=np.float64)))[0]
        corners = hexagon_board_mm(centre, scale * pose.pitch_mm / np.sqrt(3.0))
        return np.round(cal.mm_to_px_at_height(pose.to_table(corners), z)).astype(np.int32)

    def top_px(cell: Cell) -> tuple[int, int]:
        z = cfg.board_top_mm + cfg.height(sizes.get(cell, "small")) + cfg.token_thickness_mm
        p = cal.mm_to_px_at_height(pose.cell_centres_mm(np.asarray([cell], dtype=np.float64)), z)[0]
        return int(p[0]), int(p[1])

    for c in verdict.chain:
        cv2.polylines(img, [hex_px(c, scale=0.8)], True, (255, 255, 255), 2 * s, cv2.LINE_AA)
    for q in verdict.result.get("placed", []):
        cv2.polylines(img, [hex_px(tuple(q["qr"]), scale=0.95)], True, (255, 0, 200), 3 * s, cv2.LINE_AA)
    for c in verdict.linked_towers:
        col = (40, 220, 60) if c in verdict.scored_towers else (150, 150, 150)
        cv2.circle(img, top_px(c), 14 * s, col, 3 * s, cv2.LINE_AA)
    for c in verdict.large_new:
        x, y = top_px(c)
        cv2.putText(img, "+1", (x + 12 * s, y - 12 * s), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * s, (0, 0, 0), 4 * s,
                    cv2.LINE_AA)
        cv2.putText(img, "+1", (x + 12 * s, y - 12 * s), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * s, (255, 255, 255), s,
                    cv2.LINE_AA)
    hidden = {tuple(c) for f in verdict.result.get("flags", []) if f.get("code") == "cells_unreadable"
              for c in f.get("cells", [])}
    for c in verdict.flagged:
        cv2.polylines(img, [hex_px(c)], True, (255, 160, 0) if c in hidden else (255, 40, 40), 2 * s, cv2.LINE_AA)
    doubtful = {tuple(c) for f in verdict.result.get("flags", []) if f.get("code") in QUIET
                for c in f.get("cells", [])}
    for t in state.after.towers:
        if t.qr in doubtful:
            x, y = top_px(t.qr)
            cv2.putText(img, "?", (x - 5 * s, y + 6 * s), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * s, (255, 0, 0), 2 * s,
                        cv2.LINE_AA)
    return img


def summary(result: dict) -> str:
    """One line: the placement and its points, or why it was not scored."""
    placed = " ".join(f"({q['qr'][0]},{q['qr'][1]})" for q in result.get("placed", []))
    bad = [f["code"] for f in result.get("flags", []) if f.get("code") in NOT_SCORED]
    if bad:
        return f"not scored ({', '.join(sorted(set(bad)))}): {placed or 'no new hex'}"
    pts = ", ".join(f"{s} +{v}" for s, v in result.get("move_points", {}).items() if v) or "no points"
    return f"{placed}: {pts}"


#: Flags that say the placement itself is not known for sure (its cells, or whose): live play cannot carry it on.
PLACEMENT_UNSURE = ("placement_invalid", "tile_moved_or_missing", "board_disagrees_with_replay", "board_pose")


def live_next_context(context: dict | None, result: dict) -> dict | None:
    """Live play (``LiveSupport.next_context``): the context of the placement after this one - this placement
    appended to ``moves_before`` (with the bonus symbol named for it), the next player in turn order to place,
    the symbol scores after it as ``scores_before`` when the context gave scores. None when the placement is
    not known for sure (``PLACEMENT_UNSURE``) or was not a tile of two hexes."""
    placed = [h.get("qr") for h in result.get("placed", [])]
    if context is None or len(placed) != 2 or any(f.get("code") in PLACEMENT_UNSURE for f in result.get("flags", [])):
        return None
    players = list(context["players"])
    mover = context["mover"]
    move = {"player": mover, "cells": placed}
    if context.get("bonus_symbol"):
        move["bonus_symbol"] = context["bonus_symbol"]
    out = {k: v for k, v in context.items() if k not in ("placed", "bonus_symbol")}
    out.update(mover=players[(players.index(mover) + 1) % len(players)],
               moves_before=list(context.get("moves_before", [])) + [move])
    if "scores_before" in context and isinstance(result.get("symbol_scores"), dict):
        out["scores_before"] = result["symbol_scores"]
    return out


def headline(result: dict) -> dict:
    """The fields two judgements of the same pair must agree on."""
    return {
        "placed": sorted(tuple(q["qr"]) for q in result.get("placed", [])),
        "move_points": dict(sorted(result.get("move_points", {}).items())),
        "symbol_scores": result.get("symbol_scores", {}),
        "not_scored": sorted(f["code"] for f in result.get("flags", []) if f.get("code") in NOT_SCORED),
    }



#: Tiles each player places in a game: the game ends after this many rounds.
ROUNDS = 20


def session_players(context: dict) -> list:
    """The session's players as stored: ``[[name, colour], ...]`` in turn order."""
    players = context.get("players") or {}
    return [[str(n), str(c)] for n, c in players.items()] if isinstance(players, dict) else []


def _history(view: SessionView, context: dict) -> list:
    """The placements before the first recorded one (a game taken into the ledger mid-way), as JSON."""
    if view.summaries:
        return list(view.summaries[0].get("history", []))
    return list(context.get("moves_before") or [])


def _round_summary(view: SessionView, outcome: Outcome, context: dict) -> dict:
    """A recorded placement: who placed which hexes (and the bonus symbol named), the towers as set up (the
    first round's, with the token values the players gave, and the placements before it), what the judge
    scored. Refused when the judgement did not score one clean placement or it is another player's turn."""
    result = outcome.result
    if not result.get("placed") or any(f.get("code") in NOT_SCORED for f in result.get("flags", [])):
        raise ValueError("this judgement does not show one clean placement: correct it or take new photos")
    names = [p[0] for p in view.players]
    mover = context.get("mover")
    history = _history(view, context)
    want = names[(len(history) + len(view.summaries)) % len(names)] if names else None
    if mover != want:
        raise ValueError(f"it is {want}'s turn, not {mover}'s")
    given = {tuple(t["qr"]): int(t["light"]) for t in context.get("token_values") or [] if "light" in t}
    towers = view.summaries[0]["towers"] if view.summaries else [
        {"qr": t["qr"], "size": t["size"], "symbol": t["symbol"],
         "light": given.get(tuple(t["qr"]), int(t["value"]) - (1 if t["dark"] else 0))}
        for t in result.get("towers", [])]
    placement = {"player": mover, "cells": [q["qr"] for q in result["placed"]]}
    if context.get("bonus_symbol"):
        placement["bonus_symbol"] = context["bonus_symbol"]
    out = {"placement": placement, "towers": towers, "move_points": result.get("move_points", {}),
           "judgement": result.get("symbol_scores", {})}
    if not view.summaries:
        out["history"] = history
    return out


def _placements(view: SessionView) -> list:
    return _history(view, {}) + [s["placement"] for s in view.summaries]


def replay_session(view: SessionView):
    """The game replayed (``scoring.genial``): the set-up's towers as read on the first round, then every
    placement in order (those before the first recorded one included)."""
    from scoring.genial import GameSetup, Placement

    colours = {p[0]: p[1] for p in view.players}
    towers = tuple(Tower.from_json(t) for t in view.summaries[0]["towers"]) if view.summaries else ()
    return GameSetup(colours, towers).replay(board(), [Placement.from_json(m) for m in _placements(view)])


def _standings(view: SessionView) -> Standings:
    """Each player's four symbol scores and lowest, replayed; the game ends when everyone has placed 20 tiles."""
    from scoring.genial import rank_by_lowest

    names = [p[0] for p in view.players]
    n = len(_placements(view))
    caption = f"round {n // max(1, len(names)) + 1} of {ROUNDS}: {n} placement(s)"
    if not view.summaries:
        return Standings(tuple({"player": p, "lowest": 0} for p in names), caption)
    game = replay_session(view)
    order, _ties = rank_by_lowest(game.scores, names)
    rows = tuple({"player": p, **game.scores[p], "lowest": min(game.scores[p].values())} for p in order)
    if n < ROUNDS * len(names):
        return Standings(rows, caption)
    end = {"ranking": order, "symbol_scores": {p: dict(game.scores[p]) for p in names}}
    return Standings(rows, f"game over after {ROUNDS} rounds", True, end, f"Game over: {order[0]} wins")


def next_context(view: SessionView) -> dict:
    """The context of the next placement of a running game: players, mover, earlier placements, scores, and the
    token values kept from the first round."""
    names = [p[0] for p in view.players]
    moves = _placements(view)
    ctx: dict = {"players": {p[0]: p[1] for p in view.players},
                 "mover": names[len(moves) % len(names)] if names else "", "moves_before": moves}
    if view.summaries:
        game = replay_session(view)
        ctx["scores_before"] = {p: dict(game.scores[p]) for p in names}
        ctx["token_values"] = [{"qr": t["qr"], "light": t["light"], "symbol": t["symbol"]}
                               for t in view.summaries[0]["towers"]]
    return ctx


SESSION = SessionRules(
    title="Game",
    players=session_players,
    standings=_standings,
    actions=(RoundAction("ge-add", "Record this placement", _round_summary),),
    key_prefix="ge",
    undo_label="Undo the last placement",
)


PLUGIN = GamePlugin(
    name="genial",
    title="Genial Spezial (頭脳絶好調スペシャル)",
    parse_context=parse_context,
    detect=detect,
    state_from_json=state_from_json,
    adjudicate=adjudicate,
    adjudication_from_json=GenialVerdict.from_json,
    annotate=annotate,
    summary=summary,
    headline=headline,
    photos="2 (before, after), or 1 (after) with 'placed' in the context",
    ui_module="ui.games.genial",
    session=SESSION,
    camera_resolution="1080p",
    order=50,
    marker_layout=marker_layout,
    live=LiveSupport(before="previous", change_codes=("tile_moved_or_missing",), detect_warm=live_detect,  # live2
                     next_context=live_next_context, vote_ignores=LIVE_VOTE_IGNORES, same_state_same_judgement=True),
)
SPEC = PLUGIN
