"""Reading diagrams, the straightened view, evidence crops, player sentences and tap corrections, on the
bundled sample photos judged by the real pipeline (rendered scenes: perspective, light, noise, JPEG)."""

from __future__ import annotations

import json
from functools import cache

import cv2
import numpy as np
import pytest

from judge.pipeline import adjudicate, judge_images, state_from_json
from judge.registry import game as get_game
from tests.server_helpers import ROOT
from ui import reading
from ui.canvas import Canvas, CanvasConfig, fit_canvas, straightened_view
from ui.crops import evidence_crops
from ui.diagram_carrotain import CONFIG as CAR
from ui.diagram_cmyk import LatticeFrame
from ui.drawing import DiagramStyle
from ui.pieces import PieceRef
from ui.sentences import side_word
from ui.taps import TapError, apply_tap, chip_cycle, piece_at

STYLE = DiagramStyle()


@cache
def judged(game: str, k: int = 0):
    """(photo, calibration, state JSON, result, context) of a bundled sample."""
    path = sorted((ROOT / "sample_images" / game).glob("*.jpg"))[k]
    ctx = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["context"]
    img = cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB)
    j = judge_images(get_game(game), [(img, path.name)], ctx)
    return img, j.frames[-1].calibration, j.state.to_json(), j.result, ctx


def rejudge(game: str, state_json: dict, ctx: dict) -> dict:
    g = get_game(game)
    return adjudicate(g, state_from_json(g, state_json), g.parse_context(ctx))


def near(img: np.ndarray, xy_px, rgb, radius: int = 3, tol: int = 40) -> bool:
    """Some pixel within ``radius`` of a point has this colour (within ``tol`` per channel)."""
    x, y = (int(round(v)) for v in np.asarray(xy_px).reshape(2))
    patch = img[max(y - radius, 0):y + radius + 1, max(x - radius, 0):x + radius + 1].astype(int)
    return bool((np.abs(patch - np.asarray(rgb)).max(axis=2) <= tol).any())


def test_canvas_round_trip_and_fit():
    cv = fit_canvas(np.array([[10.0, 20.0], [310.0, 120.0]]), CanvasConfig(margin_mm=10, long_side_px=640))
    assert cv.size_px[0] == 640 and cv.size_px[1] == pytest.approx(640 * 120 / 320, abs=1)
    pts = np.array([[10.0, 20.0], [310.0, 120.0], [100.5, 77.25]])
    assert np.allclose(cv.to_mm(cv.to_px(pts)), pts)
    assert (cv.to_px(pts) >= 0).all() and (cv.to_px(pts) < np.array(cv.size_px)).all()


def test_straightened_view_follows_the_homography():
    """A dot painted at the photo px of table point (120, 80) lands at that point's canvas px."""
    h = np.array([[1.8, 0.3, 40.0], [-0.2, 1.6, 30.0], [0.0005, 0.0002, 1.0]])
    photo = np.zeros((600, 800, 3), np.uint8)
    p = h @ [120.0, 80.0, 1.0]
    cv2.circle(photo, (int(round(p[0] / p[2])), int(round(p[1] / p[2]))), 6, (255, 0, 0), -1)
    cv = Canvas((50.0, 20.0), 0.5, (300, 240))
    view = straightened_view(photo, cv, h_px_from_mm=h)
    assert view.shape == (240, 300, 3)
    assert near(view, cv.to_px([120.0, 80.0])[0], (255, 0, 0), radius=1, tol=60)
    assert not near(view, cv.to_px([160.0, 80.0])[0], (255, 0, 0), radius=3, tol=60)


def test_carrotain_diagram_rings_match_the_judgement():
    _, cal, state, result, _ = judged("carrotain")
    cv = reading.canvas("carrotain", state, result)
    img = reading.diagram("carrotain", cv, state, result)
    colours = {"hidden": STYLE.good_rgb, "not_hidden": STYLE.bad_rgb, "borderline": STYLE.doubt_rgb}
    r = (CAR.chip_radius_mm + CAR.ring_mm / 2) * cv.px_per_mm()
    seen = set()
    for c in result["chips"]:
        key = "borderline" if c["borderline"] else ("hidden" if c["hidden"] else "not_hidden")
        ring = cv.to_px(c["xy_mm"])[0] + (0, r)  # the ring's bottom point
        assert near(img, ring, colours[key], radius=2), (c, key)
        seen.add(key)
    assert {"hidden", "not_hidden"} <= seen


