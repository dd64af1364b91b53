"""Reading Kaleido holes: a tile colour, or empty (the hole shows the table).

An empty hole shows the same table as the free table next to the boards, with the same texture;
a tile is uniform and close to one palette colour. So "empty" is a class of its own whose
examples are bare-table triangles sampled beside the boards, not a brightness threshold: a white
tile on a near-white table differs from it in colour only by a little, and then the confidence
says so.

A glossy tile under a lamp reflects the light itself (specular glare) on top of its own colour:
the camera sees ``a * tile + s * white`` (the dichromatic reflection model), brighter and paler
than the tile but of the same hue. Each colour tile is therefore also compared with its own
colour plus glare (fitted per hole in linear light), at a fixed cost; a white tile cannot explain
a hole's colour that way, so a washed-out green stays green, not white.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.colour import lab_to_linear, linear_to_srgb, rgb_to_lab  # the project's one sRGB <-> CIELAB conversion
from vision.view import sample

EMPTY = "empty"


@dataclass(frozen=True)
class CellConfig:
    """Tunables of the hole reader.

    Attributes
    ----------
    sample_inset_mm : float
        Samples stay this far inside the lattice lines (frame 2 mm + tile gap + alignment).
    subdivisions : int
        Barycentric grid density of the samples ((n+1)(n+2)/2 points per cell).
    min_valid_frac : float
        A table sample needs this fraction of its points inside the photo.
    lightness_weight : float
        Weight of L* against hue (light level varies more than hue).
    chroma_weight : float
        Weight of chroma against hue where a hole is more saturated than its reference (a camera's
        saturation boost varies more than hue).
    texture_weight : float
        Weight of the texture difference (MAD of L*) in the distances.
    tile_texture_max : float
        MAD of L* a tile may show (noise) before palette colours are penalised.
    table_neighbours, table_rank : int
        Of the ``table_neighbours`` bare-table examples nearest to a hole, the ``table_rank``-th
        closest in colour is the empty class's distance (follows the light across the table,
        robust to clutter on a few examples).
    neutral : str
        The palette colour a light table can look like (white).
    neutral_table_de, neutral_table_conf : float
        Where the local table is within ``neutral_table_de`` of that colour, white/empty readings
        get at most ``neutral_table_conf`` confidence.
    adapt_rate : float
        After a first pass each palette colour moves this fraction towards the cells read as it.
    adapt_max_de : float
        At most this far (delta E).
    adapt_min_conf : float
        Only cells read with at least this confidence move their colour.
    neutral_above_table_de : float
        A hole read as the neutral (white) tile or as empty whose L* stands at least this far above the
        median of its nearby bare-table examples is a witness of the neutral colour whatever its
        confidence: an empty hole shows that table, a white tile is the lightest thing on it. A phone's
        local tone mapping lifts the board area (its white tiles above paper white, the table seen
        through its empty holes above the bare table beside it, onto the printed white), a colour cast
        gives white tiles the table's own chroma: the photo's own clearly-lighter white tiles, not the
        printed colour, tell them apart.
    neutral_light_neighbours : int
        A witness must stand ``neutral_above_table_de`` above its table as lit where the hole is: light
        scales L* (nearly), so the nearby table's L* is scaled by how much lighter than their colour's median
        the ``neutral_light_neighbours`` coloured (non-neutral) tiles nearest to the hole are (never below
        1). A light patch or glare on the board lifts the table seen through an empty hole as it lifts the
        tiles around it; a white tile stands above its lit neighbours' table. 0 turns this off.
    neutral_lifted_rate : float
        Where at least two such holes exist, the neutral colour moves this fraction towards their median
        (only theirs; at most ``adapt_max_de``).
    scale_de, max_de : float
        Confidence = margin / (margin + scale_de) * exp(-best / max_de).
    min_sample_scale : float
        A small triangle's sample grid shrinks (for the inset) to no less than this fraction of it.
    sample_valid_min : float
        A sample point is inside the photo when the interpolated validity there exceeds this.
    glare_cost_de : float
        Added to a colour's distance when the hole is explained as that colour plus glare (delta E).
    glare_min_chroma : float
        The glare explanation is allowed only where the tile's own colour left in it is at least
        this chroma away from the neutral (white) tile: a white tile's tint is never a coloured tile.
    """

    sample_inset_mm: float = 7.0
    subdivisions: int = 6
    min_valid_frac: float = 0.9
    lightness_weight: float = 0.5
    chroma_weight: float = 0.5
    texture_weight: float = 1.0
    tile_texture_max: float = 3.0
    table_neighbours: int = 8
    table_rank: int = 2
    neutral: str = "white"
    neutral_table_de: float = 10.0
    neutral_table_conf: float = 0.45
    adapt_rate: float = 0.6
    adapt_max_de: float = 20.0
    adapt_min_conf: float = 0.4
    neutral_above_table_de: float = 10.0
    neutral_light_neighbours: int = 6
    neutral_lifted_rate: float = 1.0
    scale_de: float = 6.0
    max_de: float = 45.0
    min_sample_scale: float = 0.05
    sample_valid_min: float = 0.5
    glare_cost_de: float = 6.0
    glare_min_chroma: float = 18.0


@dataclass(frozen=True)
class CellFeatures:
    """Colour and texture of sampled triangles.

    Attributes
    ----------
    lab : ndarray, shape (T, 3)
        Median CIELAB of the normalised colours.
    texture : ndarray, shape (T,)
        Median absolute deviation of L*.
    valid : ndarray, shape (T,), bool
        Enough samples fell inside the photo.
    xy_mm : ndarray, shape (T, 2)
        Centroids, table mm.
    """

    lab: np.ndarray
    texture: np.ndarray
    valid: np.ndarray
    xy_mm: np.ndarray

    def __len__(self) -> int:
        return int(self.valid.sum())


def _sample_points(tris: np.ndarray, inset_mm: float, n: int, min_scale: float) -> np.ndarray:
    """Barycentric grid inside each triangle shrunk by ``inset_mm`` per side (to at least ``min_scale``
    of it), shape (T, P, 2)."""
    centroid = tris.mean(axis=1, keepdims=True)
    side = np.linalg.norm(tris[:, 1] - tris[:, 0], axis=1)
    inr = side / (2.0 * np.sqrt(3.0))
    scale = np.clip((inr - inset_mm) / np.maximum(inr, 1e-9), min_scale, 1.0)[:, None, None]
    small = centroid + (tris - centroid) * scale
    w = np.array([(i, j, n - i - j) for i in range(n + 1) for j in range(n + 1 - i)], dtype=np.float64) / n
    return np.einsum("pk,tkd->tpd", w, small)


def sample_cells(
    image_norm_valid: np.ndarray, origin_mm: tuple[float, float], mm_per_px: float, tris_mm: np.ndarray,
    config: CellConfig,
) -> CellFeatures:
    """Colour and texture inside triangles of a top-down view.

    Parameters
    ----------
    image_norm_valid : ndarray, shape (H, W, 4), float32
        Normalised RGB and, in channel 3, 1 where the view shows the photo.
    origin_mm : (x, y)
        Table position of pixel (0, 0).
    mm_per_px : float
    tris_mm : ndarray, shape (T, 3, 2)
    config : CellConfig

    Returns
    -------
    CellFeatures
    """
    tris = np.asarray(tris_mm, dtype=np.float64).reshape(-1, 3, 2)
    if len(tris) == 0:
        return CellFeatures(np.zeros((0, 3)), np.zeros(0), np.zeros(0, dtype=bool), np.zeros((0, 2)))
    pts = _sample_points(tris, config.sample_inset_mm, config.subdivisions, config.min_sample_scale)
    xy_px = (pts - np.asarray(origin_mm, dtype=np.float64)) / mm_per_px
    # colours replicate the view's border; its validity does not (a point off the view is not seen)
    chans = [sample(image_norm_valid[..., c], xy_px, border="zero" if c == 3 else "replicate", exact=False)
             for c in range(4)]
    rgb = np.stack(chans[:3], axis=-1)  # (T, P, 3)
    valid = (chans[3] > config.sample_valid_min).mean(axis=1) >= config.min_valid_frac
    lab = rgb_to_lab(rgb.reshape(-1, 3)).reshape(rgb.shape)
    med = np.median(lab, axis=1)
    tex = np.median(np.abs(lab[..., 0] - med[:, None, 0]), axis=1)
    return CellFeatures(lab=med, texture=tex, valid=valid, xy_mm=tris.mean(axis=1))


def _colour_distance(x: np.ndarray, y: np.ndarray, config: CellConfig) -> np.ndarray:
    """CIELAB difference of holes ``x`` from references ``y``, split into lightness, chroma and hue (as
    CIE94 does). Lightness is weighted down (the light level varies), and so is chroma where the hole is
    the more saturated (a phone's saturation boost, contrast stretching); a hole paler than its reference
    pays in full (paler through glare is the glare model's to explain, :func:`_glare_distance`).

    Parameters
    ----------
    x, y : ndarray, shape (..., 3), broadcastable

    Returns
    -------
    ndarray, shape (...)
    """
    dl = x[..., 0] - y[..., 0]
    dc = np.hypot(x[..., 1], x[..., 2]) - np.hypot(y[..., 1], y[..., 2])
    dh2 = np.maximum((x[..., 1] - y[..., 1]) ** 2 + (x[..., 2] - y[..., 2]) ** 2 - dc**2, 0.0)
    wc = np.where(dc > 0.0, config.chroma_weight, 1.0)
    return np.sqrt((config.lightness_weight * dl) ** 2 + (wc * dc) ** 2 + dh2)


def _palette_distance(lab: np.ndarray, tex: np.ndarray, refs: np.ndarray, config: CellConfig) -> np.ndarray:
    d = _colour_distance(lab[:, None, :], refs[None], config)
    return d + config.texture_weight * np.maximum(tex - config.tile_texture_max, 0.0)[:, None]


def _glare_distance(cells: CellFeatures, refs: np.ndarray, neutral: int | None, config: CellConfig) -> np.ndarray:
    """Distance of each hole to each colour tile seen through specular glare, shape (T, K).

    Per hole and colour, ``a * colour + s * white`` (a, s > 0; linear light, white = the neutral
    tile's reference, which carries the light's tint) is fitted by least squares; the distance is the
    weighted CIELAB distance to that fit plus ``glare_cost_de``. Infinite where the fit needs no glare
    or a negative amount of the colour, where too little of the colour is left (``glare_min_chroma``),
    and for the neutral tile itself.
    """
    out = np.full((len(cells.lab), len(refs)), np.inf)
    if neutral is None or len(cells.lab) == 0:
        return out
    o = lab_to_linear(cells.lab)  # (T, 3)
    P = lab_to_linear(refs)  # (K, 3)
    W = P[neutral]
    ks = np.array([k for k in range(len(refs)) if k != neutral])
    gram = np.stack([np.stack([np.einsum("kc,kc->k", P[ks], P[ks]), P[ks] @ W], axis=1),
                     np.stack([P[ks] @ W, np.full(len(ks), W @ W)], axis=1)], axis=1)  # (K', 2, 2)
    solvable = np.abs(np.linalg.det(gram)) > 1e-12
    ks, gram = ks[solvable], gram[solvable]
    if len(ks) == 0:
        return out
    rhs = np.stack([o @ P[ks].T, np.broadcast_to((o @ W)[:, None], (len(o), len(ks)))], axis=2)  # (T, K', 2)
    amounts = np.einsum("kij,tkj->tki", np.linalg.inv(gram), rhs)  # (T, K', 2): colour, glare
    fit = amounts[..., :1] * P[ks][None] + amounts[..., 1:] * W  # (T, K', 3)
    fit_lab = rgb_to_lab(linear_to_srgb(fit.reshape(-1, 3))).reshape(fit.shape)
    left = np.hypot(fit_lab[..., 1] - refs[neutral, 1], fit_lab[..., 2] - refs[neutral, 2])
    ok = (amounts[..., 0] > 0) & (amounts[..., 1] > 0) & (left >= config.glare_min_chroma)
    w = np.array([config.lightness_weight, 1.0, 1.0])
    rough = config.texture_weight * np.maximum(cells.texture - config.tile_texture_max, 0.0)
    d = np.linalg.norm((cells.lab[:, None, :] - fit_lab) * w, axis=2) + rough[:, None] + config.glare_cost_de
    out[:, ks] = np.where(ok, d, np.inf)
    return out


def _empty_distance(cells: CellFeatures, table: CellFeatures, config: CellConfig) -> tuple[np.ndarray, np.ndarray]:
    """Distance of each hole to the bare table near it, and that table's local colour.

    Light varies across a table, so only the ``table_neighbours`` examples nearest to the hole
    count; clutter (a hand, a cup) may cover some of them, so the distance is the
    ``table_rank``-th smallest among those.

    Returns
    -------
    distance : ndarray, shape (T,)
    local_lab : ndarray, shape (T, k, 3)
        Colours of the nearby table examples.
    """
    if len(table) == 0:
        return np.full(len(cells.lab), np.inf), np.full((len(cells.lab), 1, 3), np.nan)
    t_lab = table.lab[table.valid]
    t_tex = table.texture[table.valid]
    t_xy = table.xy_mm[table.valid]
    k = min(config.table_neighbours, len(t_lab))
    near = np.argsort(np.linalg.norm(cells.xy_mm[:, None] - t_xy[None], axis=2), axis=1)[:, :k]  # (T, k)
    d = _colour_distance(cells.lab[:, None, :], t_lab[near], config)
    d = np.sqrt(d**2 + (config.texture_weight * (cells.texture[:, None] - t_tex[near])) ** 2)
    r = min(config.table_rank, k) - 1
    return np.partition(d, r, axis=1)[:, r], t_lab[near]


def _local_light_gain(
    cells: CellFeatures, idx: np.ndarray, conf: np.ndarray, neutral: int, n_colours: int, config: CellConfig
) -> np.ndarray:
    """How much more light falls on each hole than on the board at large.

    Each coloured (non-neutral) tile read with at least ``adapt_min_conf`` confidence is compared with the
    median L* of the tiles read as its colour (its L* over that median); a hole's gain is the median of
    those ratios over the ``neutral_light_neighbours`` such tiles nearest to it, never below 1.

    Returns
    -------
    gain : ndarray, shape (T,)
        L* ratio; 1 where fewer than ``neutral_light_neighbours`` coloured tiles were read.
    """
    gain = np.ones(len(idx))
    coloured = (idx != neutral) & (idx < n_colours) & (conf >= config.adapt_min_conf)
    k = config.neutral_light_neighbours
    if k <= 0 or coloured.sum() < k:
        return gain
    ratio = np.ones(len(idx))
    for c in np.unique(idx[coloured]):
        same = coloured & (idx == c)
        ratio[same] = cells.lab[same, 0] / max(float(np.median(cells.lab[same, 0])), 1.0)
    xy = cells.xy_mm[coloured]
    near = np.argsort(np.linalg.norm(cells.xy_mm[:, None] - xy[None], axis=2), axis=1)[:, :k]  # (T, k)
    return np.maximum(np.median(ratio[coloured][near], axis=1), 1.0)


def _decide(dist: np.ndarray, config: CellConfig) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(dist, axis=1)
    rows = np.arange(len(dist))
    best = dist[rows, order[:, 0]]
    second = dist[rows, order[:, 1]] if dist.shape[1] > 1 else np.full(len(dist), np.inf)
    margin = np.where(np.isfinite(second), second - best, 1e6)
    conf = margin / (margin + config.scale_de) * np.exp(-best / config.max_de)
    return order[:, 0], np.clip(conf, 0.0, 1.0)


@dataclass(frozen=True)
class CellReadings:
    """What the holes hold.

    Attributes
    ----------
    names : list[str], length T
        A palette colour or ``"empty"``.
    confidence : ndarray, shape (T,), in [0, 1]
        Of the name, against every other colour and empty.
    tile_confidence : ndarray, shape (T,), in [0, 1]
        That the hole holds a tile, whichever colour, rather than showing the table (0 where it was read
        empty).
    """

    names: list[str]
    confidence: np.ndarray
    tile_confidence: np.ndarray


def read_cells(
    cells: CellFeatures, table: CellFeatures, palette_rgb: dict[str, tuple[float, float, float]], config: CellConfig
) -> CellReadings:
    """Name each hole: a palette colour or ``"empty"``.

    Parameters
    ----------
    cells : CellFeatures
        The holes.
    table : CellFeatures
        Bare-table triangles beside the boards (examples of "empty").
    palette_rgb : dict[str, (r, g, b)]
        Tile colours, 0-255 sRGB, on the paper-white scale (a profile may register its own).
    config : CellConfig

    Returns
    -------
    CellReadings
    """
    names = list(palette_rgb)
    refs = rgb_to_lab(np.array([palette_rgb[n] for n in names], dtype=np.float64) / 255.0)
    d_empty, local_table = _empty_distance(cells, table, config)
    neutral = names.index(config.neutral) if config.neutral in names else None
    table_l = np.nan_to_num(np.median(local_table[..., 0], axis=1), nan=np.inf)  # (T,), nearby table's L*
    idx, conf = None, None
    for _ in range(2):
        tile = np.minimum(_palette_distance(cells.lab, cells.texture, refs, config),
                          _glare_distance(cells, refs, neutral, config))
        dist = np.concatenate([tile, d_empty[:, None]], axis=1)
        idx, conf = _decide(dist, config)
        new = refs.copy()
        gain = _local_light_gain(cells, idx, conf, -1 if neutral is None else neutral, len(names), config)
        lifted = cells.lab[:, 0] - gain * table_l >= config.neutral_above_table_de
        for k in range(len(names)):
            sel, rate = (idx == k) & (conf >= config.adapt_min_conf), config.adapt_rate
            witness = lifted & np.isin(idx, [k, len(names)])
            if k == neutral and witness.sum() >= 2:
                # the white tiles that stand clearly above the table are its witnesses, not the doubtful ones
                sel, rate = witness, config.neutral_lifted_rate
            if sel.sum() >= 2:
                step = rate * (np.median(cells.lab[sel], axis=0) - refs[k])
                norm = np.linalg.norm(step)
                if norm > config.adapt_max_de:
                    step *= config.adapt_max_de / norm
                new[k] = refs[k] + step
        refs = new
    out = [names[i] if i < len(names) else EMPTY for i in idx]
    # a tile of any colour against the bare table: sure even where the colour is in doubt
    is_tile, tile_conf = _decide(np.stack([tile.min(axis=1), d_empty], axis=1), config)
    tile_conf = np.where(is_tile == 0, tile_conf, 0.0)
    if config.neutral in names:
        # a table that looks like the neutral (white) tile: colour cannot tell a white tile from an
        # empty hole there, so such readings are never sure
        w = np.array([config.lightness_weight, 1.0, 1.0])
        k = names.index(config.neutral)
        dw = np.linalg.norm((local_table - refs[k]) * w, axis=2)  # (T, k)
        r = min(config.table_rank, dw.shape[1]) - 1
        alike = np.partition(dw, r, axis=1)[:, r] < config.neutral_table_de
        if len(table):
            overall = np.median(table.lab[table.valid], axis=0)
            alike |= np.linalg.norm((overall - refs[k]) * w) < config.neutral_table_de
        torn = np.isin(idx, [k, len(names)]) & alike
        conf = np.where(torn, np.minimum(conf, config.neutral_table_conf), conf)
        tile_conf = np.where(torn, np.minimum(tile_conf, config.neutral_table_conf), tile_conf)
    return CellReadings(out, conf, tile_conf)


def classify_cells(
    cells: CellFeatures, table: CellFeatures, palette_rgb: dict[str, tuple[float, float, float]], config: CellConfig
) -> tuple[list[str], np.ndarray]:
    """Name each hole: a palette colour or ``"empty"`` (:func:`read_cells`, its names and confidences).

    Returns
    -------
    names : list[str], length T
    confidences : ndarray, shape (T,), in [0, 1]
    """
    r = read_cells(cells, table, palette_rgb, config)
    return r.names, r.confidence
