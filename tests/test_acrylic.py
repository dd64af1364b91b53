"""Board matcher on seeded synthetic renders (fallback/synth renderer)."""

import numpy as np
import pytest
from shapely import distance, points
from shapely.geometry import Polygon

from calibration.table import calibrate_from_markers
from synth.carrotain import board_outline_mm, render_scene
from vision.acrylic import _resample
from vision.carrotain import recognise


def test_resample_normals_point_outwards():
    """Outward normals of a board outline: a point pushed out along them leaves the polygon."""
    out = board_outline_mm("A", (100, 100), 30.0, True)
    pts, nrm = _resample(out, 4.0)
    poly = Polygon(out)
    outside = [not poly.contains(Polygon([(x, y) for x, y in [p + 2 * n + e for e in ((0, 0), (0.01, 0), (0, 0.01))]]))
               for p, n in zip(pts, nrm)]
    assert np.mean(outside) > 0.95


@pytest.mark.parametrize("seed", [0, 1])
def test_challenge_boards_found_with_their_pose(seed):
    """Renders: tilt 0-30 deg, two challenge boards laid over chips, fallback acrylic look (dims the mat,
    edge highlight, white print). Both challenge boards found with the right id and mirror, mean outline
    error <= 1.5 mm, and that error within 3 pose sigmas."""
    img, scene, _ = render_scene(seed)
    st = recognise(img, calibrate_from_markers(img))
    for b in scene["boards"]:
        if b["role"] != "challenge":
            continue
        m = [f for f in st.boards if f.id == b["id"]]
        assert m, f"board {b['id']} not found"
        e = float(distance(Polygon(b["outline_mm"]).exterior, points(m[0].outline_mm)).mean())
        assert e <= 1.5
        assert e <= 3 * m[0].pose_sigma_mm
        assert m[0].role == "challenge"
