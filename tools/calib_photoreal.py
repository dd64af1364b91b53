"""Check the table calibration on the photoreal dev renders (Blender truth cameras).

Usage: python tools/calib_photoreal.py DIR [--grid-step MM]
  DIR holds images/<game>/*.jpg and truth/<game>/*.json (the photoreal dev set).

For each photo: the model chosen, corner RMS (mm) of the plain homography and of the final fit, the true
mapping error over the play area (a grid of table points projected with the truth camera, mapped back with
px_to_mm, compared in mm: mean / max), the same for points 5 mm above the table (px_to_mm_at_height), the
estimated camera height and tilt against the truth, and the colour reference.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from calibration import MarkerLayout, calibrate_from_markers  # noqa: E402
from calibration.markers import detect_markers  # noqa: E402
from calibration.planefit import rotated_corners  # noqa: E402
from calibration.table import fit_from_detections_plain  # noqa: E402


def truth_projector(render: dict):
    """Function (N, 3) table mm (z up) -> (N, 2) photo px, from the Blender camera in the truth JSON."""
    cam = render["camera"]
    w, h = cam["resolution"]
    Rcw = np.asarray(cam["rotation_matrix"], dtype=np.float64)
    C = np.asarray(cam["position_m"], dtype=np.float64)
    dist = render.get("distortion")
    f = (w / 2) / np.tan(np.radians(cam["hfov_deg"]) / 2)
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
    d = np.asarray(dist["dist_coeffs"], dtype=np.float64) if dist else np.zeros(5)
    if dist:
        K = np.asarray(dist["camera_matrix"], dtype=np.float64)

    def project(xyz_mm):
        p = np.asarray(xyz_mm, dtype=np.float64).reshape(-1, 3)
        world = np.column_stack([p[:, 0] / 1000, -p[:, 1] / 1000, p[:, 2] / 1000])
        cb = (world - C) @ Rcw  # camera (Blender axes)
        cv = np.column_stack([cb[:, 0], -cb[:, 1], -cb[:, 2]])
        out, _ = cv2.projectPoints(cv, np.zeros(3), np.zeros(3), K, d)
        return out.reshape(-1, 2)

    return project, K, d


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--grid-step", type=float, default=20.0)
    args = ap.parse_args()
    layout = MarkerLayout.from_components()
    gx, gy = np.meshgrid(np.arange(0, 561, args.grid_step), np.arange(0, 421, args.grid_step))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    print(
        f"{'photo':22s} {'zmk':4s} {'model':33s} {'H rms':>6s} {'rms':>5s} | {'H map':>11s} | {'map mean/max':>12s} | "
        f"{'z5 mean/max':>11s} | {'height est/true':>15s} {'tilt est/true':>13s} | ms"
    )
    for f in sorted(glob.glob(os.path.join(args.dir, "images", "*", "*.jpg"))):
        game = os.path.basename(os.path.dirname(f))
        truth = json.load(open(os.path.join(args.dir, "truth", game, os.path.basename(f)[:-4] + ".json")))
        render = truth["scene"]["render"]
        project, _, _ = truth_projector(render)
        img = cv2.cvtColor(cv2.imread(f), cv2.COLOR_BGR2RGB)
        t0 = time.perf_counter()
        cal = calibrate_from_markers(img, layout)
        ms = (time.perf_counter() - t0) * 1000
        det = detect_markers(img, layout)
        plain = fit_from_detections_plain(det, layout, (img.shape[1], img.shape[0]))
        # the plane the markers lie on (Carrotain: on the mat, ~1.5 mm up): best z for the true corners
        nominal = np.array([layout.corners_mm(int(i)) for i in det.ids])
        obj = rotated_corners(nominal, np.radians(np.asarray(render.get("marker_rot_deg", [0] * 4))[det.ids]))
        zs = np.arange(0.0, 4.01, 0.25)
        res = [
            np.mean(
                np.linalg.norm(
                    project(np.column_stack([obj.reshape(-1, 2), np.full(obj.size // 2, z)]))
                    - det.corners_px.reshape(-1, 2),
                    axis=1,
                )
            )
            for z in zs
        ]
        zm = float(zs[int(np.argmin(res))])
        px0 = project(np.column_stack([grid, np.full(len(grid), zm)]))
        e_plain = np.linalg.norm(plain.px_to_mm(px0) - grid, axis=1)
        e = np.linalg.norm(cal.px_to_mm(px0) - grid, axis=1)
        px5 = project(np.column_stack([grid, np.full(len(grid), zm + 5.0)]))
        e5 = np.linalg.norm(cal.px_to_mm_at_height(px5, 5.0) - grid, axis=1)
        cam = cal.camera
        th, tt = render["camera"]["height_mm"], render["camera"]["tilt_deg"]
        eh = f"{cam.height_mm:6.0f}/{th:4.0f}" if cam else "   -"
        et = f"{cam.tilt_deg:5.1f}/{tt:4.1f}" if cam else "   -"
        print(
            f"{os.path.basename(f)[:-4]:22s} {zm:4.2f} {cal.model:33s} {plain.reprojection_error_mm:6.2f} "
            f"{cal.reprojection_error_mm:5.2f} | {e_plain.mean():4.2f}/{e_plain.max():5.2f} | "
            f"{e.mean():4.2f}/{e.max():5.2f}   | {e5.mean():4.2f}/{e5.max():5.2f} | {eh:>15s} {et:>13s} | {ms:4.1f}"
        )


if __name__ == "__main__":
    main()
