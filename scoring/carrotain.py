"""Judge one Carrotain constellation challenge (RULES.md section 1).

Pure rules: a :class:`~scoring.carrotain_state.CarrotainState` (chips and boards in table mm) plus the
players and the challenger -> a :class:`CarrotainAdjudication` (verdict, awards, per-chip evidence,
flags, explanation). No images, no I/O; numpy and shapely 2 only.

Geometry decisions (named, listed in the explanation):

- A chip is **hidden** iff its centre point (``coverage="centre"``) or its whole dot/hole
  (``coverage="whole_dot"``) lies in the union of the two challenge boards. The outline is closed:
  a centre exactly on an edge counts as covered (``shapely.intersects_xy``, i.e. ``covers``, chosen
  on purpose); such a chip is always borderline anyway.
- ``margin_mm`` of a chip is its signed distance to the decision line: the distance of the centre to
  the boundary of the challenge-board union (+ inside, - outside), minus the dot/hole radius under
  ``whole_dot``. ``hidden == (margin_mm >= 0)``.
- A chip is **borderline** when ``|margin_mm|`` is within the measurement band
  ``max(options.margin_mm, sigma_factor * hypot(chip sigma, nearest board's sigma))`` (the sigma term only when
  ``use_chip_sigma``). The board's sigma is its outline's uncertainty along the normal of the edge nearest the
  chip (``BoardReading.edge_sigma_mm``: a board whose rotation is uncertain is more uncertain far from its pivot).
  The verdict is **contested** when flipping some subset of the borderline
  chips changes it; the other verdict is then reported next to the measured one.
- A chip whose ``presence_confidence < min_confidence`` is *uncertain*: if it is not hidden it may be a
  phantom, so dropping it is one more way the verdict could change (contested, flagged). A chip read with
  ``confidence < min_confidence`` (kind or colour unsure) still counts for the verdict, whatever its kind:
  only the awards it could change are flagged (``awards_doubtful``).
- Stacking is checked for every pair of boards that includes a challenge board (unused boards piled
  beside the mat break no rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace

import numpy as np
import shapely

from scoring.carrotain_state import CarrotainState
from scoring.flags import Flag

#: Most not-hidden centre points a successful challenge may leave.
MAX_NOT_HIDDEN = 2
#: Boards the challenger takes on a success.
BOARDS_PER_SUCCESS = 2
#: Most own chips the challenger takes (hidden, on success) / each other player takes (failure).
CHIPS_PER_AWARD = 2
COVERAGES = ("centre", "whole_dot")
#: ``margin_mm`` reported for a chip when there is no challenge board, or its position is not finite.
NO_BOARD_MARGIN_MM = -1.0e6


@dataclass(frozen=True)
class CarrotainOptions:
    """The named decisions and tolerances of the judgement.

    Attributes
    ----------
    coverage : str
        ``"centre"`` (default): hidden iff the centre point is under a challenge board;
        ``"whole_dot"``: the whole dot (star chips) / hole (colourless, first star) must be.
    margin_mm : float
        Measurement uncertainty, mm: chips whose decision margin is within it are borderline.
    stack_overlap_mm2 : float
        Two boards overlapping by more than this area (mm^2) are flagged as stacked.
    use_chip_sigma : bool
        Widen the borderline band to ``sigma_factor * hypot(chip centre sigma, board edge sigma)`` where larger.
    dot_diameter_mm : float
        Painted centre dot of a star chip, mm (``whole_dot`` only).
    hole_diameter_mm : float
        Centre hole of a colourless / first-star chip, mm (``whole_dot`` only).
    sigma_factor : float
        How many sigmas the band spans when ``use_chip_sigma``. 2.5, not 2: measured on the Carrotain tune photos
        (dev, car_tune, car_tune2 as rendered, phone and browser; ``tools/study_board_sigma.py``), 4.2 % of the
        fitted outline points lie beyond 2 of their calibrated sigmas from the true outline and 1.3 % beyond 2.5.
        A chip beyond the band is judged without doubt, so the band's miss rate is the rate of silent wrong
        verdicts on borderline chips; 2.5 costs 4 more contested clear photos of 117 there (23 -> 27).
    min_confidence : float
        Chips the detector is less sure than this are there at all (``ChipReading.presence_confidence``) are
        *uncertain*: flagged, and a not-hidden uncertain chip may be a phantom, so the verdict is contested when
        dropping uncertain (and flipping borderline) chips could change it. Chips whose kind/colour it is less
        sure of than this (``ChipReading.confidence``) make the awards they could change doubtful.
    unread_touch_mm : float
        Unread acrylic (a region of role ``"unread"``) within this distance of a challenge board's outline makes that
        board's place unsure: the fit may explain only part of the acrylic of the board really there
        (``_misplaced_board_chips``).
    board_reach_mm : float
        The longest chord of the largest board (G, 238.7 mm in components/carrotain): a board covering an unread region
        can cover no chip farther than this from any point of the region.
    """

    coverage: str = "centre"
    margin_mm: float = 1.5
    stack_overlap_mm2: float = 1.0
    use_chip_sigma: bool = True
    dot_diameter_mm: float = 7.0
    hole_diameter_mm: float = 6.0
    sigma_factor: float = 2.5
    min_confidence: float = 0.5
    unread_touch_mm: float = 0.0
    board_reach_mm: float = 239.0

    def __post_init__(self) -> None:
        if self.coverage not in COVERAGES:
            raise ValueError(f"coverage must be one of {COVERAGES}, not {self.coverage!r}")
        if self.margin_mm < 0:
            raise ValueError(f"margin_mm must be >= 0, not {self.margin_mm}")

    def to_json(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, obj: dict | None) -> CarrotainOptions:
        """Options from a context's ``"options"`` object (missing keys keep their defaults).

        Raises
        ------
        ValueError
            An unknown key or a value of the wrong type, named in the message.
        """
        if not obj:
            return cls()
        if not isinstance(obj, dict):
            raise ValueError(f"options must be an object, not {type(obj).__name__}")
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(obj) - set(known))
        if unknown:
            raise ValueError(f"unknown carrotain option(s) {unknown}; known: {sorted(known)}")
        values = {}
        for key, value in obj.items():
            default = getattr(cls(), key)
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ValueError(f"option {key} must be true or false, not {value!r}")
            elif isinstance(default, float):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"option {key} must be a number, not {value!r}")
                value = float(value)
            elif not isinstance(value, str):
                raise ValueError(f"option {key} must be a string, not {value!r}")
            values[key] = value
        return cls(**values)

    def describe(self) -> str:
        """One line naming the options, for the explanation."""
        sigma = f", band >= {self.sigma_factor:g} sigma" if self.use_chip_sigma else ""
        return (
            f"Options: coverage={self.coverage}, margin={self.margin_mm:g} mm{sigma}, "
            f"stacking > {self.stack_overlap_mm2:g} mm^2."
        )


@dataclass(frozen=True)
class ChipJudgement:
    """How one chip was judged.

    Attributes
    ----------
    index : int
        Position of the chip in ``state.chips``.
    kind : str
        ``"star"``, ``"colourless"`` or ``"first_star"``.
    colour : str or None
    xy_mm : tuple[float, float]
        Centre point, table mm.
    hidden : bool
        Under the challenge boards, per ``options.coverage``.
    margin_mm : float
        Signed distance to the decision line (+ hidden side, - not-hidden side), mm.
    borderline : bool
        ``|margin_mm|`` within the measurement band: the reading could be either.
    board : str or None
        Id of the challenge board whose outline covers the centre point, if any.
    """

    index: int
    kind: str
    colour: str | None
    xy_mm: tuple[float, float]
    hidden: bool
    margin_mm: float
    borderline: bool
    board: str | None

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "colour": self.colour,
            "xy_mm": [round(float(v), 3) for v in self.xy_mm],
            "hidden": bool(self.hidden),
            "margin_mm": round(float(self.margin_mm), 3),
            "borderline": bool(self.borderline),
            "board": self.board,
        }

    @classmethod
    def from_json(cls, obj: dict, index: int) -> ChipJudgement:
        return cls(
            index=index,
            kind=str(obj["kind"]),
            colour=obj.get("colour"),
            xy_mm=(float(obj["xy_mm"][0]), float(obj["xy_mm"][1])),
            hidden=bool(obj["hidden"]),
            margin_mm=float(obj["margin_mm"]),
            borderline=bool(obj.get("borderline", False)),
            board=obj.get("board"),
        )


@dataclass(frozen=True)
class BoardOutline:
    """A board as reported with the judgement.

    Attributes
    ----------
    id : str
    outline_mm : ndarray, shape (N, 2)
        Footprint polygon, table mm.
    role : str
        ``"challenge"`` or ``"other"`` (not part of the JSON contract; kept for the overlay).
    """

    id: str
    outline_mm: np.ndarray
    role: str = "challenge"

    def to_json(self) -> dict:
        return {"id": self.id, "outline_mm": np.round(np.asarray(self.outline_mm, dtype=float), 3).tolist()}


@dataclass(frozen=True)
class CarrotainAdjudication:
    """The judgement of one challenge.

    Attributes
    ----------
    verdict : str
        ``"success"`` or ``"failure"`` (as measured).
    contested : bool
        Flipping borderline chips could give the other verdict.
    other_reading : str or None
        The other verdict when contested, else None.
    hidden, not_hidden : int
        Centre points hidden / not hidden (every chip kind counts).
    awards : dict[str, dict[str, int]]
        ``{player: {"boards": int, "chips": int}}`` for every player (zeros included).
    scores : dict[str, int]
        Points this round awards: boards + chips.
    chips : tuple[ChipJudgement, ...]
    boards : tuple[BoardOutline, ...]
    flags : tuple[Flag, ...]
    explanation : tuple[str, ...]
    challenger : str
    challenge_boards : tuple[str, ...]
        Ids of the challenge boards (the ones a success takes off the mat).
    """

    verdict: str
    contested: bool
    other_reading: str | None
    hidden: int
    not_hidden: int
    awards: dict[str, dict[str, int]]
    scores: dict[str, int]
    chips: tuple[ChipJudgement, ...]
    boards: tuple[BoardOutline, ...]
    flags: tuple[Flag, ...]
    explanation: tuple[str, ...]
    challenger: str = ""
    challenge_boards: tuple[str, ...] = field(default_factory=tuple)

    def flag_codes(self) -> tuple[str, ...]:
        """The codes of ``flags``, in order."""
        return tuple(f.code for f in self.flags)

    def to_json(self) -> dict:
        """The CLI contract's carrotain fields (without ``timings_ms``)."""
        return {
            "game": "carrotain",
            "verdict": self.verdict,
            "contested": bool(self.contested),
            "other_reading": self.other_reading,
            "hidden": int(self.hidden),
            "not_hidden": int(self.not_hidden),
            "awards": {p: {"boards": int(a["boards"]), "chips": int(a["chips"])} for p, a in self.awards.items()},
            "scores": {p: int(s) for p, s in self.scores.items()},
            "flags": [f.to_json() for f in self.flags],
            "explanation": list(self.explanation),
            "chips": [c.to_json() for c in self.chips],
            "boards": [b.to_json() for b in self.boards],
        }

    @classmethod
    def from_json(cls, obj: dict, challenger: str = "", challenge_boards: Sequence[str] = ()) -> CarrotainAdjudication:
        """Inverse of :meth:`to_json` (challenger and challenge board ids are not in the contract)."""
        return cls(
            verdict=str(obj["verdict"]),
            contested=bool(obj.get("contested", False)),
            other_reading=obj.get("other_reading"),
            hidden=int(obj["hidden"]),
            not_hidden=int(obj["not_hidden"]),
            awards={str(p): {"boards": int(a["boards"]), "chips": int(a["chips"])} for p, a in obj["awards"].items()},
            scores={str(p): int(s) for p, s in obj["scores"].items()},
            chips=tuple(ChipJudgement.from_json(c, i) for i, c in enumerate(obj.get("chips", []))),
            boards=tuple(
                BoardOutline(str(b["id"]), np.asarray(b["outline_mm"], dtype=np.float64).reshape(-1, 2))
                for b in obj.get("boards", [])
            ),
            flags=tuple(Flag.from_json(f) for f in obj.get("flags", [])),
            explanation=tuple(str(s) for s in obj.get("explanation", [])),
            challenger=challenger,
            challenge_boards=tuple(challenge_boards),
        )


