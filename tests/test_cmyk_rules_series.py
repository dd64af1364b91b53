"""CMYK! series modes ("3 games" victory points, "cumulative to 40") on hand-made game outcomes (pure rules)."""

from scoring.cmyk import CmykPlayer, PersonalCard, score_game
from scoring.cmyk_series import GameOutcome, SeriesOptions, cumulative, outcome_of, three_games
from scoring.cmyk_state import EdgeReading, MosaicState, TileReading


def game(scores: dict[str, int], places: dict[str, int] | None = None) -> GameOutcome:
    if places is None:
        order = sorted(scores, key=lambda n: -scores[n])
        places = {n: k + 1 for k, n in enumerate(order)}
    return GameOutcome(scores, places)


def test_three_games_victory_points():
    gs = [game({"A": 30, "B": 20, "C": 10}), game({"A": 5, "B": 25, "C": 15}), game({"A": 1, "B": 0, "C": 40})]
    s = three_games(gs)
    assert s.finished and s.games_counted == 3
    assert s.per_game[0] == {"A": 2, "B": 1, "C": 0}
    assert s.points == {"A": 3, "B": 3, "C": 3}  # A 2+0+1, B 1+2+0, C 0+1+2
    assert s.ranking == ("C", "B", "A") and s.leaders == ("C",)  # tie on VP broken by game points 65 > 45 > 36
    assert [f.code for f in s.flags] == ["series_tie"]
    s = three_games(gs, SeriesOptions(break_ties_by_points=False))
    assert set(s.leaders) == {"A", "B", "C"}


def test_three_games_not_finished_and_extra_games():
    s = three_games([game({"A": 3, "B": 1})])
    assert not s.finished and s.points == {"A": 2, "B": 1} and s.leaders == ("A",)
    s = three_games([game({"A": 3, "B": 1})] * 4)
    assert s.games_counted == 3 and s.points == {"A": 6, "B": 3} and s.flags[0].code == "extra_games_ignored"


def test_three_games_shared_first_place():
    s = three_games([game({"A": 10, "B": 10, "C": 5}, {"A": 1, "B": 1, "C": 3})])
    assert s.per_game[0] == {"A": 2, "B": 2, "C": 0}  # two firsts: nobody is second


def test_cumulative_ends_after_the_game_reaching_40():
    gs = [game({"A": 15, "B": 20}), game({"A": 20, "B": 15}), game({"A": 10, "B": 3}), game({"A": 50, "B": 0})]
    s = cumulative(gs)
    assert s.finished and s.games_counted == 3  # A reaches 45 in game 3; game 4 ignored
    assert s.points == {"A": 45, "B": 38} and s.leaders == ("A",)
    assert [f.code for f in s.flags] == ["extra_games_ignored"]
    s = cumulative(gs[:2])
    assert not s.finished and s.points == {"A": 35, "B": 35}
    # someone else may finish ahead of the one who reached 40 first
    s = cumulative([game({"A": 39, "B": 30}), game({"A": 1, "B": 15})])
    assert s.finished and s.leaders == ("B",) and s.points == {"A": 40, "B": 45}


def test_cumulative_counts_negative_games_and_custom_target():
    s = cumulative([game({"A": -3, "B": 4}), game({"A": 12, "B": 5})], SeriesOptions(cumulative_target=9))
    assert s.finished and s.points == {"A": 9, "B": 9}
    assert s.ranking[0] == "A" and "series_tie" in [f.code for f in s.flags]  # equal: A's game points 9 = B's 9
    assert s.to_json()["points"] == {"A": 9, "B": 9}


def test_series_from_real_results():
    t = {d: EdgeReading(c, 0) for d, c in (("P", "cyan"), ("N", "magenta"), ("H", "yellow"))}
    one = MosaicState((TileReading((0, 0), "normal", t),))
    players = [CmykPlayer("A", PersonalCard("cyan", 0)), CmykPlayer("B", PersonalCard("cyan", 5))]
    r = score_game(players, [one, one], [])
    assert outcome_of(r) == GameOutcome({"A": 1, "B": 0}, {"A": 1, "B": 2})
    assert three_games([r, r, r]).points == {"A": 6, "B": 3}
    assert outcome_of(r.to_json()) == outcome_of(r)  # as stored in a ledger
    assert outcome_of({"scores": {"A": 3, "B": 5}, "ranking": ["B", "A"]}).places == {"B": 1, "A": 2}
    assert cumulative([r.to_json()] * 2).points == {"A": 2, "B": 0}
