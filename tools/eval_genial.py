"""Measure Genial Spezial judging on photo pairs with truth: photoreal sets or seeded synthetic renders.

    .venv/bin/python tools/eval_genial.py --set SET [--values setup|values|none|all] [--name SUBSTR] [-v]
    .venv/bin/python tools/eval_genial.py --synth 0:20 [--hard] [--values ...] [--device webcam [--seed N]] [-v]
    .venv/bin/python tools/eval_genial.py --set SET --report OUT.json
    .venv/bin/python tools/eval_genial.py --set SET --device webcam [--seed N]

Each pair (before, after) is judged in this process by the same pipeline as ``cli.py judge`` (the context as the
truth file gives it), once per ``--values`` mode:

- ``setup``: the context also carries ``token_values`` with each token's light value and symbol (from the truth's
  towers), as the page has them from the players at the set-up (a token's 4 mm numeral is a few pixels tall in a
  photo, and a thin symbol may be too);
- ``values``: the light values only (the symbols read from the photos);
- ``none``: the context as given, token values and symbols read from the photos (or assumed).

Per pair: the photoreal kit's rules (``tools/photoreal_compare.compare_genial``: placement, move points and
symbol scores exact; ``invalid`` pairs: a placement / board / tile flag or exit 3) and one outcome:

- ``exact``: right by the kit's rules, and not refused (no not-scored flag on a clean pair);
- ``doubt``: not exact, and the judgement says it is unsure: a flag that questions the result (anything but the
  notices in ``NOTICES``);
- ``cannot``: the judge declined (exit 3) and said why;
- ``WRONG``: an answer, not exact, without such a flag (a silent wrong verdict: must be 0);
- ``error``: exit 2 / 1.

And the reading itself against the truth, on both photos: every free cell of the board (empty or its colour; the
unreadable ones counted apart, a wrong cell not marked unreadable is "wrong, undoubted"), every tower's token
(symbol, side: read wrong, or unread = doubt; value, of every token seen: right and sure, said doubtful (right or
not), wrong and sure - the silent misreads), the board stage's milliseconds. The judge runs on one core (OpenCV and
the BLAS pools limited to one thread, as ``cli.py bench`` measures).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.photoreal_compare import compare_genial  # noqa: E402

#: Flags that are notices to the players, not doubt about the judgement.
NOTICES = frozenset({"token_to_turn", "token_unread_note", "cells_unreadable", "scores_unchecked", "towers_unseen"})
MODES = ("setup", "values", "none")

Cell = tuple[int, int]


def _qr(v) -> Cell:
    return int(v[0]), int(v[1])


def truth_photos(doc: dict) -> list[tuple[dict[Cell, str], dict[Cell, dict]]]:
    """Per photo (before, after): the tile hexes on the board {cell: colour} and the tokens {cell: {symbol, dark,
    value}}, from a photoreal kit scene or a synthetic render's scene."""
    sc = doc["scene"]
    if "photos" in sc:   # photoreal kit
        out = []
        for ph in sc["photos"]:
            cells: dict[Cell, str] = {}
            for i in ph["tiles"]:
                t = sc["tiles"][i]
                if t.get("cells"):   # earlier tiles ("board"), the new one ("move"), a second one ("extra")
                    cells |= {_qr(c): t["colour"] for c in t["cells"]}
            out.append((cells, {_qr(k["qr"]): k for k in ph["tokens"]}))
        return out
    from judge.games.genial import board
    from scoring.genial import GameSetup, Placement, Tower

    setup = GameSetup(sc["players"], tuple(Tower.from_json(t) for t in sc["towers"]))
    moves = [Placement.from_json(m) for m in sc["moves_before"]]
    out = []
    for ms in (moves, moves + [Placement.from_json(sc["move"])]):
        g = setup.replay(board(), ms)
        out.append(({c: sc["players"][p] for c, p in g.owner.items()},
                     {t.qr: {"symbol": t.symbol, "dark": t.dark, "value": t.value} for t in g.tower_list()}))
    return out


def token_setup(doc: dict, symbols: bool = True) -> list[dict]:
    """The context field ``token_values`` from the truth's towers (what the players tell the page): light values,
    and the symbols too unless ``symbols`` is False."""
    return [{"qr": list(t["qr"]), "light": int(t["light"])} | ({"symbol": t["symbol"]} if symbols else {})
            for t in doc["scene"]["towers"]]


