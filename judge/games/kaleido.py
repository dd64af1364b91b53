"""Kaleido's plugin: context, detection, the typed judgement, overlay, tile-colour registration."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from core.errors import BadInput, CannotJudge
from core.records import ContractRecord
from core.timing import StageTimer
from geometry.hexboards import board_cells, board_corners
from judge.plugin import Frame, GamePlugin, LiveSupport, Registration
from judge.session import Outcome, RoundAction, SessionRules, SessionView, Standings
from scoring.kaleido import KaleidoContext, KaleidoState
from scoring.kaleido import adjudicate as rules


@dataclass(frozen=True)
class KaleidoAdjudication(ContractRecord):
    """A Kaleido judgement (``scoring.kaleido.adjudicate``), typed; ``to_json`` is the CLI contract.

    Attributes
    ----------
    mode : str
        ``"final"`` (junction hexagons and full boards), ``"board"`` or ``"since"`` (boards filled since).
    scores : dict[str, int]
        Points per player this judgement awards.
    complete_hexagons, junction_hexagons : int
        Junction hexagons complete / seen.
    hexagons : tuple[dict, ...]
        Complete ones: ``cells`` [[board, cell] x 6], ``colours``, ``points``, ``points_by_colour``, ``vertex_mm``.
    incomplete_hexagons : tuple[dict, ...]
        ``cells``, ``empty`` cells, ``vertex_mm``.
    full_boards : int
    board_points : dict[str, int]
    boards : tuple[dict, ...]
        Per board: ``index``, ``full``, ``points``, ``empty`` cells.
    scored_boards : tuple[int, ...]
    flags : tuple[dict, ...]
    explanation : tuple[str, ...]
    decisions : dict
    game : str
    """

    mode: str
    scores: dict[str, int]
    complete_hexagons: int
    junction_hexagons: int
    hexagons: tuple[dict, ...]
    incomplete_hexagons: tuple[dict, ...]
    full_boards: int
    board_points: dict[str, int]
    boards: tuple[dict, ...]
    scored_boards: tuple = ()
    flags: tuple[dict, ...] = ()
    explanation: tuple[str, ...] = ()
    decisions: dict = field(default_factory=dict)
    game: str = "kaleido"

    ORDER = ("game", "mode", "scores", "complete_hexagons", "junction_hexagons", "hexagons", "incomplete_hexagons",
             "full_boards", "board_points", "boards", "scored_boards", "flags", "explanation", "decisions")

TILE_DRAW_RGB = {
    "red": (230, 40, 45), "yellow": (250, 210, 30), "green": (40, 170, 70), "blue": (40, 90, 220),
    "purple": (140, 60, 180), "white": (250, 250, 250),
}


def parse_context(obj: dict | None) -> KaleidoContext:
    """Validate a Kaleido context JSON object.

    Fields (all optional): ``players`` {name: [colour, ...]}, ``board`` (int, score only that
    board), ``previous_state`` (a state JSON: score the boards filled since), ``lone_first``
    (8 or 12; also accepted as ``decisions.lone_first``).

    Raises
    ------
    BadInput
        Naming the bad field.
    """
    if obj is None:
        return KaleidoContext()
    if not isinstance(obj, dict):
        raise BadInput("context: expected a JSON object")
    players = None
    if obj.get("players") is not None:
        raw = obj["players"]
        if not isinstance(raw, dict) or not raw:
            raise BadInput('context field "players": expected {"name": ["colour", ...], ...}')
        seen: dict[str, str] = {}
        items = []
        for name, cols in raw.items():
            if isinstance(cols, str):
                cols = [cols]
            if not isinstance(cols, list) or not cols or not all(isinstance(c, str) and c for c in cols):
                raise BadInput(f'context field "players.{name}": expected a list of colour names')
            for c in cols:
                if c == "white":
                    raise BadInput(f'context field "players.{name}": white is neutral and belongs to nobody')
                if c in seen:
                    raise BadInput(f'context field "players": colour {c} given to both {seen[c]} and {name}')
                seen[c] = name
            items.append((str(name), tuple(cols)))
        players = tuple(items)
    board = obj.get("board")
    if board is not None and (isinstance(board, bool) or not isinstance(board, int) or board < 0):
        raise BadInput('context field "board": expected a board number (0, 1, ...)')
    prev = None
    if obj.get("previous_state") is not None:
        try:
            prev = KaleidoState.from_json(obj["previous_state"])
        except (KeyError, ValueError, TypeError) as exc:
            raise BadInput(f'context field "previous_state": not a Kaleido state ({exc})') from None
    lone = obj.get("lone_first", (obj.get("decisions") or {}).get("lone_first", 8))
    if lone not in (8, 12):
        raise BadInput('context field "lone_first": expected 8 or 12')
    return KaleidoContext(players=players, board=board, previous_state=prev, lone_first=int(lone))


def detect(frames: list[Frame], ctx: KaleidoContext, timer: StageTimer) -> KaleidoState:
    """Photo -> Kaleido state (the last photo is judged).

    Raises
    ------
    CannotJudge
        No boards, or no table frame at all.
    """
    from dataclasses import replace

    from vision.kaleido import KaleidoVisionConfig, detect_kaleido
    from vision.kaleido_markerless import MarkerlessConfig, detect_markerless

    if not frames:
        raise BadInput("no photo given")
    frame = frames[-1]
    config = KaleidoVisionConfig(palette_rgb=registered_palette(frame))
    if frame.calibration is not None:
        return detect_kaleido(frame.image_rgb, frame.calibration, config, timer=timer).state
    ml = MarkerlessConfig()
    ml = replace(ml, vision=config, first_pass=replace(ml.first_pass, palette_rgb=config.palette_rgb))
    return detect_markerless(frame.image_rgb, ml, timer=timer, why=frame.calibration_error).state


def live_detect(frames: list[Frame], ctx: KaleidoContext, timer: StageTimer, carry: Any) -> tuple[KaleidoState, Any]:
    """``LiveSupport.detect_warm``: the first reading frame of a still scene runs :func:`detect` and carries its
    lattice fit and boards (``vision.kaleido_warm.KaleidoCarry``); the later ones re-read the boards' holes on
    that lattice, after checking that every board still looks as it did (else :func:`detect` again).
    Markerless frames are always detected from scratch (nothing carried).
    """
    from vision.kaleido import KaleidoVisionConfig
    from vision.kaleido_warm import detect_carried, detect_cold

    if not frames:
        raise BadInput("no photo given")
    frame = frames[-1]
    if frame.calibration is None:
        return detect(frames, ctx, timer), None
    if carry is not None:
        state = detect_carried(frame.image_rgb, frame.calibration, carry, timer)
        if state is not None:
            return state, carry
    config = KaleidoVisionConfig(palette_rgb=registered_palette(frame))
    det, new = detect_cold(frame.image_rgb, frame.calibration, config, timer)
    return det.state, new


def registered_palette(frame: Frame) -> tuple[tuple[str, tuple[float, float, float]], ...] | None:
    """Tile colours registered in a calibration profile (``profile.colours["kaleido"]``, normalised
    0-1 against marker black / paper white), as the recognizer's 0-255 palette; None: defaults.

    The profile is looked for on the frame, then on its calibration (``profile`` attribute).
    """
    profile = getattr(frame, "profile", None) or getattr(frame.calibration, "profile", None)
    colours = (getattr(profile, "colours", None) or {}).get("kaleido") if profile is not None else None
    if not colours:
        return None
    return tuple((str(k), (float(rgb[0]) * 255.0, float(rgb[1]) * 255.0, float(rgb[2]) * 255.0))
                 for k, rgb in colours.items())


def state_from_json(obj: dict) -> KaleidoState:
    """Inverse of ``KaleidoState.to_json`` (also reads a truth file or its ``scene``)."""
    if not isinstance(obj, dict) or not ("boards" in obj or "scene" in obj):
        raise BadInput('state: expected a Kaleido state with "boards"')
    return KaleidoState.from_json(obj)


def adjudicate(state: KaleidoState, ctx: KaleidoContext) -> KaleidoAdjudication:
    """The judgement (see ``scoring.kaleido.adjudicate``), typed."""
    return KaleidoAdjudication.from_json(rules(state, ctx))


def _to_px(frame: Frame, state: KaleidoState, xy_mm: np.ndarray, z_mm: float = 2.0) -> np.ndarray:
    pts = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    cal = frame.calibration
    if cal is not None:
        if hasattr(cal, "mm_to_px_at_height"):
            return np.asarray(cal.mm_to_px_at_height(pts, z_mm), dtype=np.float64)
        return np.asarray(cal.mm_to_px(pts), dtype=np.float64)
    H = getattr(state, "h_px_from_mm", None)
    if H is None:
        return pts
    Hm = np.asarray(H, dtype=np.float64)
    hom = pts @ Hm[:, :2].T + Hm[:, 2]
    return hom[:, :2] / hom[:, 2:3]


def annotate(frame: Frame, state: KaleidoState, adj: KaleidoAdjudication) -> np.ndarray:
    """Boards, every cell's reading, complete hexagons outlined with their points, incomplete dimmed (as judged).

    Returns a new RGB uint8 image.
    """
    img = frame.image_rgb.copy()
    scale = max(1, int(round(max(img.shape[:2]) / 1000)))
    e = state.edge_mm
    dim = img.copy()
    for h in adj.incomplete_hexagons:
        for b, k in h["cells"]:
            bd = state.boards[b]
            tri = board_cells(bd.centre_mm, bd.rotation_deg, e)[k]
            cv2.fillPoly(dim, [np.round(_to_px(frame, state, tri)).astype(np.int32)], (20, 20, 20))
    img = cv2.addWeighted(img, 0.65, dim, 0.35, 0)
    for i, bd in enumerate(state.boards):
        hexagon = _to_px(frame, state, board_corners(bd.centre_mm, bd.rotation_deg, e))
        colour = (255, 255, 255) if bd.on_lattice else (255, 60, 0)
        cv2.polylines(img, [np.round(hexagon).astype(np.int32)], True, colour, scale, cv2.LINE_AA)
        tris = board_cells(bd.centre_mm, bd.rotation_deg, e)
        for k in range(6):
            c = _to_px(frame, state, tris[k].mean(axis=0, keepdims=True))[0]
            name = bd.cells[k]
            p = (int(round(c[0])), int(round(c[1])))
            r = 7 * scale
            if name is None:
                cv2.circle(img, p, r, (0, 0, 0), scale + 1, cv2.LINE_AA)
                cv2.circle(img, p, r, (255, 255, 255), scale, cv2.LINE_AA)
            else:
                cv2.circle(img, p, r, TILE_DRAW_RGB.get(name, (128, 128, 128)), -1, cv2.LINE_AA)
                cv2.circle(img, p, r, (0, 0, 0), scale, cv2.LINE_AA)
            if bd.confidences[k] < 0.6:
                cv2.putText(img, "?", (p[0] + r, p[1] - r), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (255, 0, 0),
                            2 * scale, cv2.LINE_AA)
        cen = _to_px(frame, state, np.asarray(bd.centre_mm)[None])[0]
        cv2.putText(img, str(i), (int(cen[0]) - 6 * scale, int(cen[1]) + 5 * scale), cv2.FONT_HERSHEY_SIMPLEX,
                    0.5 * scale, (0, 0, 0), 3 * scale, cv2.LINE_AA)
        cv2.putText(img, str(i), (int(cen[0]) - 6 * scale, int(cen[1]) + 5 * scale), cv2.FONT_HERSHEY_SIMPLEX,
                    0.5 * scale, (255, 255, 255), scale, cv2.LINE_AA)
    for f in state.flags:  # places that look like part of a board: drawn, not dropped
        for place in f.data.get("places", []) if f.code == "boards_partly_seen" else []:
            ring = _to_px(frame, state, board_corners(place["centre_mm"], place["rotation_deg"], e))
            cv2.polylines(img, [np.round(ring).astype(np.int32)], True, (255, 0, 0), 2 * scale, cv2.LINE_AA)
            c = _to_px(frame, state, np.asarray(place["centre_mm"], dtype=np.float64)[None])[0]
            cv2.putText(img, "?", (int(c[0]) - 6 * scale, int(c[1]) + 8 * scale), cv2.FONT_HERSHEY_SIMPLEX,
                        0.9 * scale, (255, 0, 0), 2 * scale, cv2.LINE_AA)
    for h in adj.hexagons:
        outline = []
        for b, k in h["cells"]:
            bd = state.boards[b]
            corners = board_corners(bd.centre_mm, bd.rotation_deg, e)
            outline += [bd.centre_mm, corners[k], corners[(k + 1) % 6]]
        pts = np.asarray(outline, dtype=np.float64)
        centre = np.asarray(h["vertex_mm"], dtype=np.float64)
        ang = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
        far = np.linalg.norm(pts - centre, axis=1) > 0.5 * e
        ring = pts[far][np.argsort(ang[far])]
        cv2.polylines(img, [np.round(_to_px(frame, state, ring)).astype(np.int32)], True, (255, 215, 0),
                      3 * scale, cv2.LINE_AA)
        text = " ".join(f"{k[:3]}{v}" for k, v in h["points"].items()) or "0"
        c = _to_px(frame, state, centre[None])[0]
        cv2.putText(img, text, (int(c[0]) - 30 * scale, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.55 * scale,
                    (0, 0, 0), 4 * scale, cv2.LINE_AA)
        cv2.putText(img, text, (int(c[0]) - 30 * scale, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.55 * scale,
                    (255, 215, 0), scale, cv2.LINE_AA)
    return img


def summary(result: dict) -> str:
    """Complete hexagons and full boards."""
    return (f"{result.get('complete_hexagons', 0)} complete hexagon(s), "
            f"{result.get('full_boards', 0)} full board(s)")


def headline(result: dict) -> dict:
    """Complete hexagons and scores."""
    return {k: result.get(k) for k in ("complete_hexagons", "scores")}


def register(image_rgb: np.ndarray, calibration, profile, options: dict) -> Registration:
    """The user's tile colours (one board filled with one tile of each colour) into the profile."""
    from judge.register_colours import register_into_profile  # noqa: PLC0415

    try:
        new = register_into_profile("kaleido", image_rgb, calibration, profile)
    except ValueError as exc:
        raise CannotJudge(str(exc)) from None
    return Registration(new, {"colours": {k: [round(float(v), 1) for v in rgb]
                                          for k, rgb in new.colours["kaleido"].items()}})


