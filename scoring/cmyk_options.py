"""CMYK! game set-up: players, options (the named decisions) and the context JSON the CLI/page pass.

Pure: no I/O. ``parse_context`` raises ValueError naming the bad field (the CLI turns it into exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from scoring.cmyk_cards import CARD_IDS, CardAnswers, PersonalCard


@dataclass(frozen=True)
class CmykPlayer:
    """A player and their personal card."""

    name: str
    personal_card: PersonalCard


@dataclass(frozen=True)
class CmykOptions:
    """Point values and the named decisions (defaults as in ``RULES.md``).

    Attributes
    ----------
    horizontal : {"H", "P", "N"}
        Lattice edge direction counted as horizontal (rows, runs, mirrors). The vision side already
        makes ``H`` the direction nearest the photo's horizontal; override when the players disagree.
    horizontal_by_player : tuple of (name, direction)
        Per-player override of ``horizontal`` (each mosaic is seen from its own player's seat).
    k_marks_wild_for_cards : bool
        False: a K tile's wild marks match no personal card (K tiles carry no marks). True: a K edge of
        the card's colour counts for personal / want_this_colour / neighbour_colour cards. The other
        reading's total is always reported in ``total_alternatives``. K tiles never count for
        ``like_this_tile`` (the rulebook: "4 such tiles exist", the 4 normal ones).
    omakase_doubled : {"x4", "x3"}
        ``omakase`` doubled by ``do_more``: "x4" doubles its factor (personal x2 -> x4), "x3" doubles the
        points it adds (personal x2 -> x3).
    min_confidence : float
        Tiles or edges read with less confidence are flagged ``low_confidence`` and bound ``total_range``.
    min_k_confidence : float
        The same for K readings, stricter: a K reading moves the total by ``k_tile_points`` and every
        mark-based card at once, and a tile whose marks the photo lost (blur, noise, glare) looks like a K.
    doubt_flagged_cells : bool
        Cells named in the detector's own flags (``MosaicState.flags[].data["cells"]``) also count as
        doubtful for ``total_range`` / ``score_range`` / ``ranking_uncertain``.
    doubt_conflicting_cells : bool
        Readings that contradict each other are doubtful too: both tiles of an illegal contact (one reading
        is wrong, unless the players placed them illegally) and every place of a tile read more than once
        across the table (each tile exists once). However surely each was read, one of them is wrong.
    incomplete_max_cells : int
        A mosaic flagged ``mosaic_incomplete`` bounds its total over every subset of its unread cells
        holding unknown tiles when it has at most this many; with more, the total is reported as not
        judgeable exactly (``score_open``) and the range covers only the readings tried.
    """

    horizontal: str = "H"
    horizontal_by_player: tuple[tuple[str, str], ...] = ()
    k_marks_wild_for_cards: bool = False
    omakase_doubled: str = "x4"
    hexagon_points: int = 5
    not_only_hexagons_points: int = 3
    k_tile_points: int = -3
    personal_card_cap: int = 6
    space_points: int = 4
    like_this_tile_points: int = 3
    wide_tiles_per_point: int = 2
    mirror_lr_points: int = 6
    mirror_ud_points: int = 7
    use_many_first_points: int = 5
    use_many_second_points: int = 3
    min_confidence: float = 0.6
    min_k_confidence: float = 0.9
    doubt_flagged_cells: bool = True
    doubt_conflicting_cells: bool = True
    incomplete_max_cells: int = 6

    def __post_init__(self) -> None:
        for name, d in (("", self.horizontal), *self.horizontal_by_player):
            if d not in ("H", "P", "N"):
                raise ValueError(f"options.horizontal{'_by_player.' + name if name else ''} must be H, P or N, "
                                 f"not {d!r}")
        if self.omakase_doubled not in ("x4", "x3"):
            raise ValueError(f"options.omakase_doubled must be 'x4' or 'x3', not {self.omakase_doubled!r}")

    def decisions(self) -> dict[str, str]:
        """The named readings applied, for the result's ``decisions`` and explanation."""
        return {
            "horizontal": f"lattice rows along the {self.horizontal} edges (rows nearest the photo's horizontal)",
            "k_tile_marks": ("K edges match personal cards of their colour (wild)" if self.k_marks_wild_for_cards
                             else "K matches no personal card / like_this_tile (alternative listed)"),
            "use_many": "flat points per player: most tiles 5 (ties: each 5, no second), second most 3 each",
            "omakase_doubled": ("do_more on omakase: personal points x4" if self.omakase_doubled == "x4"
                                else "do_more on omakase: personal points x3"),
            "do_more": "do_more on do_more: x4; on never_mind or a cancelled card: no effect",
            "never_mind": "never_mind on never_mind cancels that cancellation",
            "mirrors": "the lattice's own vertical / horizontal mirror lines, every position tried",
        }

def _personal_card(obj: object, where: str) -> PersonalCard:
    if not isinstance(obj, dict) or "colour" not in obj or "level" not in obj:
        raise ValueError(f"{where}: expected {{\"colour\": ..., \"level\": 0..5}}")
    lv = obj["level"]
    if isinstance(lv, bool) or not isinstance(lv, int):
        raise ValueError(f"{where}.level: expected an integer 0..5, got {lv!r}")
    try:
        return PersonalCard(str(obj["colour"]), lv)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def parse_cmyk_context(obj: dict) -> tuple[tuple[CmykPlayer, ...], tuple[str, ...], CardAnswers]:
    """Read the CLI context ``{"players": [...], "public_cards": [...], "answers": {...}}``.

    Returns
    -------
    (players, public_cards, answers)

    Raises
    ------
    ValueError
        Naming the bad field.
    """
    if not isinstance(obj, dict):
        raise ValueError("context: expected a JSON object")
    raw = obj.get("players")
    if not isinstance(raw, list) or not raw:
        raise ValueError("players: expected a non-empty list of {\"name\", \"personal_card\"}")
    players = []
    for k, p in enumerate(raw):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].strip():
            raise ValueError(f"players[{k}].name: expected a non-empty string")
        players.append(CmykPlayer(p["name"], _personal_card(p.get("personal_card"), f"players[{k}].personal_card")))
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"players: names must be distinct, got {names}")
    cards = obj.get("public_cards", [])
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise ValueError("public_cards: expected a list of card ids")
    for k, c in enumerate(cards):
        if c not in CARD_IDS:
            raise ValueError(f"public_cards[{k}]: unknown card {c!r} (known: {', '.join(CARD_IDS)})")
    ans = obj.get("answers", {}) or {}
    if not isinstance(ans, dict):
        raise ValueError("answers: expected an object")
    think = ans.get("let_me_think", [])
    if not isinstance(think, list) or any(c not in CARD_IDS for c in think):
        raise ValueError("answers.let_me_think: expected a list of card ids")
    want = ans.get("want_this_colour", [])
    if not isinstance(want, list):
        raise ValueError("answers.want_this_colour: expected a list of personal cards")
    extra = ans.get("extra_cards", [])
    if not isinstance(extra, list) or any(not isinstance(e, list) or len(e) != 2 or any(c not in CARD_IDS for c in e)
                                          for e in extra):
        raise ValueError("answers.extra_cards: expected a list of [card, card] pairs")
    answers = CardAnswers(
        let_me_think=tuple(think),
        want_this_colour=tuple(_personal_card(w, f"answers.want_this_colour[{k}]") for k, w in enumerate(want)),
        extra_cards=tuple((e[0], e[1]) for e in extra),
    )
    return tuple(players), tuple(cards), answers


