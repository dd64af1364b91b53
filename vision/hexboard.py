"""Find a hex board of pointy-top cells on the table (Ingenious, Genial Spezial).

Steps, on a top-down view of the board's top face (``TableCalibration.rectify`` at the board's
height):

1. rotation modulo 60 degrees: the six-fold mean of the gradient directions (cell lines, tile edges
   and the rim all run along the lattice);
2. lattice offset: the view folded onto one lattice cell (every pixel's fractional axial
   coordinates), correlated with a cell template (bright face band, dark line band);
3. which lattice node is the centre cell and which of the six 60-degree turns is right: the
   board's outline (cells inside, rim outside, on every side) settles the centre and the printed
   landmarks (symbols of known colours on known cells) the turn; without a clear outline the
   landmarks read at each candidate settle both.

The pose found on one photo is only refined on the next (``refine``), which is cheap.
Pure numpy + OpenCV; the cell reader lives in ``vision.hexboard_cells``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from geometry.hexgrid import SQRT3, Cell, HexBoardPose, cells_within, centres_board_mm, nearest_cells


@dataclass(frozen=True)
class HexBoardSpec:
    """What the finder needs to know about a board.

    Attributes
    ----------
    pitch_mm : float
    radius : int
        Physical cells radius (7: 169 cells).
    top_mm : float
        Height of the board's printed face above the table.
    landmarks : dict Cell -> str
        Printed symbol colours on known cells (they fix the centre cell and the 60-degree turn).
    centre_hint_mm : (float, float)
        Where the board's centre usually lies on the table (the marker layout's board centre).
    """

    pitch_mm: float
    radius: int
    top_mm: float
    landmarks: dict[Cell, str]
    centre_hint_mm: tuple[float, float]

    @property
    def extent_mm(self) -> float:
        """Distance from the centre to the outermost cell's far corner."""
        return self.radius * self.pitch_mm + self.pitch_mm / SQRT3


@dataclass(frozen=True)
class HexBoardConfig:
    """Tunables of the board finder.

    Attributes
    ----------
    mm_per_px : float
        Resolution of the top-down views.
    fold_bins : int
        Bins per lattice axis of the folded cell.
    face_band_mm, line_band_mm : (float, float)
        Template bands, as distance from the cell centre to its edges (apothem units, mm): the face
        band is bright (cell or tile face around a symbol), the line band dark (printed cell lines
        and the gaps between tiles).
    fold_radius_frac : float
        Only pixels this fraction of the board's extent around the estimate are folded.
    centre_search_cells : int
        Lattice nodes this many cells around the hint are tried as the centre cell.
    min_landmarks : int
        Landmarks that must read their colour for a confident pose ...
    min_landmarks_clear, clear_margin : int
        ... or at least this many, with every other candidate's evidence (matches less contradicting
        colours, ``landmark_evidence``) this much lower.
    refine_step_deg : float
        Rotation steps of the contrast search.
    rotation_radius_frac : float
        The rotation is measured on the board only: pixels this fraction of its extent around the hint
        (the table's grain or cloth weave must not count).
    rotation_span_deg, refine_span_deg : float
        The contrast search covers +- this around the gradient estimate (first photo) or the
        prior pose (next photos).
    rotation_stride, fold_stride : int
        Every this many view pixels (each way) are used for the rotation and the fold.
    outline_face_mm, outline_line_mm : float
        The board's outline check samples each cell's face and its cell line at these distances from
        its centre, along the six edge normals (``outline_score``).
    outline_ratio : float
        The outline settles the centre when every other candidate centre scores at most this fraction
        of the best one ...
    min_landmarks_outline : int
        ... and that centre's best 60-degree turn reads at least this many landmarks as printed, with
        every other turn's evidence ``clear_margin`` lower; else the landmarks decide (and a pose
        elsewhere is flagged).
    """

    mm_per_px: float = 1.0
    fold_bins: int = 31
    face_band_mm: tuple[float, float] = (10.5, 13.5)
    line_band_mm: tuple[float, float] = (14.5, 16.8)
    fold_radius_frac: float = 0.85
    centre_search_cells: int = 3
    min_landmarks: int = 5
    min_landmarks_clear: int = 3
    clear_margin: int = 2
    refine_step_deg: float = 0.25
    rotation_span_deg: float = 2.5
    rotation_radius_frac: float = 0.7
    refine_span_deg: float = 0.75
    rotation_stride: int = 2
    fold_stride: int = 2
    outline_face_mm: float = 12.0
    outline_line_mm: float = 15.5
    outline_ratio: float = 0.5
    min_landmarks_outline: int = 2


