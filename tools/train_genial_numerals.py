"""Train the learned Genial Spezial numeral reader (``vision.genial_numeral_model``) and calibrate its confidence.

    .venv/bin/python tools/genial_numeral_crops.py --set SET ... --out train.npz      # the crops (tune sets)
    .venv/bin/python tools/genial_numeral_crops.py --set VALSET ... --out val.npz
    .venv/bin/python tools/train_genial_numerals.py --train train.npz --val val.npz [--out models/genial_numerals]

1. Every crop the template reader compared (``tpl_value`` > 0) becomes the model's input as the product makes it
   (:func:`vision.genial_numeral_model.features`: the window viewed as each candidate digit's best template lies,
   on the truth's side); the training crops once more per ``--augment`` with each view's turn jittered within half
   a template step and its offset within ``--jitter-mm`` (the template search's own granularity), so that the
   model does not learn the search's grid.
2. A ``cv2.ml.ANN_MLP`` (inputs, ``--hidden``, 2; symmetric sigmoid; RPROP) learns +1 for the true candidate and -1
   for the other; nothing but OpenCV and NumPy is needed, for the training as for the reading.
3. Its confidence (the size of the answer's difference, 0..2) is calibrated on the validation crops (photos never
   trained on): ``sure_margin`` is the smallest confidence at which, on every device of the validation, the sure
   reads are wrong at most ``--max-wrong`` of the time (and none wrong at all where a device has fewer sure reads
   than 1 / ``--max-wrong``), raised to at least ``--min-margin`` (1e6, never, when no confidence is that safe);
   then ``agreed_fraction``, per band of the photo's blur at the token (``--band-blur-mm``): the smallest fraction
   of the template reader's needed margin that, where the two readers agree, keeps every device's sure reads in
   the band (the combined rule of ``vision.genial_numeral.NumeralRead``) within the same bound, times
   ``--safety``, at least ``--min-fraction`` and at most 1 (the template reader's own margin always suffices
   where they agree).

Writes ``OUT.yml.gz`` (the model) and ``OUT.json`` (its view geometry, ``sure_margin``, and the validation's counts
per device: right and sure, doubtful, wrong and sure, learned and template reader side by side).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.genial_numeral_model import NumeralModelConfig, candidates, features  # noqa: E402

DEVICES = ("none", "phone", "browser", "webcam")


def load_crops(paths: list[Path]) -> dict[str, np.ndarray]:
    """The crops of several ``tools/genial_numeral_crops.py`` files, concatenated; only those the template reader
    compared."""
    parts = [dict(np.load(p, allow_pickle=False)) for p in paths]
    d = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    keep = d["tpl_value"] > 0
    return {k: v[keep] for k, v in d.items()}


def poses_of(row_pose: np.ndarray, tpl_value: int, dark: bool) -> dict[int, tuple[float, tuple[float, float]]]:
    """Each candidate's best template pose from a crop's ``pose`` row (best digit's turn, x, y; the other's)."""
    low, high = candidates(dark)
    other = high if tpl_value == low else low
    return {tpl_value: (float(row_pose[0]), (float(row_pose[1]), float(row_pose[2]))),
            other: (float(row_pose[3]), (float(row_pose[4]), float(row_pose[5])))}


def inputs(d: dict[str, np.ndarray], config: NumeralModelConfig, rng: np.random.Generator | None = None,
           turn_deg: float = 0.0, jitter_mm: float = 0.0) -> np.ndarray:
    """The model's inputs (N, F) of crops; with ``rng``, each view's pose jittered (turn within ``turn_deg``,
    offset within ``jitter_mm``)."""
    rows = []
    for i in range(len(d["value"])):
        dark = bool(d["dark"][i])
        poses = poses_of(d["pose"][i], int(d["tpl_value"][i]), dark)
        if rng is not None:
            poses = {v: (t + rng.uniform(-turn_deg, turn_deg), (x + rng.uniform(-jitter_mm, jitter_mm),
                                                                 y + rng.uniform(-jitter_mm, jitter_mm)))
                     for v, (t, (x, y)) in poses.items()}
        rows.append(features(d["windows"][i], dark, poses, config))
    return np.stack(rows)


def targets(d: dict[str, np.ndarray]) -> np.ndarray:
    """+1 for the true candidate, -1 for the other: (N, 2), lower candidate first."""
    high = np.array([candidates(bool(k))[1] for k in d["dark"]]) == d["value"]
    return np.where(np.column_stack([~high, high]), 1.0, -1.0).astype(np.float32)


def train(x: np.ndarray, y: np.ndarray, hidden: int, iterations: int, seed: int) -> cv2.ml.ANN_MLP:
    cv2.setRNGSeed(seed)
    mlp = cv2.ml.ANN_MLP_create()
    mlp.setLayerSizes(np.array([x.shape[1], hidden, 2], dtype=np.int32))
    mlp.setActivationFunction(cv2.ml.ANN_MLP_SIGMOID_SYM, 1.0, 1.0)
    mlp.setTrainMethod(cv2.ml.ANN_MLP_RPROP)
    mlp.setTermCriteria((cv2.TERM_CRITERIA_MAX_ITER + cv2.TERM_CRITERIA_EPS, iterations, 1e-6))
    mlp.train(cv2.ml.TrainData_create(x, cv2.ml.ROW_SAMPLE, y))
    return mlp


def device_of(groups: np.ndarray) -> np.ndarray:
    return np.array([str(g).split("|")[2] for g in groups])


def answers(mlp: cv2.ml.ANN_MLP, x: np.ndarray, d: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The model's value and confidence per crop."""
    _, out = mlp.predict(x)
    t = out[:, 1] - out[:, 0]
    value = np.array([candidates(bool(k))[1 if s > 0 else 0] for k, s in zip(d["dark"], t, strict=True)])
    return value, np.abs(t)


