"""Registering a user's board outline from one photo (``judge.register_board``).

Renders come from the repo's renderer (``synth.photo`` via ``synth.carrotain.scene_layers``): one
clear board alone on the navy mat with its top face at 3 mm (lying on the mat), no chips, under
``sample_conditions(hard=False)`` (camera 40-90 cm, tilt 0-40 deg, any yaw, lens distortion, varied
light and tables, noise, blur, JPEG). Seeds 100-109 are not the ones the thresholds were tried on.
"""

import copy
import dataclasses

import numpy as np
import pytest
from shapely.geometry import Polygon

from calibration.profile import CalibrationProfile
from calibration.table import calibrate_from_markers
from components import load_components
from judge.register_board import RegisterBoardConfig, register_board, register_board_into_profile
from synth.carrotain import board_to_table, scene_layers
from synth.photo import render_photo, sample_conditions

BOARD_TOP_Z_MM = 3.0  # a 3 mm board lying on the mat (the renderer's scenes put boards on chips, at 5 mm)


def _custom_outline() -> np.ndarray:
    """A board shape not in the component file: a rounded irregular pentagon, about 170 x 130 mm."""
    corners = np.array([[-85.0, -40.0], [-10.0, -70.0], [85.0, -35.0], [60.0, 60.0], [-70.0, 55.0]])
    return np.asarray(Polygon(corners).buffer(-6.0).buffer(6.0, quad_segs=4).exterior.coords)[:-1]


def _render(seed: int, boards: list[tuple[str, np.ndarray]], comp: dict, centres_mm=None):
    """Photo of the given boards (id, board-frame outline) at random poses on the bare mat (centres
    given, or side by side for two, or random in the middle of the mat for one).

    Returns
    -------
    image_rgb : ndarray (H, W, 3) uint8
    outlines_mm : list of ndarray (N, 2), the laid outlines in table mm
    """
    rng = np.random.default_rng(seed)
    comp = copy.deepcopy(comp)
    scene_boards, laid = [], []
    if centres_mm is not None:
        centres = centres_mm
    elif len(boards) > 1:
        centres = [(160.0, 210.0), (400.0, 210.0)]
    else:
        centres = [tuple(rng.uniform([170, 150], [390, 270]))]
    for (bid, local), c in zip(boards, centres):
        comp["carrotain"]["board"]["outlines_mm"][bid] = np.asarray(local).tolist()
        rot, mir = float(rng.uniform(0, 360)), bool(rng.random() < 0.5)
        out = board_to_table(local, c, rot, mir, reverse=True)
        laid.append(out)
        scene_boards.append({"id": bid, "role": "other", "centre_mm": list(c), "rotation_deg": rot, "mirrored": mir,
                             "outline_mm": out.tolist()})
    scene = {"game": "carrotain", "mat": {"centre_mm": [280.0, 210.0], "size_mm": comp["carrotain"]["mat"]["size_mm"]},
             "chips": [], "boards": scene_boards}
    layers = [dataclasses.replace(la, z_mm=BOARD_TOP_Z_MM) if la.name.startswith(("board", "print")) else la
              for la in scene_layers(scene, rng, components=comp)]
    cond = sample_conditions(rng, look_at_mm=(280, 210), hard=False)
    return render_photo(layers, cond, rng).image_rgb, laid


def _symmetric_mean_distance_mm(a: np.ndarray, b: np.ndarray, n: int = 300) -> float:
    """Mean of (a's boundary to b's) and (b's to a's), sampled every 1/n of each perimeter."""
    pa, pb = Polygon(a).exterior, Polygon(b).exterior

    def one(p, q):
        return float(np.mean([q.distance(p.interpolate(t)) for t in np.linspace(0, p.length, n, endpoint=False)]))

    return 0.5 * (one(pa, pb) + one(pb, pa))


def _centred(outline: np.ndarray) -> np.ndarray:
    return outline - np.asarray(Polygon(outline).centroid.coords[0])


@pytest.fixture(scope="module")
def comp():
    return load_components()


