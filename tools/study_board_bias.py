#!/usr/bin/env python3
"""Study: is the fitted Carrotain board outline biased against the truth, and are the chip centres? TUNE sets only.

    python tools/study_board_bias.py --set SET [--set SET ...] [--device none,browser] [--cache DIR] [--step 2]

Reads each Carrotain photo as ``tools/study_board_sigma.py`` does (the same ``--cache`` of states), then per
challenge board of the truth read under its own id:

- every fitted outline point (every ``--step`` mm, its outward normal n): the SIGNED distance to the truth outline
  (+ the fitted point lies outside the truth board, - inside), binned by how the edge faces the camera (the cosine
  between n and the direction from the point to the camera's nadir: > 0 the side wall faces the camera) and by the
  kit's own wall parallax there (how far the bottom edge appears outside the top edge in a view at the board tops);
- the board's rigid pose error: its outline's centroid minus the truth's, split into the part away from the camera's
  nadir (radial, + away) and across it, and its rotation error;
- the same pose error split by the scene's main light (the kit's light giving the table centre the most light,
  power / distance^2): along the direction away from it (+ the outline lies towards the board's cast shadow) and
  across, and the outline points binned by how their edge faces that light (the cosine between n and the direction
  away from the light: > 0 the edge's shadow falls outside the board);
- every truth chip matched to a read chip (nearest within ``--match-mm``): the centre error, radial (+ away from the
  nadir) and across, and the decisive quantity: the chip's margin as read minus its true margin (signed distance to
  the challenge boards' union boundary, + inside), split into the board part (the true centre against the read
  boards) and the chip part (the rest), and that error over the band's sigma (``hypot(chip sigma, edge sigma)``).

The camera is the kit's (``scene.render.camera.position_m``; Blender's y is the table's -y); heights above the
marker plane (the mat's top, 1.2 mm in the kit). A bias shows as a mean (not only a spread) that depends on the
geometry: it is modelled in the reader, never special-cased to the renderer.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import shapely

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.eval_photoreal import Item, load_items  # noqa: E402
from tools.study_board_sigma import cached_states  # noqa: E402

#: Kit geometry above the marker plane (the mat's top): a challenge board's bottom and top faces, mm.
KIT_MARKER_Z_MM = 1.2
KIT_BOARD_BOTTOM_MM = 3.25 - KIT_MARKER_Z_MM
KIT_BOARD_TOP_MM = 6.25 - KIT_MARKER_Z_MM
VIEW_Z_MM = 5.0  # the product's board-top view


def camera_of(item: Item) -> tuple[np.ndarray, float, float]:
    """(camera nadir xy table mm (2,), height above the marker plane mm, tilt deg) of the kit's camera."""
    cam = item.doc["scene"]["render"]["camera"]
    x, y, z = cam["position_m"]
    return np.array([1000.0 * x, -1000.0 * y]), 1000.0 * z - KIT_MARKER_Z_MM, float(cam.get("tilt_deg", 0.0))


def light_of(item: Item) -> tuple[np.ndarray, float]:
    """(unit vector in the table frame pointing away from the scene's main light (2,), cot of its elevation).

    The main light is the kit's light giving the table centre the most light (``power_w / distance_m^2``). The kit
    places a light at azimuth a in Blender's frame (``cos a, sin a``), whose y is the table's -y: seen from the table
    the light lies towards (cos a, -sin a), and a board's shadow falls the other way.
    """
    lights = item.doc["scene"]["render"].get("lights") or []
    if not lights:
        return np.zeros(2), 0.0
    main = max(lights, key=lambda light: float(light["power_w"]) / float(light["distance_m"]) ** 2)
    az, el = np.radians(float(main["azimuth_deg"])), np.radians(float(main["elevation_deg"]))
    return np.array([-np.cos(az), np.sin(az)]), float(1.0 / np.tan(el))


def _samples(outline: np.ndarray, step_mm: float) -> tuple[np.ndarray, np.ndarray]:
    from vision.acrylic import outline_samples

    return outline_samples(outline, step_mm)


