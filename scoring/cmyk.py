"""CMYK! scoring of finished mosaics (``docs/RULES.md`` section 3). Pure rules: no images, no I/O.

Call :func:`score_game` with the players (clockwise from above; a player's right-hand neighbour is the
previous one in the list), one :class:`~scoring.cmyk_state.MosaicState` per player in the same order,
the public cards in reveal order and the users' answers. Every decision where the rulebook is silent is
a field of :class:`CmykOptions` and is listed in the result's ``decisions`` and explanation.

Readings of the rulebook (``seeds/004``) where ``RULES.md`` is terse:

- ``use_many`` gives flat points per player, not per tile: 「1番多い人が5点、2番目に多い人が3点 …
  それぞれ5点(2位はなし)」 -- the most tiles scores 5, tied firsts each 5 and nobody second, the second
  most scores 3 (tied seconds each 3). Tiles counted include K tiles (「配置したタイル数」).
- ``neighbour_colour`` doubled by ``do_more`` doubles only the neighbour card's points; it and
  ``want_this_colour`` use the personal-card rule (cap 6 before doubling) and are doubled by ``omakase``.
- ``like_this_tile`` never counts a K tile (「該当タイルは全体で4枚」: the four normal ones).
- Card resolution (do_more / never_mind / let_me_think / this_and_that): ``scoring.cmyk_cards``.

Besides the points, the result says how sure it is: illegal contacts (with the likely misread edge),
impossible or duplicated tile readings, and ``total_range`` / ``score_range`` / ``ranking_uncertain`` for
totals and places that doubtful readings could change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from itertools import combinations

from geometry.mosaic import IllegalContact, MosaicGeometry, analyse_shape, illegal_contacts
from scoring.cmyk_cards import (
    SCORING_CARDS,
    CardAnswers,
    CardResolution,
    PersonalCard,
    resolve_cards,
)
from scoring.cmyk_checks import (
    K_TILES_IN_SET,
    conflicting_cells,
    doubtful_reading,
    duplicate_readings,
    flagged_cells,
    mosaic_flags,
    tile_set_flags,
)
from scoring.cmyk_options import (
    CmykContext,
    CmykOptions,
    CmykPlayer,
    parse_cmyk_context,
    parse_cmyk_options,
    parse_context,
)
from scoring.cmyk_state import MosaicState, TileReading
from scoring.flags import Flag
from scoring.ranking import RankEntry, Ranking, rank_players

__all__ = [
    "CardAnswers", "CmykContext", "CmykOptions", "CmykPlayer", "CmykResult", "PersonalCard", "PlayerScore",
    "adjudicate_mosaics", "parse_cmyk_context", "parse_cmyk_options", "parse_context", "score_game",
]


@dataclass(frozen=True)
class PlayerScore:
    """One player's scored mosaic.

    Attributes
    ----------
    breakdown : tuple of (item, points)
        ``hexagons``, ``personal_card``, one item per counted scoring card (reveal order), ``k_tiles``.
    cards_counted : tuple of (card, multiplier)
        Counted public cards other than do_more / never_mind.
    total_alternatives : tuple of int
        Totals under every reading of ``k_marks_wild_for_cards`` (sorted, distinct).
    total_range : (int, int)
        Lowest and highest total if the doubtful readings (tile or edge confidence below
        ``min_confidence``, or cells the detector flagged) counted for no mark-based card / for every
        one, a doubtful K tile were a normal one, and doubtful normal tiles K tiles as far as the set has K
        tiles unread (equal to ``total`` when nothing is doubtful); readings that contradict another (an
        illegal contact, a tile read twice) are doubtful too.
    """

    name: str
    tiles: int
    hexagons: int
    k_tiles: int
    illegal: tuple[IllegalContact, ...]
    breakdown: tuple[tuple[str, int], ...]
    total: int
    geometry: MosaicGeometry
    cards_counted: tuple[tuple[str, int], ...]
    total_alternatives: tuple[int, ...]
    explanation: tuple[str, ...]
    total_range: tuple[int, int] = (0, 0)

    def breakdown_json(self) -> dict[str, int]:
        """Item -> points (a card listed twice adds up under its one name)."""
        out: dict[str, int] = {}
        for item, pts in self.breakdown:
            out[item] = out.get(item, 0) + pts
        return out

    def to_json(self) -> dict:
        return {
            "tiles": self.tiles, "hexagons": self.hexagons, "k_tiles": self.k_tiles,
            "illegal_contacts": len(self.illegal),
            "illegal_contact_cells": [c.to_json() for c in self.illegal],
            "breakdown": self.breakdown_json(), "total": self.total, "geometry": self.geometry.to_json(),
            "cards_counted": [list(c) for c in self.cards_counted],
            "total_alternatives": list(self.total_alternatives),
            "total_range": list(self.total_range),
        }


@dataclass(frozen=True)
class CmykResult:
    """The judgement of one CMYK! game."""

    players: tuple[PlayerScore, ...]
    ranking: Ranking
    cards: CardResolution
    flags: tuple[Flag, ...]
    explanation: tuple[str, ...]
    decisions: dict[str, str]

    @property
    def scores(self) -> dict[str, int]:
        return {p.name: p.total for p in self.players}

    def to_json(self) -> dict:
        return {
            "game": "cmyk",
            "players": {p.name: p.to_json() for p in self.players},
            "ranking": list(self.ranking.order),
            "places": dict(self.ranking.places),
            "scores": self.scores,
            "flags": [f.to_json() for f in self.flags],
            "explanation": list(self.explanation),
            "cards_resolved": [c.to_json() for c in self.cards.cards],
            "decisions": dict(self.decisions),
        }


def _is_k(tile: TileReading) -> bool:
    return tile.kind.lower() == "k"


def _card_tiles(tiles: Sequence[TileReading], card: PersonalCard, k_wild: bool,
                doubt: tuple[frozenset, str] = (frozenset(), "")) -> list[tuple[int, int]]:
    """Cells of tiles having an edge of the card's colour with the card's mark.

    ``doubt`` = (doubtful cells, mode): mode "low" counts no doubtful tile, "high" counts every one.
    """
    out = []
    for t in tiles:
        if t.cell in doubt[0] and doubt[1]:
            if doubt[1] == "high":
                out.append(t.cell)
            continue
        if _is_k(t) and not k_wild:
            continue
        if any(e.colour == card.colour and (e.level == card.level or (e.level is None and _is_k(t)))
               for e in t.edges.values()):
            out.append(t.cell)
    return out


def _same_mark_tiles(tiles: Sequence[TileReading], doubt: tuple[frozenset, str] = (frozenset(), "")
                     ) -> list[tuple[int, int]]:
    out = []
    for t in tiles:
        if t.cell in doubt[0] and doubt[1]:
            if doubt[1] == "high":
                out.append(t.cell)
            continue
        levels = [e.level for e in t.edges.values()]
        if not _is_k(t) and len(levels) == 3 and None not in levels and len(set(levels)) == 1:
            out.append(t.cell)
    return out


def _cells(cells: Sequence[tuple[int, int]], limit: int = 8) -> str:
    s = " ".join(f"({i},{j})" for i, j in cells[:limit])
    return s + (f" +{len(cells) - limit} more" if len(cells) > limit else "")


def _use_many_points(counts: dict[str, int], name: str, o: CmykOptions) -> tuple[int, str]:
    """Flat use_many points for ``name`` and why."""
    values = sorted(set(counts.values()), reverse=True)
    first = [n for n, c in counts.items() if c == values[0]]
    mine = counts[name]
    if mine == values[0]:
        return o.use_many_first_points, f"most tiles ({mine}{', tied' if len(first) > 1 else ''})"
    if len(first) == 1 and len(values) > 1 and mine == values[1]:
        return o.use_many_second_points, f"second most tiles ({mine})"
    return 0, f"{mine} tiles: neither most nor second" + (" (first place tied: no second)" if len(first) > 1 else "")


def _score_player(k: int, players: Sequence[CmykPlayer], mosaic: MosaicState, res: CardResolution,
                  counts: dict[str, int], o: CmykOptions, k_wild: bool,
                  doubt: tuple[frozenset, str] = (frozenset(), ""), k_spare: int = 0) -> PlayerScore:
    """Score one mosaic; ``doubt`` (cells, "low"/"high") bounds what doubtful readings could give: "high" counts a
    doubtful K tile as a normal one, "low" counts up to ``k_spare`` doubtful normal tiles (the K tiles the set
    still has unread) as K tiles - a K tile is what a tile looks like whose marks the photo lost, and the other
    way round."""
    player = players[k]
    tiles = mosaic.tiles
    cells = [t.cell for t in tiles]
    geo = analyse_shape(cells, dict(o.horizontal_by_player).get(player.name, o.horizontal))
    n_k = sum(_is_k(t) for t in tiles)
    if doubt[1] == "high":
        n_k_pen = n_k - sum(_is_k(t) and t.cell in doubt[0] for t in tiles)
    elif doubt[1] == "low":
        n_k_pen = n_k + min(k_spare, sum(not _is_k(t) and t.cell in doubt[0] for t in tiles))
    else:
        n_k_pen = n_k
    illegal = illegal_contacts({t.cell: {d: (e.colour, e.level) for d, e in t.edges.items()} for t in tiles})
    lines: list[str] = []
    bd: list[tuple[str, int]] = []
    who = player.name

    hex_value = o.hexagon_points
    for c in res.counted("not_only_hexagons"):
        hex_value = o.not_only_hexagons_points * c.multiplier
    bd.append(("hexagons", len(geo.hexagons) * hex_value))
    lines.append(f"{who}: hexagons {len(geo.hexagons)} x {hex_value} = {bd[-1][1]}"
                 + (f" (around vertices {_cells(list(geo.hexagons))})" if geo.hexagons else ""))

    factor = 1
    for c in res.counted("omakase"):
        factor *= 2 * c.multiplier if o.omakase_doubled == "x4" else 1 + c.multiplier
    fx = f" x{factor} (omakase)" if factor != 1 else ""

    def card_points(card: PersonalCard) -> tuple[int, str]:
        hits = _card_tiles(tiles, card, k_wild, doubt)
        base = min(len(hits), o.personal_card_cap)
        cap = f", capped at {o.personal_card_cap}" if len(hits) > o.personal_card_cap else ""
        return base * factor, f"{card.label()}: {len(hits)} tiles {_cells(hits)}{cap}{fx}"

    pts, why = card_points(player.personal_card)
    bd.append(("personal_card", pts))
    lines.append(f"{who}: personal card {why} = {pts}")

    counted: list[tuple[str, int]] = []
    for c in res.cards:
        if c.status == "unanswered" and c.card in SCORING_CARDS:
            bd.append((c.card, 0))
            lines.append(f"{who}: {c.card} not scored: {c.note} (needs_answer)")
            continue
        if not c.counted or c.card in ("do_more", "never_mind"):
            continue
        counted.append((c.card, c.multiplier))
        if c.card not in SCORING_CARDS:
            continue
        m = c.multiplier
        mx = f" x{m} (do_more)" if m != 1 else ""
        if c.card == "want_space":
            p = len(geo.holes) * o.space_points * m
            why = f"{len(geo.holes)} enclosed single holes {_cells(list(geo.holes))} x {o.space_points}"
        elif c.card == "like_this_tile":
            same = _same_mark_tiles(tiles, doubt)
            p = len(same) * o.like_this_tile_points * m
            why = f"{len(same)} tiles with three equal marks {_cells(same)} x {o.like_this_tile_points}"
        elif c.card == "make_it_wide":
            p = geo.longest_run // o.wide_tiles_per_point * m
            why = (f"longest row run {geo.longest_run} tiles {_cells(list(geo.longest_run_cells), 3)}, "
                   f"1 point per {o.wide_tiles_per_point}")
        elif c.card == "want_height":
            p, why = geo.rows * m, f"{geo.rows} rows hold tiles"
        elif c.card == "make_it_spiky":
            p, why = len(geo.spiky) * m, f"{len(geo.spiky)} tiles touch exactly one tile {_cells(list(geo.spiky))}"
        elif c.card == "mirror_left_right":
            p = o.mirror_lr_points * m if geo.mirror_lr else 0
            why = "shape symmetric left-right" if geo.mirror_lr else "shape not symmetric left-right"
        elif c.card == "mirror_up_down":
            p = o.mirror_ud_points * m if geo.mirror_ud else 0
            why = "shape symmetric up-down" if geo.mirror_ud else "shape not symmetric up-down"
        elif c.card == "want_this_colour":
            assert c.answer is not None  # counted cards of this kind carry their answer
            p, why = card_points(c.answer)
            p *= m
        elif c.card == "neighbour_colour":
            if len(players) < 2:
                p, why = 0, "no right-hand neighbour (one player)"
            else:
                right = players[k - 1]
                p, why = card_points(right.personal_card)
                p *= m
                why = f"right-hand neighbour {right.name}'s card {why}"
        else:  # use_many
            p, why = _use_many_points(counts, who, o)
            p *= m
        bd.append((c.card, p))
        lines.append(f"{who}: {c.card} {why}{mx} = {p}")

    bd.append(("k_tiles", n_k_pen * o.k_tile_points))
    lines.append(f"{who}: K tiles {n_k_pen} x {o.k_tile_points} = {bd[-1][1]}")
    total = sum(p for _, p in bd)
    return PlayerScore(who, len(tiles), len(geo.hexagons), n_k, illegal, tuple(bd), total, geo,
                       tuple(counted), (total,), tuple(lines), (total, total))


def unread_cells(mosaic: MosaicState) -> tuple[tuple[int, int], ...]:
    """Cells the detector could not read (``mosaic_incomplete`` flags), without the read ones, sorted."""
    read = {t.cell for t in mosaic.tiles}
    out = set()
    for f in mosaic.flags:
        if f.code == "mosaic_incomplete":
            out |= {(int(c[0]), int(c[1])) for c in f.data.get("unread_cells", [])}
    return tuple(sorted(out - read))


def unexplained_regions(mosaic: MosaicState) -> int:
    """Tile-coloured regions off the lattice cells that the detector could not read (``mosaic_incomplete``)."""
    return sum(int(f.data.get("unexplained_regions", 0)) for f in mosaic.flags if f.code == "mosaic_incomplete")


def _with_unknown_tiles(mosaic: MosaicState, cells: Sequence[tuple[int, int]], k_left: bool) -> MosaicState:
    """The mosaic with a tile of unknown marks in each cell (a K tile when the set still has one unread)."""
    extra = tuple(TileReading(cell=c, kind="k" if k_left else "normal", edges={}, confidence=0.0) for c in cells)
    return MosaicState(tiles=mosaic.tiles + extra, flags=mosaic.flags)


def _unread_totals(k: int, players: Sequence[CmykPlayer], mosaics: Sequence[MosaicState], res: CardResolution,
                   counts: dict[str, int], unread: dict, doubtful: frozenset, k_spare: int,
                   o: CmykOptions) -> tuple[list[int], bool]:
    """Player k's totals over the readings the unread cells leave open, and whether they are all of them.

    Every subset of k's unread cells holds tiles of unknown marks (counting for nothing and for everything,
    and as a K tile where one is left); the other players' unread cells only change tile counts
    (``use_many``): none filled, or all. With more than ``o.incomplete_max_cells`` cells, only none, all
    and each single cell are tried (not exhaustive); with tile-coloured regions off the lattice cells
    (``unexplained_regions`` of ``mosaic_incomplete``) the cells tried are not all there is (not exhaustive).
    """
    name = players[k].name
    mine = list(unread[name])
    others_max = {n: c + (len(unread[n]) if n != name else 0) for n, c in counts.items()}
    enumerable = len(mine) <= o.incomplete_max_cells
    # tile-coloured regions off the lattice cells may hold tiles no cell enumerates: then no bound is exhaustive
    exhaustive = enumerable and not unexplained_regions(mosaics[k])
    if enumerable:
        subsets = [list(s) for r in range(len(mine) + 1) for s in combinations(mine, r)]
    else:
        subsets = [[], mine] + [[c] for c in mine]
    totals = []
    for sub in subsets:
        m = _with_unknown_tiles(mosaics[k], sub, k_spare > 0)
        for others in (counts, others_max):
            cnt = {**others, name: counts[name] + len(sub)}
            for mode in ("low", "high"):
                totals.append(_score_player(k, players, m, res, cnt, o, o.k_marks_wild_for_cards,
                                            (doubtful | frozenset(sub), mode), k_spare).total)
    return totals, exhaustive


def score_game(players: Sequence[CmykPlayer], mosaics: Sequence[MosaicState], public_cards: Sequence[str],
               answers: CardAnswers = CardAnswers(), options: CmykOptions = CmykOptions()) -> CmykResult:
    """Score every player's mosaic, rank them, and explain.

    Parameters
    ----------
    players : sequence of CmykPlayer
        Clockwise as seen from above; a player's right-hand neighbour is the previous one (wrapping).
    mosaics : sequence of MosaicState
        One per player, same order.
    public_cards : sequence of str
        Public card ids in reveal order.
    answers : CardAnswers
    options : CmykOptions

    Returns
    -------
    CmykResult

    Raises
    ------
    ValueError
        Players and mosaics differ in number, duplicate or empty names, unknown card ids.
    """
    if len(players) != len(mosaics):
        raise ValueError(f"{len(players)} players but {len(mosaics)} mosaics (one image per player)")
    if not players:
        raise ValueError("players: at least one player is needed")
    names = [p.name for p in players]
    if len(set(names)) != len(names) or not all(names):
        raise ValueError(f"players: names must be non-empty and distinct, got {names}")
    res = resolve_cards(public_cards, answers)
    counts = {p.name: len(m.tiles) for p, m in zip(players, mosaics)}
    unread = {p.name: unread_cells(m) for p, m in zip(players, mosaics)}
    k_spare = max(0, K_TILES_IN_SET - sum(_is_k(t) for m in mosaics for t in m.tiles))  # K tiles not read
    duplicates = duplicate_readings(names, mosaics)
    flags: list[Flag] = list(res.flags)
    scores = []
    ranges: dict[str, tuple[int, int]] = {}
    for k, mosaic in enumerate(mosaics):
        name = players[k].name
        s = _score_player(k, players, mosaic, res, counts, options, options.k_marks_wild_for_cards)
        alt = _score_player(k, players, mosaic, res, counts, options, not options.k_marks_wild_for_cards)
        flags.extend(mosaic_flags(name, mosaic, s.illegal, options.min_confidence, options.min_k_confidence))
        doubtful = frozenset(t.cell for t in mosaic.tiles
                             if doubtful_reading(t, options.min_confidence, options.min_k_confidence))
        if options.doubt_flagged_cells:
            doubtful |= flagged_cells(mosaic) & {t.cell for t in mosaic.tiles}
        if options.doubt_conflicting_cells:
            doubtful |= conflicting_cells(name, mosaic, s.illegal, duplicates)
        lo = hi = s.total
        if doubtful:  # doubtful mark readings counting for nothing / for everything they could
            lo, hi = (_score_player(k, players, mosaic, res, counts, options, options.k_marks_wild_for_cards,
                                    (doubtful, mode), k_spare).total for mode in ("low", "high"))
            lo, hi = min(lo, s.total), max(hi, s.total)
        exhaustive = True
        if any(unread.values()):  # unread cells (this mosaic's, or others' through use_many) could hold tiles
            totals, exhaustive = _unread_totals(k, players, mosaics, res, counts, unread, doubtful, k_spare, options)
            lo, hi = min(lo, *totals), max(hi, *totals)
        ranges[name] = (lo, hi)
        if unread[name]:
            n_unread = len(unread[name])
            if exhaustive:
                flags.append(Flag("score_range", f"{name}: {s.total} as read, {lo}..{hi} with the {n_unread} unread "
                                  f"cell(s) empty or holding any tile, and the doubtful readings",
                                  {"player": name, "range": [lo, hi], "cells": [list(c) for c in unread[name]]}))
            else:
                off = unexplained_regions(mosaic)
                flags.append(Flag("score_open", f"{name}: cannot judge the total exactly: {n_unread} lattice cells "
                                  f"of the mosaic were not read"
                                  + (f" and {off} tile-coloured region(s) lie off them" if off else "")
                                  + f"; {s.total} as read, {lo}..{hi} over the readings tried, "
                                  "possibly beyond; retake the photo with the whole mosaic clear",
                                  {"player": name, "range": [lo, hi], "cells": [list(c) for c in unread[name]]}))
        elif lo != hi:
            flags.append(Flag("score_range", f"{name}: {s.total} as read, {lo}..{hi} depending on "
                              f"{len(doubtful)} doubtful tile reading(s) (mark-based cards, K tiles)"
                              + (", and other players' unread cells" if any(unread.values()) else ""),
                              {"player": name, "range": [lo, hi], "cells": [list(c) for c in sorted(doubtful)]}))
        keep = {f.name: getattr(s, f.name) for f in fields(s) if f.name not in ("total_alternatives", "total_range")}
        scores.append(PlayerScore(**keep, total_alternatives=tuple(sorted({s.total, alt.total})),
                                  total_range=(lo, hi)))
        if alt.total != s.total:
            flags.append(Flag("k_tile_reading", f"{name}: the K tile's wild marks change the total "
                              f"({s.total} as decided, {alt.total} if they matched personal cards)",
                              {"player": name, "totals": [s.total, alt.total]}))
    flags.extend(tile_set_flags([p.name for p in players], mosaics))
    ranking = rank_players([RankEntry(p.name, p.total, p.hexagons, p.k_tiles, p.tiles) for p in scores])
    for above, below in zip(ranking.order, ranking.order[1:]):
        if ranges[below][1] >= ranges[above][0] and ranges[above] != ranges[below]:
            flags.append(Flag("ranking_uncertain", f"{above} ahead of {below} depends on doubtful mark readings "
                              f"({above} {ranges[above][0]}..{ranges[above][1]}, "
                              f"{below} {ranges[below][0]}..{ranges[below][1]})",
                              {"players": [above, below], "ranges": [list(ranges[above]), list(ranges[below])]}))
    for group in ranking.ties():
        flags.append(Flag("tie", f"{', '.join(group)} are tied on points, hexagons, K tiles and tiles: "
                          "they share the place", {"players": list(group)}))
    decisions = options.decisions()
    expl: list[str] = []
    for c in res.cards:
        expl.append(f"card {c.position + 1} {c.revealed_as}"
                    + (f" -> {c.card}" if c.card != c.revealed_as else "")
                    + f": {c.status}" + (f" x{c.multiplier}" if c.multiplier != 1 else "")
                    + (f" ({c.note})" if c.note else ""))
    for s in scores:
        expl.extend(s.explanation)
        expl.append(f"{s.name}: total {s.total}")
    by_name = {p.name: p for p in scores}
    expl.append("ranking: " + ", ".join(f"{ranking.places[n]}. {n} {by_name[n].total}" for n in ranking.order))
    for n in ranking.order[1:]:
        if ranking.decided_by[n] != "points":
            expl.append(f"ranking: {n} placed {ranking.places[n]}, decided by "
                        + {"hexagons": "fewer hexagons", "k_tiles": "more K tiles", "tiles": "more tiles",
                           "tie": "nothing: a full tie, the place is shared"}[ranking.decided_by[n]])
    expl.extend(f"decision {k}: {v}" for k, v in decisions.items())
    return CmykResult(tuple(scores), ranking, res, tuple(flags), tuple(expl), decisions)


def adjudicate_mosaics(mosaics: Sequence[MosaicState], ctx: CmykContext) -> dict:
    """Score one mosaic per player (context order) and return the CLI contract's JSON fields."""
    return score_game(ctx.players, mosaics, ctx.public_cards, ctx.answers, ctx.options).to_json()
