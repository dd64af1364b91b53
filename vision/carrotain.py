"""The Carrotain recognizer: one challenge photo (and optionally a "before" photo) -> CarrotainState.

Combines the chip detector (``vision.chips``, on a top view of the chip faces 2 mm up) and the
board matcher (``vision.acrylic``, on a top view of the board tops 5 mm up), measures colours
against the frame's colour reference, and turns the detectors' doubts into sigmas and flags.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from shapely.geometry import MultiPoint, Point, Polygon

from calibration.markers import MarkerLayout
from components import load_components
from core.timing import StageTimer
from scoring.carrotain_state import BoardReading, CarrotainState, ChipReading, pose_cov_about
from scoring.flags import Flag
from vision.acrylic import (
    AcrylicConfig,
    BoardFit,
    GridRefits,
    board_maps,
    find_boards,
    find_boards_in,
    for_photo,
    loose_acceptance,
    refit_boards,
    unexplained_regions,
)
from vision.carrotain_still import StillConfig, StillProbe, boards_hold, chips_hold, still_probe
from vision.carrotain_view import (
    DEFAULT_HFOV_DEG,
    TopViewMaps,
    colour_reference,
    has_height_model,
    mm_to_px,
    px_to_mm,
    top_view,
    top_view_maps,
    top_view_pixels,
    view_shape,
)
from vision.cast_shadow import (
    PointReader,
    ShadowConfig,
    boards_toward_light,
    cast_shadow,
    chip_rings,
    nearest_pixels,
)
from vision.chips import ChipConfig, ChipDetection, PatchReader, find_chips
from vision.colour import palette_to_normalised


@dataclass(frozen=True)
class CarrotainVisionConfig:
    """Tunables of the recognizer.

    Attributes
    ----------
    region_mm : (x0, y0, x1, y1)
        Table area searched (the mat).
    chip_mm_per_px, board_mm_per_px : float
        Top-view resolutions (the chips are read at ``chip_mm_per_px``).
    chip_search_mm_per_px : float
        The chips are searched on a top view this coarse (their bright blobs, a chip 25 mm across), then each
        candidate fitted and read on a patch of the view at ``chip_mm_per_px`` around it (``vision.chips.find_chips``'
        ``patches``); not coarser than ``chip_mm_per_px`` (equal: searched and read on one view of the whole mat).
        1 mm by default: the chips stage and the views cost about 40 % less CPU than searched at 0.5 (a first
        frame about 12 % less). A candidate whose rim cannot be fitted is judged by its depth on the fine patch
        (``vision.chips``); a rim is only one where enough crossings lie on the circle fitted to them (the glare
        crescent on a board's edge in dev c10 as a browser delivers it, fitted from the 1 mm view's candidate, is
        not: ``vision.chips._fit_rim``).
    chip_face_z_mm, board_top_z_mm, board_thickness_mm : float
        Heights of the chip faces and of the board tops above the table; board thickness.
    acrylic_index : float
        Refractive index of the boards (chips seen through them look raised).
    board_walls : bool
        Model the boards' side walls (seen on the side facing the camera) when matching outlines.
    wall_grid_mm : float
        Grid step of the precomputed wall parallax field.
    print_edge_guard_mm : float
        Print strokes this close to the view's edge or a masked area are ignored.
    marker_margin_mm : float
        Half size of the square ignored around each calibration marker centre.
    touched_mm : float
        A chip that moved more than this between the before and challenge photos is "touched".
    match_before_mm : float
        Largest distance at which a before-photo chip is taken as the same chip.
    sigma_per_reproj : float
        Chip/board sigmas grow by this times the calibration's reprojection error.
    low_confidence : float
        Chips under this confidence are flagged.
    field_grow_diameters, min_field_overlap_mm2 : float
        The chip field is the convex hull of the chip centres grown by this many chip diameters; a
        board covering no chip is a challenge board only if it overlaps the field by more than this.
    unread_near_field_mm : float
        An unread acrylic-looking region within this distance of the chip field may be a challenge board the
        reader missed (``unread_near_chip_field``): with fewer than two challenge boards, no judgement.
    warm_max_move_mm : float
        Warm reads (``recognise_warm``): a board re-fitted from its pose on an earlier frame of the still
        scene that moved further than this (or no longer fits) sends the frame to a fresh search.
    still : StillConfig
        Warm reads: the checks that a later frame of a still scene still shows what was read (``StillProbe``).
    shadow : ShadowConfig
        The fitted boards lie displaced towards their cast shadow: read its direction from the chips' shadows and
        move them back towards the light (``vision.cast_shadow``).
    chips : ChipConfig
    boards : AcrylicConfig
    """

    region_mm: tuple[float, float, float, float] = (-20.0, 0.0, 580.0, 420.0)
    chip_mm_per_px: float = 0.5
    chip_search_mm_per_px: float = 1.0
    board_mm_per_px: float = 1.0
    chip_face_z_mm: float = 2.0
    board_top_z_mm: float = 5.0
    board_thickness_mm: float = 3.0
    acrylic_index: float = 1.49
    board_walls: bool = True
    wall_grid_mm: float = 10.0
    print_edge_guard_mm: float = 4.0
    marker_margin_mm: float = 40.0
    touched_mm: float = 3.0
    match_before_mm: float = 12.0
    sigma_per_reproj: float = 1.0
    low_confidence: float = 0.35
    field_grow_diameters: float = 1.0
    min_field_overlap_mm2: float = 500.0
    unread_near_field_mm: float = 20.0
    warm_max_move_mm: float = 2.0
    still: StillConfig = field(default_factory=StillConfig)
    shadow: ShadowConfig = field(default_factory=ShadowConfig)
    chips: ChipConfig = field(default_factory=ChipConfig)
    boards: AcrylicConfig = field(default_factory=AcrylicConfig)


def _palettes(components: dict):
    car = components["carrotain"]
    dots = palette_to_normalised(car["player_colours"])
    faces = palette_to_normalised({"white": car["chip"]["face_rgb"], "yellow": car["first_star_chip"]["face_rgb"]})
    hole = np.asarray(car["mat"]["rgb"], dtype=np.float64) / 255.0
    return dots, faces, hole


def _exclusions(config: CarrotainVisionConfig, layout: MarkerLayout) -> list[tuple[float, float, float, float]]:
    m = config.marker_margin_mm
    return [(cx - m, cy - m, cx + m, cy + m) for cx, cy in layout.centres_mm.values()]


def _height_spread_mm(cal, xy_mm: np.ndarray, z_mm: float) -> np.ndarray:
    """Without a camera pose from calibration, how far the height correction may be off (mm, per point).

    The fallback decomposes the homography with an assumed focal length when the view is nearly
    straight down; this compares the mapping with the focal length 20% either way.
    """
    if has_height_model(cal):
        return np.zeros(len(xy_mm))
    base = mm_to_px(cal, xy_mm, z_mm)
    spreads = []
    for hfov in (DEFAULT_HFOV_DEG * 0.8, DEFAULT_HFOV_DEG * 1.2):  # passed down, never written to a global
        p = mm_to_px(cal, xy_mm, z_mm, hfov_deg=hfov)
        spreads.append(np.hypot(*(p - base).T))
    return np.max(spreads, axis=0) / max(cal.px_per_mm, 1e-6)


class LazyTopView:
    """A top view's maps (``TopViewMaps``) made when first asked for, then kept: the views of one calibration are
    shared by the frames of a still scene, and a photo read once never needs this one.

    Parameters
    ----------
    calibration : TableCalibration
    region_mm : (x0, y0, x1, y1)
    mm_per_px, z_mm : float
        As for ``top_view_maps``.
    made : TopViewMaps, optional
        The very maps, when already made (another view of the same region, resolution and height).
    """

    def __init__(self, calibration, region_mm: tuple[float, float, float, float], mm_per_px: float, z_mm: float,
                 made: TopViewMaps | None = None):
        self.calibration = calibration
        self.region_mm = region_mm
        self.mm_per_px = mm_per_px
        self.z_mm = z_mm
        self._maps = made

    @property
    def made(self) -> bool:
        """Whether the maps have been made."""
        return self._maps is not None

    def maps(self) -> TopViewMaps:
        """The maps, made on the first call."""
        if self._maps is None:
            self._maps = top_view_maps(self.calibration, self.region_mm, self.mm_per_px, self.z_mm)
        return self._maps


@dataclass(frozen=True)
class CarrotainViews:
    """What every frame seen through one calibration shares: where the pixels of the two top views lie in the
    photo, and the boards' wall parallax (computed once per calibration, reused by the frames of a still scene).

    Attributes
    ----------
    calibration : TableCalibration
        The calibration these were computed for (compared by identity).
    chips_searched, boards : TopViewMaps
        Top views of the chip faces (at ``chip_search_mm_per_px``, the chips' candidates) and of the board tops.
    bottom_shift : callable or None
        Wall parallax of the boards (``_shift_field``; None: walls not modelled).
    chips_fine : LazyTopView or None
        The chip faces' view at the reading resolution over the whole mat (``chips``), made when first asked for;
        None: the view searched is that view.
    """

    calibration: object
    chips_searched: TopViewMaps
    boards: TopViewMaps
    bottom_shift: object = None
    chips_fine: LazyTopView | None = field(default=None, compare=False)

    @property
    def chips(self) -> TopViewMaps:
        """The chip faces' top view over the whole mat at the reading resolution (the live checks sample their chip
        patches in it): the view searched when that is at the reading resolution, else made when first asked
        for, then kept with these views."""
        return self.chips_searched if self.chips_fine is None else self.chips_fine.maps()


def carrotain_views(cal, config: CarrotainVisionConfig) -> CarrotainViews:
    """The top-view maps and wall parallax of one calibration (``CarrotainViews``)."""
    z_top, z_bottom = config.board_top_z_mm, config.board_top_z_mm - config.board_thickness_mm
    searched = _chip_search_maps(cal, config)
    fine = None if searched.mm_per_px == config.chip_mm_per_px else \
        LazyTopView(cal, config.region_mm, config.chip_mm_per_px, config.chip_face_z_mm)
    return CarrotainViews(
        cal,
        searched,
        top_view_maps(cal, config.region_mm, config.board_mm_per_px, config.board_top_z_mm),
        _shift_field(cal, config.region_mm, z_bottom, z_top, config.wall_grid_mm) if config.board_walls else None,
        fine,
    )


def _chip_search_maps(cal, config: CarrotainVisionConfig) -> TopViewMaps:
    """The maps of the view the chips are searched on (``chip_search_mm_per_px``)."""
    return top_view_maps(cal, config.region_mm, max(config.chip_search_mm_per_px, config.chip_mm_per_px),
                         config.chip_face_z_mm)


def _chip_patch_reader(image_rgb: np.ndarray, cal, ref, config: CarrotainVisionConfig) -> PatchReader:
    """The chip faces' view around a table point at ``chip_mm_per_px``, normalised (``vision.chips.PatchReader``)."""
    def read(centre_mm: tuple[float, float], half_mm: float) -> tuple[np.ndarray, tuple[float, float], float]:
        x, y = centre_mm
        tv = top_view(cal, image_rgb, (x - half_mm, y - half_mm, x + half_mm, y + half_mm), config.chip_mm_per_px,
                      config.chip_face_z_mm)
        return np.asarray(ref.normalise(tv.image), dtype=np.float32), tv.origin_mm, tv.mm_per_px
    return read


