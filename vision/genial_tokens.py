"""What the photos of one camera read of the tokens, settled together: every photo of the pair, and the token set.

A token never changes its light value (its dark side shows light + 1), never leaves its tower, and the set on the
towers is known: per symbol so many tokens of light value 1 and of light value 2 for the player count (the
rulebook, seed 003: 24 tokens, three of each per symbol; two players set aside one 1 and one 2 of every symbol, three
players one 2 of every symbol). Which side a token shows before a placement is known from the game too: the earlier
placements, replayed, say which towers some chain has scored (their tokens dark). So:

0. a side the face leaves unclear is the one the replayed game gives (the numeral read on it: a face-unclear token's
   numeral is compared both ways), on the before photo, and on the after photo for a token dark before (it stays
   dark); a side read surely against the replay is doubtful, and its value with it (the photo disagrees with the
   game: the rules flag it, and a misread side must not make a sure wrong value);
1. one tower's token read surely on one photo (its side and value, or its symbol) is the same token on the other
   photo of the pair, whichever side it shows there: a doubtful read of it there takes the sure one; two sure reads
   that disagree are both doubtful. A token turns dark and never back: one read dark surely before is dark after,
   one read light surely after was light before (a side in doubt there is settled so);
1a. a token's numeral that no photo read surely by itself but both photos compared (each on the side it shows; the
   light value is the same) is read from the two together: their fits averaged against the margin the average
   needs (the photos' noise independent; each photo's margin is raised by how badly its numerals fit, so a camera
   whose misreads repeat on both photos, a dim webcam, needs as much more);
2. a symbol that already has as many tokens read surely as the set holds cannot be a doubtful token's symbol, and a
   symbol whose light-1 (light-2) tokens are all read surely leaves its doubtful tokens only light 2 (light 1):
   what is left by elimination is settled, and nothing else (a doubtful value that two values still fit stays
   doubtful);
3. more sure reads of a symbol, or of a symbol's light value, than the set holds: one of them is wrong, and every
   one of them is doubtful;
4. the doubtful values of one symbol that elimination leaves are assigned jointly: among the assignments the set
   still allows, the one the numerals fit best (each token's fit of light 2 over light 1, the mean over the photos
   that compared it on the side it shows) settles a token when every allowed assignment that gives it the other
   value fits worse by at least the margin those changed tokens need together (root sum of squares of their
   margins: independent misfits; a bias of the reader toward one digit cancels when two tokens swap values).

Only doubts about the numeral (a value unclear, too small, not read) and about the symbol are settled; a doubt about
the side stays (which pair of values the numeral chooses between is then unknown). Pure functions of the readings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import product
from math import sqrt

from geometry.hexgrid import Cell
from vision.genial import SYMBOL_RGB, GenialPhoto, TokenRead
from vision.genial_doubt import AGAINST_REPLAY, AT_EDGE, FACE_UNCLEAR, Doubted, DoubtKind, TokenDoubt, doubt
from vision.genial_numeral import NumeralRead

SYMBOLS: tuple[str, ...] = tuple(SYMBOL_RGB)


def token_set(n_players: int, counts: Sequence[tuple[int, int, int]]) -> dict[tuple[str, int], int] | None:
    """How many tokens of each (symbol, light value) lie on the towers for ``n_players``; ``counts`` rows are
    (players, light-1 tokens per symbol, light-2 tokens per symbol). None when the count is not listed."""
    row = next((r for r in counts if r[0] == n_players), None)
    if row is None:
        return None
    return {(s, v): row[v] for s in SYMBOLS for v in (1, 2)}


def _symbol_options(reads: Sequence[TokenRead]) -> set[str]:
    """The symbols a tower's token may show, from its doubtful reads (a symbol between two keeps those two)."""
    out = set(SYMBOLS)
    for t in reads:
        for d in t.doubts:
            if d.kind is DoubtKind.SYMBOL_BETWEEN:
                out &= {d.detail("first"), d.detail("second")}
    return out


def _without(doubts: Sequence[TokenDoubt], what: Doubted) -> list[TokenDoubt]:
    """The reasons that put none of ``what`` in doubt."""
    return [d for d in doubts if not d.about(what)]


def _agreed(values: dict[Cell, set]) -> tuple[dict, set[Cell]]:
    """Cells whose sure reads agree -> the value; cells whose sure reads disagree."""
    return ({c: next(iter(v)) for c, v in values.items() if len(v) == 1},
            {c for c, v in values.items() if len(v) > 1})


