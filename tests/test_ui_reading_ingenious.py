"""The Ingenious reading kit on the bundled before/after sample judged by the real pipeline: the diagram's colours
follow the judgement, the sentences tell the points by line, and a tap changes a cell and the move's points
follow when the corrected state is judged again."""

from __future__ import annotations

import json
from functools import cache

import cv2
import numpy as np
import pytest

from geometry.hexgrid import HexBoardPose, cells_within
from judge.pipeline import adjudicate, judge_images, state_from_json
from judge.registry import game as get_game
from tests.server_helpers import ROOT
from ui import reading
from ui.diagram_ingenious import BOARD_IN_PLAY_RGB, CONFIG, NEW_RGB, colour_rgb, hex_mm
from ui.drawing import DiagramStyle
from ui.taps import TapError

SAMPLES = ROOT / "sample_images" / "ingenious"


@cache
def judged():
    """(photos, state JSON, result, context) of the bundled before/after sample."""
    ctx = json.loads((SAMPLES / "first_move_after.json").read_text(encoding="utf-8"))["context"]
    photos = [(cv2.cvtColor(cv2.imread(str(SAMPLES / f"first_move_{n}.jpg")), cv2.COLOR_BGR2RGB), n)
              for n in ("before", "after")]
    j = judge_images(get_game("ingenious"), photos, ctx)
    return photos, j.state.to_json(), j.result, ctx


def rejudge(state_json: dict, ctx: dict) -> dict:
    g = get_game("ingenious")
    return adjudicate(g, state_from_json(g, state_json), g.parse_context(ctx))


def cell_pixels(img: np.ndarray, cv, pose: HexBoardPose, cell, scale: float = 0.8) -> np.ndarray:
    """The diagram's pixels inside a cell's hexagon (shrunk to stay clear of its outline), shape (N, 3) int."""
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(cv.to_px(hex_mm(pose, cell, scale))).astype(np.int32)], 255)
    return img[mask > 0].astype(int)


def share(pixels: np.ndarray, rgb, tol: int = 30) -> float:
    return float((np.abs(pixels - np.asarray(rgb)).max(axis=1) <= tol).mean())


def centre_mm(state_json: dict, cell) -> tuple[float, float]:
    xy = HexBoardPose.from_json(state_json["pose"]).cell_centres_mm(np.asarray([cell], dtype=np.float64))[0]
    return float(xy[0]), float(xy[1])


def test_diagram_colours_follow_the_judgement():
    """Every tile hex shows its colour's symbol, every printed start symbol its colour, every other cell in play
    the bare board; the new hexes are outlined and each counted line ends in its count."""
    _, state, result, _ = judged()
    assert result["placed"] and result["lines"], "the sample is a scored placement with a counted line"
    cv = reading.canvas("ingenious", state, result)
    img = reading.diagram("ingenious", cv, state, result)
    pose = HexBoardPose.from_json(state["pose"])
    shown = {tuple(h["qr"]): h["colour"] for h in result["board"]}
    symbols = {tuple(h["qr"]): h["colour"] for h in result["start_symbols"]}
    drawn_over = {tuple(c) for ln in result["lines"] for c in ln["cells"]}  # the line strokes
    drawn_over |= {(ln["cells"][-1][0] + ln["direction"][0], ln["cells"][-1][1] + ln["direction"][1])
                   for ln in result["lines"]}  # the count badge just past each line's end
    for cell in cells_within(CONFIG.full_radius):
        px = cell_pixels(img, cv, pose, cell)
        colour = shown.get(cell) or symbols.get(cell)
        if colour is not None:
            assert share(px, colour_rgb(colour)) > 0.08, (cell, colour)
            others = [c for c in ("red", "orange", "yellow", "green", "blue", "purple") if c != colour]
            assert all(share(px, colour_rgb(c), 20) < 0.02 for c in others), (cell, colour)
        elif cell not in drawn_over:
            assert share(px, BOARD_IN_PLAY_RGB, 6) > 0.9, cell
    for h in result["placed"]:
        ring = cell_pixels(img, cv, pose, tuple(h["qr"]), 1.0)
        assert share(ring, NEW_RGB, 25) > 0.05, "the new hexes are outlined"
    ink = DiagramStyle().ink_rgb
    for ln in result["lines"]:
        end = cv.to_px(np.asarray(centre_mm(state, ln["cells"][-1])))[0]
        prev = cv.to_px(np.asarray(centre_mm(state, ([ln["start"]] + ln["cells"])[-2])))[0]
        badge = np.round(end + 0.55 * (end - prev)).astype(int)
        patch = img[badge[1] - 4:badge[1] + 5, badge[0] - 4:badge[0] + 5].reshape(-1, 3).astype(int)
        assert share(patch, ink, 20) > 0.3 and share(patch, (255, 255, 255), 40) > 0.02, "a count badge"