def _session_players(context: dict) -> list:
    return [[str(name), list(colours)] for name, colours in (context.get("players") or {}).items()]


def _standings(view: SessionView) -> Standings:
    """The score track: every recorded scoring's points added up; the final scoring ends the game."""
    track: dict[str, int] = {str(p[0]): 0 for p in view.players}
    for s in view.summaries:
        for p, v in s.get("points", {}).items():
            track[p] = track.get(p, 0) + int(v)
    rows = tuple({"player": p, "points": v} for p, v in track.items())
    caption = f"{len(view.summaries)} scoring photo(s) recorded"
    if not view.summaries or view.summaries[-1].get("kind") != "final":
        return Standings(rows, caption)
    return Standings(rows, caption, True, {"track": track},
                     "Final score: " + ", ".join(f"{p} {v}" for p, v in track.items()))


def _score_new_boards(view: SessionView, outcome: Outcome, context: dict) -> dict:
    """The boards filled since the previous recorded photo (the first photo compares with an empty table)."""
    previous = view.summaries[-1]["state"] if view.summaries else {**outcome.state, "boards": []}
    result = adjudicate(state_from_json(outcome.state), parse_context({**context, "previous_state": previous}))
    return {"kind": "boards", "points": result.scores, "boards": list(result.scored_boards), "state": outcome.state}


def _score_final(view: SessionView, outcome: Outcome, context: dict) -> dict:
    """The final junction hexagons; this round ends the game."""
    result = adjudicate(state_from_json(outcome.state), parse_context(context))
    return {"kind": "final", "points": result.scores, "state": outcome.state}


SESSION = SessionRules(
    title="Score track",
    players=_session_players,
    standings=_standings,
    actions=(RoundAction("ka-boards", "Score the boards filled since the last photo", _score_new_boards),
             RoundAction("ka-final", "Final scoring (junction hexagons) and end", _score_final)),
    key_prefix="ka",
    undo_label="Undo the last scoring",
)


PLUGIN = GamePlugin(
    name="kaleido",
    title="Kaleido (かれいど)",
    parse_context=parse_context,
    detect=detect,
    state_from_json=state_from_json,
    adjudicate=adjudicate,
    adjudication_from_json=KaleidoAdjudication.from_json,
    annotate=annotate,
    summary=summary,
    headline=headline,
    photos="1",
    ui_module="ui.games.kaleido",
    register=register,
    session=SESSION,
    camera_resolution="720p",
    order=20,
    live=LiveSupport(detect_warm=live_detect),
)
SPEC = PLUGIN
