"""Measure Ingenious judging on photo pairs with truth: photoreal sets or seeded synthetic renders.

    .venv/bin/python tools/eval_ingenious.py --set SET [-v]
    .venv/bin/python tools/eval_ingenious.py --synth 0:20 [--hard] [-v] [--no-cpu]

Per pair: placement exact (the placed hexes and colours), move points exact, extra placements,
colour scores after; invalid pairs: flagged; cells: every cell of the board read on both photos
against the truth (empty or its colour), and the doubts raised; milliseconds of the after photo's
board stage (refined from the before photo's pose). Runs in-process through the same pipeline as
``cli.py judge``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PLACEMENT_WORDS = ("placement", "placed", "tile", "hex")
SCORING_CODES = ("not_one_tile", "not_neighbours", "moved_tile", "covers_symbol", "outside_play", "placed_not_seen",
                 "first_round", "occupied")


def _cells(board_json) -> dict:
    return {(int(h["qr"][0]), int(h["qr"][1])): h["colour"] for h in board_json}


def _truth_boards(doc: dict) -> tuple[dict, dict]:
    """Tile hexes on the before and after photos (photoreal scene or synth scene)."""
    sc = doc["scene"]
    if "photos" in sc:  # photoreal kit
        out = []
        for ph in sc["photos"]:
            cells = {}
            for i in ph["tiles"]:
                t = sc["tiles"][i]
                for c, col in zip(t["cells"], t["colours"], strict=True):
                    cells[(int(c[0]), int(c[1]))] = col
            out.append(cells)
        return out[0], out[1]
    from synth.ingenious import after_tiles

    def cells(tiles):
        return {(int(c[0]), int(c[1])): col for t in tiles for c, col in zip(t["cells"], t["colours"], strict=True)}

    return cells(sc["tiles"]), cells(after_tiles(sc))


INFORMATIONAL = frozenset({"calibration_warning", "tie"})


def outcome(invalid: bool, out: dict | None, err: str | None, cannot: bool, exact: bool) -> str:
    """exact / doubt (not exact, but the judgement says it is unsure) / cannot (declined, exit 3) /
    WRONG (an answer, not exact, with no doubt: the worst case) / error (bad input)."""
    if out is None:
        if invalid and cannot:
            return "exact"  # an impossible pair refused with a reason
        return "cannot" if cannot else "error"
    if exact:
        return "exact"
    doubt = [f for f in out["flags"] if f.get("code") not in INFORMATIONAL]
    return "doubt" if doubt or out.get("contested") else "WRONG"


def after_photo_cpu_ms(before_rgb, after_rgb, repeats: int = 3) -> float | None:
    """One core's CPU milliseconds for the pair's second photo: its markers (table frame) and the board
    read with the pose refined from the first photo's (best of ``repeats``; OpenCV on one thread)."""
    import cv2

    from judge.pipeline import make_frame
    from vision.ingenious import marker_layout, read_board

    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        layout = marker_layout()
        f0 = make_frame(before_rgb, layout=layout)
        if f0.calibration is None:
            return None
        prior = read_board(before_rgb, f0.calibration).pose
        best = None
        for _ in range(repeats):
            t0 = time.process_time()
            f1 = make_frame(after_rgb, layout=layout)
            if f1.calibration is None:
                return None
            read_board(after_rgb, f1.calibration, prior=prior)
            ms = (time.process_time() - t0) * 1000.0
            best = ms if best is None else min(best, ms)
        return best
    finally:
        cv2.setNumThreads(threads)


