"""The Genial Spezial plugin without photos: context with token values, readings to the rules, the game kept in
a real ledger (placements replayed, undo, the end after the last round)."""

from __future__ import annotations

import numpy as np
import pytest

import judge.games.genial as G
from core.errors import BadInput
from geometry.hexgrid import HexBoardPose
from judge.session import Outcome, latest, record, start, undo
from ledger import Ledger
from scoring.genial import GameSetup, Placement, Tower
from scoring.genial_judgement import GenialReading, judge_placement
from synth.genial import sample_game
from vision.genial import GenialPhoto, TokenRead
from vision.genial_doubt import DoubtKind, TokenDoubt, doubt

BOARD = G.board()
UNSEEN = (doubt(DoubtKind.SYMBOL_UNSEEN),)


def _game(seed: int) -> dict:
    return sample_game(np.random.default_rng(seed), BOARD)


def _photo(owner: dict, colours: dict, towers, doubts: tuple[TokenDoubt, ...] = ()) -> GenialPhoto:
    tiles = {c: colours[p] for c, p in owner.items()}
    reads = tuple(TokenRead(t.qr, t.size, t.symbol, t.value, t.dark, doubts) for t in towers)
    return GenialPhoto(HexBoardPose((350.0, 280.0), 0.0, 24.0), tiles, reads, (), {}, 200, 150, "tiles")


def test_token_values_parsed_and_refused():
    ctx = G.parse_context({"players": {"A": "red", "B": "blue"}, "mover": "A",
                           "token_values": [{"qr": [-4, -4], "light": 2}]})
    assert ctx.token_values == {(-4, -4): 2}
    assert G.parse_context(ctx.to_json()) == ctx
    with pytest.raises(BadInput, match="token_values"):
        G.parse_context({"players": {"A": "red"}, "mover": "A", "token_values": [{"qr": [0, 0], "light": 3}]})


def test_given_token_values_replace_unreadable_numerals():
    sc = _game(11)
    setup = GameSetup(sc["players"], tuple(Tower.from_json(t) for t in sc["towers"]))
    moves = [Placement.from_json(m) for m in sc["moves_before"]]
    before, after = setup.replay(BOARD, moves), setup.replay(BOARD, moves + [Placement.from_json(sc["move"])])
    # every numeral unreadable: the reader's best guess is always the low value
    guess = [Tower(t.qr, t.size, t.symbol, 1, t.dark) for t in before.tower_list()]
    small = (doubt(DoubtKind.NUMERAL_SMALL, tall_px=2.0, low=1, high=2),)
    state = G.GenialState(_photo(after.owner, sc["players"], after.tower_list(), small),
                          _photo(before.owner, sc["players"], guess, small))
    ctx = {k: sc[k] for k in ("players", "mover", "moves_before")}
    truth = judge_placement(BOARD, G.parse_context(ctx),
                            GenialReading({c: sc["players"][p] for c, p in after.owner.items()}, after.tower_list()),
                            GenialReading({c: sc["players"][p] for c, p in before.owner.items()},
                                          before.tower_list())).to_json()
    told = G.adjudicate(state, G.parse_context(ctx | {"token_values": [
        {"qr": t["qr"], "light": t["light"]} for t in sc["towers"]]})).to_json()
    assert told["move_points"] == truth["move_points"] and told["symbol_scores"] == truth["symbol_scores"]
    assert not any(f["code"] in ("token_value_doubtful", "history_scores_doubtful") for f in told["flags"])
    blind = G.adjudicate(state, G.parse_context(ctx)).to_json()
    if blind["symbol_scores"] != truth["symbol_scores"]:   # a wrong guess is never silent
        assert any(f["code"] in G.NOT_SCORED for f in blind["flags"])


def test_token_symbols_parsed_with_or_without_values():
    ctx = G.parse_context({"players": {"A": "red", "B": "blue"}, "mover": "A", "token_values": [
        {"qr": [-4, -4], "light": 2, "symbol": "blue"}, {"qr": [4, 4], "symbol": "green"}]})
    assert ctx.token_values == {(-4, -4): 2} and ctx.token_symbols == {(-4, -4): "blue", (4, 4): "green"}
    assert G.parse_context(ctx.to_json()) == ctx
    for bad in ({"qr": [0, 0]}, {"qr": [0, 0], "symbol": "gold"}, {"qr": [0, 0], "light": 1, "symbol": 3}):
        with pytest.raises(BadInput, match="token_values"):
            G.parse_context({"players": {"A": "red"}, "mover": "A", "token_values": [bad]})