def board_rows(item: Item, state, device: str, set_name: str, step_mm: float) -> list[dict]:
    """Per challenge board read under its truth id: point errors and the rigid pose error."""
    nadir, height, tilt = camera_of(item)
    shadow_dir, light_cot = light_of(item)
    rows = []
    for tb in item.doc["scene"]["boards"]:
        if tb.get("role") != "challenge" or "tilt" in tb:
            continue
        read = [b for b in state.boards if b.id == tb["id"] and b.role == "challenge"]
        if not read:
            continue
        b = read[0]
        truth_xy = np.asarray(tb["outline_mm"], dtype=np.float64)
        truth = shapely.Polygon(truth_xy)
        fit_xy = np.asarray(b.outline_mm, dtype=np.float64)
        P, N = _samples(fit_xy, step_mm)
        d = shapely.distance(truth.exterior, shapely.points(P))
        signed = np.where(shapely.contains_xy(truth, P[:, 0], P[:, 1]), -d, d)
        to_cam = nadir - P
        r = np.hypot(*to_cam.T)
        facing = np.sum(N * to_cam, axis=1) / np.maximum(r, 1e-9)
        kit_wall = np.maximum(np.sum(N * to_cam, axis=1), 0.0) * (KIT_BOARD_TOP_MM - KIT_BOARD_BOTTOM_MM) / (
            height - KIT_BOARD_BOTTOM_MM)
        c_fit = np.asarray(shapely.centroid(shapely.Polygon(fit_xy)).coords[0])
        c_true = np.asarray(truth.centroid.coords[0])
        away = c_true - nadir
        away = away / max(float(np.hypot(*away)), 1e-9)
        dc = c_fit - c_true
        rot_err = (float(_rotation_of(b, tb)) + 180.0) % 360.0 - 180.0
        rows.append({"set": set_name, "device": device, "name": item.name, "board": b.id, "tilt": tilt,
                     "height": height, "signed": signed, "facing": facing, "kit_wall": kit_wall,
                     "abs_mean": float(np.mean(np.abs(signed))), "radial": float(dc @ away),
                     "across": float(dc @ np.array([-away[1], away[0]])), "rot_deg": rot_err,
                     "dist_nadir": float(np.hypot(*(c_true - nadir))),
                     "shadow_facing": N @ shadow_dir, "along_light": float(dc @ shadow_dir),
                     "across_light": float(dc @ np.array([-shadow_dir[1], shadow_dir[0]])), "light_cot": light_cot})
    return rows


def _rotation_of(b, tb) -> float:
    """Fitted minus true rotation of a board, degrees: the angle of the outline's first edge."""
    f = np.asarray(b.outline_mm, dtype=np.float64)
    t = np.asarray(tb["outline_mm"], dtype=np.float64)
    if len(f) != len(t):
        return float("nan")
    af = np.degrees(np.arctan2(*(f[1] - f[0])[::-1]))
    at = np.degrees(np.arctan2(*(t[1] - t[0])[::-1]))
    return float(af - at)


def chip_rows(item: Item, state, device: str, set_name: str, match_mm: float) -> list[dict]:
    """Per truth chip matched to a read chip: centre error (radial / across the nadir direction) and margin error."""
    nadir, _, tilt = camera_of(item)
    truth_boards = [shapely.Polygon(np.asarray(tb["outline_mm"], dtype=np.float64))
                    for tb in item.doc["scene"]["boards"] if tb.get("role") == "challenge"]
    read_idx = [i for i, b in enumerate(state.boards) if b.role == "challenge"]
    if len(read_idx) < 2 or len(truth_boards) < 2 or not state.chips:
        return []
    true_union = shapely.union_all(truth_boards)
    read_polys = [shapely.Polygon(np.asarray(state.boards[i].outline_mm, dtype=np.float64)) for i in read_idx]
    read_union = shapely.union_all(read_polys)
    read_xy = np.array([c.xy_mm for c in state.chips], dtype=np.float64)
    rows = []
    for tc in item.doc["scene"]["chips"]:
        t = np.asarray(tc["xy_mm"], dtype=np.float64)
        dist = np.hypot(*(read_xy - t).T)
        k = int(np.argmin(dist))
        if dist[k] > match_mm:
            continue
        c = state.chips[k]
        e = read_xy[k] - t
        away = t - nadir
        away = away / max(float(np.hypot(*away)), 1e-9)
        m_true = _margin(true_union, t)
        m_board = _margin(read_union, t)
        m_read = _margin(read_union, read_xy[k])
        nearest = int(np.argmin([shapely.distance(p.exterior, shapely.Point(*read_xy[k])) for p in read_polys]))
        edge_sigma = float(state.boards[read_idx[nearest]].edge_sigma_mm(read_xy[k][None])[0])
        sigma = float(np.hypot(c.centre_sigma_mm, edge_sigma))
        rows.append({"set": set_name, "device": device, "name": item.name, "tilt": tilt, "radial": float(e @ away),
                     "across": float(e @ np.array([-away[1], away[0]])), "err": float(np.hypot(*e)),
                     "m_true": m_true, "m_err": m_read - m_true, "m_board": m_board - m_true,
                     "m_chip": m_read - m_board, "sigma": sigma, "chip_sigma": float(c.centre_sigma_mm),
                     "edge_sigma": edge_sigma})
    return rows