# --------------------------------------------------------------------------------------------- helpers


def _polygon(outline_mm: np.ndarray) -> shapely.Geometry | None:
    """A valid polygon from an outline (N, 2) mm, or None when it has no area."""
    pts = np.asarray(outline_mm, dtype=np.float64).reshape(-1, 2)
    if len(pts) < 3 or not np.all(np.isfinite(pts)):
        return None
    poly = shapely.Polygon(pts)
    if not poly.is_valid:
        poly = shapely.make_valid(poly)
    return None if poly.is_empty or poly.area <= 0 else poly


def _verdict(not_hidden: int) -> str:
    return "success" if not_hidden <= MAX_NOT_HIDDEN else "failure"


def _validate_players(players: Sequence[str], challenger: str | None) -> tuple[str, ...]:
    seats = tuple(str(p) for p in players)
    if not seats and challenger is not None:
        raise ValueError("players is empty: list the players' colours, e.g. [\"red\", \"blue\"]")
    if len(set(seats)) != len(seats):
        raise ValueError(f"players lists a colour twice: {list(seats)}")
    if challenger is not None and challenger not in seats:
        raise ValueError(f"challenger {challenger!r} is not among the players {list(seats)}")
    return seats


def _chip_list(indices: Sequence[int]) -> str:
    return ", ".join(f"#{i}" for i in indices)


