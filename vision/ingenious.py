"""Ingenious from photos: the board's pose, then every cell (empty or a tile half's colour).

The board (2 mm cardboard) is found on its printed face (z = 2 mm) from the markers' table frame
(``vision.hexboard``); tiles are 4 mm thick, so their top faces (z = 6 mm) are read on a top view of
that plane, which puts every tile face back over its own cell at any camera tilt. The printed start
symbols are read on the board face and must agree with the pose.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from geometry.hexgrid import Cell, HexBoardPose, cells_within, ring
from scoring.ingenious_state import FULL_RADIUS, START_CELLS, Board
from vision.hexboard import (
    BoardFit,
    HexBoardConfig,
    HexBoardSpec,
    TopView,
    find_board,
    landmark_evidence,
    landmark_matches,
    refine,
    top_view,
)
from vision.hexboard_cells import HUE_DEG, CellReadConfig, CellReading, read_cells
from vision.hexboard_palette import PaletteConfig, photo_prototypes
from vision.ingenious_cover import CoverConfig, with_cover_doubts


@dataclass(frozen=True)
class IngeniousVisionConfig:
    """Tunables of the Ingenious reader.

    Attributes
    ----------
    board : HexBoardConfig
    cells : CellReadConfig
    cover : CoverConfig
        Doubts on cells a hand or an object lies over (``vision.ingenious_cover``).
    cell_smooth_sigma_px : float
        Gaussian smoothing (top-view pixels) of the views the cells and printed symbols are read on (0: none):
        dim photos' noise reads as faint symbols on empty faces and hides pale ones; a symbol's details are 2 mm
        or more.
    palette : PaletteConfig or None
        Each photo's hue prototypes measured on its printed start symbols (``vision.hexboard_palette``);
        None: the nominal ``hue_deg`` in every photo.
    board_top_mm : float
        Printed board face above the table (2 mm cardboard).
    tile_top_mm : float
        Tile top faces above the table (board + 4 mm tiles).
    hue_deg : dict colour -> degrees
        Symbol hue prototypes (``vision.hexboard_cells.HUE_DEG``; a profile may replace them).
    pitch_mm : float
    centre_hint_mm : (float, float)
        Usual board centre in the marker layout (components: 640 x 560 mm layout, centre 320, 280).
    max_refine_shift_mm : float
        A pose refined on the next photo may move this far before the full search runs again.
    rim_mm : float
        Width of the board's printed rim (components), for the markerless fallback.
    """

    board: HexBoardConfig = HexBoardConfig()
    cells: CellReadConfig = CellReadConfig()
    cover: CoverConfig = CoverConfig()
    cell_smooth_sigma_px: float = 1.0
    palette: PaletteConfig | None = PaletteConfig()
    board_top_mm: float = 2.0
    tile_top_mm: float = 6.0
    hue_deg: tuple[tuple[str, float], ...] = tuple(HUE_DEG.items())
    pitch_mm: float = 31.0
    centre_hint_mm: tuple[float, float] = (320.0, 280.0)
    max_refine_shift_mm: float = 12.0
    rim_mm: float = 16.0

    def spec(self) -> HexBoardSpec:
        return HexBoardSpec(self.pitch_mm, FULL_RADIUS, self.board_top_mm, dict(START_CELLS), self.centre_hint_mm)


@dataclass(frozen=True)
class BoardReading:
    """Everything read from one photo.

    Attributes
    ----------
    pose : HexBoardPose
    cells : dict Cell -> CellReading
        Every cell of the physical board (radius 7) except the printed symbols.
    symbols : dict Cell -> CellReading
        The printed symbol cells, read on the board face.
    landmarks_read : int
        Printed symbols read as their colour.
    flags : tuple of str
        Doubts about the pose.
    refined : bool
        The pose was refined from a prior one (not searched from scratch).
    kept : bool
        The prior pose was kept as it is (an earlier frame of the same still scene, live video).
    prototypes : tuple of (colour, hue degrees)
        The hue prototypes the cells were read with (this photo's, from its printed symbols).
    anchors : tuple of str
        The colours whose prototype was measured on their printed symbol (the others interpolated).
    """

    pose: HexBoardPose
    cells: dict[Cell, CellReading]
    symbols: dict[Cell, CellReading]
    landmarks_read: int
    flags: tuple[str, ...] = field(default_factory=tuple)
    refined: bool = False
    kept: bool = False
    prototypes: tuple[tuple[str, float], ...] = ()
    anchors: tuple[str, ...] = ()

    def board(self) -> Board:
        """The tile hexes read (doubtful ones included with their best colour)."""
        return Board.of({c: r.colour for c, r in self.cells.items() if r.colour is not None})

    def doubtful(self) -> dict[Cell, str]:
        """Cells whose reading is in doubt, with the reason."""
        return {c: r.doubt for c, r in self.cells.items() if r.doubt}


def marker_layout():
    """The Ingenious marker layout (640 x 560 mm around the radius-7 board, components)."""
    from calibration.markers import MarkerLayout
    from components import load_components

    comp = load_components()
    cal = comp["ingenious"]["calibration"]
    base = comp["calibration"]
    return MarkerLayout(
        dictionary=base["aruco_dictionary"],
        side_mm=float(base["marker_side_mm"]),
        centres_mm={int(k): (float(v[0]), float(v[1])) for k, v in cal["marker_centres_mm"].items()},
    )


BOARD_CELLS = tuple(c for c in cells_within(FULL_RADIUS) if c not in START_CELLS)


def face_groups(cells) -> np.ndarray:
    """Cells whose bare faces look alike, as group numbers: one ring each (the centre cell with ring 1). A ring has
    one printed face colour (components: rings 0-5 cream, ring 6 grey, ring 7 darker) and lies at about one
    distance from the light, so a tint gradient across the board (a lamp's spot in another colour than the room's
    light) does not set one ring apart from another's median. Returns (N,) int."""
    return np.array([max(ring(c), 1) for c in cells], dtype=np.int64)


def _protos(config: IngeniousVisionConfig) -> dict[str, float]:
    return dict(config.hue_deg)


def landmark_reader(config: IngeniousVisionConfig):
    """A function (view, centres_mm) -> colours, for ``find_board``."""
    protos = _protos(config)

    def read(view: TopView, centres_mm: np.ndarray) -> list[str | None]:
        return [r.colour if not r.doubt else None for r in read_cells(view, centres_mm, protos, config.cells)]

    return read


def _confirmed(view: TopView, pose: HexBoardPose, config: IngeniousVisionConfig) -> tuple[bool, int]:
    """Do the printed symbols read where ``pose`` puts them? Enough of them read as printed, or fewer (a hand
    over some) and none contradicted. Returns (confirmed, symbols read as printed)."""
    got = landmark_reader(config)(view, pose.cell_centres_mm(np.array(list(START_CELLS), dtype=np.float64)))
    want = list(START_CELLS.values())
    n_ok = landmark_matches(got, want)
    confirmed = n_ok >= config.board.min_landmarks or (
        n_ok >= config.board.min_landmarks_clear and landmark_evidence(got, want) == n_ok)
    return confirmed, n_ok


def locate(image_rgb: np.ndarray, calibration, config: IngeniousVisionConfig = IngeniousVisionConfig(),
           prior: HexBoardPose | None = None,
           keep_prior: bool = False) -> tuple[HexBoardPose, int, tuple[str, ...], bool, TopView]:
    """The board pose: ``prior`` itself when ``keep_prior`` (another frame of the same still scene, live video)
    and its printed symbols still read; else refined from ``prior`` when given (and still confirmed); else
    searched.

    Returns
    -------
    pose, landmarks read, flags, refined, the board-face top view used
    """
    spec = config.spec()
    if prior is not None and keep_prior:
        view = top_view(image_rgb, calibration, prior.centre_mm, spec.extent_mm + spec.pitch_mm, spec.top_mm,
                        config.board.mm_per_px)
        confirmed, n_ok = _confirmed(view, prior, config)
        if confirmed:
            return prior, n_ok, (), True, view
    if prior is not None:
        pose, _contrast, view = refine(image_rgb, calibration, spec, prior, config.board)
        shift = float(np.linalg.norm(np.subtract(pose.centre_mm, prior.centre_mm)))
        confirmed, n_ok = _confirmed(view, pose, config)
        if confirmed and shift <= config.max_refine_shift_mm:
            return pose, n_ok, (), True, view
    fit: BoardFit = find_board(image_rgb, calibration, spec, landmark_reader(config), config.board)
    return fit.pose, fit.landmarks_read, fit.flags, False, fit.view


def read_board(image_rgb: np.ndarray, calibration, config: IngeniousVisionConfig = IngeniousVisionConfig(),
               prior: HexBoardPose | None = None, keep_prior: bool = False) -> BoardReading:
    """Locate the board and read every cell of one photo.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration
        From the markers (the table frame and the camera pose for the tile height).
    config : IngeniousVisionConfig
    prior : HexBoardPose, optional
        The pose found on the other photo of the pair (only refined here).
    keep_prior : bool
        ``prior`` was found on an earlier frame of this very scene (live video, the camera and board still):
        used as it is while the printed symbols read there, without refining.
    """
    pose, n_ok, flags, refined, face = locate(image_rgb, calibration, config, prior, keep_prior)
    lm = pose.cell_centres_mm(np.array(list(START_CELLS), dtype=np.float64))
    face_s = _smoothed(face, config)
    protos, anchors = _photo_palette(face_s, lm, config)
    sym = dict(zip(START_CELLS, read_cells(face_s, lm, protos, config.cells), strict=True))
    half = FULL_RADIUS * config.pitch_mm + config.pitch_mm
    tiles = top_view(image_rgb, calibration, pose.centre_mm, half, config.tile_top_mm, config.board.mm_per_px)
    cells = np.array(BOARD_CELLS, dtype=np.float64)
    groups = face_groups(BOARD_CELLS)
    tiles_s = _smoothed(tiles, config)
    readings = read_cells(tiles_s, pose.cell_centres_mm(cells), protos, config.cells, groups)
    board = with_cover_doubts(dict(zip(BOARD_CELLS, readings, strict=True)), sym, face_s, tiles_s,
                              pose.cell_centres_mm(cells), config.cells, config.cover)
    return BoardReading(
        pose=pose,
        cells=board,
        symbols=sym,
        landmarks_read=n_ok,
        flags=tuple(flags),
        refined=refined,
        kept=keep_prior and pose is prior,
        prototypes=tuple(protos.items()),
        anchors=anchors,
    )


def _smoothed(view: TopView, config: IngeniousVisionConfig) -> TopView:
    """The view the cells are read on: slightly smoothed (``cell_smooth_sigma_px``) against sensor noise and JPEG's
    chroma blotches, which in dim light pass the symbol threshold on empty faces and hide pale symbols."""
    if config.cell_smooth_sigma_px <= 0:
        return view
    return replace(view, image=cv2.GaussianBlur(view.image, (0, 0), config.cell_smooth_sigma_px))


def _photo_palette(face: TopView, symbols_mm: np.ndarray,
                   config: IngeniousVisionConfig) -> tuple[dict[str, float], tuple[str, ...]]:
    """This photo's hue prototypes: the printed start symbols (``symbols_mm``, in ``START_CELLS`` order) read on
    the board face with the nominal ones, then their hues as the prototypes (``vision.hexboard_palette``).
    Returns the prototypes and the colours measured."""
    nominal = _protos(config)
    if config.palette is None:
        return nominal, ()
    first = read_cells(face, symbols_mm, nominal, config.cells)
    printed = {colour: r for colour, r in zip(START_CELLS.values(), first, strict=True)}
    return photo_prototypes(nominal, printed, config.palette)


def read_board_markerless(image_rgb: np.ndarray, config: IngeniousVisionConfig = IngeniousVisionConfig()
                          ) -> tuple[BoardReading, object] | None:
    """No markers: the board's rim gives the frame (see ``vision.hexboard_markerless``).

    Returns the reading and the plane calibration it used, or None when no rim hexagon is found or
    no turn puts the printed symbols on their colours.
    """
    from vision.hexboard_markerless import board_outline_mm, candidate_frames, rim_corners_px

    corners = rim_corners_px(image_rgb)
    if corners is None:
        return None
    h, w = image_rgb.shape[:2]
    outline = board_outline_mm(FULL_RADIUS, config.pitch_mm, config.rim_mm)
    read = landmark_reader(config)
    lm = np.array(list(START_CELLS), dtype=np.float64)
    pose0 = HexBoardPose(config.centre_hint_mm, 0.0, config.pitch_mm)
    best = None
    for cal in candidate_frames(corners, outline, config.centre_hint_mm, (w, h)):
        view = top_view(image_rgb, cal, config.centre_hint_mm, FULL_RADIUS * config.pitch_mm + config.pitch_mm,
                        config.board_top_mm, config.board.mm_per_px)
        got = read(view, pose0.cell_centres_mm(lm))
        n_ok = sum(1 for g, want in zip(got, START_CELLS.values(), strict=True) if g == want)
        if best is None or n_ok > best[0]:
            best = (n_ok, cal)
    if best is None or best[0] < config.board.min_landmarks - 1:
        return None
    cal = best[1]
    reading = read_board(image_rgb, cal, config, prior=pose0)
    flags = reading.flags + ("markerless: the frame comes from the board's rim, tile heights are ignored",)
    return replace(reading, flags=flags), cal
