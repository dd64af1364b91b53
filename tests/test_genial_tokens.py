"""Genial Spezial token reads settled together (issue 15, ``vision.genial_tokens``): the two photos of a pair, and
the rulebook's token set by elimination - only what is forced; sure reads that contradict are made doubtful."""

from __future__ import annotations

from dataclasses import replace as dc_replace

import numpy as np
import pytest

from geometry.hexgrid import HexBoardPose
from vision.genial import GenialPhoto, GenialVisionConfig, TokenRead
from vision.genial_doubt import AGAINST_REPLAY, FACE_UNCLEAR, Doubted, DoubtKind, doubt
from vision.genial_tokens import SYMBOLS, settle_tokens, token_set

COUNTS = GenialVisionConfig().token_set
UNCLEAR = (doubt(DoubtKind.NUMERAL_UNCLEAR, value=1, other=2, score=0.95, other_score=0.94),)
SIDE_UNCLEAR = (doubt(DoubtKind.SIDE_FACE, lightness=50.0), *UNCLEAR)
UNSEEN = (doubt(DoubtKind.SYMBOL_UNSEEN),)


def _photo(reads: list[TokenRead]) -> GenialPhoto:
    return GenialPhoto(HexBoardPose((350.0, 280.0), 0.0, 24.0), {}, tuple(reads), (), {}, 200, 150, "tiles")


def _full_set(n_players: int, seed: int = 0) -> list[TokenRead]:
    """The set for ``n_players`` on cells (i, 0), shuffled, all light side up and read surely."""
    holds = token_set(n_players, COUNTS)
    assert holds is not None
    tokens = [(s, v) for (s, v), k in sorted(holds.items()) for _ in range(k)]
    order = np.random.default_rng(seed).permutation(len(tokens))
    return [TokenRead((i, 0), "small", tokens[j][0], tokens[j][1], False) for i, j in enumerate(order)]


@pytest.mark.parametrize(("players", "towers"), [(2, 16), (3, 20), (4, 24)])
def test_the_set_fills_the_towers_of_every_player_count(players, towers):
    """The rulebook's set (seed 003: 24 tokens; two players set one 1 and one 2 of each symbol aside, three players
    one 2) is one token per tower: 6 + 10, 8 + 12, 10 + 14 towers."""
    holds = token_set(players, COUNTS)
    assert holds is not None and sum(holds.values()) == towers
    assert token_set(5, COUNTS) is None


def test_a_doubtful_value_is_settled_only_when_the_set_leaves_one():
    reads = _full_set(4)
    target = next(t for t in reads if t.symbol == "orange")
    doubtful = [t if t is not target else TokenRead(t.qr, t.size, t.symbol, 3 - t.value, False, UNCLEAR)
                for t in reads]     # read as the wrong value, with doubt
    (got,) = settle_tokens([_photo(doubtful)], 4, COUNTS)
    settled = next(t for t in got.towers if t.qr == target.qr)
    assert settled.value == target.value and settled.doubts == ()
    # two doubtful oranges of different values: either could be either - both stay doubtful, values untouched
    other = next(t for t in reads if t.symbol == "orange" and t.value != target.value)
    two = [TokenRead(t.qr, t.size, t.symbol, t.value, False, UNCLEAR) if t in (target, other) else t for t in reads]
    (got,) = settle_tokens([_photo(two)], 4, COUNTS)
    assert all(t.doubted(Doubted.NUMERAL) for t in got.towers if t.qr in (target.qr, other.qr))


def test_a_token_flipped_between_the_photos_takes_its_sure_read_from_the_other_photo():
    reads = _full_set(3)
    t = reads[0]
    before = [TokenRead(r.qr, r.size, r.symbol, 3 - r.value, False, UNCLEAR) if r is t else r for r in reads]
    after = [TokenRead(r.qr, r.size, r.symbol, r.value + 1, True) if r is t else r for r in reads]
    got_before, got_after = settle_tokens([_photo(before), _photo(after)], 3, ())   # the pair alone, no set
    assert next(x for x in got_before.towers if x.qr == t.qr) == t
    # sure reads that disagree across the photos: both doubtful
    after = [TokenRead(r.qr, r.size, r.symbol, 4 - r.value, True) if r is t else r for r in reads]
    got = settle_tokens([_photo(reads), _photo(after)], 3, ())
    assert all(x.doubted(Doubted.NUMERAL) for ph in got for x in ph.towers if x.qr == t.qr)


