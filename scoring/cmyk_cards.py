"""CMYK! public cards: ids and resolution of a reveal order into counted cards with multipliers.

Pure rules (``docs/RULES.md`` section 3). Resolution, in this order:

1. ``let_me_think`` is swapped for the user-entered card, which takes its place (so a ``do_more``
   aimed at it doubles the replacement: "if doubled, swap first"). No answer: it stays as a card worth
   nothing and a ``needs_answer`` flag is raised.
2. ``this_and_that`` leaves the game and is the target of no effect: it is removed from the order. Its two
   extra cards are the next ones in ``public_cards``, or, when given in ``CardAnswers.extra_cards``,
   they are inserted right after it.
3. ``never_mind`` revealed first (after the removals above) leaves the game; the next card counts as
   first (repeatedly).
4. Every other ``never_mind`` cancels the card just before it; cancelling a ``do_more`` cancels that
   doubling, cancelling a ``never_mind`` cancels that cancellation (decision ``never_mind_of_never_mind``).
5. Every active ``do_more`` doubles the card before it (the card after it when it is first). A
   ``do_more`` aimed at a ``do_more`` doubles that one's target again (x4); a run of ``do_more`` cards
   revealed first all aim at the first card after the run. A ``do_more`` aimed at a ``never_mind``, at a
   cancelled card or at nothing has no effect (decision ``do_more_on_never_mind``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.cmyk_state import INKS
from scoring.flags import Flag

CARD_IDS = (
    "omakase", "not_only_hexagons", "want_space", "do_more", "like_this_tile", "never_mind",
    "make_it_wide", "want_height", "make_it_spiky", "mirror_left_right", "mirror_up_down",
    "let_me_think", "want_this_colour", "use_many", "neighbour_colour", "this_and_that",
)
CARD_NAMES_JA = {
    "omakase": "おまかせ！", "not_only_hexagons": "六角形以外も欲しいな！", "want_space": "空間が欲しい！",
    "do_more": "もっとやって！", "like_this_tile": "このタイルいいね！", "never_mind": "やっぱりやめた！",
    "make_it_wide": "横に長くして！", "want_height": "高さが欲しい！", "make_it_spiky": "トゲトゲさせて！",
    "mirror_left_right": "左右対称にして！", "mirror_up_down": "上下対称にして！",
    "let_me_think": "もう少し考えさせて！", "want_this_colour": "この色も欲しい！", "use_many": "たくさん使って！",
    "neighbour_colour": "隣の色もいいな！", "this_and_that": "あれもこれもやって！",
}
# Cards that score points of their own (a breakdown item of the same name).
SCORING_CARDS = (
    "want_space", "like_this_tile", "make_it_wide", "want_height", "make_it_spiky", "mirror_left_right",
    "mirror_up_down", "want_this_colour", "use_many", "neighbour_colour",
)
# Cards that change other points (hexagon value, personal-card factor).
MODIFIER_CARDS = ("omakase", "not_only_hexagons")


@dataclass(frozen=True)
class PersonalCard:
    """A personal card: a colour and a mark level (+1 per tile with an edge of that colour and mark)."""

    colour: str
    level: int

    def __post_init__(self) -> None:
        if self.colour not in INKS:
            raise ValueError(f"personal card colour must be one of {INKS}, not {self.colour!r}")
        if not 0 <= int(self.level) <= 5:
            raise ValueError(f"personal card level must be 0..5, not {self.level!r}")

    def to_json(self) -> dict:
        return {"colour": self.colour, "level": int(self.level)}

    def label(self) -> str:
        return f"{self.colour} {self.level}"


@dataclass(frozen=True)
class CardAnswers:
    """What the page asks users for, about cards whose effect depends on something off the table.

    Attributes
    ----------
    let_me_think : tuple of str
        The replacement card id for each ``let_me_think``, in reveal order.
    want_this_colour : tuple of PersonalCard
        The unused personal card put out by each ``want_this_colour``, in order.
    extra_cards : tuple of (str, str)
        For each ``this_and_that``, in order, the two cards it revealed, when they are not already listed
        after it in ``public_cards``.
    """

    let_me_think: tuple[str, ...] = ()
    want_this_colour: tuple[PersonalCard, ...] = ()
    extra_cards: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ResolvedCard:
    """One revealed card after resolution.

    Attributes
    ----------
    card : str
        The effective card id (the replacement when revealed as ``let_me_think``).
    revealed_as : str
        The id as revealed (``"let_me_think"`` for a swapped card).
    position : int
        Index in the resolved reveal order (extras inserted, nothing removed).
    status : str
        ``"counted"``, ``"cancelled"`` (by a never_mind), ``"left_game"`` (never_mind revealed first),
        ``"out_of_game"`` (this_and_that), ``"unanswered"`` (needs a user answer it did not get),
        ``"applied"`` (an active do_more / never_mind), ``"no_effect"`` (a do_more with nothing to double).
    multiplier : int
        2 ** (active do_more cards aimed at it); 1 otherwise.
    answer : PersonalCard or None
        The personal card a ``want_this_colour`` put out.
    note : str
        Why, for people.
    """

    card: str
    revealed_as: str
    position: int
    status: str
    multiplier: int = 1
    answer: PersonalCard | None = None
    note: str = ""

    @property
    def counted(self) -> bool:
        return self.status == "counted"

    def to_json(self) -> dict:
        out = {"card": self.card, "revealed_as": self.revealed_as, "position": self.position,
               "status": self.status, "multiplier": self.multiplier, "note": self.note}
        if self.answer is not None:
            out["answer"] = self.answer.to_json()
        return out


@dataclass(frozen=True)
class CardResolution:
    """All revealed cards, resolved, with the flags the resolution raised."""

    cards: tuple[ResolvedCard, ...]
    flags: tuple[Flag, ...] = ()

    def counted(self, card: str) -> tuple[ResolvedCard, ...]:
        """The counted cards with that effective id."""
        return tuple(c for c in self.cards if c.counted and c.card == card)


def _check_id(card: str, where: str) -> str:
    if card not in CARD_IDS:
        raise ValueError(f"{where}: unknown card {card!r} (known: {', '.join(CARD_IDS)})")
    return card


def _expand(public_cards: Sequence[str], answers: CardAnswers) -> tuple[list[list], list[Flag]]:
    """Steps 1-2: swap let_me_think, expand/remove this_and_that. Entries: [card, revealed_as, status, note]."""
    flags: list[Flag] = []
    entries: list[list] = []
    n_think = n_that = 0
    for p, raw in enumerate(public_cards):
        card = _check_id(raw, f"public_cards[{p}]")
        revealed = card
        note = ""
        if card == "let_me_think":
            if n_think < len(answers.let_me_think) and answers.let_me_think[n_think] != "let_me_think":
                card = _check_id(answers.let_me_think[n_think], f"answers.let_me_think[{n_think}]")
                note = f"let_me_think swapped for {card} (user answer), which takes its place"
            else:
                flags.append(Flag("needs_answer", "let_me_think: which card replaced it? Scored as worth nothing.",
                                  {"card": "let_me_think", "index": n_think}))
                entries.append([card, revealed, "unanswered", "no replacement card entered: worth nothing"])
                n_think += 1
                continue
            n_think += 1
        if card == "this_and_that":
            extra = answers.extra_cards[n_that] if n_that < len(answers.extra_cards) else None
            if extra is None and len(public_cards) - p - 1 < 2:
                flags.append(Flag("needs_answer", "this_and_that: the two cards it revealed should follow it in "
                                  "public_cards (or be given in answers.extra_cards)",
                                  {"card": "this_and_that", "index": n_that}))
            n_that += 1
            entries.append([card, revealed, "out_of_game", "out of the game, target of no effect"
                            + (f"; revealed {extra[0]} and {extra[1]}" if extra else
                               "; its two cards are the next ones listed")])
            for e in extra or ():
                entries.append([_check_id(e, "answers.extra_cards"), "this_and_that", "", "revealed by this_and_that"])
            continue
        entries.append([card, revealed, "", note])
    return entries, flags


def _do_more_target(seq: list[list], p: int) -> int | None:
    """Index in ``seq`` of the card a do_more at ``p`` finally doubles (following do_more chains)."""
    if p == 0:
        q = 1
        while q < len(seq) and seq[q][0] == "do_more":
            q += 1
        return q if q < len(seq) else None
    q = p - 1
    return _do_more_target(seq, q) if seq[q][0] == "do_more" else q


def resolve_cards(public_cards: Sequence[str], answers: CardAnswers = CardAnswers()) -> CardResolution:
    """Resolve a reveal order into counted cards, multipliers and answers.

    Parameters
    ----------
    public_cards : sequence of str
        Card ids in reveal order (including cards revealed for K tiles and this_and_that).
    answers : CardAnswers
        User answers for let_me_think / want_this_colour / this_and_that.

    Returns
    -------
    CardResolution

    Raises
    ------
    ValueError
        On an unknown card id (naming where it is).
    """
    entries, flags = _expand(public_cards, answers)
    # seq: indices of entries still in the game (not out_of_game), in order
    seq_idx = [k for k, e in enumerate(entries) if e[2] != "out_of_game"]
    while seq_idx and entries[seq_idx[0]][0] == "never_mind":
        e = entries[seq_idx[0]]
        e[2], e[3] = "left_game", "revealed first: leaves the game, the next card counts as first"
        seq_idx.pop(0)
    seq = [entries[k] for k in seq_idx]
    active = [True] * len(seq)
    for p in range(len(seq) - 1, 0, -1):  # later never_minds first: they may cancel earlier ones
        if seq[p][0] == "never_mind" and active[p]:
            active[p - 1] = False
            seq[p][2], seq[p][3] = "applied", f"cancels {seq[p - 1][0]} (the card before it)"
            seq[p - 1][3] = (seq[p - 1][3] + "; " if seq[p - 1][3] else "") + "cancelled by never_mind"
    mult = [1] * len(seq)
    for p, e in enumerate(seq):
        if e[0] != "do_more" or not active[p]:
            continue
        t = _do_more_target(seq, p)
        if t is None:
            e[2], e[3] = "no_effect", "no card to double"
        elif seq[t][0] == "never_mind" or not active[t] or seq[t][2] == "unanswered":
            e[2], e[3] = "no_effect", f"its target ({seq[t][0]}) has no points to double"
        else:
            mult[t] *= 2
            e[2], e[3] = "applied", f"doubles {seq[t][0]}" + (" (revealed first: the next card)" if p == 0 else "")
    for p, e in enumerate(seq):
        if not active[p]:
            e[2] = "cancelled"
        elif e[2] == "":
            e[2] = "counted"
    mult_by_entry = {seq_idx[p]: mult[p] for p in range(len(seq))}
    cards: list[ResolvedCard] = []
    n_want = 0
    for k, (card, revealed, status, note) in enumerate(entries):
        answer = None
        if card == "want_this_colour":  # answers are matched by occurrence, whatever became of the card
            if n_want < len(answers.want_this_colour):
                answer = answers.want_this_colour[n_want]
            elif status == "counted":
                status, note = "unanswered", "no unused personal card entered: worth nothing"
                flags.append(Flag("needs_answer", "want_this_colour: which personal card did it put out? "
                                  "Scored as worth nothing.", {"card": "want_this_colour", "index": n_want}))
            n_want += 1
        cards.append(ResolvedCard(card, revealed, k, status, mult_by_entry.get(k, 1), answer, note))
    seen: dict[str, int] = {}
    for c in cards:
        seen[c.card] = seen.get(c.card, 0) + 1
    repeated = sorted(c for c, n in seen.items() if n > 1)
    if repeated:
        flags.append(Flag("duplicate_card", f"public card(s) {', '.join(repeated)} listed more than once, but each "
                          "exists once: check the reveal order (this_and_that extras listed twice?)",
                          {"cards": repeated}))
    return CardResolution(tuple(cards), tuple(flags))