def _over_counts(symbol: Mapping[Cell, str], light: Mapping[Cell, int],
                 holds: Mapping[tuple[str, int], int]) -> tuple[set[Cell], set[Cell]]:
    """Towers whose sure symbol (sure symbol and light value) is read more often than the set holds."""
    sym_over = {c for c, s in symbol.items()
                if sum(1 for x in symbol.values() if x == s) > holds[(s, 1)] + holds[(s, 2)]}
    light_over = {c for c, v in light.items() if c in symbol
                  and sum(1 for d, w in light.items() if w == v and symbol.get(d) == symbol[c]) > holds[(symbol[c], v)]}
    return sym_over, light_over


def _eliminate(symbol: dict[Cell, str], light: dict[Cell, int], cells: set[Cell], options: Mapping[Cell, set[str]],
               holds: Mapping[tuple[str, int], int]) -> None:
    """Settle, in place, the symbols and light values that every other choice would put over the set's counts."""
    changed = True
    while changed:
        changed = False
        for c in sorted(cells - set(symbol)):
            left = {s for s in options[c] if sum(1 for x in symbol.values() if x == s) < holds[(s, 1)] + holds[(s, 2)]
                    and (c not in light or _count(symbol, light, s, light[c]) < holds[(s, light[c])])}
            if len(left) == 1:
                symbol[c] = left.pop()
                changed = True
        for c in sorted(c for c in cells if c in symbol and c not in light):
            left_v = [v for v in (1, 2) if _count(symbol, light, symbol[c], v) < holds[(symbol[c], v)]]
            if len(left_v) == 1:
                light[c] = left_v[0]
                changed = True


def _count(symbol: Mapping[Cell, str], light: Mapping[Cell, int], s: str, v: int) -> int:
    return sum(1 for c, w in light.items() if w == v and symbol.get(c) == s)


def settle_tokens(photos: Sequence[GenialPhoto], n_players: int,
                  counts: Sequence[tuple[int, int, int]],
                  dark_before: frozenset[Cell] | None = None) -> tuple[GenialPhoto, ...]:
    """The photos' token reads settled together (module doc): doubtful symbols and values that the other photo or
    the token set decide are read as decided; sure reads that contradict each other or the set are doubtful.

    Parameters
    ----------
    photos : sequence of GenialPhoto
        The photos of one camera (a pair: before, after), each with its towers' reads.
    n_players : int
    counts : sequence of (players, light-1 per symbol, light-2 per symbol)
        The token set on the towers per player count; a player count not listed settles only across photos.
    dark_before : frozenset of Cell, optional
        The towers the game's earlier placements have scored (replayed: their tokens dark before this placement,
        and still dark after it); None when not known. Step 0 of the module doc.

    Returns
    -------
    tuple of GenialPhoto, in the order given.
    """
    if dark_before is not None:
        photos = _sides_replayed(photos, dark_before)
    photos = _sides_settled(photos)
    by_cell: dict[Cell, list[TokenRead]] = {}
    for ph in photos:
        for t in ph.towers:
            by_cell.setdefault(t.qr, []).append(t)
    sure_sym = {c: {t.symbol for t in ts if not t.symbol_doubted} for c, ts in by_cell.items()}
    sure_light = {c: {t.value - int(t.dark) for t in ts if not t.value_doubted} for c, ts in by_cell.items()}
    symbol, sym_clash = _agreed({c: v for c, v in sure_sym.items() if v})
    light, light_clash = _agreed({c: v for c, v in sure_light.items() if v})
    _read_together(photos, light, set(by_cell) - light_clash)
    holds = token_set(n_players, counts)
    sym_over: set[Cell] = set()
    light_over: set[Cell] = set()
    if holds is not None:
        sym_over, light_over = _over_counts(symbol, light, holds)
        symbol = {c: s for c, s in symbol.items() if c not in sym_over}
        light = {c: v for c, v in light.items() if c not in light_over}
        options = {c: _symbol_options(ts) for c, ts in by_cell.items()}
        open_cells = set(by_cell) - sym_clash - sym_over
        _eliminate(symbol, light, open_cells, options, holds)
        _assign_jointly(symbol, light, open_cells - light_clash - light_over, _evidence(photos), holds)
    notes = {"sym_clash": sym_clash, "light_clash": light_clash, "sym_over": sym_over, "light_over": light_over}
    return tuple(replace(ph, towers=tuple(_settled(t, symbol, light, notes) for t in ph.towers)) for ph in photos)