def test_given_symbols_replace_unread_symbols_and_a_clear_disagreement_is_flagged():
    """Symbols too thin to read: without the set-up the towers are unread and nothing is scored (flagged); with
    the players' set-up (symbols and values) the placement scores as the truth. A symbol read clearly that differs
    from the given one is flagged, and the given one is used."""
    sc = _game(11)
    setup = GameSetup(sc["players"], tuple(Tower.from_json(t) for t in sc["towers"]))
    moves = [Placement.from_json(m) for m in sc["moves_before"]]
    before, after = setup.replay(BOARD, moves), setup.replay(BOARD, moves + [Placement.from_json(sc["move"])])

    def photo(game, doubts):
        reads = tuple(TokenRead(t.qr, t.size, None, t.value, t.dark, doubts) for t in game.tower_list())
        tiles = {c: sc["players"][p] for c, p in game.owner.items()}
        return GenialPhoto(HexBoardPose((350.0, 280.0), 0.0, 24.0), tiles, reads, (), {}, 200, 150, "tiles")

    state = G.GenialState(photo(after, UNSEEN), photo(before, UNSEEN))
    ctx = {k: sc[k] for k in ("players", "mover", "moves_before")}
    truth = judge_placement(BOARD, G.parse_context(ctx),
                            GenialReading({c: sc["players"][p] for c, p in after.owner.items()}, after.tower_list()),
                            GenialReading({c: sc["players"][p] for c, p in before.owner.items()},
                                          before.tower_list())).to_json()
    blind = G.adjudicate(state, G.parse_context(ctx)).to_json()
    assert any(f["code"] in G.NOT_SCORED for f in blind["flags"])
    given = [{"qr": t["qr"], "light": t["light"], "symbol": t["symbol"]} for t in sc["towers"]]
    told = G.adjudicate(state, G.parse_context(ctx | {"token_values": given})).to_json()
    assert told["move_points"] == truth["move_points"] and told["symbol_scores"] == truth["symbol_scores"]
    assert not any(f["code"] in G.NOT_SCORED or f["code"] == "token_symbol_disagrees" for f in told["flags"])
    # one token read clearly as another symbol than the set-up says
    odd = before.tower_list()[0]
    other = next(s for s in ("orange", "blue", "green", "purple") if s != odd.symbol)
    seen = G.GenialState(state.after, GenialPhoto(
        state.before.pose, state.before.tiles,
        tuple(TokenRead(t.qr, t.size, other if t.qr == odd.qr else None, t.value, t.dark,
                        () if t.qr == odd.qr else UNSEEN) for t in state.before.towers),
        (), {}, 200, 150, "tiles"))
    flagged = G.adjudicate(seen, G.parse_context(ctx | {"token_values": given})).to_json()
    assert any(f["code"] == "token_symbol_disagrees" and list(odd.qr) in f["cells"] for f in flagged["flags"])
    assert flagged["symbol_scores"] == truth["symbol_scores"]


def _outcome(sc: dict, moves: list[Placement], move: Placement) -> Outcome:
    setup = GameSetup(sc["players"], tuple(Tower.from_json(t) for t in sc["towers"]))
    before, after = setup.replay(BOARD, moves), setup.replay(BOARD, moves + [move])
    ctx = {"players": sc["players"], "mover": move.player, "moves_before": [m.to_json() for m in moves]}
    adj = judge_placement(BOARD, G.parse_context(ctx),
                          GenialReading({c: sc["players"][p] for c, p in after.owner.items()}, after.tower_list()),
                          GenialReading({c: sc["players"][p] for c, p in before.owner.items()}, before.tower_list()))
    return Outcome(G.GenialVerdict.of(adj).to_json(), {}, None)


