"""Lens calibration from synthetic ChArUco photos, lens profiles, and a profile used by the table fit.

Board views: the default 7x5 board (30 mm squares) rendered with synth.synthview, 800x600 px,
hfov 64 deg, barrel distortion k1 -0.2 k2 0.05, camera 330-420 mm away, tilt 0-40 deg, eight yaws,
noise sigma 2, blur 0.6 px.
"""

import json

import cv2
import numpy as np
import pytest

from calibration import CalibrationError, MarkerLayout, calibrate_from_markers
from calibration.lens import CharucoBoardSpec, LensProfile, calibrate_camera, charuco_board_image
from synth.synthview import ViewLook, look_at_camera, render_view, table_texture

SPEC = CharucoBoardSpec()
SIZE = (800, 600)
HFOV, K1, K2 = 64.0, -0.2, 0.05
VIEWS = [
    (330, 0, 0),
    (380, 25, 0),
    (380, 25, 90),
    (400, 35, 180),
    (400, 35, 270),
    (360, 15, 45),
    (420, 40, 135),
    (350, 30, 315),
]


@pytest.fixture(scope="module")
def board_views():
    ppm, margin = 4.0, 10.0
    tex = cv2.cvtColor(charuco_board_image(SPEC, ppm, margin), cv2.COLOR_GRAY2RGB)
    x0 = -margin + 0.5 / ppm
    region = (x0, x0, x0 + tex.shape[1] / ppm, x0 + tex.shape[0] / ppm)
    rng = np.random.default_rng(11)
    out = []
    for k, (dist_mm, tilt, yaw) in enumerate(VIEWS):
        target = (105 + rng.uniform(-30, 30), 75 + rng.uniform(-20, 20))
        cam = look_at_camera(SIZE, HFOV, dist_mm * np.cos(np.radians(tilt)), tilt, yaw, target, k1=K1, k2=K2)
        out.append((cam, render_view(tex, ppm, region, cam, ViewLook(noise_sigma=2.0), np.random.default_rng(k))))
    return out


def test_charuco_calibration_recovers_focal_and_distortion(board_views):
    """Eight views: focal within 2 %, principal point within 10 px, k1 within 0.04, RMS < 0.5 px."""
    prof = calibrate_camera([im for _, im in board_views], SPEC)
    cam = board_views[0][0]
    assert prof.n_views >= 6
    assert abs(prof.K[0, 0] / cam.K[0, 0] - 1) < 0.02, prof.K
    assert np.hypot(prof.K[0, 2] - cam.K[0, 2], prof.K[1, 2] - cam.K[1, 2]) < 10
    assert abs(prof.dist[0] - K1) < 0.04, prof.dist
    assert prof.rms_px < 0.5
    assert abs(prof.hfov_deg - HFOV) < 1.5
    assert 0 < prof.coverage <= 1


def test_board_kept_in_the_middle_is_warned(board_views):
    """Only the two straight-on views (board near the centre): the profile warns about coverage."""
    few = [im for _, im in board_views[:1]] * 2 + [board_views[5][1], board_views[1][1]]
    prof = calibrate_camera(few, SPEC)
    assert prof.coverage < 0.6
    assert any("covered only" in w for w in prof.warnings)


def test_too_few_board_views_raise_with_counts():
    """Blank photos: CalibrationError listing the corners found per photo."""
    blank = [np.full((600, 800, 3), 200, np.uint8)] * 3
    with pytest.raises(CalibrationError, match=r"corners found per photo: \[0, 0, 0\]"):
        calibrate_camera(blank, SPEC)


def test_board_image_size_and_ids():
    """The printable board is true to size and its markers use ids 10.. (never the table's 0-3)."""
    img = charuco_board_image(SPEC, px_per_mm=5.0, margin_mm=10.0)
    assert img.shape == (round((150 + 20) * 5), round((210 + 20) * 5))
    ids = np.asarray(SPEC.board().getIds()).ravel()
    assert ids.min() == 10 and len(ids) == 17