@dataclass(frozen=True)
class BoardFit:
    """A board found in one photo.

    Attributes
    ----------
    pose : HexBoardPose
    landmarks_read : int
        Landmarks whose colour read as printed at this pose (out of ``len(spec.landmarks)``).
    runner_up : int
        The most landmarks any other candidate (centre node, turn) read as printed.
    lattice_contrast : float
        Template contrast of the folded view (face minus line brightness, 0..1 scale).
    flags : tuple of str
        Doubts, one sentence each.
    """

    pose: HexBoardPose
    landmarks_read: int
    runner_up: int
    lattice_contrast: float
    flags: tuple[str, ...] = field(default_factory=tuple)
    view: TopView | None = None

    @property
    def confident(self) -> bool:
        return not self.flags


def rotation_mod60(gray: np.ndarray, mask: np.ndarray | None = None) -> tuple[float, float]:
    """Board rotation modulo 60 degrees from the six-fold mean of the gradient directions.

    Parameters
    ----------
    gray : ndarray, shape (H, W), float32
    mask : ndarray, shape (H, W), bool, optional

    Returns
    -------
    rotation_deg : float in [0, 60)
    strength : float
        Length of the mean six-fold vector (0: no lattice, 1: perfect).
    """
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    z = gx + 1j * gy  # |g| e^(i phi)
    w = gx * gx + gy * gy
    if mask is not None:
        z = z * mask
        w = w * mask
    z2 = z * z
    z6 = z2 * z2 * z2  # |g|^6 e^(6 i phi); weight |g|^2 e^(6 i phi) = z6 / |g|^4
    s = np.sum(z6 / (w * w + 1e-12))
    total = float(w.sum()) or 1.0
    # pointy-top cells: edge normals at 0, 60, ... degrees in the board frame
    deg = float(np.degrees(np.angle(s)) / 6.0) % 60.0
    return deg, float(abs(s) / total)


def _apothem_dist(xy: np.ndarray) -> np.ndarray:
    """Pointy-top hex 'radius' of board-frame vectors (N, 2): the largest edge-normal projection."""
    a = np.deg2rad(np.array([0.0, 60.0, 120.0]))
    n = np.stack([np.cos(a), np.sin(a)], axis=1)
    return np.max(np.abs(xy @ n.T), axis=1)


def _fold_template(bins: int, pitch: float, config: HexBoardConfig) -> np.ndarray:
    """+1/-1 template over the folded cell (bins x bins over fractional (q, r)), zero mean per band."""
    u = (np.arange(bins) + 0.5) / bins
    qq, rr = np.meshgrid(u, u, indexing="ij")
    best = np.full(qq.shape, np.inf)
    for dq in (0, 1):
        for dr in (0, 1):
            xy = centres_board_mm(np.stack([(qq - dq).ravel(), (rr - dr).ravel()], axis=1), pitch)
            best = np.minimum(best, _apothem_dist(xy).reshape(qq.shape))
    face = (best >= config.face_band_mm[0]) & (best <= config.face_band_mm[1])
    line = (best >= config.line_band_mm[0]) & (best <= config.line_band_mm[1])
    t = np.zeros(qq.shape)
    t[face] = 1.0 / max(1, face.sum())
    t[line] = -1.0 / max(1, line.sum())
    return t


def fold(gray: np.ndarray, xy_mm: np.ndarray, origin_mm, rotation_deg: float, pitch: float, bins: int) -> np.ndarray:
    """Mean brightness over one lattice cell: every pixel at its fractional axial coordinates.

    Parameters
    ----------
    gray : ndarray, shape (N,)
        Brightness of the pixels used.
    xy_mm : ndarray, shape (N, 2)
        Their table positions.
    origin_mm : (x, y)
        A point taken as lattice node (0, 0).
    rotation_deg, pitch : float
    bins : int

    Returns
    -------
    ndarray, shape (bins, bins): mean brightness by (q fraction, r fraction); empty bins hold the mean.
    """
    pose = HexBoardPose((float(origin_mm[0]), float(origin_mm[1])), rotation_deg, pitch)
    b = pose.to_board(xy_mm)
    r = b[:, 1] * 2.0 / (SQRT3 * pitch)
    q = b[:, 0] / pitch - r / 2.0
    iq = (np.floor((q % 1.0) * bins).astype(np.int64)) % bins
    ir = (np.floor((r % 1.0) * bins).astype(np.int64)) % bins
    idx = iq * bins + ir
    s = np.bincount(idx, weights=gray, minlength=bins * bins)
    n = np.bincount(idx, minlength=bins * bins)
    mean = float(gray.mean()) if len(gray) else 0.0
    out = np.where(n > 0, s / np.maximum(n, 1), mean)
    return out.reshape(bins, bins)


