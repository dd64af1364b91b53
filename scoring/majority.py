"""Kaleido's majority rule for one set of six cells (a board or a junction hexagon). Pure.

RULES.md section 2: most tiles 8, second most 4; a tie for most splits 8+4 = 12 (rounded down)
and nobody is second; a tie for second splits 4 (rounded down); one colour on all six cells 12;
white never counts. Decision ``lone_first``: a sole first with no second gets 8 (default) or 12.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

NEUTRAL = "white"


@dataclass(frozen=True)
class MajorityRule:
    """The point values and the named decision.

    Attributes
    ----------
    first : int
    second : int
    all_six : int
        One colour on all six cells.
    lone_first : int
        A sole first with no second (the rest white): 8 (rule text, default) or 12.
    neutral : str
        The colour that never counts.
    """

    first: int = 8
    second: int = 4
    all_six: int = 12
    lone_first: int = 8
    neutral: str = NEUTRAL


def majority_points(colours: Iterable[str | None], rule: MajorityRule = MajorityRule()) -> dict[str, int]:
    """Points per colour for one set of cells.

    Parameters
    ----------
    colours : iterable of str or None
        The cells' tile colours; None (empty) and the neutral colour are ignored.
    rule : MajorityRule

    Returns
    -------
    dict[str, int]
        Colour -> points, only colours that score (> 0 points), in rank order.

    Examples
    --------
    >>> majority_points(["red", "red", "red", "white", "white", "green"])
    {'red': 8, 'green': 4}
    >>> majority_points(["red", "red", "blue", "blue", "purple", "purple"])
    {'red': 4, 'blue': 4, 'purple': 4}
    """
    cells = list(colours)
    counts = Counter(c for c in cells if c is not None and c != rule.neutral)
    if not counts:
        return {}
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    top = ranked[0][1]
    firsts = [c for c, n in ranked if n == top]
    if len(firsts) == 1 and top == 6:
        return {firsts[0]: rule.all_six}
    if len(firsts) > 1:
        share = (rule.first + rule.second) // len(firsts)
        return {c: share for c in firsts if share > 0}
    rest = [(c, n) for c, n in ranked if n < top]
    if not rest:
        return {firsts[0]: rule.lone_first}
    second_n = rest[0][1]
    seconds = [c for c, n in rest if n == second_n]
    out = {firsts[0]: rule.first}
    share = rule.second // len(seconds)
    if share > 0:
        out.update({c: share for c in seconds})
    return out