def test_a_cell_in_doubt_is_hatched_with_a_question_mark_and_comes_first():
    _, state, result, _ = judged()
    cell = (-2, 3)
    doubtful = dict(state, doubtful=[{"qr": list(cell), "why": "after: glare"}])
    cv = reading.canvas("ingenious", doubtful, result)
    img = reading.diagram("ingenious", cv, doubtful, result)
    plain = reading.diagram("ingenious", cv, state, result)
    pose = HexBoardPose.from_json(state["pose"])
    grey = DiagramStyle().unknown_rgb
    assert share(cell_pixels(img, cv, pose, cell), grey, 25) > 0.05  # hatched
    assert share(cell_pixels(plain, cv, pose, cell), grey, 25) == 0.0
    ink = DiagramStyle().ink_rgb
    assert share(cell_pixels(img, cv, pose, cell, 0.4), ink, 25) > 0.03  # the '?'
    assert share(cell_pixels(plain, cv, pose, cell, 0.4), ink, 25) == 0.0
    kit = reading.kit("ingenious")
    found = kit.doubts(doubtful, result)
    assert [d.piece.index for d in found] == [cell] and "glare" in found[0].caption
    assert any("(-2,3)" in s.text and s.tone == "doubt" for s in kit.sentences(doubtful, result))


def test_sentences_tell_the_points_line_by_line_linked_to_the_cells():
    _, state, result, ctx = judged()
    lines = reading.kit("ingenious").sentences(state, result)
    tile = "/".join(h["colour"] for h in result["placed"])
    for colour, points in result["move_points"].items():
        s = next(s for s in lines if f"scores {colour} {points}" in s.text)
        assert s.text.startswith(f"{ctx['mover']}'s {tile} tile")
        counted = [ln for ln in result["lines"] if ln["colour"] == colour]
        assert all(f"{ln['count']} along the line to the" in s.text for ln in counted)
        linked = {p.index for p in s.pieces}
        assert {tuple(h["qr"]) for h in result["placed"]} <= linked
        assert {tuple(c) for ln in counted for c in ln["cells"]} <= linked


def test_tapping_a_new_hex_changes_its_colour_and_the_points_follow():
    """Change: the new orange hex next to the orange start symbol becomes yellow; judged again, the orange line
    that ran from it to the symbol is gone, and yellow (no yellow neighbour) scores nothing."""
    _, state, result, ctx = judged()
    line = next(ln for ln in result["lines"] if ln["colour"] == "orange")
    cell = tuple(line["start"])
    kit = reading.kit("ingenious")
    edit = kit.tap(state, centre_mm(state, cell), "change", 0, None)
    assert edit.note["was"] == "orange" and edit.note["now"] == "yellow"
    assert edit.state_json["before"] == state["before"], "a new hex is corrected on the after photo only"
    again = rejudge(edit.state_json, ctx)
    assert {tuple(h["qr"]): h["colour"] for h in again["placed"]}[cell] == "yellow"
    assert again["move_points"].get("orange", 0) == result["move_points"]["orange"] - line["count"]
    assert again["move_points"].get("yellow", 0) == 0
    assert not any(ln["start"] == list(cell) for ln in again["lines"])


def test_adding_a_hex_missed_on_both_photos_extends_the_line():
    """Add: an orange hex in line behind the new tile, missed on both photos, is added to both (the placement
    stays clean) and the orange line from the new tile counts it."""
    _, state, result, ctx = judged()
    a, b = (tuple(h["qr"]) for h in result["placed"])
    behind = (2 * a[0] - b[0], 2 * a[1] - b[1])
    edit = reading.kit("ingenious").tap(state, centre_mm(state, behind), "add", 0, {"colour": "orange"})
    assert list(behind) in [h["qr"] for h in edit.state_json["before"]]
    again = rejudge(edit.state_json, ctx)
    assert sorted(tuple(h["qr"]) for h in again["placed"]) == sorted([a, b])
    assert again["move_points"]["orange"] == result["move_points"]["orange"] + 1


