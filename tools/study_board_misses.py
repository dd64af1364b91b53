#!/usr/bin/env python3
"""Study: why a Carrotain challenge board is not found - where along the board search the true board is lost. TUNE
sets only.

    python tools/study_board_misses.py --set SET [--set SET ...] [--device none,webcam,browser,phone] [--seed 0]
                                       [--name PART] [--skip-missing] [--out rows.json]

Each photo (as the device delivers it) is judged by the product's pipeline (``tools.eval_photoreal``) while the board
search's steps in ``vision.acrylic`` are recorded; per challenge board of the truth (a tilted, stacked board is
left out), the first of these that holds:

- ``found``: a board fit of the true shape lies on the truth (mean outline distance under ``--near`` mm);
- ``wrong``: a fit of another shape (or the true shape at another pose) lies over the truth, none of the true one;
- ``not-proposed``: no coarse candidate (polar stage or fallback grid) of the true shape near the truth pose
  (centre within ``--near-xy`` mm, rotation within ``--near-deg``);
- ``not-refined``: proposed, but no least-squares refinement started near the truth (the polish, the quick-chamfer
  ranking, ``refine_top`` or ``refine_max_chamfer_mm`` dropped it);
- ``rejected``: refined near the truth, but no refined fit there acceptable (``_acceptable``) - the best one's
  chamfer, contrast, region score are printed;
- ``suppressed``: an acceptable fit near the truth, but not among the boards kept (``_suppress``).

With the judgement's outcome (``exact`` / ``doubt`` / ``cannot`` / ``WRONG``) per photo (a ``JUDGE`` line: what was
judged, the comparison's failed checks, the flags; an ``AWARDS`` line, judged and true, where not exact).

Measured (dev set, seed 0, main ea4fdc8; 50 challenge boards a device): as rendered, browser and phone 48, 45 and
49 found, the few misses spread over the stages; as a webcam delivers them 13 found, 20 fitted as another shape over
the board, 7 not proposed, 4 not refined, 4 rejected, 2 suppressed. The webcam's "cannot" photos (7) lost their
boards mostly before any candidate: no seed on the board at all (no dimming blob, the uneven light outweighing the
board's dimming; its constellation over the print threshold in pieces too short for a print cluster) - hence the
print traced by hysteresis (``AcrylicConfig.print_weak_fraction``), then the region evidence ranking candidates and
fits (``region_candidate_weight_mm``, ``region_weight_mm``) against the wrong shapes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.blas import single_thread_blas  # noqa: E402
from tools.eval_photoreal import judge_in_process, judge_outcome, load_items, photo_as_delivered  # noqa: E402
from tools.study_board_region import true_pose  # noqa: E402

STAGES = ("found", "wrong", "not-proposed", "not-refined", "rejected", "suppressed")


class Recorder:
    """Wraps the board search's steps in ``vision.acrylic`` and keeps what they proposed and made."""

    def __init__(self) -> None:
        import vision.acrylic as acr
        import vision.carrotain as car

        self.acr, self.car = acr, car
        self.saved: dict = {}
        self.reset()

    def reset(self) -> None:
        self.proposed: list = []  # (shape id, mirrored, theta, xy of shape.cen)
        self.seeds: list = []  # (stage, xy mm)
        self.refined: list = []  # (shape id, mirrored, theta, t, fit or None)
        self.final: list = []
        self.shapes: list = []

    def __enter__(self) -> Recorder:
        acr = self.acr

        def wrap(name, after):
            orig = getattr(acr, name)
            self.saved[name] = orig

            def f(*a, **k):
                out = orig(*a, **k)
                after(a, k, out)
                return out

            setattr(acr, name, f)
            if hasattr(self.car, name):  # imported by name there
                setattr(self.car, name, f)

        def on_polar(a, k, out):
            shapes = a[2]
            self.shapes = shapes
            self.seeds.append(("polar", np.asarray(a[1], dtype=np.float64)))
            self.proposed += [(shapes[c.shape].id, shapes[c.shape].mirrored, c.theta, np.asarray(c.xy)) for c in out]

        def on_grid(a, k, out):
            shapes = a[2]
            self.shapes = shapes
            self.seeds.append(("grid", np.asarray(a[0], dtype=np.float64)))
            self.proposed += [(shapes[c.shape].id, shapes[c.shape].mirrored, c.theta, np.asarray(c.xy)) for c in out]

        def on_refine(a, k, out):
            sh, theta, t = a[1], a[2], a[3]
            self.refined.append((sh.id, sh.mirrored, float(theta), np.asarray(t, dtype=np.float64), out))

        def on_final(a, k, out):
            self.final = list(out)

        wrap("_polar_candidates", on_polar)
        wrap("_grid_candidates", on_grid)
        wrap("_refine", on_refine)
        wrap("find_boards", on_final)
        wrap("find_boards_in", on_final)
        return self

    def __exit__(self, *exc) -> None:
        for name, f in self.saved.items():
            setattr(self.acr, name, f)
            if hasattr(self.car, name):
                setattr(self.car, name, f)


