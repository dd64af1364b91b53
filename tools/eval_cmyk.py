"""Accuracy of the CMYK! recognizer over many seeded synthetic photos.

Usage: ``python tools/eval_cmyk.py --seeds 200 [--start 0] [--hard-every 4]``

Each seed renders a legal random mosaic (10-35 tiles, K tiles sometimes) with ``synth.samples.cmyk.render_scene``
(``synth.photo`` when present, else the stand-in pinhole renderer: tilt 0-40, yaw, fov 60-72, light
gain/cast, noise, blur, JPEG); every ``--hard-every``-th seed uses the hard conditions. Detected tiles are
matched to true tiles by table position (a detection more than 10 mm from every true centroid is extra).
``--markerless`` ignores the markers and builds the frame from the tiles (``vision.cmyk_markerless``).
Prints tile recall/precision, per-edge colour and level accuracy, K-tile recall/precision, exact tile
reading, exact hexagon count per mosaic, exact total (when ``scoring.cmyk`` is importable), flag rates
and timing.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.table import CalibrationError, calibrate_from_markers  # noqa: E402
from geometry import trilattice as tl  # noqa: E402
from judge.games.cmyk import MARKERLESS_CONFIDENCE, _hexagon_vertices  # noqa: E402
from judge.timing import StageTimer  # noqa: E402
from scoring.cmyk_state import EdgeReading, MosaicState, TileReading  # noqa: E402
from synth.samples.cmyk import render_scene  # noqa: E402
from vision.cmyk import CmykVisionConfig, detect_mosaic  # noqa: E402
from vision.cmyk_markerless import lattice_calibration  # noqa: E402


def evaluate(seed: int, hard: bool, markerless: bool = False) -> dict:
    """One seed's figures (tiles and edges matched in image pixels, so any table frame works)."""
    image, scene, photo = render_scene(seed, hard=hard)
    out = {"seed": seed, "hard": hard, "n_true": len(scene.tiles)}
    timer = StageTimer()
    t0 = time.perf_counter()
    if markerless:
        cal = lattice_calibration(image, lambda img, c: detect_mosaic(img, c))
        if cal is None:
            out["nocal"] = True
            return out
    else:
        try:
            cal = calibrate_from_markers(image)
        except CalibrationError:
            out["nocal"] = True
            return out
    frame_ms = (time.perf_counter() - t0) * 1000
    config = replace(CmykVisionConfig(), confidence_scale=MARKERLESS_CONFIDENCE) if markerless else CmykVisionConfig()
    det = detect_mosaic(image, cal, timer, config)
    out["ms"] = sum(timer.ms.values())
    out["frame_ms"] = frame_ms
    if det is None:
        out.update(n_det=0, matched=0, edges=0, colour_ok=0, level_ok=0, tile_ok=0, k_true=0, k_det=0, k_hit=0,
                   hex_ok=False, flagged=0, wrong_unflagged=0)
        return out
    e = det.frame.edge_mm

    def true_px(xy_mm):
        xy = np.asarray(xy_mm, np.float64).reshape(-1, 2)
        return photo.project(np.c_[xy, np.full(len(xy), 3.0)])

    def det_px(xy_lattice):
        xy = det.frame.to_table(np.asarray(xy_lattice).reshape(-1, 2))
        f = getattr(cal, "mm_to_px_at_height", None)
        return np.asarray(f(xy, 3.0)) if f is not None else cal.mm_to_px(xy)

    cents = true_px(np.array([t.vertices_mm.mean(axis=0) for t in scene.tiles]))
    v0 = true_px(scene.tiles[0].vertices_mm)
    px_per_mm = float(np.linalg.norm(v0[1] - v0[0]) / e)
    matched = colour_ok = level_ok = edges = tile_ok = k_hit = 0
    wrong_unflagged = right_doubted = 0
    flagged_cells = {tuple(c) for f in det.state.flags for c in f.data.get("cells", [])}
    for r in det.state.tiles:
        c = det_px(np.array(tl.cell_centroid(*r.cell, e)))[0]
        d = np.linalg.norm(cents - c, axis=1)
        k = int(np.argmin(d))
        if d[k] > 10 * px_per_mm:
            continue
        matched += 1
        t = scene.tiles[k]
        ok_all = r.kind == t.kind
        true_mids = {tdn: true_px(np.mean(_true_edge(t, tdn, t.vertices_mm), axis=0))[0] for tdn in t.edges}
        for dn, er in r.edges.items():
            mid = det_px(np.mean(tl.edge_endpoints(*r.cell, dn, e), axis=0))[0]
            tdn = min(true_mids, key=lambda q: np.linalg.norm(true_mids[q] - mid))
            tcol, tlv = t.edges[tdn]
            edges += 1
            colour_ok += tcol == er.colour
            lv_ok = (r.kind == "k" and t.kind == "k") or (r.kind == t.kind == "normal" and tlv == er.level)
            level_ok += bool(lv_ok and tcol == er.colour)
            ok_all &= bool(lv_ok and tcol == er.colour)
        tile_ok += ok_all
        k_hit += r.kind == "k" and t.kind == "k"
        doubted = r.cell in flagged_cells or r.confidence < 0.6
        if not ok_all and not doubted:
            wrong_unflagged += 1
        if ok_all and doubted:
            right_doubted += 1
    true_cells = {t.cell for t in scene.tiles}
    det_cells = {t.cell for t in det.state.tiles}
    out.update(n_det=len(det.state.tiles), matched=matched, edges=edges, colour_ok=colour_ok, level_ok=level_ok,
               tile_ok=tile_ok, k_true=sum(t.kind == "k" for t in scene.tiles),
               k_det=sum(t.kind == "k" for t in det.state.tiles), k_hit=k_hit,
               hex_ok=len(_hexagon_vertices(true_cells)) == len(_hexagon_vertices(det_cells)),
               flagged=len(det.state.flags), wrong_unflagged=wrong_unflagged, right_doubted=right_doubted,
               timings=timer.ms)
    out["total_ok"] = _total_ok(scene, det.state)
    return out


