"""Photo conditions: everything random about a synthetic photo, sampled once and recorded.

``sample_conditions`` draws a camera, lens, table, light, sensor and (on ``hard``) the troubles
real tables bring; ``PhotoConditions`` is frozen and JSON-able, so a truth file can say exactly
how its photo was made.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import Polygon

from calibration.markers import MarkerLayout
from synth.camera import CameraTruth, intrinsics, look_at_pose, radial_is_monotonic, undistort_normalised
from synth.clutter import ClutterSpec, sample_clutter
from synth.hand import HandSpec
from synth.surfaces import TABLE_KINDS

HARD_KINDS = ("distort", "hand", "cast", "white_table")


@dataclass(frozen=True)
class SampleConfig:
    """Ranges the sampler draws from (mm, degrees, Kelvin; colours sRGB in [0, 1])."""

    height_mm: tuple[float, float] = (400.0, 900.0)
    hfov_deg: tuple[float, float] = (55.0, 78.0)
    roll_deg: float = 4.0
    look_at_jitter_mm: float = 40.0
    k1_normal: tuple[float, float] = (-0.04, 0.02)
    k1_hard: tuple[float, float] = (-0.26, -0.18)
    k2_hard: tuple[float, float] = (0.02, 0.06)
    table_margin_mm: tuple[float, float] = (250.0, 1500.0)
    table_kind_weights: tuple[float, ...] = (0.3, 0.2, 0.2, 0.1, 0.1, 0.1)
    light_elevation_deg: tuple[float, float] = (35.0, 80.0)
    light_distance_mm: tuple[float, float] = (500.0, 1600.0)
    light_size_mm: tuple[float, float] = (40.0, 500.0)
    light_temp_k: tuple[float, float] = (2900.0, 6800.0)
    wb_error_k: float = 500.0
    cast_wb_offset_k: tuple[float, float] = (1800.0, 3200.0)
    exposure: tuple[float, float] = (0.85, 1.12)
    ae_target: tuple[float, float] = (0.25, 0.5)
    exposure_dim: tuple[float, float] = (0.42, 0.62)
    ambient: tuple[float, float] = (0.2, 0.55)
    uneven_amplitude: tuple[float, float] = (0.0, 0.15)
    vignette: tuple[float, float] = (0.0, 0.3)
    shadow_strength: tuple[float, float] = (0.35, 0.75)
    specular_strength: tuple[float, float] = (0.15, 0.8)
    specular_width_deg: tuple[float, float] = (2.5, 8.0)
    acrylic_dim: tuple[float, float] = (0.8, 0.93)
    acrylic_edge_gain: tuple[float, float] = (0.2, 0.6)
    acrylic_haze: tuple[float, float] = (0.03, 0.1)
    read_noise: tuple[float, float] = (0.8, 2.5)
    read_noise_dim: tuple[float, float] = (3.5, 6.0)
    shot_noise: tuple[float, float] = (0.02, 0.12)
    defocus_sigma_px: tuple[float, float] = (0.2, 0.9)
    motion_px: tuple[float, float] = (0.0, 1.8)
    jpeg_quality: tuple[int, int] = (70, 95)
    marker_rot_max_deg: float = 1.0
    marker_quiet_zone_mm: float = 8.0
    marker_margin_px: float = 12.0
    hand_z_mm: tuple[float, float] = (15.0, 150.0)
    hand_clear_px: float = 6.0
    clutter_counts: tuple[int, ...] = (0, 0, 1, 1, 2, 3)
    max_attempts: int = 500


@dataclass(frozen=True)
class PhotoConditions:
    """Everything sampled for one synthetic photo (see ``SampleConfig`` for the ranges).

    Camera: ``height_mm`` above the table, ``tilt_deg`` from looking straight down, ``yaw_deg``
    (the side of the table the camera stands on), ``roll_deg``, ``hfov_deg`` (pinhole, before
    the lens), ``look_at_mm`` (where the optical axis meets the table); lens ``k1``, ``k2``
    (OpenCV radial model). Light: a lamp at ``light_azimuth_deg`` / ``light_elevation_deg`` /
    ``light_distance_mm`` from the look-at point, ``light_size_mm`` (soft shadows),
    ``light_temp_k``, the camera's ``white_balance_k`` and ``exposure``; ``ambient`` fraction,
    ``uneven_amplitude`` (smooth illumination blotches), ``vignette``. Sensor: ``read_noise``
    (DN), ``shot_noise`` (DN per DN), ``defocus_sigma_px``, ``motion_px`` / ``motion_angle_deg``,
    ``jpeg_quality``; the camera's automatic exposure aims at a mean gamma-encoded level
    ``ae_target`` and ``exposure`` scales what it chose (a dim, under-exposed photo: below 1).
    Markers: per-marker rotations ``marker_rot_deg`` (layout ids in sorted order), ``paper_rgb``,
    ``ink_rgb``. ``hand`` is the occluder or None; ``clutter`` the cups and boxes around the play
    area. ``hard_kinds`` lists the hard troubles applied
    (subset of ``HARD_KINDS``).
    """

    image_size: tuple[int, int]
    hard: bool
    hard_kinds: tuple[str, ...]
    look_at_mm: tuple[float, float]
    height_mm: float
    tilt_deg: float
    yaw_deg: float
    roll_deg: float
    hfov_deg: float
    k1: float
    k2: float
    table_kind: str
    table_seed: int
    table_extent_mm: tuple[float, float, float, float]
    background_seed: int
    light_azimuth_deg: float
    light_elevation_deg: float
    light_distance_mm: float
    light_size_mm: float
    light_temp_k: float
    white_balance_k: float
    exposure: float
    ambient: float
    uneven_amplitude: float
    uneven_seed: int
    vignette: float
    shadow_strength: float
    specular_strength: float
    specular_width_deg: float
    acrylic_dim: float
    acrylic_edge_gain: float
    read_noise: float
    shot_noise: float
    defocus_sigma_px: float
    motion_px: float
    motion_angle_deg: float
    jpeg_quality: int
    marker_rot_deg: tuple[float, ...] = field(default=(0.0, 0.0, 0.0, 0.0))
    paper_rgb: tuple[float, float, float] = (0.93, 0.93, 0.92)
    ink_rgb: tuple[float, float, float] = (0.06, 0.06, 0.07)
    hand: HandSpec | None = None
    ae_target: float = 0.4
    clutter: tuple[ClutterSpec, ...] = ()
    acrylic_haze: float = 0.06

    @property
    def dist(self) -> np.ndarray:
        """OpenCV distortion coefficients (k1, k2, 0, 0, 0), shape (5,)."""
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    def camera(self) -> CameraTruth:
        """The camera these conditions describe."""
        R, t = look_at_pose(self.look_at_mm, self.height_mm, self.tilt_deg, self.yaw_deg, self.roll_deg)
        return CameraTruth(K=intrinsics(self.image_size, self.hfov_deg), dist=self.dist, R=R, t=t,
                           image_size=self.image_size)

    def light_position_mm(self) -> np.ndarray:
        """The lamp's position in the table frame (z up), shape (3,), mm."""
        az, el = np.radians(self.light_azimuth_deg), np.radians(self.light_elevation_deg)
        d = self.light_distance_mm
        return np.array([self.look_at_mm[0] + d * np.cos(el) * np.cos(az),
                         self.look_at_mm[1] + d * np.cos(el) * np.sin(az), d * np.sin(el)])

    def to_json(self) -> dict:
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, HandSpec):
                v = v.to_json()
            elif f.name == "clutter":
                v = [c.to_json() for c in v]
            elif isinstance(v, tuple):
                v = [x if isinstance(x, str) else float(x) for x in v]
            elif isinstance(v, bool | str) or v is None:
                pass
            elif isinstance(v, int | np.integer):
                v = int(v)
            else:
                v = float(v)
            out[f.name] = v
        out["image_size"] = [int(x) for x in self.image_size]
        return out

    @classmethod
    def from_json(cls, obj: dict) -> PhotoConditions:
        kw = {}
        for f in dataclasses.fields(cls):
            if f.name not in obj:
                continue
            v = obj[f.name]
            if f.name == "hand":
                v = None if v is None else HandSpec.from_json(v)
            elif f.name == "clutter":
                v = tuple(ClutterSpec.from_json(c) for c in v)
            elif f.name == "image_size":
                v = (int(v[0]), int(v[1]))
            elif f.name in ("table_seed", "background_seed", "uneven_seed", "jpeg_quality"):
                v = int(v)
            elif isinstance(v, list):
                v = tuple(v)
            kw[f.name] = v
        return cls(**kw)