def _angle_diff(a: float, b: float) -> float:
    return abs((a - b + np.pi) % (2 * np.pi) - np.pi)


def _outline_distance(a: np.ndarray, b: np.ndarray) -> float:
    from shapely import distance, points
    from shapely.geometry import Polygon

    return float(np.mean(distance(Polygon(b).exterior, points(a))))


def classify(rec: Recorder, tb: dict, near_mm: float, near_xy_mm: float, near_deg: float, config) -> dict:
    """The stage where one truth board (``scene.boards`` entry) was lost, and the figures that tell why."""
    from shapely.geometry import Point, Polygon

    from vision.acrylic import _acceptable, _rot

    truth = np.asarray(tb["outline_mm"], dtype=np.float64)
    row: dict = {"board": tb["id"]}
    for f in rec.final:
        if f.id == tb["id"] and f.mirrored == bool(tb["mirrored"]):
            d = _outline_distance(np.asarray(f.outline_mm), truth)
            if d < near_mm:
                return {**row, "stage": "found", "dist_mm": d, "chamfer": f.chamfer_mm}
    over = [f for f in rec.final if Polygon(f.outline_mm).intersection(Polygon(truth)).area > 0.5 * Polygon(truth).area]
    if over:
        f = over[0]
        return {**row, "stage": "wrong", "got": f"{f.id}{'m' if f.mirrored else ''}", "chamfer": f.chamfer_mm,
                "dist_mm": _outline_distance(np.asarray(f.outline_mm), truth)}
    sh = next((s for s in rec.shapes if s.id == tb["id"] and s.mirrored == bool(tb["mirrored"])), None)
    if sh is None:
        return {**row, "stage": "not-proposed", "note": "no search"}
    th0, t0, rms = true_pose(sh, truth)
    xy0 = _rot(np.array(th0)) @ sh.cen + t0
    near_rad = np.radians(near_deg)
    props = [(th, xy) for i, m, th, xy in rec.proposed if i == sh.id and m == sh.mirrored]
    dists = [(float(np.hypot(*(xy - xy0))), np.degrees(_angle_diff(th, th0))) for th, xy in props]
    close = [d for d in dists if d[0] <= near_xy_mm and d[1] <= near_deg]
    if not close:
        best = min(dists, key=lambda d: d[0] / near_xy_mm + d[1] / near_deg) if dists else None
        poly = Polygon(truth)
        inside = sorted({st for st, p in rec.seeds if poly.contains(Point(p))})
        return {**row, "stage": "not-proposed", "seeds_inside": inside, "n_proposed_shape": len(props),
                "nearest": None if best is None else [round(best[0], 1), round(best[1], 1)]}
    refs = [(th, t, fit) for i, m, th, t, fit in rec.refined if i == sh.id and m == sh.mirrored
            and _angle_diff(th, th0) <= near_rad
            and np.hypot(*((_rot(np.array(th)) @ sh.cen + t) - xy0)) <= near_xy_mm]
    if not refs:
        return {**row, "stage": "not-refined", "n_close_proposals": len(close)}
    fits = [f for _, _, f in refs if f is not None]
    ok = [f for f in fits if _acceptable(f, config)]
    if not ok:
        b = min(fits, key=lambda f: f.chamfer_mm) if fits else None
        return {**row, "stage": "rejected", "n_refined": len(refs),
                "best": None if b is None else {"chamfer": round(b.chamfer_mm, 2), "contrast": round(b.contrast, 3),
                                                "inside": round(b.inside_dimming, 3), "line": round(b.line_strength, 3),
                                                "support": round(b.edge_support, 2), "region": round(b.region, 3),
                                                "dist_mm": round(_outline_distance(np.asarray(b.outline_mm), truth),
                                                                 1)}}
    b = min(ok, key=lambda f: f.chamfer_mm)
    return {**row, "stage": "suppressed", "chamfer": b.chamfer_mm,
            "dist_mm": _outline_distance(np.asarray(b.outline_mm), truth)}