def _chip_point_reader(image_rgb: np.ndarray, cal, ref, config: CarrotainVisionConfig) -> PointReader:
    """``_chip_patch_reader``'s views at the pixels nearest table points (``vision.cast_shadow.PointReader``): the same
    colours as picked from its whole patches, only those pixels resampled, every patch's grid projected at once."""
    s = config.chip_mm_per_px

    def read(centres_mm: Sequence[tuple[float, float]], half_mm: float, points_mm: Sequence[np.ndarray]
             ) -> list[np.ndarray | None]:
        regions = [(x - half_mm, y - half_mm, x + half_mm, y + half_mm) for x, y in centres_mm]
        at = [nearest_pixels(pts, (float(r[0]), float(r[1])), float(s), view_shape(r, s))
              for r, pts in zip(regions, points_mm)]
        read_at = [i for i, a in enumerate(at) if a is not None]
        values = top_view_pixels(cal, image_rgb, [regions[i] for i in read_at], s, config.chip_face_z_mm,
                                 [(at[i][0].ravel(), at[i][1].ravel()) for i in read_at])
        out: list[np.ndarray | None] = [None] * len(regions)
        for i, v in zip(read_at, values):
            rgb = np.asarray(ref.normalise(v[None]), dtype=np.float32)[0]  # as the patch's image, one row
            out[i] = rgb.reshape(at[i][0].shape + rgb.shape[1:])
        return out
    return read


