"""CMYK! ranking: most points; ties by more hexagons, then fewer K tiles, then fewer tiles.

Pure rules. Players still equal on all four keys share a place (standard competition ranking: two
players tied first are both 1st and the next player is 3rd).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RankEntry:
    """What the ranking looks at for one player."""

    name: str
    total: int
    hexagons: int
    k_tiles: int
    tiles: int

    def key(self) -> tuple[int, int, int, int]:
        """Sort key: smaller is better."""
        return (-self.total, -self.hexagons, self.k_tiles, self.tiles)


@dataclass(frozen=True)
class Ranking:
    """Players in finishing order.

    Attributes
    ----------
    order : tuple of str
        Names, best first (input order among full ties).
    places : dict name -> int
        1-based place; fully tied players share the better place.
    decided_by : dict name -> str
        For each player after the first: the key that separated them from the player above
        (``"points"``, ``"hexagons"``, ``"k_tiles"``, ``"tiles"``) or ``"tie"``.
    """

    order: tuple[str, ...]
    places: dict[str, int]
    decided_by: dict[str, str]

    def ties(self) -> tuple[tuple[str, ...], ...]:
        """Groups of two or more players sharing a place."""
        groups: dict[int, list[str]] = {}
        for n in self.order:
            groups.setdefault(self.places[n], []).append(n)
        return tuple(tuple(g) for g in groups.values() if len(g) > 1)


_KEY_NAMES = ("points", "hexagons", "k_tiles", "tiles")


def rank_players(entries: Sequence[RankEntry]) -> Ranking:
    """Rank players by points, then more hexagons, fewer K tiles, fewer tiles.

    Parameters
    ----------
    entries : sequence of RankEntry

    Returns
    -------
    Ranking
    """
    ordered = sorted(entries, key=lambda e: e.key())  # stable: input order among full ties
    places: dict[str, int] = {}
    decided: dict[str, str] = {}
    for k, e in enumerate(ordered):
        if k == 0:
            places[e.name] = 1
            continue
        prev = ordered[k - 1]
        diff = next((name for name, a, b in zip(_KEY_NAMES, prev.key(), e.key()) if a != b), None)
        decided[e.name] = diff or "tie"
        places[e.name] = places[prev.name] if diff is None else k + 1
    return Ranking(tuple(e.name for e in ordered), places, decided)
