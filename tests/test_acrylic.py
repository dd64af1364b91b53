"""Board matcher on seeded synthetic renders (fallback/synth renderer)."""

import numpy as np
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


def test_challenge_boards_found_with_their_pose():
    """Renders of seeds 0-5: tilt 0-30 deg, two challenge boards laid over chips (sometimes a third
    elsewhere), acrylic dimming 8-30 % with a dark cut edge and white print. At least 80 % of the
    challenge boards are found with the right id, mean outline error <= 1.5 mm and role "challenge";
    no board found anywhere is off by more than 3 pose sigmas + 0.5 mm (honest uncertainty)."""
    n = good = 0
    for seed in range(6):
        img, scene, _ = render_scene(seed)
        st = recognise(img, calibrate_from_markers(img))
        truth = {b["id"]: Polygon(b["outline_mm"]) for b in scene["boards"]}
        for f in st.boards:
            assert f.id in truth, f"seed {seed}: board {f.id} found where there is none"
            e = float(distance(truth[f.id].exterior, points(f.outline_mm)).mean())
            assert e <= 3 * f.pose_sigma_mm + 0.5, f"seed {seed}: board {f.id} off by {e:.2f} mm"
        for b in scene["boards"]:
            if b["role"] != "challenge":
                continue
            n += 1
            m = [f for f in st.boards if f.id == b["id"]]
            if m and m[0].role == "challenge":
                good += float(distance(truth[b["id"]].exterior, points(m[0].outline_mm)).mean()) <= 1.5
    assert good >= 0.8 * n
