"""A Genial Spezial token's value from its numeral: one binary decision per token once its side is known.

A token carries its value as a numeral (DejaVu Sans Bold, 6.6 mm font size, about 4.8 mm tall) at its centre, on a
face-coloured disc inside the symbol: black on the light side (1 or 2), white on the dark side (2 or 3). At
1280 x 960 the numeral is 4-7 photo pixels tall, so the reader compares the two candidate digits where they would
look the same as the photo:

1. the token top is sampled rectified (``mm_per_px``, finer than the photo: the photo's own pixels are bilinearly
   interpolated) on a window around the tower's centre at the token's height, as linear-light luminance (a colour
   cast or an exposure scales it; normalised correlation ignores gain and offset); the dark side's white ink and
   the light side's black ink are both made the bright signal;
2. each candidate digit is rendered from its outline (``components/genial_numerals.json``) at every
   ``rotation_step_deg`` (a token lies at any turn), anti-aliased, then blurred as the photo blurs it there: the
   photo's blur (photo px) mapped into token millimetres through the local Jacobian of the projection (a tilted
   camera blurs across its tilt more);
3. every candidate is correlated (normalised, inside a disc of ``window_r_mm``) with the sample shifted up to
   ``search_mm`` each way (the token's offset on its tower and the board pose's error), once what a plain face and
   the symbol around it explain is set aside (the symbol's inner edge rings the numeral's face disc, blurred into
   the window);
4. the digit whose best correlation is higher is the value; when the two best correlations lie within
   ``min_margin`` of each other (more when the photo is blurrier, and more when the photo's numerals fit their
   templates worse: :func:`with_fit_residual`), the value is doubtful.

The photo's blur (:func:`photo_blur`) is measured once per photo on the markers' printed edges, as an ellipse in
photo px (a shaking hand blurs one way), and mapped to each token through the projection's Jacobian there.

Pure functions of arrays (the sampling is :func:`sample_luminance` with a :class:`~vision.view.TableView`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from calibration.markers import MarkerLayout
from components import DEFAULT_PATH
from vision.view import TableView, sample, srgb_to_linear

NUMERALS_PATH = DEFAULT_PATH.with_name("genial_numerals.json")
_LUMA = np.array([0.2126, 0.7152, 0.0722])


@dataclass(frozen=True)
class NumeralConfig:
    """Tunables of the numeral reader (mm unless said).

    Attributes
    ----------
    mm_per_px : float
        Spacing of the rectified samples and of the rendered templates.
    window_r_mm : float
        Radius of the disc compared (the numeral reaches about 3 mm from the token's centre at any turn; the
        symbol's inner edge lies 3.9-4.9 mm out).
    search_mm : float
        The numeral is searched this far each way from the tower's centre.
    rotation_step_deg : float
        Turns of the templates.
    default_blur_px : float
        The photo's blur (Gaussian sigma, photo px) when the markers' edges cannot measure it.
    blur_limits_px : (float, float)
        The measured blur's axes are kept within these.
    edge_reach_px : float
        The markers' edges are profiled this far each way (their black border is about 6 px wide at 1280 x 960).
    min_margin, margin_blur_mm : float
        Best correlations of the two candidates closer than ``min_margin``, or than ``min_margin * (b /
        margin_blur_mm)**2`` where the photo's blur at the token along its longest axis, ``b`` mm, is larger: the
        value is doubtful (a blurrier numeral leaves less between the two digits, so the same margin says less).
    residual_ref, residual_power : float
        ... and times ``(r / residual_ref)**residual_power`` where the photo's numerals fit their best templates
        worse than this: ``r`` the median of 1 - best correlation over the numerals compared on the photo (and the
        other photo of the same camera; :func:`fit_residual`). Noise, compression and a tone curve the templates
        do not model (a dim webcam: r 0.05-0.35; a clean photo 0.03-0.05) lower every fit and make the runner-up
        digit win by chance as often as by shape, which the blur alone does not tell (the tune sets as rendered
        and under ``tools/device_sim.py --device webcam``: ``min_margin`` 0.012 with this keeps every webcam misread
        of a numeral doubtful, with half a margin to spare, and reads 98 % of the numerals as rendered).
    """

    mm_per_px: float = 0.25
    window_r_mm: float = 3.4
    search_mm: float = 2.0
    rotation_step_deg: float = 15.0
    default_blur_px: float = 0.8
    blur_limits_px: tuple[float, float] = (0.3, 3.0)
    edge_reach_px: float = 3.0
    min_margin: float = 0.012
    margin_blur_mm: float = 0.6
    residual_ref: float = 0.04
    residual_power: float = 3.0


@dataclass(frozen=True)
class NumeralRead:
    """One token's numeral as read.

    Attributes
    ----------
    value : int
        The candidate that fits best.
    other : int
        The other candidate of the side.
    score, other_score : float
        Their best zero-mean normalised correlations (-1..1).
    rotation_deg : float
        Turn of the best template.
    offset_mm : (float, float)
        Where its centre lies from the tower's centre (table mm).
    blur_mm : float
        The photo's blur at the token along its longest axis (Gaussian sigma, token mm).
    needed : float
        The margin a sure reading needs at this blur (``min_margin`` scaled), and at the photo's fit residual
        once :func:`with_fit_residual` has taken it.
    fit_residual : float or None
        The photo's fit residual taken (None: not yet).
    other_rotation_deg : float
        Turn of the other candidate's best template.
    other_offset_mm : (float, float)
        Where the other candidate's best template's centre lies from the tower's centre (table mm).
    learned_value : int or None
        The learned reader's value (:mod:`vision.genial_numeral_model`; None: not asked).
    learned_sure : bool
        The learned reader is sure of ``learned_value`` by itself (its calibrated confidence).
    learned_confidence : float
        Its confidence (0..2).
    agreed_fraction : float
        Where the learned reader agrees with the templates, the fraction of ``needed`` the templates' margin must
        reach (the model's calibration: two readers that look differently agreeing are surer than either).

    A read is sure (:attr:`sure`) only where the learned reader, when asked, agrees with ``value``, and then when
    the learned reader is sure by itself or the templates' margin reaches ``agreed_fraction * needed``
    (:func:`with_learned` puts a value the learned reader is sure of first). Where they disagree the value stays
    the template's and is doubtful.
    """

    value: int
    other: int
    score: float
    other_score: float
    rotation_deg: float
    offset_mm: tuple[float, float]
    blur_mm: float = 0.0
    needed: float = 0.0
    fit_residual: float | None = None
    other_rotation_deg: float = 0.0
    other_offset_mm: tuple[float, float] = (0.0, 0.0)
    learned_value: int | None = None
    learned_sure: bool = False
    learned_confidence: float = 0.0
    agreed_fraction: float = 1.0

    @property
    def margin(self) -> float:
        return self.score - self.other_score

    @property
    def best_score(self) -> float:
        """The better of the two candidates' template fits (whichever :attr:`value` is)."""
        return max(self.score, self.other_score)

    @property
    def template_sure(self) -> bool:
        return self.margin >= self.needed

    @property
    def sure(self) -> bool:
        if self.learned_value is None:
            return self.template_sure
        return self.learned_value == self.value and (
            self.learned_sure or self.margin >= self.agreed_fraction * self.needed)


def with_learned(read: NumeralRead, value: int, sure: bool, confidence: float,
                 agreed_fraction: float = 1.0) -> NumeralRead:
    """The read with the learned reader's answer taken (class doc): a value it is sure of comes first (the
    template's fits and poses swapped with it), any other leaves the template's value first."""
    out = replace(read, learned_value=int(value), learned_sure=bool(sure), learned_confidence=float(confidence),
                  agreed_fraction=float(agreed_fraction))
    if sure and value == read.other:
        out = replace(out, value=read.other, other=read.value, score=read.other_score, other_score=read.score,
                      rotation_deg=read.other_rotation_deg, offset_mm=read.other_offset_mm,
                      other_rotation_deg=read.rotation_deg, other_offset_mm=read.offset_mm)
    return out


@lru_cache(maxsize=1)
def numeral_outlines() -> dict[str, tuple[np.ndarray, ...]]:
    """Each digit's outline polygons (token mm, x right, y down, origin the token's centre), shapes (K, 2)."""
    doc = json.loads(NUMERALS_PATH.read_text(encoding="utf-8"))
    return {d: tuple(np.asarray(p, dtype=np.float64) for p in polys) for d, polys in doc["digits"].items()}


def candidates(dark: bool) -> tuple[int, int]:
    """The two values a side can show: light 1 or 2, dark 2 or 3."""
    return (2, 3) if dark else (1, 2)


def _grid_sizes(config: NumeralConfig) -> tuple[int, int]:
    """Side of the compared window and of the sampled one (samples)."""
    n_t = int(round(2 * config.window_r_mm / config.mm_per_px)) | 1
    n_s = int(round(config.search_mm / config.mm_per_px))
    return n_t, n_t + 2 * n_s


@lru_cache(maxsize=16)
def _sharp_templates(digit: str, n_px: int, mm_per_px: float, step_deg: float) -> np.ndarray:
    """The digit filled (anti-aliased, 8x supersampled) at every turn, coverage 0..1, shape (R, n_px, n_px)."""
    ss = 8
    out = []
    for th in np.arange(0.0, 360.0, step_deg):
        a = np.radians(th)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        img = np.zeros((n_px * ss, n_px * ss), np.uint8)
        polys = [np.round(((p @ rot.T) / mm_per_px + n_px / 2.0) * ss * 16).astype(np.int32)
                 for p in numeral_outlines()[digit]]
        cv2.fillPoly(img, polys, 255, cv2.LINE_AA, shift=4)
        out.append(cv2.resize(img.astype(np.float32) / 255.0, (n_px, n_px), interpolation=cv2.INTER_AREA))
    arr = np.stack(out)
    arr.flags.writeable = False
    return arr


def _blurred(sharp: np.ndarray, cov_px: np.ndarray) -> np.ndarray:
    """Templates (R, n, n) blurred by a Gaussian of covariance ``cov_px`` (2, 2; template px, x then y), in one
    batched FFT (padded so that nothing wraps)."""
    n = sharp.shape[-1]
    pad = int(np.ceil(3.0 * np.sqrt(max(float(np.max(np.diag(cov_px))), 1e-6))))
    m = cv2.getOptimalDFTSize(n + 2 * pad)
    big = np.zeros((len(sharp), m, m), np.float64)
    big[:, pad:pad + n, pad:pad + n] = sharp
    fy = np.fft.fftfreq(m)[:, None]
    fx = np.fft.rfftfreq(m)[None, :]
    quad = cov_px[0, 0] * fx ** 2 + 2.0 * cov_px[0, 1] * fx * fy + cov_px[1, 1] * fy ** 2
    out = np.fft.irfft2(np.fft.rfft2(big) * np.exp(-2.0 * np.pi ** 2 * quad), s=(m, m))
    return out[:, pad:pad + n, pad:pad + n]


@lru_cache(maxsize=256)
def _unit_templates(digit: str, cov_key: tuple[float, float, float], inner_r_mm: float | None,
                    config: NumeralConfig) -> np.ndarray:
    """The digit's templates at every turn, blurred by the covariance ``cov_key`` (template px\u00b2: xx, xy, yy,
    rounded so that tokens seen alike share them), inside the compared disc, less what the symbol's blurred inner
    edge explains (:func:`_nuisance`), unit length. Shape (turns, P), float32."""
    out = _unit(_residual(_blurred_in_disc(digit, cov_key, config), _nuisance(cov_key, inner_r_mm, config)))
    out.flags.writeable = False
    return out


@lru_cache(maxsize=64)
def _blurred_in_disc(digit: str, cov_key: tuple[float, float, float], config: NumeralConfig) -> np.ndarray:
    """The digit's templates at every turn blurred by the covariance ``cov_key``, inside the compared disc: shared
    by the tokens of every symbol (:func:`_unit_templates` takes each symbol's inner edge out of them; a photo's
    tokens of one height share a key). Shape (turns, P), float64."""
    n_t, _ = _grid_sizes(config)
    sharp = _sharp_templates(digit, n_t, config.mm_per_px, config.rotation_step_deg)
    out = _blurred(sharp, _cov(cov_key))[:, _disc(config)]
    out.flags.writeable = False
    return out


def _cov(key: tuple[float, float, float]) -> np.ndarray:
    return np.array([[key[0], key[1]], [key[1], key[2]]])


@lru_cache(maxsize=64)
def _nuisance(cov_key: tuple[float, float, float], inner_r_mm: float | None, config: NumeralConfig) -> np.ndarray:
    """An orthonormal basis (P, K) of what the compared disc may show besides the numeral: a constant (the face)
    and, when the symbol's inner radius is known, the symbol seen beyond it (it rings the face disc the numeral
    sits on, centred with it) blurred as the photo blurs it. Shape (P, 1) or (P, 2), float32."""
    disc = _disc(config)
    cols = [np.ones(int(disc.sum()))]
    if inner_r_mm is not None:
        n_t, _ = _grid_sizes(config)
        g = (np.arange(n_t) - (n_t - 1) / 2.0) * config.mm_per_px
        beyond = ((g[None, :] ** 2 + g[:, None] ** 2) > inner_r_mm ** 2).astype(np.float64)
        cols.append(_blurred(beyond[None], _cov(cov_key))[0][disc])
    q, _ = np.linalg.qr(np.column_stack(cols))
    return q.astype(np.float32)


def _residual(rows: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """Rows (N, P) less their projection on the orthonormal ``basis`` (P, K)."""
    rows = np.asarray(rows, dtype=np.float32)
    return rows - (rows @ basis) @ basis.T


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.maximum(np.sqrt(np.einsum("ij,ij->i", rows, rows))[:, None], np.float32(1e-12))


def _cov_key(cov_px: np.ndarray) -> tuple[float, float, float]:
    """A blur covariance (2, 2; template px\u00b2) rounded to 1/4 px\u00b2 (xx, xy, yy): the templates' cache key."""
    xx, xy, yy = np.round(np.array([cov_px[0, 0], cov_px[0, 1], cov_px[1, 1]]) * 4.0) / 4.0
    return float(xx), float(xy), float(yy)


def _disc(config: NumeralConfig) -> np.ndarray:
    """The compared disc on the template grid, shape (n_t, n_t) bool."""
    n_t, _ = _grid_sizes(config)
    g = (np.arange(n_t) - (n_t - 1) / 2.0) * config.mm_per_px
    return (g[None, :] ** 2 + g[:, None] ** 2) <= config.window_r_mm ** 2


def sample_luminance(view: TableView, centre_mm: np.ndarray, z_mm: float,
                     config: NumeralConfig = NumeralConfig()) -> tuple[np.ndarray, np.ndarray]:
    """Linear-light luminance of the photo on the token's search window (table mm rows = y, columns = x), NaN
    outside the photo, shape (n, n); and the photo px per table mm there (columns d(px)/dx, d(px)/dy), shape (2, 2).
    """
    lum, jac = sample_luminances(view, np.asarray(centre_mm, dtype=np.float64).reshape(1, 2), z_mm, config)
    return lum[0], jac[0]


def sample_luminances(view: TableView, centres_mm: np.ndarray, z_mm: float,
                      config: NumeralConfig = NumeralConfig()) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sample_luminance` of several tokens at one height (centres (K, 2) table mm) in one projection and
    one sampling pass: windows (K, n, n) and Jacobians (K, 2, 2)."""
    _, n = _grid_sizes(config)
    g = (np.arange(n) - (n - 1) / 2.0) * config.mm_per_px
    xx, yy = np.meshgrid(g, g)
    grid = np.vstack([np.column_stack([xx.ravel(), yy.ravel()]), [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]])
    centres = np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2)
    k, m = len(centres), len(grid)
    all_px = view.mm_to_px((grid[None] + centres[:, None, :]).reshape(-1, 2), z_mm).reshape(k, m, 2)
    e = all_px[:, -3:]
    jacobians = np.stack([e[:, 1] - e[:, 0], e[:, 2] - e[:, 0]], axis=2)      # (K, 2, 2): columns d/dx, d/dy
    px = all_px[:, :-3].astype(np.float32).reshape(k, n, n, 2)
    rgb = sample(view.image_rgb, px, "nan", exact=False)  # NaN outside the photo
    return srgb_to_linear(rgb / 255.0) @ _LUMA, jacobians


def photo_blur(view: TableView, layout: MarkerLayout, config: NumeralConfig = NumeralConfig()) -> np.ndarray:
    """The photo's blur, measured on the markers' outer edges (black square on white paper, as sharp as print):
    the spread of each edge's derivative across it, in photo px, gives the blur along that edge's normal; an
    ellipse (covariance) is fitted to the sides' normals (a shake blurs one way more). It includes everything the
    numeral reader's samples go through (lens, demosaicing, JPEG, the pixels' own size and the bilinear samples).
    Every side of every marker is projected and sampled in one pass.

    Returns
    -------
    ndarray, shape (2, 2)
        Covariance in photo px\u00b2 (x, y); ``default_blur_px`` isotropic when no edge could be measured.
    """
    sides = _marker_sides_mm(view, layout)
    if len(sides) == 0:
        return np.eye(2) * config.default_blur_px ** 2
    steps = np.arange(-config.edge_reach_px, config.edge_reach_px + 1e-9, 0.25)
    along = np.linspace(0.2, 0.8, 9)
    a, b, out = sides[:, 0], sides[:, 1], sides[:, 2]                          # (S, 2) each
    pts = a[:, None, :] + along[None, :, None] * (b - a)[:, None, :]         # (S, A, 2) on each side
    n_s, n_a = pts.shape[:2]
    flat = pts.reshape(-1, 2)
    px = view.mm_to_px(np.vstack([flat, flat + np.repeat(out, n_a, axis=0)]), 0.0)
    base, tip = px[:len(flat)], px[len(flat):]
    normal = tip - base
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    prof = _luminance_at(view, base[:, None, :] + steps[None, :, None] * normal[:, None, :])   # (S*A, steps)
    normal, spread = normal.reshape(n_s, n_a, 2), _edge_spreads(prof).reshape(n_s, n_a)
    rows, sig2 = [], []
    for k in range(n_s):
        widths = spread[k][np.isfinite(spread[k])]
        if len(widths) >= n_a // 2:
            u = normal[k].mean(axis=0) / np.linalg.norm(normal[k].mean(axis=0))
            rows.append([u[0] ** 2, 2.0 * u[0] * u[1], u[1] ** 2])
            sig2.append(float(np.median(widths)))
    if len(rows) < 3:
        return np.eye(2) * config.default_blur_px ** 2
    (xx, xy, yy), *_ = np.linalg.lstsq(np.array(rows), np.array(sig2), rcond=None)
    vals, vecs = np.linalg.eigh(np.array([[xx, xy], [xy, yy]]))
    lo, hi = config.blur_limits_px
    return (vecs * np.clip(vals, lo ** 2, hi ** 2)) @ vecs.T


def _marker_sides_mm(view: TableView, layout: MarkerLayout) -> np.ndarray:
    """Every side of every marker the calibration found: (start, end, outward unit normal), table mm, shape
    (S, 3, 2)."""
    cal = view.calibration
    ids = [int(i) for i in getattr(cal, "marker_ids", ()) if int(i) in layout.centres_mm]
    sides = []
    for i in ids:
        rot = np.radians(getattr(cal, "marker_rot_deg", {}).get(i, 0.0))
        r = np.array([[np.cos(rot), -np.sin(rot)], [np.sin(rot), np.cos(rot)]])
        centre = np.asarray(layout.centres_mm[i], dtype=np.float64)
        corners = centre + (layout.corners_mm(i) - centre) @ r.T
        for k in range(4):
            a, b = corners[k], corners[(k + 1) % 4]
            mid = (a + b) / 2.0
            sides.append([a, b, (mid - centre) / np.linalg.norm(mid - centre)])
    return np.asarray(sides, dtype=np.float64).reshape(-1, 3, 2)


def _luminance_at(view: TableView, px: np.ndarray) -> np.ndarray:
    """Linear-light luminance of the photo at photo points (..., 2), bilinear, edges replicated."""
    rgb = sample(view.image_rgb, px.astype(np.float32), "replicate", exact=False)
    return srgb_to_linear(rgb / 255.0) @ _LUMA


def _edge_spreads(profiles: np.ndarray, step_px: float = 0.25, min_contrast: float = 0.05) -> np.ndarray:
    """Variance (px\u00b2) of a dark-to-bright edge's derivative along each profile (rows of ``profiles``, shape
    (N, L), sampled every ``step_px``), shape (N,); NaN where a profile shows no clear edge (a hand, glare, the
    photo's border)."""
    d = np.clip(np.diff(profiles, axis=1), 0.0, None)
    total = d.sum(axis=1)
    clear = (profiles[:, -1] - profiles[:, 0] >= min_contrast) & np.all(np.isfinite(profiles), axis=1) & (total > 0)
    d, total = d[clear], total[clear]
    x = np.arange(d.shape[1]) * step_px
    m = (d * x).sum(axis=1) / total
    out = np.full(len(profiles), np.nan)
    out[clear] = (d * (x - m[:, None]) ** 2).sum(axis=1) / total
    return out


def token_blur_mm2(jacobian_px_per_mm: np.ndarray, blur_cov_px: np.ndarray | None,
                   config: NumeralConfig = NumeralConfig()) -> np.ndarray:
    """The photo's blur (covariance, photo px\u00b2; ``default_blur_px`` when None) seen on a token: mapped into
    token mm\u00b2 through the Jacobian of the projection there (photo px per table mm, (2, 2)). Shape (2, 2)."""
    blur = np.eye(2) * config.default_blur_px ** 2 if blur_cov_px is None else np.asarray(blur_cov_px)
    inv = np.linalg.inv(jacobian_px_per_mm)
    return inv @ blur @ inv.T


def read_numeral(luminance: np.ndarray, dark: bool, jacobian_px_per_mm: np.ndarray,
                 blur_cov_px: np.ndarray | None = None, inner_r_mm: float | None = None,
                 config: NumeralConfig = NumeralConfig(), template_blur_mm2: np.ndarray | None = None
                 ) -> NumeralRead | None:
    """The value a token's numeral shows, between the two of its side.

    Parameters
    ----------
    luminance : ndarray, shape (n, n)
        :func:`sample_luminance` of the token (linear light).
    dark : bool
        The side showing (white ink on black, else black ink on the pale face).
    jacobian_px_per_mm : ndarray, shape (2, 2)
        Photo px per table mm at the token (:func:`sample_luminance`): turns the photo's blur into token mm.
    blur_cov_px : ndarray, shape (2, 2), optional
        The photo's blur (covariance, photo px\u00b2; :func:`photo_blur`); ``default_blur_px`` when None.
    inner_r_mm : float, optional
        Radius of the face disc the numeral sits on (the symbol's inner edge; components: sun 4.3, ring 4.6,
        hexagon 4.9, flower 3.9 mm): what the symbol's blurred edge adds to the window is set aside.
    template_blur_mm2 : ndarray, shape (2, 2), optional
        The blur (token mm\u00b2) the templates are made with, when the tokens of one photo at one height share
        them (:func:`shared_blur_mm2`); default this token's own (:func:`token_blur_mm2`). The margin a sure
        reading needs is always this token's own.

    Returns
    -------
    NumeralRead, or None when part of the window lies outside the photo.
    """
    n_t, n = _grid_sizes(config)
    if luminance.shape != (n, n) or not np.all(np.isfinite(luminance)):
        return None
    signal = (luminance if dark else -luminance).astype(np.float32)     # the ink is the bright signal
    windows = np.lib.stride_tricks.sliding_window_view(signal, (n_t, n_t)).reshape(-1, n_t, n_t)[:, _disc(config)]
    blur_mm2 = token_blur_mm2(jacobian_px_per_mm, blur_cov_px, config)   # the photo's blur in token mm\u00b2
    shared = blur_mm2 if template_blur_mm2 is None else np.asarray(template_blur_mm2)
    key = _cov_key(shared / config.mm_per_px ** 2)                 # ... in template px\u00b2
    blur_mm = float(np.sqrt(np.linalg.eigvalsh(blur_mm2)[-1]))     # along its longest axis (a shake)
    needed = config.min_margin * max(1.0, (blur_mm / config.margin_blur_mm) ** 2)
    inner = None if inner_r_mm is None else round(float(inner_r_mm), 2)
    w_unit = _unit(_residual(windows, _nuisance(key, inner, config)))
    best = []
    for value in candidates(dark):
        t_unit = _unit_templates(str(value), key, inner, config)
        ncc = (w_unit @ t_unit.T).T                     # (turns, shifts); this order is ~3x faster in BLAS
        r, s = np.unravel_index(int(np.argmax(ncc)), ncc.shape)
        side = n - n_t + 1
        shift = (np.array([s % side, s // side]) - (side - 1) / 2.0) * config.mm_per_px
        turn = float(r * config.rotation_step_deg)
        best.append((float(ncc[r, s]), value, turn, (float(shift[0]), float(shift[1]))))
    (s_a, v_a, rot_a, off_a), (s_b, v_b, rot_b, off_b) = sorted(best, reverse=True)
    return NumeralRead(v_a, v_b, s_a, s_b, rot_a, off_a, blur_mm, needed, other_rotation_deg=rot_b,
                       other_offset_mm=off_b)


def fit_residual(reads: Iterable[NumeralRead | None]) -> float | None:
    """How badly a photo's numerals fit their best templates: the median of 1 - best correlation over ``reads``
    (the numerals compared on one photo, or on the photos of one camera); None when none was compared."""
    misfits = [1.0 - r.best_score for r in reads if r is not None]
    return float(np.median(misfits)) if misfits else None


def with_fit_residual(read: NumeralRead, residual: float | None,
                      config: NumeralConfig = NumeralConfig()) -> NumeralRead:
    """The read with the margin a sure reading needs raised by the photo's fit residual (``residual_ref``,
    ``residual_power``; :class:`NumeralConfig`); unchanged when ``residual`` is None or no worse than the
    reference. The needed margin is the blur's (:func:`read_numeral`) times the factor, whatever was taken before.
    """
    if residual is None:
        return read
    base = read.needed if read.fit_residual is None else read.needed / _residual_factor(read.fit_residual, config)
    return replace(read, needed=base * _residual_factor(residual, config), fit_residual=float(residual))


def _residual_factor(residual: float, config: NumeralConfig) -> float:
    return max(1.0, residual / config.residual_ref) ** config.residual_power


def shared_blur_mm2(blurs_mm2: list[np.ndarray], config: NumeralConfig = NumeralConfig()) -> np.ndarray:
    """One blur (token mm\u00b2, (2, 2)) for templates shared by several tokens (one photo, one tower height): the
    mean of theirs, rounded as the templates' cache key rounds (so that the frames of a still camera share them
    too)."""
    mean = np.mean(np.stack(blurs_mm2), axis=0)
    key = _cov_key(mean / config.mm_per_px ** 2)
    return _cov(key) * config.mm_per_px ** 2
