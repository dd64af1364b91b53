"""The synthetic photo renderer: determinism, exact projection truth, hard conditions, truth files."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest
from shapely.geometry import Polygon

from calibration.markers import MarkerLayout, detect_markers
from synth.camera import CameraTruth, distort_normalised, distortion_maps, intrinsics, look_at_pose
from synth.layers import Layer
from synth.photo import PhotoConditions, SynthPhoto, render_photo, sample_conditions
from synth.roundtrip import dots_layer
from synth.truthio import write_photo

LAYOUT = MarkerLayout.from_components()


def _photo(seed: int, layers=(), **kw) -> SynthPhoto:
    rng = np.random.default_rng(seed)
    cond = sample_conditions(rng, **kw)
    return render_photo(list(layers), cond, rng)


def _chip_layer(xy_mm, z_mm=2.0, rgb=(0.8, 0.1, 0.1), material="matte") -> Layer:
    tex = np.zeros((96, 96, 4), np.float32)
    cv2.circle(tex, (48, 48), 44, (*rgb, 1.0), -1, cv2.LINE_AA)
    return Layer(tex, (xy_mm[0] - 12.0, xy_mm[1] - 12.0), 0.25, z_mm, material, True, "chip")


def test_same_seed_same_bytes_and_different_seed_differs():
    """Determinism: sample_conditions + render_photo from the same seed give identical bytes
    (normal and hard conditions, with a raised acrylic layer); another seed differs."""
    acr = np.zeros((200, 300, 4), np.float32)
    acr[..., :3] = 0.9
    acr[10:190, 10:290, 3] = 1.0
    layers = [_chip_layer((200, 200)), Layer(acr, (150, 150), 0.5, 5.0, "acrylic", True, "board")]
    for hard in (False, True):
        a = _photo(7, layers, hard=hard)
        b = _photo(7, layers, hard=hard)
        assert a.image_rgb.tobytes() == b.image_rgb.tobytes()
        assert a.jpeg_bytes == b.jpeg_bytes
        assert a.conditions == b.conditions
    c = _photo(8, layers)
    assert c.image_rgb.tobytes() != a.image_rgb.tobytes()


def test_camera_projection_matches_opencv():
    """CameraTruth.project agrees with cv2.projectPoints (independent implementation of the same
    OpenCV model) using the proper-rotation pose for the (x, y, -z) object frame, at any tilt/yaw and
    with strong barrel distortion; points above the table (z up) move as expected."""
    R, t = look_at_pose((280.0, 210.0), 650.0, 33.0, 127.0, 2.0)
    K = intrinsics((1280, 960), 70.0)
    cam = CameraTruth(K, np.array([-0.24, 0.05, 0.0, 0.0, 0.0]), R, t, (1280, 960))
    assert np.isclose(np.linalg.det(R), -1.0)
    pts = np.array([[0.0, 0.0, 0.0], [560.0, 420.0, 0.0], [100.0, 300.0, 25.0], [280.0, 210.0, 80.0]])
    rvec, tvec = cam.rvec_tvec_cv()
    ref, _ = cv2.projectPoints(pts * [1, 1, -1], rvec, tvec, K, cam.dist)
    assert np.allclose(cam.project(pts), ref.reshape(-1, 2), atol=1e-6)
    # The camera is 650 mm above the table: its centre's z is +650 in the z-up frame.
    assert np.isclose(cam.centre_mm[2], 650.0)


def test_distortion_maps_invert_the_lens():
    """The remap tables send every photo pixel to the canvas point whose distortion is that pixel
    (< 0.05 px everywhere, hard barrel lens k1 = -0.26, k2 = 0.06, hfov 75)."""
    K = intrinsics((1280, 960), 75.0)
    dist = np.array([-0.26, 0.06, 0.0, 0.0, 0.0])
    maps = distortion_maps(K, dist, (1280, 960))
    v, u = np.mgrid[0:960:7, 0:1280:7]
    canvas = np.column_stack([maps.map_x[v, u].ravel(), maps.map_y[v, u].ravel()]).astype(np.float64)
    xy = (canvas - maps.K_canvas[:2, 2]) / K[0, 0]
    back = distort_normalised(xy, dist) * K[0, 0] + K[:2, 2]
    assert np.abs(back - np.column_stack([u.ravel(), v.ravel()])).max() < 0.05


@pytest.mark.parametrize("hard_kinds", [(), ("distort",)])
def test_projection_agrees_with_rendered_dots(hard_kinds):
    """A bright dot drawn at known table positions (z = 0.05 and on a sheet 30 mm up) appears where
    ``photo.project`` says (centroid within 1 px). Conditions: 4 seeds each, tilt 0-40, any yaw,
    normal lens or hard barrel lens, dark table, normal light/noise/blur/JPEG."""
    errs = []
    for seed in range(4):
        rng = np.random.default_rng(100 + seed)
        cond = sample_conditions(rng, table="dark", hard_kinds=hard_kinds or None)
        cond = dataclasses.replace(cond, specular_strength=0.0)
        pts = np.array([[80.0 + 100 * i, 60.0 + 75 * j] for i in range(5) for j in range(5)])
        low = dots_layer(pts, radius_mm=2.0)
        high = dataclasses.replace(dots_layer(pts + [50.0, 37.0], radius_mm=2.0), z_mm=30.0)
        photo = render_photo([low, high], cond, rng)
        grey = cv2.cvtColor(photo.image_rgb, cv2.COLOR_RGB2GRAY).astype(np.float64)
        for z, p in ((low.z_mm, pts), (30.0, pts + [50.0, 37.0])):
            uv = photo.project(np.column_stack([p, np.full(len(p), z)]))
            for u, v in uv:
                r = 9
                u0, v0 = int(round(u)), int(round(v))
                win = grey[v0 - r:v0 + r + 1, u0 - r:u0 + r + 1]
                wgt = np.clip(win - np.median(win) - 20.0, 0, None)
                if wgt.sum() <= 0:
                    continue
                yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
                cu = u0 + (wgt * xx).sum() / wgt.sum()
                cv_ = v0 + (wgt * yy).sum() / wgt.sum()
                errs.append(np.hypot(cu - u, cv_ - v))
    errs = np.array(errs)
    assert len(errs) > 150
    assert np.median(errs) < 0.35
    assert np.percentile(errs, 95) < 1.0


def test_marker_corners_where_projected():
    """ArUco finds (nearly) all markers, and their detected corners lie where the truth projects them
    (median < 0.8 px, p95 < 1.5 px). Conditions: 6 seeds, normal sampler (tilt 0-40, 40-90 cm,
    fov 55-78, every table kind, light, noise, blur, JPEG 70-95), markers rotated <= 1 degree."""
    errs = []
    found = 0
    for seed in range(6):
        photo = _photo(200 + seed)
        det = detect_markers(photo.image_rgb, LAYOUT)
        assert len(det.ids) >= 3  # a far marker 90 cm away at 40 degrees may be too small for ArUco
        found += len(det.ids)
        for i, c in zip(det.ids, det.corners_px):
            errs.extend(np.linalg.norm(c - photo.marker_corners_px[int(i)], axis=1))
    assert found >= 22
    assert np.median(errs) < 0.8
    assert np.percentile(errs, 95) < 1.5


def test_markers_always_in_frame_and_rotations_recorded():
    """Every sampled camera keeps each marker's paper inside the photo (20 seeds, normal and hard),
    and the truth corners carry the sampled rotation (<= 1 degree)."""
    for seed in range(20):
        rng = np.random.default_rng(seed)
        cond = sample_conditions(rng, hard=seed % 2 == 1)
        cam = cond.camera()
        w, h = cond.image_size
        for i in LAYOUT.centres_mm:
            c = LAYOUT.corners_mm(i)
            px = cam.project(np.column_stack([c, np.zeros(4)]))
            assert np.all((px >= 0) & (px < [w, h]))
        assert all(abs(r) <= 1.0 for r in cond.marker_rot_deg)
    photo = _photo(3)
    c = photo.marker_corners_mm[0]
    ang = np.degrees(np.arctan2(c[1, 1] - c[0, 1], c[1, 0] - c[0, 0]))
    assert np.isclose(ang, photo.conditions.marker_rot_deg[0], atol=1e-9)


def test_hard_conditions_bring_hand_and_barrel_lens():
    """hard_kinds=("distort", "hand"): barrel k1 in [-0.26, -0.18], a skin-coloured hand in view that
    hides no marker (all four still detected), and its shadow/skin visible where projected (5 seeds).
    Random ``hard=True`` draws two or three troubles."""
    for seed in range(5):
        rng = np.random.default_rng(300 + seed)
        cond = sample_conditions(rng, hard_kinds=("distort", "hand"))
        assert cond.hard and -0.26 <= cond.k1 <= -0.18 and cond.hand is not None
        photo = render_photo([], cond, rng)
        palm = photo.project(np.array([[*cond.hand.palm_xy_mm, cond.hand.z_mm]]))[0]
        u, v = np.round(palm).astype(int)
        patch = photo.image_rgb[v - 3:v + 4, u - 3:u + 4].reshape(-1, 3).astype(float).mean(axis=0)
        assert patch[0] > patch[2]  # skin: more red than blue, whatever the light
        # The truth says which table points the hand hides: the point under the palm (seen along the
        # camera ray) is hidden, the markers' centres are not.
        c = photo.camera.centre_mm
        palm = np.array([*cond.hand.palm_xy_mm, cond.hand.z_mm])
        under = c + (palm - c) * (c[2] / (c[2] - cond.hand.z_mm))
        assert photo.occluded(np.array([[under[0], under[1], 0.0]]))[0]
        assert not photo.occluded(np.array([[*LAYOUT.centres_mm[i], 0.0] for i in LAYOUT.centres_mm])).any()
        det = detect_markers(photo.image_rgb, LAYOUT)
        assert len(det.ids) == 4
    kinds = [sample_conditions(np.random.default_rng(s), hard=True).hard_kinds for s in range(10)]
    assert all(1 <= len(k) <= 3 for k in kinds)


def test_acrylic_dims_below_and_lights_its_edges():
    """A clear acrylic sheet (faint white haze, alpha 0.15) over a white card: inside is dimmer than
    the bare card, its outline has a bright edge highlight, which an opaque sheet lying above hides.
    Top-down camera, no glint, no noise."""
    card = np.ones((400, 400, 4), np.float32) * np.array([0.85, 0.85, 0.85, 1.0], np.float32)
    acr = np.zeros((200, 200, 4), np.float32)
    acr[..., :3] = 1.0
    acr[..., 3] = 0.15  # a faint haze: the sheet itself is clear
    layers = [Layer(card, (180, 110), 0.5, 0.3, "matte", False, "card"),
              Layer(acr, (230, 160), 0.5, 5.0, "acrylic", False, "sheet")]
    rng = np.random.default_rng(1)
    cond = dataclasses.replace(sample_conditions(rng, tilt_deg=(0.0, 0.1), table="dark"), specular_strength=0.0,
                               read_noise=0.0, shot_noise=0.0, k1=0.0, uneven_amplitude=0.0, vignette=0.0,
                               acrylic_edge_gain=0.5, acrylic_dim=0.8)
    photo = render_photo(layers, cond, rng)
    g = cv2.cvtColor(photo.image_rgb, cv2.COLOR_RGB2GRAY).astype(float)

    def at(x, y):
        u, v = np.round(photo.project(np.array([[x, y, 0.0]]))[0]).astype(int)
        return g[v - 2:v + 3, u - 2:u + 3].mean()

    inside = at(280, 210)
    outside = np.mean([at(205, 210), at(355, 210), at(280, 135), at(280, 285)])  # symmetric: fall-off cancels
    assert inside < outside - 5
    edge_pts = np.array([[230.0 + k, 160.0, 5.0] for k in range(20, 180, 20)])
    edge = max(g[int(v) - 1:int(v) + 2, int(u) - 1:int(u) + 2].max() for u, v in photo.project(edge_pts))
    assert edge > inside + 10
    # A grey sheet lying above the acrylic's edge hides the highlight.
    cover = np.ones((40, 240, 4), np.float32) * np.array([0.4, 0.4, 0.4, 1.0], np.float32)
    covered = render_photo(layers + [Layer(cover, (220, 150), 1.0, 8.0, "matte", False, "cover")], cond,
                           np.random.default_rng(1))
    g2 = cv2.cvtColor(covered.image_rgb, cv2.COLOR_RGB2GRAY).astype(float)
    hidden = max(g2[int(v) - 1:int(v) + 2, int(u) - 1:int(u) + 2].max()
                 for u, v in covered.project(edge_pts * [1, 1, 0] + [0, 0, 8.0]))
    u, v = np.round(covered.project(np.array([[340.0, 182.0, 8.0]]))[0]).astype(int)
    assert hidden < g2[v - 1:v + 2, u - 1:u + 2].max() + 15


def test_conditions_json_round_trip_and_truth_file(tmp_path):
    """PhotoConditions survive to_json/from_json (hand included); write_photo writes the renderer's
    own JPEG bytes (decoding to the same pixels) and JSON-safe truth."""
    rng = np.random.default_rng(11)
    cond = sample_conditions(rng, hard_kinds=("hand", "cast"))
    obj = json.loads(json.dumps(cond.to_json()))
    assert PhotoConditions.from_json(obj) == cond
    photo = render_photo([], cond, rng)
    truth = photo.truth_json() | {"nan": float("nan"), "arr": np.arange(3), "f32": np.float32(1.5)}
    img_path = write_photo(tmp_path, "x", photo.image_rgb, truth, jpeg_bytes=photo.jpeg_bytes)
    back = cv2.cvtColor(cv2.imread(str(img_path)), cv2.COLOR_BGR2RGB)
    assert np.array_equal(back, photo.image_rgb)
    saved = json.loads((tmp_path / "x.json").read_text())
    assert saved["nan"] is None and saved["arr"] == [0, 1, 2] and saved["f32"] == 1.5
    assert CameraTruth.from_json(saved["camera"]).project(np.zeros((1, 3))).shape == (1, 2)


def test_render_runs_for_every_table_kind():
    """Speed sanity (not a timing test): each table kind renders a 1280x960 uint8 RGB photo; the
    scene's red chip shows up red-dominant where projected."""
    for k, kind in enumerate(("wood", "laminate", "cloth", "white", "dark", "patterned")):
        photo = _photo(400 + k, [_chip_layer((280.0, 210.0))], table=kind)
        assert photo.image_rgb.shape == (960, 1280, 3) and photo.image_rgb.dtype == np.uint8
        u, v = np.round(photo.project(np.array([[280.0, 210.0, 2.0]]))[0]).astype(int)
        r, g, b = photo.image_rgb[v - 2:v + 3, u - 2:u + 3].reshape(-1, 3).astype(float).mean(axis=0)
        assert r > g + 20 and r > b + 20