def test_registered_outlines_match_truth(comp):
    """Ten renders (boards A-G and a custom shape, random rotation and mirroring, hard=False conditions):
    the registered outline (centred, as laid) is within 2 mm symmetric mean distance and 5 % area of the
    truth in at least 9 of 10 (a refusal counts as a miss), and within 1 mm on average over those
    registered. Measured: 9 registered, mean 0.52 mm, worst 0.70 mm, area +0.1 to +2.1 %; seed 104 is
    refused (its region runs into the view's edge)."""
    custom = _custom_outline()
    dists, areas = [], []
    for k, seed in enumerate(range(100, 110)):
        bid = "ABCDEFG"[k] if k < 7 else "X"
        local = np.asarray(comp["carrotain"]["board"]["outlines_mm"][bid]) if bid != "X" else custom
        image, (truth,) = _render(seed, [(bid, local)], comp)
        cal = calibrate_from_markers(image)
        try:
            got = register_board(image, cal)
        except ValueError:
            continue
        assert got.shape == (48, 2)
        assert np.allclose(np.asarray(Polygon(got).centroid.coords[0]), 0.0, atol=1e-6)
        t = _centred(truth)
        dists.append(_symmetric_mean_distance_mm(got, t))
        areas.append(Polygon(got).area / Polygon(t).area)
    dists, areas = np.array(dists), np.array(areas)
    good = (dists < 2.0) & (np.abs(areas - 1.0) < 0.05)
    assert good.sum() >= 9, (dists.round(2), areas.round(3))
    assert len(dists) >= 9 and dists.mean() < 1.0, dists.round(2)


def test_empty_mat_is_refused(comp):
    """The bare mat (no board; seed 200, hard=False conditions) raises ValueError saying no board was found."""
    image, _ = _render(200, [], comp)
    with pytest.raises(ValueError, match="no board"):
        register_board(image, calibrate_from_markers(image))


def test_two_boards_are_refused(comp):
    """Two boards side by side (A and E, seed 201, hard=False conditions) raise ValueError: several regions."""
    out = comp["carrotain"]["board"]["outlines_mm"]
    image, _ = _render(201, [("A", np.asarray(out["A"])), ("E", np.asarray(out["E"]))], comp)
    with pytest.raises(ValueError, match="several"):
        register_board(image, calibrate_from_markers(image))


def test_board_cut_by_the_edge_is_refused(comp):
    """Board B centred at x = 300 mm (seed 202, hard=False conditions), searched over a region ending at
    x = 300 mm: half the board is off the view, ValueError (touches the edge)."""
    local = np.asarray(comp["carrotain"]["board"]["outlines_mm"]["B"])
    image, _ = _render(202, [("B", local)], comp, centres_mm=[(300.0, 210.0)])
    cal = calibrate_from_markers(image)
    assert register_board(image, cal).shape == (48, 2)  # the whole mat: fine
    with pytest.raises(ValueError, match="edge"):
        register_board(image, cal, RegisterBoardConfig(region_mm=(-20.0, 0.0, 300.0, 420.0)))


def test_into_profile_keeps_the_rest(comp, tmp_path):
    """register_board_into_profile adds the board to a copy of the profile, which saves and loads."""
    image, (truth,) = _render(103, [("Q", np.asarray(comp["carrotain"]["board"]["outlines_mm"]["D"]))], comp)
    cal = calibrate_from_markers(image)
    before = CalibrationProfile(colours={"carrotain": {"red": (0.8, 0.1, 0.1)}}, boards={"Z": np.eye(3)[:, :2]})
    after = register_board_into_profile("Q", image, cal, before)
    assert set(after.boards) == {"Z", "Q"} and "Q" not in before.boards
    assert after.colours == before.colours
    path = tmp_path / "p.json"
    after.save(str(path))
    loaded = CalibrationProfile.load(str(path))
    assert np.allclose(loaded.boards["Q"], after.boards["Q"])
    assert _symmetric_mean_distance_mm(loaded.boards["Q"], _centred(truth)) < 2.0
    assert set(register_board_into_profile("Q", image, cal, None).boards) == {"Q"}