def expected_of(doc: dict) -> dict:
    """The truth's expected judgement (photoreal: given; synthetic: the rules on the true boards)."""
    if "expected" in doc:
        return doc["expected"]
    from judge.games.genial import board
    from scoring.genial import GameSetup, Placement, Tower
    from scoring.genial_judgement import GenialContext, GenialReading, judge_placement

    sc = doc["scene"]
    setup = GameSetup(sc["players"], tuple(Tower.from_json(t) for t in sc["towers"]))
    moves = [Placement.from_json(m) for m in sc["moves_before"]]
    before, after = setup.replay(board(), moves), setup.replay(board(), moves + [Placement.from_json(sc["move"])])
    colours = sc["players"]
    ctx = dict(doc["context"]) | {"scores_before": {p: dict(before.scores[p]) for p in sc["players"]}}
    want = judge_placement(board(), GenialContext.from_json(ctx),
                           GenialReading({c: colours[p] for c, p in after.owner.items()}, after.tower_list()),
                           GenialReading({c: colours[p] for c, p in before.owner.items()}, before.tower_list())
                           ).to_json()
    return {"flagged": False, "mover": sc["mover"] if "mover" in sc else doc["context"]["mover"],
            "placed": want["placed"], "move_points": want["move_points"], "symbol_scores": want["symbol_scores"],
            "scored_towers": want.get("scored_towers", []), "large_bonus": want.get("large_bonus"),
            "bonus_cells": want.get("bonus_cells"), "towers": want.get("towers", []), "ranking": want["ranking"],
            "scores": want.get("scores", {})}


def _reading_score(photo, cells_truth: dict[Cell, str], tokens_truth: dict[Cell, dict], free) -> dict:
    """One photo's reading (``vision.genial.GenialPhoto``) against the truth."""
    wrong = [c for c in free if c not in photo.unreadable and photo.tiles.get(c) != cells_truth.get(c)]
    tok = {t.qr: t for t in photo.towers}
    sym_wrong = sym_unread = side_wrong = val_wrong = val_doubt = val_right = 0
    for c, want in tokens_truth.items():
        t = tok.get(c)
        if t is None:
            sym_unread += 1
            continue
        if t.symbol is None:
            sym_unread += 1
        else:
            sym_wrong += t.symbol != want["symbol"]
        side_wrong += t.dark != bool(want["dark"])
        if t.value_doubted:   # said doubtful, right or not
            val_doubt += 1
        elif t.value == int(want["value"]):
            val_right += 1
        else:
            val_wrong += 1
    return {"cells": len(free), "cells_unreadable": len(set(photo.unreadable) & set(free)),
            "cells_wrong": len(wrong), "cells_wrong_list": [list(c) for c in wrong[:6]],
            "tokens": len(tokens_truth), "symbol_wrong": sym_wrong, "symbol_unread": sym_unread,
            "side_wrong": side_wrong, "value_right": val_right, "value_doubtful": val_doubt, "value_wrong": val_wrong,
            "towers_missing": len(set(tokens_truth) - set(tok))}