def test_lens_profile_json_round_trip_and_errors(tmp_path):
    """save/load round trip; scaling to another resolution; bad JSON and fields raise ValueError."""
    prof = LensProfile(
        K=np.array([[900.0, 0, 639.5], [0, 900.0, 479.5], [0, 0, 1]]),
        dist=np.array([-0.2, 0.05, 0, 0, 0]),
        image_size=(1280, 960),
        rms_px=0.3,
        n_views=9,
    )
    path = tmp_path / "lens.json"
    prof.save(str(path))
    back = LensProfile.load(str(path))
    np.testing.assert_allclose(back.K, prof.K)
    np.testing.assert_allclose(back.dist, prof.dist)
    assert back.image_size == (1280, 960)
    half = back.for_image_size((640, 480))
    np.testing.assert_allclose(half.K[0, 0], 450.0)
    np.testing.assert_allclose(half.K[:2, 2], (319.5, 239.5))
    with pytest.raises(CalibrationError, match="aspect"):
        back.for_image_size((1280, 720))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        LensProfile.load(str(tmp_path / "bad.json"))
    obj = prof.to_json()
    del obj["K"]
    (tmp_path / "missing.json").write_text(json.dumps(obj))
    with pytest.raises(ValueError, match="'K'"):
        LensProfile.load(str(tmp_path / "missing.json"))


def test_table_fit_uses_a_lens_profile():
    """A table photo (960x720, k1 -0.22, tilt 25): with the true lens as a profile the model is
    "+profile", the camera focal comes from the profile, and the play area maps within 0.4 mm."""
    from calibration.profile import CalibrationProfile

    layout = MarkerLayout()
    region = (-80.0, -80.0, 640.0, 500.0)
    tex = table_texture(layout, 2.0, region, table_rgb=(120, 100, 80))
    cam = look_at_camera((960, 720), 68, 680, 25, 10, (280, 210), k1=-0.22, k2=0.04)
    img = render_view(tex, 2.0, region, cam, ViewLook(noise_sigma=2.5), np.random.default_rng(3))
    prof = CalibrationProfile(
        layout=layout, lens=LensProfile(K=cam.K, dist=cam.dist, image_size=(960, 720), rms_px=0.2)
    )
    cal = calibrate_from_markers(img, profile=prof)
    assert cal.model.endswith("+profile")
    assert cal.camera.focal_source == "profile"
    gx, gy = np.meshgrid(np.arange(0.0, 561.0, 40.0), np.arange(0.0, 421.0, 40.0))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    err = np.linalg.norm(cal.px_to_mm(cam.project(np.column_stack([grid, np.zeros(len(grid))]))) - grid, axis=1)
    assert err.max() < 0.4


def test_calibration_profile_round_trip_and_bad_input(tmp_path):
    """Profile JSON round trip (layout, lens, colours, boards); a bare lens JSON loads; bad JSON, bad
    types and bad fields raise ValueError naming the problem."""
    from calibration.profile import CalibrationProfile

    lens = LensProfile(
        K=np.array([[900.0, 0, 639.5], [0, 900.0, 479.5], [0, 0, 1]]),
        dist=np.zeros(5),
        image_size=(1280, 960),
        rms_px=0.3,
    )
    layout = MarkerLayout(side_mm=40.0, centres_mm={0: (0.0, 0.0), 1: (500.0, 0.0), 2: (500.0, 400.0)})
    prof = CalibrationProfile(
        layout=layout,
        lens=lens,
        colours={"carrotain": {"red": (0.8, 0.1, 0.1)}},
        boards={"B1": np.array([[0.0, 0.0], [100.0, 0.0], [50.0, 80.0]])},
    )
    path = tmp_path / "p.json"
    prof.save(str(path))
    back = CalibrationProfile.load(str(path))
    assert back.layout == layout
    np.testing.assert_allclose(back.lens.K, lens.K)
    assert back.colours == {"carrotain": {"red": (0.8, 0.1, 0.1)}}
    np.testing.assert_allclose(back.boards["B1"], prof.boards["B1"])
    lens.save(str(tmp_path / "lens.json"))
    bare = CalibrationProfile.load(str(tmp_path / "lens.json"))
    assert bare.lens is not None and bare.layout == MarkerLayout()
    cases = {
        "{oops": "not JSON",
        "[1, 2]": "JSON object",
        json.dumps({"layout": {"side_mm": 50}}): "layout is missing",
        json.dumps({"layout": {**layout.to_json(), "dictionary": "DICT_NOPE"}}): "unknown ArUco dictionary",
        json.dumps({"colours": {"carrotain": {"red": [1, 2]}}}): r"colours\['carrotain'\]\['red'\]",
        json.dumps({"boards": {"B1": [[0, 0], [1, 1]]}}): r"boards\['B1'\]",
        json.dumps({"version": 7}): "unsupported version",
    }
    for text, msg in cases.items():
        (tmp_path / "bad.json").write_text(text)
        with pytest.raises(ValueError, match=msg):
            CalibrationProfile.load(str(tmp_path / "bad.json"))
