#!/usr/bin/env python3
"""Study: is the Carrotain board outline uncertainty honest? Per outline point, on photoreal sets with truth.

    python tools/study_board_sigma.py --set SET [--set SET ...] [--device none,phone,browser] [--cache DIR]
                                      [--cov-scales 1,1.5,2] [--name SUBSTR] [--limit N] [--changes]

Each Carrotain photo of each set (as each device delivers it, ``tools/device_sim.py``) is read by the product's
own reader (``vision.carrotain.recognise``, as ``cli.py judge`` runs it); the state is cached (``--cache``) so
the analysis can be re-run without reading again. Then:

1. Outline points: every challenge board of the truth that was read under its own id is sampled along its
   fitted outline every ``--step`` mm. A point's true error is its distance to the truth outline; its predicted
   1-sigma is the board's one number (``pose_sigma_mm``, *iso*) or the per-point sigma from the pose covariance
   (``BoardReading.edge_sigma_mm``, the covariance scaled by each ``--cov-scales`` factor). Reported per set and
   device: median error / sigma, the fraction beyond 2 sigma (Gaussian: 4.6 %), p95 of error / sigma, boards
   whose worst point lies beyond 2 sigma, and the median sigma (how much wider the band gets).
2. Judgements: each state judged by the rules with the isotropic sigma and the old gate (fewer than two
   challenge boards: cannot judge) - the code before - and with the per-point sigma and the new gate
   (``judge.games.carrotain.check_challenge_boards``); outcomes by the kit's rules (``tools/eval_photoreal``):
   exact / doubt / cannot / WRONG, and how many clear photos came back contested.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import shapely

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.eval_photoreal import Item, Verdict, judge_outcome, load_items, photo_as_delivered  # noqa: E402


def read_state(item: Item, device: str, seed: int) -> dict:
    """The reader's state JSON of one photo (``{"state": ..., "warnings": [...]}``) or why it has none."""
    from core.errors import BadInput, CannotJudge
    from judge.games.carrotain import components_for
    from judge.pipeline import make_frame, parse_context
    from judge.registry import game as game_plugin
    from vision.carrotain import recognise

    plugin = game_plugin("carrotain")
    try:
        ctx = parse_context(plugin, item.doc.get("context"))
        img = photo_as_delivered(item.images[-1], device, seed)
        layout = plugin.marker_layout() if plugin.marker_layout is not None else None
        frame = make_frame(img, item.images[-1].name, None, layout)
        if frame.calibration is None:
            return {"state": None, "reason": frame.calibration_error or "no calibration"}
        state = recognise(img, frame.calibration, components=components_for(None), players=ctx.players)
    except (CannotJudge, BadInput) as exc:
        return {"state": None, "reason": str(exc)}
    return {"state": state.to_json(), "warnings": list(frame.calibration.warnings),
            "explanation": frame.calibration.describe()}


def cached_states(items: list[Item], set_name: str, device: str, seed: int, cache: Path | None) -> list[dict]:
    out = []
    for item in items:
        path = None if cache is None else cache / set_name / f"{device}_s{seed}" / f"{item.name}.json"
        if path is not None and path.exists():
            out.append(json.loads(path.read_text()))
            continue
        rec = read_state(item, device, seed)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(rec))
        print(f"  read {set_name} {device} {item.name}: "
              f"{'state' if rec['state'] else rec.get('reason')}", file=sys.stderr, flush=True)
        out.append(rec)
    return out


# ------------------------------------------------------------------ outline points


def _resample(outline: np.ndarray, step_mm: float) -> np.ndarray:
    ring = shapely.LinearRing(outline)
    n = max(int(ring.length / step_mm), 8)
    return shapely.get_coordinates(shapely.line_interpolate_point(ring, np.linspace(0, ring.length, n,
                                                                                    endpoint=False)))


def _scaled(board, k: float, f: float = 1.0):
    """The board with its pose covariance's sigma scaled by ``k`` and its floor sigma by ``f``."""
    if board.pose_cov is None:
        return board
    return replace(board, pose_cov=np.asarray(board.pose_cov) * k * k, floor_sigma_mm=board.floor_sigma_mm * f)


