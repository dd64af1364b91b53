"""Synthetic Carrotain scenes: chips scattered on the night-sky mat, two clear boards laid over them.

``sample_scene(rng)`` draws a ground-truth scene (table mm), ``scene_layers(scene)`` turns it into
``synth.layers.Layer`` sheets following components/default.json, and ``render(seed)`` puts them
under a camera with ``synth.photo`` and returns the photo with its truth.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from shapely.geometry import Point, Polygon

from components import load_components
from synth.layers import Layer
from synth.photo import render_photo, sample_conditions


@dataclass(frozen=True)
class SceneConfig:
    """Tunables of the random scene.

    Attributes
    ----------
    n_players : (int, int)
        Inclusive range of players.
    n_chips : (int, int)
        Inclusive range of chips on the mat.
    p_colourless : float
        Chance that each of up to 3 colourless chips is present.
    p_first_star : float
        Chance the first-star chip is present.
    p_third_board : float
        Chance of a third board lying elsewhere on the mat (role "other").
    clear_margin_mm : float
        "clear" scenes keep every centre at least this far from every board edge.
    borderline_mm : float
        "borderline" scenes put one centre within this distance of an edge.
    p_borderline : float
        Chance a scene is "borderline".
    chip_gap_mm : float
        Minimum gap between chip rims.
    field_mm : (x0, y0, x1, y1)
        Where chip centres and board centres may go.
    p_hidden : float
        Chance each chip is placed under a challenge board (else anywhere on the field).
    """

    n_players: tuple[int, int] = (3, 6)
    n_chips: tuple[int, int] = (8, 30)
    p_colourless: float = 0.3
    p_first_star: float = 0.6
    p_third_board: float = 0.35
    clear_margin_mm: float = 3.0
    borderline_mm: float = 1.0
    p_borderline: float = 0.3
    chip_gap_mm: float = 1.0
    field_mm: tuple[float, float, float, float] = (40.0, 40.0, 520.0, 380.0)
    p_hidden: float = 0.8


def board_outline_mm(board_id: str, centre_mm, rotation_deg: float, mirrored: bool, components: dict | None = None):
    """A board's footprint in table mm.

    The board frame is the component file's ``outlines_mm``; mirroring flips x in that frame (and
    reverses the vertex order to keep the winding), then the board is rotated by
    ``rotation_deg`` (counter-clockwise in the x-right/y-down table frame as drawn by
    ``R = [[c, -s], [s, c]]``) and moved to ``centre_mm``.

    Returns
    -------
    ndarray, shape (N, 2), mm
    """
    comp = components or load_components()
    local = np.asarray(comp["carrotain"]["board"]["outlines_mm"][board_id], dtype=np.float64)
    return board_to_table(local, centre_mm, rotation_deg, mirrored, reverse=True)


def board_to_table(local_mm, centre_mm, rotation_deg: float, mirrored: bool, reverse: bool = False) -> np.ndarray:
    """Board-frame points (N, 2) to table mm with the pose convention of ``board_outline_mm``."""
    p = np.asarray(local_mm, dtype=np.float64).reshape(-1, 2).copy()
    if mirrored:
        p[:, 0] *= -1.0
        if reverse:
            p = p[::-1]
    t = np.radians(rotation_deg)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return p @ R.T + np.asarray(centre_mm, dtype=np.float64)


def board_print_local(board_id: str, components: dict | None = None) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The printed constellation of a board in its own frame (fixed per board id).

    The component file does not give the print layout; the renderer draws a fixed, id-seeded
    one: 6-10 dots inside the outline, joined in a chain with a branch.

    Returns
    -------
    dots_mm : ndarray, shape (K, 2)
    lines : list of (i, j) dot index pairs
    """
    comp = components or load_components()
    local = np.asarray(comp["carrotain"]["board"]["outlines_mm"][board_id], dtype=np.float64)
    poly = Polygon(local).buffer(-14.0)
    rng = np.random.default_rng(1000 + ord(board_id[0]))
    n = int(rng.integers(6, 11))
    x0, y0, x1, y1 = poly.bounds
    dots: list[np.ndarray] = []
    while len(dots) < n:
        p = rng.uniform([x0, y0], [x1, y1])
        if poly.contains(Point(p)) and all(np.hypot(*(p - q)) > 22.0 for q in dots):
            dots.append(p)
    # chain the dots nearest-neighbour first (few crossings, like a drawn constellation), one branch
    pts = np.array(dots)
    order = [0]
    while len(order) < n:
        rest = [i for i in range(n) if i not in order]
        order.append(min(rest, key=lambda i: np.hypot(*(pts[i] - pts[order[-1]]))))
    pts = pts[order]
    lines = [(i, i + 1) for i in range(n - 1)]
    if n > 4:
        lines.append((int(rng.integers(0, n - 3)), n - 1))
    return pts, lines


