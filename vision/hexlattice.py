"""Fit one triangle lattice to Kaleido board frames in a top-down (rectified) table image.

The boards' frames are thin cardboard bars along the lines of a triangle lattice of edge
``edge_mm``; every hole (cell) is a lattice triangle whose sides show an edge about
``hole_inset_mm`` inside the lattice lines. This module finds the lattice's rotation and offset
from colour gradients, and scores how much each lattice triangle looks like a board hole.

Frames: the rectified image's pixel (col, row) is table mm ``origin_mm + (col, row) * mm_per_px``
(x right, y down), so every position here is in table mm. The fitted lattice is the project's one
triangle lattice, ``geometry.trilattice.TriangleLattice`` (the CMYK! fit returns the same type).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from geometry.trilattice import TriangleLattice
from vision.view import sample

SQRT3 = float(np.sqrt(3.0))


@dataclass(frozen=True)
class LatticeFitConfig:
    """Tunables of the lattice fit.

    Attributes
    ----------
    blur_sigma_px : float
        Gaussian blur before the gradients, rectified px.
    strong_quantile : float
        Only pixels whose gradient magnitude is above this quantile vote for the orientation.
    orientation_bins : int
        Bins of the orientation histogram per 60 degrees.
    orientation_smooth_deg : float
        Circular smoothing of that histogram, degrees.
    family_tol_deg : float
        A pixel votes for a line family when its gradient is this close to the family's normal.
    offset_bin_mm, offset_smooth_mm : float
        Bin and smoothing of the line-position profile (merges the two edges of a bar).
    side_span_frac : float
        Middle part of a triangle side (fraction of the edge) over which the edge test averages.
    side_inset_mm : (float, float)
        Range of distances inside a side where the hole's edge is looked for, mm.
    interior_inset_mm : float
        Distance inside a side taken as the cell's own texture level, mm.
    along_step_mm : float
        Sampling step of the side-evidence maps along the lines, mm (across them: the view's own).
    refine_fine_div : float
        The hexagon search's second pass steps at its first step divided by this.
    """

    blur_sigma_px: float = 0.8
    strong_quantile: float = 0.85
    orientation_bins: int = 240
    orientation_smooth_deg: float = 0.75
    family_tol_deg: float = 8.0
    offset_bin_mm: float = 0.25
    offset_smooth_mm: float = 1.8
    side_span_frac: float = 0.6
    side_inset_mm: tuple[float, float] = (1.0, 4.0)
    interior_inset_mm: float = 8.0
    along_step_mm: float = 3.0
    refine_fine_div: float = 3.0


@dataclass(frozen=True)
class Gradients:
    """Per-channel gradients of a rectified image (units per mm).

    Attributes
    ----------
    gx, gy : ndarray, shape (H, W, C), float32
    magnitude : ndarray, shape (H, W), float32
        Di Zenzo (multi-channel) gradient magnitude.
    angle : ndarray, shape (H, W), float32
        Gradient direction modulo pi, radians.
    """

    gx: np.ndarray
    gy: np.ndarray
    magnitude: np.ndarray
    angle: np.ndarray


def gradients(image_norm: np.ndarray, config: LatticeFitConfig, mm_per_px: float) -> Gradients:
    """Colour gradients of a rectified, colour-normalised image.

    Parameters
    ----------
    image_norm : ndarray, shape (H, W, C), float32
    config : LatticeFitConfig
    mm_per_px : float

    Returns
    -------
    Gradients
    """
    img = cv2.GaussianBlur(image_norm.astype(np.float32), (0, 0), config.blur_sigma_px)
    scale = 1.0 / (8.0 * mm_per_px)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3, scale=scale)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3, scale=scale)
    if gx.ndim == 2:
        gx, gy = gx[..., None], gy[..., None]
    # the structure tensor summed over channels, with OpenCV's per-pixel kernels (one core, no temporaries)
    ones = np.ones((1, gx.shape[2]), np.float32)
    jxx = cv2.transform(cv2.multiply(gx, gx), ones)
    jxy = cv2.transform(cv2.multiply(gx, gy), ones)
    jyy = cv2.transform(cv2.multiply(gy, gy), ones)
    root, double_angle = cv2.cartToPolar(jxx - jyy, 2.0 * jxy)
    mag = cv2.sqrt(np.maximum(0.5 * (jxx + jyy + root), 0.0))
    angle = 0.5 * double_angle
    return Gradients(gx=gx, gy=gy, magnitude=mag.astype(np.float32), angle=angle.astype(np.float32))


def _circular_peak(hist: np.ndarray, sigma_bins: float) -> tuple[float, float]:
    """Sub-bin position of the highest peak of a circular histogram, and its share of the total."""
    n = len(hist)
    if sigma_bins > 0:
        k = np.arange(n)
        d = np.minimum(k, n - k)
        kernel = np.exp(-0.5 * (d / sigma_bins) ** 2)
        smooth = np.real(np.fft.ifft(np.fft.fft(hist) * np.fft.fft(kernel)))
    else:
        smooth = np.asarray(hist, dtype=np.float64)
    i = int(np.argmax(smooth))
    left, mid, right = smooth[(i - 1) % n], smooth[i], smooth[(i + 1) % n]
    denom = left - 2 * mid + right
    frac = 0.5 * (left - right) / denom if denom < 0 else 0.0
    return (i + frac) % n, float(mid / max(smooth.mean(), 1e-12))


@dataclass(frozen=True)
class StrongEdges:
    """The strongest edge pixels of a rectified image (the lattice's votes).

    Attributes
    ----------
    rows, cols : ndarray, shape (N,), int
    angle : ndarray, shape (N,), float32
        Gradient direction modulo pi, radians.
    weight : ndarray, shape (N,), float32
        Gradient magnitude, per mm.
    """

    rows: np.ndarray
    cols: np.ndarray
    angle: np.ndarray
    weight: np.ndarray

    def aligned(self, rotation_deg: float, tol_deg: float) -> np.ndarray:
        """Which pixels (N,) bool lie along a line family of a lattice of that rotation."""
        out = np.zeros(len(self.rows), dtype=bool)
        for m in range(3):
            beta = np.deg2rad(rotation_deg + 90.0 + 60.0 * m)
            out |= np.abs(((self.angle - beta) + np.pi / 2) % np.pi - np.pi / 2) < np.deg2rad(tol_deg)
        return out


def strong_edges(grad: Gradients, weight_mask: np.ndarray, config: LatticeFitConfig) -> StrongEdges:
    """Pixels inside ``weight_mask`` whose gradient magnitude is above its ``strong_quantile``."""
    vals = grad.magnitude[weight_mask]
    thr = float(np.quantile(vals, config.strong_quantile)) if vals.size else 0.0
    strong = weight_mask & (grad.magnitude > max(thr, 1e-6))
    rows, cols = np.nonzero(strong)
    return StrongEdges(rows=rows, cols=cols, angle=grad.angle[rows, cols], weight=grad.magnitude[rows, cols])


def fit_lattice(
    grad: Gradients,
    weight_mask: np.ndarray,
    origin_mm: tuple[float, float],
    mm_per_px: float,
    edge_mm: float,
    config: LatticeFitConfig,
    strong: StrongEdges | None = None,
) -> tuple[TriangleLattice, float]:
    """Fit the triangle lattice to the frame edges.

    Parameters
    ----------
    grad : Gradients
    weight_mask : ndarray, shape (H, W), bool
        Pixels allowed to vote (not markers, inside the photo).
    origin_mm : (x, y)
        Table position of rectified pixel (0, 0), mm.
    mm_per_px : float
    edge_mm : float
    config : LatticeFitConfig
    strong : StrongEdges, optional
        ``strong_edges(grad, weight_mask, config)`` when the caller has it already.

    Returns
    -------
    lattice : TriangleLattice
        ``rotation_deg`` in [0, 60); ``vertex_mm`` one vertex; ``residual_mm`` the RMS miss of the
        three line families.
    orientation_peak : float
        Height of the orientation peak over the histogram's mean (about 1: no lattice seen).
    """
    edges = strong if strong is not None else strong_edges(grad, weight_mask, config)
    ang = edges.angle.astype(np.float64)
    w = edges.weight.astype(np.float64)
    # a lattice has edges in all three directions: score each direction (mod 60) by the weakest
    # of its three families, so that a checked or striped table (two or one directions) loses
    nb = config.orientation_bins
    nb180 = 3 * nb
    hist = np.bincount(np.floor(ang / np.pi * nb180).astype(int) % nb180, weights=w, minlength=nb180)
    sigma_bins = config.orientation_smooth_deg / 180.0 * nb180
    k = np.arange(nb180)
    dk = np.minimum(k, nb180 - k)
    kernel = np.exp(-0.5 * (dk / max(sigma_bins, 1e-6)) ** 2)
    smooth = np.real(np.fft.ifft(np.fft.fft(hist) * np.fft.fft(kernel)))
    trio = np.minimum(np.minimum(smooth[:nb], smooth[nb:2 * nb]), smooth[2 * nb:])
    peak, peak_ratio = _circular_peak(trio, 0.0)
    peak_ratio = float(trio.max() / max(trio.mean(), 1e-12))
    normal_deg = peak / nb * 60.0  # gradient normal of the lines, modulo 60
    rotation = (normal_deg - 30.0) % 60.0  # line direction = normal - 90 = normal + 30 (mod 60)

    x = origin_mm[0] + edges.cols * mm_per_px
    y = origin_mm[1] + edges.rows * mm_per_px
    h = edge_mm * SQRT3 / 2.0
    nbins = int(round(h / config.offset_bin_mm))
    normals, offsets = [], []
    for m in range(3):
        beta = np.deg2rad(rotation + 90.0 + 60.0 * m)
        dang = np.abs(((ang - beta) + np.pi / 2) % np.pi - np.pi / 2)
        sel = dang < np.deg2rad(config.family_tol_deg)
        p = (x[sel] * np.cos(beta) + y[sel] * np.sin(beta)) % h
        hist_p = np.bincount(np.floor(p / h * nbins).astype(int) % nbins, weights=w[sel], minlength=nbins)
        pk, _ = _circular_peak(hist_p, config.offset_smooth_mm / config.offset_bin_mm)
        normals.append([np.cos(beta), np.sin(beta)])
        offsets.append(pk / nbins * h)
    n = np.array(normals)
    o = np.array(offsets)
    x0 = np.linalg.solve(n[:2], o[:2])
    r = (n @ x0 - o + h / 2) % h - h / 2
    delta = -np.linalg.lstsq(n, r, rcond=None)[0]
    x0 = x0 + delta
    r2 = (n @ x0 - o + h / 2) % h - h / 2
    lat = TriangleLattice(vertex_mm=x0, rotation_deg=float(rotation), edge_mm=edge_mm,
                          residual_mm=float(np.sqrt(np.mean(r2**2))))
    return lat, peak_ratio


@dataclass(frozen=True)
class SideMaps:
    """Edge evidence for lattice-aligned sides, precomputed per line family.

    For family m (lines along ``rotation + 60 m`` degrees) the image is turned so that those
    lines are horizontal (and squeezed along them by ``SideMapConfig.along_step_mm``: the evidence
    is an average along the side anyway); there the signed colour derivative across the lines is
    averaged along them over the side's span, and its norm over channels is the side evidence
    ``A``. ``inward_plus`` / ``inward_minus`` hold ``max A`` over the inset range on the +y / -y side.

    Attributes
    ----------
    affine : tuple[ndarray, ...]
        Per family, shape (2, 3): table mm (homogeneous) -> turned-image px.
    evidence, inward_plus, inward_minus : tuple[ndarray, ...]
        Per family, shape (H', W'), float32, per mm.
    rotation_deg : float
    config : LatticeFitConfig
    across_px_per_mm : float
        Turned-image rows per mm across the lines.
    """

    affine: tuple[np.ndarray, ...]
    evidence: tuple[np.ndarray, ...]
    inward_plus: tuple[np.ndarray, ...]
    inward_minus: tuple[np.ndarray, ...]
    rotation_deg: float
    config: LatticeFitConfig
    across_px_per_mm: float = 1.0

    def family_of(self, a_mm: np.ndarray, b_mm: np.ndarray) -> np.ndarray:
        """Line family (0, 1, 2) of lattice-aligned sides a -> b, shape (...)."""
        d = np.asarray(b_mm) - np.asarray(a_mm)
        ang = (np.degrees(np.arctan2(d[..., 1], d[..., 0])) - self.rotation_deg) % 180.0
        return np.rint(ang / 60.0).astype(int) % 3

    def side_scores(self, a_mm: np.ndarray, b_mm: np.ndarray, inside_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Evidence of a hole edge just inside each side, and the texture level deeper inside.

        Parameters
        ----------
        a_mm, b_mm : ndarray, shape (..., 2)
            Side endpoints (lattice-aligned), table mm.
        inside_mm : ndarray, shape (..., 2)
            A point on the inner side (the cell's centroid).

        Returns
        -------
        edge, interior : ndarray, shape (...)
        """
        return self.scores_at(0.5 * (a_mm + b_mm), inside_mm, self.family_of(a_mm, b_mm))

    def scores_at(
        self, mid_mm: np.ndarray, inside_mm: np.ndarray, family: np.ndarray, with_interior: bool = True
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """``side_scores`` from the sides' midpoints (..., 2), inner points (..., 2) and families (...);
        ``interior`` is None unless ``with_interior``."""
        fam = np.broadcast_to(family, mid_mm.shape[:-1])
        edge = np.zeros(mid_mm.shape[:-1])
        interior = np.zeros(mid_mm.shape[:-1]) if with_interior else None
        for m in range(3):
            sel = fam == m
            if not np.any(sel):
                continue
            A = self.affine[m]
            q = mid_mm[sel] @ A[:, :2].T + A[:, 2]
            plus = (inside_mm[sel] @ A[1, :2] + A[1, 2]) > q[:, 1]
            e = np.empty(len(q))
            e[plus] = sample(self.inward_plus[m], q[plus], exact=False)
            e[~plus] = sample(self.inward_minus[m], q[~plus], exact=False)
            edge[sel] = e
            if interior is not None:
                step = self.config.interior_inset_mm * np.where(plus, 1.0, -1.0) * self.across_px_per_mm
                interior[sel] = sample(self.evidence[m], np.column_stack([q[:, 0], q[:, 1] + step]), exact=False)
        return edge, interior


def _inset_max(evidence: np.ndarray, d0: int, d1: int, below: bool) -> np.ndarray:
    """max of ``evidence`` over rows y + d0 .. y + d1 (``below``) or y - d1 .. y - d0; 0 outside."""
    kernel = np.zeros((d1 + 1, 1), np.uint8)
    if below:
        kernel[d0:] = 1
        anchor = (0, 0)
    else:
        kernel[: d1 - d0 + 1] = 1
        anchor = (0, d1)
    return cv2.dilate(evidence, kernel, anchor=anchor, borderType=cv2.BORDER_CONSTANT, borderValue=0)


def side_maps(
    image_norm: np.ndarray,
    origin_mm: tuple[float, float],
    mm_per_px: float,
    lattice: TriangleLattice,
    config: LatticeFitConfig,
) -> SideMaps:
    """Precompute the side evidence of every line family (see ``SideMaps``).

    Parameters
    ----------
    image_norm : ndarray, shape (H, W, C), float32
        Rectified, colour-normalised image.
    origin_mm : (x, y)
        Table position of pixel (0, 0).
    mm_per_px : float
    lattice : TriangleLattice
    config : LatticeFitConfig

    Returns
    -------
    SideMaps
    """
    h, w = image_norm.shape[:2]
    img = cv2.GaussianBlur(image_norm.astype(np.float32), (0, 0), config.blur_sigma_px)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    squeeze = max(1.0, config.along_step_mm / mm_per_px)  # rectified px per turned column
    span_px = max(3, int(round(config.side_span_frac * lattice.edge_mm / mm_per_px / squeeze)))
    d0 = max(1, int(round(config.side_inset_mm[0] / mm_per_px)))
    d1 = max(d0, int(round(config.side_inset_mm[1] / mm_per_px)))
    ones = np.ones((1, img.shape[2] if img.ndim == 3 else 1), np.float32)
    affines, evid, plus, minus = [], [], [], []
    for m in range(3):
        a = np.deg2rad(lattice.rotation_deg + 60.0 * m)
        r = np.array([[np.cos(a) / squeeze, np.sin(a) / squeeze], [-np.sin(a), np.cos(a)]])
        rc = corners @ r.T
        t = -rc.min(axis=0)
        size = np.ceil(rc.max(axis=0) + t).astype(int) + 1
        M = np.hstack([r, t[:, None]])
        turned = cv2.warpAffine(img, M, (int(size[0]), int(size[1])), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
        dy = cv2.Sobel(turned, cv2.CV_32F, 0, 1, ksize=3, scale=1.0 / (8.0 * mm_per_px))
        mean = cv2.blur(dy, (span_px, 1), borderType=cv2.BORDER_REPLICATE)
        ev = np.abs(mean) if mean.ndim == 2 else cv2.sqrt(cv2.transform(cv2.multiply(mean, mean), ones))
        # table mm -> rectified px -> turned px
        to_px = np.array([[1.0 / mm_per_px, 0.0, -origin_mm[0] / mm_per_px],
                          [0.0, 1.0 / mm_per_px, -origin_mm[1] / mm_per_px], [0.0, 0.0, 1.0]])
        affines.append((np.vstack([M, [0.0, 0.0, 1.0]]) @ to_px)[:2])
        evid.append(ev)
        plus.append(_inset_max(ev, d0, d1, below=True))
        minus.append(_inset_max(ev, d0, d1, below=False))
    return SideMaps(affine=tuple(affines), evidence=tuple(evid), inward_plus=tuple(plus), inward_minus=tuple(minus),
                    rotation_deg=lattice.rotation_deg, config=config, across_px_per_mm=1.0 / mm_per_px)


def hexagon_cells(centres_mm: np.ndarray, rotation_deg: float, edge_mm: float) -> np.ndarray:
    """The six cell triangles around each centre, cell k = (c, v_k, v_(k+1)).

    Parameters
    ----------
    centres_mm : ndarray, shape (N, 2)

    Returns
    -------
    ndarray, shape (N, 6, 3, 2), table mm
    """
    ang = np.deg2rad(rotation_deg + 60.0 * np.arange(7))
    dirs = edge_mm * np.stack([np.cos(ang), np.sin(ang)], axis=1)
    c = np.asarray(centres_mm, dtype=np.float64).reshape(-1, 1, 2)
    return np.stack([np.broadcast_to(c, (len(c), 6, 2)), c + dirs[None, :6], c + dirs[None, 1:]], axis=2)


def cell_side_scores(tris_mm: np.ndarray, maps: SideMaps) -> tuple[np.ndarray, np.ndarray]:
    """Hole-edge evidence of each side of lattice triangles.

    Parameters
    ----------
    tris_mm : ndarray, shape (..., 3, 2)

    Returns
    -------
    edge : ndarray, shape (..., 3)
        Side k runs from corner k to corner k+1.
    interior : ndarray, shape (..., 3)
    """
    a = tris_mm
    b = np.roll(tris_mm, -1, axis=-2)
    centroid = np.broadcast_to(tris_mm.mean(axis=-2, keepdims=True), tris_mm.shape)
    return maps.side_scores(a, b, centroid)


def refine_hexagons(
    centres_mm: np.ndarray, maps: SideMaps, edge_mm: float, search_mm: float, step_mm: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shift each hexagon (a board candidate) locally to where its holes' edges are strongest.

    Parameters
    ----------
    centres_mm : ndarray, shape (N, 2)
        Lattice vertices.
    maps : SideMaps
    edge_mm : float
    search_mm, step_mm : float
        Square search window half-width and step, mm (a second pass refines at
        step / ``maps.config.refine_fine_div``).

    Returns
    -------
    shift_mm : ndarray, shape (N, 2)
    edge : ndarray, shape (N, 6, 3)
        Side evidence at the best shift.
    interior : ndarray, shape (N, 6, 3)
    """
    c = np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2)
    base = hexagon_cells(c, maps.rotation_deg, edge_mm)  # (N, 6, 3, 2)
    # every side's midpoint, inner point and family at zero shift: a shift moves the first two alike,
    # and which family a side belongs to and on which side of it the hole lies is the same for every
    # hexagon, so the sides are grouped by (family, side) once and sampled group by group
    mid_sides = 0.5 * (base + np.roll(base, -1, axis=-2))  # (N, 6, 3, 2)
    inside_sides = np.broadcast_to(base.mean(axis=-2, keepdims=True), base.shape)
    mid = mid_sides.reshape(len(c), 18, 2)
    inside = inside_sides.reshape(len(c), 18, 2)
    family = maps.family_of(base[0], np.roll(base[0], -1, axis=-2)).ravel()  # (18,)
    groups = []
    for m in range(3):
        A = maps.affine[m]
        for plus in (True, False):
            cols = [j for j in range(18) if family[j] == m
                    and ((inside[0, j] @ A[1, :2]) > (mid[0, j] @ A[1, :2])) == plus]
            if cols:
                image = maps.inward_plus[m] if plus else maps.inward_minus[m]
                groups.append((np.array(cols), A, image))
    best = np.zeros((len(c), 2))
    for step, half in ((step_mm, search_mm), (step_mm / maps.config.refine_fine_div, step_mm)):
        g = np.arange(-half, half + 1e-9, step)
        sx, sy = np.meshgrid(g, g, indexing="ij")
        shifts = np.stack([sx.ravel(), sy.ravel()], axis=1)  # (K, 2)
        trial = best[:, None, :] + shifts[None]  # (N, K, 2)
        score = np.zeros(trial.shape[:2])
        for cols, A, image in groups:
            # turned-image positions: the sides' own (N, G) plus the shift's (N, K), added (A is affine)
            q = (mid[:, cols] @ A[:, :2].T + A[:, 2])[:, None] + (trial @ A[:, :2].T)[:, :, None]  # (N, K, G, 2)
            score += sample(image, q, exact=False).sum(axis=2)
        k = np.argmax(score, axis=1)
        best = trial[np.arange(len(c)), k]
    off = best[:, None, None, :]
    e, it = maps.scores_at(mid_sides + off, inside_sides + off, family.reshape(6, 3))
    return best, e, it
