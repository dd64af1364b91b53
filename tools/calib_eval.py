"""Accuracy and speed of the table calibration over many synthetic photos (synth.photo renderer).

Usage: python tools/calib_eval.py [--n 200] [--hard-every 3] [--seed0 0]

Each photo: an empty table with the four markers (per-marker rotation up to 1 degree) and a neutral grey
card (sRGB 0.5) in the middle, rendered by ``synth.photo`` under sampled conditions (camera 40-90 cm,
tilt 0-40 degrees, fov 55-78, mild lens k1 -0.06..0.02; every ``--hard-every``-th photo hard: strong barrel
distortion, hand, dim casts, white table). Printed: calibration success, the true mapping error over the
play area (grid of table points projected with the true camera and mapped back; z = 0 and z = 5 mm),
the plain homography's error for comparison, the lens model chosen, the pose (height, tilt) error, the
grey card's chroma after normalisation (raw chroma for comparison), and detection + fit time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from calibration import CalibrationError, MarkerLayout  # noqa: E402
from calibration.colour import measure_colour_reference  # noqa: E402
from calibration.markers import aruco_dictionary, detect_markers  # noqa: E402
from calibration.table import fit_from_detections, fit_from_detections_plain  # noqa: E402
from synth.layers import Layer  # noqa: E402
from synth.photo import render_photo, sample_conditions  # noqa: E402

CARD = (250.0, 180.0, 310.0, 240.0)


def grey_card() -> Layer:
    mpp = 0.5
    w = int((CARD[2] - CARD[0]) / mpp)
    h = int((CARD[3] - CARD[1]) / mpp)
    rgba = np.ones((h, w, 4), np.float32)
    rgba[..., :3] = 0.5
    return Layer(rgba=rgba, origin_mm=(CARD[0], CARD[1]), mm_per_px=mpp, z_mm=0.0, casts_shadow=False, name="grey")


def pct(a, q):
    return float(np.percentile(a, q)) if len(a) else float("nan")


def mx(a):
    return float(np.max(a)) if len(a) else float("nan")


def med(a):
    return float(np.median(a)) if len(a) else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--hard-every", type=int, default=3)
    ap.add_argument("--seed0", type=int, default=0)
    ap.add_argument("-v", action="store_true", help="one line per photo")
    args = ap.parse_args()
    layout = MarkerLayout.from_components()
    gx, gy = np.meshgrid(np.arange(0.0, 561.0, 20.0), np.arange(0.0, 421.0, 20.0))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    cx, cy = np.meshgrid(np.linspace(CARD[0] + 8, CARD[2] - 8, 7), np.linspace(CARD[1] + 8, CARD[3] - 8, 7))
    card_pts = np.column_stack([cx.ravel(), cy.ravel(), np.zeros(cx.size)])
    dictionary = aruco_dictionary(layout.dictionary)
    rows = {"normal": [], "hard": []}
    failures = []
    for k in range(args.n):
        seed = args.seed0 + k
        rng = np.random.default_rng(seed)
        hard = args.hard_every > 0 and k % args.hard_every == args.hard_every - 1
        cond = sample_conditions(rng, look_at_mm=(280.0, 210.0), hard=hard)
        photo = render_photo([grey_card()], cond, rng)
        img = photo.image_rgb
        size = (img.shape[1], img.shape[0])
        t0 = time.perf_counter()
        det = detect_markers(img, layout)
        t1 = time.perf_counter()
        try:
            cal = fit_from_detections(det, layout, size)
        except CalibrationError as exc:
            failures.append((seed, hard, str(exc)))
            continue
        t2 = time.perf_counter()
        ref = measure_colour_reference(img, det.ids, det.corners_px, dictionary)
        t3 = time.perf_counter()
        plain = fit_from_detections_plain(det, layout, size)
        p0 = photo.project(np.column_stack([grid, np.zeros(len(grid))]))
        p5 = photo.project(np.column_stack([grid, np.full(len(grid), 5.0)]))
        e0 = np.linalg.norm(cal.px_to_mm(p0) - grid, axis=1)
        e5 = np.linalg.norm(cal.px_to_mm_at_height(p5, 5.0) - grid, axis=1)
        e5_flat = np.linalg.norm(cal.px_to_mm(p5) - grid, axis=1)
        ep = np.linalg.norm(plain.px_to_mm(p0) - grid, axis=1)
        cpx = np.rint(photo.project(card_pts)).astype(int)
        raw = img[cpx[:, 1], cpx[:, 0]].astype(float).mean(axis=0)
        norm = ref.normalise(raw)
        local = ref.normalise_at(raw[None], cpx.mean(axis=0)[None])[0]
        cam = cal.camera
        true_c = photo.camera.centre_mm
        if args.v:
            print(
                f"seed {seed:4d} {'hard' if hard else 'norm'} k1 {cond.k1:+.3f} k2 {cond.k2:+.3f} tilt "
                f"{cond.tilt_deg:4.1f} h {cond.height_mm:4.0f} fov {cond.hfov_deg:4.1f} motion {cond.motion_px:.1f} | "
                f"{cal.model:34s} rms {cal.reprojection_error_mm:.2f} map {e0.mean():.2f}/{e0.max():.2f} "
                f"plain {ep.max():.2f} k1fit {cal.lens.k1 if cal.lens else 0:+.3f} "
                f"grow {cal.edge_growth_mm:+.2f} chroma {np.ptp(norm):.3f} {cond.hard_kinds}"
            )
        rows["hard" if hard else "normal"].append(
            dict(
                e0_mean=e0.mean(),
                e0_max=e0.max(),
                e5_max=e5.max(),
                e5_flat_max=e5_flat.max(),
                ep_max=ep.max(),
                lens=cal.lens is not None,
                k1_true=cond.k1,
                dh=abs(cam.height_mm - true_c[2]) / true_c[2] if cam else np.nan,
                dtilt=abs(cam.tilt_deg - cond.tilt_deg) if cam else np.nan,
                rms=cal.reprojection_error_mm,
                hand=cond.hand is not None,
                n_markers=len(cal.marker_ids),
                clipped=any("clipped" in w for w in ref.warnings()),
                chroma=float(np.ptp(norm)),
                chroma_local=float(np.ptp(local)),
                chroma_raw=float(np.ptp(raw / max(raw.max(), 1.0))),
                level=float(norm.mean()),
                ms_detect=(t1 - t0) * 1000,
                ms_fit=(t2 - t1) * 1000,
                ms_colour=(t3 - t2) * 1000,
            )
        )
    for name, rs in rows.items():
        if not rs:
            continue
        col = {key: np.array([r[key] for r in rs], dtype=float) for key in rs[0]}
        lens = col["lens"].astype(bool)
        strong = np.abs(col["k1_true"]) >= 0.1
        print(f"== {name}: {len(rs)} photos calibrated")
        print(
            f"  map error z=0 (mm): mean of means {col['e0_mean'].mean():.3f}; max per photo median "
            f"{np.median(col['e0_max']):.3f}, p95 {pct(col['e0_max'], 95):.3f}, worst {col['e0_max'].max():.3f}"
        )
        print(
            f"  plain homography max per photo: median {np.median(col['ep_max']):.3f}, p95 "
            f"{pct(col['ep_max'], 95):.3f}, worst {col['ep_max'].max():.3f}"
        )
        print(
            f"  z=5 mm via pose, max per photo: median {np.median(col['e5_max']):.3f}, "
            f"p95 {pct(col['e5_max'], 95):.3f}, worst {col['e5_max'].max():.3f} "
            f"(ignoring height: median {np.median(col['e5_flat_max']):.2f})"
        )
        print(
            f"  lens model used on {lens.sum()} photos: {np.sum(lens & strong)}/{strong.sum()} with |k1| >= 0.1, "
            f"{np.sum(lens & ~strong)}/{(~strong).sum()} with |k1| < 0.1"
        )
        print(
            f"  pose: height error median {100 * np.nanmedian(col['dh']):.1f} %, p95 {100 * pct(col['dh'], 95):.1f} %;"
            f" tilt error median {np.nanmedian(col['dtilt']):.2f} deg, p95 {pct(col['dtilt'], 95):.2f} deg"
        )
        print(f"  corner RMS (reported) median {np.median(col['rms']):.3f} mm")
        free = ~col["hand"].astype(bool) & ~col["clipped"].astype(bool)  # a hand may cover the card
        missing = col["n_markers"] < 4
        print(
            f"  markers: all 4 found in {np.sum(~missing)} photos; {np.sum(missing)} with a missing marker (warned), "
            f"their max map error {', '.join(f'{v:.2f}' for v in col['e0_max'][missing])}; "
            f"with all 4: max per photo p95 {pct(col['e0_max'][~missing], 95):.3f}, "
            f"worst {mx(col['e0_max'][~missing]):.3f}"
        )
        print(f"  paper white clipped (warned) in {int(col['clipped'].sum())} photos")
        print(
            f"  grey card chroma (max-min of channels, {free.sum()} photos without hand or clipped white): normalised "
            f"median "
            f"{med(col['chroma'][free]):.3f}, p95 {pct(col['chroma'][free], 95):.3f}, worst "
            f"{mx(col['chroma'][free]):.3f}; local ref median {med(col['chroma_local'][free]):.3f}; "
            f"raw median {med(col['chroma_raw'][free]):.3f}, p95 {pct(col['chroma_raw'][free], 95):.3f}; "
            f"level median {med(col['level'][free]):.3f}"
        )
        print(
            f"  time ms: detect median {np.median(col['ms_detect']):.1f}, fit median {np.median(col['ms_fit']):.1f}"
            f" (p95 {pct(col['ms_fit'], 95):.1f}), colour median {np.median(col['ms_colour']):.1f}"
        )
    print(f"== failures: {len(failures)}")
    for f in failures:
        print("  seed", f[0], "hard" if f[1] else "normal", f[2])


if __name__ == "__main__":
    main()
