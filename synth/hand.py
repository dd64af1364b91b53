"""A hand and forearm reaching over the table: a skin-coloured occluder layer high above the scene."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon

from synth.layers import Layer


@dataclass(frozen=True)
class HandConfig:
    """Shape of the hand in mm (scaled by ``HandSpec.scale``) and its texture settings."""

    palm_radii_mm: tuple[float, float] = (50.0, 42.0)
    forearm_length_mm: float = 900.0
    forearm_width_mm: tuple[float, float] = (62.0, 84.0)
    finger_lengths_mm: tuple[float, float, float, float] = (62.0, 74.0, 70.0, 56.0)
    finger_offsets_mm: tuple[float, float, float, float] = (-27.0, -9.0, 9.0, 27.0)
    finger_width_mm: float = 17.0
    thumb_length_mm: float = 58.0
    thumb_width_mm: float = 21.0
    texture_mm_per_px: float = 1.0
    edge_shade_mm: float = 18.0
    edge_shade_depth: float = 0.35


@dataclass(frozen=True)
class HandSpec:
    """Where the hand is and what it looks like.

    Attributes
    ----------
    palm_xy_mm : (x, y)
        Palm centre, table frame.
    direction_deg : float
        Direction from the forearm to the fingertips, degrees from +x towards +y.
    z_mm : float
        Height of the hand above the table, mm.
    skin_rgb : (r, g, b)
        sRGB in [0, 1].
    scale : float
        Size factor (about 0.85-1.15).
    thumb_side : int
        +1 or -1: which side of the palm the thumb is on.
    spread_deg : float
        Fan angle between neighbouring fingers.
    """

    palm_xy_mm: tuple[float, float]
    direction_deg: float
    z_mm: float
    skin_rgb: tuple[float, float, float]
    scale: float = 1.0
    thumb_side: int = 1
    spread_deg: float = 5.0

    def outline_mm(self, config: HandConfig = HandConfig()) -> Polygon:
        """The hand and forearm as one polygon in table mm (x, y) at height ``z_mm``."""
        a = np.radians(self.direction_deg)
        fwd = np.array([np.cos(a), np.sin(a)])
        side = np.array([-np.sin(a), np.cos(a)])
        s = self.scale
        c = np.array(self.palm_xy_mm, dtype=np.float64)

        def at(f: float, b: float) -> tuple[float, float]:
            p = c + fwd * f * s + side * b * s
            return (float(p[0]), float(p[1]))

        parts = []
        palm = shapely.affinity.scale(Point(0, 0).buffer(1.0, 32), config.palm_radii_mm[0] * s,
                                      config.palm_radii_mm[1] * s)
        palm = shapely.affinity.rotate(palm, self.direction_deg, origin=(0, 0))
        parts.append(shapely.affinity.translate(palm, c[0], c[1]))
        w0, w1 = config.forearm_width_mm
        L = config.forearm_length_mm
        parts.append(Polygon([at(-20, -w0 / 2), at(-20, w0 / 2), at(-L, w1 / 2), at(-L, -w1 / 2)]))
        for k, (length, off) in enumerate(zip(config.finger_lengths_mm, config.finger_offsets_mm)):
            ang = np.radians((k - 1.5) * self.spread_deg)
            base = (38.0, off)
            tip = (38.0 + length * np.cos(ang), off + length * np.sin(ang))
            parts.append(LineString([at(*base), at(*tip)]).buffer(config.finger_width_mm * s / 2, 12))
        ts = self.thumb_side
        thumb_base = (5.0, ts * 32.0)
        thumb_tip = (5.0 + config.thumb_length_mm * 0.75, ts * (32.0 + config.thumb_length_mm * 0.65))
        parts.append(LineString([at(*thumb_base), at(*thumb_tip)]).buffer(config.thumb_width_mm * s / 2, 12))
        return shapely.union_all(parts).buffer(0)

    def layer(self, rng: np.random.Generator, config: HandConfig = HandConfig()) -> Layer:
        """The hand as a matte, shadow-casting layer (rounded look: darker towards its edges)."""
        poly = self.outline_mm(config)
        mpp = config.texture_mm_per_px
        x0, y0, x1, y1 = poly.bounds
        x0, y0 = x0 - 4 * mpp, y0 - 4 * mpp
        w = int(np.ceil((x1 - x0) / mpp)) + 8
        h = int(np.ceil((y1 - y0) / mpp)) + 8
        ss = 4  # supersampled fill for a smooth edge
        mask = np.zeros((h * ss, w * ss), np.uint8)
        geoms = getattr(poly, "geoms", [poly])
        for g in geoms:
            pts = (np.asarray(g.exterior.coords) - (x0, y0)) / mpp * ss
            cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255)
        alpha = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        dist = cv2.distanceTransform((alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 5) * mpp
        shade = 1.0 - config.edge_shade_depth * (1.0 - np.clip(dist / config.edge_shade_mm, 0, 1)) ** 2
        blotch = 1.0 + 0.04 * cv2.resize(rng.standard_normal((h // 20 + 2, w // 20 + 2)).astype(np.float32), (w, h))
        rgb = np.asarray(self.skin_rgb, np.float32)[None, None, :] * (shade * blotch)[..., None]
        rgba = np.dstack([np.clip(rgb, 0, 1), alpha]).astype(np.float32)
        return Layer(rgba=rgba, origin_mm=(float(x0), float(y0)), mm_per_px=mpp, z_mm=self.z_mm,
                     material="matte", casts_shadow=True, name="hand")

    def to_json(self) -> dict:
        return {
            "palm_xy_mm": list(self.palm_xy_mm),
            "direction_deg": self.direction_deg,
            "z_mm": self.z_mm,
            "skin_rgb": list(self.skin_rgb),
            "scale": self.scale,
            "thumb_side": self.thumb_side,
            "spread_deg": self.spread_deg,
        }

    @classmethod
    def from_json(cls, obj: dict) -> HandSpec:
        return cls(
            palm_xy_mm=(float(obj["palm_xy_mm"][0]), float(obj["palm_xy_mm"][1])),
            direction_deg=float(obj["direction_deg"]),
            z_mm=float(obj["z_mm"]),
            skin_rgb=tuple(float(v) for v in obj["skin_rgb"]),
            scale=float(obj["scale"]),
            thumb_side=int(obj["thumb_side"]),
            spread_deg=float(obj["spread_deg"]),
        )
