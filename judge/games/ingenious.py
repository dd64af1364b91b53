"""Ingenious's plugin: context, detection (before/after photos), the typed judgement, overlay."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from core.errors import BadInput, CannotJudge
from core.timing import StageTimer
from geometry.hexgrid import HexBoardPose, hexagon_board_mm
from judge.plugin import Frame, FrameMemo, GamePlugin, LiveSupport
from scoring.flags import Flag
from scoring.ingenious_judge import (
    PLACEMENT_CODES,
    IngeniousAdjudication,
    IngeniousContext,
    IngeniousState,
    judge_placement,
)
from vision.ingenious import marker_layout

SYMBOL_DRAW_RGB = {
    "red": (225, 40, 45), "orange": (245, 135, 20), "yellow": (245, 210, 20), "green": (40, 160, 70),
    "blue": (40, 95, 215), "purple": (140, 60, 175),
}


def parse_context(obj: dict | None) -> IngeniousContext:
    """Validate an Ingenious context (``BadInput`` naming the field)."""
    try:
        return IngeniousContext.from_json(obj)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def _markerless(frame: Frame):
    """The board's rim as the frame when the markers are missing; CannotJudge when that fails too."""
    from vision.ingenious import read_board_markerless

    got = read_board_markerless(frame.image_rgb)
    if got is None:
        raise CannotJudge(f"{frame.source or 'photo'}: no table frame from the markers ({frame.calibration_error}) "
                          "and no board rim with its printed symbols found (markerless fallback)")
    return got[0]


def detect(frames: list[Frame], ctx: IngeniousContext, timer: StageTimer) -> IngeniousState:
    """Photos (before, after; or after alone with ``placed``) -> what the camera read.

    Raises
    ------
    BadInput
        Not a photo pair (and no ``placed``), or photos of different sizes.
    CannotJudge
        No table frame, or no board found.
    """
    return detect_warm(frames, ctx, timer, None)[0]


def _doubt_colours(readings: list) -> dict:
    """Doubtful cells that can only show some colours (in every photo where they are in doubt), with those
    colours; a cell in doubt with no such limit in any photo (a hand over it) may show anything and is left out."""
    seen: dict = {}
    for rd in readings:
        for c, r in rd.cells.items():
            if r.doubt:
                seen.setdefault(c, []).append(r.alternatives)
    return {c: tuple(sorted(set().union(*alts))) for c, alts in seen.items() if all(alts)}


def _scene_pose(memo: FrameMemo, frame: Frame, before: Frame) -> HexBoardPose | None:
    """The board pose read on an earlier frame of this still scene: a carried reading of another frame than the
    "before" photo with this frame's very calibration (live mode keeps one calibration object while the camera
    and the table stay still, and carries nothing across motion)."""
    if frame.calibration is None:
        return None
    for f, rd in reversed(memo.items):
        if f is not before and f is not frame and f.calibration is frame.calibration:
            return rd.pose
    return None


