"""Find the CMYK! mosaic on the table and fit ONE triangle lattice to all of its tiles.

Works on a top-down (rectified) view in table mm: the tile edges run in three directions 60 degrees
apart, so the gradient orientations give the lattice angle (mod 60); each edge family's ink bands
(6 mm either side of the lattice lines) give that family's line offset; the three offsets must meet
in common vertices, which gives the origin and a consistency residual. The chosen frame is the
project's one triangle lattice, ``geometry.trilattice.TriangleLattice`` (the Kaleido fit returns the
same type).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import cv2
import numpy as np

from geometry import trilattice as tl


@dataclass(frozen=True)
class LatticeFitConfig:
    """Tunables of the lattice fit."""

    edge_mm: float = 45.0
    band_mm: float = 6.0
    min_family_concentration: float = 0.25
    max_vertex_residual_mm: float = 4.0
    band_extent_percentile: float = 3.0
    band_window_mm: float = 9.0
    max_points_per_ink: int = 6000
    min_points_per_ink: int = 20
    #: Where the gradients' angle leaves a family's bands unconcentrated (a webcam's motion blur and noise
    #: drown the edge orientations), the angle is searched by the bands' own periodicity: this coarse step
    #: over the 60 degrees ...
    angle_search_step_deg: float = 2.0
    #: ... then this fine step within one coarse step of the best.
    angle_refine_step_deg: float = 0.5
    #: Every fit also refines the gradients' angle by the bands within this many degrees (motion blur tilts the
    #: gradient orientations by a few degrees: dev webcam, 4-8 deg), on at most this many points per ink.
    angle_refine_range_deg: float = 10.0
    angle_refine_points: int = 600
    #: ... and the refined angle is taken where it gathers the three families' bands together by at least this much
    #: more (about the concentration's sampling noise on a few thousand points; a webcam's tilted gradients lost
    #: 0.2-0.35 of the weakest family's on the dev set, while on sharp photos the two angles gather the bands alike).
    angle_refine_min_gain: float = 0.02


@dataclass(frozen=True)
class LatticeFit:
    """The lattice in table mm.

    Attributes
    ----------
    normal_angles_rad : tuple[float, float, float]
        Unit normals of the three line families, angle in the table frame (x right, y down).
    offsets_mm : tuple[float, float, float]
        Family k's lines are ``n_k . p = offset_k + m*h``.
    vertex_mm : ndarray, shape (2,)
        One lattice vertex (table mm).
    family_ink : tuple[str, str, str]
        Which ink lies along each family (from the bands).
    concentration : tuple[float, float, float]
        How tightly each family's ink gathers about its lines (0..1).
    vertex_residual_mm : float
        How far the three families miss a common vertex (consistency of the fit).
    """

    normal_angles_rad: tuple[float, float, float]
    offsets_mm: tuple[float, float, float]
    vertex_mm: np.ndarray
    family_ink: tuple[str, str, str]
    concentration: tuple[float, float, float]
    vertex_residual_mm: float

    def normals(self) -> np.ndarray:
        """Unit normals, shape (3, 2)."""
        a = np.array(self.normal_angles_rad)
        return np.stack([np.cos(a), np.sin(a)], axis=1)


def orientation_mod60(gray: np.ndarray, weight_mask: np.ndarray | None = None) -> tuple[float, float]:
    """Dominant edge-normal angle modulo 60 degrees from gradient orientations.

    Parameters
    ----------
    gray : ndarray, shape (H, W), float32
    weight_mask : ndarray, shape (H, W), bool or float32, optional

    Returns
    -------
    angle_rad : float
        In [0, pi/3).
    strength : float
        0..1, how much of the gradient energy agrees (6-fold symmetry).
    """
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    # every product as written below, each computed once and in place (whole-view temporaries cost more than the
    # arithmetic: a fresh view-sized array is mostly its page faults): the same numbers
    gx2, gy2 = gx * gx, gy * gy
    w = gx2 + gy2
    if weight_mask is not None:
        w *= weight_mask  # a bool mask multiplies as 1.0 / 0.0
    tot = float(np.sum(w)) + 1e-9
    # w * exp(6i theta) = w * (g / |g|)^6, without trigonometry, in real arithmetic: with g^2 = a + ib,
    # g^6 = a (a^2 - 3 b^2) + i b (3 a^2 - b^2)
    a = np.subtract(gx2, gy2, out=gx2)
    b = np.multiply(gx, 2, out=gx)
    b *= gy
    f = np.maximum(w, np.float32(1e-12), out=gy2)
    # cubed only where w > 0 (a third of a mosaic's view: the masked-out and flat pixels have w = 0, and 0 / f is 0
    # whatever positive f holds); the cube is libm's powf, by far the costliest step, and the same powf where taken
    np.power(f, 3, out=f, where=w > 0)
    np.divide(w, f, out=f)  # w / max(w, eps)^3
    t, u = np.multiply(a, a, out=w), np.multiply(b, 3, out=gy)  # w summed already
    u *= b
    t -= u  # a^2 - 3 b^2
    t *= a
    t *= f
    re = np.sum(t)
    np.multiply(a, 3, out=t)
    t *= a
    np.multiply(b, b, out=u)
    t -= u  # 3 a^2 - b^2
    t *= b
    t *= f
    z = complex(re, np.sum(t))
    a = float(np.angle(z) / 6.0) % (np.pi / 3)
    return a, float(abs(z) / tot)


def _wrap(x: np.ndarray | float, period: float):
    return (np.asarray(x) + period / 2) % period - period / 2


def _ink_points(ink_masks: dict[str, np.ndarray], mm_per_px: float, origin_mm: tuple[float, float],
                config: LatticeFitConfig) -> dict[str, np.ndarray]:
    """Each ink's band pixels as table points (mm), thinned to ``max_points_per_ink``, shape (N, 2) per ink."""
    pts = {}
    for ink in ("cyan", "magenta", "yellow"):
        # (x, y) of the set pixels in row-major order, as np.nonzero's, at half its cost
        found = cv2.findNonZero(np.ascontiguousarray(ink_masks[ink]).view(np.uint8))
        xy = np.zeros((0, 2), np.int32) if found is None else found.reshape(-1, 2)
        stride = max(1, len(xy) // config.max_points_per_ink)
        pts[ink] = xy[::stride] * mm_per_px + np.asarray(origin_mm)
    return pts


def _family_phasors(pts: dict[str, np.ndarray], phi: float, h: float,
                    config: LatticeFitConfig) -> tuple[np.ndarray, tuple[int, ...], tuple[float, float, float]]:
    """How each ink's band points gather about the lines of each family at normal angle ``phi`` (+60, +120 deg).

    Returns
    -------
    phasor : ndarray, shape (3 families, 3 inks), complex
        Mean of ``exp(2 pi i n.p / h)`` (zero for an ink with too few points).
    perm : tuple of int
        The ink of each family (the assignment with the most concentration).
    concentration : tuple of float
        ``|phasor|`` of each family's ink (0..1).
    """
    return _family_choice(_phasors(pts, np.array([phi]), h, config)[0])


def _family_choice(phasor: np.ndarray) -> tuple[np.ndarray, tuple[int, ...], tuple[float, float, float]]:
    """:func:`_family_phasors` from one angle's phasors (3 families, 3 inks): the phasors, the ink of each family
    and their concentrations."""
    perm = _PERMS[int(np.argmax(_perm_totals(np.abs(phasor)[None])[0]))]
    c0, c1, c2 = (float(abs(phasor[k, perm[k]])) for k in range(3))
    return phasor, perm, (c0, c1, c2)


#: The inks' assignments to the three families, in ``itertools.permutations`` order (the first best wins).
_PERMS = tuple(permutations(range(3)))


def _phasors(pts: dict[str, np.ndarray], phis: np.ndarray, h: float, config: LatticeFitConfig) -> np.ndarray:
    """:func:`_family_phasors`' phasors at every angle of ``phis`` at once, shape (A, 3 families, 3 inks)."""
    a = np.asarray(phis, np.float64)[:, None] + np.arange(3) * np.pi / 3  # (A, 3 families)
    normals = np.stack([np.cos(a).ravel(), np.sin(a).ravel()])  # (2, 3A)
    out = np.zeros((a.size, 3), complex)
    for c, ink in enumerate(("cyan", "magenta", "yellow")):
        p = pts[ink]
        if len(p) < config.min_points_per_ink:
            continue
        # about the points' centre, in single precision (a few hundred mm: phases of ~1e-5 rad), the centre's
        # phase put back in double: the same phasor at a fraction of the trigonometry's cost
        centre = p.mean(axis=0)
        x = (p - centre).astype(np.float32) @ ((2 * np.pi / h) * normals).astype(np.float32)  # (N, 3A)
        # each angle's phases in a row of their own: the means run along memory (a fifth of the cost of summing
        # down the columns; float32 terms summed in double, so the order barely matters)
        x = np.ascontiguousarray(x.T)  # (3A, N)
        mean = np.cos(x).mean(axis=1, dtype=np.float64) + 1j * np.sin(x).mean(axis=1, dtype=np.float64)
        out[:, c] = mean * np.exp(1j * (2 * np.pi / h) * (centre @ normals))
    return out.reshape(len(a), 3, 3)


def _perm_totals(conc: np.ndarray) -> np.ndarray:
    """Summed concentration of every ink assignment (``_PERMS``), shape (A, 6) from (A, 3 families, 3 inks)."""
    fam = np.arange(3)
    return np.stack([conc[:, fam, list(perm)].sum(axis=1) for perm in _PERMS], axis=1)


def _refine_angle(pts: dict[str, np.ndarray], phi: float, h: float, config: LatticeFitConfig) -> float:
    """The angle within ``angle_refine_range_deg`` of ``phi`` at which the bands gather most tightly (all three
    families' concentration together), on a thinned subset of the points (``_gathered_angle``).

    All families, not the weakest: under a webcam's blur and a colour cast one ink's bands are few and loose, and
    their concentration alone wanders by more than the refinement's gain (photoreal dev webcam s0 s100000_h05: the
    weakest family gathered 0.31 six degrees off the lattice, 0.285 on it, while all three gathered 1.48 there and
    1.76 on it)."""
    thin = {ink: p[:: max(1, len(p) // config.angle_refine_points)] for ink, p in pts.items()}
    r = config.angle_refine_range_deg
    return _gathered_angle(thin, phi + np.deg2rad(np.arange(-r, r + 1e-9, config.angle_search_step_deg)), h, config)


def _band_angle(pts: dict[str, np.ndarray], h: float, config: LatticeFitConfig) -> float:
    """The lattice's normal angle (mod 60 degrees) at which the ink bands gather most tightly about their lines.

    The bands repeat every row height across each family's lines whatever the photo's blur or noise, so their
    periodicity finds the angle where the gradient orientations cannot (``orientation_mod60``): a scan of the 60
    degrees (``_gathered_angle``), by all three families' concentration together (as ``_refine_angle``: photoreal dev
    phone s100000_h05, the weakest family's gathered best 7 degrees off the lattice, all three's within one).
    """
    return _gathered_angle(pts, np.deg2rad(np.arange(0.0, 60.0, config.angle_search_step_deg)), h, config)


def _gathered_angle(pts: dict[str, np.ndarray], coarse_rad: np.ndarray, h: float, config: LatticeFitConfig) -> float:
    """The best of the angles ``coarse_rad`` by the three families' summed concentration (``_family_phasors``' best
    ink assignment), then the best at ``angle_refine_step_deg`` within one ``angle_search_step_deg`` of it, mod 60
    degrees (radians)."""
    def best(angles: np.ndarray) -> float:
        totals = _perm_totals(np.abs(_phasors(pts, angles, h, config)))  # (A, 6 assignments)
        return float(angles[int(np.argmax(totals.max(axis=1)))])

    step = config.angle_search_step_deg
    a0 = best(np.asarray(coarse_rad, np.float64))
    return best(a0 + np.deg2rad(np.arange(-step, step + 1e-9, config.angle_refine_step_deg))) % (np.pi / 3)


def fit_lattice(ink_masks: dict[str, np.ndarray], gray: np.ndarray, tile_mask: np.ndarray, mm_per_px: float,
                origin_mm: tuple[float, float], config: LatticeFitConfig = LatticeFitConfig()) -> LatticeFit | None:
    """Fit the lattice to a rectified view of the mosaic.

    Parameters
    ----------
    ink_masks : dict[str, ndarray (H, W) bool]
        ``"cyan"``, ``"magenta"``, ``"yellow"`` band-ink pixels of the rectified view.
    gray : ndarray, shape (H, W), float32
        Luminance of the rectified view.
    tile_mask : ndarray, shape (H, W), bool
        Pixels on tiles (dilated), where gradients count.
    mm_per_px : float
    origin_mm : (x0, y0)
        Table position of the view's pixel (0, 0).

    Returns
    -------
    LatticeFit or None
        None when no family of lines stands out.
    """
    h = tl.row_height(config.edge_mm)
    inks = ("cyan", "magenta", "yellow")
    pts = _ink_points(ink_masks, mm_per_px, origin_mm, config)
    phi, _ = orientation_mod60(gray, tile_mask)
    refined = _refine_angle(pts, phi, h, config)
    # both angles' phasors in one pass (each angle's the same numbers as alone)
    both = _phasors(pts, np.array([phi, refined] if refined != phi else [phi]), h, config)
    phasor, best_perm, conc = _family_choice(both[0])
    if refined != phi:  # the same angle gathers the same (no gain)
        phasor_r, perm_r, conc_r = _family_choice(both[1])
        if sum(conc_r) > sum(conc) + config.angle_refine_min_gain:
            phi, phasor, best_perm, conc = refined, phasor_r, perm_r, conc_r
    if min(conc) < config.min_family_concentration:
        phi = _band_angle(pts, h, config)
        phasor, best_perm, conc = _family_phasors(pts, phi, h, config)
    if min(conc) < config.min_family_concentration:
        return None
    angles = [phi, phi + np.pi / 3, phi + 2 * np.pi / 3]
    normals = np.array([[np.cos(a), np.sin(a)] for a in angles])
    offsets = []
    for k in range(3):
        a0 = float(np.angle(phasor[k, best_perm[k]]) * h / (2 * np.pi))
        t = _wrap(pts[inks[best_perm[k]]] @ normals[k] - a0, h)
        t = t[np.abs(t) < config.band_window_mm]
        if len(t) > config.min_points_per_ink:
            lo, hi = np.percentile(t, [config.band_extent_percentile, 100.0 - config.band_extent_percentile])
            a0 += float(lo + hi) / 2
        offsets.append(a0)
    # n0 - n1 + n2 = 0, so the offsets of concurrent families satisfy a0 - a1 + a2 = 0 (mod h)
    eps = float(_wrap(offsets[0] - offsets[1] + offsets[2], h))
    offsets = [offsets[0] - eps / 3, offsets[1] + eps / 3, offsets[2] - eps / 3]
    vertex = np.linalg.solve(normals[:2], np.array(offsets[:2]))
    return LatticeFit(
        normal_angles_rad=tuple(float(a) for a in angles),
        offsets_mm=tuple(offsets),
        vertex_mm=vertex,
        family_ink=tuple(inks[best_perm[k]] for k in range(3)),
        concentration=conc,
        vertex_residual_mm=abs(eps),
    )


def choose_frame(fit: LatticeFit, edge_mm: float, image_dir_of, centre_mm: np.ndarray,
                 horizontal_deg: float = 0.0, ambiguous_margin: float = 0.02) -> tuple[tl.TriangleLattice, str | None]:
    """Pick the lattice frame: rows along the family nearest the photo's horizontal, up to the photo's top.

    Parameters
    ----------
    fit : LatticeFit
    edge_mm : float
    image_dir_of : callable(point_mm (2,), direction (2,)) -> ndarray (2,)
        The image-pixel direction of a small table step at a point.
    centre_mm : ndarray, shape (2,)
        Mosaic centre; the origin is put at a lattice vertex next to it.
    horizontal_deg : float
        The photo direction to treat as horizontal, degrees counter-clockwise from the image x axis.
    ambiguous_margin : float
        Warn when the two most horizontal families' alignments (cosines) differ by less.

    Returns
    -------
    frame : TriangleLattice
        ``residual_mm`` is the fit's ``vertex_residual_mm``.
    warning : str or None
        Set when the choice was close (two families almost equally horizontal).
    """
    target = np.array([np.cos(np.deg2rad(horizontal_deg)), -np.sin(np.deg2rad(horizontal_deg))])
    scores = []
    dirs = []
    for n in fit.normals():
        u = np.array([-n[1], n[0]])
        d = image_dir_of(centre_mm, u)
        d = d / (np.linalg.norm(d) + 1e-12)
        if d @ target < 0:
            u, d = -u, -d
        dirs.append(u)
        scores.append(float(d @ target))
    order = np.argsort(scores)[::-1]
    k = int(order[0])
    warning = None
    if scores[order[0]] - scores[order[1]] < ambiguous_margin:
        warning = "two lattice directions are almost equally horizontal in the photo; rows chosen by a hair"
    right = dirs[k]
    # snap the origin to a vertex near the centre: vertices are vertex_mm + a*e*right + b*e*(60 deg)
    e = edge_mm
    f0 = tl.TriangleLattice.from_axis(np.asarray(fit.vertex_mm), right, e)
    c = f0.from_table(centre_mm[None])[0]
    hh = tl.row_height(e)
    lrow = int(np.round(c[1] / hh))
    kk = int(np.round(c[0] / (e / 2)))
    if (kk + lrow) % 2 == 0:
        kk += 1
    vtx = f0.to_table(np.array([[kk * e / 2, lrow * hh]]))[0]
    frame = tl.TriangleLattice.from_axis(vtx, right, e, fit.vertex_residual_mm)
    return frame, warning