def _views_for(cal, config: CarrotainVisionConfig, views: CarrotainViews | None) -> CarrotainViews:
    return views if views is not None and views.calibration is cal else carrotain_views(cal, config)


def detect_chip_readings(image_rgb: np.ndarray, cal, ref, config: CarrotainVisionConfig, components: dict,
                         layout: MarkerLayout, players: tuple[str, ...] = ()) -> list[ChipReading]:
    """Chips of one photo as ``ChipReading`` (table mm, sigma, confidence); ``players``: the colours in play."""
    return read_chips(image_rgb, cal, ref, config, components, layout, players=players)[0]


def read_chips(image_rgb: np.ndarray, cal, ref, config: CarrotainVisionConfig, components: dict,
               layout: MarkerLayout, views: CarrotainViews | None = None, players: tuple[str, ...] = ()
               ) -> tuple[list[ChipReading], list[tuple[float, float]]]:
    """Chips of one photo as ``ChipReading`` (table mm, sigma, confidence), and the chip-like blobs that
    could not be read (table mm). ``views``: the calibration's top-view maps, when already made; ``players``:
    the colours in play, when known (a dot is named by one of them unless another colour is clearly nearer)."""
    dots, faces, hole = _palettes(components)
    maps = views.chips_searched if views is not None and views.calibration is cal else _chip_search_maps(cal, config)
    tv = maps.resample(image_rgb)
    norm = np.asarray(ref.normalise(tv.image), dtype=np.float32)
    patches = _chip_patch_reader(image_rgb, cal, ref, config) if tv.mm_per_px > config.chip_mm_per_px else None
    found = find_chips(norm, tv.origin_mm, tv.mm_per_px, dots, faces, hole, _exclusions(config, layout), config.chips,
                       in_play=frozenset(players), patches=patches)
    dets: list[ChipDetection] = found.chips
    if not dets:
        return [], found.unread_xy_mm
    xy = np.array([d.xy_mm for d in dets])
    spread = _height_spread_mm(cal, xy, config.chip_face_z_mm)
    extra = config.sigma_per_reproj * float(getattr(cal, "reprojection_error_mm", 0.0))
    out = []
    for d, sp in zip(dets, spread):
        sigma = float(np.sqrt(d.centre_sigma_mm ** 2 + extra ** 2 + sp ** 2))
        out.append(ChipReading(d.kind, d.colour, d.xy_mm, sigma, d.colour_confidence, d.presence_confidence))
    return out, found.unread_xy_mm


@dataclass(frozen=True)
class BoardEvidence:
    """The maps boards are matched on (a top view at the board tops), see ``vision.acrylic.board_maps``.

    Attributes
    ----------
    ratio, line : ndarray, shape (h, w), float32
        Dimming ratio and edge-line strength; NaN outside the photo and around the markers.
    printed : ndarray, shape (h, w), uint8
        Print strokes, well inside the view.
    origin_mm : (float, float)
    mm_per_px : float
    bottom_shift : callable or None
        Wall parallax of the boards (None: walls not modelled).
    config : AcrylicConfig or None
        The board matcher's config for this photo (``vision.acrylic.for_photo``: edge lengths following the photo's
        resolution); None: ``CarrotainVisionConfig.boards`` as it is.
    """

    ratio: np.ndarray
    line: np.ndarray
    printed: np.ndarray
    origin_mm: tuple[float, float]
    mm_per_px: float
    bottom_shift: object = None
    config: AcrylicConfig | None = None


def board_evidence(image_rgb: np.ndarray, cal, ref, config: CarrotainVisionConfig,
                   layout: MarkerLayout, views: CarrotainViews | None = None) -> BoardEvidence:
    """Top view at the board tops -> dimming, edge-line and print maps, markers masked out. ``views``: the
    calibration's top-view maps and wall parallax, when already made."""
    views = _views_for(cal, config, views)
    tv = views.boards.resample(image_rgb)
    level = _channel_mean(ref.normalise(tv.image))
    valid = _seen(tv.image)
    boards = for_photo(config.boards, _photo_mm_per_px(views.boards, valid))
    zero_level = float(_channel_mean(np.asarray(ref.normalise(np.zeros((1, 1, 3), np.uint8))))[0, 0])
    ratio, line, printed = board_maps(level, tv.mm_per_px, boards, zero_level)
    ratio[~valid] = np.nan
    line[~valid] = np.nan
    for x0, y0, x1, y1 in _exclusions(config, layout):
        c0, r0 = tv.mm_to_px([[x0, y0]])[0].astype(int)
        c1, r1 = np.ceil(tv.mm_to_px([[x1, y1]])[0]).astype(int)
        ratio[max(r0, 0):max(r1, 0), max(c0, 0):max(c1, 0)] = np.nan
        line[max(r0, 0):max(r1, 0), max(c0, 0):max(c1, 0)] = np.nan
    # print strokes only well inside the view (the mat's and the view's edges make long bright lines)
    k = max(int(round(2 * config.print_edge_guard_mm / tv.mm_per_px)) | 1, 3)
    inner = cv2.erode(np.pad(np.isfinite(ratio).astype(np.uint8), 1), np.ones((k, k), np.uint8))[1:-1, 1:-1]
    printed = (printed * inner).astype(np.uint8)
    return BoardEvidence(ratio, line, printed, tv.origin_mm, tv.mm_per_px, views.bottom_shift, boards)


