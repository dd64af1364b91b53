"""Genial Spezial rules (RULES.md section 5): the rulebook's examples, caps, bonus cells, tie-breaks, and seeded
random games checked against an independent replay written plainly (sets of cells, flood fill)."""

from __future__ import annotations

import random

import pytest

from components import load_components
from scoring.genial import SYMBOLS, GameSetup, GenialReplay, GenialRulesConfig, Placement, Tower, rank_by_lowest
from scoring.genial_board import GenialBoard, TowerSpace, hex_distance, neighbours

BOARD = GenialBoard.from_components(load_components()["genial_spezial"])


def open_board(towers, bonus=()):
    """A plain radius-14 hexagon whose only tower spaces are the given towers."""
    spaces = tuple(TowerSpace(t.qr, "greyblue", ()) for t in towers)
    return GenialBoard(((0, 0), (0, 0)), 14, 24.0, spaces, frozenset(bonus))


def game_with(towers, bonus=(), players=("A", "B")):
    return GenialReplay(open_board(towers, bonus), players, towers)


def tile(player, *cells, bonus=None):
    return Placement(player, tuple(cells), bonus)


# Towers in row r = 0 at q = 0, 3, 6, 9; a chain runs along row r = 1, where the hex (q, 1) touches the
# towers at (q, 0) and (q + 1, 0). A tile (q, 1)-(q+1, 1) links the towers at q, q+1 and q+2.
def row_towers(*spec):
    return [Tower((q, 0), size, symbol, light) for q, size, symbol, light in spec]


def test_board_has_247_cells_24_spaces_8_bonus():
    assert len(BOARD.cells()) == 247
    assert len(BOARD.tower_spaces) == 24 and len(BOARD.bonus_cells) == 8
    counts = {n: sum(1 for s in BOARD.tower_layout(n).values() if s == "large") for n in (2, 3, 4)}
    smalls = {n: sum(1 for s in BOARD.tower_layout(n).values() if s == "small") for n in (2, 3, 4)}
    assert counts == {2: 6, 3: 8, 4: 10} and smalls == {2: 10, 3: 12, 4: 14}


def test_p2_linking_two_towers_scores_both_and_turns_them_dark():
    """Rulebook P2 (upper middle): a chain links a green and a blue tower: blue 1, green 2."""
    g = game_with(row_towers((0, "small", "blue", 1), (3, "small", "green", 2)))
    assert g.play(tile("A", (0, 1), (1, 1))).move_points == {s: 0 for s in SYMBOLS}   # one tower: nothing
    m = g.play(tile("A", (2, 1), (3, 1)))
    assert m.move_points == {"orange": 0, "blue": 1, "green": 2, "purple": 0}
    assert all(t.dark for t in g.tower_list())


def test_p2_extending_scores_only_the_newly_linked_tower_at_its_value():
    """Rulebook P2 (lower middle): an existing chain (blue + green scored) links another green tower: green 1."""
    g = game_with(row_towers((0, "small", "blue", 1), (3, "small", "green", 2), (6, "small", "green", 1)))
    g.play(tile("A", (0, 1), (1, 1)))
    g.play(tile("A", (2, 1), (3, 1)))
    m = g.play(tile("A", (4, 1), (5, 1)))
    assert m.move_points == {"orange": 0, "blue": 0, "green": 1, "purple": 0}
    assert [t.qr for t in m.scored_towers] == [(6, 0)]


def test_p2_extending_without_new_tower_scores_nothing():
    """Rulebook P2 (upper right): a tile that only lengthens a chain whose towers are scored scores nothing."""
    g = game_with(row_towers((0, "small", "blue", 1), (3, "small", "green", 2)))
    g.play(tile("A", (0, 1), (1, 1)))
    g.play(tile("A", (2, 1), (3, 1)))
    m = g.play(tile("A", (0, 2), (1, 2)))
    assert sum(m.move_points.values()) == 0


def test_p2_a_new_separate_chain_scores_the_same_towers_again_at_the_dark_value():
    """Rulebook P2 (middle right): a new chain linking the same towers scores them again (dark now: +1)."""
    g = game_with(row_towers((0, "small", "purple", 1), (3, "small", "green", 2)))
    g.play(tile("A", (0, 1), (1, 1)))
    g.play(tile("A", (2, 1), (3, 1)))
    # a second chain of A below row 0 (row r = -1: the hex (q, -1) touches the towers at (q, 0) and (q - 1, 0))
    g.play(tile("A", (1, -1), (2, -1)))
    m = g.play(tile("A", (3, -1), (4, -1)))
    assert m.move_points == {"orange": 0, "blue": 0, "green": 3, "purple": 2}
    assert len(g.chains) == 2


