"""The Genial Spezial reading kit on the bundled before/after sample judged by the real pipeline: the diagram's
colours follow the reading and the judgement, the sentences tell the chain and every token scored, and a tap
changes a cell and the placement's points follow when the corrected state is judged again."""

from __future__ import annotations

import json
from functools import cache

import cv2
import numpy as np
import pytest

from geometry.hexgrid import HexBoardPose
from judge.games.genial import board
from judge.pipeline import adjudicate, judge_images, state_from_json
from judge.registry import game as get_game
from tests.server_helpers import ROOT
from ui import reading
from ui.diagram_genial import SCORED_RGB, cell_rgb, hex_mm, space_rgb, tile_rgb
from ui.taps import TapError

SAMPLES = ROOT / "sample_images" / "genial"


@cache
def judged():
    """(state JSON, result, context) of the bundled before/after sample."""
    ctx = json.loads((SAMPLES / "pair_after.json").read_text(encoding="utf-8"))["context"]
    photos = [(cv2.cvtColor(cv2.imread(str(SAMPLES / f"pair_{n}.jpg")), cv2.COLOR_BGR2RGB), n)
              for n in ("before", "after")]
    j = judge_images(get_game("genial"), photos, ctx)
    return j.state.to_json(), j.result, ctx


def rejudge(state_json: dict, ctx: dict) -> dict:
    g = get_game("genial")
    return adjudicate(g, state_from_json(g, state_json), g.parse_context(ctx))


def pixels(img, cv, pose: HexBoardPose, cell, scale: float = 0.5) -> np.ndarray:
    """The diagram's pixels inside a shrunken hexagon of a cell, shape (N, 3) int."""
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(cv.to_px(hex_mm(pose, cell, scale))).astype(np.int32)], 255)
    return img[mask > 0].astype(int)


def share(px: np.ndarray, rgb, tol: int = 25) -> float:
    return float((np.abs(px - np.asarray(rgb)).max(axis=1) <= tol).mean())


def centre_mm(state_json: dict, cell) -> tuple[float, float]:
    pose = HexBoardPose.from_json(state_json["after"]["pose"])
    xy = pose.cell_centres_mm(np.asarray([cell], dtype=np.float64))[0]
    return float(xy[0]), float(xy[1])


def test_diagram_colours_follow_the_reading_and_the_judgement():
    """Every tile hex in its player's colour, every other free cell the bare board (bonus cells aside), the tower
    spaces in their printed colours, and the towers scored now ringed green."""
    state, result, _ = judged()
    assert result["placed"] and result["scored_towers"], "the sample is a scored placement"
    cv = reading.canvas("genial", state, result)
    img = reading.diagram("genial", cv, state, result)
    pose = HexBoardPose.from_json(state["after"]["pose"])
    read = {tuple(t["qr"]): t["colour"] for t in state["after"]["tiles"]}
    hidden = {tuple(u["qr"]) for u in state["after"]["unreadable"]} | {
        tuple(u["qr"]) for u in state["before"]["unreadable"]}
    b = board()
    for cell in b.cells():
        if cell in b.space_cells() or cell in hidden or cell in b.bonus_cells:
            continue
        px = pixels(img, cv, pose, cell)
        want = tile_rgb(read[cell]) if cell in read else cell_rgb()
        assert share(px, want) > 0.6, (cell, read.get(cell))
    for cell in b.space_cells() - set(board().tower_layout(len(result["symbol_scores"]))):
        assert share(pixels(img, cv, pose, cell, 0.9), space_rgb(cell)) > 0.5, cell
    for cell in result["scored_towers"]:
        ring = pixels(img, cv, pose, tuple(cell), 1.3)
        assert share(ring, SCORED_RGB, 30) > 0.1, cell
    for cell in hidden:   # hatched grey with '?'
        assert share(pixels(img, cv, pose, cell), cell_rgb(), 10) < 0.9, cell


def test_sentences_tell_the_chain_every_token_scored_and_the_hidden_cells():
    state, result, _ = judged()
    lines = reading.kit("genial").sentences(state, result)
    text = " | ".join(s.text for s in lines)
    for t in result["scored_towers"]:
        tower = next(x for x in result["towers"] if x["qr"] == t)
        assert f"Tower ({t[0]},{t[1]})" in text and "scores" in text and tower["symbol"] in text
    assert "chain of" in text
    total = {s: v for s, v in result["move_points"].items() if v}
    assert all(f"{v} {s}" in text for s, v in total.items())
    hidden = [s for s in lines if "could not be read" in s.text]
    assert hidden and hidden[0].tone == "doubt" and len(hidden[0].pieces) == len(
        {tuple(u["qr"]) for p in ("before", "after") for u in state[p]["unreadable"]})
    chain = next(s for s in lines if "chain of" in s.text)
    assert {p.index for p in chain.pieces} >= {tuple(c) for c in result["chain"]}
    doubts = reading.kit("genial").doubts(state, result)
    assert doubts and [d.rank for d in doubts] == sorted(d.rank for d in doubts)


def test_a_tap_on_the_new_tile_changes_its_colour_and_the_placement_is_judged_again():
    """The new tile's hex tapped: its colour cycles to the next player colour, which is not the mover's: the
    corrected state is judged again and the placement is no longer scored (flagged, never silently)."""
    state, result, ctx = judged()
    kit = reading.kit("genial")
    cell = tuple(result["placed"][0]["qr"])
    edit = kit.tap(state, centre_mm(state, cell), "change")
    was = {tuple(t["qr"]): t["colour"] for t in state["after"]["tiles"]}[cell]
    now = {tuple(t["qr"]): t["colour"] for t in edit.state_json["after"]["tiles"]}.get(cell)
    assert edit.note["was"] == was and edit.note["now"] == now and now != was
    again = rejudge(edit.state_json, ctx)
    assert any(f["code"] == "placement_invalid" for f in again["flags"])
    assert not any(again["move_points"].values()) or again["move_points"] != result["move_points"]
    # removing it leaves one new hex: not one clean placement either
    gone = rejudge(kit.tap(state, centre_mm(state, cell), "remove").state_json, ctx)
    assert any(f["code"] == "placement_invalid" for f in gone["flags"])
    assert state == judged()[0], "the tap returns a new state"


def test_a_tap_on_an_old_tile_edits_both_photos_and_a_tower_space_is_refused():
    state, result, ctx = judged()
    kit = reading.kit("genial")
    placed = {tuple(q["qr"]) for q in result["placed"]}
    before = {tuple(t["qr"]): t["colour"] for t in state["before"]["tiles"]}
    old = next(c for c in sorted(before) if c not in placed)
    edit = kit.tap(state, centre_mm(state, old), "remove")
    assert old not in {tuple(t["qr"]) for t in edit.state_json["after"]["tiles"]}
    assert old not in {tuple(t["qr"]) for t in edit.state_json["before"]["tiles"]}
    again = rejudge(edit.state_json, ctx)
    assert not any(f["code"] == "tile_moved_or_missing" for f in again["flags"])
    assert any(f["code"].startswith("board_disagrees") and list(old) in f["cells"]
               for f in again["flags"])   # the replay has it
    tower = next(iter(board().tower_layout(4)))
    with pytest.raises(TapError, match="tower space"):
        kit.tap(state, centre_mm(state, tower), "change")
    with pytest.raises(TapError, match="no board cell"):
        kit.tap(state, (5.0, 5.0), "change")
