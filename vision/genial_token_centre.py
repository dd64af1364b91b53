"""Where a Genial Spezial token lies on its tower's top, found on the photo by its symbol.

The numeral reader (:mod:`vision.genial_numeral`) compares a token's numeral within ``search_mm`` of where it
expects the token: the tower's cell centre from the board pose, at the token's height. A board pose a few
millimetres off (hard shadows along the board's outline, a turn off by a fraction of a degree over a 600 mm board)
or a token lying off its tower's centre puts the numeral beyond that search, and the reader then compares the
digits where the numeral is not: misfits on every token of the photo, a wrong digit as likely to win as the right
one.

Every symbol (sun, ring, hexagon, flower) is printed in colour right around a neutral face disc (the numeral's,
radius 3.9-4.9 mm, centred on the token): the token's centre is where the chroma just outside a disc of that
radius, in its least coloured quarter, stands highest above the chroma inside it (:func:`token_centres`). The photo
is sampled rectified on the plane of the token's top (``step_mm``) within ``reach_mm`` of the expected centre, and
that contrast is taken at every node; its best node is the token's find when the contrast is at least
``min_contrast``. The band's least coloured quarter counts, not its mean: a ring is coloured all round, a coloured
tile beside a grey tower top on one side.

One token's find is not trusted alone (a tile's edge can ring too): the finds of the photo's tokens correct the
board pose together (:func:`corrected_centres`: one affine map, expected -> found, that most tokens agree with),
or not at all. On the tune sets as rendered the expected centres lay up to 10.9 mm from the tokens (a board pose
off under hard shadows), the corrected ones at most 2.1 mm (the numeral search's reach is 2 mm).

Pure functions of arrays (sampling through a :class:`~vision.view.TableView`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.view import TableView, sample


@dataclass(frozen=True)
class TokenCentreConfig:
    """Tunables of the token finder (mm unless said).

    Attributes
    ----------
    step_mm : float
        Spacing of the rectified chroma samples (and of the centres tried).
    reach_mm : float
        Centres are tried this far each way from the expected one (a board pose off by up to ~10 mm at the far
        towers; the next tower's token lies 24 mm away, its symbol at least 15 mm).
    gap_mm : float
        Left out each side of the face disc's edge (the photo's blur smears it).
    band_mm : float
        Width of the symbol's band taken outside the face disc (every symbol is coloured at least this far out:
        the flower's petals cover about 3/4 of it, the others all).
    min_contrast : float
        The best ring's contrast (chroma, sRGB max - min channel, 0-255) for a token to count as found: a
        symbol's colour on a neutral face stands 20-150 above it in a photo as rendered or from a phone, 5-20 from
        a browser camera or a dim webcam (whose finds then rarely agree on one map: no correction).
    inlier_mm, min_inliers : float, int
        The board pose's correction (:func:`corrected_centres`) keeps the tokens found within ``inlier_mm`` of
        one affine map, and needs at least ``min_inliers`` of them and half the tokens.
    """

    step_mm: float = 1.0
    reach_mm: float = 10.0
    gap_mm: float = 0.5
    band_mm: float = 1.5
    min_contrast: float = 10.0
    inlier_mm: float = 1.5
    min_inliers: int = 6


@lru_cache(maxsize=16)
def _ring_kernels(inner_r_mm: float, config: TokenCentreConfig) -> tuple[np.ndarray, ...]:
    """Averaging kernels on the sample grid: the face disc (inside ``inner_r_mm - gap_mm``), then each quarter of
    the band outside it (a ring is coloured all round; a tile's edge beside a grey tower top only on one side).
    Shapes (k, k), float32, k odd."""
    outer = inner_r_mm + config.gap_mm + config.band_mm
    half = int(np.ceil(outer / config.step_mm))
    g = np.arange(-half, half + 1) * config.step_mm
    r = np.hypot(g[None, :], g[:, None])
    quarter = (np.floor((np.arctan2(g[:, None], g[None, :]) + np.pi) / (np.pi / 2.0)).astype(int)) % 4
    band = (r >= inner_r_mm + config.gap_mm) & (r <= outer)
    masks = [r <= inner_r_mm - config.gap_mm] + [band & (quarter == q) for q in range(4)]
    out = tuple((m / m.sum()).astype(np.float32) for m in masks)
    for k in out:
        k.flags.writeable = False
    return out


def _local_px(view: TableView, centres_mm: np.ndarray, z_mm: float, grid_mm: np.ndarray) -> np.ndarray:
    """Photo px of ``grid_mm`` (G, 2) around each centre (K, 2) on the plane ``z_mm``, through the projection's
    local affine map at each centre (three points projected per token; over the few centimetres of a token's
    window the perspective bends it by a fraction of a millimetre, below the search's step). Shape (K * G, 2)."""
    k = len(centres_mm)
    probe = np.concatenate([centres_mm, centres_mm + [1.0, 0.0], centres_mm + [0.0, 1.0]])
    p = view.mm_to_px(probe, z_mm).reshape(3, k, 2)
    jac = np.stack([p[1] - p[0], p[2] - p[0]], axis=2)                 # (K, 2, 2): columns d(px)/dx, d(px)/dy
    return (p[0][:, None, :] + np.matmul(grid_mm[None], jac.transpose(0, 2, 1))).reshape(-1, 2)


def token_centres(view: TableView, centres_mm: np.ndarray, z_mm: float, inner_r_mm: np.ndarray | list[float],
                  config: TokenCentreConfig = TokenCentreConfig()) -> tuple[np.ndarray, np.ndarray]:
    """Each token's centre found by its symbol's ring (module doc), for tokens at one height.

    Parameters
    ----------
    view : TableView
    centres_mm : ndarray, shape (K, 2)
        Where each token is expected (its tower's cell centre, table mm).
    z_mm : float
        Height of the tokens' top above the table.
    inner_r_mm : sequence of float, length K
        Radius of each token's face disc (its symbol's inner edge).

    Returns
    -------
    centres : ndarray, shape (K, 2)
        The found centres (table mm); the expected one where no ring stood out by ``min_contrast``.
    contrast : ndarray, shape (K,)
        The best ring's contrast (NaN: the window left the photo).
    """
    centres = np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2)
    radii = [float(r) for r in inner_r_mm]
    out, contrast = centres.copy(), np.full(len(centres), np.nan)
    if len(centres) == 0:
        return out, contrast
    pad = int(np.ceil((max(radii) + config.gap_mm + config.band_mm) / config.step_mm))
    n_reach = int(round(config.reach_mm / config.step_mm))
    half = n_reach + pad
    g = np.arange(-half, half + 1) * config.step_mm
    xx, yy = np.meshgrid(g, g)
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    px = _local_px(view, centres, z_mm, grid).astype(np.float32)
    rgb = sample(view.image_rgb, px, "nan", exact=False).astype(np.float32).reshape(len(centres), len(g), len(g), 3)
    r, g_, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    chroma = np.maximum(np.maximum(r, g_), b) - np.minimum(np.minimum(r, g_), b)
    whole = np.isfinite(chroma).all(axis=(1, 2))
    inner = slice(pad, pad + 2 * n_reach + 1)
    scores: dict[int, np.ndarray] = {}
    for radius in sorted(set(round(r, 2) for r in radii)):
        ks = [k for k in np.flatnonzero(whole) if round(radii[k], 2) == radius]
        if not ks:
            continue
        stack = np.ascontiguousarray(chroma[ks].reshape(-1, len(g)))   # the windows one above the other: the
        disc, *quarters = (cv2.filter2D(stack, -1, kern, borderType=cv2.BORDER_REPLICATE)   # nodes kept lie `pad`
                           .reshape(len(ks), len(g), len(g))[:, inner, inner]              # inside their own
                           for kern in _ring_kernels(radius, config))
        scores |= dict(zip(ks, np.min(quarters, axis=0) - disc, strict=True))
    for k, score in scores.items():
        i, j = np.unravel_index(int(np.argmax(score)), score.shape)
        contrast[k] = float(score[i, j])
        if contrast[k] >= config.min_contrast:
            out[k] = centres[k] + (np.array([j, i], dtype=np.float64) - n_reach) * config.step_mm
    return out, contrast


def corrected_centres(expected_mm: np.ndarray, found_mm: np.ndarray, contrast: np.ndarray,
                      config: TokenCentreConfig = TokenCentreConfig()) -> np.ndarray | None:
    """The tokens' centres once the board pose's error is taken out: one affine map of table mm, expected -> found,
    fitted to the tokens whose ring was found (``contrast >= min_contrast``), the worst-fitting one dropped and the
    map fitted again until every one kept lies within ``inlier_mm`` of it (a ring found on a tile's edge is one
    so dropped). A board pose off by a turn or a shift moves every token alike; one token's find is not trusted
    alone. None when fewer than ``min_inliers``, or than half the tokens, agree. Shapes (K, 2) in, (K, 2) out."""
    expected = np.asarray(expected_mm, dtype=np.float64).reshape(-1, 2)
    found = np.asarray(found_mm, dtype=np.float64).reshape(-1, 2)
    design = np.column_stack([expected, np.ones(len(expected))])
    keep = np.flatnonzero(np.nan_to_num(np.asarray(contrast, dtype=np.float64), nan=-1.0) >= config.min_contrast)
    need = max(config.min_inliers, int(np.ceil(0.5 * len(expected))))
    while len(keep) >= need:
        coef, *_ = np.linalg.lstsq(design[keep], found[keep], rcond=None)
        residual = np.linalg.norm(design[keep] @ coef - found[keep], axis=1)
        worst = int(np.argmax(residual))
        if residual[worst] <= config.inlier_mm:
            return design @ coef
        keep = np.delete(keep, worst)
    return None