def test_game_in_the_ledger_replayed_with_undo_and_end(tmp_path, monkeypatch):
    monkeypatch.setattr(G, "ROUNDS", 2)
    sc = _game(12)
    names = list(sc["players"])
    sc = sc | {"players": {n: sc["players"][n] for n in names[:2]}}
    led = Ledger(tmp_path / "g.sqlite")
    ctx = {"players": sc["players"]}
    sid = start(led, "genial", G.SESSION, ctx)
    view = latest(led, "genial", G.SESSION.players(ctx))
    assert view is not None and view.id == sid
    rng = np.random.default_rng(3)
    from synth.genial import _random_tile

    moves: list[Placement] = []
    free = [c for c in BOARD.cells() if c not in BOARD.space_cells()]
    setup = GameSetup(sc["players"], tuple(Tower.from_json(t) for t in sc["towers"]))
    for k in range(4):
        view = latest(led, "genial", G.SESSION.players(ctx))
        nxt = G.next_context(view)
        player = names[k % 2]
        recorded = [(m["player"], sorted(map(tuple, m["cells"]))) for m in nxt["moves_before"]]
        assert nxt["mover"] == player and recorded == [(m.player, sorted(m.cells)) for m in moves]
        cells = _random_tile(rng, free, setup.replay(BOARD, moves).owner, player)
        move = Placement(player, cells)
        with pytest.raises(ValueError, match="turn"):
            record(led, G.SESSION, view, G.SESSION.actions[0], _outcome(sc, moves, move),
                   {"mover": names[(k + 1) % 2]})
        standings = record(led, G.SESSION, view, G.SESSION.actions[0], _outcome(sc, moves, move), {"mover": player})
        moves.append(move)
        free = [c for c in free if c not in cells]
        game = setup.replay(BOARD, moves)
        lowest = {p: min(game.scores[p].values()) for p in names[:2]}
        assert {r["player"]: r["lowest"] for r in standings.rows} == lowest
        assert standings.finished == (k == 3)
    view = latest(led, "genial", G.SESSION.players(ctx))
    assert view.ended and view.result["ranking"]
    assert undo(led, view)
    view = latest(led, "genial", G.SESSION.players(ctx))
    assert not view.ended and len(view.summaries) == 3


def test_a_warm_detect_refines_the_carried_pose_and_reads_the_same():
    """Live video: the pose of an earlier frame is carried and only refined; the reading is the cold one's."""
    from core.timing import StageTimer
    from judge.pipeline import make_frame
    from synth.genial import render_pair
    from vision.genial import marker_layout

    images, truth = render_pair(2101)
    frames = [make_frame(im, n, None, marker_layout()) for im, n in zip(images, ("before", "after"), strict=True)]
    ctx = G.parse_context(truth["context"])
    cold = G.detect(frames, ctx, StageTimer())
    warm, pose = G.detect_warm(frames[1:], G.parse_context(truth["context"] | {
        "placed": truth["scene"]["move"]["cells"]}), StageTimer(), cold.after.pose)
    assert warm.after.tiles == cold.after.tiles and warm.after.unreadable == cold.after.unreadable
    assert [(t.qr, t.dark) for t in warm.after.towers] == [(t.qr, t.dark) for t in cold.after.towers]
    assert all(a.symbol == b.symbol for a, b in zip(warm.after.towers, cold.after.towers, strict=True)
               if a.symbol and b.symbol)   # a sub-pixel refinement may leave a borderline symbol unread
    assert np.allclose(pose.centre_mm, cold.after.pose.centre_mm, atol=1.0)
    assert abs(pose.rotation_deg - cold.after.pose.rotation_deg) < 1.0


def test_the_tokens_as_read_are_a_valid_set_up_for_the_next_context():
    """The page offers the tokens as read as a set-up the players check and paste: it parses as token_values."""
    from ui.games.genial import setup_as_read

    result = {"towers": [{"qr": [-4, -4], "size": "large", "symbol": "blue", "value": 3, "dark": True},
                         {"qr": [4, 4], "size": "large", "symbol": "green", "value": 1, "dark": False},
                         {"qr": [1, 1], "size": "small", "symbol": None, "value": 1, "dark": False}]}
    setup = setup_as_read(result)
    ctx = G.parse_context({"players": {"A": "red", "B": "blue"}, "mover": "A", "token_values": setup})
    assert ctx.token_values == {(-4, -4): 2, (4, 4): 1}
    assert ctx.token_symbols == {(-4, -4): "blue", (4, 4): "green"}


