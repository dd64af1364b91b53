"""Genial Spezial token values read from the numeral (issue 15): the outlines, the photo's blur, the reader on
photoreal pairs of the tune set (tests/data/photoreal), and what the judge does with a value read against the one
the players gave."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import judge.games.genial as G
from scoring.genial import GameSetup, Placement, Tower
from scoring.genial_judgement import GenialReading, judge_placement
from synth.genial import sample_game
from tools.eval_genial import judge_pair, photoreal_items
from vision.genial import GenialPhoto, TokenRead
from vision.genial_doubt import DoubtKind, doubt
from vision.genial_numeral import NumeralConfig, numeral_outlines, read_numeral

BOARD = G.board()
SET = Path(__file__).resolve().parent / "data" / "photoreal"


def test_the_outlines_are_the_tokens_digits():
    """DejaVu Sans Bold at 6.6 mm: digits about 4.8 mm tall, centred on the token; a 1 has the least ink."""
    outlines = numeral_outlines()
    assert sorted(outlines) == ["1", "2", "3"]
    for polys in outlines.values():
        pts = np.vstack(polys)
        height = float(np.ptp(pts[:, 1]))
        assert 4.4 < height < 5.2
        assert np.all(np.abs((pts.min(axis=0) + pts.max(axis=0)) / 2.0) < 0.5)   # centred (box)
    area = {d: sum(0.5 * abs(float(np.dot(q[:, 0], np.roll(q[:, 1], 1)) - np.dot(q[:, 1], np.roll(q[:, 0], 1))))
                   for q in p) for d, p in outlines.items()}
    assert area["1"] < min(area["2"], area["3"])


def test_a_window_outside_the_photo_is_not_read():
    n = 2 * int(round(NumeralConfig().search_mm / NumeralConfig().mm_per_px)) + 27
    lum = np.full((n, n), 0.5)
    lum[0, 0] = np.nan
    assert read_numeral(lum, False, np.eye(2)) is None


@pytest.mark.parametrize("item", list(photoreal_items(SET)), ids=lambda it: it[0])
def test_photoreal_values_read_without_the_players(item):
    """Without the players' token values the numerals are read: every value right or said doubtful, nearly all
    sure, and the judgement exact (before issue 15 every value was "too small to read" and the pair doubtful)."""
    name, doc, photos = item
    row = judge_pair(name, doc, photos, "none")
    assert row["outcome"] == "exact", row
    for photo in ("before", "after"):
        read = row[photo]
        assert read["value_wrong"] == 0, read
        assert read["value_right"] >= 0.9 * read["tokens"], read


def _scene(seed: int):
    sc = sample_game(np.random.default_rng(seed), BOARD)
    setup = GameSetup(sc["players"], tuple(Tower.from_json(t) for t in sc["towers"]))
    moves = [Placement.from_json(m) for m in sc["moves_before"]]
    return sc, setup.replay(BOARD, moves), setup.replay(BOARD, moves + [Placement.from_json(sc["move"])])


def _photo(owner: dict, colours: dict, reads: list[TokenRead]) -> GenialPhoto:
    from geometry.hexgrid import HexBoardPose

    tiles = {c: colours[p] for c, p in owner.items()}
    return GenialPhoto(HexBoardPose((350.0, 280.0), 0.0, 24.0), tiles, tuple(reads), (), {}, 200, 150, "tiles")


def _reads(game, doubt_at: frozenset = frozenset(), wrong_at: frozenset = frozenset()) -> list[TokenRead]:
    """The game's towers as read: the values at ``wrong_at`` read as the side's other value, those at ``doubt_at``
    said doubtful."""
    out = []
    for t in game.tower_list():
        low = 2 if t.dark else 1
        value = (low + 1 if t.value == low else low) if t.qr in wrong_at else t.value
        why = (doubt(DoubtKind.NUMERAL_UNCLEAR, value=value, other=low if value != low else low + 1, score=0.9,
                     other_score=0.9),) if t.qr in doubt_at else ()
        out.append(TokenRead(t.qr, t.size, t.symbol, value, t.dark, why))
    return out


def _truth(sc, before, after) -> dict:
    colours = sc["players"]
    ctx = G.parse_context({k: sc[k] for k in ("players", "mover", "moves_before")})
    return judge_placement(BOARD, ctx, GenialReading({c: colours[p] for c, p in after.owner.items()},
                                                     after.tower_list()),
                           GenialReading({c: colours[p] for c, p in before.owner.items()},
                                         before.tower_list())).to_json()


def _scoring_seed() -> tuple[dict, object, object, list]:
    """A seeded game whose move scores a token now."""
    for seed in range(40):
        sc, before, after = _scene(seed)
        want = _truth(sc, before, after)
        if want.get("scored_towers"):
            return sc, before, after, [tuple(c) for c in want["scored_towers"]]
    raise AssertionError("no seed scores a token")


def test_values_read_clearly_are_used_without_the_players():
    sc, before, after, _ = _scoring_seed()
    state = G.GenialState(_photo(after.owner, sc["players"], _reads(after)),
                          _photo(before.owner, sc["players"], _reads(before)))
    got = G.adjudicate(state, G.parse_context({k: sc[k] for k in ("players", "mover", "moves_before")})).to_json()
    want = _truth(sc, before, after)
    assert got["move_points"] == want["move_points"] and got["symbol_scores"] == want["symbol_scores"]
    assert not any(f["code"] in G.NOT_SCORED for f in got["flags"]), got["flags"]


def test_a_doubtful_value_scored_now_is_flagged_never_guessed_silently():
    sc, before, after, scored = _scoring_seed()
    doubt = frozenset(scored[:1])
    state = G.GenialState(_photo(after.owner, sc["players"], _reads(after, doubt, doubt)),
                          _photo(before.owner, sc["players"], _reads(before, doubt, doubt)))
    got = G.adjudicate(state, G.parse_context({k: sc[k] for k in ("players", "mover", "moves_before")})).to_json()
    codes = {f["code"] for f in got["flags"]}
    assert "token_value_doubtful" in codes and "token_value_doubtful" in G.NOT_SCORED
    flagged = next(f for f in got["flags"] if f["code"] == "token_value_doubtful")
    assert [list(c) for c in doubt] == flagged["cells"]


def test_a_clear_read_against_the_players_value_is_flagged_and_the_given_one_used():
    sc, before, after, scored = _scoring_seed()
    wrong = frozenset(scored[:1])
    state = G.GenialState(_photo(after.owner, sc["players"], _reads(after, wrong_at=wrong)),
                          _photo(before.owner, sc["players"], _reads(before, wrong_at=wrong)))
    ctx = {k: sc[k] for k in ("players", "mover", "moves_before")} | {
        "token_values": [{"qr": t["qr"], "light": t["light"]} for t in sc["towers"]]}
    got = G.adjudicate(state, G.parse_context(ctx)).to_json()
    want = _truth(sc, before, after)
    assert got["move_points"] == want["move_points"] and got["symbol_scores"] == want["symbol_scores"]
    flag = next(f for f in got["flags"] if f["code"] == "token_value_disagrees")
    assert flag["cells"] == [list(c) for c in wrong]
    # a doubtful read that differs never overrides the players' value, nor is it called a disagreement
    state = G.GenialState(_photo(after.owner, sc["players"], _reads(after, wrong, wrong)),
                          _photo(before.owner, sc["players"], _reads(before, wrong, wrong)))
    got = G.adjudicate(state, G.parse_context(ctx)).to_json()
    assert got["move_points"] == want["move_points"]
    assert not {f["code"] for f in got["flags"]} & {"token_value_disagrees", "token_value_doubtful"}, got["flags"]


def test_a_side_the_face_leaves_unclear_is_decided_by_the_numerals_ink_only_when_it_fits_clearly():
    """A glare-lit dark face reads half-way to light; its numeral read both ways: white ink fitting far better than
    black ink makes it dark (value from the white-ink read), a near tie keeps the side unclear."""
    from vision.genial import GenialVisionConfig, NumeralCarry, TokenFace, _side_by_ink
    from vision.genial_numeral import NumeralRead

    config = GenialVisionConfig()
    face = TokenFace(False, "green", (doubt(DoubtKind.SIDE_FACE, lightness=49.0),))
    white = NumeralRead(3, 2, 0.97, 0.90, 0.0, (0.0, 0.0), 0.9, 0.036)
    for black_score, decided in ((0.60, True), (0.90, False)):
        black = NumeralRead(2, 1, black_score, black_score - 0.05, 0.0, (0.0, 0.0), 0.9, 0.036)
        got_face, got = _side_by_ink(face, NumeralCarry(False, black, 4.0, white), config)
        assert (got_face.dark, got_face.doubts == ()) == ((True, True) if decided else (False, False))
        assert got.read is (white if decided else black) and got.other is (black if decided else white)