# --------------------------------------------------------------------------------------------- stages


@dataclass(frozen=True)
class _ChipGeometry:
    """Per-chip arrays, shape (n,): the geometric reading of every chip."""

    hidden: np.ndarray
    margin_mm: np.ndarray
    borderline: np.ndarray
    bad_xy: np.ndarray
    board: tuple[str | None, ...]
    band_mm: np.ndarray  # the measurement band each margin was compared with (its nearest edge's uncertainty)


@dataclass(frozen=True)
class _Contest:
    contested: bool
    other: str | None = None
    flip: tuple[int, ...] = ()
    other_not_hidden: int = 0
    doubtful: tuple[int, ...] = ()


#: Role of an acrylic-looking region no board outline was matched to (a board may lie there unread).
UNREAD = "unread"


def _board_flags(state: CarrotainState, polys: list, challenge: list[int], options: CarrotainOptions) -> list[Flag]:
    """Unusable outlines, boards read loosely, not exactly two challenge boards, challenge boards stacked on any
    board."""
    flags = [Flag("bad_board_outline", f"board {b.id} (#{i}) has no usable outline; ignored",
                  {"board": b.id, "index": i}) for i, (b, poly) in enumerate(zip(state.boards, polys)) if poly is None]
    flags += _loose_board_flags(state, polys)
    if len(challenge) != BOARDS_PER_SUCCESS:
        flags.append(Flag("invalid_challenge",
                          f"{len(challenge)} challenge boards found, a challenge uses exactly {BOARDS_PER_SUCCESS}",
                          {"boards": [state.boards[i].id for i in challenge]}))
    usable = [i for i, p in enumerate(polys) if p is not None and state.boards[i].role != UNREAD]
    for a_pos, a in enumerate(usable):
        for b in usable[a_pos + 1:]:
            if a not in challenge and b not in challenge:
                continue  # a pile of unused boards beside the mat breaks no rule
            area = float(shapely.intersection(polys[a], polys[b]).area)
            if area > options.stack_overlap_mm2:
                ida, idb = state.boards[a].id, state.boards[b].id
                flags.append(Flag("stacked_boards",
                                  f"boards {ida} and {idb} overlap by {area:.1f} mm^2 (stacking is not allowed)",
                                  {"boards": [ida, idb], "overlap_mm2": round(area, 2)}))
    return flags


