"""Invariants of CMYK! card resolution and scoring on random games (synth legal mosaics, random reveal orders).

Usage: python tools/eval_cmyk_cards.py [N_SEEDS=300]

For each seed: 2-5 players with random legal mosaics (``synth.cmyk.random_mosaic``) and personal cards, a
random reveal order of 0-6 distinct public cards, and these must hold (each is a reading RULES.md fixes):

- every total is the sum of its breakdown;
- ``this_and_that`` inserted anywhere changes nothing (it leaves and is the target of no effect);
- ``never_mind`` put first changes nothing (it leaves the game);
- a card followed by ``never_mind`` appended at the end changes nothing (cancelled);
- ``let_me_think`` answered with card X scores exactly like X in its place;
- ``do_more`` appended after a counted scoring card doubles exactly that card's breakdown item.

Prints violations per invariant; exit 1 on any.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.cmyk import CardAnswers, CmykPlayer, PersonalCard, score_game  # noqa: E402
from scoring.cmyk_cards import CARD_IDS, SCORING_CARDS  # noqa: E402
from scoring.cmyk_state import INKS, EdgeReading, MosaicState, TileReading  # noqa: E402
from synth.cmyk import MosaicSceneConfig, random_mosaic  # noqa: E402

SIMPLE = [c for c in CARD_IDS if c not in ("let_me_think", "this_and_that", "want_this_colour")]
ANSWERS = CardAnswers(want_this_colour=(PersonalCard("yellow", 1),))


def random_game(rng: np.random.Generator):
    n = int(rng.integers(2, 6))
    cfg = MosaicSceneConfig(min_tiles=6, max_tiles=30)
    mosaics = []
    for _ in range(n):
        scene = random_mosaic(rng, cfg)
        mosaics.append(MosaicState(tuple(
            TileReading(t.cell, t.kind, {d: EdgeReading(c, lv) for d, (c, lv) in t.edges.items()})
            for t in scene.tiles)))
    players = [CmykPlayer(f"P{k}", PersonalCard(INKS[int(rng.integers(3))], int(rng.integers(6)))) for k in range(n)]
    cards = list(rng.choice(SIMPLE + ["want_this_colour"], size=int(rng.integers(0, 7)), replace=False))
    return players, mosaics, [str(c) for c in cards]


def totals(players, mosaics, cards, answers=ANSWERS) -> dict[str, int]:
    return score_game(players, mosaics, cards, answers).scores


def check(seed: int) -> list[str]:
    """Names of the invariants this seed violates."""
    rng = np.random.default_rng(seed)
    players, mosaics, cards = random_game(rng)
    bad = []
    r = score_game(players, mosaics, cards, ANSWERS)
    base = r.scores
    if any(p.total != sum(v for _, v in p.breakdown) for p in r.players):
        bad.append("total_is_sum")
    # insert before a do_more / never_mind when there is one (where "the previous card" matters)
    hooks = [k for k, c in enumerate(cards) if c in ("do_more", "never_mind")]
    pos = hooks[int(rng.integers(len(hooks)))] if hooks else int(rng.integers(0, len(cards) + 1))
    if totals(players, mosaics, cards[:pos] + ["this_and_that"] + cards[pos:]) != base:
        bad.append("this_and_that_inert")
    if totals(players, mosaics, ["never_mind"] + cards) != base:
        bad.append("never_mind_first_inert")
    extra = [c for c in SCORING_CARDS if c not in cards and c != "want_this_colour"]
    if extra:
        x = extra[int(rng.integers(len(extra)))]
        if totals(players, mosaics, cards + [x, "never_mind"]) != base:
            bad.append("cancelled_card_inert")
        # let_me_think answered with x == x in its place
        ans = CardAnswers(let_me_think=(x,), want_this_colour=ANSWERS.want_this_colour)
        if totals(players, mosaics, cards[:pos] + ["let_me_think"] + cards[pos:], ans) != \
                totals(players, mosaics, cards[:pos] + [x] + cards[pos:]):
            bad.append("let_me_think_is_its_answer")
        # do_more right after a counted x doubles exactly x's item
        if "do_more" not in cards and (not cards or cards[-1] != "do_more"):
            once = score_game(players, mosaics, cards + [x], ANSWERS)
            twice = score_game(players, mosaics, cards + [x, "do_more"], ANSWERS)
            for a, b in zip(once.players, twice.players):
                da, db = a.breakdown_json(), b.breakdown_json()
                if db.get(x) != 2 * da.get(x, 0) or {k: v for k, v in db.items() if k != x} != \
                        {k: v for k, v in da.items() if k != x}:
                    bad.append("do_more_doubles_previous")
                    break
    return bad


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 300
    bad: Counter = Counter()
    for seed in range(n):
        bad.update(check(seed))
    print(f"{n} random games (2-5 players, legal synth mosaics, 0-6 cards): violations {dict(bad) or 'none'}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
