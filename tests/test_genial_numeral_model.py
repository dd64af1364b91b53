"""The learned Genial Spezial numeral reader (issue 15): the model shipped in models/ loads with OpenCV alone and
reads token numerals cut from tune photos (tests/data/genial_numeral_crops.npz: gen_tune4 as rendered and as a
phone, a browser camera and a dim webcam deliver it, never trained on) right where it is sure; a read it is sure of
leads, one it doubts while the templates disagree is doubtful; and the training script rebuilds a model from a crop
set (``tools/train_genial_numerals.py``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tools.train_genial_numerals import inputs, load_crops
from tools.train_genial_numerals import main as train_main
from vision.genial import GenialVisionConfig, token_value
from vision.genial_doubt import DoubtKind
from vision.genial_numeral import NumeralRead, with_learned
from vision.genial_numeral_model import MODEL_PATH, NumeralModelConfig, load_model, predict

CROPS = Path(__file__).resolve().parent / "data" / "genial_numeral_crops.npz"


def _devices(groups: np.ndarray) -> np.ndarray:
    return np.array([str(g).split("|")[2] for g in groups])


def _combined(model, crops) -> tuple[np.ndarray, np.ndarray]:
    """The product's reads of the crops (value, sure): the template reader's, as cut, with the model's taken."""
    answers = predict(model, inputs(crops, model.config), crops["dark"])
    values, sure = [], []
    for i, ans in enumerate(answers):
        low, high = (2, 3) if crops["dark"][i] else (1, 2)
        v = int(crops["tpl_value"][i])
        p = crops["pose"][i]
        read = NumeralRead(v, high if v == low else low, float(crops["tpl_score"][i]),
                           float(crops["tpl_other_score"][i]), float(p[0]), (float(p[1]), float(p[2])), 0.5,
                           float(crops["tpl_needed"][i]), other_rotation_deg=float(p[3]),
                           other_offset_mm=(float(p[4]), float(p[5])))
        read = with_learned(read, ans.value, ans.sure, ans.confidence,
                            model.agreed_fraction(float(crops["blur_mm"][i])))
        values.append(read.value)
        sure.append(read.sure)
    return np.array(values), np.array(sure)


def test_the_shipped_model_reads_the_committed_crops_right_where_it_is_sure():
    model = load_model()
    crops = load_crops([CROPS])
    assert not {str(g).split("|")[0] for g in crops["group"]} & {"gen_tune", "gen_tune2", "gen_tune3"}
    value, sure = _combined(model, crops)
    right = value == crops["value"]
    assert not np.any(sure & ~right), np.flatnonzero(sure & ~right)
    devices = _devices(crops["group"])
    template_sure = crops["tpl_margin"] >= crops["tpl_needed"]
    for device, least in (("none", 0.85), ("phone", 0.6), ("browser", 0.15)):
        m = devices == device
        assert m.sum() >= 10
        assert np.mean(sure[m] & right[m]) >= least, (device, np.mean(sure[m] & right[m]))
        assert np.sum(sure[m]) > np.sum(template_sure[m]) or device == "none", device
    learned = np.array([r.value for r in predict(model, inputs(crops, model.config), crops["dark"])])
    assert np.mean(learned[devices != "webcam"] == crops["value"][devices != "webcam"]) >= 0.9


def test_the_models_calibration_is_recorded_beside_it():
    meta = json.loads(MODEL_PATH.with_name("genial_numerals.json").read_text(encoding="utf-8"))
    assert meta["sure_margin"] > 0.0
    assert meta["agreed_fraction_by_blur_mm"][0][0] == 0.0
    assert all(0.0 < f <= 1.0 for _, f in meta["agreed_fraction_by_blur_mm"])
    assert not set(meta["train"]) & set(meta["val"])
    assert not any(s.startswith("gen_eval") for s in meta["train"] + meta["val"])
    for device, c in meta["val_combined"].items():
        assert c["wrong_sure"] <= max(0.0, 0.001 * (c["right_sure"] + c["wrong_sure"])), device


def test_a_missing_or_mismatched_model_is_refused(tmp_path):
    with pytest.raises(OSError):
        load_model(NumeralModelConfig(path=tmp_path / "none.yml.gz"))
    shutil.copy(MODEL_PATH, tmp_path / "m.yml.gz")
    shutil.copy(MODEL_PATH.with_name("genial_numerals.json"), tmp_path / "m.json")
    with pytest.raises(ValueError):
        load_model(NumeralModelConfig(path=tmp_path / "m.yml.gz", crop_n=11))


def _read(value: int, other: int, score: float, other_score: float) -> NumeralRead:
    return NumeralRead(value, other, score, other_score, 30.0, (0.5, 0.0), 0.5, 0.02,
                       other_rotation_deg=45.0, other_offset_mm=(0.0, 0.25))


def test_a_sure_learned_read_leads_and_a_doubted_disagreement_is_doubtful():
    template = _read(3, 2, 0.80, 0.79)                   # the templates lean to 3, not surely
    assert not template.sure
    led = with_learned(template, 2, True, 1.5)
    assert (led.value, led.other, led.sure) == (2, 3, True)
    assert led.score == pytest.approx(0.79) and led.other_score == pytest.approx(0.80)
    assert (led.rotation_deg, led.offset_mm) == (45.0, (0.0, 0.25))
    assert led.best_score == pytest.approx(0.80)
    sure_template = _read(3, 2, 0.90, 0.80)
    assert sure_template.sure
    doubted = with_learned(sure_template, 2, False, 0.3)  # the learned reader disagrees, unsure: doubtful
    assert (doubted.value, doubted.sure) == (3, False)
    agreed = with_learned(sure_template, 3, False, 0.3)  # agrees, unsure: the template's margin suffices
    assert (agreed.value, agreed.sure) == (3, True)
    assert with_learned(template, 3, True, 1.9).sure     # agrees and sure


def test_the_training_script_rebuilds_a_model_from_a_crop_set(tmp_path):
    out = tmp_path / "genial_numerals"
    assert train_main(["--train", str(CROPS), "--val", str(CROPS), "--out", str(out), "--hidden", "8",
                       "--iterations", "30", "--augment", "1"]) == 0
    model = load_model(NumeralModelConfig(path=out.with_name("genial_numerals.yml.gz")))
    crops = load_crops([CROPS])
    reads = predict(model, inputs(crops, model.config), crops["dark"])
    assert len(reads) == len(crops["value"])
    right = np.mean([r.value == v for r, v in zip(reads, crops["value"], strict=True)])
    assert right >= 0.7, right                          # trained on these very crops
    meta = json.loads(out.with_name("genial_numerals.json").read_text(encoding="utf-8"))
    assert meta["train_crops"] == int(np.sum(_devices(crops["group"]) != "webcam"))   # --train-devices' default
    assert meta["val_combined"]["all"]["crops"] == len(crops["value"])


def test_a_doubt_says_what_the_learned_reader_read_where_the_readers_disagree():
    config = GenialVisionConfig()
    value, why = token_value(with_learned(_read(3, 2, 0.90, 0.80), 2, False, 0.3), True, 5.0, config)
    assert value == 3 and why is not None and why.kind is DoubtKind.NUMERAL_UNCLEAR_LEARNED
    assert why.text == "numeral unclear (3 or 2, fits 0.900 and 0.800, the learned reader reads 2)"
    assert token_value(with_learned(_read(3, 2, 0.90, 0.80), 3, False, 0.3), True, 5.0, config) == (3, None)
