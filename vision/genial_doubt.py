"""Why a Genial Spezial token's read is doubtful: typed reasons, each of a kind with its message.

Every decision about a doubtful token (is its side, its numeral, its symbol in doubt; may the other photo, the
token set or the replayed game settle it) reads the reasons' kinds, never their text: the message is what the
players read, and rewording it changes no judgement.

A kind says what it puts in doubt (:class:`Doubted`: the side, the numeral, the symbol); three sets of kinds say
more: :data:`AT_EDGE` (the token lies at the photo's edge: nothing settles it), :data:`FACE_UNCLEAR` (the face's
lightness left the side open: the numeral's ink, the other photo or the replayed game may settle it) and
:data:`AGAINST_REPLAY` (the side read is not the one the replayed game gives).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum, Flag, auto
from string import Formatter
from typing import Any, ClassVar


class Doubted(Flag):
    """What of a token's read a reason puts in doubt (a value in doubt follows from its numeral or its side: the
    side says which two values the numeral chooses between)."""

    SIDE = auto()
    NUMERAL = auto()
    SYMBOL = auto()


_SIDE, _NUMERAL, _SYMBOL = Doubted.SIDE, Doubted.NUMERAL, Doubted.SYMBOL


class _Template:
    """A kind of reason's message template (``template``): the details it names."""

    template: str

    @property
    def fields(self) -> frozenset[str]:
        """The details its message names."""
        return frozenset(self.specs)

    @property
    def specs(self) -> dict[str, str]:
        """The details its message names, each with the format it is shown in."""
        return {f: spec or "" for _, f, spec, _ in Formatter().parse(self.template) if f}


class DoubtKind(_Template, Enum):
    """A kind of reason: its message (a ``str.format`` template of the reason's details) and what it puts in doubt.

    Each kind doubts what its name says, no more (``SIDE_COVERED``: the side, not the symbol whose colour covers
    the disc; ``NUMERAL_CUT`` and ``NUMERAL_OTHER_SIDE``: the numeral, not the side the face, the game or the other
    photo gave; issue 15, tenth round, measured token by token against the truth). ``UNTYPED`` is a doubt given as
    text alone (a state written by hand without kinds): it doubts everything.
    """

    TOKEN_OUTSIDE = ("token outside the photo", _SIDE)
    SIDE_FACE = ("side unclear (face lightness {lightness:.0f})", _SIDE)
    SIDE_COVERED = ("side unclear (the symbol's colour covers {covered:.0%} of the token)", _SIDE)
    SYMBOL_UNSEEN = ("symbol not seen", _SYMBOL)
    SYMBOL_BETWEEN = ("symbol between {first} and {second}", _SYMBOL)
    NUMERAL_SMALL = ("numeral too small to read ({tall_px:.0f} px tall): value {low} or {high}", _NUMERAL)
    NUMERAL_CUT = ("numeral not read (part of it outside the photo): value {low} or {high}", _NUMERAL)
    NUMERAL_UNCLEAR = ("numeral unclear ({value} or {other}, fits {score:.3f} and {other_score:.3f})", _NUMERAL)
    NUMERAL_UNCLEAR_LEARNED = ("numeral unclear ({value} or {other}, fits {score:.3f} and {other_score:.3f}, the "
                               "learned reader reads {learned})", _NUMERAL)
    NUMERAL_OTHER_SIDE = ("numeral not read on this side: value {low} or {high}", _NUMERAL)
    SYMBOL_CLASH = ("symbol read differently on the two photos", _SYMBOL)
    SYMBOL_OVER = ("symbol: more {symbol} tokens read than the set holds", _SYMBOL)
    NUMERAL_CLASH = ("numeral read as different values on the two photos", _NUMERAL)
    NUMERAL_OVER = ("numeral: more {symbol} tokens of light value {light} read than the set holds", _NUMERAL)
    SIDE_AGAINST_REPLAY = ("side read {read}, the replayed game gives {game}", _SIDE)
    SIDE_AS_BEFORE = ("side read {read} as on the before photo, where the replayed game gives the other", _SIDE)
    UNTYPED = ("{text}", _SIDE | _NUMERAL | _SYMBOL)

    def __init__(self, template: str, doubted: Doubted) -> None:
        self.template = template
        self.doubted = doubted



#: The token lies (partly) outside the photo: neither the other photo, the token set nor the replay settles it.
AT_EDGE = frozenset({DoubtKind.TOKEN_OUTSIDE, DoubtKind.NUMERAL_CUT})
#: The face's lightness left the side open (the numeral's ink, the other photo or the replayed game may settle it).
FACE_UNCLEAR = frozenset({DoubtKind.SIDE_FACE, DoubtKind.SIDE_COVERED})
#: The side read is not the one the replayed game gives.
AGAINST_REPLAY = frozenset({DoubtKind.SIDE_AGAINST_REPLAY, DoubtKind.SIDE_AS_BEFORE})


