"""Render scene layers as a photo: perspective camera, table, markers, light, shadows, lens, sensor.

Usage::

    from synth.photo import PhotoConditions, SynthPhoto, sample_conditions, render_photo
    cond = sample_conditions(rng, look_at_mm=(280, 210), hard=False)
    photo = render_photo(layers, cond, rng)
    photo.image_rgb            # (H, W, 3) uint8
    photo.project(xyz_mm)      # (N, 3) table mm, z up -> (N, 2) distorted image px (exact truth)

Each layer (a plane z = z_mm) is warped into an undistorted pinhole canvas by its plane
homography, composited bottom to top with premultiplied alpha, lit in linear light (lamp fall-off,
smooth blotches, soft shadows of raised layers, specular glints on glossy and acrylic layers,
acrylic dimming, refraction shift and edge highlights), then resampled through the lens model
(``cv2.remap``), blurred, vignetted, white-balanced, gamma-encoded, given sensor noise and
JPEG-compressed.

Materials: ``matte`` and ``gloss`` layers are composited with their alpha (``gloss`` also
catches the lamp's highlight). An ``acrylic`` layer is a clear sheet wherever its alpha is above
zero; alpha up to the sheet's typical (median) alpha is its coverage, alpha above it is opaque
print (alpha 1: paint on the acrylic). Under the sheet, what lies below is shifted (refraction)
and dimmed, the sheet adds a faint reflection haze of its colour (``acrylic_haze``), its outline
gets a bright edge and it catches glints; print covers like paint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from calibration.markers import MarkerLayout
from synth.camera import CameraTruth, DistortionMaps, distortion_maps
from synth.conditions import HARD_KINDS, PhotoConditions, SampleConfig, sample_conditions
from synth.layers import Layer
from synth.lighting import LightConfig, light_fields, motion_kernel, white_balance_gains
from synth.markers import marker_corners_mm, marker_layer
from synth.surfaces import background_texture, table_texture

__all__ = [
    "CameraTruth",
    "HARD_KINDS",
    "PhotoConditions",
    "RenderConfig",
    "SampleConfig",
    "SynthPhoto",
    "render_photo",
    "sample_conditions",
]

MATERIALS = ("matte", "acrylic", "gloss")


@dataclass(frozen=True)
class RenderConfig:
    """Tunables of the renderer.

    Attributes
    ----------
    texels_per_px : float
        Layer textures finer than this many texels per image pixel (at the layer's nearest
        point) are first shrunk with area averaging (anti-aliasing and speed).
    table_mm_per_px : (lo, hi)
        Bounds on the generated table texture's resolution.
    table_max_texels : float
        The table texture is made coarser when the visible table would need more texels.
    marker_quiet_zone_mm, marker_z_mm, marker_texture_mm_per_px : float
        The printed markers (paper thickness ``marker_z_mm``).
    marker_rest_max_z_mm : float
        A marker lies on top of any flat sheet up to this high that reaches under it (a mat),
        instead of being hidden by it.
    acrylic_thickness_mm, acrylic_index : float
        Refraction shift of what lies under acrylic: ``thickness * (1 - 1/index)`` apparent rise.
    acrylic_shadow : float
        Shadow opacity of clear acrylic relative to an opaque layer.
    acrylic_min_alpha : float
        Acrylic texels above this alpha belong to the sheet.
    gloss_table : dict kind -> float
        Specular weight of each table kind.
    gloss_material : dict material -> float
    edge_width_px : int
        Width of acrylic edge highlights.
    shadow_min_sigma_px : float
        Blur of the sharpest shadow.
    z_eps_mm : float
        A shadow falls only on surfaces at least this much lower than its caster.
    ae_range, ae_highlight_quantile, ae_highlight_max, ae_stride
        Automatic exposure (see ``_auto_exposure``).
    """

    texels_per_px: float = 1.5
    table_mm_per_px: tuple[float, float] = (0.6, 1.6)
    table_max_texels: float = 1.5e6
    marker_quiet_zone_mm: float = 8.0
    marker_z_mm: float = 0.1
    marker_rest_max_z_mm: float = 1.5
    marker_texture_mm_per_px: float = 0.25
    acrylic_thickness_mm: float = 3.0
    acrylic_index: float = 1.49
    acrylic_shadow: float = 0.25
    acrylic_min_alpha: float = 0.01
    gloss_table: tuple[tuple[str, float], ...] = (
        ("wood", 0.15), ("laminate", 0.35), ("cloth", 0.0), ("white", 0.2), ("dark", 0.3), ("patterned", 0.05))
    gloss_material: tuple[tuple[str, float], ...] = (("matte", 0.0), ("acrylic", 1.0), ("gloss", 0.6))
    edge_width_px: int = 2
    shadow_min_sigma_px: float = 0.8
    z_eps_mm: float = 0.3
    ae_range: float = 2.5
    ae_highlight_quantile: float = 0.995
    ae_highlight_max: float = 0.9
    ae_stride: int = 8
    light: LightConfig = LightConfig()


@dataclass(frozen=True)
class SynthPhoto:
    """A rendered photo and its exact ground truth.

    Attributes
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    camera : CameraTruth
    conditions : PhotoConditions
    marker_layout : MarkerLayout
    marker_corners_mm : dict[int, ndarray (4, 2)]
        Each printed black square's true corners (its small rotation included), ArUco order, mm.
    marker_corners_px : dict[int, ndarray (4, 2)]
        The same corners in the image, px.
    jpeg_bytes : bytes
        The JPEG file ``image_rgb`` was decoded from (``synth.truthio.write_photo`` saves it as is).
    marker_z_mm : dict[int, float]
        Height of each marker's paper (on the table: 0.1; on a mat: the mat's height + 0.1).
    occluded_px : ndarray, shape (H, W), float32, or None
        Coverage of each photo pixel by the hand and clutter, [0, 1] (see ``occluded``).
    """

    image_rgb: np.ndarray
    camera: CameraTruth
    conditions: PhotoConditions
    marker_layout: MarkerLayout
    marker_corners_mm: dict
    marker_corners_px: dict
    jpeg_bytes: bytes = b""
    marker_z_mm: dict = field(default_factory=dict)
    occluded_px: np.ndarray | None = None

    def occluded(self, xyz_mm: np.ndarray, threshold: float = 0.5) -> np.ndarray:
        """Whether table points are hidden in the photo by the hand or clutter (not by game pieces).

        Parameters
        ----------
        xyz_mm : array_like, shape (N, 3)
        threshold : float
            Coverage above which a point counts as hidden.

        Returns
        -------
        ndarray, shape (N,), bool
            Points outside the photo count as hidden.
        """
        uv = np.round(self.project(xyz_mm)).astype(int)
        h, w = self.image_rgb.shape[:2]
        inside = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
        out = ~inside
        if self.occluded_px is not None:
            out[inside] = self.occluded_px[uv[inside, 1], uv[inside, 0]] > threshold
        return out

    def project(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Table points (x right, y down, z up, mm) to image pixels, lens distortion included.

        Parameters
        ----------
        xyz_mm : array_like, shape (N, 3)

        Returns
        -------
        ndarray, shape (N, 2), float64, px
        """
        return self.camera.project(xyz_mm)

    def truth_json(self) -> dict:
        """Conditions, camera and marker corners, JSON-able."""
        return {
            "conditions": self.conditions.to_json(),
            "camera": self.camera.to_json(),
            "marker_layout": self.marker_layout.to_json(),
            "marker_corners_mm": {str(k): v.tolist() for k, v in self.marker_corners_mm.items()},
            "marker_corners_px": {str(k): v.tolist() for k, v in self.marker_corners_px.items()},
            "marker_z_mm": {str(k): float(v) for k, v in self.marker_z_mm.items()},
        }