def test_later_frames_of_a_still_scene_reuse_the_numerals_and_read_the_same(monkeypatch):
    """Live video (issue 11): the numerals the first reading frame of a still scene compared are not compared again
    on the next frames while each token shows the same side - those frames read the same values and doubts - but
    a token turned over since is read afresh."""
    from dataclasses import replace as dc_replace

    import vision.genial as VG
    from core.timing import StageTimer
    from judge.pipeline import make_frame
    from synth.genial import render_pair
    from vision.genial import marker_layout

    images, truth = render_pair(2101)
    before, after = (make_frame(im, n, None, marker_layout()) for im, n in zip(images, ("before", "after"),
                                                                                strict=True))
    ctx = G.parse_context(truth["context"])
    first, carry = G.live_detect([before, after], ctx, StageTimer(), None)
    assert carry[2].numerals, "the first frame compared some numerals"
    compared = []
    real = VG.read_numeral
    monkeypatch.setattr(VG, "read_numeral", lambda *a, **k: compared.append(1) or real(*a, **k))
    again = dc_replace(after)   # another frame object of the same still scene
    second, _ = G.live_detect([before, again], ctx, StageTimer(), carry)
    assert compared == []
    assert second.after.towers == first.after.towers and second.before == first.before
    flipped = {c: VG.NumeralCarry(not n.dark, n.read, n.tall_px) for c, n in carry[2].numerals.items()}
    G.live_detect([before, dc_replace(after)], ctx, StageTimer(),
                  (carry[0], carry[1], dc_replace(carry[2], numerals=flipped)))
    assert len(compared) > 0


def test_a_baseline_frame_is_read_once_and_its_next_frames_compare_no_numeral(monkeypatch):
    """Live video (issue 11): a pair game's baseline is judged against itself ([frame, frame]): the frame is read
    once (both photos that reading), and the next frame of the still scene carries every numeral it compared - none
    is compared again (each was, on every frame, when the second read of the same frame kept its values instead)."""
    from dataclasses import replace as dc_replace

    import vision.genial as VG
    from core.timing import StageTimer
    from judge.pipeline import make_frame
    from synth.genial import render_pair
    from vision.genial import marker_layout

    images, truth = render_pair(2101)
    frame = make_frame(images[0], "before", None, marker_layout())
    ctx = G.parse_context(truth["context"])
    reads = []
    real_photo, real_numeral = VG.read_photo, VG.read_numeral
    monkeypatch.setattr(G, "read_photo", lambda *a, **k: reads.append(1) or real_photo(*a, **k))
    first, carry = G.live_detect([frame, frame], ctx, StageTimer(), None)
    assert len(reads) == 1 and first.before == first.after
    compared = []
    monkeypatch.setattr(VG, "read_numeral", lambda *a, **k: compared.append(1) or real_numeral(*a, **k))
    again = dc_replace(frame)   # the next frame of the still scene
    second, _ = G.live_detect([again, again], ctx, StageTimer(), carry)
    assert compared == [] and second.after.towers == first.after.towers


def test_a_still_board_read_the_same_is_judged_once_by_the_live_runner_and_its_json_is_a_copy(monkeypatch):
    """The live frames of a still board read the same state: the live runner judges it once (the state compared as a
    typed value, the same context), and gives each frame a copy (a caller adding the calibration notes or a
    stale-context flag changes neither the kept judgement nor the next frame's); another reading, or another
    context, is judged afresh. ``adjudicate`` itself keeps nothing between calls."""
    import judge.live_run as LR

    sc = _game(11)
    setup = GameSetup(sc["players"], tuple(Tower.from_json(t) for t in sc["towers"]))
    moves = [Placement.from_json(m) for m in sc["moves_before"]]
    before, after = setup.replay(BOARD, moves), setup.replay(BOARD, moves + [Placement.from_json(sc["move"])])
    state = G.GenialState(_photo(after.owner, sc["players"], after.tower_list()),
                          _photo(before.owner, sc["players"], before.tower_list()))
    context = {k: sc[k] for k in ("players", "mover", "moves_before")}
    live = LR.LiveJudge(G.PLUGIN, context)
    judged = []
    real = LR.adjudicate
    monkeypatch.setattr(LR, "adjudicate", lambda *a: judged.append(1) or real(*a))
    first = live._judge(state, live.ctx)
    first.setdefault("flags", []).append({"code": "calibration_warning", "message": "added by a caller"})
    again = live._judge(G.GenialState.from_json(state.to_json()), live.ctx)   # an equal state, another object
    assert judged == [1] and again == G.adjudicate(state, live.ctx).to_json()
    assert all(f["code"] != "calibration_warning" for f in again.get("flags", []))
    moved = G.GenialState(_photo(after.owner, sc["players"], after.tower_list(), UNSEEN), state.before)
    live._judge(moved, live.ctx)
    assert judged == [1, 1]
    live._judge(moved, G.parse_context(context))    # the same context's content, but a context set anew
    assert judged == [1, 1, 1]