def sample_scene(rng: np.random.Generator, config: SceneConfig = SceneConfig(), components: dict | None = None) -> dict:
    """A random challenge scene (JSON-able; every position in table mm).

    Returns
    -------
    dict with ``players``, ``challenger``, ``category``, ``chips`` [{kind, colour, xy_mm}],
    ``boards`` [{id, role, centre_mm, rotation_deg, mirrored, outline_mm}], ``mat``.
    """
    comp = components or load_components()
    car = comp["carrotain"]
    colours = list(car["player_colours"])
    n_players = int(rng.integers(config.n_players[0], config.n_players[1] + 1))
    players = [str(c) for c in rng.choice(colours, size=n_players, replace=False)]
    challenger = str(rng.choice(players))
    chip_r = car["chip"]["diameter_mm"] / 2.0
    fx0, fy0, fx1, fy1 = config.field_mm
    category = "borderline" if rng.random() < config.p_borderline else "clear"

    # Two challenge boards side by side near the middle, not overlapping.
    ids = [str(i) for i in rng.permutation(sorted(car["board"]["outlines_mm"]))]
    boards: list[dict] = []
    polys: list[Polygon] = []
    want = 3 if rng.random() < config.p_third_board else 2
    tries = 0
    while len(boards) < want and tries < 400:
        tries += 1
        bid = ids[len(boards)]
        role = "challenge" if len(boards) < 2 else "other"
        if role == "challenge":
            c = rng.uniform([fx0 + 90, fy0 + 70], [fx1 - 90, fy1 - 70])
        else:
            c = rng.uniform([fx0 + 60, fy0 + 60], [fx1 - 60, fy1 - 60])
        rot = float(rng.uniform(0, 360))
        mir = bool(rng.random() < 0.5)
        out = board_outline_mm(bid, c, rot, mir, comp)
        poly = Polygon(out)
        if any(poly.buffer(4.0).intersects(q) for q in polys):
            continue
        if role == "challenge" and len(boards) == 1 and poly.distance(polys[0]) > 60.0:
            continue
        boards.append(
            {"id": bid, "role": role, "centre_mm": [float(c[0]), float(c[1])], "rotation_deg": rot,
             "mirrored": mir, "outline_mm": np.round(out, 3).tolist()}
        )
        polys.append(poly)
    chall = [p for p, b in zip(polys, boards) if b["role"] == "challenge"]
    other = [p for p, b in zip(polys, boards) if b["role"] != "challenge"]
    edges = [p.exterior for p in polys]

    n_chips = int(rng.integers(config.n_chips[0], config.n_chips[1] + 1))
    kinds: list[tuple[str, str | None]] = []
    if rng.random() < config.p_first_star:
        kinds.append(("first_star", None))
    kinds += [("colourless", None) for _ in range(3) if rng.random() < config.p_colourless]
    while len(kinds) < n_chips:
        kinds.append(("star", str(rng.choice(players))))
    kinds = kinds[:n_chips]
    chips: list[dict] = []
    placed: list[np.ndarray] = []
    border_done = category != "borderline"
    for kind, colour in kinds:
        for _ in range(300):
            if not border_done:
                ring = chall[int(rng.integers(0, len(chall)))].exterior
                s = rng.uniform(0, ring.length)
                p0 = np.array(ring.interpolate(s).coords[0])
                p1 = np.array(ring.interpolate(s + 0.5).coords[0])
                t = (p1 - p0) / max(np.hypot(*(p1 - p0)), 1e-9)
                p = p0 + np.array([-t[1], t[0]]) * rng.uniform(-config.borderline_mm, config.borderline_mm)
            elif rng.random() < config.p_hidden and chall:
                poly = chall[int(rng.integers(0, len(chall)))]
                bx0, by0, bx1, by1 = poly.bounds
                p = rng.uniform([bx0, by0], [bx1, by1])
            else:
                p = rng.uniform([fx0, fy0], [fx1, fy1])
            if not (fx0 - 20 <= p[0] <= fx1 + 20 and fy0 - 20 <= p[1] <= fy1 + 20):
                continue
            if any(np.hypot(*(p - q)) < 2 * chip_r + config.chip_gap_mm for q in placed):
                continue
            pt = Point(p)
            if any(q.buffer(chip_r).contains(pt) for q in other):
                continue
            d_edge = min(e.distance(pt) for e in edges)
            if border_done and d_edge < config.clear_margin_mm:
                continue
            if not border_done and d_edge > config.borderline_mm:
                continue
            border_done = True
            placed.append(p)
            chips.append({"kind": kind, "colour": colour, "xy_mm": [round(float(p[0]), 3), round(float(p[1]), 3)]})
            break
    mat = car["mat"]
    return {
        "game": "carrotain",
        "category": category,
        "players": players,
        "challenger": challenger,
        "mat": {"centre_mm": [280.0, 210.0], "size_mm": list(mat["size_mm"])},
        "chips": chips,
        "boards": boards,
    }