def test_carrotain_unsure_chip_is_hatched_with_a_question_mark():
    _, _, state, result, _ = judged("carrotain")
    state = json.loads(json.dumps(state))
    state["chips"][0]["confidence"] = 0.1
    cv = reading.canvas("carrotain", state, result)
    img = reading.diagram("carrotain", cv, state, result)
    sure = json.loads(json.dumps(state))
    sure["chips"][0]["confidence"] = 1.0
    clean = reading.diagram("carrotain", cv, sure, result)
    c = cv.to_px(result["chips"][0]["xy_mm"])[0]
    r = int(CAR.chip_radius_mm * cv.px_per_mm() * 0.7)
    x, y = int(c[0]), int(c[1])
    box = (slice(y - r, y + r), slice(x - r, x + r))
    grey = (np.abs(img[box].astype(int) - STYLE.unknown_rgb).max(axis=2) < 30).sum()
    grey_clean = (np.abs(clean[box].astype(int) - STYLE.unknown_rgb).max(axis=2) < 30).sum()
    assert grey > grey_clean + 20


def test_kaleido_diagram_paints_each_cell_its_colour():
    from geometry.hexboards import cell_centroids
    from ui.diagram_kaleido import tile_rgb, unsure_cells

    _, _, state, result, _ = judged("kaleido")
    cv = reading.canvas("kaleido", state, result)
    img = reading.diagram("kaleido", cv, state, result)
    unsure = unsure_cells(state, result)
    checked = 0
    for b, bd in enumerate(state["boards"]):
        cents = cell_centroids(bd["centre_mm"], bd["rotation_deg"], state["edge_mm"])
        for k, colour in enumerate(bd["cells"]):
            if colour is None or (b, k) in unsure:
                continue
            # a little off the centroid: the board's number sits on the centre, not on the cells
            p = cv.to_px(cents[k] + (np.asarray(cents[k]) - bd["centre_mm"]) * 0.2)[0]
            assert near(img, p, tile_rgb(colour), radius=2, tol=12), (b, k, colour)
            checked += 1
    assert checked >= 10


def test_kaleido_complete_hexagon_drawn_in_gold_after_a_correction():
    """Fill the empty holes of an incomplete hexagon by taps: the re-judged hexagon is complete and outlined."""
    from ui.diagram_kaleido import GOLD, hexagon_ring_mm

    _, _, state, result, ctx = judged("kaleido")
    h = result["incomplete_hexagons"][0]
    for b, k in h["empty"]:
        bd = state["boards"][b]
        from geometry.hexboards import cell_centroids

        state = apply_tap("kaleido", state, cell_centroids(bd["centre_mm"], bd["rotation_deg"], 60.0)[k],
                          "add", add_as={"colour": "red"}).state_json
    new = rejudge("kaleido", state, ctx)
    assert len(new["hexagons"]) == len(result["hexagons"]) + 1
    cv = reading.canvas("kaleido", state, new)
    img = reading.diagram("kaleido", cv, state, new)
    done = [x for x in new["hexagons"] if sorted(map(tuple, x["cells"])) == sorted(map(tuple, h["cells"]))][0]
    ring = cv.to_px(hexagon_ring_mm(state, done))
    mid = (ring[0] + ring[1]) / 2
    assert near(img, mid, GOLD, radius=2, tol=30)