def judge_pair(name: str, doc: dict, photos, mode: str) -> dict:
    """Judge one pair in one ``--values`` mode; the row of the report."""
    from core.errors import BadInput, CannotJudge
    from judge.games.genial import NOT_SCORED, board
    from judge.pipeline import judge_images
    from judge.registry import game as get_game
    from vision.genial import free_cells

    ctx = dict(doc["context"])
    if mode in ("setup", "values"):
        ctx["token_values"] = token_setup(doc, symbols=mode == "setup")
    exp = expected_of(doc)
    cat = doc.get("category", "all")
    row: dict = {"name": name, "mode": mode, "category": cat}
    t0 = time.process_time()
    try:
        j = judge_images(get_game("genial"), [(photos[0], "before"), (photos[1], "after")], ctx)
    except CannotJudge as exc:
        checks, got = compare_genial(None, exp, cat, exit_code=3)
        return row | {"outcome": "exact" if checks["exact"] else "cannot", "got": f"exit 3: {exc}", "checks": checks}
    except BadInput as exc:
        return row | {"outcome": "error", "got": f"exit 2: {exc}", "checks": {}}
    except Exception as exc:  # an internal error is a result to report
        return row | {"outcome": "error", "got": f"exit 1: {type(exc).__name__}: {exc}", "checks": {}}
    row["cpu_ms"] = round((time.process_time() - t0) * 1000, 1)
    out = json.loads(json.dumps(j.result))
    checks, got = compare_genial(out, exp, cat)
    codes = sorted({f["code"] for f in out.get("flags", [])})
    refused = [c for c in codes if c in NOT_SCORED]
    doubting = [c for c in codes if c not in NOTICES]
    if cat == "invalid" or exp.get("flagged"):
        exact = bool(checks["exact"])
    else:
        exact = bool(checks["exact"]) and not refused
    row |= {"outcome": "exact" if exact else ("doubt" if doubting else "WRONG"), "got": got, "flags": codes,
            "checks": {k: v for k, v in checks.items() if isinstance(v, bool | str)},
            "board_ms": {k: v for k, v in out.get("timings_ms", {}).items() if k.startswith("board")}}
    free = [c for c in free_cells(board())]
    truth = truth_photos(doc)
    state = j.state
    row["before"] = _reading_score(state.before, *truth[0], free) if state.before else None
    row["after"] = _reading_score(state.after, *truth[1], free)
    if exp.get("placed") is not None and not exp.get("flagged"):
        row["want"] = {"placed": sorted(p["qr"] for p in exp["placed"]),
                       "move_points": {k: v for k, v in exp["move_points"].items() if v}}
        row["got_placed"] = sorted(p["qr"] for p in out.get("placed", []))
        row["got_move"] = {k: v for k, v in out.get("move_points", {}).items() if v}
    return row


def summarise(rows: list[dict]) -> dict:
    """Counts per mode: outcomes, the kit's checks, cells and tokens over both photos."""
    out = {}
    for mode in sorted({r["mode"] for r in rows}):
        rs = [r for r in rows if r["mode"] == mode]
        clean = [r for r in rs if r["category"] != "invalid"]
        s: dict = {"pairs": len(rs), "outcomes": {k: sum(r["outcome"] == k for r in rs)
                                                  for k in ("exact", "doubt", "cannot", "WRONG", "error")}}
        s["clean_pairs"] = len(clean)
        for k in ("placed", "move_points", "symbol_scores", "towers"):
            s[k] = sum(bool(r.get("checks", {}).get(k)) for r in clean)
        s["invalid_flagged"] = f"{sum(r['outcome'] == 'exact' for r in rs if r['category'] == 'invalid')}/" \
                               f"{sum(r['category'] == 'invalid' for r in rs)}"
        reads = [r[p] for r in rs for p in ("before", "after") if r.get(p)]
        tot = {k: sum(x[k] for x in reads) for k in ("cells", "cells_unreadable", "cells_wrong", "tokens",
                                                     "symbol_wrong", "symbol_unread", "side_wrong", "value_right",
                                                     "value_doubtful", "value_wrong", "towers_missing")}
        s["reading"] = tot
        if tot["cells"]:
            s["cells_right"] = round(1 - (tot["cells_wrong"] + tot["cells_unreadable"]) / tot["cells"], 4)
        ms = sorted(r["cpu_ms"] / 2 for r in rs if "cpu_ms" in r)
        s["cpu_ms_per_photo_p50"] = ms[len(ms) // 2] if ms else None
        out[mode] = s
    return out


def photoreal_items(set_dir: Path, name_part: str = "", device: str = "none",
                    seed: int = 0) -> Iterator[tuple[str, dict, list]]:
    """The pairs of a photoreal set with truth: (name, truth document, [before, after] RGB), each photo as
    ``device`` delivers it (``tools/device_sim.py``, seeded by the photo's name, the device and ``seed``; ``none``:
    as rendered)."""
    import cv2

    for tp in sorted((set_dir / "truth" / "genial").glob("*.json")):
        if name_part and name_part not in tp.stem:
            continue
        doc = json.loads(tp.read_text())
        imgs = [set_dir / "images" / "genial" / n for n in doc["images"]]
        if not all(p.exists() for p in imgs):
            continue
        photos = [cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB) for p in imgs]
        yield tp.stem, doc, delivered(photos, [p.name for p in imgs], device, seed)


