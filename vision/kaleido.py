"""Kaleido recognizer: boards on one triangle lattice, and what lies in each hole.

Stages (each timed): ``lattice`` (top-down view of the table, colour normalisation, one lattice
fitted to every frame edge), ``boards`` (each lattice vertex tried as a board centre, shifted
locally to its holes' edges; the board-centre coset that explains the most holes wins),
``cells`` (each hole's colour against the tile palette and against the table itself, which is
what an empty hole shows).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from core.errors import CannotJudge
from core.timing import StageTimer
from geometry.trilattice import TriangleLattice
from scoring.flags import Flag
from scoring.kaleido_state import BoardReading, KaleidoState
from vision.hexlattice import (
    LatticeFitConfig,
    StrongEdges,
    fit_lattice,
    gradients,
    hexagon_cells,
    refine_hexagons,
    side_maps,
    strong_edges,
)
from vision.kaleido_cells import CellConfig, read_cells, sample_cells
from vision.view import HeightMapping, grid_maps, remap_view, sample

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
    window_min_edges : int
        With fewer lattice-aligned strong edge pixels the whole view is searched.
    search_mm, step_mm : float
        Local shift search of each board candidate (lens, gaps between boards).
    cell_ratio : float
        A hole is present (surely seen) when its weakest side's edge is this many times its interior
        texture.
    cell_floor : float
        Added to the interior texture before that ratio (per mm; guards flat interiors).
    min_cell_edge : float
        And its weakest side's edge is at least this (per mm, normalised colour).
    hole_ratio_even : float
        A triangle whose weakest-side ratio is this is as much a hole as not: its hole evidence is
        ``log(ratio / hole_ratio_even)`` (``find_boards``; blur and noise lower a hole's ratio
        gradually, a bare triangle's is far below).
    hole_evidence_clip : float
        That evidence is clipped to +- this (one triangle never outweighs the others by much): a
        "hole's worth" of evidence.
    min_present_cells : int
        Holes (of 6) that must be present, or hold a tile, to complete a place next to the boards
        (``complete_boards``).
    min_coset_margin : float
        Below this many holes' worth of evidence between the best and the next board-centre coset
        the layout is flagged as ambiguous.
    off_lattice_mm : float
        A board whose own best position departs this far from its neighbours' is flagged.
    max_lattice_inconsistency_mm : float
        Above this the three line families' miss of a common lattice is flagged.
    lattice_fit_mm_per_px : float
        Resolution at which the lattice's rotation and offset are fitted (the boards' own
        positions are then refined at ``mm_per_px``).
    off_lattice_clearance_mm : float
        Strong edges farther than a board's circumradius plus this from every board read are
        evidence of boards off the lattice.
    off_lattice_min_edge_mm : float
        Off the lattice, boards are searched only in windows where those edges add up to at
        least this length (a board's 6 outer and 12 hole sides are about 1000 mm of edges).
    off_lattice_window_mm : float
        Half-side of those windows, mm.
    off_lattice_max_windows : int
        At most this many windows are searched.
    off_lattice_angle_bins : int
        Edge direction bins over 180 degrees for telling a board's three directions (a multiple of 3).
    relattice_max_deg : float
        A board found by the second lattice fit counts as on the common lattice when it sits on a
        board-centre vertex of it and is turned by at most this much, degrees.
    min_board_gap_steps : float
        A board found by the second fit closer than this many board steps to another overlaps it and
        is not a board.
    neighbour_steps : float
        Boards within this many board steps (edge * sqrt 3, centre to centre) are the neighbours a
        board's own shift is compared with (``off_lattice_mm``).
    partial_near_steps : float
        A place with some holes but no whole board is flagged when it lies within this many board
        steps of a board.
    table_sample_steps : float
        Bare-table triangles are sampled within this many board steps of the boards.
    fallback_black_pct, fallback_white_pct : float
        Without a colour reference, these percentiles of the view stand for black and white.
    coarse_vote_min : float
        A coarse (lattice-fit) pixel votes when at least this share of its fine pixels does.
    off_lattice_bins_per_window : float
        Position bins per window half-side when the dense edge windows are counted.
    probe_seen_min : float
        A candidate's probe point is seen when the interpolated vote mask there reaches this.
    table_sample_slack_mm : float
        Added to the bare-table sampling distance (vertices exactly at it are kept).
    complete_min_conf : float
        A hole of a place next to the boards whose edges were too faint counts towards a board when it
        holds a tile read with at least this confidence (``complete_boards``).
    partly_tile_conf : float
        A place next to the boards with a hole read as holding a tile with at least this confidence is
        flagged as partly seen when it is not completed into a board (``complete_boards``).
    table_max_holes : int
        Bare table is sampled at places showing at most this many holes (more: a board missed,
        whose holes hold tiles).
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
    window_margin_mm: float = 65.0
    window_min_edges: int = 50
    search_mm: float = 9.0
    step_mm: float = 3.0
    cell_ratio: float = 2.0
    cell_floor: float = 0.01
    min_cell_edge: float = 0.02
    hole_ratio_even: float = 1.25
    hole_evidence_clip: float = 1.0
    min_present_cells: int = 4
    min_coset_margin: float = 4.0
    off_lattice_mm: float = 6.0
    max_lattice_inconsistency_mm: float = 2.0
    lattice_fit_mm_per_px: float = 2.0
    off_lattice_clearance_mm: float = 4.0
    off_lattice_min_edge_mm: float = 900.0
    off_lattice_window_mm: float = 60.0
    off_lattice_max_windows: int = 3
    off_lattice_angle_bins: int = 36
    relattice_max_deg: float = 1.0
    min_board_gap_steps: float = 0.9
    neighbour_steps: float = 2.1
    partial_near_steps: float = 1.05
    table_sample_steps: float = 2.0
    fallback_black_pct: float = 1.0
    fallback_white_pct: float = 99.5
    coarse_vote_min: float = 0.999
    off_lattice_bins_per_window: float = 1.5
    probe_seen_min: float = 0.5
    table_sample_slack_mm: float = 1.0
    table_max_holes: int = 0
    complete_min_conf: float = 0.6
    partly_tile_conf: float = 0.3
    lattice: LatticeFitConfig = LatticeFitConfig()
    cells: CellConfig = CellConfig()
    palette_rgb: tuple[tuple[str, tuple[float, float, float]], ...] | None = None


@dataclass(frozen=True)
class KaleidoDetection:
    """The recognizer's result with its evidence (for overlays and evaluation).

    Attributes
    ----------
    state : KaleidoState
    lattice : TriangleLattice
    region_mm : tuple[float, float, float, float]
        Table rectangle that was searched.
    board_shift_mm : ndarray, shape (B, 2)
        Each board's own offset from its lattice vertex.
    cell_present : ndarray, shape (B, 6), bool
        Holes whose edges were seen.
    fit : LatticeFit or None
        The lattice fit the boards were found on (live video re-reads them: ``vision/kaleido_warm.py``).
    found : FoundBoards or None
        The board candidates and which were boards; ``off_lattice`` the boards found off the lattice.
    off_lattice : tuple[BoardReading, ...]
    """

    state: KaleidoState
    lattice: TriangleLattice
    region_mm: tuple[float, float, float, float]
    board_shift_mm: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    cell_present: np.ndarray = field(default_factory=lambda: np.zeros((0, 6), dtype=bool))
    fit: LatticeFit | None = None
    found: FoundBoards | None = None
    off_lattice: tuple[BoardReading, ...] = ()


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


def _normalise(cal, image_rgb: np.ndarray, top: np.ndarray, valid: np.ndarray,
               config: KaleidoVisionConfig) -> np.ndarray:
    """Top-down view -> float32 colours with marker black 0 and paper white 1 per channel."""
    import cv2

    colour = getattr(cal, "colour", None)
    if colour is not None and hasattr(colour, "normalise"):
        # the reference's map is per channel and affine: read it off at 0 and 1, apply it in one OpenCV pass
        probe = np.asarray(colour.normalise(np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [255.0, 128.0, 7.0]])),
                           dtype=np.float64)
        offset, scale = probe[0], probe[1] - probe[0]
        if np.allclose(probe[2], offset + scale * [255.0, 128.0, 7.0], rtol=1e-4, atol=1e-4):
            return cv2.transform(top.astype(np.float32), np.column_stack([np.diag(scale), offset]))
        return np.asarray(colour.normalise(top), dtype=np.float32)
    # no colour reference yet: the view's own dark and bright ends stand in for it
    px = top[valid].reshape(-1, 3).astype(np.float32)
    if len(px) == 0:
        px = top.reshape(-1, 3).astype(np.float32)
    black = np.percentile(px, config.fallback_black_pct, axis=0)
    white = np.percentile(px, config.fallback_white_pct, axis=0)
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
    timer = timer or StageTimer()
    with timer.stage("lattice"):
        full_view = top_view(image_rgb, cal, config, region_mm, mask_markers)
        fit = fit_board_lattice(full_view, config)
        lattice, view = fit.lattice, fit.view
        maps = side_maps(view.norm, view.origin_mm, view.mm_per_px, lattice, config.lattice)
    with timer.stage("boards"):
        found = complete_boards(view, lattice, find_boards(view, lattice, maps, config), config)
    with timer.stage("cells"):
        boards, flags = read_boards(view, lattice, found, config)
    with timer.stage("off_lattice"):
        off = find_off_lattice_boards(full_view, fit, boards, config)
    state = KaleidoState(boards=boards + off, edge_mm=config.edge_mm, frame="markers", flags=found.flags + flags)
    return KaleidoDetection(state=state, lattice=lattice, region_mm=view.region_mm,
                            board_shift_mm=found.shift_mm[found.order], cell_present=found.present[found.order],
                            fit=fit, found=found, off_lattice=off)


@dataclass(frozen=True)
class TopView:
    """The table seen from above, colour-normalised.

    Attributes
    ----------
    norm : ndarray, shape (H, W, 3), float32
        Colours with marker black 0 and paper white 1.
    valid : ndarray, shape (H, W), bool
        Inside the photo.
    vote : ndarray, shape (H, W), bool
        Allowed to vote for the lattice (valid, not a marker).
    region_mm : (x0, y0, x1, y1)
        Table rectangle shown; pixel (col, row) is table mm ``region_mm[:2] + (col, row) * mm_per_px``.
    mm_per_px : float
    """

    norm: np.ndarray
    valid: np.ndarray
    vote: np.ndarray
    region_mm: tuple[float, float, float, float]
    mm_per_px: float

    @property
    def origin_mm(self) -> tuple[float, float]:
        return (self.region_mm[0], self.region_mm[1])

    def crop(self, r0: int, r1: int, c0: int, c1: int) -> TopView:
        """Rows r0:r1 and columns c0:c1 of this view."""
        s = self.mm_per_px
        x0, y0 = self.origin_mm
        return TopView(self.norm[r0:r1, c0:c1], self.valid[r0:r1, c0:c1], self.vote[r0:r1, c0:c1],
                       (x0 + c0 * s, y0 + r0 * s, x0 + c1 * s, y0 + r1 * s), s)


@dataclass(frozen=True)
class FoundBoards:
    """Board candidates on the lattice and which of them are boards.

    Attributes
    ----------
    vertices_mm : ndarray, shape (N, 2)
        Lattice vertices tried as board centres.
    shift_mm : ndarray, shape (N, 2)
        Each candidate's own offset from its vertex.
    present : ndarray, shape (N, 6), bool
        Holes whose edges were seen.
    coset : ndarray, shape (N,), int
        Vertex class (a - b) mod 3; board centres are one class.
    best_coset : int
    accepted : ndarray, shape (N,), bool
        Enough holes to be a board.
    order : ndarray, shape (B,), int
        The boards (candidates of the best coset, accepted), top to bottom.
    flags : tuple[Flag, ...]
    evidence : ndarray, shape (N, 6), or None
        How surely each hole is one by its edges (``_hole_evidence``; > 0: more a hole than not).
    """

    vertices_mm: np.ndarray
    shift_mm: np.ndarray
    present: np.ndarray
    coset: np.ndarray
    best_coset: int
    accepted: np.ndarray
    order: np.ndarray
    flags: tuple[Flag, ...] = ()
    evidence: np.ndarray | None = None

    @property
    def hinted(self) -> np.ndarray:
        """(N, 6) bool: holes surely seen, or more a hole than not by their edges (``evidence`` > 0)."""
        return self.present if self.evidence is None else self.present | (self.evidence > 0.0)


def top_view(image_rgb: np.ndarray, cal, config: KaleidoVisionConfig,
             region_mm: tuple[float, float, float, float] | None = None, mask_markers: bool = True) -> TopView:
    """The photographed table around the markers, rectified at the boards' top-face height.

    Raises
    ------
    CannotJudge
        The photo shows none of the table.
    """
    import cv2

    s = config.mm_per_px
    h, w = image_rgb.shape[:2]
    region = region_mm if region_mm is not None else _search_region(cal, (w, h), config)
    maps = grid_maps(HeightMapping(cal, config.top_z_mm).exact_px, region, s, config.map_step_mm)
    top, valid = remap_view(image_rgb, maps)
    valid = cv2.erode(valid.astype(np.uint8), np.ones((3, 3), np.uint8),
                      iterations=config.valid_erode_px).astype(bool)
    norm = _normalise(cal, image_rgb, top, valid, config)
    vote = valid.copy()
    if mask_markers:
        _mask_markers(vote, region, s, config)
    if not vote.any():
        raise CannotJudge("the photo shows none of the table around the markers")
    return TopView(norm, valid, vote, tuple(float(v) for v in region), s)


@dataclass(frozen=True)
class LatticeFit:
    """The board lattice and the evidence it was fitted to.

    Attributes
    ----------
    lattice : TriangleLattice
    view : TopView
        The top view cropped to the edges along the lattice.
    edges : StrongEdges
        The strong edge pixels of the coarse view the lattice was fitted on.
    edges_origin_mm : (float, float)
        Table position of that coarse view's pixel (0, 0).
    edges_mm_per_px : float
    """

    lattice: TriangleLattice
    view: TopView
    edges: StrongEdges
    edges_origin_mm: tuple[float, float]
    edges_mm_per_px: float

    def edges_mm(self) -> np.ndarray:
        """Positions (N, 2) of the strong edge pixels, table mm."""
        e = self.edges
        return np.column_stack([self.edges_origin_mm[0] + e.cols * self.edges_mm_per_px,
                                self.edges_origin_mm[1] + e.rows * self.edges_mm_per_px])


def fit_board_lattice(view: TopView, config: KaleidoVisionConfig) -> LatticeFit:
    """The triangle lattice of the board frames, fitted on a ``lattice_fit_mm_per_px`` copy of the
    view, and the view cropped to the edges along that lattice.

    Raises
    ------
    CannotJudge
        No lattice of straight edges.
    """
    import cv2

    f = max(1, int(round(config.lattice_fit_mm_per_px / view.mm_per_px)))
    norm, vote = view.norm, view.vote
    if f > 1:
        size = (norm.shape[1] // f, norm.shape[0] // f)
        norm = cv2.resize(norm[: size[1] * f, : size[0] * f], size, interpolation=cv2.INTER_AREA)
        vote = cv2.resize(vote[: size[1] * f, : size[0] * f].astype(np.float32), size,
                          interpolation=cv2.INTER_AREA) > config.coarse_vote_min
    s = view.mm_per_px * f
    origin = (view.origin_mm[0] + 0.5 * (f - 1) * view.mm_per_px, view.origin_mm[1] + 0.5 * (f - 1) * view.mm_per_px)
    grad = gradients(norm, config.lattice, s)
    edges = strong_edges(grad, vote, config.lattice)
    lattice, peak = fit_lattice(grad, vote, origin, s, config.edge_mm, config.lattice, edges)
    if peak < config.min_orientation_peak:
        raise CannotJudge("no Kaleido board frames found: no lattice of straight edges in the photo")
    r0, r1, c0, c1 = _lattice_window(edges, vote.shape, lattice, s, config)
    if (r0, r1, c0, c1) != (0, vote.shape[0], 0, vote.shape[1]):
        view = view.crop(r0 * f, min(r1 * f + f, view.norm.shape[0]), c0 * f, min(c1 * f + f, view.norm.shape[1]))
    return LatticeFit(lattice, view, edges, origin, s)


def find_off_lattice_boards(view: TopView, fit: LatticeFit, boards: tuple[BoardReading, ...],
                            config: KaleidoVisionConfig) -> tuple[BoardReading, ...]:
    """Boards that do not sit on the common lattice (pushed away, turned), read and marked
    ``on_lattice=False`` so that the judgement flags them instead of leaving them out.

    The strong edges outside every board read so far are binned; where a board-sized window holds
    as many of them as a board shows, those edges are fitted with a lattice of their own, and where
    that lattice has whole hexagons of holes, they are boards too.
    """
    pts = fit.edges_mm()
    keep = np.ones(len(pts), dtype=bool)
    radius = config.edge_mm + config.off_lattice_clearance_mm
    for b in boards:
        keep &= np.hypot(pts[:, 0] - b.centre_mm[0], pts[:, 1] - b.centre_mm[1]) > radius
    min_px = config.off_lattice_min_edge_mm / fit.edges_mm_per_px
    extra: list[BoardReading] = []
    if keep.sum() < min_px:
        return ()
    e = fit.edges
    rest = StrongEdges(rows=e.rows[keep], cols=e.cols[keep], angle=e.angle[keep], weight=e.weight[keep])
    for centre in _dense_windows(pts[keep], rest.angle, min_px, config):
        near = np.abs(pts[keep] - centre).max(axis=1) <= config.off_lattice_window_mm
        local = StrongEdges(rows=rest.rows[near], cols=rest.cols[near], angle=rest.angle[near],
                            weight=rest.weight[near])
        lattice, peak = fit_lattice(None, None, fit.edges_origin_mm, fit.edges_mm_per_px, config.edge_mm,
                                    config.lattice, local)
        if peak < config.min_orientation_peak:
            continue
        s, (x0, y0, _, _) = view.mm_per_px, view.region_mm
        half = config.off_lattice_window_mm + config.edge_mm
        c0, c1 = int(max(0, (centre[0] - half - x0) / s)), int(min(view.norm.shape[1], (centre[0] + half - x0) / s))
        r0, r1 = int(max(0, (centre[1] - half - y0) / s)), int(min(view.norm.shape[0], (centre[1] + half - y0) / s))
        if c1 - c0 < config.edge_mm / s or r1 - r0 < config.edge_mm / s:
            continue
        sub = view.crop(r0, r1, c0, c1)
        try:
            found = find_boards(sub, lattice, side_maps(sub.norm, sub.origin_mm, s, lattice, config.lattice), config)
        except CannotJudge:
            continue
        apart = config.edge_mm * np.sqrt(3.0) * config.min_board_gap_steps
        for b in read_boards(sub, lattice, found, config)[0]:
            placed = _placed_on(fit.lattice, boards, b, config)
            if placed is not None and all(
                    np.hypot(b.centre_mm[0] - o.centre_mm[0], b.centre_mm[1] - o.centre_mm[1]) > apart
                    for o in (*boards, *extra)):
                extra.append(placed)
    return tuple(extra)


def _placed_on(lattice: TriangleLattice, boards: tuple[BoardReading, ...], b: BoardReading,
               config: KaleidoVisionConfig) -> BoardReading | None:
    """A board found by the second lattice fit, placed against the common lattice.

    On a board-centre vertex of it (within ``off_lattice_mm``, turned by at most
    ``relattice_max_deg``): a board the first pass missed, on the lattice. On another vertex of it:
    the corner where boards meet (its six "holes" belong to them), None. Elsewhere: off the lattice
    (flagged by the judgement).
    """
    offset, coset = _lattice_place(lattice, b.centre_mm)
    turn = abs((b.rotation_deg - lattice.rotation_deg + 30.0) % 60.0 - 30.0)
    if offset > config.off_lattice_mm or turn > config.relattice_max_deg:
        return replace(b, on_lattice=False, lattice_offset_mm=offset)
    centre_cosets = {_lattice_place(lattice, o.centre_mm)[1] for o in boards if o.on_lattice}
    if centre_cosets == {coset}:
        return replace(b, on_lattice=True, lattice_offset_mm=offset)
    return None


def _dense_windows(pts_mm: np.ndarray, angle: np.ndarray, min_count: float,
                   config: KaleidoVisionConfig) -> list[np.ndarray]:
    """Centres (mm) of up to ``off_lattice_max_windows`` non-overlapping square windows (half-side
    ``off_lattice_window_mm``) whose edges run in three directions 60 degrees apart, each with at
    least a third of ``min_count`` points (a board; a striped or checked table has fewer
    directions), richest first.

    Parameters
    ----------
    pts_mm : ndarray, shape (N, 2)
    angle : ndarray, shape (N,)
        Gradient direction of each point modulo pi, radians.
    """
    import cv2

    bin_mm = config.off_lattice_window_mm / config.off_lattice_bins_per_window
    n_ang = config.off_lattice_angle_bins  # over 180 degrees; a multiple of 3
    lo = pts_mm.min(axis=0)
    idx = np.floor((pts_mm - lo) / bin_mm).astype(int)
    a = np.floor(angle / np.pi * n_ang).astype(int) % n_ang
    hist = np.zeros((idx[:, 1].max() + 1, idx[:, 0].max() + 1, n_ang), np.float32)
    np.add.at(hist, (idx[:, 1], idx[:, 0], a), 1.0)
    # angle bins spread by one to either side (edges within a few degrees of a direction)
    hist = hist + np.roll(hist, 1, axis=2) + np.roll(hist, -1, axis=2)
    window = np.stack([cv2.boxFilter(hist[..., k], -1, (3, 3), normalize=False, borderType=cv2.BORDER_CONSTANT)
                       for k in range(n_ang)], axis=2)
    third = n_ang // 3
    trio = np.minimum(np.minimum(window[..., :third], window[..., third:2 * third]), window[..., 2 * third:])
    score = trio.max(axis=2)
    out = []
    for _ in range(config.off_lattice_max_windows):
        r, c = np.unravel_index(int(np.argmax(score)), score.shape)
        if score[r, c] < min_count / 3.0:
            break
        out.append(lo + (np.array([c, r]) + 0.5) * bin_mm)
        score[max(0, r - 1):r + 2, max(0, c - 1):c + 2] = 0.0
    return out


def _lattice_place(lattice: TriangleLattice, xy_mm) -> tuple[float, int]:
    """Distance from a point to the nearest vertex of a lattice (mm), and that vertex's coset (a - b) mod 3."""
    ab = np.round(lattice.coords(np.asarray(xy_mm, dtype=np.float64)[None]))
    cand = ab + np.array([[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1], [1, -1], [-1, 1]])
    d = np.linalg.norm(lattice.vertex(cand) - np.asarray(xy_mm, dtype=np.float64), axis=1)
    k = int(np.argmin(d))
    return float(d[k]), int((cand[k, 0] - cand[k, 1]) % 3)