def test_cmyk_diagram_hexagons_and_an_illegal_contact_after_a_tap():
    from ui.diagram_cmyk import HEX_EDGE_RGB

    _, _, state, result, ctx = judged("cmyk")
    name = state["mosaics"][0]["player"]
    hexes = result["players"][name]["geometry"]["hexagons"]
    assert hexes
    cv = reading.canvas("cmyk", state, result, 0)
    img = reading.diagram("cmyk", cv, state, result, 0)
    fr = LatticeFrame.of(state["mosaics"][0])
    ring = cv.to_px(fr.hexagon_mm(hexes[0]))
    assert near(img, (ring[0] + ring[1]) / 2, HEX_EDGE_RGB, radius=2, tol=30)
    # tap the edge a tile shares with a neighbour: its level changes, the score changes, the contact is red
    tiles = {tuple(t["cell"]): t for t in state["mosaics"][0]["tiles"]}
    from geometry import trilattice as tl

    cell, d = next((c, d) for c in tiles for d in "HPN" if tl.neighbour(*c, d) in tiles)
    a, b = fr.edge_mm_of(cell, d)
    inside = fr.cell_mm(cell).mean(axis=0)
    tap = (a + b) / 2 + (inside - (a + b) / 2) * 0.25
    assert piece_at("cmyk", state, tap) == PieceRef("edge", (0, *cell, "HPN".index(d)))
    edit = apply_tap("cmyk", state, tap, "change")
    new = rejudge("cmyk", edit.state_json, ctx)
    contacts = new["players"][name]["illegal_contact_cells"]
    assert any(sorted(map(tuple, c["cells"])) == sorted([cell, tl.neighbour(*cell, d)]) for c in contacts)
    img2 = reading.diagram("cmyk", cv, edit.state_json, new, 0)
    assert near(img2, cv.to_px((a + b) / 2)[0], STYLE.bad_rgb, radius=2, tol=40)
    assert not near(img, cv.to_px((a + b) / 2)[0], STYLE.bad_rgb, radius=2, tol=40)


def test_taps_on_carrotain_chips():
    _, _, state, result, ctx = judged("carrotain")
    chip = state["chips"][3]
    assert piece_at("carrotain", state, np.add(chip["xy_mm"], (5.0, -4.0))) == PieceRef("chip", (3,))
    assert piece_at("carrotain", state, (-500.0, -500.0)) is None
    changed = apply_tap("carrotain", state, chip["xy_mm"], "change").state_json
    cycle = chip_cycle()
    k = cycle.index((chip["kind"], chip["colour"]))
    assert (changed["chips"][3]["kind"], changed["chips"][3]["colour"]) == cycle[(k + 1) % len(cycle)]
    assert state["chips"][3] == chip  # the input is not modified
    removed = apply_tap("carrotain", state, chip["xy_mm"], "remove").state_json
    assert len(removed["chips"]) == len(state["chips"]) - 1
    # a chip added outside every board is one more centre point not hidden
    added = apply_tap("carrotain", state, (300.0, 400.0), "add", add_as={"kind": "star", "colour": "red"})
    new = rejudge("carrotain", added.state_json, ctx)
    assert new["not_hidden"] == result["not_hidden"] + 1
    with pytest.raises(TapError):
        apply_tap("carrotain", state, (-500.0, -500.0), "change")


def test_cmyk_add_a_tile_matches_its_neighbours_colours():
    _, _, state, _, _ = judged("cmyk")
    from geometry import trilattice as tl

    tiles = {tuple(t["cell"]): t for t in state["mosaics"][0]["tiles"]}
    empty = next(tl.neighbour(*c, d) for c in tiles for d in "HPN" if tl.neighbour(*c, d) not in tiles)
    fr = LatticeFrame.of(state["mosaics"][0])
    edit = apply_tap("cmyk", state, fr.cell_mm(empty).mean(axis=0), "add")
    new = {tuple(t["cell"]): t for t in edit.state_json["mosaics"][0]["tiles"]}[empty]
    assert sorted(e["colour"] for e in new["edges"].values()) == ["cyan", "magenta", "yellow"]
    for d, e in new["edges"].items():
        nb = tiles.get(tl.neighbour(*empty, d))
        if nb is not None:
            assert e["colour"] == nb["edges"][d]["colour"] and e["level"] == nb["edges"][d]["level"]


