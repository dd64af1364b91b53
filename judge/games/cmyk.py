"""CMYK!'s plugin: one photo per player -> mosaics -> ``scoring.cmyk`` -> typed judgement, overlay."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from core.errors import BadInput, CannotJudge
from core.records import ContractRecord
from core.timing import StageTimer
from geometry import trilattice as tl
from geometry.mosaic import hexagon_vertices
from judge.plugin import Frame, GamePlugin, LiveSupport
from judge.session import Choice, RoundAction, SessionRules, SessionView, Standings
from scoring import cmyk as cmyk_rules
from scoring.cmyk_state import MosaicState
from scoring.flags import Flag
from vision.cmyk import CmykVisionConfig, MosaicDetection, MosaicMiss, detect_mosaic, read_mosaic
from vision.cmyk_overlay import draw_unread

EDGE_MM = 45.0
#: Tile confidences are scaled by this without markers (frame and colour reference from the tiles alone):
#: measured less accurate (tools/eval_cmyk.py --markerless), so more readings are flagged for a check.
MARKERLESS_CONFIDENCE = 0.7


@dataclass(frozen=True)
class CmykPhotoContext:
    """A validated CMYK! context as the judge uses it: the rules' context and how to read the photos.

    Attributes
    ----------
    rules : scoring.cmyk_options.CmykContext
        Players, cards, answers and options (``scoring.cmyk.parse_context``), parsed once.
    horizontal_deg : float
        Photo direction taken as the mosaics' horizontal (degrees counter-clockwise from image x); 0 default.
    """

    rules: cmyk_rules.CmykContext
    horizontal_deg: float = 0.0

    @property
    def player_names(self) -> tuple[str, ...]:
        """In photo order."""
        return tuple(p.name for p in self.rules.players)


@dataclass(frozen=True)
class CmykGameState:
    """Every player's mosaic, in context (photo) order.

    Attributes
    ----------
    mosaics : tuple[MosaicState, ...]
    players : tuple[str, ...]
    sources : tuple[str, ...]
        The photo of each mosaic (to draw overlays on the right one).
    frames_mm : tuple[dict | None, ...]
        Each mosaic's lattice frame on the table: ``origin_mm``, ``right``, ``up``, ``edge_mm``.
    """

    mosaics: tuple[MosaicState, ...]
    players: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    frames_mm: tuple = field(default_factory=tuple)

    def to_json(self) -> dict:
        out = []
        for k, m in enumerate(self.mosaics):
            obj = m.to_json()
            obj["player"] = self.players[k] if k < len(self.players) else f"player{k + 1}"
            if k < len(self.sources):
                obj["source"] = self.sources[k]
            if k < len(self.frames_mm) and self.frames_mm[k] is not None:
                obj["lattice_frame"] = self.frames_mm[k]
            out.append(obj)
        return {"game": "cmyk", "mosaics": out}

    @classmethod
    def from_json(cls, obj: dict) -> CmykGameState:
        if "mosaics" not in obj and "tiles" in obj:
            obj = {"mosaics": [obj]}
        ms = obj["mosaics"]
        if not isinstance(ms, list):
            raise ValueError("mosaics: expected a list")
        return cls(
            mosaics=tuple(MosaicState.from_json(m) for m in ms),
            players=tuple(str(m.get("player", f"player{k + 1}")) for k, m in enumerate(ms)),
            sources=tuple(str(m.get("source", "")) for m in ms),
            frames_mm=tuple(m.get("lattice_frame") for m in ms),
        )


@dataclass(frozen=True)
class CmykAdjudication(ContractRecord):
    """A CMYK! judgement of every player's mosaic (``scoring.cmyk``), typed; ``to_json`` is the CLI contract.

    Attributes
    ----------
    players : dict[str, dict]
        Per player (context order): ``tiles``, ``hexagons``, ``k_tiles``, ``illegal_contacts``,
        ``illegal_contact_cells`` ({cells, direction, reason} each), ``breakdown``, ``total``, ``geometry``
        (``hexagons`` vertex ids, ...), ``cards_counted``, ``total_alternatives``, ``total_range``.
    ranking : tuple[str, ...]
    places : dict[str, int]
    scores : dict[str, int]
    flags : tuple[dict, ...]
        The detectors' doubts (named by player) first, then the rules'.
    explanation : tuple[str, ...]
    cards_resolved : tuple[dict, ...]
    decisions : dict
    game : str
    """

    players: dict[str, dict]
    ranking: tuple[str, ...]
    places: dict[str, int]
    scores: dict[str, int]
    flags: tuple[dict, ...] = ()
    explanation: tuple[str, ...] = ()
    cards_resolved: tuple[dict, ...] = ()
    decisions: dict = field(default_factory=dict)
    game: str = "cmyk"

    ORDER = ("game", "players", "ranking", "places", "scores", "flags", "explanation", "cards_resolved", "decisions")


def parse_context(ctx: dict | None) -> CmykPhotoContext:
    """Validate the context (``BadInput`` naming the field): players, cards, answers and options."""
    if ctx is None:
        raise BadInput("cmyk needs a context: {\"players\": [{\"name\", \"personal_card\"}], \"public_cards\": [...]}")
    try:
        scoring_ctx = cmyk_rules.parse_context(ctx)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    hd = ctx.get("horizontal_deg", 0.0)
    if isinstance(hd, bool) or not isinstance(hd, (int, float)):
        raise BadInput(f"horizontal_deg: expected a number of degrees, got {hd!r}")
    return CmykPhotoContext(rules=scoring_ctx, horizontal_deg=float(hd))


def detect(frames: list[Frame], ctx: CmykPhotoContext, timer: StageTimer,
           config: CmykVisionConfig = CmykVisionConfig()) -> CmykGameState:
    """One photo per player (context order) -> every mosaic.

    Raises
    ------
    BadInput
        Photo count differs from the player count.
    CannotJudge
        A photo without tiles, or without markers where the tile lattice gives no frame either.
    """
    return _detect(frames, ctx, timer, config)[0]


def _detect(frames: list[Frame], ctx: CmykPhotoContext, timer: StageTimer, config: CmykVisionConfig,
            carried: tuple[tuple[tl.TriangleLattice, tuple[Flag, ...]], ...] | None = None
            ) -> tuple[CmykGameState, tuple[MosaicDetection, ...]]:
    """:func:`detect`, and each photo's detection; ``carried``: per photo, the lattice frame (and its flags) of
    an earlier frame of the same still scene, read on instead of fitted again (photos with markers only)."""
    if len(frames) != len(ctx.player_names):
        raise BadInput(f"cmyk takes one photo per player: {len(ctx.player_names)} players "
                       f"({', '.join(ctx.player_names)}) but {len(frames)} photos")
    mosaics, frames_mm, dets = [], [], []
    for k, (name, fr) in enumerate(zip(ctx.player_names, frames, strict=True)):
        cal: Any = fr.calibration  # TableCalibration, or the tiles' own LatticeCalibration
        extra: list[Flag] = []
        if cal is None:
            from vision.cmyk_markerless import lattice_calibration  # noqa: PLC0415  (without markers only)

            with timer.stage("markerless"):
                cal = lattice_calibration(
                    fr.image_rgb, lambda img, c: detect_mosaic(img, c, None, config, ctx.horizontal_deg))
            if cal is None:
                raise CannotJudge(f"{name}'s photo: no table frame ({fr.calibration_error}) and no tile lattice "
                                  "to measure from; photograph the mosaic with the four markers in view")
            extra.append(Flag("markerless", f"no calibration markers: the table frame comes from the tiles "
                              f"themselves (lattice fit residual {cal.residual_mm:.1f} mm)",
                              {"cells": [], "residual_mm": round(float(cal.residual_mm), 2)}))
        used = config if fr.calibration is not None else replace(config, confidence_scale=MARKERLESS_CONFIDENCE)
        det = read_mosaic(fr.image_rgb, cal, timer, used, ctx.horizontal_deg,
                          carried=carried[k] if carried is not None and fr.calibration is not None else None)
        if isinstance(det, MosaicMiss):
            raise CannotJudge(f"{name}'s photo: {det.message}")
        if not det.state.tiles:
            raise CannotJudge(f"{name}'s photo: {MosaicMiss('no_tiles').message}")
        dets.append(det)
        mosaics.append(MosaicState(tiles=det.state.tiles, flags=tuple(extra) + det.state.flags))
        f = det.frame
        fm = {"origin_mm": [round(float(v), 3) for v in f.origin_mm], "right": [round(float(v), 6) for v in f.right],
              "up": [round(float(v), 6) for v in f.up], "edge_mm": f.edge_mm}
        if fr.calibration is None:
            fm["H_px_from_mm"] = np.asarray(cal.H_px_from_mm).tolist()
        frames_mm.append(fm)
    state = CmykGameState(mosaics=tuple(mosaics), players=ctx.player_names,
                          sources=tuple(fr.source for fr in frames), frames_mm=tuple(frames_mm))
    return state, tuple(dets)


@dataclass(frozen=True)
class WarmConfig:
    """Tunables of the warm live read (:func:`live_detect`).

    Attributes
    ----------
    max_confidence_drop : float
        A later frame read on the carried lattice is kept only when its tiles' mean confidence is at most this
        much below the first frame's (per photo). On rendered clips (noise, flicker) still frames stay within
        0.016 of it; a mosaic pushed by 2-4 mm, which a carried lattice misreads, falls by 0.09 to 0.6.
    """

    max_confidence_drop: float = 0.03


WARM = WarmConfig()


@dataclass(frozen=True)
class CmykCarry:
    """What the first reading frame of a still scene found, for the later ones (``live_detect``).

    Attributes
    ----------
    calibrations : tuple
        Each photo's calibration (a new one means a new scene: nothing carries).
    lattices : tuple[(TriangleLattice, tuple[Flag, ...]), ...]
        Each photo's lattice frame and the flags of its fit.
    readings : tuple
        Each photo's tile cells (:func:`_tile_keys`): a later frame read on the carried lattice must find the
        same cells, else it is detected from scratch.
    confidences : tuple[float, ...]
        Each photo's mean tile confidence (:func:`_mean_confidences`): a later frame's may not fall by more
        than ``WarmConfig.max_confidence_drop`` (a lattice that no longer fits reads worse).
    """

    calibrations: tuple
    lattices: tuple[tuple[tl.TriangleLattice, tuple[Flag, ...]], ...]
    readings: tuple
    confidences: tuple[float, ...]


def _tile_keys(dets: tuple[MosaicDetection, ...]) -> tuple:
    """Where each photo's tiles lie: their lattice cells, in order (what a lattice that no longer fits, a mosaic
    moved or a tile added or taken changes; colours and marks are read again on every frame and voted on)."""
    return tuple(tuple(sorted(t.cell for t in det.state.tiles)) for det in dets)


def _mean_confidences(dets: tuple[MosaicDetection, ...]) -> tuple[float, ...]:
    """Each photo's mean tile confidence."""
    return tuple(float(np.mean([t.confidence for t in det.state.tiles])) for det in dets)


