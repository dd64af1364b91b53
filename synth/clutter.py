"""Everyday objects around the play area (cups, boxes), built as stacks of thin slices.

A solid standing on the table is drawn as its cross-section repeated every few millimetres from
the table to its top; seen in perspective the stack shows the object's side and top, and a few of
the slices cast its shadow.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from shapely.geometry import MultiPoint, Point, Polygon
from shapely.geometry import box as shapely_box

from synth.layers import Layer

CLUTTER_KINDS = ("cup", "box")


@dataclass(frozen=True)
class ClutterConfig:
    """How clutter is built.

    Attributes
    ----------
    slice_step_mm : float
        Height between slices (a finer step shows a smoother side).
    max_slices : int
    shadow_slices : int
        Slices (evenly spread, the top included) that cast the object's shadow.
    texture_mm_per_px : float
    side_shade : (lo, hi)
        Side brightness facing away from / towards the lamp.
    rim_mm : float
        Cup wall thickness seen on the top slice.
    """

    slice_step_mm: float = 2.0
    max_slices: int = 50
    shadow_slices: int = 4
    texture_mm_per_px: float = 1.0
    side_shade: tuple[float, float] = (0.45, 1.0)
    rim_mm: float = 4.0


@dataclass(frozen=True)
class ClutterSpec:
    """One object standing on the table.

    Attributes
    ----------
    kind : str
        ``"cup"`` (cylinder, radius ``size_mm[0]``) or ``"box"`` (``size_mm`` = width, depth).
    xy_mm : (x, y)
        Centre of its footprint, table frame.
    size_mm : (float, float)
    height_mm : float
    angle_deg : float
        Box rotation.
    rgb : (r, g, b)
        sRGB in [0, 1].
    """

    kind: str
    xy_mm: tuple[float, float]
    size_mm: tuple[float, float]
    height_mm: float
    angle_deg: float
    rgb: tuple[float, float, float]

    def footprint_mm(self) -> Polygon:
        """The object's outline on the table, (x, y) mm."""
        if self.kind == "cup":
            return Point(self.xy_mm).buffer(self.size_mm[0], 48)
        w, d = self.size_mm
        poly = shapely_box(-w / 2, -d / 2, w / 2, d / 2)
        a = np.radians(self.angle_deg)
        pts = np.asarray(poly.exterior.coords) @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
        return Polygon(pts + np.asarray(self.xy_mm))

    def silhouette_px(self, project) -> Polygon:
        """Convex hull of the object's base and top outlines in the image (``project``: (N, 3) -> (N, 2))."""
        ring = np.asarray(self.footprint_mm().exterior.coords)
        pts = np.concatenate([np.column_stack([ring, np.zeros(len(ring))]),
                              np.column_stack([ring, np.full(len(ring), self.height_mm)])])
        return MultiPoint(project(pts)).convex_hull

    def layers(self, light_azimuth_deg: float, config: ClutterConfig = ClutterConfig()) -> list[Layer]:
        """The object's slices, bottom to top (the top slice shows a cup's rim and inside)."""
        mpp = config.texture_mm_per_px
        poly = self.footprint_mm()
        x0, y0, x1, y1 = poly.bounds
        x0, y0 = x0 - 2 * mpp, y0 - 2 * mpp
        w = int(np.ceil((x1 - x0) / mpp)) + 4
        h = int(np.ceil((y1 - y0) / mpp)) + 4
        ss = 4
        mask = np.zeros((h * ss, w * ss), np.uint8)
        pts = (np.asarray(poly.exterior.coords) - (x0, y0)) / mpp * ss
        cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255)
        alpha = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        # Side shading: brighter where the outward normal faces the lamp.
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy = (self.xy_mm[0] - x0) / mpp - 0.5, (self.xy_mm[1] - y0) / mpp - 0.5
        if self.kind == "cup":
            nx, ny = xx - cx, yy - cy
        else:
            a = np.radians(self.angle_deg)
            u = (xx - cx) * np.cos(a) + (yy - cy) * np.sin(a)
            v = -(xx - cx) * np.sin(a) + (yy - cy) * np.cos(a)
            wu, wv = self.size_mm[0] / 2 / mpp, self.size_mm[1] / 2 / mpp
            along_u = np.abs(u) / wu > np.abs(v) / wv
            nu = np.where(along_u, np.sign(u), 0.0)
            nv = np.where(along_u, 0.0, np.sign(v))
            nx = nu * np.cos(a) - nv * np.sin(a)
            ny = nu * np.sin(a) + nv * np.cos(a)
        norm = np.maximum(np.hypot(nx, ny), 1e-6)
        la = np.radians(light_azimuth_deg)
        facing = (nx * np.cos(la) + ny * np.sin(la)) / norm
        lo, hi = config.side_shade
        shade = lo + (hi - lo) * (0.5 + 0.5 * facing)
        rgb = np.asarray(self.rgb, np.float32)
        side = np.dstack([rgb[None, None, :] * shade[..., None], alpha]).astype(np.float32)
        top_rgb = np.broadcast_to(np.clip(rgb * 1.1, 0, 1), (h, w, 3)).copy()
        if self.kind == "cup":
            inner = np.hypot(xx - cx, yy - cy) < (self.size_mm[0] - config.rim_mm) / mpp
            top_rgb[inner] = rgb * 0.35  # the inside of the cup, in its own shade
        top = np.dstack([top_rgb, alpha]).astype(np.float32)
        n = int(min(config.max_slices, max(2, np.ceil(self.height_mm / config.slice_step_mm))))
        zs = np.linspace(self.height_mm / n, self.height_mm, n)
        casters = set(np.round(np.linspace(0, n - 1, config.shadow_slices)).astype(int).tolist())
        out = []
        for k, z in enumerate(zs):
            tex = top if k == n - 1 else side
            out.append(Layer(tex, (float(x0), float(y0)), mpp, float(z), "matte", k in casters,
                             f"clutter_{self.kind}"))
        return out

    def to_json(self) -> dict:
        return {"kind": self.kind, "xy_mm": list(self.xy_mm), "size_mm": list(self.size_mm),
                "height_mm": self.height_mm, "angle_deg": self.angle_deg, "rgb": list(self.rgb)}

    @classmethod
    def from_json(cls, obj: dict) -> ClutterSpec:
        return cls(kind=str(obj["kind"]), xy_mm=(float(obj["xy_mm"][0]), float(obj["xy_mm"][1])),
                   size_mm=(float(obj["size_mm"][0]), float(obj["size_mm"][1])), height_mm=float(obj["height_mm"]),
                   angle_deg=float(obj["angle_deg"]), rgb=tuple(float(v) for v in obj["rgb"]))


