"""The Carrotain reading as a clean diagram: board outlines and every chip centre with its margin.

Drawn from the judgement alone (``result["chips"]``, ``result["boards"]``, ``result["flags"]``) and the
state's chip confidences: nothing is recomputed. Green ring: hidden; red: not hidden; amber: borderline;
grey hatching with '?': a chip the judge is unsure it read (kind or colour), or a board it could not name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from components import load_components
from ui import drawing as dr
from ui.canvas import Canvas, CanvasConfig, fit_canvas
from ui.pieces import PieceRef


@dataclass(frozen=True)
class CarrotainDiagramConfig:
    """Sizes (mm) and what counts as unsure.

    Attributes
    ----------
    chip_radius_mm, dot_radius_mm, hole_radius_mm : the chip's face, centre dot and hole.
    ring_mm : width of the status ring drawn around each chip.
    unsure_confidence : a chip detected with a lower confidence is drawn as unknown.
    unsure_flags : flag codes whose ``chips`` list marks chips as unknown.
    face_z_mm : height of the chip faces (the straightened view shows this plane).
    challenge_fill_alpha : opacity of the challenge boards' tint.
    """

    chip_radius_mm: float = 12.5
    dot_radius_mm: float = 3.5
    hole_radius_mm: float = 3.0
    ring_mm: float = 2.2
    unsure_confidence: float = 0.5
    unsure_flags: tuple[str, ...] = ("uncertain_chip", "low_confidence_chips", "unknown_colour", "bad_chip_position")
    face_z_mm: float = 2.0
    challenge_fill_alpha: float = 0.28


CONFIG = CarrotainDiagramConfig()


def chip_status(chip: dict) -> str:
    """``"borderline"``, ``"hidden"`` or ``"not_hidden"`` for one of the judgement's chips."""
    if chip.get("borderline"):
        return "borderline"
    return "hidden" if chip.get("hidden") else "not_hidden"


def unsure_chips(state_json: dict, result: dict, config: CarrotainDiagramConfig = CONFIG) -> set[int]:
    """Indices of chips the judge is unsure it read: low confidence, named by a doubt flag, or colourless stars."""
    out = {int(i) for f in result.get("flags", []) if f.get("code") in config.unsure_flags
           for i in f.get("chips", []) if isinstance(i, int)}
    for i, c in enumerate(state_json.get("chips", [])):
        if float(c.get("confidence", 1.0)) < config.unsure_confidence or (c.get("kind") == "star"
                                                                           and not c.get("colour")):
            out.add(i)
    return out


def extent_mm(state_json: dict, result: dict, config: CarrotainDiagramConfig = CONFIG) -> np.ndarray:
    """Table points the diagram must show: chip faces and board outlines, shape (N, 2)."""
    r = config.chip_radius_mm
    pts = [np.asarray(c["xy_mm"], float) + d for c in result.get("chips", []) for d in ((-r, -r), (r, r))]
    for b in result.get("boards", state_json.get("boards", [])):
        pts.extend(np.asarray(b["outline_mm"], float).reshape(-1, 2))
    return np.asarray(pts, dtype=np.float64).reshape(-1, 2)


def canvas_for(state_json: dict, result: dict, config: CanvasConfig = CanvasConfig()) -> Canvas:
    return fit_canvas(extent_mm(state_json, result), config)


def _margin_label(m: float) -> str:
    return f"{m:+.0f}" if abs(m) >= 10 else f"{m:+.1f}"


def draw(canvas: Canvas, state_json: dict, result: dict, highlight: tuple[PieceRef, ...] = (),
         style: dr.DiagramStyle = dr.DiagramStyle(), config: CarrotainDiagramConfig = CONFIG) -> np.ndarray:
    """The diagram on a new image of the canvas's size.

    Parameters
    ----------
    canvas : Canvas
    state_json : dict
        The Carrotain state (chip confidences).
    result : dict
        The judgement (``chips`` with ``hidden``/``margin_mm``/``borderline``, ``boards``, ``flags``).
    highlight : tuple of PieceRef
        Chips (or boards) to ring in the highlight colour.

    Returns
    -------
    ndarray, shape (h, w, 3) uint8
    """
    comp = load_components()["carrotain"]
    img = canvas.blank(style.paper_rgb)
    s = canvas.px_per_mm()
    fs = dr.font_scale(style, s)
    status_rgb = {"hidden": style.good_rgb, "not_hidden": style.bad_rgb, "borderline": style.doubt_rgb}
    lit = {p.index[0] for p in highlight if p.kind == "board"}
    for k, b in enumerate(result.get("boards", state_json.get("boards", []))):
        pts = canvas.to_px(b["outline_mm"])
        challenge = b.get("role", "challenge") == "challenge"
        if challenge:
            dr.fill_polygon(img, pts, (120, 180, 235), config.challenge_fill_alpha)
            dr.outline_polygon(img, pts, (40, 100, 190), 2)
        else:
            dr.dashed_polygon(img, pts, (150, 150, 150), 1)
        if b.get("id", "?") == "?":
            dr.unknown(img, pts, style, fs)
        else:
            top = pts[int(np.argmin(pts[:, 1]))]  # above the outline: chips never hide the board's letter
            at = top - (0, 14 * fs + 4)
            at[1] = max(at[1], 20 * fs + 2)  # ... but inside the picture
            dr.text(img, str(b["id"]), at, fs * 2.2,
                    (40, 100, 190) if challenge else (130, 130, 130), thickness=2)
        if k in lit:
            dr.outline_polygon(img, pts, style.highlight_rgb, 4)
    unsure = unsure_chips(state_json, result, config)
    lit = {p.index[0] for p in highlight if p.kind == "chip"}
    for i, chip in enumerate(result.get("chips", [])):
        c = canvas.to_px(chip["xy_mm"])[0]
        r = config.chip_radius_mm * s
        kind = chip.get("kind", "star")
        face = comp["first_star_chip"]["face_rgb"] if kind == "first_star" else comp["chip"]["face_rgb"]
        dr.circle(img, c, r, tuple(int(v) for v in face))
        dr.circle(img, c, r, (90, 90, 90), 1)
        if kind == "star":
            dot = comp["player_colours"].get(chip.get("colour") or "", style.unknown_rgb)
            dr.circle(img, c, config.dot_radius_mm * s, tuple(int(v) for v in dot))
        else:
            dr.circle(img, c, config.hole_radius_mm * s, tuple(int(v) for v in load_components()["carrotain"]
                                                                ["mat"]["rgb"]))
        if i in unsure:
            dr.unknown(img, dr.circle_polygon(c, r), style, fs)
        dr.circle(img, c, r + config.ring_mm * s / 2, status_rgb[chip_status(chip)],
                  max(2, int(round(config.ring_mm * s))))
        dr.circle(img, c, max(1.5, 0.6 * s), style.ink_rgb)  # the centre point the rule is about
        if i in lit:
            dr.circle(img, c, r + 2.5 * config.ring_mm * s, style.highlight_rgb, max(3, int(round(1.2 * s))))
        m = float(chip.get("margin_mm", 0.0))
        below = r + config.ring_mm * s + 10.0 * fs + 3.0
        dr.text(img, _margin_label(m), c + (0, below), fs, status_rgb[chip_status(chip)],
                thickness=2 if fs > 0.6 else 1)
    return img