def detect_warm(frames: list[Frame], ctx: IngeniousContext, timer: StageTimer,
                carry: FrameMemo | None) -> tuple[IngeniousState, FrameMemo]:
    """:func:`detect` that reuses what earlier frames of a still scene found (live video): the "before" photo's
    board reading (the same frame in every reading frame of a still scene) and the board pose of the scene's
    first reading frame (used as it is while the printed symbols read there, not searched or refined again);
    returns the state and the readings to carry (the before photo's and the latest frame's). The same state as
    :func:`detect` up to the sensor noise between frames (a photo's cells are read on its own pixels)."""
    from vision.ingenious import read_board

    if len(frames) not in (1, 2):
        raise BadInput(f"ingenious takes 2 photos (before, after) or 1 with 'placed' in the context, not {len(frames)}")
    if len(frames) == 1 and ctx.placed is None:
        raise BadInput("one photo needs the context field 'placed' ([[q, r], [q, r]]); or give before and after")
    if len(frames) == 2 and frames[0].image_rgb.shape != frames[1].image_rgb.shape:
        raise BadInput("the before and after photos differ in size: not a photo pair from one camera")
    memo = carry or FrameMemo()
    readings: list[Any] = []
    prior = None
    for k, frame in enumerate(frames):
        with timer.stage(f"board_{k + 1}" if len(frames) > 1 else "board"):
            # a later photo is read with the first one's pose; the same frame twice (a live baseline) is read once
            known = memo.get(frame) if k == 0 else (readings[0] if frame is frames[0] else None)
            scene = _scene_pose(memo, frame, frames[0]) if known is None else None
            if known is not None:
                rd = known
            elif frame.calibration is None:
                rd = _markerless(frame)
            elif scene is not None:
                rd = read_board(frame.image_rgb, frame.calibration, prior=scene, keep_prior=True)
            else:
                rd = read_board(frame.image_rgb, frame.calibration, prior=prior)
        readings.append(rd)
        prior = rd.pose if frame.calibration is not None else None
    notes = []
    vflags = []
    doubtful: dict = {}
    for k, rd in enumerate(readings):
        name = ("before", "after")[k] if len(readings) == 2 else "after"
        notes.append(f"{name}: board centre ({rd.pose.centre_mm[0]:.1f}, {rd.pose.centre_mm[1]:.1f}) mm, "
                     f"rotation {rd.pose.rotation_deg:.1f} deg, {rd.landmarks_read}/6 printed symbols read"
                     + (" (pose kept from an earlier frame of this still scene)" if rd.kept
                        else " (pose refined from the before photo)" if rd.refined else ""))
        for f in rd.flags:
            vflags.append(Flag("markerless" if f.startswith("markerless") else "board_pose", f"{name} photo: {f}"))
        for c, why in rd.doubtful().items():
            doubtful.setdefault(c, f"{name}: {why}")
    after = readings[-1]
    return IngeniousState(
        after=after.board(),
        before=readings[0].board() if len(readings) == 2 else None,
        doubtful=doubtful,
        doubt_colours=_doubt_colours(readings),
        notes=tuple(notes),
        vision_flags=tuple(vflags),
        pose=after.pose.to_json(),
    ), FrameMemo(((frames[0], readings[0]),) + (((frames[-1], readings[-1]),) if len(frames) > 1 else ()))


def state_from_json(obj: dict) -> IngeniousState:
    if not isinstance(obj, dict) or "after" not in obj:
        raise BadInput('state: expected an Ingenious state with "after" (and "before")')
    return IngeniousState.from_json(obj)


def adjudicate(state: IngeniousState, ctx: IngeniousContext) -> IngeniousAdjudication:
    """The rules on what the photos showed (``scoring.ingenious_judge``); ValueError -> BadInput upstream."""
    return judge_placement(state, ctx)


def annotate(frame: Frame, state: IngeniousState, adj: IngeniousAdjudication) -> np.ndarray:
    """Every tile hex read, the placed hexes, each counted line with its count, '?' on every cell in
    doubt and the flagged cells outlined, drawn from the judgement. Returns a new RGB uint8 image."""
    result = adj.to_json()
    img = frame.image_rgb.copy()
    if state.pose is None:
        return img
    cal: Any
    if frame.calibration is not None:
        cal = frame.calibration
    else:
        from vision.ingenious import read_board_markerless

        got = read_board_markerless(frame.image_rgb)
        if got is None:
            return img
        cal = got[1]
    pose = HexBoardPose.from_json(state.pose)
    s = max(1, int(round(max(img.shape[:2]) / 1000)))
    tile_z = 6.0

    def px(cells, z=tile_z):
        return cal.mm_to_px_at_height(pose.cell_centres_mm(np.asarray(cells, dtype=np.float64)), z)

    def hex_px(cell, z=tile_z, scale=1.0):
        centre_board = pose.to_board(pose.cell_centres_mm(np.asarray([cell], dtype=np.float64)))[0]
        corners = hexagon_board_mm(centre_board, scale * pose.pitch_mm / np.sqrt(3.0))
        return np.round(cal.mm_to_px_at_height(pose.to_table(corners), z)).astype(np.int32)

    for h in result.get("board", []):
        c = px([h["qr"]])[0]
        cv2.circle(img, (int(c[0]), int(c[1])), 4 * s, SYMBOL_DRAW_RGB.get(h["colour"], (128, 128, 128)), -1,
                   cv2.LINE_AA)
        cv2.circle(img, (int(c[0]), int(c[1])), 4 * s, (0, 0, 0), 1, cv2.LINE_AA)
    for h in result.get("placed", []):
        cv2.polylines(img, [hex_px(h["qr"], scale=0.95)], True, (255, 255, 255), 3 * s, cv2.LINE_AA)
        cv2.polylines(img, [hex_px(h["qr"], scale=0.95)], True, (255, 0, 200), s, cv2.LINE_AA)
    for ln in result.get("lines", []):
        pts = px([ln["start"]] + ln["cells"])
        p = np.round(pts).astype(np.int32)
        col = SYMBOL_DRAW_RGB.get(ln["colour"], (255, 255, 255))
        cv2.polylines(img, [p], False, (255, 255, 255), 5 * s, cv2.LINE_AA)
        cv2.polylines(img, [p], False, col, 2 * s, cv2.LINE_AA)
        end = p[-1]
        text = str(ln["count"])
        cv2.putText(img, text, (int(end[0]) + 6 * s, int(end[1]) - 6 * s), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * s,
                    (0, 0, 0), 4 * s, cv2.LINE_AA)
        cv2.putText(img, text, (int(end[0]) + 6 * s, int(end[1]) - 6 * s), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * s,
                    (255, 255, 255), s, cv2.LINE_AA)
    for c in state.doubtful:
        p = px([c])[0]
        cv2.putText(img, "?", (int(p[0]) - 5 * s, int(p[1]) + 6 * s), cv2.FONT_HERSHEY_SIMPLEX, 0.8 * s,
                    (255, 0, 0), 2 * s, cv2.LINE_AA)
    bad = [c for f in result.get("flags", []) for c in f.get("cells", []) if isinstance(c, list) and len(c) == 2]
    for c in bad:
        cv2.polylines(img, [hex_px(c, scale=1.0)], True, (255, 40, 40), 2 * s, cv2.LINE_AA)
    return img