def _settled(t: TokenRead, symbol: Mapping[Cell, str], light: Mapping[Cell, int],
             notes: Mapping[str, set[Cell]]) -> TokenRead:
    """One token's read with what the settling decided: a doubtful symbol or numeral replaced by the decided one,
    a contradiction added to its doubt."""
    parts = list(t.doubts)
    sym, value = t.symbol, t.value
    if t.qr in notes["sym_clash"]:
        parts.append(doubt(DoubtKind.SYMBOL_CLASH))
    elif t.qr in notes["sym_over"]:
        parts.append(doubt(DoubtKind.SYMBOL_OVER, symbol=t.symbol))
    elif t.symbol_doubted and t.qr in symbol and not t.any_of(AT_EDGE):
        sym = symbol[t.qr]
        parts = _without(parts, Doubted.SYMBOL)
    if t.qr in notes["light_clash"]:
        parts.append(doubt(DoubtKind.NUMERAL_CLASH))
    elif t.qr in notes["light_over"]:
        parts.append(doubt(DoubtKind.NUMERAL_OVER, symbol=t.symbol, light=t.value - int(t.dark)))
    elif t.value_doubted and not t.side_doubted and t.qr in light:
        value = light[t.qr] + int(t.dark)
        parts = _without(parts, Doubted.NUMERAL)
    return replace(t, symbol=sym, value=value, doubts=tuple(parts))


def _numeral_on(ph: GenialPhoto, t: TokenRead) -> NumeralRead | None:
    """The numeral ``ph`` compared on the side ``t`` shows (its side read, or the other one read beside it when the
    face left the side unclear); None when none was."""
    n = ph.numerals.get(t.qr)
    if n is None:
        return None
    return n.read if n.dark == t.dark else n.other


def _sides_replayed(photos: Sequence[GenialPhoto], dark_before: frozenset[Cell]) -> tuple[GenialPhoto, ...]:
    """Step 0 (module doc): the replayed game's sides. Before this placement a token is dark exactly when an earlier
    placement scored its tower (``dark_before``); after it, those stay dark (the others may have turned now)."""
    if len(photos) != 2:
        return tuple(replace(ph, towers=tuple(_side_replayed(ph, t, True if t.qr in dark_before else None)
                                              for t in ph.towers)) for ph in photos)
    before = replace(photos[0], towers=tuple(_side_replayed(photos[0], t, t.qr in dark_before)
                                             for t in photos[0].towers))
    against = {t.qr: t.dark for t in before.towers if t.any_of(AGAINST_REPLAY)}
    after = replace(photos[1], towers=tuple(
        _side_replayed(photos[1], t, True if t.qr in dark_before else None, against.get(t.qr))
        for t in photos[1].towers))
    return before, after


def _side_replayed(ph: GenialPhoto, t: TokenRead, want: bool | None, misread: bool | None = None) -> TokenRead:
    """One token's read with the side the replay gives it (``want``: dark or not; None: not known): a side the
    face left unclear is the replay's, its numeral read on that side (the one compared beside it); a side read
    surely against the replay is doubtful, and so its value (the photo disagrees with the game: the rules flag
    it). ``misread``: the side the before photo read against the replay (the after photo's token; None: it agreed):
    the same side read again may be the same misreading, and is doubtful too."""
    parts = list(t.doubts)
    if misread is not None and t.dark == misread and not t.side_doubted:
        return replace(t, doubts=(*parts, doubt(DoubtKind.SIDE_AS_BEFORE, read=_side_name(t.dark))))
    if want is None or t.any_of(AT_EDGE):
        return t
    if not t.any_of(FACE_UNCLEAR):
        if t.dark == want:
            return t
        return replace(t, doubts=(*parts, doubt(DoubtKind.SIDE_AGAINST_REPLAY, read=_side_name(t.dark),
                                                game=_side_name(want))))
    parts = [d for d in parts if d.kind not in FACE_UNCLEAR]
    if t.dark == want:
        return replace(t, doubts=tuple(parts))
    turned = replace(t, dark=want)
    read = _numeral_on(ph, turned)
    low = 2 if want else 1
    parts = _without(parts, Doubted.NUMERAL)
    if read is None or read.value not in (low, low + 1):
        return replace(turned, value=low, doubts=(*parts, doubt(DoubtKind.NUMERAL_OTHER_SIDE, low=low, high=low + 1)))
    if not read.sure:
        parts.append(doubt(DoubtKind.NUMERAL_UNCLEAR, value=int(read.value), other=int(read.other),
                           score=float(read.score), other_score=float(read.other_score)))
    return replace(turned, value=read.value, doubts=tuple(parts))


def _side_name(dark: bool) -> str:
    return "dark" if dark else "light"