def _photo_mm_per_px(maps: TopViewMaps, valid: np.ndarray, step_px: int = 16) -> float:
    """Median width (mm) of one photo pixel over the top view's valid part: from where the view's pixels lie in the
    photo (``maps``: the view's own mm per px over the photo px it moves per view px, every ``step_px``)."""
    xy = maps.photo_xy_px(step_px)
    dx = np.hypot(*(xy[:, 1:] - xy[:, :-1]).transpose(2, 0, 1))[:-1]
    dy = np.hypot(*(xy[1:] - xy[:-1]).transpose(2, 0, 1))[:, :-1]
    ok = valid[::step_px, ::step_px][:-1, :-1] & (dx > 0) & (dy > 0)
    if not ok.any():
        return 0.0
    return float(np.median(step_px * maps.mm_per_px / np.sqrt(dx[ok] * dy[ok])))


def _channel_mean(rgb: np.ndarray) -> np.ndarray:
    """``rgb.mean(axis=2)`` of a 3-channel image (h, w, 3) -> (h, w): the same numbers (the channels summed in
    order, then divided), without a reduction over a short strided axis (20x faster)."""
    return (rgb[..., 0] + rgb[..., 1] + rgb[..., 2]) / rgb.dtype.type(3)


def _seen(rgb: np.ndarray) -> np.ndarray:
    """Pixels of a top view that the photo covers (a channel not 0: ``cv2.remap``'s border is black), (h, w)
    bool."""
    return (rgb[..., 0] | rgb[..., 1] | rgb[..., 2]) > 0


def board_outlines(components: dict) -> dict[str, np.ndarray]:
    """Board id -> outline (N, 2) in the board's own frame, mm."""
    return {k: np.asarray(v, dtype=np.float64) for k, v in components["carrotain"]["board"]["outlines_mm"].items()}


def detect_board_readings(image_rgb: np.ndarray, cal, ref, chips: list[ChipReading], config: CarrotainVisionConfig,
                          components: dict, layout: MarkerLayout) -> list[BoardReading]:
    """Boards of one photo as ``BoardReading``: the fitted boards (the two over the chip field are the
    challenge boards, the rest "other") and the acrylic-looking regions no board explains ("unread")."""
    ev = board_evidence(image_rgb, cal, ref, config, layout)
    readings, _ = _boards_from_evidence(ev, cal, chips, config, components, None)
    assert readings is not None  # a search (no carried fits) always answers
    return readings


def _boards_from_evidence(ev: BoardEvidence, cal, chips: list[ChipReading], config: CarrotainVisionConfig,
                          components: dict, carried: tuple[BoardFit, ...] | None
                          ) -> tuple[list[BoardReading] | None, tuple[BoardFit, ...]]:
    """The boards on one frame's evidence, as readings, and the fits they came from.

    Without ``carried`` the boards are searched (``find_boards``, then the exhaustive grid where a board the
    judgement needs is still missing). With ``carried`` (the fits of an earlier frame of the same still
    scene) each is re-fitted where it was (``refit_boards``); when one fails that check, or the chip field
    would need the fallback search, the answer is (None, ()): the caller searches afresh.
    """
    outlines = board_outlines(components)
    boards = ev.config if ev.config is not None else config.boards
    maps = (ev.ratio, ev.origin_mm, ev.mm_per_px, outlines, boards, ev.bottom_shift, ev.line, ev.printed)
    if carried is not None:
        if any(f.loose for f in carried):  # a loose board is searched again (a refit would hold it to the strict test)
            return None, ()
        refit = refit_boards(list(carried), *maps[:7], max_move_mm=config.warm_max_move_mm)
        if refit is None:
            return None, ()
        fits = refit
    else:
        fits = find_boards(*maps)
    chips_xy = [c.xy_mm for c in chips]
    challenge = _challenge_boards([f.outline_mm for f in fits], chips_xy, config)
    unread = unexplained_regions(ev.ratio, ev.printed, fits, ev.origin_mm, ev.mm_per_px, boards, ev.line, outlines)
    needed = _areas_needing_boards(unread, len(challenge), chips_xy, config)
    if needed and carried is not None:
        return None, ()
    if needed:  # the evidence-driven search left boards unfound: the exhaustive grid there
        refits = GridRefits()  # what that grid refined, judged again (not searched again) by the loose acceptance
        fits = find_boards_in(needed, fits, *maps, refits=refits)
        challenge = _challenge_boards([f.outline_mm for f in fits], chips_xy, config)
        if len(challenge) < 2:  # still short: the loose fits there, read with their outline uncertain
            fits = _with_loose_boards(needed, fits, maps, chips_xy, config, refits)
            challenge = _challenge_boards([f.outline_mm for f in fits], chips_xy, config)
        unread = unexplained_regions(ev.ratio, ev.printed, fits, ev.origin_mm, ev.mm_per_px, boards, ev.line,
                                     outlines)
    extra = config.sigma_per_reproj * float(getattr(cal, "reprojection_error_mm", 0.0))
    out = []
    for i, f in enumerate(fits):
        spread = float(np.max(_height_spread_mm(cal, f.outline_mm[::6], config.board_top_z_mm)))
        sigma = float(np.sqrt(f.pose_sigma_mm ** 2 + extra ** 2 + spread ** 2))
        floor = float(np.sqrt(f.floor_sigma_mm ** 2 + extra ** 2 + spread ** 2))
        if f.loose:  # the outline is uncertain by its mean distance to the edges found
            sigma, floor = max(sigma, f.chamfer_mm), max(floor, f.chamfer_mm)
        cov = None if f.pose_cov is None else pose_cov_about(f.pose_cov, np.asarray(f.centre_mm),
                                                             np.asarray(f.outline_mm).mean(axis=0))
        out.append(BoardReading(f.id, np.asarray(f.outline_mm), sigma, f.fit_residual_mm,
                                "challenge" if i in challenge else "other", pose_cov=cov,
                                floor_sigma_mm=floor if cov is not None else 0.0, loose=f.loose))
    for region in unread:
        out.append(BoardReading("?", region, config.boards.max_sigma_mm, 0.0, "unread"))
    return out, tuple(fits)


