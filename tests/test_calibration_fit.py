"""Table plane fit, lens model and camera pose on synthetic views with a known camera.

Views come from synth.synthview: the default marker layout (50 mm markers at the corners of a
560 x 420 mm rectangle, 10 mm white quiet zone) on a plain table, 960x720 px, hfov 66-70 degrees,
camera 60-75 cm above the table, tilt 0-35 degrees, Gaussian noise sigma 2-3, blur 0.6 px.
"""

import numpy as np
import pytest

from calibration import CalibrationError, MarkerLayout, TableCalibration, calibrate_from_markers
from calibration.markers import detect_markers
from calibration.table import fit_from_detections_plain
from synth.synthview import ViewLook, look_at_camera, render_view, table_texture

LAYOUT = MarkerLayout()
REGION = (-80.0, -80.0, 640.0, 500.0)
PPM = 2.0
SIZE = (960, 720)
GX, GY = np.meshgrid(np.arange(0.0, 561.0, 35.0), np.arange(0.0, 421.0, 35.0))
GRID = np.column_stack([GX.ravel(), GY.ravel()])


def _texture(rot=None):
    return table_texture(LAYOUT, PPM, REGION, table_rgb=(120, 100, 80), marker_rot_deg=rot)


@pytest.fixture(scope="module")
def texture():
    return _texture()


def _view(texture, seed, tilt, k1=0.0, k2=0.0, yaw=10.0, height=680.0, hfov=68.0):
    cam = look_at_camera(SIZE, hfov, height, tilt, yaw, (280, 210), k1=k1, k2=k2)
    img = render_view(texture, PPM, REGION, cam, ViewLook(noise_sigma=2.5), np.random.default_rng(seed))
    return cam, img


def _map_error_mm(cal: TableCalibration, cam, z_mm: float = 0.0) -> np.ndarray:
    px = cam.project(np.column_stack([GRID, np.full(len(GRID), z_mm)]))
    got = cal.px_to_mm(px) if z_mm == 0 else cal.px_to_mm_at_height(px, z_mm)
    return np.linalg.norm(got - GRID, axis=1)


@pytest.mark.parametrize("seed, tilt, k1", [(1, 30.0, -0.22), (2, 20.0, -0.18), (3, 10.0, -0.26)])
def test_radial_fit_brings_distorted_views_under_half_a_mm(texture, seed, tilt, k1):
    """Barrel distortion k1 -0.18..-0.26 (k2 = 0.04), tilt 10-30 deg: the plain homography misses the
    play area by > 1.5 mm somewhere; the fitted model picks a radial term and stays < 0.5 mm everywhere."""
    cam, img = _view(texture, seed, tilt, k1=k1, k2=0.04)
    det = detect_markers(img, LAYOUT)
    plain = fit_from_detections_plain(det, LAYOUT, SIZE)
    assert _map_error_mm(plain, cam).max() > 1.5
    cal = calibrate_from_markers(img, LAYOUT)
    assert "k1" in cal.model
    err = _map_error_mm(cal, cam)
    assert err.max() < 0.5, (cal.model, err.max())
    assert cal.reprojection_error_mm < 0.3


@pytest.mark.parametrize("seed, tilt", [(4, 0.0), (5, 18.0), (6, 35.0)])
def test_undistorted_views_keep_the_plain_lens_free_model(texture, seed, tilt):
    """No distortion, tilt 0-35 deg: no radial term is chosen and the play area maps within 0.5 mm."""
    cam, img = _view(texture, seed, tilt)
    cal = calibrate_from_markers(img, LAYOUT)
    assert cal.lens is None, cal.model
    assert _map_error_mm(cal, cam).max() < 0.5


def test_rotated_markers_are_fitted():
    """Markers laid 0.5-1.2 deg off square (hand-placed), tilt 25 deg, no distortion: fitted rotations
    within 0.6 deg (corner noise ~0.3 px at ~1.2 px/mm), mapping < 0.5 mm, corner RMS well below the
    plain homography's."""
    rot = {0: 1.0, 1: -0.8, 2: 0.5, 3: -1.2}
    cam, img = _view(_texture(rot), 7, 25.0)
    cal = calibrate_from_markers(img, LAYOUT)
    for i, a in rot.items():
        assert abs(cal.marker_rot_deg[i] - a) < 0.6, cal.marker_rot_deg
    plain = fit_from_detections_plain(detect_markers(img, LAYOUT), LAYOUT, SIZE)
    assert _map_error_mm(cal, cam).max() < 0.5
    assert cal.reprojection_error_mm < 0.6 * plain.reprojection_error_mm