def test_p2_joining_the_chains_instead_scores_nothing():
    """Rulebook P2 (lower right): had the tile joined the old chain, nothing would score."""
    g = game_with(row_towers((0, "small", "purple", 1), (3, "small", "green", 2)))
    g.play(tile("A", (0, 1), (1, 1)))
    g.play(tile("A", (2, 1), (3, 1)))
    m = g.play(tile("A", (1, 2), (1, 3)))
    assert sum(m.move_points.values()) == 0 and m.merged_chains == 1


def test_p3_upper_left_second_large_tower_plus_two():
    """Rulebook P3 (upper left): a chain with orange (large) and purple scored links a green large tower:
    green 2, then two large towers newly linked: +2 in all four."""
    g = game_with(row_towers((0, "large", "orange", 1), (3, "small", "purple", 1), (6, "large", "green", 2)))
    g.play(tile("A", (0, 1), (1, 1)))
    g.play(tile("A", (2, 1), (3, 1)))
    m = g.play(tile("A", (4, 1), (5, 1)))
    assert m.move_points == {"orange": 2, "blue": 2, "green": 4, "purple": 2}
    assert m.large_new == ((0, 0), (6, 0))


def test_p3_middle_upper_merge_adds_one_large_tower_plus_one():
    """Rulebook P3 (middle upper): a chain that counted two large towers merges with one holding a single large
    tower whose token it has scored: +1 in all four, no token points."""
    towers = row_towers((0, "large", "orange", 1), (3, "large", "green", 1), (9, "large", "blue", 1),
                        (12, "small", "purple", 1))
    g = game_with(towers)
    for cells in [((0, 1), (1, 1)), ((2, 1), (3, 1))]:                      # chain 1: orange + green large
        g.play(tile("A", *cells))
    for cells in [((9, 1), (10, 1)), ((11, 1), (12, 1))]:                   # chain 2: blue (large) + purple
        g.play(tile("A", *cells))
    g.play(tile("A", (4, 1), (5, 1)))
    g.play(tile("A", (6, 1), (7, 1)))
    m = g.play(tile("A", (8, 1), (8, 2)))                                   # joins the two chains
    assert m.merged_chains == 2
    assert m.move_points == {s: 1 for s in SYMBOLS}
    assert m.scored_towers == ()


def test_p3_middle_lower_merge_and_new_large_plus_two():
    """Rulebook P3 (middle lower): merging two chains and newly linking a blue large tower: blue 1 (token), and
    of four linked large towers orange and green are counted already: +2 (purple and blue)."""
    towers = row_towers((0, "large", "orange", 1), (3, "large", "green", 1), (9, "large", "purple", 1),
                        (12, "small", "green", 2))
    towers.append(Tower((6, 2), "large", "blue", 1))
    g = game_with(towers)
    for cells in [((0, 1), (1, 1)), ((2, 1), (3, 1))]:                      # chain 1 counted orange + green
        g.play(tile("A", *cells))
    for cells in [((8, 1), (9, 1)), ((10, 1), (11, 1))]:                    # chain 2: purple (large) + small green
        g.play(tile("A", *cells))
    g.play(tile("A", (4, 1), (5, 1)))
    m = g.play(tile("A", (6, 1), (7, 1)))                                   # joins both and touches blue (6, 2)
    assert [t.qr for t in m.scored_towers] == [(6, 2)]
    assert m.large_new == ((6, 2), (9, 0))
    assert m.move_points == {"orange": 2, "blue": 3, "green": 2, "purple": 2}


def test_p3_upper_right_three_large_for_the_first_time_plus_three():
    """Rulebook P3 (upper right): merging and newly adding so that three large towers are linked for the first
    time: green 2 (token) and +3 in all four."""
    towers = row_towers((0, "large", "orange", 1), (3, "small", "purple", 1), (9, "large", "blue", 1),
                        (12, "small", "blue", 2))
    towers.append(Tower((6, 2), "large", "green", 2))
    g = game_with(towers)
    for cells in [((0, 1), (1, 1)), ((2, 1), (3, 1))]:                      # orange large + purple small
        g.play(tile("A", *cells))
    for cells in [((8, 1), (9, 1)), ((10, 1), (11, 1))]:                    # blue large + blue small
        g.play(tile("A", *cells))
    g.play(tile("A", (4, 1), (5, 1)))
    m = g.play(tile("A", (6, 1), (7, 1)))                                   # joins both and touches green (6, 2)
    assert m.large_new == ((0, 0), (6, 2), (9, 0))
    assert m.move_points == {"orange": 3, "blue": 3, "green": 5, "purple": 3}


