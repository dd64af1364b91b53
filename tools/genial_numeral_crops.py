"""Cut Genial Spezial token numeral windows out of photoreal pairs with truth, as the numeral reader sees them.

    .venv/bin/python tools/genial_numeral_crops.py --set SET [--set SET ...] --device none,phone,browser,webcam \
        --seeds 0,1,2 --out crops.npz

Each pair is judged by the product's pipeline (``judge.pipeline.judge_images``, the context as given: nothing about
the tokens told); on each photo, every tower whose token the photo read is sampled where the reader samples its
numeral (:func:`vision.genial.numeral_windows`: the tower's centre corrected by the tokens' symbols, at the token's
height, rectified at ``NumeralConfig.mm_per_px``), and kept with the truth (value, side) and what the template
reader made of it on the side the truth gives (value, margin, the margin needed: the reader before the learned
model). The photos as rendered, and as ``tools/device_sim.py`` devices deliver them, each ``--seeds`` value a new
draw of the device's noise (seeded by the photo's name, as ``tools/eval_genial.py --device --seed`` does).

The output (``.npz``) holds ``windows`` (N, n, n) float32 linear luminance, and per window ``value``, ``dark``
(truth), ``read_dark`` (the side the photo read), ``tpl_value``, ``tpl_margin``, ``tpl_needed``, ``tpl_score``,
``tpl_other_score``, ``blur_mm`` (the photo's blur at the token, token mm), ``pose`` (the template reader on the
truth's side: its best digit's turn, offset x, y, the other digit's turn, offset x, y; value 0 when it did not
compare), ``tall_px``, ``group`` (set name | pair | device | seed), ``photo`` (0 before, 1 after). Never cut a
report set (gen_eval*): they measure what the model is trained for.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def pair_windows(doc: dict, photos: list, ctx_mode: str = "none", min_numeral_px: float | None = None) -> list[dict]:
    """The numeral windows of one pair's photos (module doc), one row per token a photo read."""
    from judge.pipeline import judge_images
    from judge.registry import game as get_game
    from tools.eval_genial import token_setup, truth_photos
    from vision.genial import GenialVisionConfig, numeral_windows
    from vision.view import TableView

    ctx = dict(doc["context"])
    if ctx_mode == "setup":
        ctx["token_values"] = token_setup(doc)
    j = judge_images(get_game("genial"), [(photos[0], "before"), (photos[1], "after")], ctx)
    truth = truth_photos(doc)
    read = [j.state.before, j.state.after]
    config = GenialVisionConfig(numeral_model=None)   # the template reader alone: what the model learns beside
    if min_numeral_px is not None:   # numerals smaller than the reader compares, for a study of them
        config = replace(config, min_numeral_px=min_numeral_px)
    rows = []
    for k, (frame, photo) in enumerate(zip(j.frames, read, strict=True)):
        if photo is None or frame.calibration is None:
            continue
        tokens = truth[k][1]
        towers = {t.qr: t for t in photo.towers if t.qr in tokens}
        view = TableView(frame.image_rgb, frame.calibration)
        layout_sizes = {c: s for c, s in photo_sizes(photo, doc).items() if c in towers}
        wanted = {c: (layout_sizes[c], bool(tokens[c]["dark"]), towers[c].symbol) for c in towers}
        wins = numeral_windows(view, photo.pose, {c: (layout_sizes[c], towers[c].symbol) for c in towers},
                               wanted, config)
        for c, (lum, read_num, tall) in wins.items():
            rows.append({"window": lum, "value": int(tokens[c]["value"]), "dark": bool(tokens[c]["dark"]),
                         "read_dark": bool(towers[c].dark), "tall_px": tall, "photo": k,
                         "tpl_value": 0 if read_num is None else read_num.value,
                         "tpl_margin": np.nan if read_num is None else read_num.margin,
                         "tpl_needed": np.nan if read_num is None else read_num.needed,
                         "tpl_score": np.nan if read_num is None else read_num.score,
                         "blur_mm": np.nan if read_num is None else read_num.blur_mm,
                         "tpl_other_score": np.nan if read_num is None else read_num.other_score,
                         "pose": np.full(6, np.nan) if read_num is None else np.array(
                             [read_num.rotation_deg, *read_num.offset_mm, read_num.other_rotation_deg,
                              *read_num.other_offset_mm])})
    return rows


def photo_sizes(photo, doc: dict) -> dict:
    """Each standing tower's size (large / small) from the board's tower layout for the pair's player count."""
    from judge.games.genial import board

    return dict(board().tower_layout(len(doc["context"]["players"])))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", type=Path, action="append", required=True, help="photoreal set folder (repeatable)")
    ap.add_argument("--device", default="none", help="comma list of none, phone, browser, webcam")
    ap.add_argument("--seeds", default="0", help="comma list of device seeds")
    ap.add_argument("--name", default="", help="only pairs whose name contains this")
    ap.add_argument("--out", type=Path, required=True, help="the .npz written")
    ap.add_argument("--min-numeral-px", type=float, help="compare numerals down to this height (default the reader's)")
    a = ap.parse_args(argv)
    from core.errors import BadInput, CannotJudge
    from judge.one_core import one_core
    from tools.eval_genial import photoreal_items

    for s in a.set:
        if s.name.startswith("gen_eval"):
            print(f"{s}: a report set is never cut for training", file=sys.stderr)
            return 2
    rows: list[dict] = []
    t0 = time.process_time()
    for s in a.set:
        for device in a.device.split(","):
            for seed in (int(x) for x in a.seeds.split(",")) if device != "none" else (0,):
                for name, doc, photos in photoreal_items(s, a.name, device, seed):
                    group = f"{s.name}|{name}|{device}|{seed}"
                    try:
                        with one_core():
                            got = pair_windows(doc, photos, min_numeral_px=a.min_numeral_px)
                    except (BadInput, CannotJudge) as exc:   # the judge declines this pair: nothing to cut
                        print(f"{group}: not judged ({exc})", flush=True)
                        continue
                    rows += [r | {"group": group} for r in got]
                    print(f"{group}: {len(got)} windows ({time.process_time() - t0:.0f} s CPU)", flush=True)
    if not rows:
        print("no windows cut", file=sys.stderr)
        return 3
    a.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        a.out, windows=np.stack([r["window"] for r in rows]).astype(np.float32),
        **{k: np.array([r[k] for r in rows]) for k in ("value", "dark", "read_dark", "tall_px", "photo", "tpl_value",
                                                       "tpl_margin", "tpl_needed", "tpl_score", "tpl_other_score",
                                                       "blur_mm",
                                                       "pose", "group")})
    print(f"{len(rows)} windows -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