@pytest.mark.parametrize("seed, tilt, k1", [(8, 30.0, 0.0), (9, 25.0, -0.2)])
def test_pose_maps_points_5mm_above_the_table(texture, seed, tilt, k1):
    """Tilt 25-30 deg, with and without distortion: a point 5 mm above the table (a chip stack) maps back
    within 1 mm (the z = 0 mapping misses it by > 1.5 mm); height within 5 %, tilt within 1.5 deg."""
    cam, img = _view(texture, seed, tilt, k1=k1)
    cal = calibrate_from_markers(img, LAYOUT)
    assert cal.camera is not None
    assert _map_error_mm(cal, cam, 5.0).max() < 1.0
    px5 = cam.project(np.column_stack([GRID, np.full(len(GRID), 5.0)]))
    assert np.linalg.norm(cal.px_to_mm(px5) - GRID, axis=1).max() > 1.5
    true_centre = -cam.R.T @ cam.t
    assert abs(cal.camera.height_mm - (-true_centre[2])) < 0.05 * -true_centre[2]
    assert abs(cal.camera.tilt_deg - tilt) < 1.5
    # forward and back at a height agree, and z = 0 is the table mapping
    px = cal.mm_to_px_at_height(GRID, 5.0)
    np.testing.assert_allclose(cal.px_to_mm_at_height(px, 5.0), GRID, atol=0.02)
    np.testing.assert_allclose(cal.mm_to_px_at_height(GRID, 0.0), cal.mm_to_px(GRID))


def test_round_trips_json_and_rectify(texture):
    """Distorted view (k1 -0.22, tilt 25): px <-> mm round trip, JSON round trip, and the rectified
    top-down view shows marker 2 where the layout puts it (within 1 mm)."""
    cam, img = _view(texture, 10, 25.0, k1=-0.22)
    cal = calibrate_from_markers(img, LAYOUT)
    assert cal.lens is not None
    np.testing.assert_allclose(cal.px_to_mm(cal.mm_to_px(GRID)), GRID, atol=1e-3)
    back = TableCalibration.from_json(cal.to_json())
    np.testing.assert_allclose(back.mm_to_px(GRID), cal.mm_to_px(GRID), atol=1e-6)
    np.testing.assert_allclose(back.mm_to_px_at_height(GRID, 3.0), cal.mm_to_px_at_height(GRID, 3.0), atol=1e-6)
    mm_per_px = 0.5
    top = cal.rectify(img, mm_per_px, (480.0, 340.0, 640.0, 500.0))
    assert top.shape == (320, 320, 3)
    det = detect_markers(top, LAYOUT)
    assert 2 in det.ids
    centre_px = det.corners_px[list(det.ids).index(2)].mean(axis=0)
    np.testing.assert_allclose(centre_px * mm_per_px + (480.0, 340.0), (560.0, 420.0), atol=1.0)


def test_no_markers_says_what_was_seen():
    """A blank table photo: CalibrationError naming how many markers and which ids were seen."""
    img = np.full((480, 640, 3), 140, np.uint8)
    img[100:200, 100:200] = 20  # a dark square that decodes to nothing
    with pytest.raises(CalibrationError) as exc:
        calibrate_from_markers(img, LAYOUT)
    msg = str(exc.value)
    assert "found 0 of the 4 calibration markers" in msg
    assert "ids seen: none" in msg
    assert "marker-like squares" in msg


def test_foreign_markers_and_a_single_marker_are_named():
    """A photo of the ChArUco board (ids 10..) plus one table marker: the error names the table id seen,
    the foreign ids, and the minimum needed."""
    import cv2

    from calibration.lens import charuco_board_image

    board = charuco_board_image(px_per_mm=3.0)
    img = np.full((700, 1000), 200, np.uint8)
    img[20 : 20 + board.shape[0], 20 : 20 + board.shape[1]] = board
    marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), 2, 120)
    img[540:660, 800:920] = marker
    with pytest.raises(CalibrationError) as exc:
        calibrate_from_markers(cv2.cvtColor(img, cv2.COLOR_GRAY2RGB), LAYOUT)
    msg = str(exc.value)
    assert "found 1 of the 4" in msg and "ids seen: 2" in msg
    assert "also saw ids 10, 11" in msg
    assert "need at least 3" in msg


def test_missing_marker_is_warned(texture):
    """Marker 1 covered (tilt 20 deg, no distortion): calibration still succeeds with 3 markers and says
    which one is missing; a full view has no marker warnings (its white is clipped: 255)."""
    cam, img = _view(texture, 12, 20.0)
    assert not [w for w in calibrate_from_markers(img, LAYOUT).warnings if "marker" in w]
    c = cam.project(np.array([[560.0, 0.0, 0.0]]))[0].astype(int)
    covered = img.copy()
    covered[c[1] - 60 : c[1] + 60, c[0] - 60 : c[0] + 60] = (120, 100, 80)
    cal = calibrate_from_markers(covered, LAYOUT)
    assert cal.marker_ids == (0, 2, 3)
    assert any("missing 1" in w for w in cal.warnings), cal.warnings
    assert "missing 1" in cal.describe()