def calibrate(right: np.ndarray, conf: np.ndarray, devices: np.ndarray, max_wrong: float,
              min_margin: float) -> float:
    """The smallest confidence at which every device's sure reads are wrong at most ``max_wrong`` of the time
    (none wrong where a device has fewer than 1 / ``max_wrong`` sure reads)."""
    margin = min_margin
    for dev in sorted(set(devices)):
        m = devices == dev
        for tau in np.unique(np.concatenate([[min_margin], conf[m]])):
            sure = m & (conf >= tau)
            wrong = int(np.sum(sure & ~right))
            if wrong <= max_wrong * int(sure.sum()) and (wrong == 0 or sure.sum() * max_wrong >= 1):
                margin = max(margin, float(tau))
                break
        else:
            margin = 1e6   # no confidence is safe enough on this device: never sure
    return margin


def combined(value: np.ndarray, conf: np.ndarray, d: dict[str, np.ndarray], sure_margin: float,
             agreed_fraction: float) -> tuple[np.ndarray, np.ndarray]:
    """The value and sureness of the combined reader (``vision.genial_numeral.NumeralRead.sure``) per crop."""
    alone = conf >= sure_margin
    final = np.where(alone, value, d["tpl_value"])
    ratio = np.where(final == d["tpl_value"], 1.0, -1.0) * d["tpl_margin"] / d["tpl_needed"]
    return final, (value == final) & (alone | (ratio >= agreed_fraction))


def calibrate_agreement(value: np.ndarray, conf: np.ndarray, d: dict[str, np.ndarray], devices: np.ndarray,
                        sure_margin: float, max_wrong: float) -> float:
    """The smallest fraction of the template reader's needed margin that suffices where the readers agree
    (module doc, step 3), before ``--safety``."""
    ratio = d["tpl_margin"] / d["tpl_needed"]
    for tau in np.unique(np.concatenate([ratio[(ratio > 0) & (ratio < 1)], [1.0]])):
        final, sure = combined(value, conf, d, sure_margin, float(tau))
        wrong = sure & (final != d["value"])
        if all(wrong[devices == dev].sum() <= max_wrong * sure[devices == dev].sum()
               and (not wrong[devices == dev].any() or sure[devices == dev].sum() * max_wrong >= 1)
               for dev in set(devices)):
            return float(tau)
    return 1.0