def _still_fits(dets: tuple[MosaicDetection, ...], carry: CmykCarry, warm: WarmConfig) -> bool:
    """The tiles read on the carried lattices lie in the first frame's cells, read about as surely."""
    return _tile_keys(dets) == carry.readings and all(
        now >= first - warm.max_confidence_drop
        for now, first in zip(_mean_confidences(dets), carry.confidences, strict=True))


def live_detect(frames: list[Frame], ctx: CmykPhotoContext, timer: StageTimer,
                carry: CmykCarry | None) -> tuple[CmykGameState, CmykCarry | None]:
    """``LiveSupport.detect_warm``: the first reading frame of a still scene runs :func:`detect` and carries each
    photo's lattice frame; a later one reads the tiles on that lattice (skipping its fit), and keeps that reading
    only when it finds tiles in exactly the cells the first frame did, read about as surely (``WarmConfig``): a
    mosaic moved, a tile added or taken, or a photo without markers, is detected from scratch (as :func:`detect`).
    """
    config = CmykVisionConfig()
    cals = tuple(fr.calibration for fr in frames)
    if carry is not None and len(cals) == len(carry.calibrations) \
            and all(c is not None and c is k for c, k in zip(cals, carry.calibrations, strict=True)):
        try:
            state, dets = _detect(frames, ctx, timer, config, carried=carry.lattices)
        except CannotJudge:
            pass
        else:
            if _still_fits(dets, carry, WARM):
                return state, carry
    state, dets = _detect(frames, ctx, timer, config)
    if any(c is None for c in cals):
        return state, None
    return state, CmykCarry(cals, tuple((d.frame, d.lattice_flags) for d in dets), _tile_keys(dets),
                            _mean_confidences(dets))


