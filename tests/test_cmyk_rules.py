"""CMYK! scoring on small hand-built mosaics, every card alone and in the tricky orders (pure rules).

Mosaics (edges coloured by direction: P cyan, N magenta, H yellow; tiles are (c, m, y)):

- ``M1``: a legal hexagon around vertex (0, 1) plus tile (1,1,1) hanging below (0, 0). Hand count:
  1 hexagon, 7 tiles, 3 rows, longest run 3, 1 spiky, symmetric left-right only, no hole;
  tiles with cyan 0: 3; with magenta 3: 2; one tile with three equal marks.
- ``M2``: three tiles around an empty cell: 1 hole, no hexagon.
- ``ROW8``: eight tiles in a row, all cyan 0 (8 > the cap of 6).

Player "Aki" holds cyan 0, so M1 alone scores 5 (hexagon) + 3 (personal) = 8.
"""

import pytest

from scoring.cmyk import (
    CardAnswers,
    CmykOptions,
    CmykPlayer,
    PersonalCard,
    adjudicate_mosaics,
    parse_cmyk_context,
    parse_cmyk_options,
    parse_context,
    score_game,
)
from scoring.cmyk_cards import resolve_cards
from scoring.cmyk_state import EdgeReading, MosaicState, TileReading
from scoring.flags import Flag
from scoring.ranking import RankEntry, rank_players

DIR_COLOUR = {"P": "cyan", "N": "magenta", "H": "yellow"}


def tile(i, j, c, m, y, kind="normal", conf=1.0):
    lv = {"cyan": c, "magenta": m, "yellow": y}
    return TileReading((i, j), kind, {d: EdgeReading(col, lv[col], conf) for d, col in DIR_COLOUR.items()})


def k_tile(i, j):
    return TileReading((i, j), "k", {d: EdgeReading(col, None) for d, col in DIR_COLOUR.items()})