def _u(rng: np.random.Generator, r: tuple[float, float]) -> float:
    return float(rng.uniform(r[0], r[1]))


def marker_outline_mm(layout: MarkerLayout, marker_id: int, quiet_zone_mm: float) -> np.ndarray:
    """Corners of a marker's paper (quiet zone included), shape (4, 2), mm."""
    cx, cy = layout.centres_mm[marker_id]
    h = layout.side_mm / 2.0 + quiet_zone_mm
    return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]])


def _markers_visible(cam: CameraTruth, layout: MarkerLayout, cfg: SampleConfig) -> bool:
    w, h = cam.image_size
    pts = np.concatenate([marker_outline_mm(layout, i, cfg.marker_quiet_zone_mm) for i in layout.centres_mm])
    xyz = np.column_stack([pts, np.zeros(len(pts))])
    if np.any(cam.to_camera(xyz)[:, 2] <= 1.0):
        return False
    c = cam.to_camera(xyz)
    r_u = np.hypot(c[:, 0] / c[:, 2], c[:, 1] / c[:, 2])
    # The lens must not fold: monotonic out to the image corner's undistorted radius and the markers.
    corner_d = np.array([[(0 - cam.K[0, 2]) / cam.K[0, 0], (0 - cam.K[1, 2]) / cam.K[1, 1]],
                         [(w - 1 - cam.K[0, 2]) / cam.K[0, 0], (h - 1 - cam.K[1, 2]) / cam.K[1, 1]]])
    r_corner_u = float(np.max(np.hypot(*undistort_normalised(corner_d, cam.dist).T)))
    if not radial_is_monotonic(cam.dist, 1.05 * max(r_corner_u, float(r_u.max()))):
        return False
    px = cam.project(xyz)
    m = cfg.marker_margin_px
    return bool(np.all((px[:, 0] >= m) & (px[:, 0] <= w - 1 - m) & (px[:, 1] >= m) & (px[:, 1] <= h - 1 - m)))