def summary(result: dict) -> str:
    """One line: the placement and its points, or why it was not scored."""
    placed = " ".join(f"{h['colour']}({h['qr'][0]},{h['qr'][1]})" for h in result.get("placed", []))
    pts = ", ".join(f"{c} +{v}" for c, v in result.get("move_points", {}).items()) or "no points"
    bad = [f["code"] for f in result.get("flags", []) if f.get("code") in PLACEMENT_CODES]
    if bad:
        return f"not scored ({', '.join(bad)}): {placed or 'no new hex'}"
    extra = result.get("extra_placements", 0)
    return f"{placed}: {pts}" + (f", Ingenious! x{extra}" if extra else "")


def next_context(context: dict | None, result: dict) -> dict | None:
    """Live play (``LiveSupport.next_context``): the context of the placement after this scored one - the next
    player in turn order to place, the colour scores after this placement as the scores before it, the first
    round over once its last player has placed. None when that cannot be told from the judgement: a placement
    not scored (the turn may not have passed) or an Ingenious! extra placement owed (not kept in a context)."""
    if context is None or not isinstance(result.get("colour_scores"), dict):
        return None
    if result.get("extra_placements", 0) or any(f.get("code") in PLACEMENT_CODES for f in result.get("flags", [])):
        return None
    players = list(context["players"])
    i = players.index(context["mover"])
    out = {k: v for k, v in context.items() if k != "placed"}
    out.update(mover=players[(i + 1) % len(players)], scores_before=result["colour_scores"])
    if context.get("first_round") and i == len(players) - 1:
        out["first_round"] = False
    return out


def headline(result: dict) -> dict:
    """The fields two judgements of the same pair must agree on."""
    return {
        "placed": sorted((h["qr"][0], h["qr"][1], h["colour"]) for h in result.get("placed", [])),
        "move_points": dict(sorted(result.get("move_points", {}).items())),
        "extra_placements": result.get("extra_placements", 0),
        "not_scored": sorted(f["code"] for f in result.get("flags", []) if f.get("code") in PLACEMENT_CODES),
    }


PLUGIN = GamePlugin(
    name="ingenious",
    title="Ingenious (頭脳絶好調)",
    parse_context=parse_context,
    detect=detect,
    state_from_json=state_from_json,
    adjudicate=adjudicate,
    adjudication_from_json=IngeniousAdjudication.from_json,
    annotate=annotate,
    summary=summary,
    headline=headline,
    photos="2 (before, after), or 1 (after) with 'placed' in the context",
    ui_module="ui.games.ingenious",
    camera_resolution="1080p",
    order=40,
    marker_layout=marker_layout,
    live=LiveSupport(before="previous", change_codes=("moved_tile",), detect_warm=detect_warm,  # live (live2 lane)
                     next_context=next_context, vote_ignores=("board",)),
)
SPEC = PLUGIN
