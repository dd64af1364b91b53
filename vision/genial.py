"""Genial Spezial from photos: the board's pose, every cell (empty or a player's tile), every tower and its token.

Steps, from the markers' table frame and camera pose (``TableCalibration``):

1. the lattice (rotation modulo 60 degrees and one node) on a top view of the board face (z = 2 mm), with the
   hex-board finder of ``vision.hexboard`` (shared with Ingenious);
2. which node is the centre cell and which of the six turns is right: the double-hexagon outline that covers the
   most board-coloured nodes (``locate``); when another pose covers nearly as many, the set-up's towers standing
   (a token on top, 28 or 45 mm up) and the earlier placements' tiles in their colours pick one, else the pose is
   flagged. The board and its tower spaces are 180-degree symmetric: the other photo's pose or the earlier tiles
   pick the turn, else it is flagged as unresolved;
3. every cell's colour at the tile top (z = 2 + 4 mm), by its nearest prototype in CIELAB of the marker-
   normalised colours, sampled once per photo; cells a tower's prism hides from this camera are unreadable, never
   guessed; a bonus cell from the lighter half of its disc (its asterisk is dark ink on the face); a pale patch
   that is not the board's warm face is glare on a tile (doubtful); cells read black in the
   towers' cast shadows (their direction found in the photo) are doubtful unless an earlier black tile lies there;
4. every token on top of its tower (z = 2 + height + 2 mm): side (light / dark face), symbol (the hue of its
   coloured pixels) and value (the numeral's ink; doubtful values are reported as doubtful).

Vision may not import the Genial rules (import-linter): it returns its own plain types and the plugin turns
them into ``scoring.genial_judgement.GenialReading``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from geometry.hexgrid import (
    SQRT3,
    Cell,
    HexBoardPose,
    cells_within,
    centres_board_mm,
    hexagon_board_mm,
    nearest_cells,
)
from scoring.genial_board import GenialBoard
from vision.genial_doubt import (
    FACE_UNCLEAR,
    CellDoubt,
    CellDoubtKind,
    Doubted,
    DoubtKind,
    TokenDoubt,
    cell_doubt,
    doubt,
    doubt_text,
    doubts_from_json,
)
from vision.genial_numeral import (
    NumeralConfig,
    NumeralRead,
    fit_residual,
    photo_blur,
    read_numeral,
    sample_luminances,
    shared_blur_mm2,
    token_blur_mm2,
    with_fit_residual,
    with_learned,
)
from vision.genial_numeral_model import NumeralModelConfig, features, load_model, predict
from vision.genial_token_centre import TokenCentreConfig, corrected_centres
from vision.genial_token_centre import token_centres as find_token_centres
from vision.hexboard import HexBoardConfig, HexBoardSpec, lattice_fit, top_view
from vision.view import TableView, rgb_to_lab

TILE_RGB: dict[str, tuple[int, int, int]] = {
    "red": (200, 42, 42), "blue": (38, 84, 190), "yellow": (236, 196, 34), "black": (38, 38, 42)}
SYMBOL_RGB: dict[str, tuple[int, int, int]] = {
    "orange": (240, 128, 24), "blue": (40, 110, 210), "green": (44, 150, 72), "purple": (132, 60, 164)}


@dataclass(frozen=True)
class GenialVisionConfig:
    """Tunables of the Genial Spezial reader (mm unless said).

    Attributes
    ----------
    board : HexBoardConfig
        The lattice finder's tunables.
    board_top_mm, tile_thickness_mm, token_thickness_mm : float
    tower_heights_mm : (small, large)
    tower_across_flats_mm, token_diameter_mm : float
    pitch_mm : float
    centre_hint_mm : (float, float)
        The board centre in the 700 x 560 mm marker layout.
    board_radius : int
        Cells from the centre cell to the farthest cell (12 for the double hexagon).
    centre_search_cells : int
        Lattice nodes this many cells around the hint are tried as the centre cell.
    board_vs_table, board_min_lightness : float
        A lattice node whose colour lies farther than this from the table's (CIELAB, lightness weighted) and is
        not darker than this lightness is on the board (the outline search counts them).
    min_board_margin : int
        The best pose must cover this many more board-coloured cells than any pose but its 180-degree twin ...
    min_tower_margin : int
        ... or, among those within that margin, show this many more of the set-up's towers standing and earlier
        tiles in their colour than any other.
    min_shadow_cells, shadow_agreement, shadow_sector_deg, shadow_reach : int, float, float, float
        Towers' cast shadows: at least this many cells read black that no earlier tile covers, within
        ``shadow_reach`` pitches of a tower, their directions from it agreeing this much (mean resultant length),
        make every cell read black within this many degrees of that direction (and as far) a shadow suspect.
    symbol_fraction : (float, float)
        A token is present when this fraction of its disc is coloured (its symbol): more is a tile top (a token
        with no symbol seen is kept, its symbol unread). A symbol may fill most of the disc around the numeral
        (a sun's rays reach 8.3 of the token's 9 mm radius): up to about 0.85 once blurred.
    token_centre_mm, token_centre_plain : float
        ... or when at least this fraction of its centre (this radius) is uncoloured: the face around the numeral
        (a dark face's flower blurred over it colours the disc nearly all over, a tile top's centre too).
    blurred_face_chroma, blurred_face_contrast, blurred_face_percentiles : float, float, (float, float)
        At a tower the set-up puts there (the board pose chosen), a disc coloured all over is still a token when it
        shows a dark face its symbol's colour was blurred over (a webcam's blur and JPEG chroma bleed) rather than a
        tile top: its low lightness percentile below ``dark_face_lightness`` (the dark side), its lightness
        spanning at least ``blurred_face_contrast`` between the two percentiles (the white numeral and the symbol on
        the face; a tile top is one colour) and its median chroma at most ``blurred_face_chroma`` (a tile top
        shows its own colour at full chroma). On the committed pairs x webcam seeds 0-4 (840 token reads): the 12
        towers missed this way read median chroma 36-48, p10 lightness 22-38, spread 16-28; none of the 1022 tile
        tops there that the strict test keeps out (median chroma of those: p5 38-71 by colour, median 77-84)
        passes all three.
    cell_r_mm : float
        Radius of the disc sampled at each cell centre.
    lightness_weight : float
        Weight of the lightness difference in the colour distance (uneven light changes it most).
    cell_prototypes_rgb : dict name -> RGB
        Colours a cell can show: the empty face and the four player colours (a bonus cell, its asterisk printed
        dark on the face, is read from the lighter half of its samples).
    cell_max_distance, cell_margin : float
        A cell's nearest prototype must lie within this distance and beat the second by this margin, else the
        cell is doubtful (unreadable).
    empty_max_distance, empty_min_b : float
        An empty cell must also lie this close to the board's face and be as warm (CIELAB b*) as its beige: a
        neutral or remote pale patch is a tile washed out by glare, doubtful.
    black_max_chroma : float
        A cell read black must be nearly neutral (the black tile is [38, 38, 42]; on the tune sets' 407 black cells
        the median's chroma was at most 10): a dark cell with more colour is a colour tile in a deep shadow,
        doubtful.
    cell_step_mm : float
        Spacing of the sample points on a cell's disc.
    min_visible : float
        A cell with less than this fraction of its disc left visible beside the towers is hidden (unreadable);
        otherwise its colour is read from its visible part.
    token_r_mm : float
        Radius of the disc sampled on a token.
    dark_face_lightness, side_margin : float
        A token face whose lightness (``face_percentile`` of its uncoloured pixels: low enough that a dark face's
        white numeral and its blends with the symbol do not lift it) lies below this is the dark side; within
        ``side_margin`` of it the side is doubtful.
    face_percentile : float
    min_plain : float
        A token read light with fewer uncoloured pixels on its disc than this fraction is doubtful: blur can spread
        a large symbol's colour over a dark face, leaving its white numeral most of what is uncoloured.
    symbol_chroma_min : float
        Token pixels above this chroma belong to the symbol.
    min_symbol_px : int
        Fewer symbol pixels than this: symbol doubtful.
    numeral_mm, min_numeral_px : float
        The token's numeral is this tall; below this many photo pixels its value is not read (doubtful).
    numeral : NumeralConfig
        The numeral reader's tunables (``vision.genial_numeral``).
    symbol_inner_mm : tuple of (symbol, mm)
        Radius of the face disc left inside each symbol for the numeral (the kit's print; unread symbol: the
        smallest).
    side_ink_margin : float
        A side the face leaves unclear is the one whose numeral ink fits this much better (best normalised
        correlation of its digits, white ink vs black ink; on the 624 token reads of the tune sets gen_tune and
        gen_tune2 the true side's ink always fit better, by 0.07-0.6, median 0.34).
    token_set : tuple of (players, light-1 tokens per symbol, light-2 tokens per symbol)
        The tokens on the towers for each player count (the rulebook, seed 003: all 24 for four players; two
        players set aside one 1 and one 2 of every symbol, three players one 2): ``vision.genial_tokens`` settles
        doubtful reads by elimination against it.
    token_centre : TokenCentreConfig
        Where the numerals are searched: the tokens found by their symbols correct the board pose's error
        (``vision.genial_token_centre``).
    """

    board: HexBoardConfig = HexBoardConfig(mm_per_px=1.5, face_band_mm=(7.5, 10.0), line_band_mm=(10.8, 13.2),
                                           refine_step_deg=0.5, rotation_span_deg=2.0, refine_span_deg=0.5)
    board_top_mm: float = 2.0
    tile_thickness_mm: float = 4.0
    token_thickness_mm: float = 2.0
    tower_heights_mm: tuple[float, float] = (28.0, 45.0)
    tower_across_flats_mm: float = 20.0
    token_diameter_mm: float = 18.0
    pitch_mm: float = 24.0
    centre_hint_mm: tuple[float, float] = (350.0, 280.0)
    board_radius: int = 12
    centre_search_cells: int = 3
    board_vs_table: float = 15.0
    board_min_lightness: float = 35.0
    min_board_margin: int = 5
    min_tower_margin: int = 3
    min_shadow_cells: int = 3
    shadow_agreement: float = 0.7
    shadow_sector_deg: float = 40.0
    shadow_reach: float = 3.0
    symbol_fraction: tuple[float, float] = (0.0, 0.92)
    token_centre_mm: float = 2.0
    token_centre_plain: float = 0.5
    blurred_face_chroma: float = 50.0
    blurred_face_contrast: float = 15.0
    blurred_face_percentiles: tuple[float, float] = (10.0, 90.0)
    cell_r_mm: float = 6.0
    lightness_weight: float = 0.35
    cell_prototypes_rgb: tuple[tuple[str, tuple[int, int, int]], ...] = (
        ("empty", (226, 214, 188)), *TILE_RGB.items())
    cell_max_distance: float = 40.0
    cell_margin: float = 4.0
    empty_max_distance: float = 20.0
    empty_min_b: float = 6.0
    black_max_chroma: float = 18.0
    cell_step_mm: float = 1.5
    min_visible: float = 0.4
    token_r_mm: float = 7.5
    dark_face_lightness: float = 52.0
    side_margin: float = 6.0
    face_percentile: float = 25.0
    min_plain: float = 0.2
    symbol_chroma_min: float = 28.0
    min_symbol_px: int = 4
    numeral_mm: float = 4.8
    min_numeral_px: float = 3.0
    numeral: NumeralConfig = NumeralConfig()
    numeral_model: NumeralModelConfig | None = NumeralModelConfig()
    symbol_inner_mm: tuple[tuple[str, float], ...] = (("orange", 4.3), ("blue", 4.6), ("green", 4.9), ("purple", 3.9))
    side_ink_margin: float = 0.15
    token_set: tuple[tuple[int, int, int], ...] = ((2, 2, 2), (3, 3, 2), (4, 3, 3))
    token_centre: TokenCentreConfig = TokenCentreConfig()

    def spec(self) -> HexBoardSpec:
        return HexBoardSpec(self.pitch_mm, self.board_radius, self.board_top_mm, {}, self.centre_hint_mm)

    def height(self, size: str) -> float:
        return self.tower_heights_mm[1] if size == "large" else self.tower_heights_mm[0]


@dataclass(frozen=True)
class TokenRead:
    """A tower and its token as read.

    Attributes
    ----------
    qr : (int, int)
    size : str
        ``"large"`` or ``"small"`` (from the set-up; the tower was found standing there).
    symbol : str or None
        None when the symbol's colour could not be read.
    value : int
        The numeral showing (best reading; see ``doubts``).
    dark : bool
    doubts : tuple of TokenDoubt
        Empty when the token read cleanly, else why its side, symbol or value is doubtful
        (:mod:`vision.genial_doubt`: decisions read their kinds; ``doubt`` is their text).
    """

    qr: Cell
    size: str
    symbol: str | None
    value: int
    dark: bool
    doubts: tuple[TokenDoubt, ...] = ()

    @property
    def doubt(self) -> str:
        """Why it is doubtful, as the players read it (empty when it read cleanly)."""
        return doubt_text(self.doubts)

    def doubted(self, what: Doubted) -> bool:
        """Some reason puts any of ``what`` in doubt."""
        return any(d.about(what) for d in self.doubts)

    def any_of(self, kinds: frozenset[DoubtKind]) -> bool:
        """Some reason is of one of ``kinds``."""
        return any(d.kind in kinds for d in self.doubts)

    @property
    def value_doubted(self) -> bool:
        """Its value was read with doubt: its numeral, or its side (and so which two values it chooses between)."""
        return self.doubted(Doubted.NUMERAL | Doubted.SIDE)

    @property
    def side_doubted(self) -> bool:
        """Its side (light or dark) was read with doubt."""
        return self.doubted(Doubted.SIDE)

    @property
    def symbol_doubted(self) -> bool:
        """Its symbol was not read, or read with doubt."""
        return self.symbol is None or self.doubted(Doubted.SYMBOL)

    def to_json(self) -> dict:
        return {"qr": list(self.qr), "size": self.size, "symbol": self.symbol, "value": self.value,
                "dark": self.dark, "doubt": self.doubt, "doubts": [d.to_json() for d in self.doubts]}

    @classmethod
    def from_json(cls, obj: Mapping) -> TokenRead:
        q, r = obj["qr"]
        return cls((int(q), int(r)), str(obj["size"]), obj.get("symbol"), int(obj["value"]), bool(obj["dark"]),
                   doubts_from_json(obj))


@dataclass(frozen=True)
class NumeralCarry:
    """A numeral compared on one frame, for the later frames of the same still scene (same camera, the token not
    moved): read again only when the token shows another side.

    Attributes
    ----------
    dark : bool
        The side it was read on.
    read : NumeralRead or None
        None: not compared (too small, or outside the photo).
    tall_px : float
        The numeral's height in photo px.
    other : NumeralRead or None
        The numeral read as the other side's (when the face left the side unclear).
    """

    dark: bool
    read: NumeralRead | None
    tall_px: float
    other: NumeralRead | None = None


@dataclass(frozen=True)
class GenialPhoto:
    """Everything read from one photo.

    Attributes
    ----------
    pose : HexBoardPose
    tiles : dict Cell -> colour
    towers : tuple of TokenRead
        Towers found at the set-up's spaces.
    missing_towers : tuple of Cell
        Set-up spaces where no tower was found.
    unreadable : dict Cell -> CellDoubt
        Hidden behind a tower, or a colour too far from every prototype (typed: decisions read its kind; the JSON
        also carries its text, ``why``).
    towers_found : int
        Board-coloured cells under the chosen outline.
    runner_up : int
        The same for the best pose other than the chosen one's 180-degree twin.
    turn_resolved : str
        ``"towers"`` (no twin), ``"tiles"`` (the earlier tiles picked the turn) or ``"unresolved"``.
    flags : tuple of str
    numerals : dict Cell -> NumeralCarry
        The numerals this photo compared (not in the JSON): a later frame of the same still scene reuses them.
    """

    pose: HexBoardPose
    tiles: dict[Cell, str]
    towers: tuple[TokenRead, ...]
    missing_towers: tuple[Cell, ...]
    unreadable: dict[Cell, CellDoubt]
    towers_found: int
    runner_up: int
    turn_resolved: str
    flags: tuple[str, ...] = field(default_factory=tuple)
    numerals: Mapping[Cell, NumeralCarry] = field(default_factory=dict, compare=False, repr=False)

    def to_json(self) -> dict:
        return {"pose": self.pose.to_json(),
                "tiles": [{"qr": list(c), "colour": v} for c, v in sorted(self.tiles.items())],
                "towers": [t.to_json() for t in self.towers],
                "missing_towers": [list(c) for c in self.missing_towers],
                "unreadable": [{"qr": list(c), **v.to_json()} for c, v in sorted(self.unreadable.items())],
                "towers_found": self.towers_found, "runner_up": self.runner_up,
                "turn_resolved": self.turn_resolved, "flags": list(self.flags)}

    @classmethod
    def from_json(cls, obj: Mapping) -> GenialPhoto:
        def cell(v) -> Cell:
            return int(v[0]), int(v[1])

        return cls(HexBoardPose.from_json(obj["pose"]),
                   {cell(t["qr"]): str(t["colour"]) for t in obj.get("tiles", [])},
                   tuple(TokenRead.from_json(t) for t in obj.get("towers", [])),
                   tuple(cell(c) for c in obj.get("missing_towers", [])),
                   {cell(u["qr"]): CellDoubt.from_json({k: v for k, v in u.items() if k != "qr"})
                    for u in obj.get("unreadable", [])},
                   int(obj.get("towers_found", 0)), int(obj.get("runner_up", 0)),
                   str(obj.get("turn_resolved", "unresolved")), tuple(obj.get("flags", [])))


def marker_layout():
    """The 700 x 560 mm marker rectangle of Genial Spezial (components)."""
    from calibration.markers import MarkerLayout
    from components import load_components

    comp = load_components()
    cal = comp["genial_spezial"]["calibration"]
    base = comp["calibration"]
    return MarkerLayout(dictionary=base["aruco_dictionary"], side_mm=float(base["marker_side_mm"]),
                        centres_mm={int(k): (float(v[0]), float(v[1])) for k, v in cal["marker_centres_mm"].items()})


def _project(view: TableView, xy_mm: np.ndarray, z_mm: float | np.ndarray) -> np.ndarray:
    """Photo px (N, 2) of table points (N, 2) on the plane(s) ``z_mm`` (scalar or (N,)), one projection per
    distinct height."""
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    zs = np.broadcast_to(np.asarray(z_mm, dtype=np.float64), (len(xy),))
    px = np.empty_like(xy)
    for z in np.unique(zs):
        m = zs == z
        px[m] = view.mm_to_px(xy[m], float(z))
    return px


def _lab_at_px(view: TableView, px: np.ndarray) -> np.ndarray:
    """CIELAB of the marker-normalised photo at photo points (N, 2) -> (N, 3), NaN outside the photo. Bilinear
    samples of the photo itself (only the samples are normalised)."""
    h, w = view.image_rgb.shape[:2]
    maps = px.astype(np.float32).reshape(-1, 1, 2)
    rgb = cv2.remap(view.image_rgb, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3)
    lab = rgb_to_lab(view.colour.normalise(rgb)).astype(np.float64)
    outside = ~((px[:, 0] >= 0) & (px[:, 1] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] <= h - 1))
    lab[outside] = np.nan
    return lab


def _lab_samples(view: TableView, xy_mm: np.ndarray, z_mm: float | np.ndarray) -> np.ndarray:
    """CIELAB of the marker-normalised photo at table points (N, 2) on the plane(s) ``z_mm`` (scalar or (N,))
    -> (N, 3), NaN outside."""
    return _lab_at_px(view, _project(view, xy_mm, z_mm))


def _disc(r_mm: float, step_mm: float) -> np.ndarray:
    """Grid points (N, 2) of spacing ``step_mm`` within ``r_mm`` of the origin, row-major; centrally symmetric
    (point ``N - 1 - i`` is point ``i`` negated)."""
    n = int(np.floor(r_mm / step_mm + 1e-9))
    g = step_mm * np.arange(-n, n + 1, dtype=np.float64)
    xx, yy = np.meshgrid(g, g)
    keep = xx ** 2 + yy ** 2 <= r_mm ** 2 + 1e-9
    return np.stack([xx[keep], yy[keep]], axis=1)


# ---------------------------------------------------------------- pose


def _token_disc(config: GenialVisionConfig, step_mm: float = 0.5) -> np.ndarray:
    """Sample points (N, 2) on a token's disc, nearest the centre first (the first ``_token_centre_count`` are the
    centre's)."""
    disc = _disc(config.token_r_mm, step_mm)
    return disc[np.argsort(np.hypot(disc[:, 0], disc[:, 1]), kind="stable")]


def _token_centre_count(config: GenialVisionConfig, step_mm: float = 0.5) -> int:
    disc = _disc(config.token_r_mm, step_mm)
    return int(np.sum(np.hypot(disc[:, 0], disc[:, 1]) <= config.token_centre_mm + 1e-9))


def _token_labs(view: TableView, pose: HexBoardPose, layout: Mapping[Cell, str], config: GenialVisionConfig,
                step_mm: float = 0.5) -> dict[Cell, np.ndarray]:
    """CIELAB of the pixels on every token's disc (top of the tower of ``layout``), nearest the centre first, in one
    sampling pass; finite rows only. Shapes (N, 3)."""
    cells = sorted(layout)
    if not cells:
        return {}
    disc = _token_disc(config, step_mm)
    centres = pose.cell_centres_mm(np.array(cells, dtype=np.float64))
    pts = (centres[:, None, :] + disc[None]).reshape(-1, 2)
    zs = np.repeat([_token_z(layout[c], config) for c in cells], len(disc))
    lab = _lab_samples(view, pts, zs).reshape(len(cells), len(disc), 3)
    return {c: lab[i][np.all(np.isfinite(lab[i]), axis=1)] for i, c in enumerate(cells)}


def token_present(lab: np.ndarray, config: GenialVisionConfig) -> bool:
    """A token shows a face of one lightness with its coloured symbol (not a tile top, which is coloured all over):
    at most ``symbol_fraction[1]`` of its disc coloured, or, when blur spreads a large symbol over a dark face, a
    mostly uncoloured centre (the face around the numeral). ``lab``: :func:`_token_labs`' rows."""
    if len(lab) == 0:
        return False
    coloured = np.hypot(lab[:, 1], lab[:, 2]) >= config.symbol_chroma_min
    frac = float(np.mean(coloured))
    if config.symbol_fraction[0] <= frac <= config.symbol_fraction[1]:
        return True
    n = _token_centre_count(config)
    whole = len(lab) == len(_token_disc(config))
    return whole and float(np.mean(coloured[:n])) <= 1.0 - config.token_centre_plain


def token_blurred_dark(lab: np.ndarray, config: GenialVisionConfig) -> bool:
    """A token's dark face whose symbol's colour the photo's blur spread over it (coloured nearly all over, so
    :func:`token_present` takes it for a tile top), told from a tile top by what a tile top does not show: its
    darkest pixels the dark side's face, a lightness span (its white numeral and the symbol on it), and a median
    chroma below a tile top's own colour (``GenialVisionConfig.blurred_face_*``). Only for a tower the set-up puts
    at this place: a tile top elsewhere may be darker in a shadow. ``lab``: :func:`_token_labs`' rows."""
    if len(lab) != len(_token_disc(config)):
        return False
    low, high = np.percentile(lab[:, 0], config.blurred_face_percentiles)
    chroma = float(np.median(np.hypot(lab[:, 1], lab[:, 2])))
    return bool(low < config.dark_face_lightness and high - low >= config.blurred_face_contrast
                and chroma <= config.blurred_face_chroma)


def towers_seen(labs: Mapping[Cell, np.ndarray], layout: Mapping[Cell, str],
                config: GenialVisionConfig) -> dict[Cell, str]:
    """The set-up's towers ``layout`` showing their token at the chosen board pose ({cell: size}): its disc
    (``labs``) passes :func:`token_present`, or shows a dark face blurred over (:func:`token_blurred_dark`)."""
    return {c: layout[c] for c in sorted(layout)
            if token_present(labs[c], config) or token_blurred_dark(labs[c], config)}


def _boardlike(view: TableView, xy_mm: np.ndarray, table: np.ndarray, config: GenialVisionConfig) -> np.ndarray:
    """Whether each point (N, 2) at the tile top looks like the board: its colour far from the table's
    (``table``: rows of points known to lie off the board) and not dark (the rim, shadows and black tiles
    say nothing). Shape (N,) bool."""
    lab = _lab_samples(view, xy_mm, config.board_top_mm + config.tile_thickness_mm)
    ref = _lab_samples(view, table, config.board_top_mm)
    ref = ref[np.all(np.isfinite(ref), axis=1)]
    if len(ref) == 0:
        return np.zeros(len(lab), dtype=bool)
    w = np.array([config.lightness_weight, 1.0, 1.0])
    d = np.linalg.norm((lab - np.median(ref, axis=0)) * w, axis=1)
    with np.errstate(invalid="ignore"):
        return (np.nan_to_num(d, nan=0.0) > config.board_vs_table) & (lab[:, 0] > config.board_min_lightness)


def _is_twin(a: HexBoardPose, b: HexBoardPose) -> bool:
    turn = (b.rotation_deg - a.rotation_deg) % 360.0
    return abs(turn - 180.0) < 1.0 and np.allclose(a.centre_mm, b.centre_mm, atol=1.0)


@lru_cache(maxsize=4)
def _outline(board: GenialBoard, pitch_mm: float) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The board's cells and the two rings just off it, turned by each 60-degree step, as lattice offsets from
    the centre cell (6 arrays (N, 2)), and which of them are on the board (N,) bool."""
    on = set(board.cells())
    off = sorted({(c[0] + dq, c[1] + dr) for c in on for dq, dr in cells_within(2)} - on)
    cells = centres_board_mm(np.array(sorted(on) + off, dtype=np.float64), pitch_mm)
    sign = np.r_[np.ones(len(on), dtype=bool), np.zeros(len(off), dtype=bool)]
    turns = []
    for t in range(6):
        a = np.deg2rad(60.0 * t)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        turns.append(nearest_cells(cells @ rot.T, pitch_mm)[0])
    return tuple(turns), sign


@lru_cache(maxsize=8)
def _search_nodes(reach: int) -> tuple[np.ndarray, np.ndarray]:
    """Lattice offsets within ``reach`` of a node (N, 2) int, and those of its outermost ring (M, 2) float."""
    nodes = np.array(cells_within(reach), dtype=np.int64)
    ring = np.max(np.abs(np.column_stack([nodes, nodes.sum(axis=1)])), axis=1) == reach
    outer = nodes[ring].astype(np.float64)
    nodes.flags.writeable = False
    outer.flags.writeable = False
    return nodes, outer


@lru_cache(maxsize=4)
def free_cells(board: GenialBoard) -> tuple[Cell, ...]:
    """The board's cells a tile may cover (every cell but the tower spaces)."""
    spaces = board.space_cells()
    return tuple(c for c in board.cells() if c not in spaces)


def locate(view: TableView, board: GenialBoard, config: GenialVisionConfig = GenialVisionConfig(),
           prior: HexBoardPose | None = None) -> tuple[HexBoardPose, int, int, float, list[HexBoardPose]]:
    """The board pose whose double-hexagon outline covers the most board-coloured cells and leaves the most
    others just outside it (one of two 180-degree twins, which cover the same cells).

    With ``prior`` (the other photo of the pair, same camera) the lattice is only refined around it and the
    centre node and turn searched near it.

    Returns
    -------
    pose, agreeing cells (board-like inside plus not board-like in the two rings outside), runner-up (best
    non-twin), lattice contrast, rivals (one pose per other twin pair covering within ``min_board_margin`` of the
    best: the outline alone cannot tell them from the best)
    """
    spec = config.spec()
    hint = spec.centre_hint_mm if prior is None else prior.centre_mm
    half = spec.extent_mm + config.pitch_mm * (config.centre_search_cells + 1)
    face = top_view(view.image_rgb, view.calibration, hint, half, config.board_top_mm, config.board.mm_per_px)
    if prior is None:
        node, rot60, contrast = lattice_fit(face, spec, hint, config.board)
    else:
        node, rot60, contrast = lattice_fit(face, spec, hint, config.board, rotation_deg=prior.rotation_deg)
    base = HexBoardPose((float(node[0]), float(node[1])), rot60, config.pitch_mm)
    reach = config.board_radius + config.centre_search_cells + 2
    nodes, outer = _search_nodes(reach)
    like = _boardlike(view, base.cell_centres_mm(nodes.astype(np.float64)), base.cell_centres_mm(outer), config)
    grid = np.zeros((2 * reach + 1, 2 * reach + 1), dtype=bool)
    grid[nodes[:, 0] + reach, nodes[:, 1] + reach] = like
    turns, sign = _outline(board, config.pitch_mm)
    k = config.centre_search_cells
    offsets = _search_nodes(k + 1)[0]
    search = k + 0.5 if prior is None else 0.5   # a prior pose: only its own node (and the six turns)
    dist_mm = np.linalg.norm(base.cell_centres_mm(offsets.astype(np.float64)) - np.asarray(hint), axis=1)
    near = dist_mm <= max(search * config.pitch_mm, float(dist_mm.min()))   # at least the node nearest the hint
    found = _outline_scores(grid, reach, np.stack(turns), sign, offsets[near])   # (K, 6)
    k_best, t_best = np.unravel_index(int(np.argmax(found)), found.shape)
    twin = np.zeros(found.shape, dtype=bool)
    twin[k_best, [t_best, (t_best + 3) % 6]] = True   # the best pose and its 180-degree twin (same centre)
    runner = int(found[~twin].max()) if (~twin).any() else 0
    cands = offsets[near]

    def pose_of(kk: int, tt: int) -> HexBoardPose:
        c = base.cell_centres_mm(cands[kk][None].astype(np.float64))[0]
        return HexBoardPose((float(c[0]), float(c[1])), (rot60 + 60.0 * tt) % 360.0, config.pitch_mm)

    close = {(int(kk), int(tt) % 3) for kk, tt in zip(*np.nonzero(found >= found[k_best, t_best]
                                                                  - config.min_board_margin), strict=True)}
    rivals = [pose_of(kk, tt) for kk, tt in sorted(close - {(int(k_best), int(t_best) % 3)})]
    return pose_of(int(k_best), int(t_best)), int(found[k_best, t_best]), runner, contrast, rivals


def _outline_scores(grid: np.ndarray, reach: int, turns: np.ndarray, sign: np.ndarray,
                    offsets: np.ndarray) -> np.ndarray:
    """How many outline cells agree with the board-like grid, for every candidate centre and turn.

    Parameters
    ----------
    grid : ndarray, shape (2 reach + 1, 2 reach + 1), bool
        Board-like lattice nodes, indexed by offset + reach.
    turns : ndarray, shape (6, N, 2), int
        The outline's cells under each turn (``_outline``).
    sign : ndarray, shape (N,), bool
        Which outline cells are on the board.
    offsets : ndarray, shape (K, 2), int
        Candidate centre nodes.

    Returns
    -------
    ndarray, shape (K, 6), int: agreeing cells (outline cells off the grid are not counted).
    """
    ax = turns[None] + offsets[:, None, None, :]                # (K, 6, N, 2)
    inside = np.all(np.abs(ax) <= reach, axis=-1)
    idx = np.clip(ax + reach, 0, 2 * reach)
    got = grid[idx[..., 0], idx[..., 1]]
    return np.sum(inside & (got == sign[None, None, :]), axis=-1)


def turned(pose: HexBoardPose) -> HexBoardPose:
    """The 180-degree twin of a pose (same centre)."""
    return HexBoardPose(pose.centre_mm, (pose.rotation_deg + 180.0) % 360.0, pose.pitch_mm)


# ---------------------------------------------------------------- cells


def _prototypes_lab(config: GenialVisionConfig) -> tuple[list[str], np.ndarray]:
    names = [n for n, _ in config.cell_prototypes_rgb]
    rgb = np.array([v for _, v in config.cell_prototypes_rgb], dtype=np.float32).reshape(-1, 3) / 255.0
    return names, rgb_to_lab(rgb)


def _cell_points(pose: HexBoardPose, cells: list[Cell], config: GenialVisionConfig) -> np.ndarray:
    """Sample points of every cell's disc, table mm, shape (N cells, M, 2)."""
    disc = _disc(config.cell_r_mm, config.cell_step_mm) @ pose.rotation().T
    centres = pose.cell_centres_mm(np.array(cells, dtype=np.float64))
    return centres[:, None, :] + disc[None]


@dataclass(frozen=True)
class CellSamples:
    """Every cell's disc sampled once at the tile top, shared by the colour reading and the tower occlusion.

    Attributes
    ----------
    cells : tuple of Cell
        N cells, in the order of the rows below.
    px : ndarray, shape (N, M, 2)
        Photo pixels of the M sample points of each cell's disc.
    lab : ndarray, shape (N, M, 3)
        Their CIELAB colours (marker-normalised), NaN outside the photo.
    """

    cells: tuple[Cell, ...]
    px: np.ndarray
    lab: np.ndarray

    def turned(self) -> CellSamples:
        """The same samples named for the board pose turned 180 degrees: cell (q, r) becomes (-q, -r), and each
        disc (centrally symmetric) is walked backwards. Needs a cell list closed under (q, r) -> (-q, -r)."""
        index = {c: i for i, c in enumerate(self.cells)}
        rows = np.array([index[(-c[0], -c[1])] for c in self.cells], dtype=np.int64)
        return CellSamples(self.cells, self.px[rows, ::-1], self.lab[rows, ::-1])


def sample_cells(view: TableView, pose: HexBoardPose, cells: list[Cell] | tuple[Cell, ...],
                 config: GenialVisionConfig) -> CellSamples:
    """Project and sample every cell's disc (``cell_r_mm``, ``cell_step_mm``) at the tile top."""
    pts = _cell_points(pose, list(cells), config)
    px = _project(view, pts.reshape(-1, 2), config.board_top_mm + config.tile_thickness_mm)
    lab = _lab_at_px(view, px)
    return CellSamples(tuple(cells), px.reshape(pts.shape), lab.reshape(pts.shape[0], pts.shape[1], 3))


def _nanmedian_rows(x: np.ndarray) -> np.ndarray:
    """Median over axis 1 of (N, M, C) ignoring NaN rows of samples (a sample is NaN in every channel or none)
    -> (N, C); NaN where a row has no finite sample. Much cheaper than ``np.nanmedian`` on small rows."""
    s = np.sort(x, axis=1)   # NaN sorts last
    n = np.sum(np.isfinite(x[..., 0]), axis=1)
    lo = np.clip((n - 1) // 2, 0, None)
    hi = np.clip(n // 2, 0, x.shape[1] - 1)
    rows = np.arange(len(x))
    med = 0.5 * (s[rows, lo] + s[rows, hi])
    med[n == 0] = np.nan
    return med


def classify_cells(samples: CellSamples, config: GenialVisionConfig, occluded: np.ndarray | None = None,
                   rows: np.ndarray | None = None, printed: frozenset[Cell] = frozenset()
                   ) -> tuple[dict[Cell, str], dict[Cell, CellDoubt]]:
    """Each cell's colour from its samples: ``(tiles {cell: colour}, doubtful {cell: why})``.

    ``occluded`` (N cells, M samples) bool marks samples a tower hides: the colour is the median of the others.
    ``rows`` (bool (N,)) limits the reading to those cells. ``printed``: cells with a dark symbol printed on the
    empty face (the bonus cells' asterisk), read from their lighter half (:func:`_lighter_half`).
    """
    names, protos = _prototypes_lab(config)
    lab = samples.lab
    cells = samples.cells
    if occluded is not None:
        lab = np.where(occluded[..., None], np.nan, lab)
    if rows is not None:
        lab = lab[rows]
        cells = tuple(c for c, keep in zip(cells, rows, strict=True) if keep)
    if printed:
        lab = _lighter_half(lab, np.array([c in printed for c in cells], dtype=bool))
    med = _nanmedian_rows(lab)
    w = np.array([config.lightness_weight, 1.0, 1.0])
    d = np.linalg.norm((med[:, None, :] - protos[None]) * w, axis=2)
    order = np.argsort(d, axis=1)
    tiles: dict[Cell, str] = {}
    doubtful: dict[Cell, CellDoubt] = {}
    for i, c in enumerate(cells):
        first, second = d[i, order[i, 0]], d[i, order[i, 1]]
        name = names[order[i, 0]]
        if not np.isfinite(first):
            doubtful[c] = cell_doubt(CellDoubtKind.OUTSIDE)
        elif first > config.cell_max_distance or second - first < config.cell_margin:
            doubtful[c] = cell_doubt(CellDoubtKind.COLOUR_BETWEEN, first=name, second=names[order[i, 1]])
        elif name == "empty" and (first > config.empty_max_distance or med[i, 2] < config.empty_min_b):
            doubtful[c] = cell_doubt(CellDoubtKind.PALE, second=names[order[i, 1]])
        elif name == "black" and np.hypot(med[i, 1], med[i, 2]) > config.black_max_chroma:
            doubtful[c] = cell_doubt(CellDoubtKind.DARK_COLOURED, chroma=float(np.hypot(med[i, 1], med[i, 2])),
                                     hue=_hue_name(med[i], protos, names))
        elif name in TILE_RGB:
            tiles[c] = name
    return tiles, doubtful


def _lighter_half(lab: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The samples (N, M, 3; NaN where not seen) with those of ``rows`` (N,) bool darker than their cell's median
    lightness set aside (NaN). A bonus cell's asterisk is dark ink over a third to a half of its disc: its median
    reads an empty bonus cell in dim light as black, while the face between the rays is what the cell shows. A tile
    covering the cell is one colour all over, so its lighter half is its colour too."""
    if not rows.any():
        return lab
    sub = lab[rows]
    light = sub[..., 0]
    med_l = _nanmedian_rows(light[..., None])[:, 0]
    with np.errstate(invalid="ignore"):
        dark = light < med_l[:, None]
    out = lab.copy()
    out[rows] = np.where(dark[..., None], np.nan, sub)
    return out


def _hue_name(lab: np.ndarray, protos: np.ndarray, names: list[str]) -> str:
    """The player colour whose hue (CIELAB a*b* angle) lies nearest a colour's."""
    hue = np.arctan2(lab[2], lab[1])
    colours = [(n, p) for n, p in zip(names, protos, strict=True) if n in ("red", "blue", "yellow")]
    return min(colours, key=lambda np_: abs((np.arctan2(np_[1][2], np_[1][1]) - hue + np.pi) % (2 * np.pi) - np.pi))[0]


def read_cells(view: TableView, pose: HexBoardPose, cells: list[Cell], config: GenialVisionConfig,
               occluded: np.ndarray | None = None) -> tuple[dict[Cell, str], dict[Cell, str]]:
    """Each cell's colour at the tile top: ``(tiles {cell: colour}, doubtful {cell: why})``.

    ``occluded`` (N cells, M samples) bool marks samples a tower hides: the colour is the median of the others.
    """
    return classify_cells(sample_cells(view, pose, cells, config), config, occluded)


def _inside_convex(hull: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Whether points (N, 2) lie inside a convex polygon (M, 2), either winding. Shape (N,) bool."""
    a, b = hull, np.roll(hull, -1, axis=0)
    cross = ((b[:, 0] - a[:, 0])[None] * (pts[:, 1, None] - a[:, 1][None])
             - (b[:, 1] - a[:, 1])[None] * (pts[:, 0, None] - a[:, 0][None]))
    return np.all(cross >= 0, axis=1) | np.all(cross <= 0, axis=1)


def _tower_silhouettes(view: TableView, pose: HexBoardPose, towers: Mapping[Cell, str],
                       config: GenialVisionConfig) -> list[np.ndarray]:
    """Each tower's silhouette in the photo (its footprint hexagon, widened to the token, from the board up to
    the token's top), convex hull px (K, 2), in the order of ``towers``. Two projections per height."""
    cells = list(towers)
    r = max(config.tower_across_flats_mm / SQRT3, config.token_diameter_mm / 2)
    centres = pose.cell_centres_mm(np.array(cells, dtype=np.float64))
    rings = np.stack([pose.to_table(hexagon_board_mm(b, r)) for b in pose.to_board(centres)])   # (T, 6, 2)
    tops = np.repeat([config.board_top_mm + config.height(towers[c]) + config.token_thickness_mm for c in cells],
                     rings.shape[1])
    flat = rings.reshape(-1, 2)
    foot = _project(view, flat, config.board_top_mm).reshape(rings.shape)
    head = _project(view, flat, tops).reshape(rings.shape)
    return [cv2.convexHull(np.concatenate([foot[i], head[i]]).astype(np.float32)).reshape(-1, 2).astype(np.float64)
            for i in range(len(cells))]


def occlusion(view: TableView, pose: HexBoardPose, cells: list[Cell], towers: Mapping[Cell, str],
              config: GenialVisionConfig, samples: CellSamples | None = None) -> tuple[np.ndarray, dict[Cell, Cell]]:
    """Which of every cell's sample points (at the tile top) a tower's prism hides from this camera.

    Each tower (footprint hexagon up to its token) is projected with the camera pose; a sample is hidden when it
    falls inside the silhouette of a tower nearer to the camera than the cell.

    Parameters
    ----------
    samples : CellSamples, optional
        The cells' samples already projected (``sample_cells`` with this pose and ``cells``).

    Returns
    -------
    occluded : ndarray, shape (N cells, M samples), bool
    hidden : dict cell -> tower cell
        Cells with less than ``min_visible`` of their samples left: unreadable.
    """
    cam = getattr(view.calibration, "camera", None)
    if samples is None:
        pts_px = _project(view, _cell_points(pose, cells, config).reshape(-1, 2),
                          config.board_top_mm + config.tile_thickness_mm).reshape(len(cells), -1, 2)
    else:
        pts_px = samples.px
    occluded = np.zeros(pts_px.shape[:2], dtype=bool)
    if cam is None or not towers:
        return occluded, {}
    eye = np.asarray(cam.centre_mm, dtype=np.float64)
    z_tile = config.board_top_mm + config.tile_thickness_mm
    centres = pose.cell_centres_mm(np.array(cells, dtype=np.float64))
    dist_cell = np.linalg.norm(np.column_stack([centres, np.full(len(cells), z_tile)]) - eye, axis=1)
    box_lo, box_hi = pts_px.min(axis=1), pts_px.max(axis=1)   # (N, 2) each cell's extent in the photo
    blame: dict[Cell, Cell] = {}
    index = {c: i for i, c in enumerate(cells)}
    tower_cells = list(towers)
    t_centres = pose.cell_centres_mm(np.array(tower_cells, dtype=np.float64))
    for t, centre, hull in zip(tower_cells, t_centres, _tower_silhouettes(view, pose, towers, config), strict=True):
        d_tower = np.linalg.norm(np.array([centre[0], centre[1], z_tile]) - eye)
        lo, hi = hull.min(axis=0), hull.max(axis=0)
        near = np.flatnonzero((dist_cell > d_tower) & np.all((box_hi >= lo) & (box_lo <= hi), axis=1))
        near = near[[cells[i] != t for i in near]] if len(near) else near
        if len(near) == 0:
            continue
        inside = _inside_convex(hull, pts_px[near].reshape(-1, 2)).reshape(len(near), pts_px.shape[1])
        occluded[near] |= inside
        for i, n_in in zip(near, inside.sum(axis=1), strict=True):
            if n_in and cells[i] not in blame:
                blame[cells[i]] = t
    visible = 1.0 - occluded.mean(axis=1)
    hidden = {c: blame[c] for c in blame if visible[index[c]] < config.min_visible}
    return occluded, hidden


# ---------------------------------------------------------------- tokens


@lru_cache(maxsize=1)
def _symbol_hues() -> dict[str, float]:
    """Hue angle (degrees, CIELAB a*b*) of each token symbol's printed colour (computed once)."""
    lab = rgb_to_lab(np.array(list(SYMBOL_RGB.values()), dtype=np.float32) / 255.0)
    return {s: float(np.degrees(np.arctan2(v[2], v[1]))) for s, v in zip(SYMBOL_RGB, lab, strict=True)}


@dataclass(frozen=True)
class TokenFace:
    """What a token's face shows before its numeral is read: side and symbol, and the doubts about them.

    Attributes
    ----------
    dark : bool
    symbol : str or None
    doubts : tuple of TokenDoubt
    """

    dark: bool
    symbol: str | None
    doubts: tuple[TokenDoubt, ...] = ()

    @property
    def side_unclear(self) -> bool:
        """Its lightness left the side open."""
        return any(d.kind in FACE_UNCLEAR for d in self.doubts)


def token_face(lab: np.ndarray, config: GenialVisionConfig) -> TokenFace:
    """A token's side (:func:`token_side`) and symbol (by hue) from its disc's CIELAB pixels (N > 0, 3)."""
    doubts = []
    plain = np.hypot(lab[:, 1], lab[:, 2]) < config.symbol_chroma_min
    dark, face_l = token_side(lab, config)
    if abs(face_l - config.dark_face_lightness) < config.side_margin:
        doubts.append(doubt(DoubtKind.SIDE_FACE, lightness=float(face_l)))
    elif not dark and plain.mean() < config.min_plain:
        doubts.append(doubt(DoubtKind.SIDE_COVERED, covered=float(1.0 - plain.mean())))
    sym_px = lab[~plain]
    symbol = None
    if len(sym_px) < config.min_symbol_px:
        doubts.append(doubt(DoubtKind.SYMBOL_UNSEEN))
    else:
        hue = float(np.degrees(np.arctan2(np.median(sym_px[:, 2]), np.median(sym_px[:, 1]))))
        hues = _symbol_hues()
        gaps = {s: abs((hue - h + 180.0) % 360.0 - 180.0) for s, h in hues.items()}
        ranked = sorted(gaps, key=lambda s: gaps[s])
        symbol = ranked[0]
        if gaps[ranked[1]] - gaps[ranked[0]] < 15.0:
            doubts.append(doubt(DoubtKind.SYMBOL_BETWEEN, first=ranked[0], second=ranked[1]))
    return TokenFace(dark, symbol, tuple(doubts))


def read_token(lab: np.ndarray, qr: Cell, size: str, config: GenialVisionConfig,
               numeral: NumeralRead | None = None, numeral_px: float = np.inf, known: int | None = None,
               face: TokenFace | None = None) -> TokenRead:
    """The token on the tower at ``qr`` from its disc's CIELAB pixels (N, 3): side, symbol (``face``, else
    :func:`token_face`); its value from ``numeral`` (:func:`read_numeral` with that side; None: not read, the side's
    low value, doubtful), or ``known`` (read clearly on the earlier photo of the pair, the same side up)."""
    if len(lab) == 0:
        return TokenRead(qr, size, None, 1, False, (doubt(DoubtKind.TOKEN_OUTSIDE),))
    face = token_face(lab, config) if face is None else face
    value, why = (known, None) if known is not None else token_value(numeral, face.dark, numeral_px, config)
    return TokenRead(qr, size, face.symbol, value, face.dark, face.doubts + ((why,) if why else ()))


def token_side(lab: np.ndarray, config: GenialVisionConfig) -> tuple[bool, float]:
    """Whether a token's disc pixels (N > 0, CIELAB) show its dark side, and its face's lightness (a low percentile
    of its uncoloured pixels)."""
    plain = np.hypot(lab[:, 1], lab[:, 2]) < config.symbol_chroma_min
    face_l = float(np.percentile(lab[plain, 0] if plain.any() else lab[:, 0], config.face_percentile))
    return face_l < config.dark_face_lightness, face_l


def token_value(numeral: NumeralRead | None, dark: bool, numeral_px: float,
                config: GenialVisionConfig) -> tuple[int, TokenDoubt | None]:
    """The value a token shows and, when it is doubtful, why (None when it is sure)."""
    low = 2 if dark else 1
    if numeral_px < config.min_numeral_px:
        return low, doubt(DoubtKind.NUMERAL_SMALL, tall_px=float(numeral_px), low=low, high=low + 1)
    if numeral is None or numeral.value not in (low, low + 1):
        return low, doubt(DoubtKind.NUMERAL_CUT, low=low, high=low + 1)
    if not numeral.sure:
        return numeral.value, numeral_unclear(numeral)
    return numeral.value, None


def numeral_unclear(numeral: NumeralRead) -> TokenDoubt:
    """Why a numeral read but not surely is doubtful: its two values and their fits (and the learned reader's
    value when it reads the other one)."""
    fits = {"value": int(numeral.value), "other": int(numeral.other), "score": float(numeral.score),
            "other_score": float(numeral.other_score)}
    if numeral.learned_value is None or numeral.learned_value == numeral.value:
        return doubt(DoubtKind.NUMERAL_UNCLEAR, **fits)
    return doubt(DoubtKind.NUMERAL_UNCLEAR_LEARNED, **fits, learned=int(numeral.learned_value))


def _token_z(size: str, config: GenialVisionConfig) -> float:
    return config.board_top_mm + config.height(size) + config.token_thickness_mm


def _numeral_inner_mm(symbol: str | None, config: GenialVisionConfig) -> float:
    """Radius of the face disc inside the token's symbol (an unread symbol: the smallest)."""
    inners = dict(config.symbol_inner_mm)
    return inners.get(symbol, min(inners.values())) if symbol is not None else min(inners.values())


def token_centres_mm(view: TableView, pose: HexBoardPose, tokens: Mapping[Cell, tuple[str, str | None]],
                     config: GenialVisionConfig) -> dict[Cell, np.ndarray]:
    """Where the tokens on the towers ``tokens`` ({cell: (size, symbol)}) lie (table mm, shape (2,) each): the
    cells' centres from the board pose, corrected by what the tokens' symbols say of the pose's error
    (:mod:`vision.genial_token_centre`), or as the pose puts them when the tokens do not agree on one."""
    cells = sorted(tokens)
    expected = pose.cell_centres_mm(np.array(cells, dtype=np.float64)).reshape(-1, 2)
    found, contrast = expected.copy(), np.full(len(cells), np.nan)
    for size in sorted({s for s, _ in tokens.values()}):
        idx = [i for i, c in enumerate(cells) if tokens[c][0] == size]
        found[idx], contrast[idx] = find_token_centres(
            view, expected[idx], _token_z(size, config),
            [_numeral_inner_mm(tokens[cells[i]][1], config) for i in idx], config.token_centre)
    corrected = corrected_centres(expected, found, contrast, config.token_centre)
    out = expected if corrected is None else corrected
    return {c: out[i] for i, c in enumerate(cells)}


def _read_numerals(view: TableView, centres_mm: Mapping[Cell, np.ndarray],
                   wanted: Mapping[Cell, tuple[str, bool, str | None]],
                   blur_px: np.ndarray, config: GenialVisionConfig
                   ) -> dict[Cell, tuple[NumeralRead | None, float, np.ndarray]]:
    """The numerals of the tokens on the towers ``wanted`` ({cell: (size, dark, symbol)}, their sides known),
    each sampled at its token's top around its centre (``centres_mm``: :func:`token_centres_mm`), how many
    photo pixels tall each numeral is there (one projection per tower height), and the sampled window
    (:func:`~vision.genial_numeral.sample_luminances`, shape (n, n)). The templates are shared by the
    tokens of one height (their blur's mean); each token's own blur sets the margin its reading needs. A numeral
    too small to read is not compared (None)."""
    out: dict[Cell, tuple[NumeralRead | None, float, np.ndarray]] = {}
    for size in sorted({w[0] for w in wanted.values()}):
        cells = sorted(c for c, w in wanted.items() if w[0] == size)
        centres = np.array([centres_mm[c] for c in cells], dtype=np.float64)
        lums, jacobians = sample_luminances(view, centres, _token_z(size, config), config.numeral)
        tall = np.linalg.norm(jacobians[:, :, 1], axis=1) * config.numeral_mm
        readable = [i for i in range(len(cells)) if tall[i] >= config.min_numeral_px]
        shared = shared_blur_mm2([token_blur_mm2(jacobians[i], blur_px, config.numeral) for i in readable],
                                 config.numeral) if readable else None
        for i, c in enumerate(cells):
            _, dark, symbol = wanted[c]
            read = read_numeral(lums[i], dark, jacobians[i], blur_px, _numeral_inner_mm(symbol, config),
                                config.numeral, shared) if i in readable else None
            out[c] = (read, float(tall[i]), lums[i])
    return _learned(out, wanted, config)


def _learned(reads: dict[Cell, tuple[NumeralRead | None, float, np.ndarray]],
             wanted: Mapping[Cell, tuple[str, bool, str | None]], config: GenialVisionConfig
             ) -> dict[Cell, tuple[NumeralRead | None, float, np.ndarray]]:
    """The template reads with the learned reader's answers taken (:func:`~vision.genial_numeral.with_learned`;
    unchanged when ``config.numeral_model`` is None): each compared numeral's window viewed as each candidate's
    best template lies, all of the photo's in one batch."""
    cells = [c for c, (r, _, _) in reads.items() if r is not None]
    if config.numeral_model is None or not cells:
        return reads
    model = load_model(config.numeral_model)
    rows, darks = [], []
    for c in cells:
        r, _, lum = reads[c]
        assert r is not None
        dark = wanted[c][1]
        rows.append(features(lum, dark, {r.value: (r.rotation_deg, r.offset_mm),
                                         r.other: (r.other_rotation_deg, r.other_offset_mm)}, model.config))
        darks.append(dark)
    out = dict(reads)
    for c, ans in zip(cells, predict(model, np.stack(rows), np.array(darks)), strict=True):
        r, tall, lum = reads[c]
        assert r is not None
        out[c] = (with_learned(r, ans.value, ans.sure, ans.confidence, model.agreed_fraction(r.blur_mm)), tall, lum)
    return out


def numeral_windows(view: TableView, pose: HexBoardPose, tokens: Mapping[Cell, tuple[str, str | None]],
                    wanted: Mapping[Cell, tuple[str, bool, str | None]], config: GenialVisionConfig
                    ) -> dict[Cell, tuple[np.ndarray, NumeralRead | None, float]]:
    """What the numeral reader sees of the tokens ``wanted`` ({cell: (size, dark, symbol)}) on one photo: per
    token its sampled window (linear luminance, shape (n, n)), the read on the side given (the photo's fit residual
    taken, as :func:`read_tokens` takes it) and the numeral's height in photo px. ``tokens`` ({cell: (size,
    symbol)}): every standing tower's token, whose symbols correct the board pose together
    (:func:`token_centres_mm`). For the training of a numeral model (``tools/genial_numeral_crops.py``)."""
    blur = photo_blur(view, marker_layout(), config.numeral)
    centres = token_centres_mm(view, pose, tokens, config)
    reads = _read_numerals(view, centres, wanted, blur, config)
    residual = fit_residual([r for r, _, _ in reads.values()])
    return {c: (lum, None if r is None else with_fit_residual(r, residual, config.numeral), tall)
            for c, (r, tall, lum) in reads.items()}


def read_tokens(view: TableView, pose: HexBoardPose, present: Mapping[Cell, str], labs: Mapping[Cell, np.ndarray],
                config: GenialVisionConfig, earlier: GenialPhoto | None = None,
                carried: GenialPhoto | None = None) -> tuple[tuple[TokenRead, ...], dict[Cell, NumeralCarry]]:
    """Every standing tower's token: side and symbol from its disc's colours, then the value from its numeral
    (read between the two values of that side; a side the face leaves unclear is read both ways and decided by the
    numeral's ink, :func:`_side_by_ink`). A token the earlier photo of the pair (same camera) read clearly with the
    same side up keeps that value: it is the same numeral (only a flipped token needs a new reading). A numeral an
    earlier frame of the same still scene compared (``carried``: its photo) on the same side is not compared again.
    The margin a sure numeral needs is raised where the photo's numerals (with the earlier photo's) fit their
    templates badly (:func:`~vision.genial_numeral.with_fit_residual`).
    Returns the reads and the numerals compared or carried (:class:`NumeralCarry`)."""
    before = {t.qr: t for t in earlier.towers} if earlier is not None else {}
    again = carried.numerals if carried is not None else {}
    kept: dict[Cell, int] = {}
    numerals: dict[Cell, NumeralCarry] = {}
    wanted: dict[Cell, tuple[str, bool, str | None]] = {}
    faces = {c: token_face(labs[c], config) for c in sorted(present) if len(labs[c])}
    unclear = {c for c, f in faces.items() if f.side_unclear}
    for c, size in sorted(present.items()):
        if c not in faces:
            continue
        dark = faces[c].dark
        old = before.get(c)
        if old is not None and old.dark == dark and not old.value_doubted and c not in unclear:
            kept[c] = old.value
        elif c in again and (again[c].other is not None if c in unclear else again[c].dark == dark):
            numerals[c] = again[c]
        else:
            wanted[c] = (size, dark, faces[c].symbol)
    if wanted:
        blur = photo_blur(view, marker_layout(), config.numeral)
        centres = token_centres_mm(view, pose, {c: (s, faces[c].symbol) for c, s in present.items() if c in faces},
                                   config)
        reads = _read_numerals(view, centres, wanted, blur, config)
        flip = {c: (w[0], not w[1], w[2]) for c, w in wanted.items() if c in unclear}
        others = _read_numerals(view, centres, flip, blur, config) if flip else {}
        earlier_reads = [n.read for n in earlier.numerals.values()] if earlier is not None else []
        residual = fit_residual([r for r, _, _ in reads.values()] + earlier_reads)   # same camera, same light

        def taken(r: NumeralRead | None) -> NumeralRead | None:
            return None if r is None else with_fit_residual(r, residual, config.numeral)

        numerals |= {c: NumeralCarry(wanted[c][1], taken(r), tall, taken(others[c][0]) if c in others else None)
                     for c, (r, tall, _) in reads.items()}
    for c in sorted(unclear & set(numerals)):
        faces[c], numerals[c] = _side_by_ink(faces[c], numerals[c], config)
    out = []
    for c, size in sorted(present.items()):
        if c in numerals:
            out.append(read_token(labs[c], c, size, config, numerals[c].read, numerals[c].tall_px, face=faces.get(c)))
        else:
            out.append(read_token(labs[c], c, size, config, known=kept.get(c), face=faces.get(c)))
    return tuple(out), numerals


def _side_by_ink(face: TokenFace, carry: NumeralCarry, config: GenialVisionConfig) -> tuple[TokenFace, NumeralCarry]:
    """A side the face's lightness leaves unclear, decided by the numeral's ink: black on the light side, white on
    the dark side. When the best digit of one side fits at least ``side_ink_margin`` better than the best of the
    other (each read with its own ink as the signal), that side it is (a glare-lit dark face or a shaded light one
    moves the face's lightness, not the ink's polarity); else the side stays unclear. Returns the face and the
    numeral read on the side it keeps (the other side's read kept beside it, for later frames)."""
    by_side = {carry.dark: carry.read, not carry.dark: carry.other}
    dark_read, light_read = by_side[True], by_side[False]
    side = face.dark
    if dark_read is not None and light_read is not None:
        gap = dark_read.best_score - light_read.best_score
        if abs(gap) >= config.side_ink_margin:
            side = gap > 0
            face = TokenFace(side, face.symbol, tuple(d for d in face.doubts if d.kind not in FACE_UNCLEAR))
    return face, NumeralCarry(side, by_side[side], carry.tall_px, by_side[not side])


# ---------------------------------------------------------------- one photo


def _shadowed_black(pose: HexBoardPose, towers: Mapping[Cell, str], tiles: Mapping[Cell, str],
                    expected: Mapping[Cell, str], config: GenialVisionConfig,
                    lit: set[Cell] | frozenset[Cell] = frozenset()) -> dict[Cell, Cell]:
    """Cells read black that may be an empty (or other) cell in a tower's cast shadow, with the tower.

    Under a strong light a tower casts a shadow as dark as a black tile. The shadows' direction is found from the
    photo itself: the cells read black that no earlier placement covers (``expected``), seen from the nearest
    tower (offset over the tower's height). When at least ``min_shadow_cells`` agree on one direction, every cell
    read black within that sector and reach of a tower is a shadow suspect, unless the earlier placements put a
    black tile there or the cell read empty (``lit``) on the before photo under the same light. Returns
    ``{cell: tower}``.
    """
    if not towers:
        return {}
    t_cells = sorted(towers)
    t_xy = pose.to_board(pose.cell_centres_mm(np.array(t_cells, dtype=np.float64)))
    t_h = np.array([config.height(towers[c]) for c in t_cells])
    black = sorted(c for c, v in tiles.items() if v == "black")
    if not black:
        return {}
    b_xy = pose.to_board(pose.cell_centres_mm(np.array(black, dtype=np.float64)))
    d = b_xy[:, None, :] - t_xy[None]                         # (B, T, 2) from each tower to each black cell
    rel = np.linalg.norm(d, axis=2) / t_h[None]              # distance over tower height
    near = np.argmin(rel, axis=1)
    reach = config.shadow_reach * config.pitch_mm / t_h.min()
    stray = [i for i, c in enumerate(black) if c not in expected and rel[i, near[i]] <= reach]
    if len(stray) < config.min_shadow_cells:
        return {}
    v = d[stray, near[stray]]
    ang = np.arctan2(v[:, 1], v[:, 0])
    mean = np.array([np.cos(ang).mean(), np.sin(ang).mean()])
    if np.linalg.norm(mean) < config.shadow_agreement:     # dark cells all round: not one light's shadows
        return {}
    azimuth = float(np.arctan2(mean[1], mean[0]))
    length = float(np.max(rel[stray, near[stray]])) + config.pitch_mm / t_h.max()
    gap = np.abs((np.arctan2(d[..., 1], d[..., 0]) - azimuth + np.pi) % (2 * np.pi) - np.pi)
    inside = (gap <= np.deg2rad(config.shadow_sector_deg)) & (rel <= length)
    out = {}
    for i, c in enumerate(black):
        if expected.get(c) == "black" or c in lit or not inside[i].any():
            continue
        out[c] = t_cells[int(np.argmin(np.where(inside[i], rel[i], np.inf)))]
    return out


def _turn_by_tiles(tiles: Mapping[Cell, str], expected: Mapping[Cell, str]) -> tuple[int, int]:
    """Agreements of the read tiles with the expected ones as read, and with the board turned 180 degrees."""
    keep = sum(1 for c, v in expected.items() if tiles.get(c) == v)
    turn = sum(1 for c, v in expected.items() if tiles.get((-c[0], -c[1])) == v)
    return keep, turn


def _towers_standing(view: TableView, pose: HexBoardPose, layout: Mapping[Cell, str],
                     config: GenialVisionConfig) -> int:
    """How many of the set-up's towers show a token on top at this pose."""
    labs = _token_labs(view, pose, layout, config)
    return sum(token_present(labs[c], config) for c in layout)


def _tiles_agreeing(view: TableView, pose: HexBoardPose, expected: Mapping[Cell, str],
                    config: GenialVisionConfig) -> int:
    """How many of the earlier placements' tiles read in their colour at this pose or its 180-degree twin."""
    if not expected:
        return 0
    cells = sorted(expected)
    tiles, _ = classify_cells(sample_cells(view, pose, cells + [(-c[0], -c[1]) for c in cells], config), config)
    keep, turn = _turn_by_tiles(tiles, expected)
    return max(keep, turn)


def _by_evidence(view: TableView, pose: HexBoardPose, rivals: list[HexBoardPose], layout: Mapping[Cell, str],
                 expected: Mapping[Cell, str], config: GenialVisionConfig) -> tuple[HexBoardPose, str]:
    """Between board poses the outline cannot tell apart, the one where the most of the set-up's towers show a
    token on top and the most earlier tiles read in their colour. Returns it and, when no pose beats every other by
    ``min_tower_margin``, why it stays uncertain (empty when it is sure)."""
    poses = [pose, *rivals]
    seen = [_towers_standing(view, p, layout, config) + _tiles_agreeing(view, p, expected, config) for p in poses]
    order = np.argsort(seen, kind="stable")[::-1]
    best = int(order[0])
    second = seen[int(order[1])] if len(order) > 1 else -len(layout)
    if seen[best] - second >= config.min_tower_margin:
        return poses[best], ""
    return pose, f"the towers and earlier tiles do not tell either ({seen[best]} and {second} agree)"


def _find_board(view: TableView, board: GenialBoard, layout: Mapping[Cell, str], free: list[Cell],
                expected_tiles: Mapping[Cell, str] | None, prior: HexBoardPose | None, config: GenialVisionConfig
                ) -> tuple[HexBoardPose, int, int, str, list[str], CellSamples, dict[Cell, str], dict[Cell, CellDoubt]]:
    """The board's pose on one photo (``locate``; its turn from the other photo's pose or the earlier tiles), and
    every free cell sampled and read there: (pose, board-coloured cells covered, runner-up, how the turn was
    resolved, flags, samples, tiles, doubtful cells)."""
    pose, found, runner, _contrast, rivals = locate(view, board, config, prior)
    flags = []
    if found - runner < config.min_board_margin:
        pose, why = _by_evidence(view, pose, rivals, layout, expected_tiles or {}, config)
        if why:
            flags.append(f"board position uncertain: the best outline covers {found} board-coloured cells, another "
                         f"{runner}; {why}")
    samples = sample_cells(view, pose, free, config)
    tiles, doubtful = classify_cells(samples, config, printed=board.bonus_cells)
    resolved = "unresolved"
    turn_it = False
    if prior is not None and _is_twin(pose, HexBoardPose(pose.centre_mm, prior.rotation_deg, pose.pitch_mm)):
        turn_it, resolved = True, "prior"
    elif prior is not None and abs((pose.rotation_deg - prior.rotation_deg + 180.0) % 360.0 - 180.0) < 5.0:
        resolved = "prior"
    elif expected_tiles:
        keep, turn = _turn_by_tiles(tiles, expected_tiles)
        turn_it = turn > keep
        if keep != turn:
            resolved = "tiles"
    if turn_it:
        pose, samples = turned(pose), samples.turned()
        tiles = {(-c[0], -c[1]): v for c, v in tiles.items()}
        doubtful = {(-c[0], -c[1]): v for c, v in doubtful.items()}
    if resolved == "unresolved":
        flags.append("the board reads the same turned 180 degrees and no earlier tile tells which way: cells are "
                     "named with one of the two turns")
    return pose, found, runner, resolved, flags, samples, tiles, doubtful


def read_photo(image_rgb: np.ndarray, calibration, board: GenialBoard, n_players: int,
               expected_tiles: Mapping[Cell, str] | None = None, prior: HexBoardPose | None = None,
               config: GenialVisionConfig = GenialVisionConfig(), earlier: GenialPhoto | None = None,
               carried: GenialPhoto | None = None) -> GenialPhoto:
    """Read one photo of a Genial Spezial game.

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration
        The markers' table frame and camera pose.
    board : GenialBoard
    n_players : int
        2-4: which towers the set-up puts where.
    expected_tiles : dict Cell -> colour, optional
        The earlier placements' tiles (replayed): they resolve the 180-degree turn.
    prior : HexBoardPose, optional
        The other photo's pose (same camera): its turn is kept when the pose agrees.
    config : GenialVisionConfig
    earlier : GenialPhoto, optional
        The before photo's reading (same light, same towers, so the same shadows): a cell it read empty and this
        photo reads black is a new black tile, not a shadow.
    carried : GenialPhoto, optional
        This photo's reading on an earlier frame of the same still scene (live video, same camera; nothing moved
        since): its board pose is kept (not searched again), and the numerals it compared are not compared again
        on a token showing the same side. Cells, towers, sides and symbols are read again.
    """
    view = TableView(image_rgb, calibration)
    layout = board.tower_layout(n_players)
    free = list(free_cells(board))
    if carried is not None:   # the same still scene: the board has not moved since that frame found it
        pose, found, runner, resolved, flags = (carried.pose, carried.towers_found, carried.runner_up,
                                                carried.turn_resolved, list(carried.flags))
        samples = sample_cells(view, pose, free, config)
        tiles, doubtful = classify_cells(samples, config, printed=board.bonus_cells)
    else:
        pose, found, runner, resolved, flags, samples, tiles, doubtful = _find_board(
            view, board, layout, free, expected_tiles, prior, config)
    labs = _token_labs(view, pose, layout, config)
    present = towers_seen(labs, layout, config)
    missing = tuple(c for c in sorted(layout) if c not in present)
    occluded, hidden = occlusion(view, pose, free, present, config, samples)
    part: np.ndarray = np.asarray(occluded.any(axis=1))
    if part.any():   # cells partly behind a tower: read again from their visible samples only
        again = {c for c, p in zip(free, part, strict=True) if p}
        t2, d2 = classify_cells(samples, config, occluded, part, board.bonus_cells)
        tiles = {c: v for c, v in tiles.items() if c not in again} | t2
        doubtful = {c: v for c, v in doubtful.items() if c not in again} | d2
    unreadable = {c: cell_doubt(CellDoubtKind.HIDDEN, tower=t) for c, t in hidden.items()}
    for c, why in doubtful.items():
        unreadable.setdefault(c, why)
    lit = set() if earlier is None else {c for c in free if c not in earlier.tiles and c not in earlier.unreadable}
    for c, t in _shadowed_black(pose, present, tiles, expected_tiles or {}, config, lit).items():
        unreadable.setdefault(c, cell_doubt(CellDoubtKind.SHADOW, tower=t))
    tiles = {c: v for c, v in tiles.items() if c not in unreadable}
    towers, numerals = read_tokens(view, pose, present, labs, config, earlier, carried)
    return GenialPhoto(pose, tiles, towers, missing, unreadable, found, runner, resolved, tuple(flags), numerals)