def _with_loose_boards(needed: list[np.ndarray], fits: list[BoardFit], maps: tuple, chips_xy_mm: list,
                       config: CarrotainVisionConfig, refits: GridRefits | None = None) -> list[BoardFit]:
    """``fits`` and, while fewer than two of them are challenge boards, the loose fits (``loose_acceptance``, marked
    ``BoardFit.loose``) that the fallback search finds in the areas that need a board (``needed``, table-mm polygons)
    and that lie over the chip field, ranked as challenge boards are (``_over_the_field``: the most chips covered
    first): a board whose edges lie under the noise (a dim webcam frame) is read with its outline uncertain by its
    chamfer - the chips near its edge become borderline - instead of the photo being declined. The search's own
    suppression decides which fits may overlap; a loose fit of a board already read, or over an acceptable fit that
    it displaced there (by more than ``stack_min_overlap_mm2``), is left out: the acceptable fits stay as they were.
    (Ranked by the fit key instead, a fit on a part of the mat where the dimming ratio blows up - contrast 5, far
    past any acrylic's - covering one chip came before the board over ten: dev b01 as a webcam delivers it, seed 1.)

    Parameters
    ----------
    needed : list of ndarray, shape (N, 2)
    fits : list[BoardFit]
        The acceptable fits (kept as they are).
    maps : tuple
        ``find_boards_in``'s arguments after ``fits`` (ratio, origin, mm per px, outlines, config, walls, line,
        print).
    chips_xy_mm : list of (float, float)
    config : CarrotainVisionConfig
    refits : GridRefits, optional
        The poses the strict fallback search refined on the same evidence (judged again, not searched again).

    Returns
    -------
    list[BoardFit]
    """
    ratio, origin_mm, s, outlines, boards, bottom_shift, line, printed = maps
    found = find_boards_in(needed, fits, ratio, origin_mm, s, outlines, loose_acceptance(boards), bottom_shift, line,
                           printed, refits=refits)
    displaced = [Polygon(g.outline_mm) for g in fits if all(f.id != g.id for f in found)]
    loose = [f for f in found if all(g.id != f.id for g in fits)
             and not any(Polygon(f.outline_mm).intersection(d).area > boards.stack_min_overlap_mm2 for d in displaced)]
    missing = 2 - len(_challenge_boards([f.outline_mm for f in fits], chips_xy_mm, config))
    ranked = _over_the_field([f.outline_mm for f in loose], chips_xy_mm, config)[:max(missing, 0)]
    return list(fits) + [replace(loose[i], loose=True) for i in ranked]


