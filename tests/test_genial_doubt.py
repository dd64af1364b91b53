"""Typed doubt reasons of Genial Spezial token reads (issue 15, ``vision.genial_doubt``): every decision reads a
reason's kind, never its message - rewording every message changes no judgement - and the reasons survive the state's
JSON."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import judge.games.genial as G
from geometry.hexgrid import HexBoardPose
from scoring.genial import GameSetup, Placement, Tower
from synth.genial import sample_game
from vision.genial import GenialPhoto, GenialVisionConfig, NumeralCarry, TokenRead
from vision.genial_doubt import DoubtKind, TokenDoubt, doubt, doubts_from_json
from vision.genial_numeral import NumeralRead
from vision.genial_tokens import settle_tokens

BOARD = G.board()

#: One reason of every kind a reader or the settling gives, with details.
EXAMPLES: dict[DoubtKind, TokenDoubt] = {d.kind: d for d in (
    doubt(DoubtKind.TOKEN_OUTSIDE),
    doubt(DoubtKind.SIDE_FACE, lightness=49.6),
    doubt(DoubtKind.SIDE_COVERED, covered=0.83),
    doubt(DoubtKind.SYMBOL_UNSEEN),
    doubt(DoubtKind.SYMBOL_BETWEEN, first="orange", second="purple"),
    doubt(DoubtKind.NUMERAL_SMALL, tall_px=2.4, low=1, high=2),
    doubt(DoubtKind.NUMERAL_CUT, low=2, high=3),
    doubt(DoubtKind.NUMERAL_UNCLEAR, value=1, other=2, score=0.95, other_score=0.94),
    doubt(DoubtKind.NUMERAL_UNCLEAR_LEARNED, value=1, other=2, score=0.95, other_score=0.94, learned=2),
    doubt(DoubtKind.NUMERAL_OTHER_SIDE, low=2, high=3),
    doubt(DoubtKind.SYMBOL_CLASH),
    doubt(DoubtKind.SYMBOL_OVER, symbol="green"),
    doubt(DoubtKind.NUMERAL_CLASH),
    doubt(DoubtKind.NUMERAL_OVER, symbol="blue", light=1),
    doubt(DoubtKind.SIDE_AGAINST_REPLAY, read="dark", game="light"),
    doubt(DoubtKind.SIDE_AS_BEFORE, read="dark"),
    doubt(DoubtKind.UNTYPED, text="a doubt written by hand"),
)}


def test_every_kind_has_an_example_and_its_message_names_its_details():
    assert set(EXAMPLES) == set(DoubtKind)
    assert EXAMPLES[DoubtKind.SIDE_FACE].text == "side unclear (face lightness 50)"
    assert EXAMPLES[DoubtKind.NUMERAL_UNCLEAR_LEARNED].text == \
        "numeral unclear (1 or 2, fits 0.950 and 0.940, the learned reader reads 2)"
    with pytest.raises(ValueError, match="its message names"):
        doubt(DoubtKind.SYMBOL_BETWEEN, first="orange")
    # a number is kept as its message shows it: reasons that read the same are equal (live frames compare states)
    assert doubt(DoubtKind.SIDE_FACE, lightness=49.6) == doubt(DoubtKind.SIDE_FACE, lightness=50.4)
    assert doubt(DoubtKind.SIDE_FACE, lightness=49.6).detail("lightness") == 50.0
    assert doubt(DoubtKind.SIDE_COVERED, covered=0.8312).detail("covered") == 0.83


def test_reasons_survive_the_state_json_and_a_doubt_given_as_text_alone_doubts_everything():
    read = TokenRead((1, 2), "large", "blue", 2, False, tuple(EXAMPLES.values()))
    again = TokenRead.from_json(read.to_json())
    assert again == read and again.doubt == read.doubt
    by_hand = read.to_json() | {"doubt": "looks odd to me"}
    by_hand.pop("doubts")
    (untyped,) = doubts_from_json(by_hand)
    assert untyped.kind is DoubtKind.UNTYPED and untyped.text == "looks odd to me"
    t = TokenRead((1, 2), "large", "blue", 2, False, (untyped,))
    assert t.value_doubted and t.side_doubted and t.symbol_doubted
    assert doubts_from_json({"doubt": ""}) == ()


def _scene(seed: int):
    """A game's before/after boards and towers, read as photos whose tokens carry reasons of every kind (before and
    after: one kind per tower, in turn), the numerals compared on some of them."""
    sc = sample_game(np.random.default_rng(seed), BOARD)
    setup = GameSetup(sc["players"], tuple(Tower.from_json(t) for t in sc["towers"]))
    moves = [Placement.from_json(m) for m in sc["moves_before"]]
    games = setup.replay(BOARD, moves), setup.replay(BOARD, moves + [Placement.from_json(sc["move"])])
    kinds = list(EXAMPLES.values())
    photos = []
    for k, game in enumerate(games):
        reads, numerals = [], {}
        for i, t in enumerate(game.tower_list()):
            why = kinds[(i + 5 * k) % len(kinds)] if i % 3 else None
            reads.append(TokenRead(t.qr, t.size, None if why is not None and why.kind is DoubtKind.SYMBOL_UNSEEN
                                   else t.symbol, t.value, t.dark, (why,) if why is not None else ()))
            if i % 2:
                read = NumeralRead(t.value, t.value + 1 if t.value in (1, 3) else t.value - 1, 0.95, 0.9, 0.0,
                                   (0.0, 0.0), 0.9, 0.04)
                numerals[t.qr] = NumeralCarry(t.dark, read, 4.0, read)
        tiles = {c: sc["players"][p] for c, p in game.owner.items()}
        photos.append(GenialPhoto(HexBoardPose((350.0, 280.0), 0.0, 24.0), tiles, tuple(reads), (), {}, 200, 150,
                                  "tiles", numerals=numerals))
    context = {k: sc[k] for k in ("players", "mover", "moves_before")}
    given = [{"qr": t["qr"], "light": t["light"]} | ({"symbol": t["symbol"]} if i % 2 else {})
             for i, t in enumerate(sc["towers"]) if i % 4]
    return photos, context, given


def _decisions(photos, context, given) -> list:
    """What the settling and the rules decide, without any message: per token its value, side, symbol and kinds of
    reasons; per judgement its placement, points, scores and flags with their cells."""
    n = len(context["players"])
    out = []
    for dark_before in (None, frozenset(t.qr for t in photos[0].towers if t.dark)):
        settled = settle_tokens(photos, n, GenialVisionConfig().token_set, dark_before)
        out.append([(t.qr, t.value, t.dark, t.symbol, tuple(d.kind for d in t.doubts))
                    for ph in settled for t in ph.towers])
        state = G.GenialState(settled[1], settled[0])
        for ctx in (context, context | {"token_values": given}):
            got = G.adjudicate(state, G.parse_context(ctx)).to_json()
            out.append({k: got.get(k) for k in ("placed", "move_points", "symbol_scores", "scored_towers", "towers")}
                       | {"flags": sorted((f["code"], str(f.get("cells"))) for f in got.get("flags", []))})
    return out


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_rewording_every_message_changes_no_decision(monkeypatch, seed):
    """Every kind's message replaced by one full of the words the old string tests looked for ("outside", "side
    unclear", "numeral", "symbol between", "the replayed game gives"): the settling and the rules decide the same,
    only the text differs."""
    photos, context, given = _scene(seed)
    want = _decisions(photos, context, given)
    text_before = [t.doubt for ph in photos for t in ph.towers]
    for kind in DoubtKind:
        fields = " ".join("{" + f + "}" for f in sorted(kind.fields))
        monkeypatch.setattr(kind, "template", "outside; side unclear; numeral; symbol between; the replayed game "
                                              f"gives; {fields}")
    assert [t.doubt for ph in photos for t in ph.towers] != text_before
    assert _decisions(photos, context, given) == want


def test_a_side_covered_by_the_symbol_is_a_doubt_about_the_symbol_too():
    """The kinds say what they doubt; these three doubt more than their name (kept from the string tests they
    replace): a side covered by the symbol's colour doubts the symbol, a numeral cut by the photo's edge and one
    read only as the other side's doubt the side."""
    covered = TokenRead((0, 0), "small", "green", 1, False, (EXAMPLES[DoubtKind.SIDE_COVERED],))
    assert covered.side_doubted and covered.symbol_doubted
    for kind in (DoubtKind.NUMERAL_CUT, DoubtKind.NUMERAL_OTHER_SIDE):
        t = replace(covered, doubts=(EXAMPLES[kind],))
        assert t.side_doubted and t.value_doubted
    assert replace(covered, doubts=(EXAMPLES[DoubtKind.NUMERAL_CUT],)).symbol_doubted
