"""Kaleido board search: a board whose hole edges were too faint is completed by the tiles in its holes,
a bare place next to the boards is not."""

from dataclasses import replace

import numpy as np

from calibration.table import calibrate_from_markers
from synth.kaleido import render_scene
from vision.hexlattice import side_maps
from vision.kaleido import (
    FoundBoards,
    KaleidoVisionConfig,
    complete_boards,
    find_boards,
    fit_board_lattice,
    read_boards,
    top_view,
)


def _found(seed: int = 1000):
    cfg = KaleidoVisionConfig()
    img, _, _ = render_scene(seed, hard=False, table="laminate")
    fit = fit_board_lattice(top_view(img, calibrate_from_markers(img), cfg), cfg)
    maps = side_maps(fit.view.norm, fit.view.origin_mm, fit.view.mm_per_px, fit.lattice, cfg.lattice)
    return cfg, fit, find_boards(fit.view, fit.lattice, maps, cfg)


def _without(found: FoundBoards, i: int, present: np.ndarray) -> FoundBoards:
    """``found`` as if candidate i had shown only the holes in ``present``."""
    accepted, holes = found.accepted.copy(), found.present.copy()
    accepted[i] = False
    holes[i] = present
    return replace(found, accepted=accepted, present=holes, order=found.order[found.order != i])


def test_faint_board_is_completed_by_its_tiles_and_a_bare_place_is_not():
    cfg, fit, found = _found()
    boards, _ = read_boards(fit.view, fit.lattice, found, cfg)
    # a board with at least four tiles whose edges (all but one hole) were too faint to see
    bi = next(k for k, b in enumerate(boards) if sum(c is not None for c in b.cells) >= 4)
    i = int(found.order[bi])
    faint = _without(found, i, np.array([True, False, False, False, False, False]))
    done = complete_boards(fit.view, fit.lattice, faint, cfg)
    assert done.accepted[i]
    assert sorted(done.order.tolist()) == sorted(found.order.tolist())
    assert not any(f.code == "boards_partly_seen" for f in done.flags) or all(
        np.linalg.norm(np.array(p["centre_mm"]) - found.vertices_mm[i]) > cfg.edge_mm
        for f in done.flags if f.code == "boards_partly_seen" for p in f.data["places"])
    # a bare place next to the boards with one spurious hole edge: its holes show the table, no board
    V = found.vertices_mm
    d = np.linalg.norm(V[:, None] - V[found.order][None], axis=2).min(axis=1)
    bare = np.nonzero((found.coset == found.best_coset) & ~found.accepted & ~found.present.any(axis=1)
                      & (d <= cfg.edge_mm * np.sqrt(3.0) * 1.01))[0]
    assert len(bare), "the scene has bare table next to its boards"
    j = int(bare[0])
    spurious = replace(found, present=found.present.copy())
    spurious.present[j, 0] = True
    kept = complete_boards(fit.view, fit.lattice, spurious, cfg)
    assert not kept.accepted[j]
    assert sorted(kept.order.tolist()) == sorted(found.order.tolist())
