#!/usr/bin/env python3
"""Study: does REGION evidence (the dimming inside a board outline against the bare mat just outside it, on a map
smoothed at a coarser scale) tell the right board shape from the wrong ones where the edges do not? TUNE sets only.

    python tools/study_board_region.py --set SET [--set SET ...] [--device none,webcam] [--seed 0] [--name PART]
                                       [--reach 16] [--config FIELD=VALUE ...] [--out rows.json]

Per Carrotain photo (as the device delivers it), the board evidence is made as the reader makes it
(``vision.carrotain.board_evidence``); per challenge board of the truth:

- the true shape at its best pose by the region score (``vision.acrylic.region_scores``) within +-6 mm and +-6 deg
  of the truth, and the edge chamfer (``_quick_chamfers``) there;
- per other shape (every outline and mirror image): its best pose near the truth (rotations every 5 deg, centres
  within +-``--reach`` mm of the truth outline's centroid) by the region score, its region score and chamfer there;
- the true shape's rank among the shapes by the region score and by the chamfer (1 = best), and the margin of the
  true shape's region score over the best wrong shape's.

The figures tell whether region evidence separates shapes under a device's noise before it is wired into the search.
The chamfers are those of the region-best poses (not refined): the chamfer's rank is a rank at those poses.

Measured (seed 0; right shape rank 1 by region / by chamfer): dev as rendered 49 / 50 of 50 boards, webcam 41 / 26;
car_tune 35 / 34 of 36, webcam 29 / 24; car_tune2 39 / 38 of 40, webcam 29 / 17.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.eval_photoreal import Item, load_items, photo_as_delivered  # noqa: E402

#: ``AcrylicConfig`` fields set from the command line (``--set-config name=value``).
OVERRIDES: dict = {}


def evidence_of(item: Item, device: str, seed: int):
    """The reader's board evidence of one photo (``BoardEvidence``) or None (no calibration)."""
    from calibration.markers import MarkerLayout
    from components import load_components
    from judge.pipeline import make_frame
    from judge.registry import game as game_plugin
    from vision.carrotain import CarrotainVisionConfig, board_evidence
    from vision.carrotain_view import colour_reference

    plugin = game_plugin("carrotain")
    img = photo_as_delivered(item.images[-1], device, seed)
    layout = plugin.marker_layout() if plugin.marker_layout is not None else None
    frame = make_frame(img, item.images[-1].name, None, layout)
    if frame.calibration is None:
        return None
    comp = load_components()
    lay = MarkerLayout.from_components(comp)
    ref = colour_reference(frame.calibration, img, lay)
    return board_evidence(img, frame.calibration, ref, CarrotainVisionConfig(), lay), comp


def true_pose(shape, outline_truth: np.ndarray) -> tuple[float, np.ndarray, float]:
    """(rotation rad, translation (2,), rms mm) taking the shape's outline onto the truth outline (Kabsch on the
    vertices, both in the same order; else the best cyclic shift)."""
    a = np.asarray(shape.outline, dtype=np.float64)
    b = np.asarray(outline_truth, dtype=np.float64)
    if len(a) != len(b):
        return float("nan"), np.zeros(2), float("inf")
    best = (float("nan"), np.zeros(2), float("inf"))
    for shift in range(len(b)):
        bb = np.roll(b, shift, axis=0)
        ca, cb = a.mean(0), bb.mean(0)
        H = (a - ca).T @ (bb - cb)
        U, _, Vt = np.linalg.svd(H)
        R = Vt.T @ U.T
        if np.linalg.det(R) < 0:
            continue
        t = cb - R @ ca
        rms = float(np.sqrt(np.mean(np.sum((a @ R.T + t - bb) ** 2, axis=1))))
        if rms < best[2]:
            best = (float(np.arctan2(R[1, 0], R[0, 0])), t, rms)
    return best