def _loose_board_flags(state: CarrotainState, polys: list) -> list[Flag]:
    """A notice naming the boards read loosely (``BoardReading.loose``), with the outline uncertainty they were
    judged with.

    A notice, not a doubt: the looseness is in the board's outline sigma, so where it could change the verdict the
    chips near its edges are borderline and the verdict is contested (flag ``contested``); where no chip lies
    within that margin, the verdict holds whatever the outline's error within it.
    """
    loose = [i for i, (b, poly) in enumerate(zip(state.boards, polys)) if b.loose and poly is not None]
    if not loose:
        return []
    ids = [state.boards[i].id for i in loose]
    sigmas = [round(float(state.boards[i].pose_sigma_mm), 2) for i in loose]
    text = ", ".join(f"{b} (+/-{s:.1f} mm)" for b, s in zip(ids, sigmas))
    return [Flag("loose_board", f"board(s) {text} read loosely: their edges were found only faintly, so their "
                 "outlines are uncertain by that much; chips within it of an edge are judged borderline",
                 {"boards": ids, "sigma_mm": sigmas})]


def _edge_sigmas(state: CarrotainState, challenge: list[int], nearest: np.ndarray, xy_mm: np.ndarray) -> np.ndarray:
    """Each chip's nearest challenge board's outline uncertainty where it passes nearest the chip (its pose
    covariance along that edge's normal, ``BoardReading.edge_sigma_mm``), mm, shape (n,); ``nearest`` (n,) indexes
    ``challenge``."""
    out = np.zeros(len(xy_mm))
    for k, i in enumerate(challenge):
        mine = nearest == k
        if np.any(mine):
            out[mine] = state.boards[i].edge_sigma_mm(xy_mm[mine])
    return out