class CellDoubtKind(_Template, Enum):
    """A kind of reason a cell is unreadable: its message (a ``str.format`` template of the reason's details) and
    whether a tower hides the cell from the camera (the rules may then know what lies there from the replay).
    ``UNTYPED`` is a reason given as text alone (a state written by hand without kinds): not hidden."""

    HIDDEN = ("hidden behind the tower at {tower}", True)
    SHADOW = ("dark in the shadow of the tower at {tower}: a black tile or an empty cell", False)
    OUTSIDE = ("outside the photo", False)
    COLOUR_BETWEEN = ("colour between {first} and {second}", False)
    PALE = ("pale but not the board's face (glare on a {second} tile?)", False)
    DARK_COLOURED = ("dark but coloured (chroma {chroma:.0f}): a {hue} tile in shadow?", False)
    UNTYPED = ("{text}", False)

    def __init__(self, template: str, hidden: bool) -> None:
        self.template = template
        self.hidden = hidden


@dataclass(frozen=True)
class _Reason:
    """A reason of some kind (an Enum of message templates) with the details its message names.

    Attributes
    ----------
    kind : DoubtKind or CellDoubtKind
    details : tuple of (name, value)
        The values its message names (sorted by name), e.g. ``(("first", "orange"), ("second", "blue"))``; a
        number is kept as its message shows it (a fit of 0.95037 shown "0.950" is 0.95): two reasons that read
        the same are equal, as the live frames of a still board compare their states. A cell is a tuple.
    """

    kind: Any
    details: tuple[tuple[str, Any], ...] = ()

    #: The kinds a reason of this class is of (its JSON names them).
    KINDS: ClassVar[type[Enum]]

    def __post_init__(self) -> None:
        specs = self.kind.specs
        if {k for k, _ in self.details} != set(specs):
            raise ValueError(f"doubt {self.kind.name.lower()}: details {sorted(k for k, _ in self.details)}, "
                             f"its message names {sorted(specs)}")
        object.__setattr__(self, "details", tuple(sorted((k, _as_shown(v, specs[k])) for k, v in self.details)))

    @property
    def text(self) -> str:
        """The message the players read."""
        return self.kind.template.format(**dict(self.details))

    def detail(self, name: str) -> Any:
        return dict(self.details)[name]

    def to_json(self) -> dict:
        return {"kind": self.kind.name.lower(), **{k: list(v) if isinstance(v, tuple) else v
                                                   for k, v in self.details}}

    @classmethod
    def from_json(cls, obj: Mapping) -> Any:
        name = str(obj["kind"]).upper()
        if name not in cls.KINDS.__members__:
            raise ValueError(f"doubt kind {obj['kind']!r} unknown (known: "
                             f"{', '.join(k.lower() for k in cls.KINDS.__members__)})")
        kind = cls.KINDS[name]
        return cls(kind, tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in obj.items() if k != "kind"))


@dataclass(frozen=True)
class TokenDoubt(_Reason):
    """One reason a token's read is doubtful (kind: :class:`DoubtKind`)."""

    kind: DoubtKind
    KINDS: ClassVar[type[Enum]] = DoubtKind

    def about(self, doubted: Doubted) -> bool:
        """Whether it puts any of ``doubted`` in doubt."""
        return bool(self.kind.doubted & doubted)


@dataclass(frozen=True)
class CellDoubt(_Reason):
    """Why a cell is unreadable (kind: :class:`CellDoubtKind`); its JSON also carries its text as ``why``."""

    kind: CellDoubtKind
    KINDS: ClassVar[type[Enum]] = CellDoubtKind

    @property
    def hidden(self) -> bool:
        """A tower hides the cell from the camera."""
        return self.kind.hidden

    def to_json(self) -> dict:
        return {"why": self.text, **super().to_json()}

    @classmethod
    def from_json(cls, obj: Mapping) -> CellDoubt:
        """From its JSON: typed when it names its ``kind``, else its ``why`` text as one ``UNTYPED`` reason."""
        if "kind" not in obj:
            return cell_doubt(CellDoubtKind.UNTYPED, text=str(obj.get("why", "")))
        return super().from_json({k: v for k, v in obj.items() if k != "why"})


def _as_shown(value: Any, spec: str) -> Any:
    """A number as the format ``spec`` shows it (fixed point or percent), else the value itself."""
    if not isinstance(value, float) or not spec.endswith(("f", "%")):
        return value
    text = format(value, spec)
    return float(text[:-1]) / 100.0 if spec.endswith("%") else float(text)


def doubt(kind: DoubtKind, **details: Any) -> TokenDoubt:
    """A reason of ``kind`` with the details its message names."""
    return TokenDoubt(kind, tuple(details.items()))


def cell_doubt(kind: CellDoubtKind, **details: Any) -> CellDoubt:
    """A cell's reason of ``kind`` with the details its message names."""
    return CellDoubt(kind, tuple(details.items()))


def doubt_text(doubts: Iterable[TokenDoubt]) -> str:
    """The reasons' messages as the players read them, joined by "; " (empty when there are none)."""
    return "; ".join(d.text for d in doubts)


def doubts_from_json(obj: Mapping) -> tuple[TokenDoubt, ...]:
    """A token's reasons from its JSON: ``doubts`` (typed) when given, else its ``doubt`` text as one
    ``UNTYPED`` reason (nothing when empty)."""
    if "doubts" in obj:
        return tuple(TokenDoubt.from_json(d) for d in obj["doubts"])
    text = str(obj.get("doubt", ""))
    return (doubt(DoubtKind.UNTYPED, text=text),) if text else ()
