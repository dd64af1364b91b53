"""Genial Spezial on two photoreal before/after pairs of the tune set (tests/data/photoreal/…/genial): towers'
cast shadows and glare on tiles. With the tokens' set-up given (as the page has it from the players) the
placement, its points and the score boards are exact by the photoreal kit's rules, every token is read right, and
no cell is read wrong without being marked unreadable."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.eval_genial import judge_pair, photoreal_items

SET = Path(__file__).resolve().parent / "data" / "photoreal"
ITEMS = list(photoreal_items(SET))


def test_the_pairs_are_there():
    assert {name for name, _, _ in ITEMS} == {"genial_s330000_01", "genial_s330000_05"}


@pytest.mark.parametrize("item", ITEMS, ids=[name for name, _, _ in ITEMS])
def test_judged_exactly_with_the_players_set_up(item):
    name, doc, photos = item
    row = judge_pair(name, doc, photos, "setup")
    assert row["outcome"] == "exact", row
    for photo in ("before", "after"):
        read = row[photo]
        assert read["cells_wrong"] == 0, (photo, read["cells_wrong_list"])
        assert read["symbol_wrong"] == read["side_wrong"] == read["towers_missing"] == 0, read


@pytest.mark.parametrize("item", ITEMS, ids=[name for name, _, _ in ITEMS])
def test_without_the_set_up_never_silently_wrong(item):
    name, doc, photos = item
    assert judge_pair(name, doc, photos, "none")["outcome"] in ("exact", "doubt")