def test_removing_a_new_hex_leaves_no_clean_placement_and_taps_off_the_board_are_refused():
    _, state, result, ctx = judged()
    kit = reading.kit("ingenious")
    cell = tuple(result["placed"][0]["qr"])
    again = rejudge(kit.tap(state, centre_mm(state, cell), "remove", 0, None).state_json, ctx)
    assert again["move_points"] == {} and any(f["code"] == "not_one_tile" for f in again["flags"])
    with pytest.raises(TapError):
        kit.tap(state, (-5000.0, -5000.0), "change", 0, None)
    with pytest.raises(TapError):
        kit.tap(state, centre_mm(state, (5, 0)), "add", 0, {"colour": "red"})  # a printed start symbol
    with pytest.raises(TapError):
        kit.tap(state, centre_mm(state, (0, 0)), "remove", 0, None)


def test_the_straightened_after_photo_shows_the_board_under_the_diagram():
    """The after photo straightened over the diagram's canvas: the new tile's cells are tile faces (bright) where
    the diagram draws them."""
    photos, state, result, ctx = judged()
    g = get_game("ingenious")
    j = judge_images(g, photos, ctx)
    cv = reading.canvas("ingenious", state, result)
    photo = reading.photo_view("ingenious", photos[-1][0], j.frames[-1].calibration, state, cv)
    assert photo is not None and photo.shape[:2] == (cv.size_px[1], cv.size_px[0])
    pose = HexBoardPose.from_json(state["pose"])
    def warmth(cell) -> float:  # red minus blue: an orange symbol under the scene's cool light
        px = cell_pixels(photo, cv, pose, cell, 0.6)
        return float(np.percentile(px[:, 0] - px[:, 2], 95))

    assert all(h["colour"] == "orange" for h in result["placed"])
    for h in result["placed"]:
        assert warmth(tuple(h["qr"])) > warmth((0, 0)) + 40, "the orange symbol seen where the diagram draws it"


def test_evidence_crop_of_a_cell_in_doubt_puts_the_photo_beside_its_drawing():
    """A cell of the new tile read with doubt: the judgement is contested and the first crop is that cell, the
    after photo (the orange symbol) left and the diagram (the cell ringed) right."""
    from ui.crops import CONFIG as CROPS
    from ui.crops import evidence_crops

    photos, state, result, ctx = judged()
    cell = tuple(result["placed"][0]["qr"])
    doubtful = dict(state, doubtful=[{"qr": list(cell), "why": "after: glare"},
                                     {"qr": [-4, 1], "why": "before: hand"}])
    again = rejudge(doubtful, ctx)
    assert any(f["code"] == "contested" for f in again["flags"])
    j = judge_images(get_game("ingenious"), photos, ctx)
    crops = evidence_crops("ingenious", [photos[-1][0]], [j.frames[-1].calibration], doubtful, again)
    assert [c.piece.index for c in crops] == [cell, (-4, 1)], "the cell that changes the points first"
    img = crops[0].image
    n = CROPS.size_px
    assert img.shape == (n, 2 * n + CROPS.gap_px, 3)
    photo, drawing = img[:, :n].astype(int), img[:, n + CROPS.gap_px:].astype(int)
    mid = slice(n // 2 - 15, n // 2 + 16)
    assert np.percentile(photo[mid, mid, 0] - photo[mid, mid, 2], 95) > 40, "the orange symbol in the photo"
    assert share(drawing.reshape(-1, 3), DiagramStyle().highlight_rgb, 30) > 0.01, "the cell ringed"


def test_the_phone_headline_tells_the_move_and_turns_red_when_not_scored():
    from ui.reading_panel import headline

    _, state, result, ctx = judged()
    tone, text = headline("ingenious", result)
    assert tone == "good" and all(f"{c} +{v}" in text for c, v in result["move_points"].items())
    removed = reading.kit("ingenious").tap(state, centre_mm(state, tuple(result["placed"][0]["qr"])), "remove")
    tone, text = headline("ingenious", rejudge(removed.state_json, ctx))
    assert tone == "bad" and "not scored" in text
