"""Every Kaleido board seen is on the lattice or flagged (issue 10): a board pushed off the common lattice,
half a board masked out of the photo, a board cut by the edge of what the detector sees."""

from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest

from calibration.table import calibrate_from_markers
from geometry.hexboards import board_corners
from judge.games import Frame
from judge.games.kaleido import SPEC
from scoring.kaleido import KaleidoContext, adjudicate
from synth.kaleido import SceneConfig, render_given, render_scene, sample_scene
from vision.kaleido import KaleidoVisionConfig, _search_region, detect_kaleido


def _judge(img, truth, **kwargs):
    det = detect_kaleido(img, calibrate_from_markers(img), **kwargs)
    players = tuple((k, tuple(v)) for k, v in truth["context"]["players"].items())
    return det, adjudicate(det.state, KaleidoContext(players=players))


def _outermost(scene: dict) -> tuple[int, np.ndarray]:
    """Index of the board farthest from the cluster's middle, and the unit direction to it."""
    c = np.array([b["centre_mm"] for b in scene["boards"]])
    d = c - c.mean(axis=0)
    i = int(np.argmax(np.linalg.norm(d, axis=1)))
    return i, d[i] / np.linalg.norm(d[i])


@pytest.mark.parametrize("seed", [3, 6])
def test_a_board_off_the_lattice_is_read_and_flagged(seed):
    scene = sample_scene(np.random.default_rng(seed), SceneConfig(boards=(4, 8)))
    i, away = _outermost(scene)
    board = scene["boards"][i]
    board["centre_mm"] = [float(v) for v in np.asarray(board["centre_mm"]) + 20.0 * away]
    board["rotation_deg"] += 17.0
    img, truth, _ = render_given(scene, np.random.default_rng(seed + 1))
    det, out = _judge(img, truth)
    assert len(det.state.boards) == len(scene["boards"])
    off = [b for b in det.state.boards if not b.on_lattice]
    assert len(off) == 1 and np.hypot(*(np.asarray(off[0].centre_mm) - board["centre_mm"])) < 6.0
    assert "off_lattice" in [f["code"] for f in out["flags"]]


@pytest.mark.parametrize("seed", [3, 4])
def test_half_a_board_masked_in_the_photo_is_flagged(seed):
    scene = sample_scene(np.random.default_rng(seed), SceneConfig(boards=(4, 8)))
    img, truth, photo = render_given(copy.deepcopy(scene), np.random.default_rng(seed + 2))
    det, out = _judge(img, truth)
    assert len(det.state.boards) == len(scene["boards"]) and "boards_partly_seen" not in [
        f["code"] for f in out["flags"]
    ]
    i, _ = _outermost(scene)
    b = scene["boards"][i]
    corners = board_corners(b["centre_mm"], b["rotation_deg"], scene["edge_mm"])
    half = np.vstack([np.asarray(b["centre_mm"])[None], corners[0:4]])  # three of its six holes
    px = photo.project(np.column_stack([half, np.full(len(half), 2.0)]))
    top_rows = img[5:40, img.shape[1] // 2 - 50 : img.shape[1] // 2 + 50].reshape(-1, 3)
    masked = img.copy()
    cv2.fillPoly(masked, [np.round(px).astype(np.int32)], tuple(int(v) for v in np.median(top_rows, axis=0)))
    det, out = _judge(masked, truth)
    assert "boards_partly_seen" in [f["code"] for f in out["flags"]]


@pytest.mark.parametrize("seed", [1002, 1004])
def test_a_board_cut_by_the_searched_area_is_flagged(seed):
    img, truth, _ = render_scene(seed)
    cal = calibrate_from_markers(img)
    centres = np.array([b["centre_mm"] for b in truth["scene"]["boards"]])
    x_cut = float(centres[:, 0].max() - 10.0)  # through the right-most board, its centre left out
    region = _search_region(cal, (img.shape[1], img.shape[0]), KaleidoVisionConfig())
    det, out = _judge(img, truth, region_mm=(region[0], region[1], x_cut, region[3]))
    assert len(det.state.boards) < len(centres)
    (flag,) = [f for f in out["flags"] if f["code"] == "boards_partly_seen"]
    # the flag says where: one of its places is the cut board (drawn on the overlay)
    cut = centres[int(np.argmax(centres[:, 0]))]
    assert min(np.hypot(*(np.asarray(p["centre_mm"]) - cut)) for p in flag["places"]) < 12.0
    # the overlay outlines each place in red (a board frame is drawn white, an off-lattice board orange)
    frame = Frame(image_rgb=img, calibration=cal)
    ctx = SPEC.parse_context(truth["context"])
    ov = SPEC.overlay(frame, det.state, SPEC.adjudicate(det.state, ctx))
    place = flag["places"][0]
    ring = cal.mm_to_px(board_corners(place["centre_mm"], place["rotation_deg"], 60.0))
    x, y = np.round(ring[0]).astype(int)
    patch = ov[y - 3 : y + 4, x - 3 : x + 4].reshape(-1, 3).astype(int)
    assert ((patch[:, 0] > 200) & (patch[:, 1] < 60) & (patch[:, 2] < 60)).any()


def test_a_board_found_by_the_second_fit_is_placed_against_the_common_lattice():
    from geometry.trilattice import TriangleLattice
    from scoring.kaleido import BoardReading
    from vision.kaleido import _placed_on

    lattice = TriangleLattice(vertex_mm=np.array([10.0, 20.0]), rotation_deg=12.0, edge_mm=60.0)
    cfg = KaleidoVisionConfig()
    main = tuple(BoardReading(tuple(lattice.vertex([ab])[0]), 12.0, ("red",) * 6) for ab in ([0, 0], [3, 0]))
    # (1, 1) is of the board centres' coset (a - b = 0 mod 3), (1, 0) a corner where boards meet
    missed = BoardReading(tuple(lattice.vertex([[1, 1]])[0] + [1.0, -1.5]), 12.4, ("blue",) * 6)
    assert _placed_on(lattice, main, missed, cfg).on_lattice
    corner = BoardReading(tuple(lattice.vertex([[1, 0]])[0]), 12.2, ("blue",) * 6)
    assert _placed_on(lattice, main, corner, cfg) is None
    turned = BoardReading(tuple(lattice.vertex([[1, 1]])[0]), 29.0, ("blue",) * 6)
    pushed = BoardReading(tuple(lattice.vertex([[1, 1]])[0] + [20.0, 0.0]), 12.0, ("blue",) * 6)
    assert not _placed_on(lattice, main, turned, cfg).on_lattice
    assert not _placed_on(lattice, main, pushed, cfg).on_lattice