def test_sentences_name_every_not_hidden_chip_and_link_it():
    _, _, state, result, _ = judged("carrotain")
    lines = reading.kit("carrotain").sentences(state, result)
    assert lines[0].text.startswith(f"{result['not_hidden']} centre point")
    linked = {p.index[0] for s in lines[1:] for p in s.pieces}
    assert {i for i, c in enumerate(result["chips"]) if not c["hidden"]} <= linked
    close = [s for s in lines if "misses it by" in s.text]
    assert all(len(s.pieces) == 1 for s in close)
    i = close[0].pieces[0].index[0]
    assert f"{abs(result['chips'][i]['margin_mm']):.1f} mm" in close[0].text
    assert side_word(np.array([-10.0, 0.0])) == "left" and side_word(np.array([0.0, -5.0])) == "top"


def test_sentences_for_kaleido_and_cmyk_link_cells_and_tiles():
    _, _, state, result, _ = judged("kaleido")
    lines = reading.kit("kaleido").sentences(state, result)
    full = [s for s in lines if s.text.startswith("Board") and "is full" in s.text]
    assert len(full) == result["full_boards"]
    assert all(p.kind == "cell" for s in lines for p in s.pieces)
    _, _, state, result, _ = judged("cmyk")
    lines = reading.kit("cmyk").sentences(state, result)
    name = state["mosaics"][0]["player"]
    assert lines[0].text.startswith(f"{name}: {result['players'][name]['tiles']} tiles")
    assert any("hexagon" in s.text and len(s.pieces) == 6 * result["players"][name]["hexagons"] for s in lines)


def test_evidence_crops_come_from_the_photo_with_the_drawing_beside():
    photo, cal, state, result, _ = judged("carrotain", 1)
    crops = evidence_crops("carrotain", [photo], [cal], state, result)
    assert crops
    chips = result["chips"]
    from ui.canvas import crop_canvas

    c0 = crops[0]
    size = c0.image.shape[0]
    cv = crop_canvas(tuple(chips[c0.piece.index[0]]["xy_mm"]), 22.0, size)
    expect = reading.photo_view("carrotain", photo, cal, state, cv)
    assert np.array_equal(c0.image[:, :size], expect)  # the photo itself, nothing drawn on it
    right = c0.image[:, -size:]
    assert (np.abs(right.astype(int) - STYLE.highlight_rgb).max(axis=2) < 30).sum() > 50  # the piece ringed
    borderline_first = [chips[c.piece.index[0]]["borderline"] for c in crops]
    assert borderline_first == sorted(borderline_first, reverse=True)


def test_kaleido_crops_show_the_doubtful_cell():
    photo, cal, state, result, _ = judged("kaleido")
    crops = evidence_crops("kaleido", [photo], [cal], state, result)
    from ui.diagram_kaleido import unsure_cells

    assert {c.piece.index for c in crops} == unsure_cells(state, result)
    conf = [state["boards"][c.piece.index[0]]["confidences"][c.piece.index[1]] for c in crops]
    assert conf == sorted(conf), "least confident first"


def test_markerless_state_is_straightened_with_its_own_homography():
    """Without a calibration the view uses the homography a markerless detector stored in the state."""
    photo, cal, state, result, _ = judged("kaleido")
    cv = reading.canvas("kaleido", state, result)
    assert reading.photo_view("kaleido", photo, None, state, cv) is None  # no frame at all: no view
    h = cal.H_px_from_mm  # a plain homography standing in for the markerless one
    markerless = {**state, "h_px_from_mm": np.asarray(h).tolist()}
    view = reading.photo_view("kaleido", photo, None, markerless, cv)
    assert np.array_equal(view, straightened_view(photo, cv, h_px_from_mm=h))
    with_cal = reading.photo_view("kaleido", photo, cal, state, cv)
    # the same table region either way: the two views agree closely (lens and height aside)
    diff = np.abs(view.astype(int) - with_cal.astype(int)).mean()
    assert diff < 25, diff


def test_a_game_without_a_kit_has_no_reading():
    from ui.reading_panel import has_reading

    assert has_reading("carrotain") and not has_reading("no_such_game")
    assert reading.kit("no_such_game") is None