def test_p3_lower_right_joining_scored_chains_scores_nothing():
    towers = row_towers((0, "large", "orange", 1), (3, "large", "green", 1), (9, "large", "blue", 1),
                        (12, "large", "purple", 1))
    g = game_with(towers)
    for cells in [((0, 1), (1, 1)), ((2, 1), (3, 1)), ((9, 1), (10, 1)), ((11, 1), (12, 1)),
                  ((4, 1), (5, 1)), ((6, 1), (7, 1))]:
        g.play(tile("A", *cells))
    # orange+green counted by chain 1, blue+purple by chain 2: the merge links all four, none new
    m = g.play(tile("A", (8, 1), (8, 2)))
    assert sum(m.move_points.values()) == 0


def test_single_tower_remembers_nothing_so_both_score_later():
    g = game_with(row_towers((0, "large", "orange", 2), (6, "large", "blue", 1)))
    g.play(tile("A", (0, 1), (1, 1)))
    g.play(tile("A", (2, 1), (3, 1)))
    m = g.play(tile("A", (4, 1), (5, 1)))
    assert m.move_points == {"orange": 4, "blue": 3, "green": 2, "purple": 2}


def test_other_players_tiles_break_chains():
    g = game_with(row_towers((0, "small", "orange", 1), (6, "small", "blue", 1)))
    g.play(tile("A", (0, 1), (1, 1)))
    g.play(tile("B", (2, 1), (3, 1)))
    m = g.play(tile("A", (4, 1), (5, 1)))
    assert sum(m.move_points.values()) == 0 and len(m.chain.cells) == 2


def test_cap_at_twenty_excess_lost():
    g = game_with(row_towers((0, "large", "orange", 2), (3, "large", "blue", 2)))
    g.scores["A"] = {"orange": 19, "blue": 20, "green": 18, "purple": 0}
    g.play(tile("A", (0, 1), (1, 1)))
    m = g.play(tile("A", (2, 1), (3, 1)))
    assert m.raw_points == {"orange": 4, "blue": 4, "green": 2, "purple": 2}
    assert m.move_points == {"orange": 1, "blue": 0, "green": 2, "purple": 2}
    assert m.lost_to_cap == {"orange": 3, "blue": 4}


def test_bonus_cell_named_and_default_lowest_after_tokens():
    g = game_with(row_towers((0, "small", "orange", 1), (3, "small", "blue", 1)), bonus=[(3, 1), (0, -5)])
    g.scores["A"] = {"orange": 0, "blue": 0, "green": 5, "purple": 5}
    g.play(tile("A", (0, 1), (1, 1)))
    m = g.play(tile("A", (2, 1), (3, 1)))                  # tokens orange 1, blue 1; bonus to the lowest
    assert m.bonus_cells == ((3, 1),) and not m.bonus_symbol_named
    assert m.bonus_symbol == "orange"                      # orange 1 = blue 1 < green: the tie order picks orange
    assert m.move_points == {"orange": 2, "blue": 1, "green": 0, "purple": 0}
    m = g.play(tile("A", (0, -5), (1, -5), bonus="purple"))
    assert m.bonus_symbol_named and m.move_points == {"orange": 0, "blue": 0, "green": 0, "purple": 1}


def test_tie_breaks_by_next_lowest_p4():
    """Rulebook P4: both lowest 11; next lowest blue 12, red 13: red wins."""
    scores = {"blue": {"orange": 11, "blue": 12, "green": 15, "purple": 14},
              "red": {"orange": 13, "blue": 11, "green": 16, "purple": 13}}
    order, ties = rank_by_lowest(scores, ["blue", "red"])
    assert order == ["red", "blue"] and ties == []
    same = {"x": {s: 5 for s in SYMBOLS}, "y": {s: 5 for s in SYMBOLS}}
    assert rank_by_lowest(same, ["y", "x"]) == (["y", "x"], [["y", "x"]])


@pytest.mark.parametrize("cells, why", [
    (((0, 1),), "1 hexes"), (((0, 1), (2, 1)), "not neighbours"), (((0, 0), (1, 0)), "tower space"),
    (((20, 0), (21, 0)), "off the board")])
