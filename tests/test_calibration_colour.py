"""Colour reference measured on the markers (synthetic views, synth.synthview)."""

import numpy as np
import pytest

from calibration import MarkerLayout, calibrate_from_markers
from calibration.colour import ColourReference
from synth.synthview import ViewLook, look_at_camera, render_view, table_texture

LAYOUT = MarkerLayout()
REGION = (-80.0, -80.0, 640.0, 500.0)
PPM = 2.0
GREY = (120, 120, 120)
PATCH = (250.0, 180.0, 310.0, 240.0)


@pytest.fixture(scope="module")
def texture():
    return table_texture(LAYOUT, PPM, REGION, table_rgb=(150, 110, 80), patches=((PATCH, GREY),))


@pytest.mark.parametrize(
    "gain, black, noise",
    [
        ((0.95, 0.75, 0.40), (12, 8, 4), 6.0),  # strong warm cast, haze, noisy
        ((0.35, 0.50, 0.85), (3, 4, 8), 8.0),  # strong cool cast, dim, noisy
        ((0.34, 0.26, 0.18), (2, 2, 2), 4.0),  # very dim, warm
    ],
)
def test_grey_patch_normalises_to_grey(texture, gain, black, noise):
    """Camera 70 cm, tilt 25 deg, k1 = -0.1; warm / cool / dim light with noise: the grey patch's
    normalised channels agree within 0.06 and its level is within 0.08 of 120/255, whereas the raw
    channels differ by more than 20 %."""
    cam = look_at_camera((960, 720), 66, 700, 25, 15, (280, 210), k1=-0.1)
    look = ViewLook(gain_rgb=gain, black_rgb=black, noise_sigma=noise)
    img = render_view(texture, PPM, REGION, cam, look, np.random.default_rng(3))
    cal = calibrate_from_markers(img, LAYOUT)
    ref = cal.colour
    assert ref is not None and ref.n_samples > 400
    assert ref.is_reliable()
    xs, ys = np.meshgrid(np.linspace(PATCH[0] + 10, PATCH[2] - 10, 9), np.linspace(PATCH[1] + 10, PATCH[3] - 10, 9))
    pts = np.column_stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)])
    px = np.rint(cam.project(pts)).astype(int)
    raw = img[px[:, 1], px[:, 0]].astype(float).mean(axis=0)
    assert np.ptp(raw) / raw.max() > 0.2
    norm = ref.normalise(raw)
    assert norm.dtype == np.float32
    assert np.ptp(norm) < 0.06, norm
    assert abs(norm.mean() - GREY[0] / 255) < 0.08, norm
    # the local (interpolated) reference agrees under uniform light, also after a JSON round trip
    local = ref.normalise_at(raw[None], px.mean(axis=0)[None])[0]
    assert np.ptp(local) < 0.06
    back = ColourReference.from_json(ref.to_json())
    np.testing.assert_allclose(back.normalise_at(raw[None], px.mean(axis=0)[None])[0], local, atol=1e-5)


def test_normalise_maps_black_and_white_and_round_trips():
    """Pure arithmetic: white -> 1, black -> 0, any shape (..., 3), denormalise inverts."""
    ref = ColourReference(white_rgb=np.array([200.0, 150.0, 100.0]), black_rgb=np.array([20.0, 10.0, 5.0]), n_samples=1)
    out = ref.normalise(np.array([[[200, 150, 100], [20, 10, 5]]], dtype=np.uint8))
    assert out.shape == (1, 2, 3)
    np.testing.assert_allclose(out[0, 0], 1.0, atol=1e-6)
    np.testing.assert_allclose(out[0, 1], 0.0, atol=1e-6)
    x = np.array([0.3, 0.5, 0.9])
    np.testing.assert_allclose(ref.normalise(ref.denormalise(x)), x, atol=1e-5)
    back = ColourReference.from_json(ref.to_json())
    np.testing.assert_allclose(back.white_rgb, ref.white_rgb)


def test_local_reference_follows_light_falloff():
    """Per-marker whites that rise left to right: the local white in between is interpolated."""
    ref = ColourReference(
        white_rgb=np.array([150.0] * 3),
        black_rgb=np.array([5.0] * 3),
        n_samples=4,
        per_marker_white_rgb=np.array([[100.0] * 3, [200.0] * 3, [200.0] * 3, [100.0] * 3]),
        per_marker_black_rgb=np.array([[5.0] * 3] * 4),
        per_marker_xy_px=np.array([[0.0, 0.0], [1000.0, 0.0], [1000.0, 800.0], [0.0, 800.0]]),
    )
    white, _ = ref.local_reference(np.array([[500.0, 400.0], [0.0, 400.0], [5000.0, 400.0]]))
    np.testing.assert_allclose(white[:, 0], [150.0, 100.0, 200.0], atol=1e-6)


def test_warnings_for_clipped_white_and_low_contrast():
    """A white clipped in blue and a washed-out reference each carry a warning; a sound one none."""
    ok = ColourReference(white_rgb=np.array([200.0, 190.0, 180.0]), black_rgb=np.array([10.0] * 3), n_samples=1)
    assert ok.warnings() == ()
    clipped = ColourReference(white_rgb=np.array([120.0, 180.0, 255.0]), black_rgb=np.array([5.0] * 3), n_samples=1)
    assert any("clipped in B" in w for w in clipped.warnings())
    flat = ColourReference(white_rgb=np.array([60.0] * 3), black_rgb=np.array([45.0] * 3), n_samples=1)
    assert not flat.is_reliable()
    assert any("too little contrast" in w for w in flat.warnings())
