"""Carrotain judged without its context (no players, no challenger): the same verdict as with any challenger,
awards by chip colour only, and a flag saying what is missing."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.carrotain import adjudicate
from scoring.carrotain_state import BoardReading, CarrotainState, ChipReading

SQ = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], float)


def _state(out_red: int, out_blue: int) -> CarrotainState:
    """Two boards; red has 2 chips under them, ``out_red``/``out_blue`` chips outside."""
    chips = [ChipReading("star", "red", (50, 50)), ChipReading("star", "red", (250, 50))]
    chips += [ChipReading("star", "red", (400, 20 * i + 10)) for i in range(out_red)]
    chips += [ChipReading("star", "blue", (450, 20 * i + 10)) for i in range(out_blue)]
    chips += [ChipReading("colourless", None, (60, 60))]
    return CarrotainState(tuple(chips), (BoardReading("A", SQ), BoardReading("B", SQ + [200, 0])))


@pytest.mark.parametrize("out_red, out_blue, verdict", [(1, 1, "success"), (2, 3, "failure")])
def test_verdict_without_a_challenger_is_the_verdict_with_any(out_red, out_blue, verdict):
    state = _state(out_red, out_blue)
    anon = adjudicate(state, ["red", "blue"], None)
    for who in ("red", "blue"):
        named = adjudicate(state, ["red", "blue"], who)
        assert (named.verdict, named.not_hidden, named.contested) == (anon.verdict, anon.not_hidden, anon.contested)
    assert anon.verdict == verdict and "challenger_unknown" in anon.flag_codes()
    assert any("not named" in line for line in anon.explanation)
    if verdict == "success":  # not-hidden chips by colour; the unnamed challenger's boards are not counted
        assert anon.awards == {"red": {"boards": 0, "chips": 1}, "blue": {"boards": 0, "chips": 1}}
    else:  # every colour up to 2 (the challenger's, whichever it is, would take none)
        assert anon.awards == {"red": {"boards": 0, "chips": 2}, "blue": {"boards": 0, "chips": 2}}
    assert anon.to_json()["scores"] == {p: a["chips"] for p, a in anon.awards.items()}


def test_no_star_chips_and_no_players_still_gives_a_verdict():
    state = CarrotainState((ChipReading("colourless", None, (50, 50)),), (BoardReading("A", SQ),
                                                                           BoardReading("B", SQ + [200, 0])))
    res = adjudicate(state, [], None)
    assert res.verdict == "success" and res.awards == {} and "challenger_unknown" in res.flag_codes()
    with pytest.raises(ValueError, match="players is empty"):
        adjudicate(state, [], "red")