def delivered(photos: list, names: list[str], device: str, seed: int) -> list:
    """The photos (RGB) as ``device`` delivers them (``tools/device_sim.py``, each seeded by its name, the device
    and ``seed``; ``none``: unchanged)."""
    if device == "none":
        return photos
    from tools.device_sim import seed_for, simulate

    return [simulate(ph, device, seed_for(n, device, seed)) for ph, n in zip(photos, names, strict=True)]


def synth_items(lo: int, hi: int, hard: bool, device: str = "none", seed: int = 0) -> Iterator[tuple[str, dict, list]]:
    """Seeded synthetic pairs (``synth.genial.render_pair``) with their truth, each photo as ``device`` delivers it
    (seeded by the pair's name, ``_before`` / ``_after``, the device and ``seed``)."""
    from synth.genial import render_pair

    for s in range(lo, hi):
        images, truth = render_pair(s, hard=hard)
        sc = truth["scene"]
        doc = dict(truth) | {"category": "all", "scene": dict(sc) | {
            "towers": [dict(t) | {"light": t.get("light", t.get("value"))} for t in sc["towers"]]}}
        name = f"synth{'_hard' if hard else ''}_{s}"
        yield name, doc, delivered(list(images), [f"{name}_before", f"{name}_after"], device, seed)


def _line(r: dict) -> str:
    a = r.get("after") or {}
    cells = f"cells wrong {a.get('cells_wrong')} unread {a.get('cells_unreadable')}" if a else ""
    toks = (f"tokens sym wrong {a.get('symbol_wrong')} unread {a.get('symbol_unread')} side wrong "
            f"{a.get('side_wrong')} value {a.get('value_right')}/{a.get('tokens')}") if a else ""
    return f"{r['name']:24s} {r['mode']:5s} {r['category']:7s} {r['outcome']:6s} {r.get('got', '')} | {cells} {toks}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", type=Path, help="photoreal set folder (truth/genial, images/genial)")
    ap.add_argument("--synth", help="seed range LO:HI of synthetic pairs")
    ap.add_argument("--hard", action="store_true", help="synthetic pairs in hard light and blur")
    ap.add_argument("--values", choices=(*MODES, "all"), default="all",
                    help="the tokens' set-up given as the players would (setup: values and symbols; values: values "
                         "only), read from the photos (none), or all three")
    ap.add_argument("--name", default="", help="only items whose name contains this")
    ap.add_argument("--device", default="none", choices=("none", "phone", "webcam", "browser"),
                    help="the photos (photoreal or synthetic) as this device delivers them (tools/device_sim.py)")
    ap.add_argument("--seed", type=int, default=0, help="base seed of the device simulation")
    ap.add_argument("--report", type=Path, help="write every row and the summary as JSON here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the flags and misses of every row")
    a = ap.parse_args(argv)
    from judge.one_core import one_core

    if a.set:
        items = photoreal_items(a.set, a.name, a.device, a.seed)
    elif a.synth:
        lo, hi = (int(x) for x in a.synth.split(":"))
        items = synth_items(lo, hi, a.hard, a.device, a.seed)
    else:
        ap.error("give --set or --synth")
    modes = MODES if a.values == "all" else (a.values,)
    rows = []
    for name, doc, photos in items:
        for mode in modes:
            with one_core():   # one core, as the product is measured (OpenCV and the BLAS pools)
                r = judge_pair(name, doc, photos, mode)
            rows.append(r)
            print(_line(r), flush=True)
            if a.verbose or r["outcome"] in ("WRONG", "error"):
                print(f"{'':24s} flags {r.get('flags')} want {r.get('want')} got {r.get('got_placed')} "
                      f"{r.get('got_move')}", flush=True)
                for p in ("before", "after"):
                    if r.get(p) and r[p]["cells_wrong"]:
                        print(f"{'':24s} {p} wrong cells {r[p]['cells_wrong_list']}", flush=True)
    summary = summarise(rows)
    print(json.dumps(summary, indent=1))
    if a.report:
        a.report.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
