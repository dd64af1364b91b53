"""Carrotain's plugin: context, detection, rules, overlay, registration (renders: ``synth.samples.carrotain``)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from components import load_components
from core.errors import BadInput, CannotJudge
from core.timing import StageTimer
from judge.plugin import Frame, GamePlugin, LiveSupport, Registration
from judge.session import Outcome, RoundAction, SessionRules, SessionView, Standings
from scoring.carrotain import CarrotainAdjudication
from scoring.carrotain_state import CarrotainState

OVERLAY_COLOURS = {"hidden": (40, 200, 70), "not_hidden": (230, 50, 50), "borderline": (245, 170, 20)}


@dataclass(frozen=True)
class CarrotainContext:
    """Who plays and who challenges.

    Attributes
    ----------
    players : tuple[str, ...]
        Player colours in play; empty when not named (then the colours of the star chips seen play).
    challenger : str or None
        None when not named (a photo judged without its context): the verdict is the same, the awards are
        by chip colour only and flagged ``challenger_unknown``.
    options : dict
        Rules options (``coverage``, ``margin_mm``) passed to ``scoring.carrotain``.
    """

    players: tuple[str, ...]
    challenger: str | None
    options: dict


def parse_context(obj: dict | None) -> CarrotainContext:
    """Validate ``{"players": [...], "challenger": ..., "options": {...}}``; raise ``BadInput``.

    No context at all (None), or neither players nor a challenger named (``{}``, ``{"players": [],
    "challenger": ""}``, options alone): players unknown, judged anyway (see ``CarrotainContext``).
    """
    if obj is None:
        return CarrotainContext((), None, {})
    if not isinstance(obj, dict):
        raise BadInput("context: expected a JSON object with 'players' and 'challenger'")
    colours = set(load_components()["carrotain"]["player_colours"])
    players = obj.get("players")
    if not players and not obj.get("challenger"):
        return CarrotainContext((), None, _options(obj))
    if not isinstance(players, list) or not players:
        raise BadInput("context: 'players' must be a non-empty list of colours")
    for p in players:
        if not isinstance(p, str) or p not in colours:
            raise BadInput(f"context: unknown player colour {p!r} in 'players' (known: {', '.join(sorted(colours))})")
    if len(set(players)) != len(players):
        raise BadInput("context: 'players' lists a colour twice")
    ch = obj.get("challenger")
    if ch is None:
        raise BadInput("context: missing 'challenger'")
    if ch not in players:
        raise BadInput(f"context: 'challenger' {ch!r} is not one of the players")
    return CarrotainContext(tuple(players), str(ch), _options(obj))


def _options(obj: dict) -> dict:
    """The context's rules options, checked."""
    opts = obj.get("options", {}) or {}
    if not isinstance(opts, dict):
        raise BadInput("context: 'options' must be an object")
    for k in opts:
        if k not in ("coverage", "margin_mm"):
            raise BadInput(f"context: unknown option {k!r} in 'options' (coverage, margin_mm)")
    if "coverage" in opts and opts["coverage"] not in ("centre", "whole_dot"):
        raise BadInput("context: 'options.coverage' must be 'centre' or 'whole_dot'")
    if "margin_mm" in opts:
        try:
            if float(opts["margin_mm"]) < 0:
                raise ValueError
        except (TypeError, ValueError):
            raise BadInput("context: 'options.margin_mm' must be a number >= 0") from None
    return dict(opts)


def components_for(profile) -> dict:
    """The component set with what the user registered in a calibration profile: their own board outlines
    (``profile.boards``: id -> outline in the board's frame, mm; added to the defaults, replacing a default
    of the same id) and chip colours (``profile.colours["carrotain"]``: name -> normalised 0-1 colour, for
    dots and the first-star face) replacing the defaults."""
    comp = load_components()
    if profile is None or not (profile.boards or profile.colours.get("carrotain")):
        return comp
    comp = copy.deepcopy(comp)
    car = comp["carrotain"]
    if profile.boards:
        car["board"]["outlines_mm"].update(
            {k: np.asarray(v, dtype=float).tolist() for k, v in profile.boards.items()})
    for name, rgb in profile.colours.get("carrotain", {}).items():
        rgb_255 = [float(v) * 255.0 for v in rgb]
        if name == "first_star":
            car["first_star_chip"]["face_rgb"] = rgb_255
        else:
            car["player_colours"][name] = rgb_255
    return comp


