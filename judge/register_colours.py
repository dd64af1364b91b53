"""Register a user's own piece colours from one photo (Kaleido tiles, Carrotain chips).

The user lays out one piece of each colour and photographs it with the calibration markers:

- **kaleido**: one board filled with one tile of each of the six colours, in any order;
- **carrotain**: one star chip of each of the six player colours plus the yellow first-star chip,
  on the mat, with no boards.

Each piece's colour is measured against the frame's colour reference (marker black 0, paper white
1 per channel) and the measured colours are given the palette's names by a minimum-cost assignment
on CIELAB distance to the default palette. The result is refused (``ValueError``) when the layout
is not what the user was asked for or the assignment is ambiguous: a wrongly named colour would make
every later judgement silently wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.assignment import linear_sum_assignment

GAMES = ("kaleido", "carrotain")
FIRST_STAR = "first_star"


@dataclass(frozen=True)
class RegisterConfig:
    """Tunables of colour registration.

    Attributes
    ----------
    tile_top_z_mm : float
        Height of the Kaleido tiles' top faces, mm.
    edge_mm : float
        Kaleido board edge (= cell side), mm.
    inner_scale : float
        Each cell triangle is shrunk about its centroid by this factor before sampling (keeps
        clear of the board bars, the tile bevel and tile play).
    grid_n : int
        Barycentric grid resolution per cell (about ``grid_n**2 / 2`` samples).
    trim_quantiles : (float, float)
        Per-channel trimmed mean of a cell's samples between these quantiles.
    min_swap_margin_lab : float
        The assignment is refused when exchanging the names of two measured colours costs less
        than this (CIELAB Delta E, summed over the two): the two are nearly equally close.
    min_first_star_margin_lab : float
        Carrotain: the first-star chip's face must be this much farther (Delta E) from the white
        star-chip face than any other chip's face.
    min_dot_px : float
        Carrotain: a chip's centre dot must be at least this many image px across (smaller dots
        are blurred into the white face and read washed out).
    max_distance_lab : float
        A measured colour farther than this from the default it is named after is refused
        (that piece is not a shade of the default colour at all), Delta E.
    """

    tile_top_z_mm: float = 2.0
    edge_mm: float = 60.0
    inner_scale: float = 0.55
    grid_n: int = 14
    trim_quantiles: tuple[float, float] = (0.2, 0.8)
    min_swap_margin_lab: float = 12.0
    min_first_star_margin_lab: float = 20.0
    min_dot_px: float = 6.0
    max_distance_lab: float = 60.0


def register_colours(
    game: str,
    image_rgb: np.ndarray,
    calibration,
    components: dict | None = None,
    config: RegisterConfig = RegisterConfig(),
) -> dict[str, tuple[float, ...]]:
    """Measure and name the colours of one piece of each colour in a registration photo.

    Parameters
    ----------
    game : str
        ``"kaleido"`` or ``"carrotain"``.
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration
        Of this photo (markers in view).
    components : dict, optional
        Component set holding the default palette (default: the bundled one).
    config : RegisterConfig

    Returns
    -------
    dict[str, (float, float, float)]
        Colour name -> sRGB 0-255 as seen under the frame's white reference (the units of
        components/default.json). Kaleido: the six tile colours; Carrotain: the six player
        colours (centre dots) and ``"first_star"`` (the first-star chip's face).

    Raises
    ------
    ValueError
        Unknown game; not exactly the expected pieces found; an ambiguous assignment.
    """
    from components import load_components  # noqa: PLC0415

    comp = components or load_components()
    if game == "kaleido":
        measured = _measure_kaleido(image_rgb, calibration, config)
        defaults = {k: np.asarray(v, float) / 255.0 for k, v in comp["kaleido"]["tile"]["colours"].items()}
        return _to_255(assign_names(measured, defaults, config, what="tile"))
    if game == "carrotain":
        dots, first_star = _measure_carrotain(image_rgb, calibration, comp, config)
        defaults = {k: np.asarray(v, float) / 255.0 for k, v in comp["carrotain"]["player_colours"].items()}
        out = assign_names(dots, defaults, config, what="chip dot")
        out[FIRST_STAR] = first_star
        return _to_255(out)
    raise ValueError(f"register colours: unknown game {game!r} (expected one of {', '.join(GAMES)})")


def register_into_profile(game: str, image_rgb: np.ndarray, calibration, profile=None,
                          components: dict | None = None, config: RegisterConfig = RegisterConfig()):
    """A new calibration profile with ``colours[game]`` registered from a photo.

    Colours are stored in the profile's unit, normalised 0-1 (marker black 0, paper white 1), for
    every game; the readers (``judge.games.kaleido.registered_palette``, ``judge.games.carrotain.components_for``)
    scale them to the component set's 0-255.

    Parameters
    ----------
    game : str
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration
    profile : CalibrationProfile or None
        Kept otherwise unchanged (other games' colours, layout, lens, boards).
    components : dict, optional
    config : RegisterConfig

    Returns
    -------
    CalibrationProfile

    Raises
    ------
    ValueError
        As ``register_colours``.
    """
    from calibration.profile import CalibrationProfile  # noqa: PLC0415

    measured = register_colours(game, image_rgb, calibration, components, config)
    colours = {k: tuple(v / 255.0 for v in rgb) for k, rgb in measured.items()}
    base = profile if profile is not None else CalibrationProfile()
    new = {g: dict(c) for g, c in base.colours.items()}
    new[game] = colours
    return replace(base, colours=new)


def assign_names(measured: np.ndarray, defaults: dict[str, np.ndarray], config: RegisterConfig = RegisterConfig(),
                 what: str = "piece") -> dict[str, np.ndarray]:
    """Name measured colours by a minimum-cost one-to-one assignment to the defaults (CIELAB distance).

    Parameters
    ----------
    measured : ndarray, shape (N, 3)
        Normalised colours (0-1 against the frame's black and white), N == len(defaults).
    defaults : dict[str, ndarray (3,)]
        Default palette, normalised 0-1.
    config : RegisterConfig
    what : str
        Piece word for error messages.

    Returns
    -------
    dict[str, ndarray (3,)]
        Name -> measured normalised colour.

    Raises
    ------
    ValueError
        Wrong count; some exchange of two names is nearly free (ambiguous); or a colour is
        too far from every default.
    """
    from vision.colour import rgb_to_lab  # noqa: PLC0415

    names = list(defaults)
    measured = np.asarray(measured, float).reshape(-1, 3)
    if len(measured) != len(names):
        raise ValueError(f"register colours: measured {len(measured)} {what} colours, expected {len(names)}")
    lab_m = rgb_to_lab(measured)
    lab_d = rgb_to_lab(np.array([defaults[n] for n in names]))
    cost = np.linalg.norm(lab_m[:, None, :] - lab_d[None, :, :], axis=2)  # (measured, name)
    rows, cols = linear_sum_assignment(cost)
    sigma = np.empty(len(names), int)
    sigma[rows] = cols
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            delta = cost[i, sigma[j]] + cost[j, sigma[i]] - cost[i, sigma[i]] - cost[j, sigma[j]]
            if delta < config.min_swap_margin_lab:
                raise ValueError(
                    f"register colours: ambiguous — the {what}s taken as {names[sigma[i]]!r} and {names[sigma[j]]!r} "
                    f"could be either (exchanging them costs only {delta:.1f} Delta E); use pieces that differ more "
                    "or light the table more evenly")
    far = [(names[sigma[i]], cost[i, sigma[i]]) for i in range(len(names))
           if cost[i, sigma[i]] > config.max_distance_lab]
    if far:
        name, d = far[0]
        raise ValueError(f"register colours: the {what} taken as {name!r} is {d:.0f} Delta E from the default "
                         f"{name}; is one piece of each colour laid out?")
    return {names[sigma[i]]: measured[i] for i in range(len(names))}


def _to_255(colours: dict[str, np.ndarray]) -> dict[str, tuple[float, ...]]:
    return {k: tuple(float(round(x * 255.0, 2)) for x in np.asarray(v, float)) for k, v in colours.items()}


def _normalise(ref, rgb: np.ndarray, xy_px: np.ndarray) -> np.ndarray:
    """Normalise (N, 3) colours seen at (N, 2) image px: the reference interpolated there when the
    reference has per-marker values (light falls off across a table), else the frame's global one."""
    if callable(getattr(ref, "normalise_at", None)):
        return np.asarray(ref.normalise_at(rgb, xy_px), float).reshape(-1, 3)
    return np.asarray(ref.normalise(rgb), float).reshape(-1, 3)


def _px_per_mm(cal, xy_mm, z_mm: float) -> float:
    """Image px per table mm at a point (square root of the local mapping's area scale)."""
    from vision.carrotain_view import mm_to_px  # noqa: PLC0415

    p = mm_to_px(cal, np.asarray(xy_mm, float)[None] + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), z_mm)
    jac = np.stack([p[1] - p[0], p[2] - p[0]], axis=1)
    return float(np.sqrt(abs(np.linalg.det(jac))))


def _triangle_grid(n: int) -> np.ndarray:
    """Barycentric weights (M, 3) of a grid strictly inside a triangle."""
    w = [(a, b, n - a - b) for a in range(1, n) for b in range(1, n - a)]
    return np.asarray(w, float) / n


def _measure_kaleido(image_rgb: np.ndarray, cal, config: RegisterConfig) -> np.ndarray:
    """The six cells' normalised colours (6, 3) of the one full board in the photo."""
    from geometry.hexboards import board_cells  # noqa: PLC0415
    from vision.carrotain_view import colour_reference, mm_to_px  # noqa: PLC0415
    from vision.kaleido import detect_kaleido  # noqa: PLC0415
    from vision.view import sample  # noqa: PLC0415

    try:
        det = detect_kaleido(image_rgb, cal)
    except Exception as exc:  # the detector's CannotJudge and friends: say it plainly
        raise ValueError(f"register colours: no Kaleido board found ({exc})") from exc
    boards = list(det.state.boards)
    present = np.asarray(det.cell_present, bool)
    full = [b for i, b in enumerate(boards)
            if all(c is not None for c in b.cells) or (i < len(present) and bool(present[i].all()))]
    if not full:
        raise ValueError(f"register colours: no full Kaleido board found ({len(boards)} board(s) seen); "
                         "fill one board with one tile of each colour")
    if len(full) > 1:
        raise ValueError(f"register colours: {len(full)} full Kaleido boards found; photograph exactly one")
    board = full[0]
    ref = colour_reference(cal, image_rgb)
    weights = _triangle_grid(config.grid_n)
    out = []
    for tri in board_cells(board.centre_mm, board.rotation_deg, config.edge_mm):
        cen = tri.mean(axis=0)
        inner = cen + (tri - cen) * config.inner_scale
        pts_mm = weights @ inner
        px = mm_to_px(cal, pts_mm, config.tile_top_z_mm)
        rgb = sample(image_rgb, px, border="nan")
        seen = np.all(np.isfinite(rgb), axis=1)
        rgb = rgb[seen]
        if len(rgb) < 3:
            raise ValueError("register colours: the board is partly outside the photo")
        norm = _normalise(ref, rgb, px[seen])
        lo, hi = np.quantile(norm, config.trim_quantiles, axis=0)
        keep = np.all((norm >= lo) & (norm <= hi), axis=1)
        out.append(norm[keep].mean(axis=0) if keep.sum() >= 3 else np.median(norm, axis=0))
    return np.asarray(out)


def _measure_carrotain(image_rgb: np.ndarray, cal, comp: dict, config: RegisterConfig) -> tuple[np.ndarray, np.ndarray]:
    """The six star chips' dot colours (6, 3) and the first-star chip's face colour (3,), normalised.

    Dots are measured relative to their chip's white face (times the nominal face colour), as
    ``vision.chips.detect_chips`` reads them; the first-star face relative to the star faces' median.
    """
    from calibration.markers import MarkerLayout  # noqa: PLC0415
    from vision.carrotain import CarrotainVisionConfig, chip_exclusions, chip_palettes  # noqa: PLC0415
    from vision.carrotain_view import colour_reference, top_view  # noqa: PLC0415
    from vision.chips import detect_chips  # noqa: PLC0415

    vc = CarrotainVisionConfig()
    layout = MarkerLayout.from_components(comp)
    ref = colour_reference(cal, image_rgb, layout)
    dots, faces, hole = chip_palettes(comp)
    tv = top_view(cal, image_rgb, vc.region_mm, vc.chip_mm_per_px, vc.chip_face_z_mm)
    norm = np.asarray(ref.normalise(tv.image), np.float32)
    dets = detect_chips(norm, tv.origin_mm, tv.mm_per_px, dots, faces, hole, chip_exclusions(vc, layout), vc.chips)
    n_want = len(comp["carrotain"]["player_colours"])
    chips = [d for d in dets if d.kind in ("star", "first_star")]
    if len(chips) != n_want + 1:
        raise ValueError(f"register colours: found {len(chips)} chip(s) (want {n_want + 1}); lay out exactly one star "
                         f"chip of each of the {n_want} colours and the first-star chip, with no boards")
    # the first-star chip: the detector's reading, or else the face farthest from the white star-chip face
    # (a user's first-star chip may be a shade the detector does not take for the default yellow)
    from vision.colour import rgb_to_lab  # noqa: PLC0415

    far = np.linalg.norm(rgb_to_lab(np.array([d.face_rgb for d in chips], float))
                         - rgb_to_lab(faces["white"][None]), axis=1)
    order = np.argsort(-far)
    if far[order[0]] - far[order[1]] < config.min_first_star_margin_lab:
        raise ValueError("register colours: cannot tell which chip is the first-star chip (no face stands out "
                         f"from the white star-chip faces by {config.min_first_star_margin_lab:.0f} Delta E)")
    first = chips[int(order[0])]
    stars = [d for i, d in enumerate(chips) if i != int(order[0])]
    dot_px = comp["carrotain"]["chip"]["centre_dot_diameter_mm"] * min(_px_per_mm(cal, d.xy_mm, vc.chip_face_z_mm)
                                                                      for d in stars)
    if dot_px < config.min_dot_px:
        raise ValueError(f"register colours: the chips' centre dots are only {dot_px:.1f} px across in this photo "
                         f"(need {config.min_dot_px:.0f}); photograph the chips from closer")
    # as the chip detector reads a dot: relative to its own chip's face, scaled to the nominal white face
    # (this cancels the light's fall-off between the markers and the chips); the first-star face relative
    # to the star chips' faces likewise
    white = np.asarray(faces["white"], float)
    face = np.array([np.maximum(np.asarray(d.face_rgb, float), 1e-3) for d in stars])
    dots_rel = np.array([d.centre_rgb for d in stars], float) / face * white
    first_rel = np.asarray(first.face_rgb, float) / np.median(face, axis=0) * white
    return dots_rel, first_rel