def find_boards(view: TopView, lattice: TriangleLattice, maps, config: KaleidoVisionConfig) -> FoundBoards:
    """Every lattice vertex tried as a board centre; the board-centre coset explaining the most holes.

    Raises
    ------
    CannotJudge
        No hexagon of holes on the lattice.
    """
    s, region = view.mm_per_px, view.region_mm
    ab = lattice.vertices_in(region, margin_mm=-config.edge_mm)
    V = lattice.vertex(ab)
    if len(V):
        # a candidate shows its centre or one of its holes' centres: a board cut by the photo's edge
        # is tried too, so that its visible holes are explained (or flagged), never ignored
        probe = np.concatenate([V[:, None], hexagon_cells(V, lattice.rotation_deg, config.edge_mm).mean(axis=2)],
                               axis=1)  # (N, 7, 2)
        col, row = (probe[..., 0] - region[0]) / s, (probe[..., 1] - region[1]) / s
        h, w = view.vote.shape
        seen = (sample(view.vote.astype(np.float32), np.stack([col, row], axis=-1), exact=False)
                > config.probe_seen_min) \
            & (col >= 0) & (col <= w - 1) \
            & (row >= 0) & (row <= h - 1)
        inside = seen.any(axis=1)
        ab, V = ab[inside], V[inside]
    if len(V) == 0:
        raise CannotJudge("no Kaleido boards found in the photographed table area")
    shift, edge, interior = refine_hexagons(V, maps, config.edge_mm, config.search_mm, config.step_mm)
    present, evidence = _hole_evidence(edge, interior, config)
    coset = (ab[:, 0] - ab[:, 1]) % 3
    # each hexagon is a board (six holes) or not (none); what that costs is the evidence against it
    as_board = np.maximum(-evidence, 0.0).sum(axis=1)
    as_bare = np.maximum(evidence, 0.0).sum(axis=1)
    accepted = as_board < as_bare
    # board centres are the coset whose hexagons are all-or-nothing: centred on a board corner a
    # hexagon holds 2 or 4 holes of the boards meeting there (impurity = evidence against the better
    # of the two, in holes' worth)
    impurity = np.minimum(as_board, as_bare)
    impure = [float(impurity[coset == c].sum()) for c in range(3)]
    best = int(np.argmin(impure))
    chosen = np.nonzero((coset == best) & accepted)[0]
    if len(chosen) == 0:
        raise CannotJudge("no Kaleido boards found: no hexagon of six holes on the lattice")
    order = chosen[np.lexsort((V[chosen, 0], V[chosen, 1]))]
    flags: list[Flag] = []
    runner_up = min(impure[c] for c in range(3) if c != best)
    if runner_up - impure[best] < config.min_coset_margin:
        flags.append(Flag("board_layout_ambiguous", "board centres are hard to tell from board corners here: "
                          "check the board outlines on the picture", {"impurity": [round(v, 1) for v in impure]}))
    partly = _partly_seen_flag(V, shift, present, coset == best, accepted, lattice, config)
    if partly is not None:
        flags.append(partly)
    if lattice.residual_mm > config.max_lattice_inconsistency_mm:
        flags.append(Flag("lattice_inconsistent", f"the three edge directions miss a common lattice by "
                          f"{lattice.residual_mm:.1f} mm", {"consistency_mm": round(lattice.residual_mm, 2)}))
    return FoundBoards(V, shift, present, coset, best, accepted, order, tuple(flags), evidence)