def detect(frames: list[Frame], ctx: CarrotainContext, timer: StageTimer) -> CarrotainState:
    """Last frame = the challenge photo; an earlier one = the "before" photo (optional)."""
    return _recognised(frames, ctx, timer, None, probe=False)[0]


def live_detect(frames: list[Frame], ctx: CarrotainContext, timer: StageTimer, carry: Any
                ) -> tuple[CarrotainState, Any]:
    """``LiveSupport.detect_warm``: the first reading frame of a still scene runs the full detection and carries
    its reading, board fits and the chips of the "before" photo (``vision.carrotain.CarrotainCarry``); a later one
    reads as that frame when a quick check finds every chip and board still where it was
    (``vision.carrotain_still``), else it reads the chips and the board evidence again and re-fits each board where
    it was, after checking that it still fits there (else its boards are searched afresh, as :func:`detect` does).
    A frame that cannot be judged (the chips-only "before" scene) still carries its reading, on the
    ``CannotJudge`` it raises."""
    return _recognised(frames, ctx, timer, carry, probe=True)


def keep_before(carry: Any, frame: Frame) -> Any:
    """``LiveSupport.keep_before``: the chips read on the frame kept as the "before" photo become the next scenes'
    before chips (``CarrotainCarry.before_chips`` of that very image), not read again."""
    from vision.carrotain import CarrotainCarry  # noqa: PLC0415  (cv2-heavy; only when detecting)

    if not isinstance(carry, CarrotainCarry):
        return None
    return CarrotainCarry((), frame.image_rgb, carry.chips)


def _recognised(frames: list[Frame], ctx: CarrotainContext, timer: StageTimer, carry: Any, probe: bool
                ) -> tuple[CarrotainState, Any]:
    """The state of the last frame (an earlier one: the "before" photo); ``probe``: carry the quick checks of a
    still scene's later frames (``vision.carrotain.recognise_warm``)."""
    from vision.carrotain import CarrotainVisionConfig, recognise_warm  # noqa: PLC0415  (cv2-heavy; only when detecting)

    if not frames:
        raise BadInput("no image given")
    ch = frames[-1]
    if ch.calibration is None:
        raise CannotJudge(ch.calibration_error or "no calibration markers found in the challenge photo")
    before = None
    if len(frames) >= 2:
        b = frames[-2]
        if b.calibration is None:
            raise CannotJudge(f"before photo: {b.calibration_error or 'no calibration markers found'}")
        before = (b.image_rgb, b.calibration)
    config = CarrotainVisionConfig()
    state, carry = recognise_warm(ch.image_rgb, ch.calibration, carry, before=before, timer=timer, config=config,
                                  components=components_for(ch.profile), probe=probe, players=ctx.players)
    if not state.chips:
        raise CannotJudge("no chips found on the mat", carry=carry)
    check_challenge_boards(state, carry, config)
    return state, carry


def check_challenge_boards(state: CarrotainState, carry: Any = None, config: Any = None) -> None:
    """Decline (``CannotJudge``) a challenge read with fewer than two boards over the chips where a board may lie
    unread: none found over them at all, or an unread acrylic-looking region over or near the chip field
    (``vision.carrotain.unread_near_chip_field``, with ``config``: the ``CarrotainVisionConfig`` the state was read
    with; None: the default). Where every acrylic region near the chips is explained, the challenge is judged as it
    lies: the rules flag it ``invalid_challenge`` (RULES.md: not exactly two challenge boards)."""
    from vision.carrotain import CarrotainVisionConfig, unread_near_chip_field  # noqa: PLC0415  (cv2-heavy)

    challenge = [b.id for b in state.boards if b.role == "challenge"]
    if len(challenge) >= 2:
        return
    unread = unread_near_chip_field(state, config if config is not None else CarrotainVisionConfig())
    if not challenge or unread:
        seen = ", ".join(f"{b.id} ({b.role})" for b in state.boards) or "none"
        why = f"; {len(unread)} acrylic-looking region(s) near the chips not read as a board" if unread else ""
        raise CannotJudge(f"found {len(challenge)} of the 2 challenge boards over the chips (boards seen: {seen}"
                          f"{why}); retake the photo more from above, with less glare on the boards", carry=carry)