M1 = MosaicState((
    tile(-1, 1, 0, 1, 2), tile(0, 1, 2, 1, 0), tile(1, 1, 2, 2, 0),
    tile(-1, 0, 0, 4, 2), tile(0, 0, 0, 3, 1), tile(1, 0, 1, 3, 0),
    tile(0, -1, 1, 1, 1),
))
M2 = MosaicState((tile(0, -1, 2, 0, 3), tile(-1, 0, 3, 0, 1), tile(1, 0, 1, 2, 3)))
ROW8 = MosaicState(tuple(tile(i, 0, 0, i // 2, i % 2) for i in range(8)))
AKI = CmykPlayer("Aki", PersonalCard("cyan", 0))
BEN = CmykPlayer("Ben", PersonalCard("magenta", 3))


def total(cards, mosaic=M1, answers=CardAnswers(), options=CmykOptions()):
    return score_game([AKI], [mosaic], cards, answers, options).scores["Aki"]


def test_hand_built_mosaics_are_legal_and_counted():
    r = score_game([AKI], [M1], []).to_json()
    p = r["players"]["Aki"]
    assert p["illegal_contacts"] == 0 and p["tiles"] == 7 and p["hexagons"] == 1
    assert p["breakdown"] == {"hexagons": 5, "personal_card": 3, "k_tiles": 0} and p["total"] == 8
    assert p["geometry"]["rows"] == 3 and p["geometry"]["spiky"] == 1 and p["geometry"]["mirror_lr"]
    assert r["flags"] == [] and r["ranking"] == ["Aki"]
    assert score_game([AKI], [ROW8], []).to_json()["players"]["Aki"]["illegal_contacts"] == 0
    assert score_game([AKI], [M2], []).to_json()["players"]["Aki"]["illegal_contacts"] == 0


@pytest.mark.parametrize("cards, want", [
    (["omakase"], 5 + 6),
    (["not_only_hexagons"], 3 + 3),
    (["like_this_tile"], 8 + 3),
    (["make_it_wide"], 8 + 1),          # run 3 -> 1 point per 2 tiles
    (["want_height"], 8 + 3),
    (["make_it_spiky"], 8 + 1),
    (["mirror_left_right"], 8 + 6),
    (["mirror_up_down"], 8),            # not symmetric up-down
    (["want_space"], 8),                # no hole in M1
    (["use_many"], 8 + 5),              # alone: most tiles
    (["neighbour_colour"], 8),          # one player: no neighbour
    (["do_more"], 8),                   # nothing to double
    (["never_mind"], 8),
])
def test_each_card_alone(cards, want):
    assert total(cards) == want


def test_cards_on_other_mosaics():
    assert total(["want_space"], M2) == 4  # one hole; M2 has no cyan 0 and no hexagon
    r = score_game([AKI], [M2], ["do_more", "want_space"]).to_json()["players"]["Aki"]
    assert r["breakdown"]["want_space"] == 8 and r["cards_counted"] == [["want_space", 2]]
    r = score_game([AKI], [ROW8], ["make_it_wide", "make_it_spiky"]).to_json()["players"]["Aki"]
    assert r["breakdown"] == {"hexagons": 0, "personal_card": 6, "make_it_wide": 4, "make_it_spiky": 2, "k_tiles": 0}
    assert total(["omakase"], ROW8) == 12  # capped at 6 before doubling


@pytest.mark.parametrize("cards, want", [
    (["not_only_hexagons", "do_more"], 6 + 3),               # doubled: 6 per hexagon
    (["do_more", "not_only_hexagons"], 6 + 3),               # do_more first doubles the next card
    (["do_more", "like_this_tile"], 8 + 6),
    (["like_this_tile", "do_more", "do_more"], 8 + 12),      # x4
    (["do_more", "do_more", "like_this_tile"], 8 + 12),      # a leading run aims at the first card after it
    (["like_this_tile", "do_more", "never_mind"], 8 + 3),    # never_mind cancels the doubling
    (["like_this_tile", "never_mind"], 8),
    (["never_mind", "like_this_tile"], 8 + 3),               # first: leaves; the next counts as first
    (["never_mind", "do_more", "like_this_tile"], 8 + 6),    # ... so do_more is first and doubles the next
    (["never_mind", "never_mind", "omakase"], 5 + 6),
    (["like_this_tile", "never_mind", "do_more"], 8),        # do_more on never_mind: no effect
    (["like_this_tile", "never_mind", "never_mind"], 8 + 3),  # cancelling the cancellation
    (["omakase", "never_mind"], 8),
    (["omakase", "do_more"], 5 + 12),                        # decision x4
    (["this_and_that", "do_more", "like_this_tile"], 8 + 6),  # this_and_that first: do_more counts as first
    (["like_this_tile", "this_and_that", "do_more", "want_height"], 8 + 6 + 3),  # skips this_and_that
    (["like_this_tile", "this_and_that", "never_mind", "want_height"], 8 + 3),   # cancels like_this_tile
    (["do_more", "this_and_that", "like_this_tile", "want_height"], 8 + 6 + 3),
])
def test_card_orders(cards, want):
    assert total(cards) == want


def test_omakase_doubled_option():
    assert total(["omakase", "do_more"], options=CmykOptions(omakase_doubled="x3")) == 5 + 9


def test_let_me_think():
    assert total(["let_me_think"], answers=CardAnswers(let_me_think=("like_this_tile",))) == 8 + 3
    # doubled: swap first, then double the replacement
    assert total(["let_me_think", "do_more"], answers=CardAnswers(let_me_think=("like_this_tile",))) == 8 + 6
    assert total(["do_more", "let_me_think"], answers=CardAnswers(let_me_think=("mirror_left_right",))) == 8 + 12
    r = score_game([AKI], [M1], ["let_me_think", "do_more"])
    assert r.scores["Aki"] == 8 and [f.code for f in r.flags] == ["needs_answer"]
    assert any("let_me_think" in line and "unanswered" in line for line in r.explanation)


def test_want_this_colour():
    ans = CardAnswers(want_this_colour=(PersonalCard("magenta", 3),))
    assert total(["want_this_colour"], answers=ans) == 8 + 2
    assert total(["omakase", "want_this_colour"], answers=ans) == 5 + 6 + 4  # doubled by omakase
    assert total(["want_this_colour", "do_more"], answers=ans) == 8 + 4
    r = score_game([AKI], [M1], ["want_this_colour"])
    assert r.scores["Aki"] == 8 and r.flags[0].code == "needs_answer"
    assert r.to_json()["players"]["Aki"]["breakdown"]["want_this_colour"] == 0
    two = score_game([AKI, BEN], [M1, M2], ["want_this_colour"], ans)  # applies to every player
    assert two.to_json()["players"]["Ben"]["breakdown"]["want_this_colour"] == 0  # M2: no magenta 3
    assert two.to_json()["players"]["Aki"]["breakdown"]["want_this_colour"] == 2


def test_neighbour_colour():
    # players clockwise: Aki, Ben, Cy. Right-hand neighbour = previous: Aki's is Cy, Ben's is Aki, Cy's is Ben.
    cy = CmykPlayer("Cy", PersonalCard("yellow", 0))
    r = score_game([AKI, BEN, cy], [M1, M1, M1], ["neighbour_colour"]).to_json()["players"]
    assert r["Aki"]["breakdown"]["neighbour_colour"] == 3  # yellow 0 on M1: (0,1) (1,1) (1,0)
    assert r["Ben"]["breakdown"]["neighbour_colour"] == 3  # cyan 0
    assert r["Cy"]["breakdown"]["neighbour_colour"] == 2   # magenta 3
    r = score_game([AKI, BEN], [M1, M1], ["omakase", "neighbour_colour", "do_more"]).to_json()["players"]
    assert r["Aki"]["breakdown"] == {"hexagons": 5, "personal_card": 6, "neighbour_colour": 2 * 2 * 2, "k_tiles": 0}


def test_use_many_flat_points_and_ties():
    cy = CmykPlayer("Cy", PersonalCard("yellow", 5))
    bd = lambda r, n: r.to_json()["players"][n]["breakdown"]["use_many"]  # noqa: E731
    r = score_game([AKI, BEN, cy], [M1, M2, ROW8], ["use_many"])  # 7, 3, 8 tiles
    assert (bd(r, "Cy"), bd(r, "Aki"), bd(r, "Ben")) == (5, 3, 0)
    r = score_game([AKI, BEN, cy], [M1, M1, M2], ["use_many"])  # tied first: both 5, no second
    assert (bd(r, "Aki"), bd(r, "Ben"), bd(r, "Cy")) == (5, 5, 0)
    r = score_game([AKI, BEN, cy], [M1, M2, M2], ["use_many", "do_more"])  # tied second: each 3 (doubled)
    assert (bd(r, "Aki"), bd(r, "Ben"), bd(r, "Cy")) == (10, 6, 6)


def test_k_tiles_penalty_and_wild_marks_alternative():
    with_k = MosaicState(M1.tiles + (k_tile(0, 2),))  # K above (0,1): shares its H edge (yellow)
    r = score_game([AKI], [with_k], []).to_json()
    p = r["players"]["Aki"]
    assert p["k_tiles"] == 1 and p["breakdown"]["k_tiles"] == -3 and p["illegal_contacts"] == 0
    assert p["total"] == 5 + 3 - 3 and p["total_alternatives"] == [5, 6]  # wild: cyan 0 on the K tile too
    assert "k_tile_reading" in [f["code"] for f in r["flags"]]
    assert score_game([AKI], [with_k], [], options=CmykOptions(k_marks_wild_for_cards=True)).scores["Aki"] == 6
    assert total(["like_this_tile"], with_k) == 5 + 3 - 3 + 3  # K never has three equal marks


def test_illegal_contacts_are_flagged_not_scored():
    bad = MosaicState(M1.tiles[:4] + (tile(0, 0, 0, 2, 1),) + M1.tiles[5:])  # magenta 2 against (1,0)'s 3
    r = score_game([AKI], [bad], []).to_json()
    assert r["players"]["Aki"]["illegal_contacts"] == 1
    f = [x for x in r["flags"] if x["code"] == "illegal_contact"][0]
    assert f["contacts"][0]["cells"] == [[0, 0], [1, 0]] and f["contacts"][0]["reason"] == "level"


def test_doubtful_tiles_may_be_k_tiles_while_the_set_has_them():
    """A webcam shows a K tile as a dark, markless tile read with doubt as a normal one (photoreal dev table t01):
    the total's range must reach the K tile's -3 for each doubtful tile, as far as the set's two K tiles are not
    read elsewhere on the table."""
    shaky = MosaicState(M1.tiles[:5] + tuple(TileReading(t.cell, "normal", t.edges, 0.2) for t in M1.tiles[5:]))
    lo, hi = score_game([AKI], [shaky], []).to_json()["players"]["Aki"]["total_range"]
    sure_lo, sure_hi = score_game([AKI], [M1], []).to_json()["players"]["Aki"]["total_range"]
    assert sure_lo == sure_hi
    assert lo == sure_lo - 2 * 3 and hi >= sure_hi  # two doubtful tiles (neither cyan 0), two K tiles in the set
    one_k = MosaicState(M2.tiles + (k_tile(0, 1),))
    r = score_game([AKI, BEN], [shaky, one_k], [])
    assert r.to_json()["players"]["Aki"]["total_range"][0] == sure_lo - 3  # one K tile left
    two_k = MosaicState(M2.tiles + (k_tile(0, 1), k_tile(1, 1)))
    r = score_game([AKI, BEN], [shaky, two_k], [])
    assert r.to_json()["players"]["Aki"]["total_range"][0] == sure_lo  # both read on Ben's mosaic


def test_misreadings_are_flagged():
    dup = MosaicState(M1.tiles + (tile(3, 0, 0, 3, 1, conf=0.3),))  # (0,3,1) again, read with low confidence
    codes = [f.code for f in score_game([AKI], [dup], []).flags]
    assert "duplicate_tile" in codes and "low_confidence" in codes
    # (0,-1) read with doubt: it may or may not be the (1,1,1) like_this_tile counts, may or may not carry cyan 0,
    # and may be a K tile whose marks the photo lost (the set's two K tiles are unread): 8 - 3 at the lowest
    shaky = MosaicState(M1.tiles[:6] + (TileReading((0, -1), "normal", M1.tiles[6].edges, 0.2),))
    twice = CmykOptions(doubt_conflicting_cells=False)  # the same mosaic twice: every tile read twice (tested below)
    r = score_game([AKI, BEN], [shaky, M1], ["like_this_tile"], options=twice)
    f = [x for x in r.flags if x.code == "score_range"][0]
    assert f.data["range"] == [5, 12] and f.data["cells"] == [[0, -1]]
    assert r.to_json()["players"]["Aki"]["total_range"] == [5, 12] and r.scores == {"Aki": 11, "Ben": 10}
    (f,) = [x for x in r.flags if x.code == "ranking_uncertain"]  # Ben: 10 for sure
    assert f.data["players"] == ["Aki", "Ben"]
    shaky_k = MosaicState(M1.tiles + (TileReading((0, 2), "k", k_tile(0, 2).edges, 0.3),))
    # as read 5 + 2 - 3 = 4; at best the doubtful K is a normal tile (+3) carrying magenta 3 (+1)
    assert score_game([BEN], [shaky_k], []).to_json()["players"]["Ben"]["total_range"] == [4, 8]
    # a K reading must be surer than a level reading: a tile whose marks the photo lost looks like a K
    for conf, want in ((0.75, [4, 8]), (0.95, [4, 4])):
        r = score_game([BEN], [MosaicState(M1.tiles + (TileReading((0, 2), "k", k_tile(0, 2).edges, conf),))], [])
        assert r.to_json()["players"]["Ben"]["total_range"] == want
        low = [f.data["cells"] for f in r.flags if f.code == "low_confidence"]
        assert low == ([[[0, 2]]] if want[1] > want[0] else [])
    flagged = MosaicState(M1.tiles, (Flag("tile_doubtful", "tile at [0, -1] read as C1 M1 Y1", {"cells": [[0, -1]]}),))
    r = score_game([AKI], [flagged], ["like_this_tile"])
    assert r.to_json()["players"]["Aki"]["total_range"] == [5, 12]  # as above: it may be a K tile too
    assert "tile_doubtful" not in [f.code for f in r.flags]  # the detector's flags are the caller's to report
    off = CmykOptions(doubt_flagged_cells=False)
    assert score_game([AKI], [flagged], ["like_this_tile"], options=off).to_json()["players"]["Aki"]["total_range"] == [
        11, 11]
    sure = score_game([AKI, BEN], [M1, M1], ["like_this_tile"], options=twice)
    assert not [x for x in sure.flags if x.code in ("score_range", "ranking_uncertain")]
    misread = MosaicState(M1.tiles[:4] + (tile(0, 0, 0, 2, 1, conf=0.4),) + M1.tiles[5:])
    (f,) = [x for x in score_game([AKI], [misread], []).flags if x.code == "illegal_contact"]
    assert f.data["contacts"][0]["likely_misread"] == [0, 0]
    imp = MosaicState((tile(0, 0, 4, 4, 0),))
    assert [f.code for f in score_game([AKI], [imp], []).flags] == ["impossible_tile"]
    ks = MosaicState((k_tile(0, 0), k_tile(1, 0), k_tile(2, 0)))
    assert "too_many_k" in [f.code for f in score_game([AKI], [ks], []).flags]


def test_contradicting_readings_widen_the_range():
    """An illegal contact or a tile read twice across the table means one reading is wrong, however surely each
    was read: the total range covers the other reading (photoreal webcam / phone photos: confident +-1 misreads)."""
    # (0, 0) read magenta 2 against (1, 0)'s 3 on their shared edge, both confidently; the truth is magenta 3
    bad = MosaicState(M1.tiles[:4] + (tile(0, 0, 0, 2, 1),) + M1.tiles[5:])
    good = score_game([BEN], [M1], []).to_json()["players"]["Ben"]["total"]
    r = score_game([BEN], [bad], []).to_json()
    lo, hi = r["players"]["Ben"]["total_range"]
    assert r["players"]["Ben"]["total"] == good - 1 and lo <= good <= hi
    assert [f["cells"] for f in r["flags"] if f["code"] == "score_range"] == [[[0, 0], [1, 0]]]
    # Aki's (0, -1) and Ben's (3, 0) both read as (1, 1, 1): one is another tile; like_this_tile may count 1 or 2
    ben = MosaicState(M2.tiles + (tile(3, 0, 1, 1, 1),))
    r = score_game([AKI, BEN], [M1, ben], ["like_this_tile"]).to_json()
    assert "duplicate_tile" in [f["code"] for f in r["flags"]]
    assert r["players"]["Aki"]["total_range"][0] <= r["players"]["Aki"]["total"] - 3
    assert r["players"]["Ben"]["total_range"][0] <= r["players"]["Ben"]["total"] - 3
    off = CmykOptions(doubt_conflicting_cells=False)
    assert score_game([BEN], [bad], [], options=off).to_json()["players"]["Ben"]["total_range"] == [good - 1] * 2


def test_ranking_tie_breaks():
    e = [RankEntry("A", 20, 2, 0, 30), RankEntry("B", 20, 3, 1, 30), RankEntry("C", 20, 3, 0, 31),
         RankEntry("D", 20, 3, 0, 29), RankEntry("E", 25, 0, 2, 40)]
    r = rank_players(e)
    assert r.order == ("E", "D", "C", "B", "A")
    assert r.decided_by == {"D": "points", "C": "tiles", "B": "k_tiles", "A": "hexagons"}
    r = rank_players([RankEntry("A", 10, 1, 0, 9), RankEntry("B", 10, 1, 0, 9), RankEntry("C", 5, 0, 0, 1)])
    assert r.places == {"A": 1, "B": 1, "C": 3} and r.ties() == (("A", "B"),)


def test_ranking_in_a_game():
    # Aki on M1: 8 points. Ben (magenta 3) on M1 minus the hanging tile: 5 + 2 = 7; plus like_this_tile ...
    ben_m = MosaicState(M1.tiles[:6])
    r = score_game([AKI, BEN], [M1, ben_m], [])
    assert r.scores == {"Aki": 8, "Ben": 7} and r.ranking.order == ("Aki", "Ben")
    # equal points and hexagons: fewer tiles wins
    eq = score_game([CmykPlayer("Aki", PersonalCard("magenta", 3)), BEN], [M1, ben_m], [])
    assert eq.scores == {"Aki": 7, "Ben": 7} and eq.ranking.order == ("Ben", "Aki")
    assert "ranking: Aki placed 2, decided by more tiles" in eq.explanation
    tie = score_game([BEN, CmykPlayer("Cy", PersonalCard("magenta", 3))], [ben_m, ben_m], [])
    assert tie.ranking.places == {"Ben": 1, "Cy": 1} and "tie" in [f.code for f in tie.flags]


def test_resolution_report():
    res = resolve_cards(["never_mind", "like_this_tile", "do_more", "never_mind", "this_and_that"])
    assert [c.status for c in res.cards] == ["left_game", "counted", "cancelled", "applied", "out_of_game"]
    res = resolve_cards(["this_and_that"], CardAnswers(extra_cards=(("do_more", "want_height"),)))
    assert [(c.card, c.status, c.multiplier) for c in res.cards] == [
        ("this_and_that", "out_of_game", 1), ("do_more", "applied", 1), ("want_height", "counted", 2)]
    with pytest.raises(ValueError, match=r"public_cards\[1\]"):
        resolve_cards(["omakase", "bogus"])
    assert [f.code for f in resolve_cards(["omakase", "this_and_that", "do_more"]).flags] == ["needs_answer"]
    extras = CardAnswers(extra_cards=(("do_more", "want_height"),))
    res = resolve_cards(["this_and_that", "do_more", "want_height"], extras)
    assert [f.code for f in res.flags] == ["duplicate_card"]
    # answers are matched by occurrence: a cancelled want_this_colour still consumes its answer
    res = resolve_cards(["want_this_colour", "never_mind"], CardAnswers(want_this_colour=(PersonalCard("cyan", 1),)))
    assert res.flags == () and res.cards[0].status == "cancelled"


def test_json_contract_and_explanation():
    r = score_game([AKI, BEN], [M1, M2], ["like_this_tile", "do_more"]).to_json()
    assert set(r) >= {"game", "players", "ranking", "scores", "flags", "explanation", "cards_resolved", "decisions"}
    assert r["scores"] == {"Aki": 8 + 6, "Ben": 0}
    assert any("like_this_tile" in line and "(0,-1)" in line for line in r["explanation"])
    assert any(line.startswith("decision k_tile_marks") for line in r["explanation"])


def test_parse_context():
    ctx = {"players": [{"name": "Aki", "personal_card": {"colour": "cyan", "level": 2}}],
           "public_cards": ["do_more", "use_many"],
           "answers": {"let_me_think": ["omakase"], "want_this_colour": [{"colour": "yellow", "level": 1}]}}
    players, cards, ans = parse_cmyk_context(ctx)
    assert players == (CmykPlayer("Aki", PersonalCard("cyan", 2)),) and cards == ("do_more", "use_many")
    assert ans.let_me_think == ("omakase",) and ans.want_this_colour == (PersonalCard("yellow", 1),)
    for bad, field in [({"players": []}, "players"),
                       ({"players": [{"name": "A", "personal_card": {"colour": "red", "level": 1}}]},
                        r"players\[0\].personal_card"),
                       ({"players": [{"name": "A", "personal_card": {"colour": "cyan", "level": 9}}]}, "level"),
                       ({"players": [{"personal_card": {"colour": "cyan", "level": 1}}]}, r"players\[0\].name"),
                       ({**ctx, "public_cards": ["do_more", "nope"]}, r"public_cards\[1\]"),
                       ({**ctx, "answers": {"want_this_colour": [{"colour": "cyan"}]}}, "want_this_colour")]:
        with pytest.raises(ValueError, match=field):
            parse_cmyk_context(bad)
    assert parse_cmyk_options({"options": {"horizontal": "P"}}).horizontal == "P"
    o = parse_cmyk_options({"options": {"horizontal_by_player": {"Aki": "N"}}})
    assert o.horizontal_by_player == (("Aki", "N"),)
    r = score_game([AKI, BEN], [ROW8, ROW8], ["make_it_wide"], options=o).to_json()["players"]
    assert (r["Aki"]["breakdown"]["make_it_wide"], r["Ben"]["breakdown"]["make_it_wide"]) == (1, 4)
    with pytest.raises(ValueError, match="horizontal_by_player.Aki"):
        parse_cmyk_options({"options": {"horizontal_by_player": {"Aki": "X"}}})
    with pytest.raises(ValueError, match="options.min_confidence"):
        parse_cmyk_options({"options": {"min_confidence": "high"}})
    with pytest.raises(ValueError, match="options.k_marks_wild_for_cards"):
        parse_cmyk_options({"options": {"k_marks_wild_for_cards": 1}})
    assert parse_cmyk_options({"options": {"min_confidence": 1}}).min_confidence == 1.0
    with pytest.raises(ValueError, match="options.nope"):
        parse_cmyk_options({"options": {"nope": 1}})
    with pytest.raises(ValueError, match="mosaics"):
        score_game([AKI], [M1, M2], [])


def test_context_to_judgement():
    ctx = parse_context({"players": [{"name": "Aki", "personal_card": {"colour": "cyan", "level": 0}},
                                     {"name": "Ben", "personal_card": {"colour": "magenta", "level": 3}}],
                         "public_cards": ["make_it_wide", "do_more"], "options": {"horizontal": "P"}})
    assert ctx.options.horizontal == "P"
    out = adjudicate_mosaics([ROW8, M1], ctx)
    assert out["game"] == "cmyk" and out["ranking"][0] in ("Aki", "Ben")
    # turned so that P edges are horizontal, the 8-tile row is a zig-zag of runs of 2: 1 point x2
    assert out["players"]["Aki"]["breakdown"]["make_it_wide"] == 2