def board_rows(item: Item, device: str, seed: int, reach_mm: float) -> list[dict]:
    from vision.acrylic import (
        _Candidate,
        _Evidence,
        _prepare_shapes,
        _quick_chamfers,
        _rot,
        region_evidence,
        region_scores,
    )
    from vision.carrotain import board_outlines

    got = evidence_of(item, device, seed)
    if got is None:
        return []
    bev, comp = got
    cfg = replace(bev.config, **OVERRIDES)
    outlines = board_outlines(comp)
    shapes, _ = _prepare_shapes(outlines, cfg)
    ev = _Evidence(bev.ratio, bev.line, bev.origin_mm, bev.mm_per_px, cfg.line_weight)
    reg = region_evidence(bev.ratio, bev.origin_mm, bev.mm_per_px, cfg)
    rows = []
    for tb in item.doc["scene"]["boards"]:
        if tb.get("role") != "challenge" or "tilt" in tb:
            continue
        truth_i = next(i for i, s in enumerate(shapes) if s.id == tb["id"] and s.mirrored == bool(tb["mirrored"]))
        th0, t0, rms = true_pose(shapes[truth_i], np.asarray(tb["outline_mm"]))
        if rms > 1.0:
            print(f"  {item.name} {tb['id']}: truth pose rms {rms:.2f} mm", file=sys.stderr)
            continue
        centroid = np.asarray(tb["outline_mm"], dtype=np.float64).mean(0)
        cands = []
        for i, sh in enumerate(shapes):
            if i == truth_i:
                # the true shape's best pose near the truth (+-6 mm, +-6 deg): every shape gets its best pose
                g = np.arange(-6.0, 6.0 + 1e-9, 2.0)
                off = np.array([(x, y) for y in g for x in g])
                thetas_all, ts_all = [], []
                for dth in np.radians(np.arange(-6.0, 6.1, 2.0)):
                    thetas_all.append(np.full(len(off), th0 + dth))
                    ts_all.append(t0 + _rot(np.array(th0 + dth)) @ sh.cen + off)
                thetas, ts = np.concatenate(thetas_all), np.concatenate(ts_all)
            else:
                g = np.arange(-reach_mm, reach_mm + 1e-9, 4.0)
                off = np.array([(x, y) for y in g for x in g])
                # the shape's own centroid onto the truth's, then offsets
                cen_out = np.asarray(sh.outline, dtype=np.float64).mean(0) - sh.cen
                thetas_all, ts_all = [], []
                for th in np.radians(np.arange(0.0, 360.0, 5.0)):
                    thetas_all.append(np.full(len(off), th))
                    ts_all.append(centroid - _rot(np.array(th)) @ cen_out + off)
                thetas, ts = np.concatenate(thetas_all), np.concatenate(ts_all)
            cands.append((thetas, ts))
        for mode in ("mean",):
            per = []
            tsh = shapes[truth_i]
            sign = 1.0 if region_scores(reg, tsh, np.array([th0]), np.array([t0 + _rot(np.array(th0)) @ tsh.cen]),
                                        cfg)[0] >= 0 else -1.0
            for i, sh in enumerate(shapes):
                thetas, ts = cands[i]
                sc = sign * region_scores(reg, sh, thetas, ts, cfg)
                j = int(np.argmax(sc))
                c = _Candidate(float(sc[j]), i, float(thetas[j]), ts[j], sign)
                ch = _quick_chamfers(ev, shapes, [c], cfg)[0]
                per.append({"shape": f"{sh.id}{'m' if sh.mirrored else ''}", "region": float(sc[j]), "chamfer": ch,
                            "truth": i == truth_i})
            reg_true = per[truth_i]["region"]
            ch_true = per[truth_i]["chamfer"]
            wrong = [p for p in per if not p["truth"]]
            rows.append({
                "name": item.name, "device": device, "board": tb["id"], "mode": mode,
                "region_true": reg_true, "chamfer_true": ch_true,
                "region_rank": 1 + sum(p["region"] > reg_true for p in wrong),
                "chamfer_rank": 1 + sum(p["chamfer"] < ch_true for p in wrong),
                "region_margin": reg_true - max(p["region"] for p in wrong),
                "chamfer_margin": min(p["chamfer"] for p in wrong) - ch_true,
                "best_wrong": max(wrong, key=lambda p: p["region"])["shape"],
                "shapes": per,
            })
            r = rows[-1]
            print(f"{device:7s} {mode:6s} {item.name:28s} {tb['id']} region {reg_true:+.3f} rank {r['region_rank']:2d} "
                  f"margin {r['region_margin']:+.3f} ({r['best_wrong']}) | chamfer {ch_true:.2f} rank "
                  f"{r['chamfer_rank']:2d} margin {r['chamfer_margin']:+.2f}", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", required=True)
    ap.add_argument("--device", default="none,webcam")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reach", type=float, default=16.0)
    ap.add_argument("--name", default="")
    ap.add_argument("--category", action="append", default=[])
    ap.add_argument("--out", default="")
    ap.add_argument("--config", action="append", default=[], help="AcrylicConfig field=value (float)")
    args = ap.parse_args(argv)
    for kv in args.config:
        k, v = kv.split("=")
        OVERRIDES[k] = float(v)
    rows: list[dict] = []
    for set_dir in args.set:
        items = load_items(Path(set_dir), ("carrotain",), tuple(args.category), args.name)
        for device in args.device.split(","):
            for item in items:
                rows += board_rows(item, device, args.seed, args.reach)
    for device, mode in [(d, "mean") for d in args.device.split(",")]:
        sel = [r for r in rows if r["device"] == device and r["mode"] == mode]
        if not sel:
            continue
        n = len(sel)
        print(f"{device} {mode}: {n} boards; region rank 1: {sum(r['region_rank'] == 1 for r in sel)}, "
              f"chamfer rank 1: {sum(r['chamfer_rank'] == 1 for r in sel)}; median region margin "
              f"{np.median([r['region_margin'] for r in sel]):+.3f}, median chamfer margin "
              f"{np.median([r['chamfer_margin'] for r in sel]):+.2f}")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