def _hole_evidence(edge: np.ndarray, interior: np.ndarray,
                   config: KaleidoVisionConfig) -> tuple[np.ndarray, np.ndarray]:
    """How surely each lattice triangle of each hexagon is a hole, from its sides' edges.

    Parameters
    ----------
    edge, interior : ndarray, shape (N, 6, 3)
        Side evidence and interior texture (``refine_hexagons``).

    Returns
    -------
    present : ndarray, shape (N, 6), bool
        Surely a hole (weakest side ``cell_ratio`` times the texture, and at least ``min_cell_edge``).
    evidence : ndarray, shape (N, 6)
        ``log(ratio / hole_ratio_even)`` clipped to ``hole_evidence_clip``: > 0 for a hole, < 0 for
        none, near 0 where blur or noise left its edges faint; a side weaker than ``min_cell_edge``
        counts fully against.
    """
    weakest = edge.min(axis=2)
    ratio = weakest / (interior.mean(axis=2) + config.cell_floor)
    present = (ratio >= config.cell_ratio) & (weakest >= config.min_cell_edge)
    clip = config.hole_evidence_clip
    evidence = np.clip(np.log(np.maximum(ratio, 1e-6) / config.hole_ratio_even), -clip, clip)
    evidence = np.where(weakest >= config.min_cell_edge, evidence, -clip)
    return present, evidence