def _sides_settled(photos: Sequence[GenialPhoto]) -> Sequence[GenialPhoto]:
    """A pair (before, after): a side in doubt on one photo that the other settles (a token read dark surely
    before is dark after; one read light surely after was light before). A side so changed leaves the numeral read
    on the other side unused (its value doubtful until settled)."""
    if len(photos) != 2:
        return photos
    first, last = ({t.qr: t for t in ph.towers} for ph in photos)
    dark_before = {c for c, t in first.items() if t.dark and not t.side_doubted}
    light_after = {c for c, t in last.items() if not t.dark and not t.side_doubted}

    def fixed(t: TokenRead, dark: bool) -> TokenRead:
        if not t.any_of(FACE_UNCLEAR) or t.any_of(AT_EDGE):
            return t
        parts = [d for d in t.doubts if d.kind not in FACE_UNCLEAR]
        if t.dark == dark:
            return replace(t, doubts=tuple(parts))
        low = 2 if dark else 1
        parts = _without(parts, Doubted.NUMERAL) + [doubt(DoubtKind.NUMERAL_OTHER_SIDE, low=low, high=low + 1)]
        return replace(t, dark=dark, value=low, doubts=tuple(parts))

    before = replace(photos[0], towers=tuple(fixed(t, False) if t.qr in light_after else t for t in photos[0].towers))
    after = replace(photos[1], towers=tuple(fixed(t, True) if t.qr in dark_before else t for t in photos[1].towers))
    return before, after


def _fits(photos: Sequence[GenialPhoto]) -> dict[Cell, list[tuple[float, float]]]:
    """Per tower whose numeral some photo compared on the side it shows there (its side sure): per such photo, how
    much better light value 2 fits than light value 1 and the margin a sure reading needs there."""
    fits: dict[Cell, list[tuple[float, float]]] = {}
    for ph in photos:
        for t in ph.towers:
            read = _numeral_on(ph, t)
            if read is None or t.side_doubted:
                continue
            toward_2 = read.margin if read.value - int(t.dark) == 2 else -read.margin
            fits.setdefault(t.qr, []).append((toward_2, read.needed))
    return fits


def _evidence(photos: Sequence[GenialPhoto]) -> dict[Cell, tuple[float, float]]:
    """Per tower whose numeral some photo compared on the side it shows there (its side sure): how much better light
    value 2 fits than light value 1 (the mean over those photos) and the margin a sure reading needs (their mean)."""
    return {c: (sum(f for f, _ in v) / len(v), sum(m for _, m in v) / len(v)) for c, v in _fits(photos).items()}


def _read_together(photos: Sequence[GenialPhoto], light: dict[Cell, int], cells: set[Cell]) -> None:
    """Settle, in place, the light values no photo read surely by themselves but the photos' reads of the same
    numeral read together (module doc, step 1a): the mean fit of light 2 over light 1 against the margin its mean
    needs, the photos' needed margins added as independent noise (root mean square over the square root of the
    count). Each photo's needed margin already carries its fit residual, so photos whose numerals fit badly (a dim
    webcam, where a misread repeats on both photos of the camera) need as much more together."""
    for c, v in sorted(_fits(photos).items()):
        if c in light or c not in cells or len(v) < 2:
            continue
        toward_2 = sum(f for f, _ in v) / len(v)
        if abs(toward_2) >= sqrt(sum(m * m for _, m in v)) / len(v):
            light[c] = 2 if toward_2 > 0 else 1


def _assign_jointly(symbol: Mapping[Cell, str], light: dict[Cell, int], cells: set[Cell],
                    evidence: Mapping[Cell, tuple[float, float]], holds: Mapping[tuple[str, int], int],
                    max_open: int = 10) -> None:
    """Settle, in place, doubtful light values one symbol's remaining counts tie together (module doc, step 4)."""
    for s in SYMBOLS:
        open_ = sorted(c for c in cells if symbol.get(c) == s and c not in light and c in evidence)
        if not open_ or len(open_) > max_open:
            continue
        room = {v: holds[(s, v)] - _count(symbol, light, s, v) for v in (1, 2)}
        allowed = [a for a in product((1, 2), repeat=len(open_)) if a.count(1) <= room[1] and a.count(2) <= room[2]]
        if not allowed:
            continue
        fit = {a: sum(evidence[c][0] for c, v in zip(open_, a, strict=True) if v == 2) for a in allowed}
        best = max(allowed, key=lambda a: fit[a])
        for i, c in enumerate(open_):
            rivals = [a for a in allowed if a[i] != best[i]]
            if all(fit[best] - fit[a] >= sqrt(sum(evidence[d][1] ** 2 for d, v, w in zip(open_, a, best, strict=True)
                                                  if v != w)) for a in rivals):
                light[c] = best[i]
