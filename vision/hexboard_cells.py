"""Read the cells of a hex board: empty, or a symbol's colour, from colour AND symbol shape.

Every cell is sampled on a top-down view (``vision.hexboard.TopView``) at the height of what is
read (a tile's top face 4 mm above the board, a printed symbol on the board face). Each cell's own
face (the ring around its symbol) is its white reference, so a colour cast or uneven light cancels
out; the symbol is the strongly coloured part of the disc inside. Its hue gives the colour; its
radial fill profile (centre filled or hollow, outer ring full or broken) gives the shape family, and a
shape that contradicts the hue is a doubt, never silently trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.hexboard import TopView

# The symbols' radial profile (components, ingenious.tile.colours; the kit draws them the same):
# the centre is filled for all but the blue ring; the outer zone (6.8-9.2 mm) is full for the red
# disc and the blue ring, about 0.6 for the green hexagon and the purple flower, and broken (below
# about 0.4) for the orange sun's rays and the yellow star's points. Ranges allow for blur.
OUTER_FILL = {
    "red": (0.72, 1.01),
    "orange": (0.0, 0.55),
    "yellow": (0.0, 0.55),
    "green": (0.3, 0.95),
    "blue": (0.6, 1.01),
    "purple": (0.25, 0.85),
}
HOLLOW = {"blue"}

# Hue of each symbol over the tile face as photographed (opponent-space angle, degrees): the
# component colours through a camera's tone curve; measured on rendered tune photos. A profile may
# replace them (a user's own tiles).
HUE_DEG = {"red": 356.0, "orange": 22.0, "yellow": 47.0, "green": 145.0, "blue": 220.0, "purple": 284.0}


@dataclass(frozen=True)
class CellReadConfig:
    """Tunables of the cell reader (mm unless said).

    Attributes
    ----------
    face_ring_mm : (float, float)
        Ring around the symbol used as the cell's white reference.
    symbol_r_mm : float
        Symbols are 20 mm across: pixels within this radius are the symbol's disc.
    centre_r_mm : float
        Radius of the centre zone (filled for every symbol but the ring).
    outer_ring_mm : (float, float)
        Zone of the symbol's outer part (full for disc/hexagon/ring, broken for sun/star/flower).
    noise_factor : float
        The symbol threshold is at least this many times the face ring's median chroma (noise).
    foreign_face : float
        Relative chroma of a cell's face against the median face above which the cell is covered by
        something else (a hand): doubt.
    checker : bool
        Sample every other pixel (a checkerboard): half the work, the same fractions.
    chroma_min : float
        A pixel belongs to the symbol when its chroma over the white reference exceeds this.
    chroma_floor : float
        Channel differences from the white (0-1 units) up to this count as none (quantisation, JPEG, a dark
        face's weakest channel under a cast).
    fill_occupied : float
        Symbol fill fraction of the disc above which a symbol is present.
    fill_doubt : (float, float)
        Fill fractions between these are doubtful (neither clearly empty nor clearly a symbol).
    hue_margin_deg : float
        The nearest hue prototype must beat the second by this much, else doubt.
    hue_max_deg : float
        The nearest prototype must lie within this, else doubt.
    min_face : float
        A white reference darker than this (0..1) is a shadow or a hand: doubt.
    """

    face_ring_mm: tuple[float, float] = (11.0, 13.5)
    symbol_r_mm: float = 10.0
    centre_r_mm: float = 2.5
    outer_ring_mm: tuple[float, float] = (6.8, 9.2)
    chroma_min: float = 0.1
    chroma_floor: float = 4.0 / 255.0
    strong_percentile: float = 90.0
    checker: bool = True
    noise_factor: float = 3.0
    foreign_face: float = 0.22
    shape_level: float = 0.5
    fill_occupied: float = 0.16
    fill_doubt: tuple[float, float] = (0.08, 0.24)
    hue_margin_deg: float = 8.0
    hue_max_deg: float = 30.0
    min_face: float = 0.12


def hue_deg(rgb: np.ndarray) -> np.ndarray:
    """Opponent-space hue angle of RGB rows (N, 3) -> (N,) degrees in [0, 360)."""
    rgb = np.asarray(rgb, dtype=np.float64).reshape(-1, 3)
    a = rgb[:, 0] - 0.5 * (rgb[:, 1] + rgb[:, 2])
    b = 0.5 * np.sqrt(3.0) * (rgb[:, 1] - rgb[:, 2])
    return np.degrees(np.arctan2(b, a)) % 360.0


def prototypes(colours_rgb: dict[str, tuple[int, int, int]], face_rgb) -> dict[str, float]:
    """Hue of each symbol colour seen over its face colour (the reader's white reference)."""
    face = np.asarray(face_rgb, dtype=np.float64)
    return {c: float(hue_deg(np.asarray(v, dtype=np.float64) / face)[0]) for c, v in colours_rgb.items()}


@dataclass(frozen=True)
class CellReading:
    """What one cell shows.

    Attributes
    ----------
    colour : str or None
        The symbol's colour; None: empty (no symbol).
    fill : float
        Fraction of the symbol disc that is strongly coloured.
    hue_deg : float
    hue_margin_deg : float
        Distance to the second-nearest prototype minus distance to the nearest.
    centre_fill, outer_fill : float
        Radial fill profile (shape).
    shape : str
        Shape family seen: ``solid``, ``hollow``, ``rayed``, ``petals`` or ``""`` (empty).
    face : float
        Brightness of the white reference.
    doubt : str
        Why this reading is doubtful ("" when sure).
    strength : float
        The symbol's strong chroma over the white reference (``strong_percentile`` of the disc): printed inks
        are vivid, skin or a sleeve over a cell is pale. Not part of the JSON.
    alternatives : tuple of str
        When the doubt is only which of some colours the symbol is (a hue between two): those colours; empty
        when the cell may show anything. Not part of the JSON.
    """

    colour: str | None
    fill: float
    hue_deg: float
    hue_margin_deg: float
    centre_fill: float
    outer_fill: float
    shape: str
    face: float
    doubt: str = ""
    strength: float = 0.0
    alternatives: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {
            "colour": self.colour,
            "fill": round(self.fill, 3),
            "hue_deg": round(self.hue_deg, 1),
            "hue_margin_deg": round(self.hue_margin_deg, 1),
            "centre_fill": round(self.centre_fill, 3),
            "outer_fill": round(self.outer_fill, 3),
            "shape": self.shape,
            "face": round(self.face, 3),
            "doubt": self.doubt,
        }


def shape_family(centre_fill: float, outer_fill: float) -> str:
    """Shape family seen from the radial fill profile: hollow, disc, mid or broken."""
    if centre_fill < 0.5:
        return "hollow"
    if outer_fill >= 0.78:
        return "disc"
    if outer_fill >= 0.45:
        return "mid"
    return "broken"


def shape_agrees(colour: str, centre_fill: float, outer_fill: float) -> bool:
    """Does the radial profile fit the symbol of this colour?"""
    if (centre_fill < 0.5) != (colour in HOLLOW):
        return False
    lo, hi = OUTER_FILL[colour]
    return lo <= outer_fill <= hi


def _offsets(mm_per_px: float, r_max: float, checker: bool = False) -> tuple[np.ndarray, np.ndarray]:
    n = int(np.ceil(r_max / mm_per_px))
    d = np.arange(-n, n + 1)
    dx, dy = np.meshgrid(d, d)
    r = np.hypot(dx, dy) * mm_per_px
    keep = r <= r_max
    if checker:
        keep &= (dx + dy) % 2 == 0
    return np.stack([dx[keep], dy[keep]], axis=1), r[keep]


def read_cells(
    view: TopView,
    centres_mm: np.ndarray,
    hue_protos: dict[str, float],
    config: CellReadConfig = CellReadConfig(),
    groups: np.ndarray | None = None,
) -> list[CellReading]:
    """Read the symbol (or nothing) at each cell centre.

    Parameters
    ----------
    view : TopView
        At the height of what is read.
    centres_mm : ndarray, shape (N, 2), table mm
    hue_protos : dict colour -> hue degrees (``prototypes``)
    config : CellReadConfig
    groups : ndarray, shape (N,), int, optional
        Cells whose bare faces look alike (a board's rings); each cell's face is compared with its
        group's median face to find hands and objects.

    Returns
    -------
    list of CellReading, one per centre.
    """
    if len(centres_mm) == 0:
        return []
    disc = _sample_discs(view, centres_mm, config)
    white = _face_white(disc, config)
    chroma, dnorm, sym = _symbol_pixels(disc, white, config)
    groups = np.zeros(len(centres_mm), dtype=np.int64) if groups is None else np.asarray(groups)
    n_sym = sym.sum(axis=1)
    fill = n_sym / len(disc.r_disc)
    foreign = _foreign_faces(white, groups, fill >= config.fill_occupied)
    c_fill, o_fill, strong = _shape_fills(chroma, disc, config)
    mean_rgb = (dnorm * sym[..., None]).sum(axis=1) / np.maximum(n_sym, 1)[:, None]
    hue = np.where(n_sym >= 3, hue_deg(mean_rgb), 0.0)
    names = list(hue_protos)
    order, d0, margin = _hue_match(hue, hue_protos, names)
    face_all = white.mean(axis=1)
    all_inside = disc.inside.all(axis=1)
    return [_cell_reading(i, bool(all_inside[i]), float(face_all[i]), float(foreign[i]), float(fill[i]),
                          float(c_fill[i]), float(o_fill[i]), float(hue[i]), order[i], float(d0[i]),
                          float(margin[i]), names, config, float(strong[i]))
            for i in range(len(centres_mm))]


@dataclass(frozen=True)
class _DiscSamples:
    """The pixels around every cell centre, on one set of offsets.

    Attributes
    ----------
    pix : ndarray, shape (N, P, 3), float32 0-1
        Every offset's colour at every cell.
    inside : ndarray, shape (N, P), bool
        Offsets that fall inside the photo (the top view's non-black part).
    r : ndarray, shape (P,), mm
        Each offset's distance from the centre.
    ring : ndarray, shape (P,), bool
        Offsets on the face ring (``face_ring_mm``).
    disc : ndarray, shape (P,), bool
        Offsets on the symbol disc (``symbol_r_mm``); ``r_disc`` their distances.
    """

    pix: np.ndarray
    inside: np.ndarray
    r: np.ndarray
    ring: np.ndarray
    disc: np.ndarray

    @property
    def r_disc(self) -> np.ndarray:
        return self.r[self.disc]


def _sample_discs(view: TopView, centres_mm: np.ndarray, config: CellReadConfig) -> _DiscSamples:
    """Sample the top view on a disc of offsets (out to the face ring) around every cell centre."""
    off, r = _offsets(view.mm_per_px, config.face_ring_mm[1], config.checker)
    c_px = np.round(view.to_px(centres_mm)).astype(np.int64)
    h, w = view.valid.shape
    xs = np.clip(c_px[:, None, 0] + off[None, :, 0], 0, w - 1)
    ys = np.clip(c_px[:, None, 1] + off[None, :, 1], 0, h - 1)
    pix = view.image[ys, xs].astype(np.float32) * (1.0 / 255.0)  # (N, P, 3)
    ring = (r >= config.face_ring_mm[0]) & (r <= config.face_ring_mm[1])
    return _DiscSamples(pix=pix, inside=view.gray[ys, xs] > 0, r=r, ring=ring, disc=r <= config.symbol_r_mm)


def _face_white(disc: _DiscSamples, config: CellReadConfig) -> np.ndarray:
    """Each cell's own white reference: the mean of the brighter part of its face ring. Returns (N, 3)."""
    ring_pix = disc.pix[:, disc.ring]  # (N, R, 3)
    bright = ring_pix.sum(axis=2)
    top = bright >= bright.mean(axis=1, keepdims=True) - 1e-4  # the brighter part of the ring: the face
    white = (ring_pix * top[..., None]).sum(axis=1) / np.maximum(top.sum(axis=1), 1)[:, None]  # (N, 3)
    return np.maximum(white, 1e-3)


def _symbol_pixels(disc: _DiscSamples, white: np.ndarray,
                   config: CellReadConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chroma of the symbol disc against the cell's white, and which pixels are symbol: above a threshold set by
    the sensor noise (the chroma of the achromatic face ring itself). Each channel's difference from the white
    counts only beyond ``chroma_floor`` (a few 8-bit levels): a dark face's weakest channel under a strong cast
    (a grey ring of the board, 30 levels of blue under a warm lamp) would otherwise turn a shift of two levels into
    a tenth of chroma. Returns chroma (N, D), the disc's colours normalised by the white (N, D, 3) and the symbol
    mask (N, D)."""
    dpix = disc.pix[:, disc.disc]
    dnorm = dpix / white[:, None, :]  # (N, D, 3)
    chroma = _chroma(dpix, white, config.chroma_floor)
    ring_chroma = _chroma(disc.pix[:, disc.ring][:, ::2], white, config.chroma_floor)
    noise = np.median(ring_chroma, axis=1)
    thr = np.maximum(config.chroma_min, config.noise_factor * noise)
    return chroma, dnorm, chroma > thr[:, None]


def _chroma(pix: np.ndarray, white: np.ndarray, floor: float) -> np.ndarray:
    """Spread of the channels' relative differences from the white (N, P) of pixels (N, P, 3), each difference
    shrunk towards 0 by ``floor`` (0-1 units) before it is divided by the white."""
    dev = pix - white[:, None, :]
    rel = np.sign(dev) * np.maximum(np.abs(dev) - floor, 0.0) / white[:, None, :]
    return rel.max(axis=2) - rel.min(axis=2)


def _foreign_faces(white: np.ndarray, groups: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """How far each cell's face is from the nearer of two bare faces (0 = the same tint): its group's median face
    (the board's printed face of its ring) and the median face of the cells that show a symbol (the tiles' face).
    A face far from both is a hand or an object over the cell. The tile face is needed under a strong cast, where
    the off-white tile and a grey ring of the board differ in tint by a third. Returns (N,)."""
    refs = [np.empty_like(white)]
    for g in np.unique(groups):
        refs[0][groups == g] = np.median(white[groups == g], axis=0)
    if occupied.any():
        refs.append(np.broadcast_to(np.median(white[occupied], axis=0), white.shape))
    out = []
    for ref in refs:
        rel_face = white / np.maximum(ref, 1e-3)
        out.append((rel_face.max(axis=1) - rel_face.min(axis=1)) / np.maximum(rel_face.max(axis=1), 1e-3))
    return np.min(out, axis=0)


def _shape_fills(chroma: np.ndarray, disc: _DiscSamples,
                 config: CellReadConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The symbol's shape on its own scale (a pixel is 'inside' when its chroma exceeds ``shape_level`` of the
    symbol's strong chroma): the filled share of the centre and of the outer ring, and the strong chroma, each
    (N,)."""
    centre = disc.r_disc <= config.centre_r_mm
    outer = (disc.r_disc >= config.outer_ring_mm[0]) & (disc.r_disc <= config.outer_ring_mm[1])
    k = int(round(config.strong_percentile / 100.0 * (chroma.shape[1] - 1)))
    strong = np.partition(chroma, k, axis=1)[:, k]
    shape_px = chroma > config.shape_level * np.maximum(strong, 1e-3)[:, None]
    return shape_px[:, centre].mean(axis=1), shape_px[:, outer].mean(axis=1), strong


def _hue_match(hue: np.ndarray, hue_protos: dict[str, float],
               names: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The symbol colours by hue distance: per cell the colours in order (N, C), the nearest distance (N,) and
    the margin to the second nearest (N,), degrees."""
    proto = np.array([hue_protos[n] for n in names])
    dist = np.abs((proto[None, :] - hue[:, None] + 180.0) % 360.0 - 180.0)  # (N, C)
    order = np.argsort(dist, axis=1)
    d0 = np.take_along_axis(dist, order[:, :1], axis=1)[:, 0]
    d1 = np.take_along_axis(dist, order[:, 1:2], axis=1)[:, 0]
    return order, d0, d1 - d0


def _cell_reading(i: int, inside: bool, face: float, foreign: float, f: float, cf: float, of: float, h_i: float,
                  order: np.ndarray, d0: float, margin: float, names: list[str],
                  config: CellReadConfig, strength: float = 0.0) -> CellReading:
    """One cell's reading from its measures, with the first doubt that applies (a dark or foreign face; a faint
    colour on an empty cell; a weak symbol, a hue far from every colour or between two, a shape that disagrees
    with the colour)."""
    if not inside:
        return CellReading(None, 0.0, 0.0, 0.0, 0.0, 0.0, "", face, "outside the photo")
    doubt = ""
    if face < config.min_face:
        doubt = "dark cell face (shadow or hand)"
    elif foreign > config.foreign_face:
        doubt = "the cell's face is not board or tile colour (a hand or an object over it?)"
    if f < config.fill_occupied:
        if f > config.fill_doubt[0] and not doubt:
            doubt = f"faint colour ({f:.2f} of the symbol disc)"
        return CellReading(None, f, h_i, margin, cf, of, "", face, doubt, strength)
    colour = names[int(order[0])]
    shape = shape_family(cf, of)
    if f < config.fill_doubt[1] and not doubt:
        doubt = f"weak symbol ({f:.2f} of the symbol disc)"
    elif d0 > config.hue_max_deg and not doubt:
        doubt = f"hue {h_i:.0f} deg is far from every symbol colour"
    elif margin < config.hue_margin_deg and not doubt:
        doubt = f"hue {h_i:.0f} deg between {colour} and {names[int(order[1])]}"
        return CellReading(colour, f, h_i, margin, cf, of, shape, face, doubt, strength,
                           (colour, names[int(order[1])]))
    elif not shape_agrees(colour, cf, of) and not doubt:
        doubt = f"colour reads {colour} but the symbol's shape reads {shape}"
    return CellReading(colour, f, h_i, margin, cf, of, shape, face, doubt, strength)


@dataclass(frozen=True)
class FaceUniformity:
    """How uniform cells' faces are (see :func:`face_uniformity`); every field has shape (N,).

    Attributes
    ----------
    disc_low : ndarray
        A low percentile of the symbol disc's brightness over the face white's (about 1 on an empty face).
    disc_low_ring : ndarray
        The same over the face ring's median brightness (about 1 on an empty face, also where a neighbouring
        tile's top face, seen off its cell at a tilt, brightens part of the ring).
    disc_cv : ndarray
        The disc brightness's standard deviation over its mean (about 0 on an empty face).
    ring_low : ndarray
        A low percentile of the face ring's brightness over the face white's (about 1 on a clean cell or tile
        face; a finger across the ring darkens part of it).
    """

    disc_low: np.ndarray
    disc_low_ring: np.ndarray
    disc_cv: np.ndarray
    ring_low: np.ndarray


def face_uniformity(view: TopView, centres_mm: np.ndarray, config: CellReadConfig = CellReadConfig(),
                    low_percentile: float = 10.0) -> FaceUniformity:
    """How uniform each cell's symbol disc and face ring are against its own face (an empty printed cell is one
    face colour from its centre out; a hand, a finger or a sleeve over part of it is not).

    Parameters
    ----------
    view : TopView
        At the height of the face to check (a board cell: the board's printed face; a tile: its top face).
    centres_mm : ndarray, shape (N, 2), table mm
    config : CellReadConfig
        The disc and face ring radii.
    low_percentile : float
        The darker part measured.
    """
    if len(centres_mm) == 0:
        z = np.zeros(0)
        return FaceUniformity(z, z, z, z)
    disc = _sample_discs(view, centres_mm, config)
    white = np.maximum(_face_white(disc, config).sum(axis=1), 1e-3)
    bright = disc.pix[:, disc.disc].sum(axis=2)  # (N, D)
    ring = disc.pix[:, disc.ring].sum(axis=2)  # (N, R)
    low = np.percentile(bright, low_percentile, axis=1)
    return FaceUniformity(
        disc_low=low / white,
        disc_low_ring=low / np.maximum(np.median(ring, axis=1), 1e-3),
        disc_cv=bright.std(axis=1) / np.maximum(bright.mean(axis=1), 1e-3),
        ring_low=np.percentile(ring, low_percentile, axis=1) / white,
    )