def _partial_places(V: np.ndarray, shown: np.ndarray, centre_coset: np.ndarray, accepted: np.ndarray,
                    config: KaleidoVisionConfig) -> np.ndarray:
    """Candidates (N,) on the board-centre coset, next to a board, showing some holes (``shown`` (N, 6)) but
    not accepted."""
    near = _near_boards(V, np.nonzero(centre_coset & accepted)[0], config)
    return centre_coset & ~accepted & (shown.sum(axis=1) >= 1) & near


def _partly_seen_flag(V: np.ndarray, shift: np.ndarray, shown: np.ndarray, centre_coset: np.ndarray,
                      accepted: np.ndarray, lattice: TriangleLattice, config: KaleidoVisionConfig) -> Flag | None:
    """``boards_partly_seen`` with its places, or None where every place next to the boards is a board or bare.

    ``shown`` (N, 6): the holes each place showed (their edges, or a tile in them).
    """
    partial = _partial_places(V, shown, centre_coset, accepted, config)
    if not partial.any():
        return None
    n_shown = shown.sum(axis=1)
    places = [{"centre_mm": [round(float(v), 1) for v in V[i] + shift[i]],
               "rotation_deg": round(float(lattice.rotation_deg), 2), "holes": int(n_shown[i])}
              for i in np.nonzero(partial)[0]]
    return Flag("boards_partly_seen", f"{int(partial.sum())} place(s) next to the boards show some "
                "holes but not a whole board (covered, cut off, faint or off the lattice): boards may be "
                "missing from this judgement", {"holes": int(n_shown[partial].sum()), "places": places})