def _chip_geometry(state: CarrotainState, xy_mm: np.ndarray, polys: list, challenge: list[int],
                   options: CarrotainOptions) -> _ChipGeometry:
    """Hidden / margin / borderline of every chip against the union of the challenge boards (vectorised).

    ``xy_mm`` (n, 2) may hold non-finite rows: those chips are not hidden and borderline.
    """
    n = len(xy_mm)
    bad_xy = ~np.all(np.isfinite(xy_mm), axis=1)
    xy = np.where(bad_xy[:, None], 0.0, xy_mm)  # keeps NaN out of shapely
    x, y = xy[:, 0], xy[:, 1]
    points = shapely.points(xy) if n else np.empty(0, dtype=object)
    board_of: list[str | None] = [None] * n
    if challenge and n:
        union = shapely.union_all([polys[i] for i in challenge])
        shapely.prepare(union)
        covered = shapely.intersects_xy(union, x, y)  # boundary counts as covered (covers, on purpose)
        dist = shapely.distance(shapely.boundary(union), points)
        # the nearest challenge board's edge: its pose sigma widens the band
        per_board = np.stack([shapely.distance(shapely.boundary(polys[i]), points) for i in challenge])
        board_sigma = _edge_sigmas(state, challenge, np.argmin(per_board, axis=0), xy)
        for k in reversed(challenge):  # the first challenge board whose outline covers each centre
            for i in np.flatnonzero(shapely.intersects_xy(polys[k], x, y) & ~bad_xy):
                board_of[i] = state.boards[k].id
    else:
        covered, dist, board_sigma = np.zeros(n, dtype=bool), np.full(n, np.inf), np.zeros(n)
    radius = np.zeros(n)
    if options.coverage == "whole_dot":
        radius = np.array([options.dot_diameter_mm / 2 if c.kind == "star" else options.hole_diameter_mm / 2
                           for c in state.chips], dtype=np.float64)
    margin = np.where(covered, dist, -dist) - radius
    margin[bad_xy | ~np.isfinite(margin)] = NO_BOARD_MARGIN_MM
    hidden = (margin >= 0.0) & ~bad_xy
    band = np.full(n, float(options.margin_mm))
    if options.use_chip_sigma:
        chip_sigma = np.array([c.centre_sigma_mm for c in state.chips], dtype=np.float64)
        band = np.maximum(band, options.sigma_factor * np.hypot(chip_sigma, board_sigma))
    borderline = (np.abs(margin) <= band) | bad_xy  # a chip with no usable position could be either
    return _ChipGeometry(hidden, margin, borderline, bad_xy, tuple(board_of), band)


def _misplaced_board_chips(state: CarrotainState, polys: list, challenge: list[int], xy_mm: np.ndarray,
                           geo: _ChipGeometry, options: CarrotainOptions) -> tuple[np.ndarray, np.ndarray, list[Flag]]:
    """The chips a misplaced challenge board could change, and a flag naming each board whose place is unsure.

    Unread acrylic (role ``"unread"``) touching a challenge board's outline (within ``unread_touch_mm``) says the fit
    may explain only part of the acrylic there: a fit at the wrong place, or a second board stacked on it. Under
    that reading a board covers the unread region, so a chip not hidden that such a board could reach (every point
    of the region within ``board_reach_mm`` of it) may be hidden, and a chip that fit alone hides but such a board
    could not reach may not be. Both are doubtful (``_contest``).

    Parameters
    ----------
    xy_mm : ndarray, shape (n, 2)

    Returns
    -------
    may_cover, may_uncover : ndarray of bool, shape (n,)
    flags : list[Flag]
        ``board_place_unsure`` per challenge board touched: the board, the unread regions (indices into
        ``state.boards``) and the chips it makes doubtful.
    """
    n = len(xy_mm)
    may_cover, may_uncover = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    unread = [k for k, b in enumerate(state.boards) if b.role == UNREAD and polys[k] is not None]
    if not n or not unread:
        return may_cover, may_uncover, []
    ok = ~geo.bad_xy
    flags = []
    for c in challenge:
        touching = [k for k in unread if float(shapely.distance(polys[c], polys[k])) <= options.unread_touch_mm]
        if not touching:
            continue
        board_id = state.boards[c].id
        only_c = geo.hidden & ok & np.array([geo.board[i] == board_id for i in range(n)], dtype=bool)
        cover, uncover = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        for k in touching:
            region = shapely.get_coordinates(polys[k])
            far_mm = np.max(np.linalg.norm(xy_mm[:, None, :] - region[None, :, :], axis=2), axis=1)
            reach = far_mm <= options.board_reach_mm
            cover |= reach & ok & ~geo.hidden
            uncover |= only_c & ~reach
        may_cover |= cover
        may_uncover |= uncover
        chips = [int(i) for i in np.flatnonzero(cover | uncover)]
        flags.append(Flag("board_place_unsure",
                          f"acrylic not read as a board touches challenge board {board_id}: the board may lie "
                          "elsewhere over it (a fit at the wrong place, or a second board stacked on it)"
                          + (f"; chip(s) {_chip_list(chips)} could change" if chips else ""),
                          {"board": board_id, "unread": touching, "chips": chips}))
    return may_cover, may_uncover, flags