def _margin(union, xy: np.ndarray) -> float:
    d = float(shapely.distance(shapely.boundary(union), shapely.Point(*xy)))
    return d if shapely.intersects_xy(union, float(xy[0]), float(xy[1])) else -d


def _stats(v: np.ndarray) -> str:
    if len(v) == 0:
        return "n 0"
    return (f"n {len(v):5d}  mean {np.mean(v):+6.2f}  median {np.median(v):+6.2f}  |mean| {np.mean(np.abs(v)):5.2f}"
            f"  sd {np.std(v):5.2f}")


def report_boards(rows: list[dict], title: str) -> None:
    if not rows:
        print(f"\n== {title}: no boards")
        return
    signed = np.concatenate([r["signed"] for r in rows])
    facing = np.concatenate([r["facing"] for r in rows])
    wall = np.concatenate([r["kit_wall"] for r in rows])
    print(f"\n== {title}: {len(rows)} boards")
    print(f"  outline points, signed (+ outside truth)  {_stats(signed)}")
    for lo, hi, label in ((-1.01, -0.5, "faces away (cos < -0.5)"), (-0.5, 0.5, "side-on (|cos| < 0.5)"),
                          (0.5, 1.01, "faces camera (cos > 0.5)")):
        m = (facing >= lo) & (facing < hi)
        print(f"    {label:28s} {_stats(signed[m])}")
    for lo, hi in ((0.0, 1e-9), (1e-9, 0.5), (0.5, 1.0), (1.0, 1.5), (1.5, 9.0)):
        m = (wall >= lo) & (wall < hi) if hi > 1e-9 else wall <= 0
        print(f"    kit wall parallax {lo:3.1f}-{hi:3.1f} mm     {_stats(signed[m])}")
    radial = np.array([r["radial"] for r in rows])
    across = np.array([r["across"] for r in rows])
    rot = np.array([r["rot_deg"] for r in rows])
    print(f"  board centroid error, radial (+ away from nadir) {_stats(radial)}")
    print(f"  board centroid error, across                     {_stats(across)}")
    print(f"  board rotation error, deg                        {_stats(rot[np.isfinite(rot)])}")
    shadow_facing = np.concatenate([r["shadow_facing"] for r in rows])
    for lo, hi, label in ((-1.01, -0.5, "edge faces the light"), (-0.5, 0.5, "side-on to the light"),
                          (0.5, 1.01, "edge faces its shadow")):
        m = (shadow_facing >= lo) & (shadow_facing < hi)
        print(f"    {label:28s} {_stats(signed[m])}")
    along = np.array([r["along_light"] for r in rows])
    cot = np.array([r["light_cot"] for r in rows])
    print(f"  board centroid error, away from the main light   {_stats(along)}")
    print(f"  board centroid error, across the main light      {_stats(np.array([r['across_light'] for r in rows]))}")
    if len(rows) > 2 and np.std(cot) > 0:
        print(f"    correlation of the error away from the light with cot(its elevation): "
              f"{np.corrcoef(along, cot)[0, 1]:+.2f}; percentiles 10/50/90/95 of it: "
              + " ".join(f"{v:+.2f}" for v in np.percentile(along, [10, 50, 90, 95])))
    print(f"  board mean |point error|                         {_stats(np.array([r['abs_mean'] for r in rows]))}")
    tilt = np.array([r["tilt"] for r in rows])
    for lo, hi in ((0, 10), (10, 20), (20, 30), (30, 90)):
        m = (tilt >= lo) & (tilt < hi)
        if m.any():
            print(f"    tilt {lo:2d}-{hi:2d} deg: radial {_stats(radial[m])}   |pt| "
                  f"{np.mean([r['abs_mean'] for r, k in zip(rows, m) if k]):.2f}")
    by_board: dict[str, list[float]] = {}
    for r in rows:
        by_board.setdefault(r["board"], []).append(r["abs_mean"])
    print("  per board id, mean |point error|: " + "  ".join(f"{k} {np.mean(v):.2f} ({len(v)})"
                                                          for k, v in sorted(by_board.items())))