def test_an_unseen_symbol_is_the_one_the_set_still_lacks():
    reads = _full_set(2)
    t = reads[5]
    blind = [TokenRead(r.qr, r.size, None, r.value, False, UNSEEN) if r is t else r for r in reads]
    (got,) = settle_tokens([_photo(blind)], 2, COUNTS)
    assert next(x for x in got.towers if x.qr == t.qr) == t
    # another token of the same value unseen too, of another symbol: either could be either, both stay unread
    u = next(r for r in reads if r.symbol != t.symbol and r.value == t.value)
    blind = [TokenRead(r.qr, r.size, None, r.value, False, UNSEEN) if r in (t, u) else r for r in reads]
    (got,) = settle_tokens([_photo(blind)], 2, COUNTS)
    assert all(x.symbol is None for x in got.towers if x.qr in (t.qr, u.qr))


def test_more_sure_reads_than_the_set_holds_are_all_doubtful():
    """One wrong sure read shows as one value too many: every read of that symbol and value is doubted, and no
    doubtful token is settled against the contradiction."""
    reads = _full_set(4)
    wrong = next(t for t in reads if t.symbol == "green" and t.value == 2)
    misread = [TokenRead(t.qr, t.size, t.symbol, 1, False) if t is wrong else t for t in reads]
    (got,) = settle_tokens([_photo(misread)], 4, COUNTS)
    doubted = {t.qr for t in got.towers if t.doubted(Doubted.NUMERAL)}
    assert doubted == {t.qr for t in misread if t.symbol == "green" and t.value == 1}
    assert wrong.qr in doubted
    assert all(t.doubts == () for t in got.towers if t.symbol != "green")


def test_a_side_in_doubt_is_never_settled():
    reads = _full_set(4)
    t = next(r for r in reads if r.symbol == SYMBOLS[0])
    odd = [TokenRead(r.qr, r.size, r.symbol, 2, False, SIDE_UNCLEAR) if r is t
           else r for r in reads]
    (got,) = settle_tokens([_photo(odd)], 4, COUNTS)
    x = next(x for x in got.towers if x.qr == t.qr)
    assert x.any_of(FACE_UNCLEAR) and x.doubted(Doubted.NUMERAL)


def _carried(reads: list[TokenRead], fits: dict) -> GenialPhoto:
    """A photo whose numerals were compared on the cells of ``fits`` ({cell: (score, other score)})."""
    from vision.genial import NumeralCarry
    from vision.genial_numeral import NumeralRead

    by = {t.qr: t for t in reads}
    numerals = {c: NumeralCarry(by[c].dark, NumeralRead(by[c].value, 3 - by[c].value, a, b, 0.0, (0.0, 0.0), 0.9,
                                                        0.04), 4.0) for c, (a, b) in fits.items()}
    return dc_replace(_photo(reads), numerals=numerals)


def test_two_doubtful_tokens_the_set_ties_together_are_assigned_jointly_only_when_the_swap_fits_clearly_worse():
    """One orange 1 and one orange 2 left, both read with doubt: each alone fits its value by 0.03 (needs 0.04);
    swapping both would cost 0.06 >= 0.057 (root sum of squares): both settled. At 0.02 each (0.04 < 0.057): both
    stay doubtful."""
    reads = _full_set(4)
    a = next(t for t in reads if t.symbol == "orange" and t.value == 1)
    b = next(t for t in reads if t.symbol == "orange" and t.value == 2)
    for gap, settled in ((0.03, True), (0.02, False)):
        doubtful = [TokenRead(t.qr, t.size, t.symbol, t.value, False, UNCLEAR) if t in (a, b) else t for t in reads]
        photo = _carried(doubtful, {a.qr: (0.95, 0.95 - gap), b.qr: (0.95, 0.95 - gap)})
        (got,) = settle_tokens([photo], 4, COUNTS)
        by = {t.qr: t for t in got.towers}
        assert (by[a.qr].doubts == () and by[b.qr].doubts == ()) is settled
        assert by[a.qr].value == 1 and by[b.qr].value == 2