def _override(config, fields: dict[str, str]):
    """Every photo's ``AcrylicConfig`` (``vision.carrotain.for_photo``) with these fields set (their own types)."""
    from dataclasses import fields as dc_fields
    from dataclasses import replace

    import vision.carrotain as car
    from vision.acrylic import AcrylicConfig, for_photo

    types = {f.name: type(getattr(AcrylicConfig(), f.name)) for f in dc_fields(AcrylicConfig)}
    values = {k: (v.lower() in ("1", "true") if types[k] is bool else types[k](v)) for k, v in fields.items()}
    car.for_photo = lambda c, mm_per_px: replace(for_photo(c, mm_per_px), **values)
    return replace(config, **values)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", required=True)
    ap.add_argument("--device", default="none,webcam,browser,phone")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="")
    ap.add_argument("--skip-missing", action="store_true")
    ap.add_argument("--near", type=float, default=5.0)
    ap.add_argument("--near-xy", type=float, default=14.0)
    ap.add_argument("--near-deg", type=float, default=12.0)
    ap.add_argument("--out", default="")
    ap.add_argument("--config", action="append", default=[], help="AcrylicConfig field=value, for every photo")
    args = ap.parse_args(argv)
    single_thread_blas()  # as cli.main does
    from vision.carrotain import CarrotainVisionConfig

    config = CarrotainVisionConfig().boards
    if args.config:
        config = _override(config, dict(kv.split("=") for kv in args.config))
    rows: list[dict] = []
    rec = Recorder()
    for set_dir in args.set:
        items = load_items(Path(set_dir), ("carrotain",), (), args.name)
        if args.skip_missing:
            items = [it for it in items if all(p.exists() for p in it.images)]
        for device in args.device.split(","):
            for it in items:
                photos = [photo_as_delivered(p, device, args.seed) for p in it.images]
                rec.reset()
                with rec:
                    verdict = judge_in_process(it.game, it.doc["context"], photos, [p.name for p in it.images])
                outcome, checks, got = judge_outcome(it, verdict)
                flags = [str(f.get("code")) for f in (verdict.out or {}).get("flags", []) if isinstance(f, dict)]
                failed = sorted(k for k, v in checks.items() if v is False)
                print(f"JUDGE {device:7s} {it.name:26s} {outcome:7s} {got} failed={failed} flags={flags}", flush=True)
                if outcome != "exact" and verdict.out is not None:
                    print(f"AWARDS {it.name} got={json.dumps(verdict.out.get('awards'))} "
                          f"want={json.dumps(it.doc['expected']['awards'])}", flush=True)
                for tb in it.doc["scene"]["boards"]:
                    if tb.get("role") != "challenge" or "tilt" in tb:
                        continue
                    r = classify(rec, tb, args.near, args.near_xy, args.near_deg, config)
                    r.update(name=it.name, device=device, seed=args.seed, outcome=outcome, category=it.category)
                    rows.append(r)
                    extra = {k: v for k, v in r.items()
                             if k not in ("board", "stage", "name", "device", "seed", "outcome", "category")}
                    print(f"{device:7s} {it.name:26s} {it.category:10s} {outcome:7s} {r['board']} {r['stage']:12s} "
                          f"{json.dumps(extra, default=float)}", flush=True)
    for device in args.device.split(","):
        sel = [r for r in rows if r["device"] == device]
        c = Counter(r["stage"] for r in sel)
        lost = Counter(r["stage"] for r in sel if r["outcome"] == "cannot")
        print(f"{device}: {len(sel)} boards: " + ", ".join(f"{s} {c[s]}" for s in STAGES)
              + " | on 'cannot' photos: " + ", ".join(f"{s} {lost[s]}" for s in STAGES if lost[s]))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