def outline_points(item: Item, rec: dict, step_mm: float, scales: list[tuple[float, float]]) -> list[dict]:
    """One row per (challenge board read under its truth id): errors (n,) and predicted sigmas."""
    from scoring.carrotain_state import CarrotainState

    if not rec.get("state"):
        return []
    state = CarrotainState.from_json(rec["state"])
    rows = []
    for tb in item.doc["scene"]["boards"]:
        if tb.get("role") != "challenge":
            continue
        read = [b for b in state.boards if b.id == tb["id"] and b.role != "unread"]
        if not read:
            continue
        b = read[0]
        truth = shapely.LinearRing(np.asarray(tb["outline_mm"], dtype=np.float64))
        pts = _resample(np.asarray(b.outline_mm, dtype=np.float64), step_mm)
        err = shapely.distance(truth, shapely.points(pts))
        sig = {"iso": np.full(len(pts), b.pose_sigma_mm)}
        for k, f in scales:
            sig[_label(k, f)] = _scaled(b, k, f).edge_sigma_mm(pts)
        rows.append({"name": item.name, "board": b.id, "err": err, "sig": sig})
    return rows


def _label(k: float, f: float) -> str:
    return f"cov x{k:g}" + ("" if f == 1.0 else f" floor x{f:g}")


def outline_summary(rows: list[dict]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    if not rows:
        return out
    err = np.concatenate([r["err"] for r in rows])
    for key in rows[0]["sig"]:
        sig = np.concatenate([r["sig"][key] for r in rows])
        z = err / np.maximum(sig, 1e-9)
        worst = [float(np.max(r["err"] / np.maximum(r["sig"][key], 1e-9))) for r in rows]
        out[key] = {"points": len(err), "boards": len(rows), "median_z": float(np.median(z)),
                    "beyond_2": float(np.mean(z > 2.0)), "beyond_25": float(np.mean(z > 2.5)),
                    "p95_z": float(np.percentile(z, 95)),
                    "boards_worst_beyond_2": int(np.sum(np.array(worst) > 2.0)),
                    "median_sigma_mm": float(np.median(sig)), "p95_sigma_mm": float(np.percentile(sig, 95))}
    return out


# ------------------------------------------------------------------ judgements


def judge_state(item: Item, rec: dict, k: tuple[float, float] | None, new_gate: bool) -> tuple[str, str]:
    """(outcome, got) of one cached state judged with the isotropic sigma (``k`` None) or the per-point one."""
    from core.errors import CannotJudge
    from judge.games.carrotain import check_challenge_boards
    from judge.pipeline import adjudicate, parse_context
    from judge.registry import game as game_plugin
    from scoring.carrotain_state import CarrotainState

    if not rec.get("state"):
        return "cannot", str(rec.get("reason"))
    plugin = game_plugin("carrotain")
    state = CarrotainState.from_json(rec["state"])
    if k is None:
        state = replace(state, boards=tuple(replace(b, pose_cov=None) for b in state.boards))
    else:
        state = replace(state, boards=tuple(_scaled(b, *k) for b in state.boards))
    if not state.chips:
        return "cannot", "no chips found on the mat"
    try:
        if new_gate:
            check_challenge_boards(state)
        elif sum(b.role == "challenge" for b in state.boards) < 2:
            raise CannotJudge("fewer than 2 challenge boards")
    except CannotJudge as exc:
        return "cannot", str(exc)
    out = adjudicate(plugin, state, parse_context(plugin, item.doc.get("context")))
    out = json.loads(json.dumps(out))
    out.setdefault("flags", []).extend({"code": "calibration_warning", "message": w} for w in rec.get("warnings", []))
    outcome, _, got = judge_outcome(item, Verdict(out, 0, "", 0.0, rec["state"]))
    return outcome, got + (" contested" if out.get("contested") else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", action="append", required=True, help="a photoreal set folder (repeatable)")
    ap.add_argument("--device", default="none", help="comma-separated: none, phone, webcam, browser")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", type=Path, default=None, help="folder the states are cached in")
    ap.add_argument("--cov-scales", default="1", help="factors on the covariance's sigma, comma-separated")
    ap.add_argument("--floor-scales", default="1", help="factors on the floor sigma, comma-separated")
    ap.add_argument("--step", type=float, default=5.0, help="outline sample step, mm")
    ap.add_argument("--name", default="")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--skip-missing", action="store_true")
    ap.add_argument("--changes", action="store_true", help="list the photos whose outcome changed")
    args = ap.parse_args(argv)
    scales = [(float(k), float(f)) for f in args.floor_scales.split(",") if f for k in args.cov_scales.split(",") if k]
    configs: list[tuple[str, tuple[float, float] | None, bool]] = [("iso, old gate", None, False),
                                                                   ("iso, new gate", None, True)]
    configs += [(f"{_label(k, f)}, new gate", (k, f), True) for k, f in scales]
    all_rows: list[dict] = []
    totals: dict[str, Counter] = {c[0]: Counter() for c in configs}
    for set_dir in (Path(s) for s in args.set):
        items = load_items(set_dir, ("carrotain",), name_part=args.name, limit=args.limit,
                           skip_missing=args.skip_missing)
        for device in args.device.split(","):
            recs = cached_states(items, set_dir.name, device, args.seed, args.cache)
            rows = [r for it, rec in zip(items, recs, strict=True) for r in outline_points(it, rec, args.step,
                                                                                            scales)]
            all_rows += rows
            print(f"\n== {set_dir.name} / {device}: {len(items)} photos")
            for key, s in outline_summary(rows).items():
                print(f"  outline {key:20s} boards {s['boards']:3d} points {s['points']:5d}  median z "
                      f"{s['median_z']:.2f}  beyond 2 sigma {100 * s['beyond_2']:5.1f} %  beyond 2.5 "
                      f"{100 * s['beyond_25']:5.1f} %  p95 z {s['p95_z']:.2f}  "
                      f"worst > 2 sigma {s['boards_worst_beyond_2']:3d}  sigma median {s['median_sigma_mm']:.2f} "
                      f"p95 {s['p95_sigma_mm']:.2f} mm")
            results = {c[0]: [judge_state(it, rec, c[1], c[2]) for it, rec in zip(items, recs, strict=True)]
                       for c in configs}
            for label, res in results.items():
                cnt = Counter(o for o, _ in res)
                cats = Counter(it.category for it, (o, g) in zip(items, res, strict=True)
                               if it.category == "clear" and g.endswith("contested"))
                totals[label] += cnt
                totals[label]["clear contested"] += cats["clear"]
                print(f"  judged {label:30s} exact {cnt['exact']:3d}  doubt {cnt['doubt']:3d}  cannot "
                      f"{cnt['cannot']:3d}  WRONG {cnt['WRONG']:3d}  error {cnt['error']:3d}  "
                      f"(clear photos contested {cats['clear']})")
            if args.changes:
                base = results[configs[0][0]]
                for label, res in list(results.items())[1:]:
                    for it, (o0, g0), (o1, g1) in zip(items, base, res, strict=True):
                        if (o0, g0) != (o1, g1) and not (o0 == o1 == "cannot"):
                            print(f"    {label}: {it.name} [{it.category}] {o0} ({g0}) -> {o1} ({g1})")
    print("\n== all sets and devices")
    for key, s in outline_summary(all_rows).items():
        print(f"  outline {key:20s} boards {s['boards']:3d} points {s['points']:5d}  median z {s['median_z']:.2f}  "
              f"beyond 2 sigma {100 * s['beyond_2']:5.1f} %  beyond 2.5 {100 * s['beyond_25']:5.1f} %  "
              f"p95 z {s['p95_z']:.2f}  worst > 2 sigma "
              f"{s['boards_worst_beyond_2']:3d}  sigma median {s['median_sigma_mm']:.2f} mm")
    for label, cnt in totals.items():
        print(f"  judged {label:30s} exact {cnt['exact']:3d}  doubt {cnt['doubt']:3d}  cannot {cnt['cannot']:3d}  "
              f"WRONG {cnt['WRONG']:3d}  (clear photos contested {cnt['clear contested']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