def test_markers_lie_on_a_mat_and_clutter_spares_them():
    """A mat (z 0.5) reaching under markers 0 and 1 lifts them onto it (truth z 0.6; they stay
    visible and detected); clutter sampled over 15 seeds never overlaps a marker's image and its
    specs survive JSON."""
    from synth.photo import RenderConfig, marker_heights

    mat = np.zeros((100, 700, 4), np.float32)
    mat[..., :3] = (0.1, 0.15, 0.4)
    mat[..., 3] = 1.0
    mat_layer = Layer(mat, (-50.0, -50.0), 1.0, 0.5, "matte", False, "mat")  # covers y -50..50
    z = marker_heights([mat_layer], LAYOUT, RenderConfig())
    assert z[0] == pytest.approx(0.6) and z[1] == pytest.approx(0.6) and z[2] == pytest.approx(0.1)
    photo = _photo(21, [mat_layer], tilt_deg=(0.0, 20.0))
    assert photo.marker_z_mm[0] == pytest.approx(0.6)
    det = detect_markers(photo.image_rgb, LAYOUT)
    assert {0, 1} <= set(det.ids.tolist())
    n_items = 0
    for seed in range(15):
        cond = sample_conditions(np.random.default_rng(seed))
        cam = cond.camera()
        for item in cond.clutter:
            n_items += 1
            sil = item.silhouette_px(cam.project_undistorted)
            for i in LAYOUT.centres_mm:
                quad = cam.project_undistorted(np.column_stack([LAYOUT.corners_mm(i), np.zeros(4)]))
                assert not sil.intersects(Polygon(quad))
        assert PhotoConditions.from_json(json.loads(json.dumps(cond.to_json()))) == cond
    assert n_items > 5