def _contest(geo: _ChipGeometry, uncertain: np.ndarray, may_uncover: np.ndarray) -> _Contest:
    """Could flipping borderline chips (or dropping uncertain not-hidden ones, or uncovering the hidden ones
    ``may_uncover`` marks) change the verdict?"""
    hidden, margin = geo.hidden, geo.margin_mm
    n_not = int(np.count_nonzero(~hidden))
    bl = np.flatnonzero(geo.borderline | (may_uncover & hidden))
    bl_hidden = sorted((int(i) for i in bl if hidden[i]), key=lambda i: abs(margin[i]))
    # not-hidden chips that could drop out of the count: borderline ones first, then phantoms
    could_drop = sorted((int(i) for i in bl if not hidden[i]), key=lambda i: abs(margin[i])) + \
        [int(i) for i in np.flatnonzero(uncertain & ~hidden & ~geo.borderline)]
    verdict = _verdict(n_not)
    if _verdict(n_not - len(could_drop)) == _verdict(n_not + len(bl_hidden)):
        return _Contest(False)
    doubtful = tuple(sorted({int(i) for i in bl} | set(could_drop)))
    if verdict == "success":  # the smallest flip that reaches the other verdict
        flip = bl_hidden[:MAX_NOT_HIDDEN + 1 - n_not]
        return _Contest(True, "failure", tuple(flip), n_not + len(flip), doubtful)
    flip = could_drop[:n_not - MAX_NOT_HIDDEN]
    return _Contest(True, "success", tuple(flip), n_not - len(flip), doubtful)


def _awards(state: CarrotainState, seats: tuple[str, ...], challenger: str | None, verdict: str,
            hidden: np.ndarray) -> dict[str, dict[str, int]]:
    """Boards and chips won per player; with the challenger unknown (None) only what goes to the players by
    colour: on a success the not-hidden chips (the boards and own hidden chips are the unnamed challenger's),
    on a failure up to 2 chips for every colour (the challenger's own colour, whichever it is, takes none)."""
    awards = {p: {"boards": 0, "chips": 0} for p in seats}
    on_mat = {p: [i for i, c in enumerate(state.chips) if c.kind == "star" and c.colour == p] for p in seats}
    if verdict == "success":
        for p in seats:
            awards[p]["chips"] += sum(1 for i in on_mat[p] if not hidden[i])
        if challenger is None:
            return awards
        awards[challenger]["boards"] += BOARDS_PER_SUCCESS
        own_hidden = sum(1 for i in on_mat[challenger] if hidden[i])
        awards[challenger]["chips"] += min(CHIPS_PER_AWARD, own_hidden)
    else:
        for p in seats:
            if p != challenger:
                awards[p]["chips"] += min(CHIPS_PER_AWARD, len(on_mat[p]))
    return awards


def _doubtful_awards(state: CarrotainState, seats: tuple[str, ...], challenger: str | None, verdict: str,
                     hidden: np.ndarray, uncertain: np.ndarray,
                     awards: dict[str, dict[str, int]]) -> dict[int, set[str]]:
    """Uncertain chips whose kind/colour could change an award: chip index -> players affected.

    Each uncertain chip is re-read as every other kind/colour in play (and as no chip at all); a
    reading that changes any player's award makes that award doubtful.
    """
    out: dict[int, set[str]] = {}
    alternatives = [("star", p) for p in seats] + [("colourless", None), (None, None)]
    for i in (int(j) for j in np.flatnonzero(uncertain)):
        c = state.chips[i]
        changed: set[str] = set()
        for kind, colour in alternatives:
            if (kind, colour) == (c.kind, c.colour):
                continue
            chips = list(state.chips)
            keep = np.ones(len(chips), dtype=bool)
            if kind is None:
                keep[i] = False
            else:
                chips[i] = replace(c, kind=kind, colour=colour)
            alt_state = CarrotainState(tuple(ch for ch, k in zip(chips, keep) if k), state.boards, state.flags)
            alt = _awards(alt_state, seats, challenger, verdict, hidden[keep])
            changed |= {p for p in seats if alt[p] != awards[p]}
        if changed:
            out[i] = changed
    return out