def test_a_token_read_dark_before_is_dark_after():
    reads = _full_set(4)
    t = reads[3]
    before = [TokenRead(r.qr, r.size, r.symbol, r.value + 1, True) if r is t else r for r in reads]
    after = [TokenRead(r.qr, r.size, r.symbol, 1, False, SIDE_UNCLEAR) if r is t
             else r for r in before]
    _, got = settle_tokens([_photo(before), _photo(after)], 4, COUNTS)
    assert next(x for x in got.towers if x.qr == t.qr) == TokenRead(t.qr, t.size, t.symbol, t.value + 1, True)


def test_a_side_in_doubt_is_the_one_the_replayed_game_gives_and_its_numeral_is_read_on_that_side():
    """The earlier placements scored the tower (replayed: dark before). The face left the side unclear and the ink
    leaned light; the numeral compared as the dark side's (beside it) reads 3 surely: dark 3, nothing in doubt."""
    from vision.genial import NumeralCarry
    from vision.genial_numeral import NumeralRead

    reads = _full_set(4)
    t = next(r for r in reads if r.value == 2)
    odd = [TokenRead(r.qr, r.size, r.symbol, 2, False, SIDE_UNCLEAR) if r is t
           else r for r in reads]
    light = NumeralRead(2, 1, 0.95, 0.94, 0.0, (0.0, 0.0), 0.9, 0.04)
    dark = NumeralRead(3, 2, 0.97, 0.90, 0.0, (0.0, 0.0), 0.9, 0.04)
    photo = dc_replace(_photo(odd), numerals={t.qr: NumeralCarry(False, light, 4.0, dark)})
    before, after = settle_tokens([photo, _photo(reads)], 4, COUNTS, frozenset({t.qr}))
    assert next(x for x in before.towers if x.qr == t.qr) == TokenRead(t.qr, t.size, t.symbol, 3, True)
    (alone,) = settle_tokens([photo], 4, COUNTS)                  # without the replay: the side stays in doubt
    assert next(x for x in alone.towers if x.qr == t.qr).any_of(FACE_UNCLEAR)


def test_a_side_read_surely_against_the_replayed_game_leaves_the_value_doubtful_on_both_photos():
    """The replay has scored nothing, yet one token reads dark surely on both photos, its numeral unclear: the light
    value the set leaves would make it a sure dark 2 - a wrong value if the side is misread. Its value is doubtful on
    both photos instead (the rules flag the side)."""
    reads = _full_set(4)
    t = next(r for r in reads if r.value == 1)
    dark = [TokenRead(r.qr, r.size, r.symbol, 3, True, (doubt(DoubtKind.NUMERAL_UNCLEAR, value=3, other=2, score=0.772,
                                                                other_score=0.758),)) if r is t
            else r for r in reads]
    plain = settle_tokens([_photo(dark), _photo(dark)], 4, COUNTS)
    assert all(not x.value_doubted for ph in plain for x in ph.towers if x.qr == t.qr)   # the old, silent read
    got = settle_tokens([_photo(dark), _photo(dark)], 4, COUNTS, frozenset())
    for ph in got:
        x = next(x for x in ph.towers if x.qr == t.qr)
        assert x.value_doubted and x.side_doubted and x.any_of(AGAINST_REPLAY)
    # a token the replay says is dark reads dark after as before: nothing added
    again = settle_tokens([_photo(dark), _photo(dark)], 4, COUNTS, frozenset({t.qr}))
    assert all(not x.any_of(AGAINST_REPLAY) for ph in again for x in ph.towers)