def lattice_offset(folded: np.ndarray, template: np.ndarray) -> tuple[tuple[float, float], float]:
    """The fractional (q, r) of the lattice node in a folded view, and the template contrast there."""
    bins = folded.shape[0]
    f = np.fft.fft2(folded)
    t = np.fft.fft2(template)
    corr = np.real(np.fft.ifft2(f * np.conj(t)))
    i, j = np.unravel_index(int(np.argmax(corr)), corr.shape)

    def sub(c_m, c_0, c_p):
        den = c_m - 2 * c_0 + c_p
        return 0.0 if den >= 0 else 0.5 * (c_m - c_p) / den

    di = sub(corr[(i - 1) % bins, j], corr[i, j], corr[(i + 1) % bins, j])
    dj = sub(corr[i, (j - 1) % bins], corr[i, j], corr[i, (j + 1) % bins])
    return ((i + di) / bins, (j + dj) / bins), float(corr[i, j])


@dataclass(frozen=True)
class TopView:
    """A top-down view of a table square at one height.

    Attributes
    ----------
    image : ndarray, shape (H, W, 3), uint8 RGB
    gray : ndarray, shape (H, W), float32 0..255
    origin_mm : (x0, y0)
        Table position of pixel (0, 0)'s centre.
    mm_per_px : float
    z_mm : float
    """

    image: np.ndarray
    gray: np.ndarray
    origin_mm: tuple[float, float]
    mm_per_px: float
    z_mm: float

    @property
    def valid(self) -> np.ndarray:
        """Pixels inside the photo, shape (H, W), bool."""
        return self.gray > 0

    def to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) -> view pixel coordinates (N, 2) (x = column, y = row)."""
        return (np.asarray(xy_mm, dtype=np.float64) - np.asarray(self.origin_mm)) / self.mm_per_px

    def pixel_mm(self, stride: int = 1) -> np.ndarray:
        """Table mm of every ``stride``-th pixel each way, shape (H', W', 2)."""
        h, w = self.gray.shape
        xs = self.origin_mm[0] + self.mm_per_px * np.arange(0, w, stride)
        ys = self.origin_mm[1] + self.mm_per_px * np.arange(0, h, stride)
        out = np.empty((len(ys), len(xs), 2))
        out[..., 0] = xs[None, :]
        out[..., 1] = ys[:, None]
        return out


def top_view(image_rgb: np.ndarray, calibration, centre_mm, half_mm: float, z_mm: float, mm_per_px: float) -> TopView:
    """Rectify the square ``centre +- half`` of the plane ``z_mm`` above the table."""
    x0, y0 = float(centre_mm[0]) - half_mm, float(centre_mm[1]) - half_mm
    region = (x0, y0, x0 + 2 * half_mm, y0 + 2 * half_mm)
    img = calibration.rectify(image_rgb, mm_per_px, region, z_mm=z_mm)
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32)
    return TopView(img, gray, (x0, y0), mm_per_px, z_mm)


def _gray(view: TopView) -> np.ndarray:
    return view.gray


def lattice_fit(view: TopView, spec: HexBoardSpec, centre_guess_mm, config: HexBoardConfig,
                rotation_deg: float | None = None, span_deg: float | None = None) -> tuple[np.ndarray, float, float]:
    """Rotation (mod 60) and one lattice node near ``centre_guess_mm`` from a top view.

    The rotation (from the gradients, or ``rotation_deg``) is refined by the fold's template
    contrast over ``+- span_deg``.

    Returns
    -------
    node_mm : ndarray, shape (2,)
    rotation_deg : float
    contrast : float
    """
    gray = _gray(view)
    if rotation_deg is None:
        small = cv2.resize(gray, None, fx=1.0 / config.rotation_stride, fy=1.0 / config.rotation_stride,
                           interpolation=cv2.INTER_AREA)
        xy_s = view.pixel_mm(config.rotation_stride)[: small.shape[0], : small.shape[1]]
        near = np.linalg.norm(xy_s - np.asarray(centre_guess_mm, dtype=np.float64), axis=-1)
        inside = (small > 0) & (near < config.rotation_radius_frac * spec.extent_mm)
        rotation_deg, _ = rotation_mod60(small, inside)
        span = config.rotation_span_deg if span_deg is None else span_deg
    else:
        span = config.refine_span_deg if span_deg is None else span_deg
    st = config.fold_stride
    g = gray[::st, ::st]
    xy = view.pixel_mm(st)
    d = np.linalg.norm(xy - np.asarray(centre_guess_mm, dtype=np.float64), axis=-1)
    mask = (g > 0) & (d < config.fold_radius_frac * spec.extent_mm)
    gm, xym = g[mask], xy[mask]
    template = _fold_template(config.fold_bins, spec.pitch_mm, config)
    steps = np.arange(-span, span + 1e-9, config.refine_step_deg) if span > 0 else np.zeros(1)
    best = None
    for dr in steps:
        rot = rotation_deg + float(dr)
        folded = fold(gm, xym, centre_guess_mm, rot, spec.pitch_mm, config.fold_bins)
        off, contrast = lattice_offset(folded, template)
        if best is None or contrast > best[2]:
            best = (off, rot, contrast)
    (fq, fr), rot, contrast = best
    pose = HexBoardPose((float(centre_guess_mm[0]), float(centre_guess_mm[1])), rot, spec.pitch_mm)
    node = pose.cell_centres_mm(np.array([[fq, fr]]))[0]
    return node, rot % 360.0, contrast


def find_board(
    image_rgb: np.ndarray,
    calibration,
    spec: HexBoardSpec,
    read_landmarks: Callable[[TopView, np.ndarray], list[str | None]],
    config: HexBoardConfig = HexBoardConfig(),
) -> BoardFit:
    """Find the board's pose in one photo (see the module docstring).

    Parameters
    ----------
    image_rgb : ndarray, shape (H, W, 3), uint8
    calibration : TableCalibration
    spec : HexBoardSpec
    read_landmarks : callable(TopView, centres_mm (N, 2)) -> list of colour or None
        Reads printed symbols at cell centres (``vision.hexboard_cells``).
    config : HexBoardConfig
    """
    half = spec.extent_mm + spec.pitch_mm * (config.centre_search_cells + 1)
    view = top_view(image_rgb, calibration, spec.centre_hint_mm, half, spec.top_mm, config.mm_per_px)
    node, rot60, contrast = lattice_fit(view, spec, spec.centre_hint_mm, config)
    return _resolve(view, spec, node, rot60, contrast, read_landmarks, config)


def landmark_matches(read: list[str | None], want: list[str]) -> int:
    """Landmarks read as their printed colour."""
    return sum(1 for g, w in zip(read, want, strict=True) if g == w)


def landmark_evidence(read: list[str | None], want: list[str]) -> int:
    """Matches less contradictions (a landmark read surely as another colour).

    At the right pose a landmark is read as printed or not read at all (a hand, a shadow, a cast:
    the reader doubts); at a pose a cell off, the landmark positions fall on tiles, whose colours
    mostly contradict the printed ones. Counting contradictions keeps a hand over two symbols from
    making the right pose look no better than a wrong one whose cells happen to match.
    """
    return sum(0 if g is None else (1 if g == w else -1) for g, w in zip(read, want, strict=True))


def cellness(gray: np.ndarray, view: TopView, pose: HexBoardPose, cells: np.ndarray, face_mm: float,
             line_mm: float) -> np.ndarray:
    """How much each position looks like a board cell: its face brighter than its cell lines.

    Parameters
    ----------
    gray : ndarray, shape (H, W), float32
        The view's brightness (lightly smoothed).
    view : TopView
    pose : HexBoardPose
    cells : ndarray, shape (N, 2)
        Axial positions (they may lie off the board).
    face_mm, line_mm : float
        Distances from the centre of the face and of the line samples, along the six edge normals.

    Returns
    -------
    ndarray, shape (N,): the median over the six directions of face minus line brightness (about 0
    on the rim or the table, positive on a cell, tile-covered or not).
    """
    a = np.deg2rad(np.arange(6) * 60.0)
    normals = np.stack([np.cos(a), np.sin(a)], axis=1)
    centres = centres_board_mm(cells, pose.pitch_mm)
    h, w = gray.shape

    def sample(dist: float) -> np.ndarray:
        pts = (centres[:, None, :] + dist * normals[None]).reshape(-1, 2)
        px = view.to_px(pose.to_table(pts))
        x = np.clip(np.round(px[:, 0]).astype(np.int64), 0, w - 1)
        y = np.clip(np.round(px[:, 1]).astype(np.int64), 0, h - 1)
        return gray[y, x].reshape(-1, 6)

    return np.median(sample(face_mm) - sample(line_mm), axis=1)


@functools.lru_cache(maxsize=8)
def _outline_rings(radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The outermost ring of cells and the ring just outside, each with its board side (0-5)."""
    def ring_cells(k: int) -> np.ndarray:
        return np.array([c for c in cells_within(k) if max(abs(c[0]), abs(c[1]), abs(c[0] + c[1])) == k],
                        dtype=np.int64)

    def side(cells: np.ndarray) -> np.ndarray:
        b = centres_board_mm(cells, 1.0)
        deg = np.degrees(np.arctan2(b[:, 1], b[:, 0])) % 360.0
        return (np.floor((deg + 0.5) / 60.0) % 6).astype(np.int64)  # corners at 0, 60, ... degrees

    inner, outer = ring_cells(radius), ring_cells(radius + 1)
    return inner, side(inner), outer, side(outer)


