"""The photoreal accuracy tool itself, on a tiny set made here from the fast renderer."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from synth.kaleido import render_scene
from tools import eval_photoreal as ev
from tools.device_sim import DEVICES, simulate

SEEDS = (3, 5)


def make_set(root: Path, seeds=SEEDS, tamper: int | None = None) -> Path:
    """SET/truth/kaleido/*.json + SET/images/kaleido/*.jpg from fast renders; ``tamper``: that seed's
    truth gets one point more for its first player (so the judge cannot be exact on it)."""
    (root / "truth" / "kaleido").mkdir(parents=True)
    (root / "images" / "kaleido").mkdir(parents=True)
    for seed in seeds:
        img, truth, _ = render_scene(seed)
        name = f"kaleido_fast_{seed}"
        cv2.imwrite(str(root / "images" / "kaleido" / f"{name}.jpg"), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
        exp = dict(truth["expected"])
        if seed == tamper:
            first = next(iter(exp["scores"]))
            exp["scores"] = {**exp["scores"], first: exp["scores"][first] + 1}
        doc = {"name": name, "game": "kaleido", "category": "all", "context": truth["context"], "expected": exp}
        (root / "truth" / "kaleido" / f"{name}.json").write_text(json.dumps(doc))
    return root


@pytest.fixture(scope="module")
def tiny_set(tmp_path_factory) -> Path:
    return make_set(tmp_path_factory.mktemp("tiny"))


def test_exact_on_fast_renders_and_report(tiny_set, tmp_path, capsys):
    report = tmp_path / "r.json"
    rc = ev.main(["--set", str(tiny_set), "--report", str(report), "--max-wrong", "0"])
    assert rc == 0
    doc = json.loads(report.read_text())
    assert [r["name"] for r in doc["rows"]] == [f"kaleido_fast_{s}" for s in SEEDS]
    assert all(r["outcome"] == "exact" and r["device"] == "none" for r in doc["rows"])
    out = capsys.readouterr().out
    assert "none: exact 2/2" in out and "WRONG WITHOUT HONEST DOUBT 0" in out


def test_a_wrong_truth_is_never_counted_exact(tmp_path):
    root = make_set(tmp_path / "set", tamper=SEEDS[0])
    items = ev.load_items(root)
    res = ev.evaluate(items, ("none",))
    by = {r.item.name: r for r in res}
    bad = by[f"kaleido_fast_{SEEDS[0]}"]
    assert bad.outcome in ("WRONG", "doubt") and not bad.checks["exact"] and not bad.checks["scores"]
    assert by[f"kaleido_fast_{SEEDS[1]}"].outcome == "exact"
    # the judge put no doubt flag on a clean render: the mismatch is counted WRONG and fails --max-wrong 0
    if bad.outcome == "WRONG":
        assert ev.main(["--set", str(root), "--max-wrong", "0"]) == 1


def test_outcome_classes_follow_the_rules():
    item = ev.Item(
        "cmyk",
        "x",
        "all",
        {
            "expected": {
                "players": {"P": {"tiles": 10, "hexagons": 1, "k_tiles": 0, "illegal_contacts": 0, "total": 19}}
            }
        },
        (),
    )

    def out(total, flags=(), rng=None):
        p = {"tiles": 10 if total == 19 else 9, "hexagons": 1, "k_tiles": 0, "total": total}
        if rng:
            p["total_range"] = list(rng)
        return {"players": {"P": p}, "flags": [{"code": c, "message": ""} for c in flags]}

    assert ev.judge_outcome(item, ev.Verdict(out(19), 0, "", 1))[0] == "exact"
    assert ev.judge_outcome(item, ev.Verdict(out(2), 0, "", 1))[0] == "WRONG"
    # a notice is no doubt; a doubt flag is, unless its score range excludes the truth
    assert ev.judge_outcome(item, ev.Verdict(out(2, ["calibration_warning"]), 0, "", 1))[0] == "WRONG"
    assert ev.judge_outcome(item, ev.Verdict(out(2, ["mosaic_incomplete"], (2, 25)), 0, "", 1))[0] == "doubt"
    assert ev.judge_outcome(item, ev.Verdict(out(2, ["score_range"], (2, 4)), 0, "", 1))[0] == "WRONG"
    assert ev.judge_outcome(item, ev.Verdict(None, 3, "no tiles", 1))[0] == "cannot"
    assert ev.judge_outcome(item, ev.Verdict(None, 1, "KeyError", 1))[0] == "error"
    inv = ev.Item("genial", "g", "invalid", {"expected": {"flagged": True, "problems": ["two moves"]}}, ())
    assert ev.judge_outcome(inv, ev.Verdict(None, 3, "not one placement", 1))[0] == "exact"


def test_devices_are_seeded_and_deliver_their_sizes():
    rng = np.random.default_rng(1)
    img = (rng.random((960, 1280, 3)) * 255).astype(np.uint8)
    for device in DEVICES:
        a, b = simulate(img, device, 7), simulate(img, device, 7)
        assert a.dtype == np.uint8 and np.array_equal(a, b)
    assert simulate(img, "webcam", 7).shape == (720, 960, 3)
    assert simulate(img, "browser", 7).shape == (528, 704, 3)
    assert simulate(img, "phone", 7).shape == img.shape
    assert not np.array_equal(simulate(img, "webcam", 7), simulate(img, "webcam", 8))
    # the webcam is a dim room
    assert simulate(img, "webcam", 7).mean() < 0.8 * img.mean()
    with pytest.raises(ValueError):
        simulate(img, "fax", 1)


def test_devices_and_cli_mode_on_the_tiny_set(tiny_set, capsys):
    items = ev.load_items(tiny_set, limit=1)
    res = ev.evaluate(items, ("none", "browser"))
    assert [r.device for r in res] == ["none", "browser"]
    lines = ev.summary_lines(res)
    assert any(line.startswith("stays exact as browser delivers it:") for line in lines)
    cli = ev.judge_with_cli(
        "kaleido",
        items[0].doc["context"],
        [ev.photo_as_delivered(items[0].images[0], "none", 0)],
        ["a.jpg"],
        ev.sys.executable,
        120,
    )
    assert cli.exit_code == 0 and ev.judge_outcome(items[0], cli)[0] == "exact"


def test_bad_set_folder_is_one_line_exit_2(tmp_path, capsys):
    assert ev.main(["--set", str(tmp_path)]) == 2
    assert "no truth/ folder" in capsys.readouterr().err
    assert ev.main(["--set", str(tmp_path), "--device", "fax"]) == 2


def test_a_set_still_rendering_skips_or_reports_missing_photos(tmp_path):
    root = make_set(tmp_path / "set", seeds=(3,))
    doc = json.loads((root / "truth" / "kaleido" / "kaleido_fast_3.json").read_text())
    (root / "truth" / "kaleido" / "kaleido_later.json").write_text(json.dumps({**doc, "name": "kaleido_later"}))
    assert [it.name for it in ev.load_items(root, skip_missing=True)] == ["kaleido_fast_3"]
    res = ev.evaluate(ev.load_items(root), ("none",))
    assert {r.item.name: r.outcome for r in res} == {"kaleido_fast_3": "exact", "kaleido_later": "error"}
    assert "image missing" in [r for r in res if r.item.name == "kaleido_later"][0].got


def test_a_cmyk_range_that_excludes_the_truth_misleads_unless_the_total_is_declared_open():
    exp = {"players": {"Aki": {"total": 12}}}
    out = {"players": {"Aki": {"total": 1, "total_range": [-19, 11]}},
           "flags": [{"code": "score_range", "player": "Aki", "range": [-19, 11]}]}
    assert not ev.cmyk_ranges_cover_truth(out, exp)
    out["flags"] = [{"code": "score_open", "player": "Aki", "range": [-19, 11]}]  # "possibly beyond": no bound
    assert ev.cmyk_ranges_cover_truth(out, exp)
    out["flags"] = [{"code": "score_open", "player": "Ben", "range": [0, 3]}]
    assert not ev.cmyk_ranges_cover_truth(out, exp)
