"""CMYK! recognizer, scene renderer and glue.

Rendered photos come from ``synth.samples.cmyk.render_scene`` (``synth.photo`` when present, else the stand-in
pinhole renderer of ``synth.cmyk``): legal random mosaics of 10-35 tiles (K tiles sometimes), camera
50-90 cm high, tilt 0-40 degrees, yaw +-15, fov 60-72, wood/laminate/felt/grey tables, light gain and
colour cast, noise, blur, JPEG; seeds fixed.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from calibration.table import CalibrationError, calibrate_from_markers
from geometry import trilattice as tl
from judge.errors import BadInput, CannotJudge
from judge.games import Frame
from judge.games.cmyk import CmykGameState, _hexagon_vertices, detect, parse_context
from judge.timing import StageTimer
from synth.cmyk import random_mosaic, tile_set
from synth.samples.cmyk import render_scene
from vision import cmyk_read as rd
from vision.cmyk import detect_mosaic

SEEDS = (1, 3, 4, 5, 6, 7, 11, 13)


def _match(scene, det):
    """(true tiles matched, edges, edges right) by table position, independent of cell numbering."""
    cents = np.array([t.vertices_mm.mean(axis=0) for t in scene.tiles])
    matched = edges = right = 0
    for r in det.state.tiles:
        c = det.frame.to_table(np.array([tl.cell_centroid(*r.cell, det.frame.edge_mm)]))[0]
        d = np.linalg.norm(cents - c, axis=1)
        t = scene.tiles[int(np.argmin(d))]
        if d.min() > 10:
            continue
        matched += 1
        levels = {col: lv for col, lv in t.edges.values()}
        for er in r.edges.values():
            edges += 1
            right += (r.kind == t.kind == "k") or (r.kind == t.kind == "normal" and levels[er.colour] == er.level)
    return matched, edges, right


@pytest.fixture(scope="module")
def runs():
    out = []
    for s in SEEDS:
        image, scene, _ = render_scene(s)
        try:
            cal = calibrate_from_markers(image)
        except CalibrationError:
            continue
        out.append((scene, detect_mosaic(image, cal, StageTimer()), cal))
    assert len(out) >= 6
    return out


def test_tiles_found_and_read(runs):
    """Seeded photos (conditions in the module docstring): tile recall >= 0.97, edge level accuracy >= 0.97,
    no extra tiles, exact hexagon count on at least all but one mosaic."""
    n_true = n_det = matched = edges = right = hex_ok = 0
    for scene, det, _ in runs:
        assert det is not None
        m, e, r = _match(scene, det)
        n_true += len(scene.tiles)
        n_det += len(det.state.tiles)
        matched, edges, right = matched + m, edges + e, right + r
        hex_ok += len(_hexagon_vertices({t.cell for t in scene.tiles})) == len(
            _hexagon_vertices({t.cell for t in det.state.tiles}))
    assert matched / n_true >= 0.97
    assert n_det == matched
    assert right / edges >= 0.97
    assert hex_ok >= len(runs) - 1


def test_frame_rows_horizontal_and_up_to_photo_top(runs):
    """Any camera yaw (0-360): the chosen lattice rows run within 32 degrees of the photo's horizontal (the
    nearest of three directions 60 degrees apart, plus perspective), and "up" points to the photo's top."""
    for _, det, cal in runs:
        c = det.frame.origin_mm
        p0, pr, pu = cal.mm_to_px(np.array([c, c + det.frame.right * 10, c + det.frame.up * 10]))
        d = pr - p0
        assert d[0] > 0 and abs(np.degrees(np.arctan2(d[1], d[0]))) <= 32
        assert pu[1] < p0[1]


def test_scene_is_legal():
    """Random mosaics: 10-35 distinct tiles of the set, connected, every touching edge matches."""
    for s in range(5):
        sc = random_mosaic(np.random.default_rng(s))
        assert 10 <= len(sc.tiles) <= 35
        normal = [t.cmy for t in sc.tiles if t.kind == "normal"]
        assert len(set(normal)) == len(normal) and set(normal) <= set(tile_set())
        by = {t.cell: t for t in sc.tiles}
        for t in sc.tiles:
            for d in tl.DIRECTIONS:
                nb = by.get(tl.neighbour(*t.cell, d))
                if nb is None:
                    continue
                (c1, l1), (c2, l2) = t.edges[d], nb.edges[d]
                assert c1 == c2
                assert l1 is None or l2 is None or l1 == l2
        seen, todo = set(), [sc.tiles[0].cell]
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            todo += [tl.neighbour(*c, d) for d in tl.DIRECTIONS if tl.neighbour(*c, d) in by]
        assert seen == set(by)