def evaluate(items, verbose: bool = False, cpu: bool = True) -> dict:
    from core.errors import BadInput, CannotJudge
    from judge.pipeline import judge_images
    from judge.registry import game as get_game
    from scoring.ingenious import START_CELLS
    from vision.ingenious import BOARD_CELLS

    game = get_game("ingenious")
    rows = []
    for name, doc, before_rgb, after_rgb in items:
        exp = doc["expected"]
        invalid = bool(exp.get("flagged")) or doc.get("category") == "invalid"
        t0 = time.perf_counter()
        cannot = False
        try:
            j = judge_images(game, [(before_rgb, "before"), (after_rgb, "after")], doc["context"])
            out, err = j.result, None
        except CannotJudge as exc:
            out, err, cannot = None, str(exc), True
        except BadInput as exc:
            out, err = None, str(exc)
        ms = (time.perf_counter() - t0) * 1000
        row = {"name": name, "invalid": invalid, "ms": ms, "error": err}
        if cpu:
            row["cpu_ms"] = after_photo_cpu_ms(before_rgb, after_rgb)
        if out is None:
            row["outcome"] = outcome(invalid, None, err, cannot, False)
            row.update(exact=row["outcome"] == "exact", flagged=False)
            rows.append(row)
            print(f"{name}: {row['outcome']}: no judgement: {err}")
            continue
        codes = [f.get("code") for f in out["flags"]]
        flagged = any(c in SCORING_CODES for c in codes)
        row["flagged"] = flagged
        row["board_ms"] = out["timings_ms"].get("board_2")
        if invalid:
            row["exact"] = flagged
        else:
            want = {(p["qr"][0], p["qr"][1], p["colour"]) for p in exp["placed"]}
            got = {(p["qr"][0], p["qr"][1], p["colour"]) for p in out["placed"]}
            mp_w = {c: v for c, v in exp["move_points"].items() if v}
            mp_g = {c: v for c, v in out["move_points"].items() if v}
            row["placed"] = want == got and not flagged
            row["move_points"] = mp_w == mp_g and not flagged
            row["extra"] = out["extra_placements"] == exp["extra_placements"]
            row["colour_scores"] = all(out["colour_scores"].get(p) == {c: int(v) for c, v in s.items()}
                                       for p, s in exp["colour_scores"].items())
            row["exact"] = row["placed"] and row["move_points"] and row["extra"] and row["colour_scores"]
            row["contested"] = "contested" in codes
            # points scored without any doubt on the placement or its lines, and wrong: the silent case
            row["silent_wrong_points"] = not flagged and not row["move_points"] and not row["contested"]
        row["outcome"] = outcome(invalid, out, None, False, row["exact"])
        # cells: the after photo's reading against the truth, every board cell
        tb, ta = _truth_boards(doc)
        got_a = _cells(out["board"])
        cells = [c for c in BOARD_CELLS if c not in START_CELLS]
        wrong = [(c, ta.get(c), got_a.get(c)) for c in cells if ta.get(c) != got_a.get(c)]
        row["cells"] = len(cells)
        row["cells_wrong"] = len(wrong)
        doubts = next((f.get("cells", []) for f in out["flags"] if f.get("code") == "uncertain_cells"), [])
        row["doubts"] = len(doubts)
        doubt_cells = {tuple(d["qr"]) for d in doubts}
        row["wrong_undoubted"] = sum(1 for c, _, _ in wrong if c not in doubt_cells)
        rows.append(row)
        if verbose or not row["exact"]:
            cpu_txt = f" cpu {row['cpu_ms']:.1f} ms" if row.get("cpu_ms") is not None else ""
            print(f"{name}: {row['outcome']} invalid={invalid} flags={codes} "
                  f"cells wrong {len(wrong)} {wrong[:4]} doubts {len(doubts)} board_2 {row['board_ms']} ms"
                  f"{cpu_txt}")
            if not row["exact"] and not invalid:
                print(f"    want placed={sorted((p['qr'][0], p['qr'][1], p['colour']) for p in exp['placed'])} "
                      f"move={exp['move_points']} extra={exp['extra_placements']}")
                print(f"    got  placed={sorted((p['qr'][0], p['qr'][1], p['colour']) for p in out['placed'])} "
                      f"move={out['move_points']} extra={out['extra_placements']}")
    valid = [r for r in rows if not r["invalid"]]
    inval = [r for r in rows if r["invalid"]]
    n_cells = sum(r.get("cells", 0) for r in rows)
    wrong = sum(r.get("cells_wrong", 0) for r in rows)
    bms = sorted(r["board_ms"] for r in rows if r.get("board_ms") is not None)
    cms = sorted(r["cpu_ms"] for r in rows if r.get("cpu_ms") is not None)
    outcomes = {k: sum(1 for r in rows if r["outcome"] == k) for k in ("exact", "doubt", "cannot", "WRONG", "error")}
    summary = {
        "pairs": len(rows),
        "valid": len(valid),
        "placement_exact": sum(1 for r in valid if r.get("placed")),
        "move_points_exact": sum(1 for r in valid if r.get("move_points")),
        "judgement_exact": sum(1 for r in valid if r.get("exact")),
        "invalid": len(inval),
        "invalid_flagged": sum(1 for r in inval if r.get("exact")),
        "contested": sum(1 for r in valid if r.get("contested")),
        "silent_wrong_points": sum(1 for r in valid if r.get("silent_wrong_points")),
        "outcomes": outcomes,
        "cells": n_cells,
        "cells_wrong": wrong,
        "cells_wrong_undoubted": sum(r.get("wrong_undoubted", 0) for r in rows),
        "cell_accuracy": round(1 - wrong / n_cells, 5) if n_cells else None,
        "after_board_wall_ms_p50": bms[len(bms) // 2] if bms else None,
        "after_photo_cpu_ms_p50": round(cms[len(cms) // 2], 1) if cms else None,
        "after_photo_cpu_ms_max": round(cms[-1], 1) if cms else None,
    }
    return summary


def photoreal_items(set_dir: Path):
    import cv2

    for tp in sorted((set_dir / "truth" / "ingenious").glob("*.json")):
        doc = json.loads(tp.read_text())
        imgs = [set_dir / "images" / "ingenious" / n for n in doc["images"]]
        if not all(p.exists() for p in imgs):
            continue
        rgb = [cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB) for p in imgs]
        yield tp.stem, doc, rgb[0], rgb[1]


def synth_items(lo: int, hi: int, hard: bool = False):
    from synth.ingenious import render_pair

    for seed in range(lo, hi):
        p = render_pair(seed, hard=hard)
        yield f"synth{'_hard' if hard else ''}_{seed}", p.truth, p.before_rgb, p.after_rgb


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", help="photoreal set folder (truth/ingenious, images/ingenious)")
    ap.add_argument("--synth", help="seed range LO:HI of synthetic pairs")
    ap.add_argument("--hard", action="store_true", help="synthetic pairs in hard conditions (hands, casts, glare)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--no-cpu", action="store_true", help="skip the CPU-time measurement of the second photo")
    a = ap.parse_args(argv)
    if a.set:
        items = photoreal_items(Path(a.set))
    elif a.synth:
        lo, hi = (int(x) for x in a.synth.split(":"))
        items = synth_items(lo, hi, a.hard)
    else:
        ap.error("give --set or --synth")
    print(json.dumps(evaluate(items, a.verbose, cpu=not a.no_cpu), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