@dataclass(frozen=True)
class LayerConfig:
    """Texture resolutions and looks of the drawn pieces.

    Attributes
    ----------
    mat_mm_per_px, piece_mm_per_px : float
        Texture resolutions.
    speck_density_per_cm2 : float
        Printed star specks on the mat.
    board_rgb : (float, float, float)
        Tint of the acrylic body, [0, 1] (the renderer's ``acrylic`` material dims and tints what
        lies below wherever the sheet's alpha covers; the white print is a separate matte sheet on top).
    print_line_mm, print_dot_mm : float
        Printed constellation line width and dot diameter.
    """

    mat_mm_per_px: float = 0.5
    piece_mm_per_px: float = 0.25
    speck_density_per_cm2: float = 1.0 / 20.0
    board_rgb: tuple[float, float, float] = (0.80, 0.86, 0.90)
    print_line_mm: float = 1.0
    print_dot_mm: float = 3.0


def _disc_alpha(size_px: int, centre_px: float, radius_px: float, ss: int = 4) -> np.ndarray:
    """Anti-aliased disc coverage, (size_px, size_px) float32."""
    g = (np.arange(size_px * ss) + 0.5) / ss
    d = np.hypot(g[None, :] - centre_px, g[:, None] - centre_px)
    a = (d <= radius_px).astype(np.float32)
    return a.reshape(size_px, ss, size_px, ss).mean(axis=(1, 3))