def outline_score(gray: np.ndarray, view: TopView, pose: HexBoardPose, radius: int, config: HexBoardConfig) -> float:
    """Does the board's outline sit where this pose puts it? Per side of the board: the cellness of its
    outermost ring less that of the ring just outside (on the rim); the second-lowest side counts (a hand
    may cover one side).

    A pose a cell off moves four sides: two outermost rings onto the rim, two outer rings onto cells;
    their side scores fall to about 0, while the right pose keeps every side high. Independent of
    the tiles and of the printed symbols.
    """
    inner, s_in, outer, s_out = _outline_rings(radius)
    c_in = cellness(gray, view, pose, inner, config.outline_face_mm, config.outline_line_mm)
    c_out = cellness(gray, view, pose, outer, config.outline_face_mm, config.outline_line_mm)
    sides = np.array([c_in[s_in == k].mean() - c_out[s_out == k].mean() for k in range(6)])
    return float(np.sort(sides)[1])


def outline_centre(view: TopView, spec: HexBoardSpec, cands: list[HexBoardPose],
                   config: HexBoardConfig) -> list[int] | None:
    """The candidates (its six turns) at the centre whose outline scores best by far (every other
    centre at most ``outline_ratio`` of it); None when no centre stands out.

    The candidates' centres are nodes of one lattice, and the score does not change with a 60-degree
    turn: every lattice position used is measured once (``cellness``), in the first candidate's frame.
    """
    gray = cv2.blur(view.gray, (3, 3))
    ref = cands[0]
    centres: dict[tuple[int, int], list[int]] = {}
    at, _ = nearest_cells(ref.to_board(np.array([c.centre_mm for c in cands])), spec.pitch_mm)
    for i, (q, r) in enumerate(at.tolist()):
        centres.setdefault((q, r), []).append(i)
    inner, s_in, outer, s_out = _outline_rings(spec.radius)
    nodes = np.array(list(centres), dtype=np.int64)
    pos = np.concatenate([nodes[:, None, :] + inner[None], nodes[:, None, :] + outer[None]], axis=1)  # (C, I+O, 2)
    uniq, inv = np.unique(pos.reshape(-1, 2), axis=0, return_inverse=True)
    cn = cellness(gray, view, ref, uniq.astype(np.float64), config.outline_face_mm, config.outline_line_mm)
    per = cn[inv.ravel()].reshape(len(nodes), -1)
    n_in = len(inner)
    counts_in = np.bincount(s_in, minlength=6)
    counts_out = np.bincount(s_out, minlength=6)
    scores = []
    for row in per:
        sides = (np.bincount(s_in, weights=row[:n_in], minlength=6) / counts_in
                 - np.bincount(s_out, weights=row[n_in:], minlength=6) / counts_out)
        scores.append(float(np.sort(sides)[1]))
    order = np.argsort(scores)[::-1]
    top = scores[int(order[0])]
    if top <= 0 or (len(order) > 1 and scores[int(order[1])] > config.outline_ratio * top):
        return None
    return centres[tuple(int(v) for v in nodes[int(order[0])])]