def complete_boards(view: TopView, lattice: TriangleLattice, found: FoundBoards,
                    config: KaleidoVisionConfig) -> FoundBoards:
    """Places next to the boards whose hole edges were too faint to accept them (blur, noise, glare, tiles close
    to the board's own colour), accepted where their holes hold tiles, flagged where some do.

    A place on the board-centre coset does not overlap any board, so a tile-coloured triangle there can
    only be a tile in a board's hole (the bare table is read as empty: it is the empty class's own
    example). A place is a board when at least ``min_present_cells`` of its holes either showed their
    edges or hold a tile (of whichever colour) read with ``complete_min_conf``, at least one of them by its
    edges, and all six are inside the view (a board cut by the photo's edge stays flagged). Only places with
    some hole evidence are read (a hole more likely than not by its edges). A place that is not accepted, but
    shows a hole by its edges or a tile read with ``partly_tile_conf``, is flagged
    (``boards_partly_seen``): a board there would otherwise be missing from the judgement unsaid. Nothing is
    added where the board centres' coset is ambiguous.
    """
    if any(f.code == "board_layout_ambiguous" for f in found.flags):
        return found  # which places are board centres is itself in doubt: nothing is added on that guess
    V, shift = found.vertices_mm, found.shift_mm
    centre_coset = found.coset == found.best_coset
    near = _near_boards(V, found.order, config)
    # places with some hole evidence (a hole more likely than not by its edges): a bare place has none
    cand = np.nonzero(centre_coset & ~found.accepted & near & found.hinted.any(axis=1))[0]
    if len(cand) == 0:
        return found
    tris = hexagon_cells(V[found.order] + shift[found.order], lattice.rotation_deg, config.edge_mm)
    tris_c = hexagon_cells(V[cand] + shift[cand], lattice.rotation_deg, config.edge_mm)
    _, _, tile_conf, valid, _ = _read_cells(view, lattice, found, np.concatenate([tris, tris_c]), config)
    tile_conf, valid = (a[len(found.order) * 6:].reshape(-1, 6) for a in (tile_conf, valid))
    tile = (tile_conf >= config.complete_min_conf) & valid
    support = (found.present[cand] | tile).sum(axis=1)
    take = cand[(support >= config.min_present_cells) & found.present[cand].any(axis=1) & valid.all(axis=1)]
    shown = found.present.copy()
    shown[cand] |= (tile_conf >= config.partly_tile_conf) & valid
    accepted = found.accepted.copy()
    accepted[take] = True
    chosen = np.nonzero(centre_coset & accepted)[0]
    order = chosen[np.lexsort((V[chosen, 0], V[chosen, 1]))]
    partly = _partly_seen_flag(V, shift, shown, centre_coset, accepted, lattice, config)
    flags = tuple(f for f in found.flags if f.code != "boards_partly_seen") + ((partly,) if partly else ())
    return replace(found, accepted=accepted, order=order, flags=flags)


