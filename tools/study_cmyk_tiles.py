"""Study CMYK! readings tile by tile against a photoreal set's truth (a development tool, not used by the product).

    python tools/study_cmyk_tiles.py --set SET [--device none|phone|webcam|browser] [--seed N] [--name SUBSTR]

Judges every CMYK! item of the set in process (``tools/eval_photoreal.py``'s pipeline), matches each read tile to
the truth tile under its centroid (table mm, through the mosaic's lattice frame) and prints every tile whose
reading differs from the truth: kind, the levels per ink, the tile's confidence and whether a flag names its cell
(``sure`` when none does: a silent misread). Truth tiles no read tile lands on are counted as missed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.blas import single_thread_blas  # noqa: E402
from geometry import trilattice as tl  # noqa: E402
from tools.eval_photoreal import judge_in_process, load_items, photo_as_delivered  # noqa: E402

#: A flag that names every tile of its mosaic (no cell list needed to doubt them all).
GLOBAL_DOUBTS = ("readings_unreliable", "marks_too_small")
#: (confidence, right, flagged) of every read tile matched to a truth tile.
CONF: list = []
MOSAIC = [0]


def truth_tiles(doc: dict, player: str) -> list[dict]:
    """The truth tiles of ``player``'s mosaic."""
    scene = doc["scene"]
    if "tiles" in scene:
        return scene["tiles"]
    return next(p["scene"]["tiles"] for p in scene["players"] if p["name"] == player)


def cmy(tile: dict) -> tuple:
    """(c, m, y) levels of a tile's edges (JSON, truth or reading), or "k"."""
    if tile["kind"].lower() == "k":
        return ("k",)
    lv = {e["colour"]: e["level"] for e in tile["edges"].values()}
    return (lv["cyan"], lv["magenta"], lv["yellow"])


def compare_mosaic(mosaic: dict, truth: list[dict]) -> tuple[list[dict], int]:
    """Misread tiles (with confidence and whether flagged) and the count of truth tiles missed."""
    fr = mosaic["lattice_frame"]
    t_centres = np.array([np.mean(t["vertices_mm"], axis=0) for t in truth])
    flagged: set = set()
    for f in mosaic["flags"]:
        if f["code"] in GLOBAL_DOUBTS:
            flagged |= {tuple(t["cell"]) for t in mosaic["tiles"]}
        flagged |= {tuple(c) for c in f.get("cells", [])}
    out, hit = [], set()
    for t in mosaic["tiles"]:
        t_ok = True
        c = tl.lattice_to_table(np.array([tl.cell_centroid(*t["cell"], fr["edge_mm"])]), np.asarray(fr["origin_mm"]),
                                np.asarray(fr["right"]), np.asarray(fr["up"]))[0]
        d = np.linalg.norm(t_centres - c, axis=1)
        k = int(np.argmin(d))
        if d[k] > fr["edge_mm"] / 4:
            out.append({"cell": t["cell"], "read": cmy(t), "truth": None, "conf": t["confidence"],
                        "flagged": tuple(t["cell"]) in flagged})
            continue
        hit.add(k)
        t_ok = cmy(t) == cmy(truth[k])
        CONF.append((t["confidence"], t_ok, tuple(t["cell"]) in flagged, MOSAIC[0]))
        if not t_ok:
            out.append({"cell": t["cell"], "read": cmy(t), "truth": cmy(truth[k]), "conf": t["confidence"],
                        "flagged": tuple(t["cell"]) in flagged,
                        "edges": {d: e["confidence"] for d, e in t["edges"].items()}})
    return out, len(truth) - len(hit)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", required=True, type=Path)
    ap.add_argument("--device", default="none")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="")
    ap.add_argument("--dump", default="", help="save (confidence, right, flagged, mosaic) per tile here (.npy)")
    a = ap.parse_args(argv)
    single_thread_blas()  # as cli.main does
    totals = {"tiles": 0, "misread": 0, "sure": 0, "missed": 0}
    for item in load_items(a.set, ("cmyk",), name_part=a.name):
        photos = [photo_as_delivered(p, a.device, a.seed) for p in item.images]
        v = judge_in_process("cmyk", item.doc["context"], photos, [p.name for p in item.images])
        if v.state is None:
            print(f"{item.name}: exit {v.exit_code} {v.reason}")
            continue
        for m in v.state["mosaics"]:
            truth = truth_tiles(item.doc, m["player"])
            MOSAIC[0] += 1
            bad, missed = compare_mosaic(m, truth)
            totals["tiles"] += len(truth)
            totals["misread"] += len(bad)
            totals["sure"] += sum(not b["flagged"] for b in bad)
            totals["missed"] += missed
            codes = sorted({f["code"] for f in m["flags"]})
            if bad or missed:
                print(f"{item.name} {m['player']}: {len(bad)} misread, {missed} missed of {len(truth)}; flags {codes}")
            for b in bad:
                tag = "flagged" if b["flagged"] else "SURE"
                print(f"   {tag:7s} cell {b['cell']} read {b['read']} truth {b['truth']} conf {b['conf']:.2f} "
                      f"{b.get('edges', '')}")
    bins = np.array([0.0, 0.3, 0.6, 0.7, 0.8, 0.9, 0.95, 1.01])
    c = np.array(CONF, float).reshape(-1, 4)
    if a.dump:
        np.save(a.dump, c)
    which = np.digitize(c[:, 0], bins) - 1
    cells = []
    for b in range(len(bins) - 1):
        here, wrong = which == b, c[:, 1] == 0
        cells.append(f"[{bins[b]:.2f},{bins[b + 1]:.2f}): {int(here.sum())}/{int((here & wrong).sum())}"
                     f"/{int((here & wrong & (c[:, 2] == 0)).sum())}")
    print("confidence bins (tiles, wrong, wrong and not flagged):", " ".join(cells))
    print(f"device {a.device} seed {a.seed}: {totals}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