def state_from_json(obj: dict) -> CarrotainState:
    return CarrotainState.from_json(obj)


def adjudicate(state: CarrotainState, ctx: CarrotainContext) -> CarrotainAdjudication:
    """Run the rules (``scoring.carrotain``) on a state, the detector's own flags added; rule errors are
    ``BadInput``."""
    from scoring.carrotain import CarrotainOptions  # noqa: PLC0415
    from scoring.carrotain import adjudicate as rules  # noqa: PLC0415

    players = list(ctx.players)
    if ctx.challenger is None:  # players not named: the player colours of the star chips seen, in the box's order
        on_mat = {c.colour for c in state.chips if c.kind == "star"}
        players = [c for c in load_components()["carrotain"]["player_colours"] if c in on_mat]
    try:
        options = CarrotainOptions.from_json(ctx.options)
        result = rules(state, players=players, challenger=ctx.challenger, options=options)
    except (ValueError, TypeError) as e:
        raise BadInput(str(e)) from None
    seen = {(f.code, f.message) for f in result.flags}
    extra = tuple(f for f in state.flags if (f.code, f.message) not in seen)
    return replace(result, flags=result.flags + extra) if extra else result


def adjudication_from_json(obj: dict) -> CarrotainAdjudication:
    """A recorded judgement back into its type (extra fields such as ``timings_ms`` ignored)."""
    return CarrotainAdjudication.from_json(obj)


#: Overlay colour of what was seen but not understood (unread acrylic, unread chip-like blobs).
UNREAD_COLOUR = (255, 0, 255)
#: Overlay colour of a board read loosely (``BoardReading.loose``), drawn with the band its edge may lie in.
LOOSE_COLOUR = OVERLAY_COLOURS["borderline"]