def scene_layers(scene: dict, rng: np.random.Generator, config: LayerConfig = LayerConfig(),
                 components: dict | None = None) -> list[Layer]:
    """The scene's pieces as flat sheets: mat (z 0), chips (z 2), boards (z 5, acrylic)."""
    comp = components or load_components()
    car = comp["carrotain"]
    layers: list[Layer] = []
    # Mat
    w_mm, h_mm = scene["mat"]["size_mm"]
    cx, cy = scene["mat"]["centre_mm"]
    s = config.mat_mm_per_px
    W, H = int(round(w_mm / s)), int(round(h_mm / s))
    mat = np.empty((H, W, 4), np.float32)
    mat[..., :3] = np.asarray(car["mat"]["rgb"], np.float32) / 255.0
    mat[..., 3] = 1.0
    n_specks = int(rng.poisson(w_mm * h_mm / 100.0 * config.speck_density_per_cm2))
    for _ in range(n_specks):
        x, y = rng.uniform(0, W), rng.uniform(0, H)
        r = rng.uniform(0.25, 1.5) / s
        col = (1.0, 1.0, 1.0) if rng.random() < 0.6 else (1.0, 0.95, 0.7)
        cv2.circle(mat, (int(x * 16), int(y * 16)), max(int(r * 16), 8), (*col, 1.0), -1, cv2.LINE_AA, 4)
    layers.append(Layer(mat, (cx - w_mm / 2, cy - h_mm / 2), s, 0.0, "matte", False, "mat"))
    # Chips
    chip = car["chip"]
    d_mm = float(chip["diameter_mm"])
    ps = config.piece_mm_per_px
    n = int(np.ceil((d_mm + 1.0) / ps))
    c_px = n / 2.0
    rim = _disc_alpha(n, c_px, d_mm / 2 / ps)
    for i, ch in enumerate(scene["chips"]):
        tex = np.zeros((n, n, 4), np.float32)
        if ch["kind"] == "first_star":
            face = np.asarray(car["first_star_chip"]["face_rgb"], np.float32) / 255
            hole = car["first_star_chip"]["hole_diameter_mm"]
        elif ch["kind"] == "colourless":
            face = np.asarray(car["colourless_chip"]["face_rgb"], np.float32) / 255
            hole = car["colourless_chip"]["hole_diameter_mm"]
        else:
            face = np.asarray(chip["face_rgb"], np.float32) / 255
            hole = 0.0
        tex[..., :3] = face
        tex[..., 3] = rim
        if hole:
            tex[..., 3] *= 1.0 - _disc_alpha(n, c_px, hole / 2 / ps)
        else:
            dot = _disc_alpha(n, c_px, chip["centre_dot_diameter_mm"] / 2 / ps)[..., None]
            col = np.asarray(car["player_colours"][ch["colour"]], np.float32) / 255
            tex[..., :3] = tex[..., :3] * (1 - dot) + col * dot
        x, y = ch["xy_mm"]
        layers.append(Layer(tex, (x - c_px * ps, y - c_px * ps), ps, float(chip["thickness_mm"]), "matte", True,
                            f"chip{i}"))
    # Boards
    for b in scene["boards"]:
        out = np.asarray(b["outline_mm"], np.float64)
        x0, y0 = out.min(axis=0) - 2.0
        x1, y1 = out.max(axis=0) + 2.0
        bw, bh = int(np.ceil((x1 - x0) / ps)), int(np.ceil((y1 - y0) / ps))
        tex = np.zeros((bh, bw, 4), np.float32)
        sh = 16
        pts = np.round((out - [x0, y0]) / ps * sh).astype(np.int32)
        body = np.zeros((bh, bw), np.float32)
        cv2.fillPoly(body, [pts], 1.0, cv2.LINE_AA, 4)
        tex[..., :3] = config.board_rgb
        tex[..., 3] = body
        dots_l, lines = board_print_local(b["id"], comp)
        dots = board_to_table(dots_l, b["centre_mm"], b["rotation_deg"], b["mirrored"])
        prt = np.zeros((bh, bw), np.float32)
        dp = np.round((dots - [x0, y0]) / ps * sh).astype(np.int32)
        lw = max(int(round(config.print_line_mm / ps)), 1)
        for i, j in lines:
            cv2.line(prt, tuple(dp[i]), tuple(dp[j]), 1.0, lw, cv2.LINE_AA, 4)
        for p in dp:
            cv2.circle(prt, tuple(p), int(config.print_dot_mm / 2 / ps * sh), 1.0, -1, cv2.LINE_AA, 4)
        prt *= body
        pr = np.asarray(car["board"]["print_rgb"], np.float32) / 255
        ptex = np.zeros((bh, bw, 4), np.float32)
        ptex[..., :3] = pr
        ptex[..., 3] = prt
        b["print_dots_mm"] = np.round(dots, 3).tolist()
        b["print_lines"] = [list(map(int, ln)) for ln in lines]
        layers.append(Layer(tex, (float(x0), float(y0)), ps, 5.0, "acrylic", False, f"board{b['id']}"))
        layers.append(Layer(ptex, (float(x0), float(y0)), ps, 5.0, "matte", False, f"print{b['id']}"))
    return layers


def render_scene(seed: int, hard: bool = False, config: SceneConfig = SceneConfig()):
    """Seeded scene + photo.

    Returns
    -------
    image_rgb : ndarray (H, W, 3) uint8
    scene : dict (JSON-able truth; ``camera`` and ``conditions`` added)
    photo : the renderer's photo object (``project`` gives ground-truth image px)
    """
    rng = np.random.default_rng(seed)
    comp = load_components()
    scene = sample_scene(rng, config, comp)
    scene["seed"] = int(seed)
    layers = scene_layers(scene, rng, components=comp)
    cond = sample_conditions(rng, look_at_mm=(280, 210), hard=hard)
    photo = render_photo(layers, cond, rng)
    tj = photo.truth_json()
    scene["camera"] = tj["camera"]
    scene["conditions"] = tj["conditions"]
    return photo.image_rgb, scene, photo