def _read_cells(view: TopView, lattice: TriangleLattice, found: FoundBoards, tris: np.ndarray,
                config: KaleidoVisionConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Triangles (T, 3, 2) read against the tile palette and the bare table beside the boards.

    Returns
    -------
    names : ndarray, shape (T,), object (a palette colour or ``"empty"``)
    confidences : ndarray, shape (T,)
    tile_confidences : ndarray, shape (T,)
        That the triangle holds a tile of any colour rather than showing the table.
    valid : ndarray, shape (T,), bool
        Enough of the triangle inside the photo.
    n_table : int
        Bare-table examples the empty class was learnt from.
    """
    V, shift = found.vertices_mm, found.shift_mm
    # a triangle more a hole than not by its edges (a board too faint to accept, its tiles under glare) is no
    # sample of the bare table
    table_tris = _table_cells(V, shift, found.coset, found.best_coset, found.accepted, found.hinted, lattice, config)
    norm4 = np.concatenate([view.norm, view.valid[..., None].astype(np.float32)], axis=2)
    feats = sample_cells(norm4, view.origin_mm, view.mm_per_px, tris.reshape(-1, 3, 2), config.cells)
    table_feats = sample_cells(norm4, view.origin_mm, view.mm_per_px, table_tris, config.cells)
    palette = dict(config.palette_rgb) if config.palette_rgb is not None else tile_palette_from_components()
    r = read_cells(feats, table_feats, palette, config.cells)
    return (np.asarray(r.names, dtype=object), np.asarray(r.confidence), np.asarray(r.tile_confidence), feats.valid,
            len(table_feats))


def read_boards(view: TopView, lattice: TriangleLattice, found: FoundBoards,
                config: KaleidoVisionConfig) -> tuple[tuple[BoardReading, ...], tuple[Flag, ...]]:
    """Each board's six holes read against the tile palette and the bare table beside the boards."""
    V, shift, order = found.vertices_mm, found.shift_mm, found.order
    centres = V[order] + shift[order]
    tris = hexagon_cells(centres, lattice.rotation_deg, config.edge_mm)
    names, conf, _, _, n_table = _read_cells(view, lattice, found, tris, config)
    names = names.reshape(-1, 6)
    conf = conf.reshape(-1, 6)
    offsets = _relative_shifts(V[order], shift[order], config)
    boards = tuple(
        BoardReading(
            centre_mm=(float(centres[bi, 0]), float(centres[bi, 1])),
            rotation_deg=float(lattice.rotation_deg),
            cells=tuple(None if n == "empty" else str(n) for n in names[bi]),
            confidences=tuple(float(c) for c in conf[bi]),
            on_lattice=float(offsets[bi]) <= config.off_lattice_mm,
            lattice_offset_mm=float(offsets[bi]),
        )
        for bi in range(len(order))
    )
    flags = []
    if n_table == 0:
        flags.append(Flag("no_table_sample", "no free table seen next to the boards: empty holes were judged "
                          "without the table's own colour"))
    return boards, tuple(flags)


def _lattice_window(edges: StrongEdges, shape: tuple[int, int], lattice: TriangleLattice, s: float,
                    config: KaleidoVisionConfig) -> tuple[int, int, int, int]:
    """Rows and columns (r0, r1, c0, c1) of the top-down view around the edges along the lattice."""
    full = (0, shape[0], 0, shape[1])
    aligned = edges.aligned(lattice.rotation_deg, config.lattice.family_tol_deg)
    rows, cols = edges.rows[aligned], edges.cols[aligned]
    if len(rows) < config.window_min_edges:
        return full
    q = config.window_quantile
    pad = int(np.ceil(config.window_margin_mm / s))
    r0, r1 = np.quantile(rows, [q, 1 - q]).astype(int)
    c0, c1 = np.quantile(cols, [q, 1 - q]).astype(int)
    return (max(0, r0 - pad), min(shape[0], r1 + pad), max(0, c0 - pad), min(shape[1], c1 + pad))


def _relative_shifts(vertices: np.ndarray, shifts: np.ndarray, config: KaleidoVisionConfig) -> np.ndarray:
    """How far each board's own best position departs from its neighbours' (B,), mm.

    Lens and perspective errors shift neighbouring boards alike; a board that does not lie edge to
    edge with the others departs from them.
    """
    out = np.zeros(len(vertices))
    if len(vertices) == 0:
        return out
    d = np.linalg.norm(vertices[:, None] - vertices[None], axis=2)
    for i in range(len(vertices)):
        nb = (d[i] > 1e-6) & (d[i] <= config.edge_mm * np.sqrt(3.0) * config.neighbour_steps)
        ref = np.median(shifts[nb], axis=0) if nb.any() else np.median(shifts, axis=0)
        out[i] = np.linalg.norm(shifts[i] - ref)
    return out


def _near_boards(V: np.ndarray, chosen: np.ndarray, config: KaleidoVisionConfig) -> np.ndarray:
    """Lattice vertices (N,) within one board step of an accepted board."""
    if len(chosen) == 0:
        return np.zeros(len(V), dtype=bool)
    d = np.linalg.norm(V[:, None] - V[chosen][None], axis=2).min(axis=1)
    return d <= config.edge_mm * np.sqrt(3.0) * config.partial_near_steps


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


def _table_cells(V, shift, coset, best, accepted, present, lattice: TriangleLattice,
                 config: KaleidoVisionConfig) -> np.ndarray:
    """Lattice triangles next to the boards that are not holes: samples of the bare table.

    Returns
    -------
    ndarray, shape (T, 3, 2), table mm
    """
    board_idx = np.nonzero((coset == best) & accepted)[0]
    if len(board_idx) == 0:
        return np.zeros((0, 3, 2))
    # a place showing some holes is most likely a board the search missed (blur, a low-contrast tile),
    # and its holes hold tiles: the bare table is sampled where no hole shows, those places only if
    # there is nothing else
    rest = (coset == best) & ~accepted
    bare = rest & (present.sum(axis=1) <= config.table_max_holes)
    others = np.nonzero(bare if bare.any() else rest)[0]
    if len(others) == 0:
        return np.zeros((0, 3, 2))
    d = np.linalg.norm(V[others][:, None] - V[board_idx][None], axis=2).min(axis=1)
    near = others[d <= config.table_sample_steps * config.edge_mm * np.sqrt(3.0) + config.table_sample_slack_mm]
    tris = hexagon_cells(V[near], lattice.rotation_deg, config.edge_mm)  # (M, 6, 3, 2)
    keep = ~present[near]
    return tris[keep]