def counts(right: np.ndarray, sure: np.ndarray, devices: np.ndarray) -> dict[str, dict[str, int]]:
    out = {}
    for dev in [*DEVICES, "all"]:
        m = np.ones(len(right), bool) if dev == "all" else devices == dev
        if m.any():
            out[dev] = {"crops": int(m.sum()), "right_sure": int(np.sum(m & sure & right)),
                        "doubtful": int(np.sum(m & ~sure)), "wrong_sure": int(np.sum(m & sure & ~right))}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=Path, action="append", required=True, help="training crops .npz (repeatable)")
    ap.add_argument("--val", type=Path, action="append", required=True, help="validation crops .npz (repeatable)")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "genial_numerals",
                    help="written as OUT.yml.gz and OUT.json")
    ap.add_argument("--train-devices", default="none,phone,browser",
                    help="devices whose training crops are learned from (a dim webcam's numerals are mostly too "
                         "blurred and noisy to tell: learning them as if they could be taught the model guesses, "
                         "and left it less accurate elsewhere); the validation keeps every device")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--augment", type=int, default=2, help="jittered copies of each training crop")
    ap.add_argument("--jitter-mm", type=float, default=0.15)
    ap.add_argument("--max-wrong", type=float, default=0.001)
    ap.add_argument("--min-margin", type=float, default=0.5)
    ap.add_argument("--safety", type=float, default=1.25, help="agreed_fraction is raised by this factor")
    ap.add_argument("--min-fraction", type=float, default=0.25, help="agreed_fraction is at least this")
    ap.add_argument("--band-blur-mm", default="0.8",
                    help="the photo's blur at the token (token mm) where agreed_fraction's bands part")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    config = NumeralModelConfig()
    t0 = time.process_time()
    tr, va = load_crops(a.train), load_crops(a.val)
    keep = np.isin(device_of(tr["group"]), a.train_devices.split(","))
    tr = {k: v[keep] for k, v in tr.items()}
    if len(tr["value"]) == 0 or len(va["value"]) == 0:
        print("no crops to train or validate on", file=sys.stderr)
        return 2
    rng = np.random.default_rng(a.seed)
    xs = [inputs(tr, config)] + [inputs(tr, config, rng, 7.5, a.jitter_mm) for _ in range(a.augment)]
    x = np.concatenate(xs)
    y = np.concatenate([targets(tr)] * len(xs))
    print(f"{len(x)} training inputs ({len(tr['value'])} crops), {len(va['value'])} validation crops "
          f"({time.process_time() - t0:.0f} s CPU)", flush=True)
    mlp = train(x, y, a.hidden, a.iterations, a.seed)
    print(f"trained ({time.process_time() - t0:.0f} s CPU)", flush=True)
    value, conf = answers(mlp, inputs(va, config), va)
    right = value == va["value"]
    devices = device_of(va["group"])
    margin = calibrate(right, conf, devices, a.max_wrong, a.min_margin)
    edges = [0.0] + [float(v) for v in a.band_blur_mm.split(",") if v]
    bands = []
    final, sure = va["tpl_value"].copy(), np.zeros(len(value), bool)
    for k, lo in enumerate(edges):
        band = (va["blur_mm"] >= lo) & (va["blur_mm"] < (edges[k + 1] if k + 1 < len(edges) else np.inf))
        sub = {key: v[band] for key, v in va.items()}
        fraction = 1.0
        if band.any():
            found = calibrate_agreement(value[band], conf[band], sub, devices[band], margin, a.max_wrong)
            fraction = min(1.0, max(a.min_fraction, a.safety * found))
            final[band], sure[band] = combined(value[band], conf[band], sub, margin, fraction)
        bands.append([lo, round(fraction, 4)])
    tr_value, _ = answers(mlp, x[:len(tr["value"])], tr)
    tpl_right = va["tpl_value"] == va["value"]
    meta = {"crop_n": config.crop_n, "crop_step_mm": config.crop_step_mm, "sure_margin": round(margin, 4),
            "agreed_fraction_by_blur_mm": bands,
            "train_devices": a.train_devices.split(","), "hidden": a.hidden, "iterations": a.iterations,
            "augment": a.augment, "seed": a.seed,
            "max_wrong": a.max_wrong, "train": sorted({str(g).split("|")[0] for g in tr["group"]}),
            "val": sorted({str(g).split("|")[0] for g in va["group"]}),
            "train_crops": int(len(tr["value"])), "train_right": round(float(np.mean(tr_value == tr["value"])), 4),
            "val_right": round(float(np.mean(right)), 4),
            "val_combined": counts(final == va["value"], sure, devices),
            "val_learned_alone": counts(right, conf >= margin, devices),
            "val_template": counts(tpl_right, va["tpl_margin"] >= va["tpl_needed"], devices)}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    mlp.save(str(a.out.with_name(a.out.name + ".yml.gz")))
    a.out.with_name(a.out.name + ".json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(meta, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
