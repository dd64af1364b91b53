"""Ingenious: colour scores, caps and extra placements, swap right, end of game, ranking. Pure rules.

RULES.md section 4. Decisions where the rulebook is silent (named, listed in explanations):

- ``already_capped``: a colour already at the cap before a placement does not reach it again
  (no extra placement; its points are lost).
- ``team_board``: in the team game partners share one score board, so both show the same numbers.
- ``team_end``: the game ends when one score board has all six colours at 18 (RULES.md: "all six
  colours at 18"), in the team game as well.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring.ingenious import COLOURS, check_colour

CAP = 18
TEAM_CAP = 36


def zero_scores() -> dict[str, int]:
    return {c: 0 for c in COLOURS}


def check_scores(scores: Mapping[str, int], team: bool = False) -> dict[str, int]:
    """Validate six colour scores (missing colours are 0)."""
    top = TEAM_CAP if team else CAP
    out = zero_scores()
    for c, v in scores.items():
        check_colour(c)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= top:
            raise ValueError(f"colour score {c}={v!r} must be an integer 0..{top}")
        out[c] = v
    return out


@dataclass(frozen=True)
class ScoreUpdate:
    """One placement applied to a score board.

    Attributes
    ----------
    before, after : dict colour -> int
    gained : dict colour -> int
        What the placement added per colour after the cap (only colours that rose).
    lost : dict colour -> int
        Raw points lost to a cap.
    reached : tuple of (colour, threshold)
        Each threshold reached in this placement; one extra placement each.
    """

    before: dict[str, int]
    after: dict[str, int]
    gained: dict[str, int]
    lost: dict[str, int]
    reached: tuple[tuple[str, int], ...]

    @property
    def extra_placements(self) -> int:
        return len(self.reached)

    def to_json(self) -> dict:
        return {
            "before": dict(self.before),
            "after": dict(self.after),
            "gained": dict(self.gained),
            "lost": dict(self.lost),
            "reached": [[c, t] for c, t in self.reached],
        }


def apply_points(before: Mapping[str, int], raw: Mapping[str, int], team: bool = False) -> ScoreUpdate:
    """Add a placement's raw points to a score board with the caps.

    Solo/normal: each colour stops at 18; reaching 18 gives an extra placement. Team: a colour
    below 18 stops at 18 in this placement (extra placement); a colour already at 18 or more goes on
    to 36 (extra placement when it reaches 36).
    """
    b = check_scores(before, team)
    after = dict(b)
    gained: dict[str, int] = {}
    lost: dict[str, int] = {}
    reached: list[tuple[str, int]] = []
    for c in COLOURS:
        p = int(raw.get(c, 0))
        if p < 0:
            raise ValueError(f"raw points must not be negative ({c}={p})")
        if p == 0:
            continue
        limit = CAP if (not team or b[c] < CAP) else TEAM_CAP
        new = min(limit, b[c] + p)
        if new > b[c]:
            gained[c] = new - b[c]
        if b[c] + p > new:
            lost[c] = b[c] + p - new
        if b[c] < limit <= b[c] + p:
            reached.append((c, limit))
        after[c] = new
    return ScoreUpdate(b, after, gained, lost, tuple(reached))


def lowest_colours(scores: Mapping[str, int]) -> tuple[str, ...]:
    """The colours at the lowest score (in COLOURS order)."""
    low = min(scores[c] for c in COLOURS)
    return tuple(c for c in COLOURS if scores[c] == low)


@dataclass(frozen=True)
class SwapRight:
    """May the player swap the whole rack after refilling? (RULES.md 4, swap)."""

    allowed: bool
    lowest: tuple[str, ...]
    reason: str

    def to_json(self) -> dict:
        return {"allowed": self.allowed, "lowest": list(self.lowest), "reason": self.reason}


def swap_right(scores: Mapping[str, int], rack: Sequence[tuple[str, str]]) -> SwapRight:
    """Exactly one lowest colour and no rack tile showing it -> the player may swap the rack.

    Parameters
    ----------
    scores : dict colour -> int (the player's board after the turn)
    rack : sequence of (colour, colour)
        The tiles in hand after refilling (normally 6).
    """
    low = lowest_colours(check_scores(scores, team=True))
    if len(low) > 1:
        return SwapRight(False, low, f"the lowest score is shared by {', '.join(low)}: no swap right")
    shown = {check_colour(c) for t in rack for c in t}
    if low[0] in shown:
        return SwapRight(False, low, f"the rack shows the lowest colour {low[0]}: no swap right")
    return SwapRight(True, low, f"{low[0]} is the only lowest colour and no rack tile shows it: may swap the rack")


def all_capped(scores: Mapping[str, int]) -> bool:
    """All six colours at 18 or more (the end condition)."""
    return all(scores[c] >= CAP for c in COLOURS)


@dataclass(frozen=True)
class RankedPlayer:
    name: str
    place: int
    sorted_scores: tuple[int, ...]
    decided_by: str

    def to_json(self) -> dict:
        return {"name": self.name, "place": self.place, "sorted_scores": list(self.sorted_scores),
                "decided_by": self.decided_by}


def rank(scores: Mapping[str, Mapping[str, int]]) -> tuple[RankedPlayer, ...]:
    """Rank players: the highest lowest colour; ties by the second lowest, then the third ...

    Fully tied players share a place (a shared win when it is the first). ``decided_by`` names the
    sorted position that separated a player from the one above (``"lowest"``, ``"2nd lowest"``,
    ...), ``"tie"`` for a full tie, ``""`` for the first.
    """
    keyed = [(n, tuple(sorted(int(s[c]) for c in COLOURS))) for n, s in scores.items()]
    ordered = sorted(keyed, key=lambda e: tuple(-v for v in e[1]))
    names = ("lowest", "2nd lowest", "3rd lowest", "4th lowest", "5th lowest", "highest")
    out: list[RankedPlayer] = []
    for k, (n, key) in enumerate(ordered):
        if k == 0:
            out.append(RankedPlayer(n, 1, key, ""))
            continue
        prev = out[-1]
        diff = next((i for i in range(6) if prev.sorted_scores[i] != key[i]), None)
        if diff is None:
            out.append(RankedPlayer(n, prev.place, key, "tie"))
        else:
            out.append(RankedPlayer(n, k + 1, key, names[diff]))
    return tuple(out)