def _true_edge(t, dn, tv):
    if tl.is_up(*t.cell):
        pairs = {"H": (0, 1), "P": (0, 2), "N": (1, 2)}
    else:
        pairs = {"H": (1, 2), "N": (0, 2), "P": (0, 1)}
    a, b = pairs[dn]
    return tv[a], tv[b]


def _total_ok(scene, state: MosaicState) -> bool | None:
    try:
        from scoring.cmyk import parse_cmyk_context, score_game
    except ImportError:
        return None
    truth = MosaicState(tiles=tuple(
        TileReading(cell=t.cell, kind=t.kind, edges={d: EdgeReading(c, lv) for d, (c, lv) in t.edges.items()})
        for t in scene.tiles))
    ctx = {"players": [{"name": "P", "personal_card": {"colour": "cyan", "level": 1}}],
           "public_cards": ["like_this_tile", "use_many"]}
    players, cards, answers = parse_cmyk_context(ctx)
    a = score_game(players, [truth], cards, answers).scores["P"]
    b = score_game(players, [state], cards, answers).scores["P"]
    return a == b


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--hard-every", type=int, default=4, help="every N-th seed uses hard conditions (0: none)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per photo with a miss")
    ap.add_argument("--markerless", action="store_true", help="ignore the markers: frame from the tile lattice")
    args = ap.parse_args(argv)
    rows = []
    for s in range(args.start, args.start + args.seeds):
        hard = args.hard_every > 0 and s % args.hard_every == args.hard_every - 1
        rows.append(evaluate(s, hard, args.markerless))
        r = rows[-1]
        if args.verbose and (r.get("nocal") or r.get("matched", 0) < r["n_true"] or r.get("tile_ok", 0) < r.get(
                "matched", 0)):
            print(f"seed {s}{' hard' if hard else ''}: true {r['n_true']} found {r.get('n_det')} matched "
                  f"{r.get('matched')} exact {r.get('tile_ok')} wrong-unflagged {r.get('wrong_unflagged')}"
                  f"{' NO FRAME' if r.get('nocal') else ''}", flush=True)
    for label, sel in (("all", rows), ("normal", [r for r in rows if not r["hard"]]),
                       ("hard", [r for r in rows if r["hard"]])):
        ok = [r for r in sel if not r.get("nocal")]
        if not ok:
            continue
        tot = {k: sum(r.get(k, 0) for r in ok) for k in ("n_true", "n_det", "matched", "edges", "colour_ok",
                                                           "level_ok", "tile_ok", "k_true", "k_det", "k_hit",
                                                           "wrong_unflagged", "right_doubted")}
        ms = np.array([r["ms"] for r in ok if "ms" in r])
        fms = np.array([r["frame_ms"] for r in ok if "frame_ms" in r])
        totals = [r["total_ok"] for r in ok if r.get("total_ok") is not None]
        print(f"[{label}] photos {len(sel)} (no markers found: {len(sel) - len(ok)})")
        print(f"  tile recall {tot['matched'] / max(1, tot['n_true']):.4f}  precision "
              f"{tot['matched'] / max(1, tot['n_det']):.4f}  "
              f"({tot['matched']}/{tot['n_true']} true, {tot['n_det']} found)")
        print(f"  edge colour acc {tot['colour_ok'] / max(1, tot['edges']):.4f}  edge level acc "
              f"{tot['level_ok'] / max(1, tot['edges']):.4f}  ({tot['edges']} edges)")
        print(f"  tiles read exactly {tot['tile_ok'] / max(1, tot['matched']):.4f}  wrong and not flagged "
              f"{tot['wrong_unflagged']}  right but flagged {tot['right_doubted']}")
        print(f"  K tiles: {tot['k_hit']}/{tot['k_true']} found, {tot['k_det'] - tot['k_hit']} false")
        print(f"  exact hexagon count {np.mean([r['hex_ok'] for r in ok]):.4f}  exact total "
              + (f"{np.mean(totals):.4f}" if totals else "n/a (scoring.cmyk missing)"))
        print(f"  mosaics with any flag {np.mean([r.get('flagged', 0) > 0 for r in ok]):.3f}")
        if len(ms):
            print(f"  detect ms: median {np.median(ms):.0f}, p90 {np.percentile(ms, 90):.0f}, max {ms.max():.0f}; "
                  f"table frame (markers or lattice) ms: median {np.median(fms):.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
