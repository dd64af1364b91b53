"""Accuracy of the Carrotain recognizer over many seeded synthetic renders.

    python tools/eval_carrotain.py --seeds 200 [--hard] [--start 0]

Prints chip recall/precision, kind+colour accuracy, centre error p50/p95 (mm), the share of chip
errors within 2 sigma, board recall and pose error (mean outline distance, mm), and -- where the
rules module ``scoring.carrotain`` is present -- verdict accuracy on clear scenes, contested rate on
borderline ones and wrong-and-not-contested verdicts (else a hidden-count check with a plain
centre-in-outline rule).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shapely import distance, points  # noqa: E402
from shapely.geometry import Point, Polygon  # noqa: E402

from calibration.table import CalibrationError, calibrate_from_markers  # noqa: E402
from synth.carrotain import render_scene  # noqa: E402
from vision.carrotain import CarrotainVisionConfig, recognise  # noqa: E402


def _hidden(chips_xy, boards) -> int:
    polys = [Polygon(b) for b in boards]
    return sum(any(p.contains(Point(c)) for p in polys) for c in chips_xy)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--hard", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--flat-boards", action="store_true",
                    help="match boards without the side-wall model (synth.photo draws boards as flat sheets)")
    a = ap.parse_args()
    config = CarrotainVisionConfig(board_walls=not a.flat_boards)
    try:
        import scoring.carrotain  # noqa: F401, PLC0415
        from judge.games.carrotain import adjudicate, parse_context, truth_state  # noqa: PLC0415

        have_rules = True
    except ImportError:
        have_rules = False
    n_true = n_det = n_match = n_kind_ok = 0
    errs, zs, board_err, board_found, board_total = [], [], [], 0, 0
    clear_ok = clear_n = clear_contested = border_contested = border_n = wrong_silent = no_cal = 0
    border_flip_n = border_flip_contested = cannot = 0
    times = []
    for seed in range(a.start, a.start + a.seeds):
        img, scene, _ = render_scene(seed, hard=a.hard)
        try:
            cal = calibrate_from_markers(img)
        except CalibrationError:
            no_cal += 1
            continue
        t0 = time.perf_counter()
        st = recognise(img, cal, config=config)
        times.append(time.perf_counter() - t0)
        T = np.array([c["xy_mm"] for c in scene["chips"]])
        n_true += len(T)
        n_det += len(st.chips)
        used = set()
        for c in st.chips:
            d = np.hypot(*(T - c.xy_mm).T)
            i = int(np.argmin(d))
            if d[i] < 8.0 and i not in used:
                used.add(i)
                n_match += 1
                errs.append(d[i])
                zs.append(d[i] / max(c.centre_sigma_mm, 1e-6))
                tc = scene["chips"][i]
                n_kind_ok += (tc["kind"], tc["colour"]) == (c.kind, c.colour)
        for b in scene["boards"]:
            board_total += 1
            tp = Polygon(b["outline_mm"])
            m = [f for f in st.boards if f.id == b["id"]]
            if m:
                e = float(distance(tp.exterior, points(m[0].outline_mm)).mean())
                if e < 10:
                    board_found += 1
                    board_err.append(e)
        if sum(b.role == "challenge" for b in st.boards) < 2:
            cannot += 1
            if a.verbose:
                print(f"seed {seed} {scene['category']}: cannot judge (boards {[(b.id, b.role) for b in st.boards]})",
                      flush=True)
            continue
        if have_rules:
            ctx = parse_context({"players": scene["players"], "challenger": scene["challenger"]})
            truth = adjudicate(truth_state(scene), ctx).to_json()
            got = adjudicate(st, ctx).to_json()
            right = got["verdict"] == truth["verdict"]
            contested = bool(got.get("contested"))
            truth_contested = bool(truth.get("contested"))
        else:
            chall = [np.asarray(b["outline_mm"]) for b in scene["boards"] if b["role"] == "challenge"]
            t_hidden = _hidden(T, chall)
            d_hidden = _hidden([c.xy_mm for c in st.chips], [b.outline_mm for b in st.boards if b.role == "challenge"])
            right = (len(T) - t_hidden <= 2) == (len(st.chips) - d_hidden <= 2)
            contested = any(f.code == "boards_not_found" for f in st.flags)
            truth_contested = False
        if scene["category"] == "clear":
            clear_n += 1
            clear_ok += right
            clear_contested += contested
        else:
            border_n += 1
            border_contested += contested
            border_flip_n += truth_contested
            border_flip_contested += truth_contested and contested
        wrong_silent += (not right) and (not contested)
        if a.verbose:
            print(f"seed {seed} {scene['category']}: chips {len(st.chips)}/{len(T)} boards "
                  f"{[(b.id, b.role) for b in st.boards]} right={right} contested={contested} "
                  f"truth_contested={truth_contested}", flush=True)
    e = np.array(errs) if errs else np.array([np.nan])
    z = np.array(zs) if zs else np.array([np.nan])
    be = np.array(board_err) if board_err else np.array([np.nan])
    print(f"seeds {a.seeds} (start {a.start}, hard={a.hard}); no calibration: {no_cal}; rules module: {have_rules}")
    print(f"chips: recall {n_match / max(n_true, 1):.3f}  precision {n_match / max(n_det, 1):.3f}  "
          f"kind+colour {n_kind_ok / max(n_match, 1):.3f}")
    print(f"centre error mm: p50 {np.median(e):.2f}  p95 {np.percentile(e, 95):.2f}  max {e.max():.2f};  "
          f"within 2 sigma {np.mean(z <= 2):.3f}")
    print(f"boards: found {board_found}/{board_total}  outline error mm p50 {np.median(be):.2f} "
          f"p95 {np.percentile(be, 95):.2f}")
    print(f"verdict: clear right {clear_ok}/{clear_n} (contested {clear_contested}); borderline contested "
          f"{border_contested}/{border_n} (where the truth itself is contested: "
          f"{border_flip_contested}/{border_flip_n}); "
          f"wrong and not contested {wrong_silent}; fewer than 2 challenge boards found (the judge says it cannot "
          f"judge): {cannot}")
    print(f"recognise time s: p50 {np.median(times):.2f}  p95 {np.percentile(times, 95):.2f}")


if __name__ == "__main__":
    main()