def _layer_roi(H: np.ndarray, tex_shape: tuple[int, int], canvas_size: tuple[int, int]):
    """Canvas bounding box (x0, y0, x1, y1) of a warped texture, or None if off canvas."""
    h, w = tex_shape
    corners = np.array([[-0.5, -0.5, 1], [w - 0.5, -0.5, 1], [w - 0.5, h - 0.5, 1], [-0.5, h - 0.5, 1]]).T
    p = H @ corners
    if np.any(p[2] <= 0):
        return 0, 0, canvas_size[0], canvas_size[1]
    xy = p[:2] / p[2]
    x0 = max(0, int(np.floor(xy[0].min())) - 1)
    y0 = max(0, int(np.floor(xy[1].min())) - 1)
    x1 = min(canvas_size[0], int(np.ceil(xy[0].max())) + 2)
    y1 = min(canvas_size[1], int(np.ceil(xy[1].max())) + 2)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _texture_for(layer: Layer, cam: CameraTruth, K_c: np.ndarray, cfg: RenderConfig):
    """The layer's premultiplied texture, shrunk when much finer than the image.

    Returns
    -------
    texture : ndarray, shape (h, w, 4), float32, premultiplied alpha
    mm_per_px : (along x, along y)
    """
    x0, y0, x1, y1 = layer.extent_mm
    pts = np.array([[x0, y0, layer.z_mm], [x1, y0, layer.z_mm], [x1, y1, layer.z_mm], [x0, y1, layer.z_mm],
                    [(x0 + x1) / 2, (y0 + y1) / 2, layer.z_mm]])
    depth = max(float(cam.to_camera(pts)[:, 2].min()), 1.0)
    finest_mm_per_px = depth / K_c[0, 0]
    target = finest_mm_per_px / cfg.texels_per_px
    rgba = np.asarray(layer.rgba, dtype=np.float32)
    if layer.material == "table":  # opaque: already premultiplied
        pm = rgba
    else:
        pm = np.empty_like(rgba)
        np.multiply(rgba[..., :3], rgba[..., 3:4], out=pm[..., :3])
        pm[..., 3] = rgba[..., 3]
    mpp = float(layer.mm_per_px)
    if mpp < 0.8 * target:
        h, w = rgba.shape[:2]
        nw = max(2, int(round(w * mpp / target)))
        nh = max(2, int(round(h * mpp / target)))
        pm = cv2.resize(pm, (nw, nh), interpolation=cv2.INTER_AREA)
        return pm, (w * mpp / nw, h * mpp / nh)  # the extent stays exact on both axes
    return pm, (mpp, mpp)