def _shift_field(cal, region_mm, z_from: float, z_to: float, grid_mm: float):
    """Where a point at height ``z_from`` appears in a view rectified at ``z_to``, relative to the point
    (mm), as a callable on (N, 2) table mm: computed on a grid and interpolated (the shift is smooth)."""
    x0, y0, x1, y1 = region_mm
    xs = np.arange(x0 - grid_mm, x1 + 2 * grid_mm, grid_mm)
    ys = np.arange(y0 - grid_mm, y1 + 2 * grid_mm, grid_mm)
    gx, gy = np.meshgrid(xs, ys)
    g = np.column_stack([gx.ravel(), gy.ravel()])
    field = (px_to_mm(cal, mm_to_px(cal, g, z_from), z_to) - g).reshape(len(ys), len(xs), 2).astype(np.float32)
    origin = np.array([xs[0], ys[0]], dtype=np.float32)

    def shift(p_mm: np.ndarray) -> np.ndarray:
        q = ((np.asarray(p_mm, dtype=np.float32).reshape(-1, 1, 2) - origin) / grid_mm).astype(np.float32)
        v = cv2.remap(field, q, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return v.reshape(np.shape(p_mm)).astype(np.float64)

    return shift


def _areas_needing_boards(unread: list[np.ndarray], n_challenge: int, chips_xy_mm: list,
                          config: CarrotainVisionConfig) -> list[np.ndarray]:
    """Where a board still needed for the judgement may lie unfound (table-mm polygons, shape (N, 2)): the
    chip field while fewer than two challenge boards lie over it, and every unexplained acrylic-looking
    region over the chip field (a board there may hide chips). Unread regions away from the chips change
    nothing in the judgement: they are flagged and drawn, not searched again."""
    if not chips_xy_mm:
        return []
    field_area = _chip_field(chips_xy_mm, config)
    areas = [u for u in unread if len(u) >= 3 and Polygon(u).intersects(field_area)]
    if n_challenge < 2 and field_area.geom_type == "Polygon" and not field_area.is_empty:
        areas.append(np.asarray(field_area.exterior.coords)[:-1])
    return areas


def _chip_field(chips_xy_mm: list, config: CarrotainVisionConfig) -> Polygon:
    """The chip field: the convex hull of the chip centres grown by ``field_grow_diameters`` chip diameters."""
    pts = MultiPoint([tuple(p) for p in chips_xy_mm])
    return pts.convex_hull.buffer(config.chips.diameter_mm * config.field_grow_diameters)


def unread_near_chip_field(state: CarrotainState, config: CarrotainVisionConfig = CarrotainVisionConfig()
                           ) -> list[int]:
    """Indices into ``state.boards`` of the unread acrylic-looking regions (role ``"unread"``) over the chip field
    or within ``unread_near_field_mm`` of it: where a challenge board may lie unread. With none, every acrylic
    region near the chips is explained by a board read (a challenge with fewer than two boards over the chips is
    then judged, flagged ``invalid_challenge``, instead of declined)."""
    if not state.chips:
        return []
    near = _chip_field([c.xy_mm for c in state.chips], config).buffer(config.unread_near_field_mm)
    out = []
    for i, b in enumerate(state.boards):
        outline = np.asarray(b.outline_mm, dtype=np.float64).reshape(-1, 2)
        if b.role != "unread" or len(outline) < 3 or not np.all(np.isfinite(outline)):
            continue
        region = Polygon(outline)
        if not region.is_valid:
            region = region.buffer(0)
        if region.intersects(near):
            out.append(i)
    return out


def _challenge_boards(outlines_mm: list[np.ndarray], chips_xy_mm: list, config: CarrotainVisionConfig) -> set[int]:
    """Indices (a set) of the (at most two) boards lying over the chip field: the first two of ``_over_the_field``
    (same arguments)."""
    return set(_over_the_field(outlines_mm, chips_xy_mm, config)[:2])


def _over_the_field(outlines_mm: list[np.ndarray], chips_xy_mm: list, config: CarrotainVisionConfig) -> list[int]:
    """Indices of the boards lying over the chip field, ranked.

    A board lies over the field when it covers chip centres (within a chip radius of its outline) or,
    covering none, overlaps the chip field (the convex hull of the chip centres grown by a chip
    diameter) by more than ``min_field_overlap_mm2``. Ranked by chips covered, then by the area over the field; a
    board that neither covers a chip nor overlaps the field is never a challenge board.

    Parameters
    ----------
    outlines_mm : list of ndarray, shape (N, 2)
    chips_xy_mm : list of (float, float)

    Returns
    -------
    list[int]
    """
    if not outlines_mm or not chips_xy_mm:
        return []
    field_area = _chip_field(chips_xy_mm, config)
    keys = []
    for o in outlines_mm:
        poly = Polygon(o)
        reach = poly.buffer(config.chips.diameter_mm / 2.0)
        covered = sum(reach.contains(Point(p)) for p in chips_xy_mm)
        keys.append((covered, poly.intersection(field_area).area))
    order = sorted(range(len(outlines_mm)), key=lambda i: (-keys[i][0], -keys[i][1]))
    return [i for i in order if keys[i][0] > 0 or keys[i][1] > config.min_field_overlap_mm2]


def recognise(
    challenge_rgb: np.ndarray,
    cal,
    before: tuple[np.ndarray, object] | None = None,
    timer: StageTimer | None = None,
    config: CarrotainVisionConfig = CarrotainVisionConfig(),
    components: dict | None = None,
    players: tuple[str, ...] = (),
) -> CarrotainState:
    """Read a challenge photo into a ``CarrotainState``.

    Parameters
    ----------
    challenge_rgb : ndarray, shape (H, W, 3), uint8
    cal : TableCalibration of the challenge photo
    before : (image_rgb, TableCalibration), optional
        The scatter before the boards were laid: its chips (seen without acrylic) replace the
        matching challenge-photo chips, and chips that moved more than ``touched_mm`` are flagged.
    timer : StageTimer, optional
    config : CarrotainVisionConfig
    components : dict, optional
    players : tuple[str, ...]
        The colours in play, when known (the context's players): each dot is named by one of them unless a
        colour not in play is clearly nearer. Empty: all colours alike.

    Returns
    -------
    CarrotainState
    """
    return recognise_warm(challenge_rgb, cal, None, before, timer, config, components, probe=False,
                          players=players)[0]


@dataclass(frozen=True)
class CarrotainCarry:
    """What a read of one still scene found that the next reading frames of it reuse (``recognise_warm``).

    Attributes
    ----------
    boards : tuple[BoardFit, ...]
        The boards fitted (re-fitted where they were on the next frames, not searched, when the quick check fails).
    before_image : ndarray or None
        The "before" photo those chips were read from (the very array: compared by identity).
    before_chips : tuple[ChipReading, ...]
        Its chips.
    views : CarrotainViews or None
        The top-view maps and wall parallax of the calibration the frames are seen through.
    chips : tuple[ChipReading, ...]
        The chips read on the challenge photo (before any merge with the "before" photo's).
    unread_blobs : tuple[(float, float), ...]
        The chip-like blobs that could not be read there (table mm).
    board_readings : tuple[BoardReading, ...]
        The boards as read (challenge / other / unread regions).
    probe : StillProbe or None
        The quick checks a later frame must pass to reuse all of the above unread (``vision.carrotain_still``).
    """

    boards: tuple[BoardFit, ...]
    before_image: np.ndarray | None = None
    before_chips: tuple[ChipReading, ...] = ()
    views: CarrotainViews | None = None
    chips: tuple[ChipReading, ...] = ()
    unread_blobs: tuple[tuple[float, float], ...] = ()
    board_readings: tuple[BoardReading, ...] = ()
    probe: StillProbe | None = None


def recognise_warm(
    challenge_rgb: np.ndarray,
    cal,
    carry: CarrotainCarry | None,
    before: tuple[np.ndarray, object] | None = None,
    timer: StageTimer | None = None,
    config: CarrotainVisionConfig = CarrotainVisionConfig(),
    components: dict | None = None,
    probe: bool = True,
    players: tuple[str, ...] = (),
) -> tuple[CarrotainState, CarrotainCarry]:
    """``recognise``, reusing what an earlier reading frame of the same still scene found (live video).

    With a ``carry`` (same calibration, same "before" photo), the frame is first checked cheaply against the read
    it carries (``vision.carrotain_still``): when every chip read is still where it was, the chips are not read
    again; when every board still lies on its outline as well, the boards are not matched again either and the
    frame reads as the carried one. Otherwise the chips are read afresh and the boards re-fitted where they were
    (``vision.acrylic.refit_boards``); a board that fails that (moved, no longer fits), or a chip field that would
    need the fallback search, sends the frame to the search ``recognise`` does. The chips of a "before" photo that
    is the very same image are not read again, and the top-view maps of the same calibration are reused.

    Parameters
    ----------
    challenge_rgb, cal, before, timer, config, components, players
        As for ``recognise``.
    carry : CarrotainCarry or None
        What the previous call returned for this still scene (None: its first reading frame).
    probe : bool
        Make the quick checks for the next frames (``CarrotainCarry.probe``; False: a photo read once).

    Returns
    -------
    state : CarrotainState
    carry : CarrotainCarry
        ``carry`` itself when it held; a new one otherwise.
    """
    timer = timer or StageTimer()
    comp = components or load_components()
    layout = MarkerLayout.from_components(comp)
    flags: list[Flag] = []
    with timer.stage("colour"):
        ref = colour_reference(cal, challenge_rgb, layout)
    if not has_height_model(cal):
        flags.append(Flag("no_camera_pose", "calibration has no camera pose: heights corrected from the homography "
                          f"(field of view assumed {DEFAULT_HFOV_DEG:.0f} deg when it cannot be measured)"))
    with timer.stage("views"):
        views = _views_for(cal, config, carry.views if carry is not None else None)
    b_img = None if before is None else before[0]
    still = _checkable_carry(carry, views, b_img)
    chips_held, chips, unread_blobs = _frame_chips(still, challenge_rgb, cal, ref, config, comp, layout, views,
                                                   players, timer)
    read = (tuple(chips), tuple(unread_blobs))
    if unread_blobs:
        flags.append(Flag("unread_chip_blobs", f"{len(unread_blobs)} chip-like blob(s) could not be read as chips",
                          {"xy_mm": [[round(x, 1), round(y, 1)] for x, y in unread_blobs]}))
    b_chips = _before_chips(before, carry, config, comp, layout, players, timer)
    if before is not None:
        with timer.stage("before"):
            chips, more = _merge_before(chips, b_chips, config)
        flags += more
    new_carry: CarrotainCarry
    if still is not None and chips_held and _boards_still(still, challenge_rgb, ref, config, timer):
        boards, new_carry = list(still.board_readings), still  # nothing changed: later frames checked against it
    else:
        boards, fits, refitted = _fit_boards(challenge_rgb, cal, ref, chips, carry, b_img, views, config, comp,
                                             layout, timer)
        with timer.stage("shadow"):
            boards = _toward_the_light(boards, challenge_rgb, cal, ref, read[0], config)
        checks = None
        if probe:
            with timer.stage("still_probe"):
                checks = still_probe(challenge_rgb, cal, ref, views.chips, [c.xy_mm for c in read[0]] + list(read[1]),
                                     [f.outline_mm for f in fits], config.board_top_z_mm, config.still)
        # re-fitted where they were: the first fits stay what later frames' boards are re-fitted from
        new_carry = CarrotainCarry(carry.boards if refitted and carry is not None else fits, b_img,
                                   tuple(b_chips), views, read[0], read[1], tuple(boards), checks)
    if before is None:
        chips = _refraction_correction(chips, boards, cal, config)
    flags += _reading_flags(chips, boards, config)
    return CarrotainState(tuple(chips), tuple(boards), tuple(flags)), new_carry


def _toward_the_light(boards: list[BoardReading], challenge_rgb: np.ndarray, cal, ref, chips: Sequence[ChipReading],
                      config: CarrotainVisionConfig) -> list[BoardReading]:
    """The fitted boards moved ``ShadowConfig.board_shift_mm`` towards the light, where the chips' own shadows show
    which way it falls (``vision.cast_shadow``): a board's outline is fitted to the board seen plus its shadow on the
    mat. Unread acrylic regions and every board of a photo without a clear shadow direction stay as they are; the fits
    a later frame is re-fitted from are not moved (this reads where the board lies, not where its evidence does)."""
    if config.shadow.board_shift_mm <= 0 or not chips or not boards:
        return boards
    points = _chip_point_reader(challenge_rgb, cal, ref, config)
    shadow = cast_shadow(chip_rings(points, [c.xy_mm for c in chips], config.shadow), config.shadow)
    return boards_toward_light(boards, shadow, config.shadow)


def _checkable_carry(carry: CarrotainCarry | None, views: CarrotainViews, before_image: np.ndarray | None
                     ) -> CarrotainCarry | None:
    """The carry when this frame can be checked against it (quick checks made, the same maps and "before" photo)."""
    if carry is not None and carry.probe is not None and carry.views is views and carry.before_image is before_image:
        return carry
    return None


def _frame_chips(still: CarrotainCarry | None, challenge_rgb: np.ndarray, cal, ref, config: CarrotainVisionConfig,
                 comp: dict, layout: MarkerLayout, views: CarrotainViews, players: tuple[str, ...],
                 timer: StageTimer) -> tuple[bool, list[ChipReading], list[tuple[float, float]]]:
    """This frame's chips: the carried ones when every chip read is still where it was, else read afresh.

    Returns
    -------
    held : bool
        The carried chips passed their quick check.
    chips : list[ChipReading]
    unread_blobs : list[(float, float)]
        Chip-like blobs that could not be read (table mm).
    """
    if still is not None and still.probe is not None:
        with timer.stage("chips_carried"):
            held = chips_hold(still.probe, challenge_rgb, ref, config.still)
        if held:
            return True, list(still.chips), list(still.unread_blobs)
    with timer.stage("chips"):
        chips, unread_blobs = read_chips(challenge_rgb, cal, ref, config, comp, layout, views, players)
    return False, chips, unread_blobs


def _before_chips(before: tuple[np.ndarray, object] | None, carry: CarrotainCarry | None,
                  config: CarrotainVisionConfig, comp: dict, layout: MarkerLayout, players: tuple[str, ...],
                  timer: StageTimer) -> list[ChipReading]:
    """The chips of the "before" photo: carried when it is the very image already read, else read (none: [])."""
    if before is None:
        return []
    b_img, b_cal = before
    with timer.stage("before"):
        if carry is not None and carry.before_image is b_img:
            return list(carry.before_chips)
        b_ref = colour_reference(b_cal, b_img, layout)
        return detect_chip_readings(b_img, b_cal, b_ref, config, comp, layout, players)


def _boards_still(still: CarrotainCarry, challenge_rgb: np.ndarray, ref, config: CarrotainVisionConfig,
                  timer: StageTimer) -> bool:
    """Every carried board still lies on its outline in this frame (the quick check of ``vision.carrotain_still``)."""
    if still.probe is None:
        return False
    with timer.stage("boards_carried"):
        return boards_hold(still.probe, challenge_rgb, ref, config.still)


def _fit_boards(challenge_rgb: np.ndarray, cal, ref, chips: list[ChipReading], carry: CarrotainCarry | None,
                before_image: np.ndarray | None, views: CarrotainViews, config: CarrotainVisionConfig, comp: dict,
                layout: MarkerLayout, timer: StageTimer) -> tuple[list[BoardReading], tuple[BoardFit, ...], bool]:
    """The boards of this frame: re-fitted where the carry had them, else (or when one fails) searched.

    Returns
    -------
    boards : list[BoardReading]
    fits : tuple[BoardFit, ...]
    refitted : bool
        The carried boards were re-fitted (the carry's first fits stay what later frames are re-fitted from).
    """
    with timer.stage("board_maps"):
        ev = board_evidence(challenge_rgb, cal, ref, config, layout, views)
    with timer.stage("boards" if carry is None else "boards_carried"):
        if carry is not None and carry.boards:
            boards, fits = _boards_from_evidence(ev, cal, chips, config, comp, carry.boards)
            if boards is not None:
                return boards, fits, carry.before_image is before_image and carry.views is views
    with timer.stage("boards"):  # no carry, or a carried board failed its check: searched
        boards, fits = _boards_from_evidence(ev, cal, chips, config, comp, None)
    assert boards is not None  # a search always answers
    return boards, fits, False


def _reading_flags(chips: list[ChipReading], boards: list[BoardReading], config: CarrotainVisionConfig
                   ) -> list[Flag]:
    """What the reading could not settle: chips read with low confidence, acrylic matched to no board (drawn
    where it lies), and a challenge-board count other than two."""
    flags = []
    low = [i for i, c in enumerate(chips) if c.confidence < config.low_confidence]
    if low:
        flags.append(Flag("low_confidence_chips", f"{len(low)} chip(s) read with low confidence (kind/colour unsure)",
                          {"chips": low}))
    unread = [i for i, b in enumerate(boards) if b.role == "unread"]
    if unread:
        flags.append(Flag("unread_acrylic", f"{len(unread)} acrylic-looking region(s) (print or dimming) not matched "
                          "to any board: a board may lie there unread", {
                              "boards": unread,
                              "centres_mm": [np.round(np.mean(boards[i].outline_mm, axis=0), 1).tolist()
                                             for i in unread]}))
    n_ch = sum(b.role == "challenge" for b in boards)
    if n_ch != 2:
        flags.append(Flag("boards_not_found", f"found {n_ch} challenge board(s) over the chips, expected 2",
                          {"found": n_ch}))
    return flags


def _refraction_correction(chips: list[ChipReading], boards: list[BoardReading], cal,
                           config: CarrotainVisionConfig) -> list[ChipReading]:
    """Chips seen through a board look raised by ``thickness * (1 - 1/n)``: map them at that height.

    A chip whose centre is within its shift (plus the sigmas) of a board edge may be seen either
    through the board or not; its sigma is widened by the shift instead.
    """
    if not boards or not chips:
        return chips
    rise = config.board_thickness_mm * (1.0 - 1.0 / config.acrylic_index)
    z = config.chip_face_z_mm
    xy = np.array([c.xy_mm for c in chips])
    raised = px_to_mm(cal, mm_to_px(cal, xy, z), z + rise)
    shift = np.hypot(*(raised - xy).T)
    polys = [Polygon(b.outline_mm) for b in boards]
    out = []
    for c, p_new, sh in zip(chips, raised, shift):
        pt = Point(c.xy_mm)
        d_edge = min(p.exterior.distance(pt) for p in polys)
        inside = any(p.contains(pt) for p in polys)
        if d_edge <= sh + 2.0 * c.centre_sigma_mm:
            out.append(replace(c, centre_sigma_mm=float(np.hypot(c.centre_sigma_mm, sh))))
        elif inside:
            out.append(replace(c, xy_mm=(float(p_new[0]), float(p_new[1]))))
        else:
            out.append(c)
    return out


def _merge_before(chips: list[ChipReading], before: list[ChipReading], config: CarrotainVisionConfig):
    """Use before-photo chips (no acrylic in the way) and flag those that moved."""
    flags: list[Flag] = []
    if not before:
        return chips, flags
    B = np.array([c.xy_mm for c in before])
    used: set[int] = set()
    out: list[ChipReading] = []
    touched = []
    for i, c in enumerate(chips):
        d = np.hypot(*(B - c.xy_mm).T)
        j = int(np.argmin(d))
        if d[j] < config.match_before_mm and j not in used:
            used.add(j)
            b = before[j]
            if d[j] > config.touched_mm + 2.0 * np.hypot(c.centre_sigma_mm, b.centre_sigma_mm):
                touched.append(i)
                out.append(c)
            else:
                kind, colour, conf = (b.kind, b.colour, b.confidence) if b.confidence >= c.confidence else (
                    c.kind, c.colour, c.confidence)
                out.append(ChipReading(kind, colour, b.xy_mm, b.centre_sigma_mm, conf,
                                       max(b.presence_confidence, c.presence_confidence)))
        else:
            out.append(c)
    missing = [j for j in range(len(before)) if j not in used]
    if touched:
        flags.append(Flag("touched", f"{len(touched)} chip(s) moved more than {config.touched_mm:g} mm since the "
                          "before photo", {"chips": touched}))
    if missing:
        flags.append(Flag("chips_missing_since_before", f"{len(missing)} chip(s) of the before photo not found now",
                          {"xy_mm": [list(np.round(before[j].xy_mm, 1)) for j in missing]}))
    return out, flags


def project_outline_px(cal, outline_mm: np.ndarray, z_mm: float = 2.0) -> np.ndarray:
    """A board footprint (at its bottom face height) in image px, for overlays."""
    return mm_to_px(cal, outline_mm, z_mm)


def chip_px(cal, xy_mm: np.ndarray, z_mm: float = 2.0) -> np.ndarray:
    """Chip centres in image px, for overlays."""
    return mm_to_px(cal, xy_mm, z_mm)


#: Public names for colour registration (judge/register_colours.py): the chip palettes and the regions
#: (markers) the chip search leaves out.
chip_palettes = _palettes
chip_exclusions = _exclusions

__all__ = ["CarrotainVisionConfig", "recognise", "recognise_warm", "CarrotainCarry", "project_outline_px", "chip_px",
           "px_to_mm", "chip_palettes", "chip_exclusions"]
