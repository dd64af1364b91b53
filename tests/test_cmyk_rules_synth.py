"""Scoring's legality checks against the synth renderer's independent legal-mosaic generator
(``synth.cmyk.random_mosaic``: connected, touching edges match, K tiles wild; 10-35 tiles, any of the three
direction-colour maps): 30 seeds, no illegal contact or impossible/duplicate tile is reported; one corrupted
touching edge per mosaic is reported as exactly that contact. Pure rules, no rendering."""

import numpy as np

from geometry.trilattice import DIRECTIONS, neighbour
from scoring.cmyk import CmykPlayer, PersonalCard, score_game
from scoring.cmyk_state import EdgeReading, MosaicState, TileReading
from synth.cmyk import random_mosaic

SEEDS = range(30)
PLAYER = CmykPlayer("Aki", PersonalCard("cyan", 1))


def mosaic_state(scene) -> MosaicState:
    return MosaicState(tuple(TileReading(t.cell, t.kind, {d: EdgeReading(c, lv) for d, (c, lv) in t.edges.items()})
                             for t in scene.tiles))


def test_legal_mosaics_raise_nothing():
    for seed in SEEDS:
        m = mosaic_state(random_mosaic(np.random.default_rng(seed)))
        r = score_game([PLAYER], [m], []).to_json()
        assert r["players"]["Aki"]["illegal_contacts"] == 0, seed
        assert not {f["code"] for f in r["flags"]} & {"illegal_contact", "impossible_tile", "duplicate_tile",
                                                     "duplicate_cell", "too_many_k"}, (seed, r["flags"])


def test_one_corrupted_edge_is_found():
    found = 0
    for seed in SEEDS:
        m = mosaic_state(random_mosaic(np.random.default_rng(seed)))
        cells = {t.cell: t for t in m.tiles}
        # the first normal tile edge that touches another normal tile: bump its level
        pick = next(((t, d) for t in m.tiles if t.kind == "normal" for d in DIRECTIONS
                     if neighbour(*t.cell, d) in cells and cells[neighbour(*t.cell, d)].kind == "normal"), None)
        if pick is None:
            continue
        t, d = pick
        e = t.edges[d]
        bad = TileReading(t.cell, t.kind, {**t.edges, d: EdgeReading(e.colour, (e.level + 1) % 6)})
        r = score_game([PLAYER], [MosaicState(tuple(bad if x is t else x for x in m.tiles))], []).to_json()
        (f,) = [f for f in r["flags"] if f["code"] == "illegal_contact"]
        assert [sorted(map(tuple, c["cells"])) for c in f["contacts"]] == [sorted([t.cell, neighbour(*t.cell, d)])]
        found += 1
    assert found >= 25


def test_card_resolution_invariants_on_random_games():
    """20 random games (2-5 players, legal synth mosaics, 0-6 random cards): this_and_that and a leading
    never_mind change nothing, a cancelled card changes nothing, let_me_think scores as its answer, an
    appended do_more doubles exactly the previous card (tools/eval_cmyk_cards.py runs 300)."""
    from tools.eval_cmyk_cards import check

    found = {seed: check(seed) for seed in range(20)}
    assert {s: v for s, v in found.items() if v} == {}