def test_ink_classes_and_marks():
    """The printed inks classify as themselves; k ideal dots (plus noise) read as level k; flat reads "no mark"."""
    assert list(rd.classify_inks(rd.INK_RGB / 255.0)) == [0, 1, 2]
    s = np.arange(-15, 15.001, 0.25)
    templ, _ = rd.mark_templates(s, 0.6)
    rng = np.random.default_rng(0)
    profiles = np.stack([templ[k, len(templ[0]) // 2] * 0.5 for k in range(6)] + [np.zeros_like(s)])
    profiles += rng.normal(0, 0.03, profiles.shape)
    ll, _ = rd.mark_loglik(profiles, templ)
    assert list(np.argmax(ll, axis=1)) == [0, 1, 2, 3, 4, 5, 6]


def test_assignment_uses_each_tile_once():
    """Two tiles with the same evidence get two different types of the set."""
    ev = rd.TileEvidence(rotation=0, rotation_confidence=1.0, ground_est=np.array([1.0, 2.0, 0.0]),
                         mark_ll=np.zeros((3, 7)), mark_amp=np.zeros((3, 6)))
    scores, cols = rd.score_matrix([ev, ev])
    a = rd.assign(scores)
    assert a[0] != a[1] and cols[a[0]] != "k" and cols[a[1]] != "k"


CTX = {"players": [{"name": "Aki", "personal_card": {"colour": "cyan", "level": 2}}], "public_cards": []}


def test_glue_errors_and_state_roundtrip(runs):
    """Context errors name the field; photo count mismatch is bad input; no markers / no tiles cannot judge;
    the game state survives JSON."""
    with pytest.raises(BadInput, match="players"):
        parse_context({"players": "x"})
    with pytest.raises(BadInput, match="horizontal_deg"):
        parse_context({**CTX, "horizontal_deg": "left"})
    ctx = parse_context(CTX)
    blank = np.full((480, 640, 3), 120, np.uint8)
    with pytest.raises(BadInput, match="one photo per player"):
        detect([], ctx, StageTimer())
    with pytest.raises(CannotJudge, match="no table frame"):
        detect([Frame(blank, None, "no markers")], ctx, StageTimer())
    image, _, _ = render_scene(SEEDS[0])
    cal = calibrate_from_markers(image)
    table_only = image.copy()
    table_only[:] = np.median(image.reshape(-1, 3), axis=0).astype(np.uint8)
    with pytest.raises(CannotJudge, match="no CMYK! tiles found: nothing ink-coloured"):
        detect([Frame(table_only, cal, "empty")], ctx, StageTimer())
    timer = StageTimer()
    st = detect([Frame(image, cal, "p.png")], ctx, timer)
    again = CmykGameState.from_json(st.to_json())
    assert again.to_json() == st.to_json()
    assert {"tiles", "lattice", "edges", "marks", "assign"} <= set(timer.ms)


def test_tiles_seen_but_no_lattice_says_so():
    """Where the ink-coloured tiles are there but no lattice fits their edges (here: a lattice fit that demands more
    than any bands can give), the cannot-judge message says what was seen and how to retake the photo, not that
    there are no tiles; the area it names is the mosaic's (its true tiles lie inside it)."""
    from dataclasses import replace

    from vision.cmyk import CmykVisionConfig, MosaicMiss, read_mosaic
    from vision.cmyk_lattice import LatticeFitConfig

    image, scene, _ = render_scene(SEEDS[0])
    cal = calibrate_from_markers(image)
    config = CmykVisionConfig()
    unfittable = replace(config, lattice=LatticeFitConfig(min_family_concentration=1.01))
    miss = read_mosaic(image, cal, None, unfittable)
    assert isinstance(miss, MosaicMiss) and miss.stage == "no_lattice" and miss.region_mm is not None
    x0, y0, x1, y1 = miss.region_mm
    corners = np.concatenate([t.vertices_mm for t in scene.tiles])
    slack = config.evidence_window_mm
    assert (corners[:, 0] > x0 - slack).all() and (corners[:, 0] < x1 + slack).all()
    assert (corners[:, 1] > y0 - slack).all() and (corners[:, 1] < y1 + slack).all()
    with pytest.raises(CannotJudge, match=r"tile-like area is seen .*no tile lattice could be fitted.*straighter"):
        detect([Frame(image, cal, "p.png")], parse_context(CTX), StageTimer(), unfittable)
    assert not isinstance(read_mosaic(image, cal, None, config), MosaicMiss)  # the same photo reads as it is


def test_adjudicate_scores_every_mosaic_and_names_detector_flags(runs):
    """adjudicate passes every mosaic to the real scoring.cmyk and prefixes detector flags with the player."""
    from judge.games import cmyk as glue
    from scoring.flags import Flag

    _, det, _ = runs[0]
    m = det.state.__class__(tiles=det.state.tiles, flags=(Flag("tile_doubtful", "tile at [0, 0] unsure"),))
    out = glue.adjudicate(CmykGameState(mosaics=(m,), players=("Aki",)), parse_context(CTX)).to_json()
    name = CTX["players"][0]["name"]
    assert out["players"][name]["tiles"] == len(det.state.tiles)
    assert out["flags"][0]["player"] == name and out["flags"][0]["message"].startswith(f"{name}:")


def test_markerless_frame_from_tiles():
    """No markers used (seeds 1 and 8: tilt <= 40, normal light): the lattice-made frame still reads the
    mosaic — the multiset of tile readings matches the truth, and the state says it was markerless."""
    ctx = parse_context(CTX)
    for seed in (1, 8):
        image, scene, _ = render_scene(seed)
        st = detect([Frame(image, None, "no markers")], ctx, StageTimer())
        m = st.mosaics[0]
        assert any(f.code == "markerless" for f in m.flags)
        got = Counter(str(t.cmy) if t.kind == "normal" else "k" for t in m.tiles)
        want = Counter(str(t.cmy) if t.kind == "normal" else "k" for t in scene.tiles)
        assert got.total() == want.total()
        assert (want - got).total() <= 1  # at most one tile misread (a sorted zip counted one misread many times)
        assert len(_hexagon_vertices({t.cell for t in m.tiles})) == len(
            _hexagon_vertices({t.cell for t in scene.tiles}))


def test_ink_classes_survive_glare_and_hot_spots():
    """An ink brighter than the markers' white (a lamp's hot spot) or veiled half-way to white (glare) keeps its
    class; grey, a brown wood and black are no ink; the per-frame look-up table agrees with the direct
    classification on >= 97 % of random colours."""
    inks = rd.INK_RGB / 255.0
    assert list(rd.classify_inks(inks * 1.6)) == [0, 1, 2]
    assert list(rd.classify_inks(inks * 0.6 + 0.4)) == [0, 1, 2]
    assert list(rd.classify_inks(np.array([[0.8, 0.8, 0.8], [0.45, 0.25, 0.12], [0.02, 0.02, 0.02]]))) == [-1, -1, -1]
    black, white = np.array([12.0, 14.0, 16.0]), np.array([150.0, 140.0, 160.0])
    (table,) = rd.ink_tables(black, white)
    rgb = np.random.default_rng(3).uniform(0, 255, (20000, 3)).astype(np.float32)
    direct = rd.classify_inks(rd.normalise(rgb, black.astype(np.float32), white.astype(np.float32)))
    assert np.mean(rd.classify_table(rgb, table) == direct) >= 0.97


def test_tile_evidence_needs_all_three_inks():
    """A table of one ink's colour (a pink cloth, a yellow wood) gives no tile evidence; three inks close
    together do, and only near them."""
    from vision.cmyk import tile_evidence

    lab = np.full((200, 200), -1, np.int8)
    lab[:, :100] = 1  # a magenta cloth on the left half
    lab[120:180, 120:180] = np.arange(60)[None, :] % 3  # stripes of all three inks
    ev = tile_evidence(lab, 1.0, 30.0, 0.02)
    assert not ev[:, :80].any()
    assert ev[150, 150] and not ev[10, 190]


def test_a_k_reading_on_a_light_ground_is_doubtful():
    """K is what a tile looks like when the photo lost its marks; its ground must still be dark like a K tile's.
    The best of bad readings (every column unlikely, K least so) on a light ground is flagged, not trusted."""
    from vision.cmyk import CmykVisionConfig, _tile_reading

    columns = rd.tile_types() + ["k", "k"]
    scores = np.full(len(columns), -30.0)
    scores[-2:] = -24.0  # K wins the posterior outright
    cfg = CmykVisionConfig()
    for lum, doubtful in ((0.02, False), (0.3, True)):
        ev = rd.TileEvidence(rotation=0, rotation_confidence=1.0, ground_est=np.zeros(3), mark_ll=np.zeros((3, 7)),
                             mark_amp=np.zeros(3), dark_luminance=lum)
        tile, flags = _tile_reading((0, 0), ev, scores, len(columns) - 2, columns, 1.0, cfg)
        assert tile.kind == "k"
        assert (tile.confidence < cfg.min_tile_confidence) == doubtful
        assert bool([f for f in flags if f.code == "tile_doubtful" and "K tile" in f.message]) == doubtful