def _sample_hand(rng: np.random.Generator, cam: CameraTruth, layout: MarkerLayout, look_at: np.ndarray,
                 cfg: SampleConfig) -> HandSpec | None:
    """A hand reaching in from outside the frame that hides no marker (None if none fits)."""
    marker_polys = []
    for i in layout.centres_mm:
        q = marker_outline_mm(layout, i, cfg.marker_quiet_zone_mm)
        marker_polys.append(Polygon(cam.project(np.column_stack([q, np.zeros(4)]))))
    markers = shapely.union_all(marker_polys).buffer(cfg.hand_clear_px)
    xs = [c[0] for c in layout.centres_mm.values()]
    ys = [c[1] for c in layout.centres_mm.values()]
    for _ in range(60):
        palm = np.array([rng.uniform(min(xs), max(xs)), rng.uniform(min(ys), max(ys))])
        out = palm - look_at
        base_dir = np.degrees(np.arctan2(-out[1], -out[0])) if np.hypot(*out) > 1 else rng.uniform(0, 360)
        spec = HandSpec(
            palm_xy_mm=(float(palm[0]), float(palm[1])),
            direction_deg=float(base_dir + rng.uniform(-35, 35)),
            z_mm=_u(rng, cfg.hand_z_mm),
            skin_rgb=tuple(float(v) for v in np.array([0.80, 0.58, 0.46]) * rng.uniform(0.55, 1.1)
                           + rng.uniform(-0.03, 0.03, 3)),
            scale=_u(rng, (0.85, 1.15)),
            thumb_side=int(rng.choice([-1, 1])),
            spread_deg=_u(rng, (2.0, 9.0)),
        )
        outline = np.asarray(spec.outline_mm().exterior.coords)
        cam_pts = cam.to_camera(np.column_stack([outline, np.full(len(outline), spec.z_mm)]))
        if np.any(cam_pts[:, 2] <= 10.0):
            continue
        uv = cam.project_undistorted(np.column_stack([outline, np.full(len(outline), spec.z_mm)]))
        poly = Polygon(uv).buffer(0)
        frame = Polygon([(0, 0), (cam.image_size[0], 0), cam.image_size, (0, cam.image_size[1])])
        if poly.intersects(markers) or not poly.intersects(frame):
            continue
        # The palm must be in view (a hand reaching in, not a sleeve at the border).
        c = cam.project(np.array([[palm[0], palm[1], spec.z_mm]]))[0]
        if 0 <= c[0] < cam.image_size[0] and 0 <= c[1] < cam.image_size[1]:
            return spec
    return None


def _marker_zone_px(cam: CameraTruth, layout: MarkerLayout, cfg: SampleConfig):
    polys = []
    for i in layout.centres_mm:
        q = marker_outline_mm(layout, i, cfg.marker_quiet_zone_mm)
        polys.append(Polygon(cam.project(np.column_stack([q, np.zeros(4)]))))
    return shapely.union_all(polys).buffer(cfg.hand_clear_px)