def _explain(state: CarrotainState, seats: tuple[str, ...], challenger: str | None, options: CarrotainOptions,
             challenge_ids: tuple[str, ...], geo: _ChipGeometry, contest: _Contest,
             awards: dict[str, dict[str, int]]) -> tuple[str, ...]:
    n = len(state.chips)
    n_not = int(np.count_nonzero(~geo.hidden))
    verdict = _verdict(n_not)
    kinds = {k: sum(1 for c in state.chips if c.kind == k) for k in ("star", "colourless", "first_star")}
    lines = [
        options.describe(),
        f"Challenger {challenger or 'not named'}; challenge boards: "
        f"{' + '.join(challenge_ids) if challenge_ids else 'none'}.",
        f"{n} centre points ({kinds['star']} star, {kinds['colourless']} colourless, {kinds['first_star']} first "
        f"star): {n - n_not} hidden, {n_not} not hidden.",
    ]
    if n_not:
        lines.append("Not hidden: " + ", ".join(
            f"#{i} {state.chips[i].colour or state.chips[i].kind} ({geo.margin_mm[i]:+.1f} mm)"
            for i in np.flatnonzero(~geo.hidden)) + ".")
    lines.append(f"Reading 1 (as measured): {n_not} not hidden -> {verdict.upper()} "
                 f"(success iff at most {MAX_NOT_HIDDEN} are not hidden).")
    if contest.contested:
        how = "hidden (or not chips)" if contest.other == "success" else "not hidden"
        lines.append(f"Reading 2 (chip(s) {_chip_list(contest.flip)} taken as {how}): {contest.other_not_hidden} "
                     f"not hidden -> {str(contest.other).upper()}. The verdict is CONTESTED: check those chips by eye.")
        lines.append("Within the measurement band (chip and board-edge uncertainty where the chip lies): " + ", ".join(
            f"#{i} {geo.margin_mm[i]:+.1f} mm of +-{geo.band_mm[i]:.1f} mm" for i in contest.flip) + ".")
    if challenger is None:
        lines.append(f"{verdict.capitalize()}: awards by chip colour only; the challenger was not named, so "
                     + ("their 2 boards and up to 2 own hidden chips are not counted." if verdict == "success" else
                        "the challenger's colour must give back its chips (it takes none)."))
    elif verdict == "success":
        lines.append(f"Success: {challenger} takes {BOARDS_PER_SUCCESS} boards and up to {CHIPS_PER_AWARD} own "
                     "hidden chips; every not-hidden star chip goes to the player of its colour.")
    else:
        lines.append(f"Failure: every player except {challenger} takes up to {CHIPS_PER_AWARD} own chips from the "
                     "mat; the boards go back.")
    lines.append("Awards: " + "; ".join(
        f"{p} {a['boards']} boards + {a['chips']} chips = {a['boards'] + a['chips']}" for p, a in awards.items()) + ".")
    return tuple(lines)


# --------------------------------------------------------------------------------------------- judge