def adjudicate(state: CmykGameState, ctx: CmykPhotoContext) -> CmykAdjudication:
    """Score every mosaic with ``scoring.cmyk`` (context options honoured) and add the detectors' flags."""
    result = cmyk_rules.adjudicate_mosaics(list(state.mosaics), ctx.rules)
    det_flags = []
    for name, m in zip(ctx.player_names, state.mosaics):
        for f in m.flags:
            det_flags.append({**f.to_json(), "player": name, "message": f"{name}: {f.message}"})
    result["flags"] = det_flags + list(result.get("flags", []))
    if det_flags:
        result.setdefault("explanation", []).append(
            f"The camera reading has {len(det_flags)} doubt(s) listed in flags; check those tiles before accepting.")
    result["game"] = "cmyk"
    return CmykAdjudication.from_json(result)


def _hexagon_vertices(cells: set) -> list[tuple[int, int]]:
    """The completed hexagons' vertices (the rules' own, ``geometry.mosaic.hexagon_vertices``), sorted."""
    return sorted(hexagon_vertices(cells))


def annotate(frame: Frame, state: CmykGameState, adj: CmykAdjudication) -> np.ndarray:
    """The mosaic of this frame's player drawn on a copy of the photo, as judged.

    Tiles outlined with their read levels (C/M/Y digits near each edge; K tiles "K"), the hexagons the
    rules counted circled, the illegal contacts the rules found in red, doubtful tiles (low confidence or
    flagged) crossed in orange.
    """
    img = frame.image_rgb.copy()
    if not state.mosaics:
        return img
    k = len(state.mosaics) - 1
    if frame.source and frame.source in state.sources:
        k = state.sources.index(frame.source)
    fm = state.frames_mm[k] if k < len(state.frames_mm) else None
    if fm is None:
        return img
    mosaic = state.mosaics[k]
    player = state.players[k] if k < len(state.players) else None
    judged = adj.players.get(player, {}) if player is not None else {}
    cal: Any = frame.calibration
    if "H_px_from_mm" in fm:
        from vision.cmyk_markerless import LatticeCalibration  # noqa: PLC0415  (a markerless photo's only)

        cal = LatticeCalibration(H_px_from_mm=np.asarray(fm["H_px_from_mm"], np.float64), image_size=(0, 0),
                                 colour=None, search_region_mm=(0, 0, 0, 0))  # type: ignore[arg-type]
    if cal is None:
        return img
    z = 3.0

    def to_px(xy_lat):
        xy = tl.lattice_to_table(xy_lat, np.array(fm["origin_mm"]), np.array(fm["right"]), np.array(fm["up"]))
        if hasattr(cal, "mm_to_px_at_height"):
            return np.asarray(cal.mm_to_px_at_height(xy, z), np.float64)
        return cal.mm_to_px(xy)

    e = float(fm.get("edge_mm", EDGE_MM))
    doubtful = {tuple(c) for f in mosaic.flags for c in f.data.get("cells", [])}
    scale = max(0.35, min(img.shape[:2]) / 2400)
    ink_rgb = {"cyan": (120, 230, 255), "magenta": (255, 120, 210), "yellow": (255, 240, 80)}
    for t in mosaic.tiles:
        v = to_px(tl.cell_vertices(*t.cell, e))
        cv2.polylines(img, [np.round(v).astype(np.int32)], True, (255, 255, 255), 1, cv2.LINE_AA)
        c = np.array(tl.cell_centroid(*t.cell, e))
        if t.kind == "k":
            p = to_px(c[None])[0]
            cv2.putText(img, "K", (int(p[0]) - 4, int(p[1]) + 4), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1,
                        cv2.LINE_AA)
        for d, er in t.edges.items():
            if er.level is None:
                continue
            a, b = tl.edge_endpoints(*t.cell, d, e)
            p = to_px((c * 0.55 + (a + b) / 2 * 0.45)[None])[0]
            org = (int(p[0]) - 4, int(p[1]) + 5)
            cv2.putText(img, str(er.level), org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(img, str(er.level), org, cv2.FONT_HERSHEY_SIMPLEX, scale,
                        ink_rgb.get(er.colour, (255, 255, 255)), 1, cv2.LINE_AA)
        if t.cell in doubtful or t.confidence < 0.6:
            q = to_px(np.array([c + [-5, -5], c + [5, 5], c + [-5, 5], c + [5, -5]]))
            q = np.round(q).astype(np.int32)
            cv2.line(img, tuple(q[0]), tuple(q[1]), (255, 140, 0), 2, cv2.LINE_AA)
            cv2.line(img, tuple(q[2]), tuple(q[3]), (255, 140, 0), 2, cv2.LINE_AA)
    h = tl.row_height(e)
    for (kk, ll) in judged.get("geometry", {}).get("hexagons", []):
        ring = np.array([[kk * e / 2 + e * 0.8 * np.cos(a), ll * h + e * 0.8 * np.sin(a)]
                         for a in np.linspace(0, 2 * np.pi, 7)[:-1]])
        cv2.polylines(img, [np.round(to_px(ring)).astype(np.int32)], True, (40, 220, 40), 2, cv2.LINE_AA)
    img = draw_unread(img, mosaic)
    for contact in judged.get("illegal_contact_cells", []):
        i, j = contact["cells"][0]
        ab = to_px(tl.edge_endpoints(i, j, contact["direction"], e))
        cv2.line(img, tuple(np.round(ab[0]).astype(int)), tuple(np.round(ab[1]).astype(int)), (255, 0, 0), 3,
                 cv2.LINE_AA)
    return img


def live_photos(context: dict | None) -> tuple[tuple[str, dict], ...]:
    """``LiveSupport.per_photo``: in live mode each player's mosaic is shown to the camera in turn, in the
    context's player order, and read alone with that player as the only one; the table is judged once all are."""
    players = (context or {}).get("players") or []
    return tuple((f"{p.get('name')}'s mosaic", {**(context or {}), "players": [p]}) for p in players)


def _state_from_json(obj: dict) -> CmykGameState:
    return CmykGameState.from_json(obj)


def summary(result: dict) -> str:
    """The ranking."""
    return " > ".join(result.get("ranking", []))


def headline(result: dict) -> dict:
    """The scores."""
    return {"scores": result.get("scores")}


#: Series modes on the page: label -> ``scoring.cmyk_series`` standing.
SERIES_MODES = {"3 games (1st 2 VP, 2nd 1 VP)": "three_games", "cumulative to 40": "cumulative"}


def _standings(view: SessionView) -> Standings:
    """The series standings replayed from the recorded games (``scoring.cmyk_series``)."""
    from scoring.cmyk_series import cumulative, three_games  # noqa: PLC0415

    mode = view.settings.get("mode", "three_games")
    caption = f"{mode.replace('_', ' ')}: {len(view.summaries)} game(s) recorded"
    if not view.summaries:
        return Standings((), caption)
    standing = {"three_games": three_games, "cumulative": cumulative}[mode]([s["result"] for s in view.summaries])
    rows = tuple({"player": p, "series points": standing.points.get(p, 0)} for p in standing.ranking)
    if not standing.finished:
        return Standings(rows, caption)
    return Standings(rows, caption, True, standing.to_json(), "Last series won by " + " and ".join(standing.leaders))


SESSION = SessionRules(
    title="Series",
    players=lambda context: [p.get("name") for p in context.get("players", [])],
    standings=_standings,
    actions=(RoundAction("cm-add", "Add this game to the series",
                         lambda view, outcome, context: {"result": outcome.result}),),
    key_prefix="cm",
    settings=lambda context, chosen: {"mode": chosen.get("cm-mode", "three_games")},
    choices=(Choice("cm-mode", "Series mode", SERIES_MODES),),
    start_label="Start a series with these players",
    undo_label="Undo the last game",
)


PLUGIN = GamePlugin(
    name="cmyk",
    title="CMYK!",
    parse_context=parse_context,
    detect=detect,
    state_from_json=_state_from_json,
    adjudicate=adjudicate,
    adjudication_from_json=CmykAdjudication.from_json,
    annotate=annotate,
    summary=summary,
    headline=headline,
    photos="1 per player, in the context's player order",
    ui_module="ui.games.cmyk",
    session=SESSION,
    camera_resolution="1080p",
    order=30,
    live=LiveSupport(detect_warm=live_detect, per_photo=live_photos),
)
SPEC = PLUGIN

__all__ = ["PLUGIN", "SPEC", "CmykAdjudication", "CmykPhotoContext", "CmykGameState", "Flag", "detect", "parse_context",
           "adjudicate", "annotate"]
