"""Calibration round trip over many synthetic photos: how far is px_to_mm from the truth?

For each seed a photo of an empty table (markers, a few dots at z = 0) is rendered; the
calibration is fitted from the photo's markers and ``px_to_mm`` is applied to the exact image
positions of a grid of table points (``photo.project``). Prints p50 / p95 / max of the mm error
per condition set, the share of photos whose calibration failed, and the calibration's own
reported reprojection error against the true error.

    python tools/eval_calibration.py [--seeds 200] [--sets normal,hard,fine]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synth.roundtrip import ROUNDTRIP_SETS, roundtrip_errors  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=10_000)
    ap.add_argument("--sets", default=",".join(ROUNDTRIP_SETS))
    ap.add_argument("--worst", type=int, default=3, help="list this many worst photos per set")
    args = ap.parse_args(argv)
    for name in args.sets.split(","):
        t0 = time.perf_counter()
        res = [roundtrip_errors(seed, name) for seed in range(args.first_seed, args.first_seed + args.seeds)]
        ok = [r for r in res if r.error_mm is not None]
        failed = len(res) - len(ok)
        if not ok:
            print(f"{name}: calibration failed on all {len(res)} photos")
            continue
        err = np.concatenate([r.error_mm for r in ok])
        per_photo_p95 = np.array([np.percentile(r.error_mm, 95) for r in ok])
        rep = np.array([r.reported_mm for r in ok])
        true_rms = np.array([np.sqrt(np.mean(r.error_mm**2)) for r in ok])
        mmpx = np.array([r.mm_per_px for r in ok])
        print(
            f"{name:7s} photos {len(res)} (calibration failed {failed})  mm/px {np.median(mmpx):.2f} "
            f"[{mmpx.min():.2f}-{mmpx.max():.2f}]\n"
            f"        point error mm: p50 {np.percentile(err, 50):.3f}  p95 {np.percentile(err, 95):.3f}  "
            f"max {err.max():.3f};  photos with p95 > 1 mm: {np.mean(per_photo_p95 > 1.0) * 100:.1f}%\n"
            f"        reported reprojection error mm: p50 {np.median(rep):.3f} p95 {np.percentile(rep, 95):.3f};  "
            f"true rms error p50 {np.median(true_rms):.3f} p95 {np.percentile(true_rms, 95):.3f};  "
            f"corr {np.corrcoef(rep, true_rms)[0, 1]:.2f}\n"
            f"        {(time.perf_counter() - t0) / len(res):.2f} s per photo"
        )
        worst = sorted(ok, key=lambda r: -float(np.percentile(r.error_mm, 95)))[: args.worst]
        for r in worst:
            c = r.conditions
            print(f"        worst: seed {r.seed} p95 {np.percentile(r.error_mm, 95):.2f} mm (reported "
                  f"{r.reported_mm:.2f}); height {c.height_mm:.0f} tilt {c.tilt_deg:.0f} hfov {c.hfov_deg:.0f} "
                  f"k1 {c.k1:+.3f} k2 {c.k2:+.3f} table {c.table_kind} hard {','.join(c.hard_kinds) or '-'}")
        for r in res:
            if r.error_mm is None:
                print(f"        failed: seed {r.seed}: {r.failure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