def _plane_h(cam: CameraTruth, K_c: np.ndarray, origin_mm, mpp: tuple[float, float], z_mm: float) -> np.ndarray:
    """Homography from texture pixel (col, row) to canvas px for a texture on the plane z.

    ``mpp`` is the texel size (along x, along y) in mm; texel (c, r) is centred at
    ``origin + ((c + 0.5) * mpp_x, (r + 0.5) * mpp_y)``.
    """
    mx, my = mpp
    A = np.array([[mx, 0.0, origin_mm[0] + 0.5 * mx], [0.0, my, origin_mm[1] + 0.5 * my], [0.0, 0.0, 1.0]])
    return cam.homography_px_from_mm(z_mm, K_c) @ A


def _warp_into(tex: np.ndarray, H: np.ndarray, roi) -> np.ndarray:
    x0, y0, x1, y1 = roi
    T = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
    return cv2.warpPerspective(tex, T @ H, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def marker_heights(layers, layout: MarkerLayout, cfg: RenderConfig) -> dict[int, float]:
    """Height of each printed marker: on the table, or on top of a flat sheet (a mat, a printed
    board under ``cfg.marker_rest_max_z_mm``) that reaches under it.

    Returns
    -------
    dict[int, float]
        Marker id -> z of the marker paper, mm.
    """
    out = {}
    for i in layout.centres_mm:
        cx, cy = layout.centres_mm[i]
        h = layout.side_mm / 2 + cfg.marker_quiet_zone_mm
        probe = np.array([[cx, cy], [cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]])
        z = 0.0
        for lay in layers:
            if lay.z_mm > cfg.marker_rest_max_z_mm or lay.z_mm <= z or lay.material == "acrylic":
                continue
            rc = np.floor((probe - np.asarray(lay.origin_mm)) / lay.mm_per_px).astype(int)
            hh, ww = lay.rgba.shape[:2]
            ok = (rc[:, 0] >= 0) & (rc[:, 0] < ww) & (rc[:, 1] >= 0) & (rc[:, 1] < hh)
            if np.any(lay.rgba[rc[ok, 1], rc[ok, 0], 3] > 0.5):
                z = float(lay.z_mm)
        out[i] = z + cfg.marker_z_mm
    return out


def _scene_layers(layers, cond: PhotoConditions, layout: MarkerLayout, cam: CameraTruth, K_c, canvas_size,
                  rng: np.random.Generator, cfg: RenderConfig) -> list[Layer]:
    """Table, markers, the game's layers (stable by height) and the hand, bottom to top."""
    # Table texture over the part of the table the camera can see.
    w, h = canvas_size
    border = np.array([[u, v] for u in np.linspace(0, w - 1, 9) for v in (0, h - 1)]
                      + [[u, v] for u in (0, w - 1) for v in np.linspace(0, h - 1, 9)])
    Hinv = np.linalg.inv(cam.homography_px_from_mm(0.0, K_c))
    p = np.column_stack([border, np.ones(len(border))]) @ Hinv.T
    x0, y0, x1, y1 = cond.table_extent_mm
    if np.all(p[:, 2] > 0):
        xy = p[:, :2] / p[:, 2:3]
        x0, y0 = max(x0, xy[:, 0].min() - 10), max(y0, xy[:, 1].min() - 10)
        x1, y1 = min(x1, xy[:, 0].max() + 10), min(y1, xy[:, 1].max() + 10)
    centre = cam.to_camera(np.array([[cond.look_at_mm[0], cond.look_at_mm[1], 0.0]]))[0, 2]
    mpp = float(np.clip(centre / K_c[0, 0], *cfg.table_mm_per_px))
    mpp = max(mpp, float(np.sqrt((x1 - x0) * (y1 - y0) / cfg.table_max_texels)))  # far views: coarser
    # Snap to a grid anchored at the full extent so the texture does not slide with the view.
    ex0, ey0 = cond.table_extent_mm[:2]
    x0 = ex0 + np.floor((x0 - ex0) / mpp) * mpp
    y0 = ey0 + np.floor((y0 - ey0) / mpp) * mpp
    out = []
    if x1 > x0 and y1 > y0:
        tex = table_texture(cond.table_kind, (x0, y0, x1, y1), mpp, cond.table_seed)
        rgba = cv2.merge([tex[..., 0], tex[..., 1], tex[..., 2], np.ones(tex.shape[:2], np.float32)])
        out.append(Layer(rgba=rgba, origin_mm=(float(x0), float(y0)), mm_per_px=mpp, z_mm=0.0,
                         material="table", casts_shadow=False, name="table"))
    for lay in layers:
        if lay.material not in MATERIALS:
            raise ValueError(f"layer {lay.name!r}: unknown material {lay.material!r}; expected one of {MATERIALS}")
    marker_z = marker_heights(layers, layout, cfg)
    markers = []
    for k, i in enumerate(sorted(layout.centres_mm)):
        rot = cond.marker_rot_deg[k % len(cond.marker_rot_deg)] if cond.marker_rot_deg else 0.0
        # Texture about as fine as the photo there (supersampled inside marker_layer).
        depth = cam.to_camera(np.column_stack([layout.corners_mm(i), np.zeros(4)]))[:, 2].min()
        mpp_m = max(cfg.marker_texture_mm_per_px, depth / K_c[0, 0] / cfg.texels_per_px)
        markers.append(marker_layer(layout, i, rot, cond.paper_rgb, cond.ink_rgb, cfg.marker_quiet_zone_mm,
                                    float(mpp_m), marker_z[i]))
    # Stable: markers before game layers of the same height.
    clutter = [lay for item in cond.clutter for lay in item.layers(cond.light_azimuth_deg)]
    out.extend(sorted(markers + list(layers) + clutter, key=lambda lay: lay.z_mm))
    if cond.hand is not None:
        out.append(cond.hand.layer(rng))
    return out


def render_photo(
    layers: list[Layer],
    cond: PhotoConditions,
    rng: np.random.Generator,
    marker_layout: MarkerLayout | None = None,
    config: RenderConfig = RenderConfig(),
) -> SynthPhoto:
    """Render the game's layers on a table with the calibration markers, as a camera would.

    Parameters
    ----------
    layers : list of Layer
        The scene (any order: drawn by increasing ``z_mm``, stable for equal heights).
    cond : PhotoConditions
        From ``sample_conditions``.
    rng : numpy Generator
        Sensor noise and small texture details; the same conditions and seed give the same bytes.
    marker_layout : MarkerLayout, optional
        Default: the components' layout.
    config : RenderConfig

    Returns
    -------
    SynthPhoto
    """
    layout = marker_layout or MarkerLayout.from_components()
    cam = cond.camera()
    maps: DistortionMaps = distortion_maps(cam.K, cam.dist, cond.image_size)
    K_c, canvas_size = maps.K_canvas, maps.canvas_size
    scene = _scene_layers(layers, cond, layout, cam, K_c, canvas_size, rng, config)
    canvas = _composite(scene, cond, cam, K_c, canvas_size, config)
    lin = _lit_linear(canvas, cond, cam, maps, config)
    occ, lin = _through_lens(canvas.occluded, lin, cond, maps)
    image, jpeg = _sensor_and_jpeg(lin, cond, rng)
    marker_z = marker_heights(layers, layout, config)
    corners_mm, corners_px = _marker_corners(layout, cond, cam, marker_z)
    return SynthPhoto(image_rgb=image, camera=cam, conditions=cond, marker_layout=layout,
                      marker_corners_mm=corners_mm, marker_corners_px=corners_px, jpeg_bytes=jpeg,
                      occluded_px=occ, marker_z_mm=marker_z)


@dataclass
class _Canvas:
    """The undistorted pinhole canvas while layers are composited onto it (mutable working buffers).

    Attributes
    ----------
    colour : (H, W, 3) float32
        sRGB reflectance, 0-1.
    zbuf : (H, W) float32
        Height of the topmost opaque layer, mm (-1000 where only the background lies).
    gloss, edges, occluded : (H, W) float32
        Specular weight, acrylic edge highlight, coverage by the hand and clutter (not part of the game).
    casters : dict
        Shadow casters by height (mm, rounded to 0.5): lists of (texture, mm per texel, layer, strength).
    """

    colour: np.ndarray
    zbuf: np.ndarray
    gloss: np.ndarray
    edges: np.ndarray
    occluded: np.ndarray
    casters: dict[float, list] = field(default_factory=dict)


def _composite(scene, cond: PhotoConditions, cam: CameraTruth, K_c: np.ndarray, canvas_size: tuple[int, int],
               config: RenderConfig) -> _Canvas:
    """Warp every layer onto the canvas by its plane homography and composite them bottom to top."""
    cw, ch = canvas_size
    canvas = _Canvas(colour=background_texture((ch, cw), cond.background_seed),
                     zbuf=np.full((ch, cw), -1000.0, np.float32), gloss=np.zeros((ch, cw), np.float32),
                     edges=np.zeros((ch, cw), np.float32), occluded=np.zeros((ch, cw), np.float32))
    prepared: dict[int, tuple] = {}  # layers sharing one texture (a solid's slices) prepare it once
    for lay in scene:
        key = id(lay.rgba)
        if key not in prepared:
            prepared[key] = _texture_for(lay, cam, K_c, config)
        tex, mpp = prepared[key]
        H = _plane_h(cam, K_c, lay.origin_mm, mpp, lay.z_mm)
        roi = _layer_roi(H, tex.shape[:2], (cw, ch))
        if roi is None:
            continue
        warped = _warp_into(tex, H, roi)
        if lay.material == "acrylic":
            _lay_acrylic(canvas, lay, tex, warped, roi, cond, cam, K_c, config)
        else:
            _lay_opaque(canvas, lay, warped, roi, cond, config)
        _add_caster(canvas, lay, tex, mpp, config)
    return canvas


def _lay_acrylic(canvas: _Canvas, lay: Layer, tex: np.ndarray, warped: np.ndarray, roi, cond: PhotoConditions,
                 cam: CameraTruth, K_c: np.ndarray, config: RenderConfig) -> None:
    """A clear sheet wherever alpha > 0: coverage m (alpha up to the sheet's typical alpha), opaque print p
    above it. What lies below appears raised by the refraction rise (shifted) and dimmed; the sheet adds a
    faint reflection haze of its tint; print covers like paint."""
    x0, y0, x1, y1 = roi
    sl = (slice(y0, y1), slice(x0, x1))
    a = warped[..., 3]
    body = _body_alpha(tex[..., 3], config)
    m = np.clip(a / body, 0.0, 1.0)
    p = np.clip((a - body) / (1.0 - body), 0.0, 1.0)[..., None] if body < 0.999 else np.zeros_like(a)[..., None]
    rgb = warped[..., :3] / np.maximum(a, 1e-4)[..., None]
    rise = config.acrylic_thickness_mm * (1.0 - 1.0 / config.acrylic_index)
    c_mm = np.array([(lay.extent_mm[0] + lay.extent_mm[2]) / 2, (lay.extent_mm[1] + lay.extent_mm[3]) / 2])
    p0 = cam.homography_px_from_mm(0.0, K_c) @ np.array([c_mm[0], c_mm[1], 1.0])
    p1 = cam.homography_px_from_mm(rise, K_c) @ np.array([c_mm[0], c_mm[1], 1.0])
    shift = p1[:2] / p1[2] - p0[:2] / p0[2]
    below = canvas.colour[sl]
    M = np.array([[1.0, 0.0, shift[0]], [0.0, 1.0, shift[1]]])
    shifted = cv2.warpAffine(below, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)
    mm = m[..., None]
    seen = below * (1 - mm) + shifted * (cond.acrylic_dim * mm) + rgb * (cond.acrylic_haze * mm)
    canvas.colour[sl] = seen * (1 - p) + rgb * p
    k = 2 * config.edge_width_px + 1
    edge = m - cv2.erode(m, np.ones((k, k), np.uint8))
    canvas.edges[sl] = np.maximum(canvas.edges[sl], edge)
    canvas.gloss[sl] = np.maximum(canvas.gloss[sl], m * dict(config.gloss_material)["acrylic"])


def _lay_opaque(canvas: _Canvas, lay: Layer, warped: np.ndarray, roi, cond: PhotoConditions,
                config: RenderConfig) -> None:
    """A matte or glossy layer covers what lies below by its alpha; the hand and clutter are recorded as
    occluders; a layer above hides the acrylic edges below it."""
    x0, y0, x1, y1 = roi
    sl = (slice(y0, y1), slice(x0, x1))
    a = warped[..., 3]
    canvas.colour[sl] = warped[..., :3] + canvas.colour[sl] * (1 - a[..., None])
    canvas.zbuf[sl] = np.where(a > 0.5, lay.z_mm, canvas.zbuf[sl])
    occluder = 1.0 if lay.name == "hand" or lay.name.startswith("clutter_") else 0.0
    canvas.occluded[sl] = canvas.occluded[sl] * (1 - a) + occluder * a
    if lay.material == "table":
        g = dict(config.gloss_table).get(cond.table_kind, 0.0)
    else:
        g = dict(config.gloss_material)[lay.material]
    canvas.gloss[sl] = canvas.gloss[sl] * (1 - a) + g * a
    canvas.edges[sl] *= 1 - a


def _add_caster(canvas: _Canvas, lay: Layer, tex: np.ndarray, mpp, config: RenderConfig) -> None:
    """A raised layer casts a shadow; an acrylic sheet casts a faint one over its whole body, not only its
    tint."""
    if not (lay.casts_shadow and lay.z_mm > config.z_eps_mm):
        return
    strength = 1.0
    if lay.material == "acrylic":
        strength = config.acrylic_shadow
        tex = tex.copy()
        tex[..., 3] = np.clip(tex[..., 3] / _body_alpha(tex[..., 3], config), 0.0, 1.0)
    canvas.casters.setdefault(round(lay.z_mm * 2) / 2, []).append((tex, mpp, lay, strength))


def _lit_linear(canvas: _Canvas, cond: PhotoConditions, cam: CameraTruth, maps: DistortionMaps,
                config: RenderConfig) -> np.ndarray:
    """Light the canvas in linear light: ambient + lamp with shadows, glints and acrylic edges, vignette,
    the light's colour and the camera's white balance and exposure. Returns (H, W, 3) float32, linear."""
    K_c, canvas_size = maps.K_canvas, maps.canvas_size
    shadow = _shadows(canvas.casters, canvas.zbuf, cond, cam, K_c, canvas_size, config)
    direct, spec, light_rgb = light_fields(cond, cam, K_c, canvas_size, config.light)
    # Smooth fields are folded together before the lens: the vignette is computed on the canvas
    # (radius from the principal point, the photo's half-diagonal = 1), near enough for a fall-off.
    vig = 1.0 - cond.vignette * _radius2(canvas_size, (float(K_c[0, 2]), float(K_c[1, 2])), cond.image_size)
    illum = (cond.ambient + (1.0 - cond.ambient) * direct * (1.0 - cond.shadow_strength * shadow)) * vig
    add = (cond.specular_strength * canvas.gloss * spec + cond.acrylic_edge_gain * canvas.edges * (0.3 + direct)) * vig
    gain = light_rgb * white_balance_gains(cond.light_temp_k, cond.white_balance_k)
    gain = gain * cond.exposure * _auto_exposure(canvas.colour, illum, add, gain, cond.ae_target, config)
    chans = []
    for c, col in enumerate(cv2.split(canvas.colour)):
        lin_c = cv2.multiply(cv2.multiply(col, col), illum, scale=float(gain[c]))  # sRGB -> linear: gamma 2
        chans.append(cv2.scaleAdd(add, float(gain[c]), lin_c))
    return cv2.merge(chans)


def _through_lens(occ: np.ndarray, lin: np.ndarray, cond: PhotoConditions,
                  maps: DistortionMaps) -> tuple[np.ndarray, np.ndarray]:
    """Resample the canvas through the lens model, then defocus and motion blur. Returns the occluder
    coverage (H, W) and the linear image (H, W, 3) in photo pixels."""
    if maps.map_x is not None:
        occ = cv2.remap(occ, maps.map_x, maps.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        lin = cv2.remap(lin, maps.map_x, maps.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if cond.defocus_sigma_px > 0.05:
        lin = cv2.GaussianBlur(lin, (0, 0), cond.defocus_sigma_px)
    if cond.motion_px > 0.3:
        lin = cv2.filter2D(lin, -1, motion_kernel(cond.motion_px, cond.motion_angle_deg))
    return occ, lin


def _sensor_and_jpeg(lin: np.ndarray, cond: PhotoConditions, rng: np.random.Generator) -> tuple[np.ndarray, bytes]:
    """Gamma-encode, add shot and read noise, JPEG-compress; returns the decoded (H, W, 3) uint8 RGB photo
    and the JPEG bytes."""
    dn = cv2.sqrt(np.clip(lin, 0.0, 1.0, out=lin)) * np.float32(255.0)
    sigma = cv2.sqrt(dn * np.float32(cond.shot_noise) + np.float32(cond.read_noise**2))
    noise = np.empty_like(dn)
    cv2.setRNGSeed(int(rng.integers(2**31)))  # OpenCV's generator, seeded from ours: fast and reproducible
    cv2.randn(noise, 0.0, 1.0)
    dn += sigma * noise
    img8 = cv2.convertScaleAbs(np.maximum(dn, 0.0, out=dn))  # rounds, saturates at 255
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img8, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY,
                                                                          int(cond.jpeg_quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB), buf.tobytes()


def _marker_corners(layout: MarkerLayout, cond: PhotoConditions, cam: CameraTruth,
                    marker_z: dict[int, float]) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Every marker's true corners: (4, 2) table mm (turned as laid) and (4, 2) photo px at its height."""
    corners_mm, corners_px = {}, {}
    for k, i in enumerate(sorted(layout.centres_mm)):
        rot = cond.marker_rot_deg[k % len(cond.marker_rot_deg)] if cond.marker_rot_deg else 0.0
        c = marker_corners_mm(layout, i, rot)
        corners_mm[i] = c
        corners_px[i] = cam.project(np.column_stack([c, np.full(4, marker_z[i])]))
    return corners_mm, corners_px


def _body_alpha(alpha: np.ndarray, cfg: RenderConfig) -> float:
    """Typical alpha of an acrylic layer's clear body (its median over covered texels): alpha at or
    above it counts as full sheet coverage."""
    covered = alpha[alpha > cfg.acrylic_min_alpha]
    return float(np.median(covered)) if covered.size else 1.0


def _auto_exposure(colour: np.ndarray, illum: np.ndarray, add: np.ndarray, gain: np.ndarray, target: float,
                   cfg: RenderConfig) -> float:
    """The camera's automatic exposure: a gain bringing the mean gamma-encoded luminance to
    ``target`` (limited to ``cfg.ae_range`` either way), but never pushing the brightest
    ``cfg.ae_highlight_quantile`` of the scene past ``cfg.ae_highlight_max`` (paper stays unclipped).
    Measured on every ``cfg.ae_stride``-th canvas pixel."""
    st = cfg.ae_stride
    col = colour[::st, ::st]
    lum_w = np.array([0.2126, 0.7152, 0.0722]) * gain
    lum = (col * col) @ lum_w.astype(np.float32) * illum[::st, ::st] + add[::st, ::st] * float(lum_w.sum())
    lum = np.maximum(lum, 0.0)
    mean_enc = max(float(np.mean(np.sqrt(lum))), 1e-4)
    k = float(np.clip((target / mean_enc) ** 2, 1.0 / cfg.ae_range, cfg.ae_range))
    hi = float(np.quantile(lum, cfg.ae_highlight_quantile))
    if hi > 0:
        k = min(k, cfg.ae_highlight_max / hi)
    return k


@lru_cache(maxsize=8)
def _radius2(size: tuple[int, int], centre: tuple[float, float], photo_size: tuple[int, int]) -> np.ndarray:
    """Squared distance of each pixel from ``centre`` over the photo's squared half-diagonal, (H, W) float32."""
    w, h = size
    x = (np.arange(w, dtype=np.float32) - centre[0]) ** 2
    y = (np.arange(h, dtype=np.float32) - centre[1]) ** 2
    r2 = (y[:, None] + x[None, :]) / np.float32((photo_size[0] / 2) ** 2 + (photo_size[1] / 2) ** 2)
    r2.setflags(write=False)
    return r2


def _shadows(casters: dict, zbuf: np.ndarray, cond: PhotoConditions, cam: CameraTruth, K_c: np.ndarray,
             canvas_size: tuple[int, int], cfg: RenderConfig) -> np.ndarray:
    """Shadow opacity in [0, 1] on the canvas, shape (H, W), float32.

    Each height group's alpha is projected from the lamp onto the table plane (offset by
    height over the lamp's elevation), blurred by the lamp's penumbra, and darkens only surfaces
    lower than its casters.
    """
    cw, ch = canvas_size
    out = np.zeros((ch, cw), np.float32)
    if not casters:
        return out
    lamp = cond.light_position_mm()
    look = np.array([cond.look_at_mm[0], cond.look_at_mm[1], 0.0])
    d = lamp - look
    centre_depth = cam.to_camera(look[None])[0, 2]
    px_per_mm = K_c[0, 0] / centre_depth
    for z, items in sorted(casters.items()):
        acc = np.zeros((ch, cw), np.float32)
        off = -z * d[:2] / d[2]  # where the lamp projects a point at height z onto the table
        for tex, mpp, lay, strength in items:
            origin = (lay.origin_mm[0] + off[0], lay.origin_mm[1] + off[1])
            H = _plane_h(cam, K_c, origin, mpp, 0.0)
            roi = _layer_roi(H, tex.shape[:2], (cw, ch))
            if roi is None:
                continue
            x0, y0, x1, y1 = roi
            a = _warp_into(np.ascontiguousarray(tex[..., 3]), H, roi)
            acc[y0:y1, x0:x1] = np.maximum(acc[y0:y1, x0:x1], a * strength)
        penumbra_mm = z * cond.light_size_mm / cond.light_distance_mm
        sigma = max(cfg.shadow_min_sigma_px, 0.5 * penumbra_mm * px_per_mm)
        if sigma > 4:
            f = int(min(8, sigma // 2))
            small = cv2.resize(acc, (max(1, cw // f), max(1, ch // f)), interpolation=cv2.INTER_AREA)
            small = cv2.GaussianBlur(small, (0, 0), sigma / f)
            acc = cv2.resize(small, (cw, ch), interpolation=cv2.INTER_LINEAR)
        else:
            acc = cv2.GaussianBlur(acc, (0, 0), sigma)
        out = np.maximum(out, np.where(zbuf < z - cfg.z_eps_mm, acc, 0.0))
    return out
