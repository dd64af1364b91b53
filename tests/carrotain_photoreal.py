"""The Carrotain photoreal fix photos (``tests/data/photoreal_carrotain``): tune-set renders (the photoreal dev
set, the kit's truth files unchanged), each chosen because the judge got it wrong before a fix; judged by the
product's own pipeline and compared with the truth by the kit's rules."""

from __future__ import annotations

from pathlib import Path

from tools.eval_photoreal import judge_in_process, judge_outcome, load_items, photo_as_delivered
from tools.photoreal_compare import COMPARE

SET = Path(__file__).resolve().parent / "data" / "photoreal_carrotain"
ITEMS = {it.name: it for it in load_items(SET, ("carrotain",))}


def judge_photo(name: str, device: str = "none", seed: int = 0) -> tuple[dict, dict, dict, str]:
    """Judge one photo as rendered (or as ``device`` delivers it, ``tools/device_sim.py``). Returns (result, expected,
    checks, outcome): the kit's comparison and the accuracy tool's outcome (``exact`` / ``doubt`` / ``WRONG``)."""
    item = ITEMS[name]
    photos = [photo_as_delivered(p, device, seed) for p in item.images]
    verdict = judge_in_process("carrotain", item.doc["context"], photos, [p.name for p in item.images])
    assert verdict.out is not None, f"{name}: exit {verdict.exit_code}: {verdict.reason}"
    checks, _ = COMPARE["carrotain"](verdict.out, item.doc["expected"], item.category)
    return verdict.out, item.doc["expected"], checks, judge_outcome(item, verdict)[0]


def judge_exact(name: str, device: str = "none", seed: int = 0) -> tuple[dict, dict, dict]:
    """``judge_photo``; assert the kit's rules call it exact. Returns (result, expected, checks)."""
    out, exp, checks, outcome = judge_photo(name, device, seed)
    assert outcome == "exact", f"{name} ({device}): {outcome}, failed {[k for k, v in checks.items() if not v]}"
    return out, exp, checks