def test_illegal_placements_named(cells, why):
    g = game_with(row_towers((0, "small", "orange", 1)))
    assert why in g.why_not(tile("A", *cells))
    with pytest.raises(ValueError):
        g.play(tile("A", *cells))


def test_empty_tower_spaces_cannot_be_covered():
    g = GenialReplay(BOARD, ["A", "B"], ())
    assert "tower space" in g.why_not(tile("A", (-1, -8), (0, -8)))   # navy space empty at 2 players


# ---------------------------------------------------------------------------------------------------------------
# an independent replay, written plainly: sets of cells and flood fill, recomputing every chain after each move


def flood_chains(owner, player, blocked):
    todo = {c for c, p in owner.items() if p == player}
    chains = []
    while todo:
        start = todo.pop()
        comp, stack = {start}, [start]
        while stack:
            c = stack.pop()
            for n in neighbours(c):
                if n in todo:
                    todo.discard(n)
                    comp.add(n)
                    stack.append(n)
        chains.append(frozenset(comp))
    return chains


def plain_replay(towers, players, moves, cap=20):
    size = {t.qr: t.size for t in towers}
    symbol = {t.qr: t.symbol for t in towers}
    light = {t.qr: t.light_value for t in towers}
    dark = set()
    owner = {}
    memory = {}          # frozenset(cells) of a chain -> (scored, counted)
    scores = {p: dict.fromkeys(SYMBOLS, 0) for p in players}
    points = []
    for player, cells in moves:
        for c in cells:
            owner[c] = player
        old = dict(memory)
        chains = flood_chains(owner, player, set(size))
        new_memory = {k: v for k, v in old.items() if owner[next(iter(k))] != player}
        gained = dict.fromkeys(SYMBOLS, 0)
        for ch in chains:
            parts = [k for k in old if owner[next(iter(k))] == player and k <= ch]
            scored = set().union(*(old[k][0] for k in parts)) if parts else set()
            counted = set().union(*(old[k][1] for k in parts)) if parts else set()
            if set(cells) <= ch:
                linked = {t for t in size if any(hex_distance(t, c) == 1 for c in ch)}
                if len(linked) >= 2:
                    for t in linked - scored:
                        gained[symbol[t]] += light[t] + (t in dark)
                    turn = linked - scored
                    scored |= linked
                else:
                    turn = set()
                large = {t for t in linked if size[t] == "large"}
                if len(large) >= 2:
                    for s in SYMBOLS:
                        gained[s] += len(large - counted)
                    counted |= large
                dark |= turn
            new_memory[ch] = (scored, counted)
        memory = new_memory
        before = scores[player]
        scores[player] = {s: max(before[s], min(cap, before[s] + gained[s])) for s in SYMBOLS}
        points.append({s: scores[player][s] - before[s] for s in SYMBOLS})
    return points, scores


@pytest.mark.parametrize("seed", range(12))
def test_random_games_agree_with_plain_replay(seed):
    rng = random.Random(seed)
    n = rng.choice([2, 3, 4])
    players = [f"P{k}" for k in range(n)]
    layout = BOARD.tower_layout(n)
    towers = tuple(Tower(c, s, rng.choice(SYMBOLS), rng.choice([1, 2])) for c, s in sorted(layout.items()))
    game = GameSetup(dict(zip(players, ["red", "blue", "yellow", "black"], strict=False)), towers).replay(BOARD, [])
    free = [c for c in BOARD.cells() if c not in BOARD.space_cells() and c not in BOARD.bonus_cells]
    moves = []
    for turn in range(60):
        player = players[turn % n]
        rng.shuffle(free)
        for a in free:
            options = [b for b in neighbours(a) if b in free]
            if options:
                b = rng.choice(options)
                break
        else:
            break
        free.remove(a)
        free.remove(b)
        moves.append((player, (a, b)))
        game.play(tile(player, a, b))
    expected_points, expected_scores = plain_replay(towers, players, moves)
    assert [m.move_points for m in game.history] == expected_points
    assert game.scores == expected_scores
    assert sum(sum(p.values()) for p in expected_points) > 0


def test_config_cap_is_used():
    towers = row_towers((0, "small", "orange", 2), (3, "small", "blue", 2))
    g = GenialReplay(open_board(towers), ["A"], towers, GenialRulesConfig(cap=3))
    g.scores["A"]["orange"] = 2
    g.play(tile("A", (0, 1), (1, 1)))
    assert g.play(tile("A", (2, 1), (3, 1))).move_points["orange"] == 1
