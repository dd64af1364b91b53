"""Kaleido recognizer: boards on one triangle lattice, and what lies in each hole.

Stages (each timed): ``lattice`` (top-down view of the table, colour normalisation, one lattice
fitted to every frame edge), ``boards`` (each lattice vertex tried as a board centre, shifted
locally to its holes' edges; the board-centre coset that explains the most holes wins),
``cells`` (each hole's colour against the tile palette and against the table itself, which is
what an empty hole shows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.errors import CannotJudge
from core.timing import StageTimer
from scoring.flags import Flag
from scoring.kaleido_state import BoardReading, KaleidoState
from vision.hexlattice import (
    Lattice,
    LatticeFitConfig,
    bilinear,
    fit_lattice,
    gradients,
    hexagon_cells,
    refine_hexagons,
    side_maps,
)
from vision.kaleido_cells import CellConfig, classify_cells, sample_cells

DEFAULT_TILE_RGB = {
    "red": (205, 40, 45),
    "yellow": (240, 200, 35),
    "green": (45, 155, 70),
    "blue": (40, 85, 195),
    "purple": (125, 60, 165),
    "white": (240, 240, 236),
}


def tile_palette_from_components(components: dict | None = None) -> dict[str, tuple[float, float, float]]:
    """The tile colours (0-255 sRGB) of a component description (default: the bundled one)."""
    from components import load_components

    cols = (components or load_components())["kaleido"]["tile"]["colours"]
    return {k: tuple(float(x) for x in v) for k, v in cols.items()}


@dataclass(frozen=True)
class KaleidoVisionConfig:
    """Tunables of the Kaleido recognizer.

    Attributes
    ----------
    edge_mm : float
        Board edge = lattice edge, mm.
    mm_per_px : float
        Resolution of the top-down view.
    top_z_mm : float
        Height of the boards' and tiles' top faces: the plane the top-down view shows, mm.
    map_step_mm : float
        Grid step at which the photo <-> table mapping is evaluated for the top-down view.
    region_margin_mm : float
        How far beyond the calibration markers boards are looked for, mm.
    marker_mask_mm : float
        Half-side of the square around each marker centre that never votes for the lattice, mm.
    valid_erode_px : int
        The top-down view's border (outside the photo) is shrunk by this much.
    min_orientation_peak : float
        Orientation histogram peak over its mean below which no lattice is seen.
    window_quantile, window_margin_mm : float
        The boards are searched within the quantiles of the lattice-aligned edges' positions,
        widened by the margin (mm).
    search_mm, step_mm : float
        Local shift search of each board candidate (lens, gaps between boards).
    cell_ratio : float
        A hole is present when its weakest side's edge is this many times its interior texture.
    cell_floor : float
        Added to the interior texture before that ratio (per mm; guards flat interiors).
    min_cell_edge : float
        And its weakest side's edge is at least this (per mm, normalised colour).
    min_present_cells : int
        Holes (of 6) that must be present to accept a board.
    min_coset_margin : int
        Below this many holes between the best and the next board-centre coset the layout is
        flagged as ambiguous.
    off_lattice_mm : float
        A board whose own best position departs this far from its neighbours' is flagged.
    lattice : LatticeFitConfig
    cells : CellConfig
    palette_rgb : tuple[tuple[str, tuple[float, float, float]], ...] or None
        Tile colours (0-255 sRGB) to classify against; None: the bundled component colours
        (a calibration profile may register a user's own).
    """

    edge_mm: float = 60.0
    mm_per_px: float = 1.0
    top_z_mm: float = 2.0
    map_step_mm: float = 10.0
    region_margin_mm: float = 80.0
    marker_mask_mm: float = 40.0
    valid_erode_px: int = 3
    min_orientation_peak: float = 2.0
    window_quantile: float = 0.01
    window_margin_mm: float = 90.0
    search_mm: float = 9.0
    step_mm: float = 3.0
    cell_ratio: float = 3.0
    cell_floor: float = 0.01
    min_cell_edge: float = 0.03
    min_present_cells: int = 4
    min_coset_margin: int = 4
    off_lattice_mm: float = 6.0
    lattice: LatticeFitConfig = LatticeFitConfig()
    cells: CellConfig = CellConfig()
    palette_rgb: tuple[tuple[str, tuple[float, float, float]], ...] | None = None


@dataclass(frozen=True)
class KaleidoDetection:
    """The recognizer's result with its evidence (for overlays and evaluation).

    Attributes
    ----------
    state : KaleidoState
    lattice : Lattice
    region_mm : tuple[float, float, float, float]
        Table rectangle that was searched.
    board_shift_mm : ndarray, shape (B, 2)
        Each board's own offset from its lattice vertex.
    cell_present : ndarray, shape (B, 6), bool
        Holes whose edges were seen.
    """

    state: KaleidoState
    lattice: Lattice
    region_mm: tuple[float, float, float, float]
    board_shift_mm: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    cell_present: np.ndarray = field(default_factory=lambda: np.zeros((0, 6), dtype=bool))


def _search_region(cal, image_size: tuple[int, int], config: KaleidoVisionConfig) -> tuple[float, ...]:
    w, h = image_size
    corners = cal.px_to_mm(np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))
    lo = corners.min(axis=0)
    hi = corners.max(axis=0)
    try:
        from calibration.markers import MarkerLayout

        m = np.array(list(MarkerLayout.from_components().centres_mm.values()), dtype=np.float64)
        lo = np.maximum(lo, m.min(axis=0) - config.region_margin_mm)
        hi = np.minimum(hi, m.max(axis=0) + config.region_margin_mm)
    except Exception:  # noqa: BLE001 - a layout problem only widens the search
        pass
    return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))


def _rectify_maps(cal, s: float, region, z_mm: float, step_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Remap tables (photo px per top-down px) for the plane ``z_mm``, from a coarse grid.

    The mapping (homography, camera pose, lens) is smooth, so it is evaluated every ``step_mm``
    and interpolated: exact to well under a pixel and far cheaper than mapping every pixel.
    """
    import cv2

    x0, y0, x1, y1 = region
    w = int(round((x1 - x0) / s))
    h = int(round((y1 - y0) / s))
    nx = max(2, int(np.ceil((x1 - x0) / step_mm)) + 1)
    ny = max(2, int(np.ceil((y1 - y0) / step_mm)) + 1)
    gx, gy = np.meshgrid(np.linspace(x0, x0 + (w - 1) * s, nx), np.linspace(y0, y0 + (h - 1) * s, ny))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    if z_mm != 0.0 and hasattr(cal, "mm_to_px_at_height"):
        px = np.asarray(cal.mm_to_px_at_height(grid, z_mm), dtype=np.float64)
    else:
        px = np.asarray(cal.mm_to_px(grid), dtype=np.float64)
    px = np.where(np.isfinite(px), px, -1e4)
    mapx = cv2.resize(px[:, 0].reshape(ny, nx).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    mapy = cv2.resize(px[:, 1].reshape(ny, nx).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return mapx, mapy


def _normalise(cal, image_rgb: np.ndarray, top: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Top-down view -> float32 colours with marker black 0 and paper white 1 per channel."""
    colour = getattr(cal, "colour", None)
    if colour is not None and hasattr(colour, "normalise"):
        return np.asarray(colour.normalise(top), dtype=np.float32)
    # no colour reference yet: the view's own dark and bright ends stand in for it
    px = top[valid].reshape(-1, 3).astype(np.float32)
    if len(px) == 0:
        px = top.reshape(-1, 3).astype(np.float32)
    black = np.percentile(px, 1.0, axis=0)
    white = np.percentile(px, 99.5, axis=0)
    return ((top.astype(np.float32) - black) / np.maximum(white - black, 1.0)).astype(np.float32)


def detect_kaleido(
    image_rgb: np.ndarray,
    cal,
    config: KaleidoVisionConfig = KaleidoVisionConfig(),
    timer: StageTimer | None = None,
    region_mm: tuple[float, float, float, float] | None = None,
    mask_markers: bool = True,
) -> KaleidoDetection:
    """Find the boards and read their cells.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    cal : TableCalibration
        Image px <-> table mm (markers, or the markerless lattice fallback).
    config : KaleidoVisionConfig
    timer : StageTimer, optional
    region_mm : (x0, y0, x1, y1), optional
        Table area to search; default: what the photo shows around the markers.
    mask_markers : bool
        Keep the calibration markers' squares out of the lattice fit.

    Returns
    -------
    KaleidoDetection

    Raises
    ------
    CannotJudge
        No board frames in view.
    """
    import cv2

    timer = timer or StageTimer()
    s = config.mm_per_px
    with timer.stage("lattice"):
        h, w = image_rgb.shape[:2]
        region = region_mm if region_mm is not None else _search_region(cal, (w, h), config)
        mapx, mapy = _rectify_maps(cal, s, region, config.top_z_mm, config.map_step_mm)
        top = cv2.remap(image_rgb, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        valid = cv2.remap(np.full((h, w), 255, np.uint8), mapx, mapy, cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0) > 128
        valid = cv2.erode(valid.astype(np.uint8), np.ones((3, 3), np.uint8),
                          iterations=config.valid_erode_px).astype(bool)
        norm = _normalise(cal, image_rgb, top, valid)
        vote = valid.copy()
        if mask_markers:
            _mask_markers(vote, region, s, config)
        grad = gradients(norm, config.lattice, s)
        if not vote.any():
            raise CannotJudge("the photo shows none of the table around the markers")
        lattice, peak = fit_lattice(grad, vote, (region[0], region[1]), s, config.edge_mm, config.lattice)
        if peak < config.min_orientation_peak:
            raise CannotJudge("no Kaleido board frames found: no lattice of straight edges in the photo")
        r0, r1, c0, c1 = _lattice_window(grad, vote, lattice, s, config)
        region = (region[0] + c0 * s, region[1] + r0 * s, region[0] + c1 * s, region[1] + r1 * s)
        norm, valid, vote = norm[r0:r1, c0:c1], valid[r0:r1, c0:c1], vote[r0:r1, c0:c1]
        maps = side_maps(norm, (region[0], region[1]), s, lattice, config.lattice)

    with timer.stage("boards"):
        ab = lattice.vertices_in(region, margin_mm=config.edge_mm * 0.5)
        V = lattice.vertex(ab)
        if len(V):
            inside = bilinear(vote.astype(np.float32), (V[:, 0] - region[0]) / s, (V[:, 1] - region[1]) / s) > 0.5
            ab, V = ab[inside], V[inside]
        if len(V) == 0:
            raise CannotJudge("no Kaleido boards found in the photographed table area")
        shift, edge, interior = refine_hexagons(V, maps, config.edge_mm, config.search_mm, config.step_mm)
        weakest = edge.min(axis=2)
        ratio = weakest / (interior.mean(axis=2) + config.cell_floor)
        present = (ratio >= config.cell_ratio) & (weakest >= config.min_cell_edge)  # (N, 6)
        n_present = present.sum(axis=1)
        coset = (ab[:, 0] - ab[:, 1]) % 3
        accepted = n_present >= config.min_present_cells
        # board centres are the coset whose hexagons are all-or-nothing: centred on a board corner a
        # hexagon holds 2 or 4 holes of the boards meeting there (impurity = holes to add or remove)
        impurity = np.minimum(n_present, 6 - n_present)
        impure = [int(impurity[coset == c].sum()) for c in range(3)]
        best = int(np.argmin(impure))
        chosen = np.nonzero((coset == best) & accepted)[0]
        if len(chosen) == 0:
            raise CannotJudge("no Kaleido boards found: no hexagon of six holes on the lattice")
        order = chosen[np.lexsort((V[chosen, 0], V[chosen, 1]))]
        flags: list[Flag] = []
        runner_up = min(impure[c] for c in range(3) if c != best)
        if runner_up - impure[best] < config.min_coset_margin:
            flags.append(Flag("board_layout_ambiguous", "board centres are hard to tell from board corners here: "
                              "check the board outlines on the picture", {"impurity": impure}))
        near = _near_boards(V, chosen, config.edge_mm)
        partial = (coset == best) & ~accepted & (n_present >= 1) & near
        if partial.any():
            flags.append(Flag("boards_partly_seen", f"{int(partial.sum())} place(s) next to the boards show some "
                              "holes but not a whole board (covered, cut off or off the lattice): boards may be "
                              "missing from this judgement", {"holes": int(n_present[partial].sum())}))
        if lattice.consistency_mm > 2.0:
            flags.append(Flag("lattice_inconsistent", f"the three edge directions miss a common lattice by "
                              f"{lattice.consistency_mm:.1f} mm", {"consistency_mm": round(lattice.consistency_mm, 2)}))

    with timer.stage("cells"):
        centres = V[order] + shift[order]
        tris = hexagon_cells(centres, lattice.rotation_deg, config.edge_mm)
        table_tris = _table_cells(V, shift, coset, best, accepted, present, lattice, config)
        norm4 = np.concatenate([norm, valid[..., None].astype(np.float32)], axis=2)
        feats = sample_cells(norm4, (region[0], region[1]), s, tris.reshape(-1, 3, 2), config.cells)
        table_feats = sample_cells(norm4, (region[0], region[1]), s, table_tris, config.cells)
        palette = dict(config.palette_rgb) if config.palette_rgb is not None else tile_palette_from_components()
        names, conf = classify_cells(feats, table_feats, palette, config.cells)
        names = np.asarray(names, dtype=object).reshape(-1, 6)
        conf = np.asarray(conf).reshape(-1, 6)
        boards = []
        offsets = _relative_shifts(V[order], shift[order], config.edge_mm)
        for bi in range(len(order)):
            off = float(offsets[bi])
            boards.append(BoardReading(
                centre_mm=(float(centres[bi, 0]), float(centres[bi, 1])),
                rotation_deg=float(lattice.rotation_deg),
                cells=tuple(None if n == "empty" else str(n) for n in names[bi]),
                confidences=tuple(float(c) for c in conf[bi]),
                on_lattice=off <= config.off_lattice_mm,
                lattice_offset_mm=off,
            ))
        if len(table_feats) == 0:
            flags.append(Flag("no_table_sample", "no free table seen next to the boards: empty holes were judged "
                              "without the table's own colour"))

    state = KaleidoState(boards=tuple(boards), edge_mm=config.edge_mm, frame="markers", flags=tuple(flags))
    return KaleidoDetection(state=state, lattice=lattice, region_mm=region, board_shift_mm=shift[order],
                            cell_present=present[order])


def _lattice_window(grad, vote: np.ndarray, lattice: Lattice, s: float, config: KaleidoVisionConfig):
    """Rows and columns (r0, r1, c0, c1) of the top-down view around the edges along the lattice."""
    mag = np.where(vote, grad.magnitude, 0.0)
    vals = mag[vote]
    if vals.size == 0:
        return 0, vote.shape[0], 0, vote.shape[1]
    strong = mag > max(float(np.quantile(vals, config.lattice.strong_quantile)), 1e-6)
    ang = grad.angle
    aligned = np.zeros_like(strong)
    for m in range(3):
        beta = np.deg2rad(lattice.rotation_deg + 90.0 + 60.0 * m)
        aligned |= np.abs(((ang - beta) + np.pi / 2) % np.pi - np.pi / 2) < np.deg2rad(config.lattice.family_tol_deg)
    rows, cols = np.nonzero(strong & aligned)
    if len(rows) < 50:
        return 0, vote.shape[0], 0, vote.shape[1]
    q = config.window_quantile
    pad = int(np.ceil(config.window_margin_mm / s))
    r0, r1 = np.quantile(rows, [q, 1 - q]).astype(int)
    c0, c1 = np.quantile(cols, [q, 1 - q]).astype(int)
    return (max(0, r0 - pad), min(vote.shape[0], r1 + pad), max(0, c0 - pad), min(vote.shape[1], c1 + pad))


def _relative_shifts(vertices: np.ndarray, shifts: np.ndarray, edge_mm: float) -> np.ndarray:
    """How far each board's own best position departs from its neighbours' (B,), mm.

    Lens and perspective errors shift neighbouring boards alike; a board that does not lie edge to
    edge with the others departs from them.
    """
    out = np.zeros(len(vertices))
    if len(vertices) == 0:
        return out
    d = np.linalg.norm(vertices[:, None] - vertices[None], axis=2)
    for i in range(len(vertices)):
        nb = (d[i] > 1e-6) & (d[i] <= edge_mm * np.sqrt(3.0) * 2.1)
        ref = np.median(shifts[nb], axis=0) if nb.any() else np.median(shifts, axis=0)
        out[i] = np.linalg.norm(shifts[i] - ref)
    return out


def _near_boards(V: np.ndarray, chosen: np.ndarray, edge_mm: float) -> np.ndarray:
    """Lattice vertices (N,) within one board step of an accepted board."""
    if len(chosen) == 0:
        return np.zeros(len(V), dtype=bool)
    d = np.linalg.norm(V[:, None] - V[chosen][None], axis=2).min(axis=1)
    return d <= edge_mm * np.sqrt(3.0) * 1.05


def _mask_markers(vote: np.ndarray, region, s: float, config: KaleidoVisionConfig) -> None:
    try:
        from calibration.markers import MarkerLayout

        centres = MarkerLayout.from_components().centres_mm.values()
    except Exception:  # noqa: BLE001
        return
    half = config.marker_mask_mm
    for cx, cy in centres:
        c0 = int(max(0, (cx - half - region[0]) / s))
        c1 = int(max(0, (cx + half - region[0]) / s))
        r0 = int(max(0, (cy - half - region[1]) / s))
        r1 = int(max(0, (cy + half - region[1]) / s))
        vote[r0:r1, c0:c1] = False


def _table_cells(V, shift, coset, best, accepted, present, lattice: Lattice, config: KaleidoVisionConfig) -> np.ndarray:
    """Lattice triangles next to the boards that are not holes: samples of the bare table.

    Returns
    -------
    ndarray, shape (T, 3, 2), table mm
    """
    board_idx = np.nonzero((coset == best) & accepted)[0]
    if len(board_idx) == 0:
        return np.zeros((0, 3, 2))
    others = np.nonzero((coset == best) & ~accepted)[0]
    if len(others) == 0:
        return np.zeros((0, 3, 2))
    d = np.linalg.norm(V[others][:, None] - V[board_idx][None], axis=2).min(axis=1)
    near = others[d <= 2.0 * config.edge_mm * np.sqrt(3.0) + 1.0]
    tris = hexagon_cells(V[near], lattice.rotation_deg, config.edge_mm)  # (M, 6, 3, 2)
    keep = ~present[near]
    return tris[keep]