def _turn_at(turns: list[int], evidence: list[int], matches: list[int], n: int,
             config: HexBoardConfig) -> tuple[int, bool]:
    """The best-read of one centre's turns, and whether it is clear (enough landmarks read as printed,
    every other turn's evidence ``clear_margin`` lower)."""
    order = sorted(turns, key=lambda i: (evidence[i], matches[i]), reverse=True)
    pick = order[0]
    others = max((evidence[i] for i in order[1:]), default=-n)
    return pick, matches[pick] >= config.min_landmarks_outline and evidence[pick] - others >= config.clear_margin


def _resolve(view, spec, node, rot60, contrast, read_landmarks, config) -> BoardFit:
    """Pick the centre node and the 60-degree turn that put the landmarks on their colours."""
    k = config.centre_search_cells
    base = HexBoardPose((float(node[0]), float(node[1])), rot60, spec.pitch_mm)
    # nodes around the first node, nearest the hint first
    offsets = np.array(cells_within(k + 1))
    centres = base.cell_centres_mm(offsets)
    near = np.linalg.norm(centres - np.asarray(spec.centre_hint_mm), axis=1) <= (k + 0.5) * spec.pitch_mm
    centres = centres[near]
    lm_cells = np.array(list(spec.landmarks), dtype=np.float64)
    want = list(spec.landmarks.values())
    # every landmark position of every candidate, read once
    cands = []
    pts = []
    for c in centres:
        for turn in range(6):
            pose = HexBoardPose((float(c[0]), float(c[1])), (rot60 + 60.0 * turn) % 360.0, spec.pitch_mm)
            cands.append(pose)
            pts.append(pose.cell_centres_mm(lm_cells))
    allpts = np.concatenate(pts)
    key = np.round(allpts / 2.0).astype(np.int64)  # merge identical positions (2 mm)
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[inv[::-1]] = np.arange(len(inv))[::-1]
    read = read_landmarks(view, allpts[first])
    read_all = [read[i] for i in inv.ravel()]
    n = len(want)
    reads = [read_all[i * n:(i + 1) * n] for i in range(len(cands))]
    matches = [landmark_matches(r, want) for r in reads]
    evidence = [landmark_evidence(r, want) for r in reads]
    # the most evidence (matches less contradictions), then the most matches
    order = sorted(range(len(cands)), key=lambda i: (evidence[i], matches[i]), reverse=True)
    best = order[0]
    runner = order[1] if len(order) > 1 else None
    runner_ev = evidence[runner] if runner is not None else 0
    flags = []
    clear = matches[best] >= config.min_landmarks or (
        matches[best] >= config.min_landmarks_clear and evidence[best] - runner_ev >= config.clear_margin)
    tied = runner is not None and runner_ev >= evidence[best] and matches[best] > 0
    # the board's outline settles the centre (tiles next to a printed symbol often share its colour, so a
    # pose a cell off can read as many symbols); the landmarks at that centre settle the turn
    at_centre = outline_centre(view, spec, cands, config)
    if at_centre is not None:
        pick, turn_clear = _turn_at(at_centre, evidence, matches, n, config)
        if turn_clear:
            best, clear, tied = pick, True, False
        elif best not in at_centre:
            flags.append("the board's outline and its printed symbols point at different positions: "
                         "board position uncertain")
            clear = True  # said once
    if not clear:
        flags.append(f"only {matches[best]} of the {n} printed symbols read where the board should have them: "
                     "board position uncertain")
    if tied:
        flags.append(f"two board positions read {matches[best]} and {matches[runner]} printed symbols: ambiguous")
    runner_up = max((m for i, m in enumerate(matches) if i != best), default=0)
    return BoardFit(cands[best], int(matches[best]), int(runner_up), contrast, tuple(flags), view)


def refine(
    image_rgb: np.ndarray,
    calibration,
    spec: HexBoardSpec,
    prior: HexBoardPose,
    config: HexBoardConfig = HexBoardConfig(),
) -> tuple[HexBoardPose, float, TopView]:
    """Refine a known pose on a new photo of the same board (a nudged camera, a bumped board).

    Returns the refined pose, the lattice contrast, and the top view it used.
    """
    view = top_view(image_rgb, calibration, prior.centre_mm, spec.extent_mm + spec.pitch_mm, spec.top_mm,
                    config.mm_per_px)
    node, rot, contrast = lattice_fit(view, spec, prior.centre_mm, config, rotation_deg=prior.rotation_deg)
    # the node nearest the prior centre
    p = HexBoardPose((float(node[0]), float(node[1])), rot, spec.pitch_mm)
    local = p.to_board(np.asarray([prior.centre_mm]))[0]
    cell, _ = nearest_cells(local[None], spec.pitch_mm)
    centre = p.cell_centres_mm(cell)[0]
    return HexBoardPose((float(centre[0]), float(centre[1])), rot, spec.pitch_mm), contrast, view