def report_chips(rows: list[dict], title: str) -> None:
    if not rows:
        return
    get = lambda k: np.array([r[k] for r in rows])  # noqa: E731
    print(f"  chips ({title}): centre error |e| {_stats(get('err'))}")
    print(f"    radial (+ away from nadir)        {_stats(get('radial'))}")
    print(f"    across                            {_stats(get('across'))}")
    near = np.abs(get("m_true")) < 15.0
    print(f"    margin error (read - true), chips within 15 mm of an edge: {_stats(get('m_err')[near])}")
    print(f"      board part                      {_stats(get('m_board')[near])}")
    print(f"      chip part                       {_stats(get('m_chip')[near])}")
    z = np.abs(get("m_err")[near]) / np.maximum(get("sigma")[near], 1e-9)
    if len(z):
        print(f"    |margin error| / band sigma: median {np.median(z):.2f}  beyond 2.5: {100 * np.mean(z > 2.5):.1f} %"
              f"  median band sigma {np.median(get('sigma')[near]):.2f} mm (chip {np.median(get('chip_sigma')):.2f},"
              f" edge {np.median(get('edge_sigma')[near]):.2f})")


def main(argv: list[str] | None = None) -> int:
    from scoring.carrotain_state import CarrotainState

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", action="append", required=True, help="a photoreal set folder (repeatable)")
    ap.add_argument("--device", default="none", help="comma-separated: none, phone, webcam, browser")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", type=Path, default=None, help="folder the states are cached in")
    ap.add_argument("--step", type=float, default=2.0, help="outline sample step, mm")
    ap.add_argument("--match-mm", type=float, default=8.0, help="largest truth-to-read chip distance matched")
    ap.add_argument("--per-board", action="store_true", help="one line per board")
    args = ap.parse_args(argv)
    all_b: list[dict] = []
    all_c: list[dict] = []
    for set_dir in (Path(s) for s in args.set):
        items = load_items(set_dir, ("carrotain",))
        for device in args.device.split(","):
            recs = cached_states(items, set_dir.name, device, args.seed, args.cache)
            brows, crows = [], []
            for it, rec in zip(items, recs, strict=True):
                if not rec.get("state"):
                    continue
                st = CarrotainState.from_json(rec["state"])
                brows += board_rows(it, st, device, set_dir.name, args.step)
                crows += chip_rows(it, st, device, set_dir.name, args.match_mm)
            report_boards(brows, f"{set_dir.name} / {device}")
            report_chips(crows, f"{set_dir.name} / {device}")
            if args.per_board:
                for r in brows:
                    print(f"    {r['name']:28s} {r['board']}  tilt {r['tilt']:4.1f}  |pt| {r['abs_mean']:.2f}  "
                          f"radial {r['radial']:+.2f}  across {r['across']:+.2f}  rot {r['rot_deg']:+.2f}  "
                          f"away from the light {r['along_light']:+.2f}")
            all_b += brows
            all_c += crows
    for device in args.device.split(","):
        report_boards([r for r in all_b if r["device"] == device], f"all sets / {device}")
        report_chips([r for r in all_c if r["device"] == device], f"all sets / {device}")
    report_boards(all_b, "all sets and devices")
    report_chips(all_c, "all sets and devices")
    return 0


if __name__ == "__main__":
    sys.exit(main())