def _sample_clutter(rng: np.random.Generator, cam: CameraTruth, layout: MarkerLayout,
                    cfg: SampleConfig) -> tuple[ClutterSpec, ...]:
    """Cups and boxes outside the play area that hide no marker and stand in front of the camera."""
    xs = [c[0] for c in layout.centres_mm.values()]
    ys = [c[1] for c in layout.centres_mm.values()]
    count = int(rng.choice(cfg.clutter_counts))
    items = sample_clutter(rng, (min(xs), min(ys), max(xs), max(ys)), count)
    markers = _marker_zone_px(cam, layout, cfg)
    keep = []
    for it in items:
        ring = np.asarray(it.footprint_mm().exterior.coords)
        top = np.column_stack([ring, np.full(len(ring), it.height_mm)])
        if np.any(cam.to_camera(top)[:, 2] <= 50.0):
            continue
        if it.silhouette_px(cam.project_undistorted).intersects(markers):
            continue
        keep.append(it)
    return tuple(keep)


def sample_conditions(
    rng: np.random.Generator,
    look_at_mm: tuple[float, float] = (280.0, 210.0),
    hard: bool = False,
    image_size: tuple[int, int] = (1280, 960),
    tilt_deg: tuple[float, float] = (0.0, 40.0),
    table: str | None = None,
    marker_layout: MarkerLayout | None = None,
    hard_kinds: tuple[str, ...] | None = None,
    height_mm: tuple[float, float] | None = None,
    hfov_deg: tuple[float, float] | None = None,
    config: SampleConfig = SampleConfig(),
) -> PhotoConditions:
    """Draw the conditions of one photo.

    Parameters
    ----------
    rng : numpy Generator
    look_at_mm : (x, y)
        Where the camera aims (jittered by ``config.look_at_jitter_mm``).
    hard : bool
        Add two or three of ``HARD_KINDS`` (barrel distortion, a hand, a strong colour cast in dim
        noisy light, a near-white table), or exactly ``hard_kinds`` when given.
    image_size : (width, height), px
    tilt_deg : (lo, hi)
        Camera tilt from vertical, degrees.
    table : str, optional
        A kind from ``synth.surfaces.TABLE_KINDS``; random when None.
    marker_layout : MarkerLayout, optional
        The markers that must all be in frame (default: the components' layout).
    hard_kinds : tuple of str, optional
        Force these troubles (implies ``hard``).
    height_mm, hfov_deg : (lo, hi), optional
        Override ``config``'s camera height and field of view ranges.

    Returns
    -------
    PhotoConditions
        Every marker's paper lies inside the frame (margin ``config.marker_margin_px``), the lens
        does not fold over the image, and a hand (if any) hides no marker.

    Raises
    ------
    RuntimeError
        No valid camera after ``config.max_attempts`` draws (impossible ranges).
    """
    layout = marker_layout or MarkerLayout.from_components()
    if hard_kinds is not None:
        unknown = set(hard_kinds) - set(HARD_KINDS)
        if unknown:
            raise ValueError(f"unknown hard kinds {sorted(unknown)}; expected some of {HARD_KINDS}")
        kinds = tuple(hard_kinds)
        hard = hard or bool(kinds)
    elif hard:
        n = int(rng.integers(2, 4))
        kinds = tuple(sorted(rng.choice(HARD_KINDS, size=n, replace=False).tolist()))
    else:
        kinds = ()
    h_rng = height_mm or config.height_mm
    f_rng = hfov_deg or config.hfov_deg
    cam = None
    for _ in range(config.max_attempts):
        jitter = rng.uniform(-1, 1, 2) * config.look_at_jitter_mm
        look = (float(look_at_mm[0] + jitter[0]), float(look_at_mm[1] + jitter[1]))
        cam_kw = dict(
            look_at_mm=look, height_mm=_u(rng, h_rng), tilt_deg=_u(rng, tilt_deg), yaw_deg=_u(rng, (0.0, 360.0)),
            roll_deg=_u(rng, (-config.roll_deg, config.roll_deg)), hfov_deg=_u(rng, f_rng),
        )
        if "distort" in kinds:
            k1, k2 = _u(rng, config.k1_hard), _u(rng, config.k2_hard)
        else:
            k1, k2 = _u(rng, config.k1_normal), 0.0
        R, t = look_at_pose(look, cam_kw["height_mm"], cam_kw["tilt_deg"], cam_kw["yaw_deg"], cam_kw["roll_deg"])
        trial = CameraTruth(K=intrinsics(image_size, cam_kw["hfov_deg"]), dist=np.array([k1, k2, 0, 0, 0.0]),
                            R=R, t=t, image_size=image_size)
        if _markers_visible(trial, layout, config):
            cam = trial
            break
    if cam is None:
        raise RuntimeError(f"no camera with every marker in frame after {config.max_attempts} draws")
    hand = None
    if "hand" in kinds:
        hand = _sample_hand(rng, cam, layout, np.array(look), config)
    clutter = _sample_clutter(rng, cam, layout, config)
    if "white_table" in kinds:
        kind = "white"
    elif table is not None:
        if table not in TABLE_KINDS:
            raise ValueError(f"unknown table kind {table!r}; expected one of {TABLE_KINDS}")
        kind = table
    else:
        w = np.asarray(config.table_kind_weights, dtype=np.float64)
        kind = str(rng.choice(TABLE_KINDS, p=w / w.sum()))
    xs = [c[0] for c in layout.centres_mm.values()]
    ys = [c[1] for c in layout.centres_mm.values()]
    m = rng.uniform(*config.table_margin_mm, size=4)
    extent = (min(xs) - m[0], min(ys) - m[1], max(xs) + m[2], max(ys) + m[3])
    light_temp = _u(rng, config.light_temp_k)
    if "cast" in kinds:
        sign = -1.0 if light_temp > 4700 else 1.0  # a warm lamp under cool white balance, or the reverse
        wb = light_temp + sign * _u(rng, config.cast_wb_offset_k)
        exposure = _u(rng, config.exposure_dim)
        read_noise = _u(rng, config.read_noise_dim)
    else:
        wb = light_temp + float(rng.normal(0.0, config.wb_error_k))
        exposure = _u(rng, config.exposure)
        read_noise = _u(rng, config.read_noise)
    n_markers = len(layout.centres_mm)
    return PhotoConditions(
        image_size=(int(image_size[0]), int(image_size[1])),
        hard=bool(hard),
        hard_kinds=kinds if hand is not None or "hand" not in kinds else tuple(k for k in kinds if k != "hand"),
        k1=float(cam.dist[0]),
        k2=float(cam.dist[1]),
        **cam_kw,
        table_kind=kind,
        table_seed=int(rng.integers(2**31)),
        table_extent_mm=tuple(float(v) for v in extent),
        background_seed=int(rng.integers(2**31)),
        light_azimuth_deg=_u(rng, (0.0, 360.0)),
        light_elevation_deg=_u(rng, config.light_elevation_deg),
        light_distance_mm=_u(rng, config.light_distance_mm),
        light_size_mm=_u(rng, config.light_size_mm),
        light_temp_k=light_temp,
        white_balance_k=float(np.clip(wb, 2500.0, 9500.0)),
        exposure=exposure,
        ambient=_u(rng, config.ambient),
        uneven_amplitude=_u(rng, config.uneven_amplitude),
        uneven_seed=int(rng.integers(2**31)),
        vignette=_u(rng, config.vignette),
        shadow_strength=_u(rng, config.shadow_strength),
        specular_strength=_u(rng, config.specular_strength),
        specular_width_deg=_u(rng, config.specular_width_deg),
        acrylic_dim=_u(rng, config.acrylic_dim),
        acrylic_edge_gain=_u(rng, config.acrylic_edge_gain),
        read_noise=read_noise,
        shot_noise=_u(rng, config.shot_noise),
        defocus_sigma_px=_u(rng, config.defocus_sigma_px),
        motion_px=_u(rng, config.motion_px),
        motion_angle_deg=_u(rng, (0.0, 180.0)),
        jpeg_quality=int(rng.integers(config.jpeg_quality[0], config.jpeg_quality[1] + 1)),
        marker_rot_deg=tuple(float(v) for v in rng.uniform(-1, 1, n_markers) * config.marker_rot_max_deg),
        paper_rgb=tuple(float(v) for v in np.clip(rng.uniform(0.88, 0.97) + rng.uniform(-0.015, 0.015, 3), 0, 1)),
        ink_rgb=tuple(float(v) for v in np.full(3, rng.uniform(0.03, 0.1)) + rng.uniform(0, 0.015, 3)),
        hand=hand,
        ae_target=_u(rng, config.ae_target),
        clutter=clutter,
        acrylic_haze=_u(rng, config.acrylic_haze),
    )