def parse_cmyk_options(obj: dict) -> CmykOptions:
    """Read optional ``"options": {...}`` of a context into :class:`CmykOptions` (ValueError on bad fields)."""
    raw = obj.get("options", {}) if isinstance(obj, dict) else {}
    if not isinstance(raw, dict):
        raise ValueError("options: expected an object")
    defaults = CmykOptions()
    known = [f.name for f in fields(CmykOptions)]
    out = {}
    for key, value in raw.items():
        if key not in known:
            raise ValueError(f"options.{key}: unknown option (known: {', '.join(known)})")
        want = type(getattr(defaults, key))
        if key == "horizontal_by_player":
            if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
                raise ValueError("options.horizontal_by_player: expected {player name: \"H\"|\"P\"|\"N\"}")
            value = tuple(sorted(value.items()))
        elif want is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        elif type(value) is not want:
            raise ValueError(f"options.{key}: expected {want.__name__}, got {value!r}")
        out[key] = value
    return CmykOptions(**out)

@dataclass(frozen=True)
class CmykContext:
    """Everything a CLI/page context says about a CMYK! game (see :func:`parse_context`)."""

    players: tuple[CmykPlayer, ...]
    public_cards: tuple[str, ...]
    answers: CardAnswers = CardAnswers()
    options: CmykOptions = CmykOptions()


def parse_context(obj: dict) -> CmykContext:
    """The whole context object (players, public_cards, optional answers and options) -> CmykContext.

    Raises
    ------
    ValueError
        Naming the bad field (the CLI turns it into exit 2).
    """
    players, cards, answers = parse_cmyk_context(obj)
    return CmykContext(players, cards, answers, parse_cmyk_options(obj))