def annotate(frame: Frame, state: CarrotainState, adj: CarrotainAdjudication) -> np.ndarray:
    """Boards, chip centres (green hidden / red not hidden / amber borderline with margin) and a verdict banner,
    all as the adjudication judged them."""
    from vision.carrotain import chip_px, project_outline_px  # noqa: PLC0415

    img = frame.image_rgb.copy()
    cal = frame.calibration
    if cal is None:
        return img
    for b in state.boards:
        pts = project_outline_px(cal, b.outline_mm, 2.0)
        col = {"challenge": (120, 200, 255), "unread": UNREAD_COLOUR}.get(b.role, (160, 160, 160))
        if b.loose:
            col = LOOSE_COLOUR
            _draw_uncertainty_band(img, cal, b.outline_mm, b.pose_sigma_mm)
        cv2.polylines(img, [np.round(pts * 16).astype(np.int32)], True, col, 2, cv2.LINE_AA, 4)
        c = pts.mean(axis=0)
        label = f"{b.id} loose +/-{b.pose_sigma_mm:.1f}mm" if b.loose else b.id
        cv2.putText(img, label, (int(c[0]), int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.8, col, 2, cv2.LINE_AA)
    for i, ch in enumerate(state.chips):
        r = adj.chips[i] if i < len(adj.chips) else None
        key = "not_hidden" if r is None else "borderline" if r.borderline else "hidden" if r.hidden else "not_hidden"
        col = OVERLAY_COLOURS[key]
        p = chip_px(cal, np.array([ch.xy_mm]), 2.0)[0]
        cv2.circle(img, (int(round(p[0])), int(round(p[1]))), 6, col, 2, cv2.LINE_AA)
        cv2.drawMarker(img, (int(round(p[0])), int(round(p[1]))), col, cv2.MARKER_CROSS, 8, 1)
        if key == "borderline" and r is not None:
            cv2.putText(img, f"{r.margin_mm:.1f}mm", (int(p[0]) + 8, int(p[1]) - 8), cv2.FONT_HERSHEY_SIMPLEX,
                        0.5, col, 1, cv2.LINE_AA)
    for f in state.flags:  # chip-like blobs that could not be read: shown, not dropped
        for xy in (f.data or {}).get("xy_mm", []) if f.code == "unread_chip_blobs" else []:
            p = chip_px(cal, np.array([xy]), 2.0)[0]
            cv2.circle(img, (int(round(p[0])), int(round(p[1]))), 14, UNREAD_COLOUR, 2, cv2.LINE_AA)
            cv2.putText(img, "?", (int(p[0]) + 12, int(p[1]) - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.6, UNREAD_COLOUR, 2,
                        cv2.LINE_AA)
    verdict = adj.verdict.upper()
    text = f"{verdict}{' (CONTESTED)' if adj.contested else ''}  hidden {adj.hidden}  not hidden {adj.not_hidden}"
    cv2.rectangle(img, (0, 0), (img.shape[1], 40), (0, 0, 0), -1)
    col = (245, 170, 20) if adj.contested else ((40, 200, 70) if verdict == "SUCCESS" else (230, 50, 50))
    cv2.putText(img, text, (12, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, col, 2, cv2.LINE_AA)
    return img


def _draw_uncertainty_band(img: np.ndarray, cal, outline_mm: np.ndarray, sigma_mm: float) -> None:
    """Thin outlines ``sigma_mm`` outside and inside a board's outline (table mm, (N, 2)): where its edge may lie,
    drawn in ``LOOSE_COLOUR`` onto ``img`` (the overlay's own copy)."""
    from shapely.geometry import Polygon  # noqa: PLC0415

    from vision.carrotain import project_outline_px  # noqa: PLC0415

    poly = Polygon(np.asarray(outline_mm, dtype=np.float64).reshape(-1, 2))
    for d_mm in (sigma_mm, -sigma_mm):
        band = poly.buffer(d_mm, join_style="mitre")
        if band.is_empty or band.geom_type != "Polygon":
            continue
        pts = project_outline_px(cal, np.asarray(band.exterior.coords)[:-1], 2.0)
        cv2.polylines(img, [np.round(pts * 16).astype(np.int32)], True, LOOSE_COLOUR, 1, cv2.LINE_AA, 4)


def truth_state(scene: dict) -> CarrotainState:
    """The true scene as a state (exact positions), for computing the expected judgement."""
    obj = {
        "chips": [{"kind": c["kind"], "colour": c["colour"], "xy_mm": c["xy_mm"], "centre_sigma_mm": 0.0}
                  for c in scene["chips"]],
        "boards": [{"id": b["id"], "outline_mm": b["outline_mm"], "pose_sigma_mm": 0.0,
                    "role": "challenge" if b["role"] == "challenge" else "other"} for b in scene["boards"]],
    }
    return CarrotainState.from_json(obj)


def summary(result: dict) -> str:
    """``success`` / ``failure``, ``(contested)`` when it could go either way."""
    return f"{result.get('verdict', '?')}{' (contested)' if result.get('contested') else ''}"


def headline(result: dict) -> dict:
    """Verdict, contested and scores: what two judgements of one challenge must agree on."""
    return {k: result.get(k) for k in ("verdict", "contested", "scores")}


def register(image_rgb: np.ndarray, calibration, profile, options: dict) -> Registration:
    """Chip colours (one chip of each colour and the first-star chip on the mat, no boards) or, with
    ``board_id``, that board's outline (the board alone on the mat) into the profile."""
    try:
        if options.get("board_id") is not None:
            from judge.register_board import register_board_into_profile  # noqa: PLC0415

            board_id = str(options["board_id"])
            new = register_board_into_profile(board_id, image_rgb, calibration, profile)
            return Registration(new, {"board": board_id, "points": len(new.boards[board_id])})
        from judge.register_colours import register_into_profile  # noqa: PLC0415

        new = register_into_profile("carrotain", image_rgb, calibration, profile)
    except ValueError as exc:
        raise CannotJudge(str(exc)) from None
    return Registration(new, {"colours": {k: [round(float(v), 1) for v in rgb]
                                          for k, rgb in new.colours["carrotain"].items()}})


def _session_settings(context: dict, chosen: dict) -> dict:
    """A new game's settings: the rules options, the boards on the mat, chips per colour (ValueError: bad players)."""
    from scoring.carrotain import CarrotainOptions  # noqa: PLC0415
    from scoring.carrotain_game import new_game  # noqa: PLC0415

    game = new_game(list(context.get("players", [])))
    return {"options": CarrotainOptions().to_json(), "boards": list(game.initial_boards),
            "chips_per_colour": game.chips_per_colour}


def _replayed(view: SessionView):
    from scoring.carrotain_game import CHIPS_PER_COLOUR, DEFAULT_BOARDS, replay  # noqa: PLC0415

    return replay(view.players, list(view.summaries), view.settings.get("boards", DEFAULT_BOARDS),
                  int(view.settings.get("chips_per_colour", CHIPS_PER_COLOUR)))


def _standings(view: SessionView) -> Standings:
    """Boards and chips won, points, the boards left; the end (``scoring.carrotain_game.game_over``)."""
    from scoring.carrotain_game import game_over  # noqa: PLC0415

    game = _replayed(view)
    points = game.points()
    rows = tuple({"player": p, "boards": len(game.boards_won[p]), "chips": game.chips_won[p], "points": points[p]}
                 for p in game.players)
    caption = f"Round {len(game.rounds) + 1}; boards on the mat: {', '.join(game.boards_on_mat)}"
    end = game_over(game)
    if end is None:
        return Standings(rows, caption)
    who = " and ".join(end.winners)
    message = f"Game over ({end.reason.replace('_', ' ')}): " + ("draw between " if end.draw else "winner ") + who
    return Standings(rows, caption, True, end.to_json(), message)


def _record_challenge(view: SessionView, outcome: Outcome, context: dict) -> dict:
    """The judged challenge as the next round (re-judged with the session's rules options)."""
    from scoring.carrotain import CarrotainOptions  # noqa: PLC0415
    from scoring.carrotain import adjudicate as rules  # noqa: PLC0415
    from scoring.carrotain_game import apply_round  # noqa: PLC0415

    challenger = context.get("challenger", "")
    adj = rules(CarrotainState.from_json(outcome.state), list(view.players), challenger,
                CarrotainOptions.from_json(view.settings.get("options")))
    return apply_round(_replayed(view), challenger, adj, outcome.judgement_id).rounds[-1].to_json()


SESSION = SessionRules(
    title="Game",
    players=lambda context: list(context.get("players") or []),
    standings=_standings,
    actions=(RoundAction("cr-record", "Record this challenge as the next round", _record_challenge),),
    key_prefix="cr",
    settings=_session_settings,
)


PLUGIN = GamePlugin(
    name="carrotain",
    title="Carrotain (星をなくしたキャロテイン)",
    parse_context=parse_context,
    detect=detect,
    state_from_json=state_from_json,
    adjudicate=adjudicate,
    adjudication_from_json=adjudication_from_json,
    annotate=annotate,
    summary=summary,
    headline=headline,
    photos="1 (or before + challenge)",
    ui_module="ui.games.carrotain",
    register=register,
    register_options=("board_id",),
    session=SESSION,
    camera_resolution="1080p",
    order=10,
    # live: chips alone = "before"; the later reading frames of a still scene re-fit the boards where they were
    live=LiveSupport(before="cannot_judge", before_reason="boards seen: none", detect_warm=live_detect,
                     keep_before=keep_before),
)
SPEC = PLUGIN