def sample_clutter(rng: np.random.Generator, play_area_mm: tuple[float, float, float, float], count: int,
                   margin_mm: tuple[float, float] = (45.0, 250.0)) -> list[ClutterSpec]:
    """Random cups and boxes outside the play area (the caller checks visibility against markers).

    Parameters
    ----------
    play_area_mm : (x0, y0, x1, y1)
        The markers' rectangle; objects stand at least ``margin_mm[0]`` outside it.
    count : int
    """
    x0, y0, x1, y1 = play_area_mm
    out = []
    for _ in range(count):
        kind = str(rng.choice(CLUTTER_KINDS))
        if kind == "cup":
            r = float(rng.uniform(35, 50))
            size = (r, r)
            height = float(rng.uniform(70, 120))
            reach = r
        else:
            size = (float(rng.uniform(60, 200)), float(rng.uniform(50, 150)))
            height = float(rng.uniform(20, 80))
            reach = float(np.hypot(*size) / 2)
        side = int(rng.integers(4))
        d = float(rng.uniform(*margin_mm)) + reach
        if side == 0:
            xy = (float(rng.uniform(x0, x1)), y0 - d)
        elif side == 1:
            xy = (x1 + d, float(rng.uniform(y0, y1)))
        elif side == 2:
            xy = (float(rng.uniform(x0, x1)), y1 + d)
        else:
            xy = (x0 - d, float(rng.uniform(y0, y1)))
        rgb = tuple(float(v) for v in rng.uniform(0.15, 0.9, 3))
        out.append(ClutterSpec(kind, xy, size, height, float(rng.uniform(0, 180)), rgb))
    return out