def adjudicate(
    state: CarrotainState,
    players: Sequence[str],
    challenger: str | None,
    options: CarrotainOptions = CarrotainOptions(),
) -> CarrotainAdjudication:
    """Judge one constellation challenge.

    Parameters
    ----------
    state : CarrotainState
        Chips (centre ``xy_mm``) and boards (``outline_mm`` (N, 2), role) in table mm.
    players : sequence of str
        The colours in play, in seat order (clockwise).
    challenger : str or None
        The player who laid the boards; must be in ``players``. None: not named (a photo judged without
        its context): the verdict is the same, the awards are by chip colour only and flagged.
    options : CarrotainOptions

    Returns
    -------
    CarrotainAdjudication

    Raises
    ------
    ValueError
        Empty players, a colour listed twice, or a challenger not among the players.
    """
    seats = _validate_players(players, challenger)
    n = len(state.chips)
    unnamed = [] if challenger is not None else [Flag(
        "challenger_unknown", "no challenger named: the verdict stands, the awards are by chip colour only (on a "
        "success the challenger's 2 boards and own hidden chips are not counted; on a failure the challenger's "
        "colour takes nothing)", {"players": list(seats)})]
    polys = [_polygon(b.outline_mm) for b in state.boards]
    challenge = [i for i, b in enumerate(state.boards) if b.role == "challenge" and polys[i] is not None]
    challenge_ids = tuple(state.boards[i].id for i in challenge)
    flags = list(state.flags) + unnamed + _board_flags(state, polys, challenge, options)

    xy_mm = np.array([c.xy_mm for c in state.chips], dtype=np.float64).reshape(n, 2)
    geo = _chip_geometry(state, xy_mm, polys, challenge, options)
    if np.any(geo.bad_xy):
        bad = [int(i) for i in np.flatnonzero(geo.bad_xy)]
        flags.append(Flag("bad_chip_position", f"chip(s) {_chip_list(bad)} have no finite position: "
                          "counted as not hidden and borderline", {"chips": bad}))
    uncertain = np.array([c.presence_confidence < options.min_confidence for c in state.chips], dtype=bool)
    unsure_read = uncertain | np.array([c.confidence < options.min_confidence for c in state.chips], dtype=bool)
    if np.any(uncertain):
        unc = [int(i) for i in np.flatnonzero(uncertain)]
        flags.append(Flag("uncertain_chip", f"chip(s) {_chip_list(unc)} detected with presence confidence below "
                          f"{options.min_confidence:g}: they may not be chips", {"chips": unc}))
    in_unread = np.zeros(n, dtype=bool)
    for k, b in enumerate(state.boards):
        if b.role == UNREAD and polys[k] is not None and n:
            in_unread |= shapely.intersects_xy(polys[k], xy_mm[:, 0], xy_mm[:, 1]) & ~geo.bad_xy & ~geo.hidden
    if np.any(in_unread):
        under = [int(i) for i in np.flatnonzero(in_unread)]
        flags.append(Flag("under_unread_acrylic", f"chip(s) {_chip_list(under)} lie under acrylic that was not read "
                          "as a board: they may be hidden", {"chips": under}))
    may_cover, may_uncover, misplaced = _misplaced_board_chips(state, polys, challenge, xy_mm, geo, options)
    flags += misplaced
    for k, b in enumerate(state.boards):
        if b.role in ("challenge", UNREAD) or polys[k] is None or not n:
            continue
        covered = [int(i) for i in np.flatnonzero(shapely.intersects_xy(polys[k], xy_mm[:, 0], xy_mm[:, 1])
                                                   & ~geo.bad_xy)]
        if covered:
            flags.append(Flag("other_board_covers",
                              f"board {b.id} is not a challenge board but covers chip(s) {_chip_list(covered)}",
                              {"board": b.id, "chips": covered}))
    odd = [i for i, c in enumerate(state.chips) if c.kind == "star" and c.colour not in seats]
    if odd:
        colours = sorted({str(state.chips[i].colour) for i in odd})
        flags.append(Flag("unknown_colour", f"star chip(s) {_chip_list(odd)} of colour(s) {', '.join(colours)} not in "
                          "play: they count for the verdict but score for nobody", {"chips": odd, "colours": colours}))

    n_not = int(np.count_nonzero(~geo.hidden))
    verdict = _verdict(n_not)
    contest = _contest(geo, uncertain | in_unread | may_cover, may_uncover)
    if contest.contested:
        flags.append(Flag("contested", f"verdict contested: borderline/uncertain chip(s) "
                          f"{_chip_list(contest.doubtful)} could give {contest.other}",
                          {"chips": list(contest.doubtful), "other_reading": contest.other,
                           "margins_mm": [round(float(geo.margin_mm[i]), 2) for i in contest.doubtful],
                           "bands_mm": [round(float(geo.band_mm[i]), 2) for i in contest.doubtful]}))
    elif np.any(geo.borderline):
        bl = [int(i) for i in np.flatnonzero(geo.borderline)]
        flags.append(Flag("borderline", f"chip(s) {_chip_list(bl)} lie within the measurement margin of an edge; "
                          "the verdict holds either way (awards may differ)", {"chips": bl}))

    awards = _awards(state, seats, challenger, verdict, geo.hidden)
    doubtful = _doubtful_awards(state, seats, challenger, verdict, geo.hidden, unsure_read, awards)
    if doubtful:
        flags.append(Flag("awards_doubtful", "award(s) of " + ", ".join(sorted({p for ps in doubtful.values()
                                                                                for p in ps}))
                          + f" depend on chip(s) {_chip_list(sorted(doubtful))} read with low confidence "
                          "(kind/colour unsure): check them by eye",
                          {"chips": sorted(doubtful), "players": {str(i): sorted(ps) for i, ps in doubtful.items()}}))
    chips = tuple(ChipJudgement(i, c.kind, c.colour, (float(xy_mm[i, 0]), float(xy_mm[i, 1])), bool(geo.hidden[i]),
                                float(geo.margin_mm[i]), bool(geo.borderline[i]), geo.board[i])
                  for i, c in enumerate(state.chips))
    boards_out = tuple(BoardOutline(b.id, np.asarray(b.outline_mm, dtype=np.float64).reshape(-1, 2), b.role)
                       for b in state.boards)
    return CarrotainAdjudication(
        verdict=verdict, contested=contest.contested, other_reading=contest.other, hidden=n - n_not,
        not_hidden=n_not, awards=awards, scores={p: a["boards"] + a["chips"] for p, a in awards.items()},
        chips=chips, boards=boards_out, flags=tuple(flags),
        explanation=_explain(state, seats, challenger, options, challenge_ids, geo, contest, awards),
        challenger=challenger or "", challenge_boards=challenge_ids,
    )
