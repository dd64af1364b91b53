"""Genial Spezial: one placement judged from what was read before and after it (RULES.md section 5).

Pure rules. The game is rebuilt by replaying the context's earlier placements (`moves_before`); the board
read from the photos is checked against that replay, the placement is found (exactly two new neighbouring
hexes of the mover's colour on empty cells) and scored. Anything else - a tile missing or extra, a token on
the wrong side, one or three new hexes, a cell the camera cannot see - is flagged with its cells, never
scored silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from scoring.flags import Flag
from scoring.genial import (
    PLAYER_COLOURS,
    SYMBOLS,
    GenialReplay,
    GenialRulesConfig,
    MoveScore,
    Placement,
    Tower,
    rank_by_lowest,
)
from scoring.genial_board import Cell, GenialBoard, cells_of, neighbours


@dataclass(frozen=True)
class GenialContext:
    """What the players tell the judge (DESIGN.md's genial context).

    Attributes
    ----------
    players : dict name -> tile colour
        Clockwise, in turn order.
    mover : str
    moves_before : tuple of Placement
        Every earlier placement of the game, in order.
    scores_before : dict name -> dict symbol -> int, or None
        The score boards before this placement, when the players give them (checked against the replay).
    bonus_symbol : str or None
        The symbol the mover names for a bonus cell.
    placed : tuple of (int, int) or None
        The new tile's hexes, when only the after photo is given.
    """

    players: dict[str, str]
    mover: str
    moves_before: tuple[Placement, ...] = ()
    scores_before: dict[str, dict[str, int]] | None = None
    bonus_symbol: str | None = None
    placed: tuple[Cell, ...] | None = None

    def to_json(self) -> dict:
        out: dict = {"players": dict(self.players), "mover": self.mover,
                     "moves_before": [m.to_json() for m in self.moves_before]}
        if self.scores_before is not None:
            out["scores_before"] = {p: dict(s) for p, s in self.scores_before.items()}
        if self.bonus_symbol:
            out["bonus_symbol"] = self.bonus_symbol
        if self.placed is not None:
            out["placed"] = [list(c) for c in self.placed]
        return out

    @classmethod
    def from_json(cls, obj: Mapping) -> GenialContext:
        """Validate a context; raises ValueError naming the bad field."""
        if not isinstance(obj, Mapping):
            raise ValueError("context: expected a JSON object")
        players = obj.get("players")
        if not isinstance(players, Mapping) or not 1 <= len(players) <= 4:
            raise ValueError('context field "players": expected {"name": "red", ...} with 1-4 players')
        for name, colour in players.items():
            if colour not in PLAYER_COLOURS:
                raise ValueError(f'context field "players": {name!r} plays {colour!r}, not one of '
                                 f"{', '.join(PLAYER_COLOURS)}")
        if len(set(players.values())) != len(players):
            raise ValueError('context field "players": two players share a tile colour')
        mover = obj.get("mover")
        if mover not in players:
            raise ValueError('context field "mover": must name one of the players')
        moves = []
        for k, m in enumerate(obj.get("moves_before") or []):
            try:
                move = Placement.from_json(m)
            except (KeyError, TypeError, ValueError) as e:
                raise ValueError(f'context field "moves_before"[{k}]: {e}') from None
            if move.player not in players:
                raise ValueError(f'context field "moves_before"[{k}]: {move.player!r} is not a player')
            moves.append(move)
        scores = obj.get("scores_before")
        if scores is not None:
            scores = _scores_from_json(scores, players)
        bonus = obj.get("bonus_symbol")
        if bonus is not None and bonus not in SYMBOLS:
            raise ValueError(f'context field "bonus_symbol": one of {", ".join(SYMBOLS)}')
        placed = obj.get("placed")
        if placed is not None:
            try:
                placed = cells_of(placed)
            except (TypeError, ValueError):
                raise ValueError('context field "placed": expected [[q, r], [q, r]]') from None
        return cls(dict(players), str(mover), tuple(moves), scores, bonus, placed)


def _scores_from_json(obj: object, players: Mapping[str, str]) -> dict[str, dict[str, int]]:
    if not isinstance(obj, Mapping):
        raise ValueError('context field "scores_before": expected {"name": {"orange": 0, ...}, ...}')
    out = {}
    for p in players:
        row = obj.get(p, {})
        if not isinstance(row, Mapping):
            raise ValueError(f'context field "scores_before": {p!r} needs {{symbol: points}}')
        try:
            out[p] = {s: int(row.get(s, 0)) for s in SYMBOLS}
        except (TypeError, ValueError):
            raise ValueError(f'context field "scores_before": {p!r} has a non-integer score') from None
    return out


@dataclass(frozen=True)
class GenialReading:
    """The board as read from one photo.

    Attributes
    ----------
    tiles : dict (q, r) -> tile colour
        Every cell covered by a tile half, with the player colour read.
    towers : tuple of Tower
        Every tower read, with its token as it shows (value, side).
    unreadable : frozenset of (int, int)
        Cells the photo cannot show (hidden behind a tower, under a hand, doubtful): never guessed.
    unseen : frozenset of (int, int)
        Towers in ``towers`` the photo did not show, taken from the set-up the players gave: their token's side
        was not seen, so it is not checked against the replay.
    hidden : frozenset of (int, int)
        The cells of ``unreadable`` a tower hides from the camera (not those of a doubtful colour).
    """

    tiles: dict[Cell, str]
    towers: tuple[Tower, ...] = ()
    unreadable: frozenset[Cell] = frozenset()
    unseen: frozenset[Cell] = frozenset()
    hidden: frozenset[Cell] = frozenset()

    def to_json(self) -> dict:
        out = {"tiles": [{"qr": list(c), "colour": col} for c, col in sorted(self.tiles.items())],
               "towers": [t.to_json() for t in self.towers],
               "unreadable": [list(c) for c in sorted(self.unreadable)]}
        if self.unseen:
            out["unseen"] = [list(c) for c in sorted(self.unseen)]
        if self.hidden:
            out["hidden"] = [list(c) for c in sorted(self.hidden)]
        return out

    @classmethod
    def from_json(cls, obj: Mapping) -> GenialReading:
        tiles = {}
        for t in obj.get("tiles", []):
            (c,) = cells_of([t["qr"]])
            if t["colour"] not in PLAYER_COLOURS:
                raise ValueError(f"tile colour must be one of {', '.join(PLAYER_COLOURS)}")
            tiles[c] = str(t["colour"])
        towers = tuple(Tower.from_json(t) for t in obj.get("towers", []))
        return cls(tiles, towers, frozenset(cells_of(obj.get("unreadable", []))),
                   frozenset(cells_of(obj.get("unseen", []))), frozenset(cells_of(obj.get("hidden", []))))


@dataclass(frozen=True)
class GenialAdjudication:
    """One placement judged (the CLI contract's genial fields).

    Attributes
    ----------
    placed : tuple of (int, int)
    move : MoveScore or None
        None when the photos do not show one clean placement (then nothing is scored).
    symbol_scores : dict name -> dict symbol -> int
        After the move.
    towers : tuple of Tower
        As read after the move.
    ranking : tuple of str
    flags : tuple of Flag
    explanation : tuple of str
    """

    placed: tuple[Cell, ...]
    move: MoveScore | None
    symbol_scores: dict[str, dict[str, int]]
    towers: tuple[Tower, ...]
    ranking: tuple[str, ...]
    flags: tuple[Flag, ...] = ()
    explanation: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        move = self.move
        return {
            "game": "genial",
            "placed": [{"qr": list(c)} for c in self.placed],
            "move_points": dict(move.move_points) if move else {s: 0 for s in SYMBOLS},
            "symbol_scores": {p: dict(s) for p, s in self.symbol_scores.items()},
            "towers": [t.to_json() for t in self.towers],
            "scored_towers": [list(t.qr) for t in move.scored_towers] if move else [],
            "large_bonus": len(move.large_new) if move else 0,
            "bonus_cells": len(move.bonus_cells) if move else 0,
            "ranking": list(self.ranking),
            "scores": {p: min(s.values()) for p, s in self.symbol_scores.items()},
            "flags": [f.to_json() for f in self.flags],
            "explanation": list(self.explanation),
        }


def initial_towers(board: GenialBoard, n_players: int, read: tuple[Tower, ...],
                   scored_before: frozenset[Cell] | None,
                   unseen: frozenset[Cell] = frozenset()) -> tuple[tuple[Tower, ...], list[Flag]]:
    """The towers as they stood at the start of the game, from a photo's reading.

    A token read dark was light at the start with one less; every tower the set-up puts on the board must be
    read (a tower missing or standing where none belongs is flagged). With ``scored_before`` (the towers the
    replayed game has scored, when ``read`` is the before photo) a token on the other side is flagged, unless the
    photo did not show it (``unseen``: taken from the players' set-up, read light).
    """
    layout = board.tower_layout(n_players)
    flags = []
    by_cell = {t.qr: t for t in read}
    missing = sorted(set(layout) - set(by_cell))
    if missing:
        flags.append(Flag("towers_unread", f"{len(missing)} tower(s) of the {n_players}-player set-up not read",
                          {"cells": [list(c) for c in missing]}))
    extra = sorted(set(by_cell) - set(layout))
    if extra:
        flags.append(Flag("tower_unexpected", f"{len(extra)} tower(s) where the set-up puts none",
                          {"cells": [list(c) for c in extra]}))
    wrong_size = sorted(c for c in set(layout) & set(by_cell) if by_cell[c].size != layout[c])
    if wrong_size:
        flags.append(Flag("tower_size_disagrees", "tower size read differs from the set-up",
                          {"cells": [list(c) for c in wrong_size]}))
    towers = tuple(Tower(c, layout[c], by_cell[c].symbol, by_cell[c].light_value, False)
                   for c in sorted(layout) if c in by_cell)
    side = [] if scored_before is None else sorted(
        c for c in by_cell if c in layout and c not in unseen and by_cell[c].dark != (c in scored_before))
    if side:
        flags.append(Flag("token_side_disagrees", "a token shows the side the replayed game does not give it",
                          {"cells": [list(c) for c in side]}))
    return towers, flags


def judge_placement(board: GenialBoard, context: GenialContext, after: GenialReading,
                    before: GenialReading | None = None,
                    config: GenialRulesConfig = GenialRulesConfig(),
                    unsure_values: frozenset[Cell] = frozenset()) -> GenialAdjudication:
    """Judge one placement.

    Parameters
    ----------
    board : GenialBoard
    context : GenialContext
    after : GenialReading
        The board after the placement.
    before : GenialReading, optional
        The board before it; without it ``context.placed`` names the new hexes.
    config : GenialRulesConfig
    unsure_values : frozenset of Cell
        Towers whose token value is not known for sure (read with doubt, not given by the players): a given score
        board that differs from the replay only in the symbols of such tokens scored earlier is not called a
        disagreement (the replay cannot check it), only noted.

    Returns
    -------
    GenialAdjudication
    """
    flags: list[Flag] = []
    names = list(context.players)
    first = before if before is not None and before.towers else after
    from_before = first is not after
    game, history_flags = _replay(board, context, first.towers, from_before, config, first.unseen)
    flags += history_flags
    base = _scores_before(game, context, flags, unsure_values)
    placed, placement_flags = _find_placement(board, game, context, before, after)
    flags += placement_flags
    move = None
    # a cell hidden from the camera is flagged, but the replay (not the photo) says what lies there, and a new hex
    # hidden from it is known when it is the only one it can be: neither stops the placement from being scored;
    # nor does a photo that disagrees with the replay only away from the mover's chain (flagged, cells drawn)
    placement_flags = _disagreements_elsewhere(game, context, placed, placement_flags)
    flags = [f for f in flags if f.code != "board_disagrees_with_replay"] + [
        f for f in placement_flags if f.code in ("board_disagrees_with_replay", "board_disagrees_elsewhere")]
    if not [f for f in placement_flags if f.code not in ("cells_unreadable", "placement_inferred",
                                                         "board_disagrees_elsewhere")]:
        game.scores = {p: dict(s) for p, s in base.items()}
        move = game.play(Placement(context.mover, placed, context.bonus_symbol))
        flags += _after_checks(game, after)
    scores_after = {p: dict(game.scores[p]) if move else dict(base[p]) for p in names}
    order, ties = rank_by_lowest(scores_after, names)
    explanation = _explain(context, move, flags, ties)
    return GenialAdjudication(placed, move, scores_after, after.towers, tuple(order), tuple(flags), tuple(explanation))


def _replay(board: GenialBoard, context: GenialContext, towers_seen: tuple[Tower, ...], seen_before: bool,
            config: GenialRulesConfig, unseen: frozenset[Cell] = frozenset()) -> tuple[GenialReplay, list[Flag]]:
    names = list(context.players)
    # first pass without tokens: which towers the earlier placements scored (their tokens are dark now)
    scored_before, flags = _dry_replay(board, context, config)
    towers, tower_flags = initial_towers(board, len(names), towers_seen, scored_before if seen_before else None,
                                         unseen)
    flags += tower_flags
    game = GenialReplay(board, names, towers, config)
    for m in context.moves_before:
        if game.why_not(m):
            break
        game.play(m)
    return game, flags


def _dry_replay(board: GenialBoard, context: GenialContext,
                config: GenialRulesConfig = GenialRulesConfig()) -> tuple[frozenset[Cell], list[Flag]]:
    """The earlier placements replayed without tokens (a token's value does not decide which towers a chain
    scores): the towers they scored (their tokens dark now), and a ``history_invalid`` flag at the first placement
    that cannot be replayed (the replay stops there)."""
    names = list(context.players)
    layout = board.tower_layout(len(names))
    plain = tuple(Tower(c, size, SYMBOLS[0], 1) for c, size in layout.items())
    dry = GenialReplay(board, names, plain, config)
    flags = []
    for k, m in enumerate(context.moves_before):
        why = dry.why_not(m)
        if why:
            flags.append(Flag("history_invalid", f"earlier placement {k + 1} ({m.player}) cannot be replayed: {why}",
                              {"move": k + 1, "cells": [list(c) for c in m.cells]}))
            break
        dry.play(m)
    return frozenset(t.qr for t in dry.tower_list() if t.dark), flags


def replayed_dark(board: GenialBoard, context: GenialContext,
                  config: GenialRulesConfig = GenialRulesConfig()) -> frozenset[Cell] | None:
    """The towers whose tokens the earlier placements (``context.moves_before``) have turned dark: the side every
    token shows before this placement, known from the game without reading it. None when an earlier placement
    cannot be replayed (the sides are then not known)."""
    dark, flags = _dry_replay(board, context, config)
    return None if flags else dark


def _scores_before(game: GenialReplay, context: GenialContext, flags: list[Flag],
                   unsure_values: frozenset[Cell] = frozenset()) -> dict[str, dict[str, int]]:
    """The score boards before this placement: the given ones (checked against the replay), else the replay's."""
    replayed = {p: dict(game.scores[p]) for p in context.players}
    if context.scores_before is None:
        return replayed
    given = context.scores_before
    differ = {p: sorted(s for s in SYMBOLS if given[p].get(s, 0) != replayed[p].get(s, 0)) for p in context.players}
    differ = {p: v for p, v in differ.items() if v}
    unsure = [t for t in game.tower_list() if t.dark and t.qr in unsure_values]   # scored earlier, value unsure
    unsure_symbols = {t.symbol for t in unsure}
    if differ and context.moves_before:
        if all(s in unsure_symbols for v in differ.values() for s in v):
            flags.append(Flag("scores_unchecked",
                              f"the score boards given for {', '.join(differ)} are used; the replay cannot check "
                              "them, a token scored earlier was not read for sure (give its value)",
                              {"players": list(differ), "cells": sorted(list(t.qr) for t in unsure)}))
        else:
            flags.append(Flag("scores_disagree_with_replay",
                              f"the score boards given for {', '.join(differ)} differ from the replayed game; "
                              "the given ones are used", {"players": list(differ),
                                                          "replayed": {p: replayed[p] for p in differ}}))
    return {p: dict(given[p]) for p in context.players}


def _owner_map(context: GenialContext, reading: GenialReading) -> tuple[dict[Cell, str], list[Cell]]:
    by_colour = {col: name for name, col in context.players.items()}
    owners, foreign = {}, []
    for c, col in reading.tiles.items():
        if col in by_colour:
            owners[c] = by_colour[col]
        else:
            foreign.append(c)
    return owners, foreign


def _find_placement(board: GenialBoard, game: GenialReplay, context: GenialContext, before: GenialReading | None,
                    after: GenialReading) -> tuple[tuple[Cell, ...], list[Flag]]:
    flags: list[Flag] = []
    after_owner, foreign = _owner_map(context, after)
    if foreign:
        flags.append(Flag("tile_colour_not_in_play", "tile hexes of a colour no player holds",
                          {"cells": [list(c) for c in sorted(foreign)]}))
    if before is not None:
        before_owner, foreign_b = _owner_map(context, before)
        flags += _board_vs_replay(game.owner, before_owner, "before", before.unreadable)
        removed = sorted(c for c in before_owner if after_owner.get(c) != before_owner[c] and c not in after.unreadable)
        if removed:
            flags.append(Flag("tile_moved_or_missing", f"{len(removed)} hex(es) of the before photo are missing or "
                              "changed in the after photo", {"cells": [list(c) for c in removed]}))
        # a hex the before photo could not read is new when the replay says it was free
        new = tuple(sorted(c for c in after_owner if c not in before_owner
                           and (c not in before.unreadable or c not in game.owner)))
        if len(new) == 1 and context.placed is None and after_owner[new[0]] == context.mover:
            seen = new[0]
            partner = _hidden_partner(board, game, seen, after)
            if partner is not None:
                new = tuple(sorted((seen, partner)))
                flags.append(Flag("placement_inferred",
                                  f"the new tile's second hex {list(partner)} cannot be seen from this camera; it is "
                                  f"the only free neighbour of {list(seen)} the camera cannot see, so the tile lies "
                                  "there", {"cells": [list(partner)]}))
    else:
        new = tuple(sorted(c for c in after_owner if c not in game.owner))
    if context.placed is not None:
        if before is not None and set(context.placed) != set(new):
            flags.append(Flag("placement_disagrees", "the photos show other new hexes than the context's placed",
                              {"cells": [list(c) for c in new]}))
        new = tuple(context.placed)
        expected_after = dict(game.owner) | {c: context.mover for c in new}
        flags += _board_vs_replay(expected_after, after_owner, "after", after.unreadable)
    flags += _placement_problems(game, context, new, after_owner)
    hidden = sorted((after.unreadable | (before.unreadable if before else frozenset())) - set(new))
    if hidden:
        flags.append(Flag("cells_unreadable", f"{len(hidden)} cell(s) cannot be seen from this camera; not guessed",
                          {"cells": [list(c) for c in hidden]}))
    return new, flags


def _disagreements_elsewhere(game: GenialReplay, context: GenialContext, placed: tuple[Cell, ...],
                             flags: list[Flag]) -> list[Flag]:
    """``flags`` with each ``board_disagrees_with_replay`` whose cells all lie away from the mover's chain (its
    hexes after this placement and their neighbours) renamed ``board_disagrees_elsewhere``: the points come from
    the replay and the new tile, which such a misread or stray tile does not touch."""
    if len(placed) != 2:
        return flags
    chain, todo = set(placed), list(placed)
    while todo:   # the mover's hexes joined to the new tile in the replayed game
        for n in neighbours(todo.pop()):
            if n not in chain and game.owner.get(n) == context.mover:
                chain.add(n)
                todo.append(n)
    near = chain | {n for c in chain for n in neighbours(c)}
    out = []
    for f in flags:
        cells = {(int(c[0]), int(c[1])) for c in f.data.get("cells", [])}
        if f.code == "board_disagrees_with_replay" and cells and not cells & near:
            f = Flag("board_disagrees_elsewhere", f.message + "; away from the mover's chain, so the placement is "
                     "scored from the replayed game", f.data)
        out.append(f)
    return out


def _hidden_partner(board: GenialBoard, game: GenialReplay, seen: Cell, after: GenialReading) -> Cell | None:
    """The second hex of a tile of which only ``seen`` is visible: the one neighbour of it that is on the board,
    not a tower space, free in the replayed game and hidden by a tower in the after photo; None when there is not
    exactly one, or another neighbour is unreadable for its colour (every other neighbour was read, none new)."""
    spaces = board.space_cells()
    free = [n for n in neighbours(seen) if board.on_board(n) and n not in spaces and n not in game.owner]
    if any(n in after.unreadable and n not in after.hidden for n in free):
        return None
    hidden = [n for n in free if n in after.hidden]
    return hidden[0] if len(hidden) == 1 else None


def _board_vs_replay(expected: Mapping[Cell, str], read: Mapping[Cell, str], which: str,
                     unreadable: frozenset[Cell]) -> list[Flag]:
    missing = sorted(c for c in expected if read.get(c) != expected[c] and c not in unreadable)
    extra = sorted(c for c in read if c not in expected and c not in unreadable)
    if not missing and not extra:
        return []
    return [Flag("board_disagrees_with_replay",
                 f"the {which} photo disagrees with the replayed game: {len(missing)} hex(es) missing or of another "
                 f"player, {len(extra)} extra", {"photo": which, "cells": [list(c) for c in missing + extra]})]


def _placement_problems(game: GenialReplay, context: GenialContext, new: tuple[Cell, ...],
                        after_owner: Mapping[Cell, str]) -> list[Flag]:
    cells = [list(c) for c in new]
    if len(new) != 2:
        return [Flag("placement_invalid", f"{len(new)} new hexes: a placement is exactly 2", {"cells": cells})]
    wrong = [list(c) for c in new if after_owner.get(c, context.mover) != context.mover]
    if wrong:
        return [Flag("placement_invalid", f"the new tile is not {context.mover}'s colour", {"cells": wrong})]
    why = game.why_not(Placement(context.mover, new))
    if why:
        return [Flag("placement_invalid", f"the new tile cannot lie there: {why}", {"cells": cells})]
    return []


def _after_checks(game: GenialReplay, after: GenialReading) -> list[Flag]:
    read = {t.qr: t for t in after.towers if t.qr not in after.unseen}
    flags = []
    unturned = sorted(t.qr for t in game.tower_list() if t.dark and t.qr in read and not read[t.qr].dark)
    if unturned:
        flags.append(Flag("token_to_turn", "a token scored now (or earlier) still shows its light side: turn it dark",
                          {"cells": [list(c) for c in unturned]}))
    wrong = sorted(t.qr for t in game.tower_list() if not t.dark and t.qr in read and read[t.qr].dark)
    if wrong:
        flags.append(Flag("token_side_disagrees", "a token shows its dark side though no chain has scored it",
                          {"cells": [list(c) for c in wrong]}))
    return flags


def _explain(context: GenialContext, move: MoveScore | None, flags: list[Flag], ties: list[list[str]]) -> list[str]:
    lines = []
    if move is None:
        lines.append("Not one clean placement: nothing is scored (see the flags).")
    else:
        lines += move.explanation()
        got = ", ".join(f"{v} {s}" for s, v in move.move_points.items() if v)
        lines.append(f"{context.mover} scores {got or 'nothing'}.")
    for group in ties:
        lines.append(f"{' and '.join(group)} are fully tied and share their place.")
    lines += [f"flag {f.code}: {f.message}" for f in flags]
    return lines
