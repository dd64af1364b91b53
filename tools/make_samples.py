"""Render the bundled sample photos (``sample_images/<game>/``) with their ground truth.

    python tools/make_samples.py [--per-game 2] [--start-seed 1]

Samples are demo material for the page (judged with no camera attached) and for the page tests, so
only renders that the current judge reads correctly are kept (verdict / hexagons / totals equal to the
truth); the accuracy over many seeds is measured by ``tools/eval_<game>.py``, not here.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judge.images import load_image
from judge.pipeline import judge_images
from judge.registry import plugins
from synth.registry import renderer
from synth.truthio import write_photo

ROOT = Path(__file__).resolve().parents[1]


def judged_right(headline, result: dict, expected: dict) -> bool:
    """The headline of a judgement (the plugin's ``headline``: verdict and contested, hexagons, scores ...)
    equals the truth's; a contested judgement is never a sample."""
    return not result.get("contested") and headline(result) == headline(expected)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-game", type=int, default=2)
    ap.add_argument("--start-seed", type=int, default=1)
    ap.add_argument("--max-tries", type=int, default=40)
    args = ap.parse_args()
    for name, game in plugins().items():
        render = renderer(name)
        out = ROOT / "sample_images" / name
        shutil.rmtree(out, ignore_errors=True)
        kept, seed = 0, args.start_seed
        while kept < args.per_game and seed < args.start_seed + args.max_tries:
            image, truth = render(seed)
            path = write_photo(out, f"{name}_{seed}", image, truth)
            try:  # judged from the written file, exactly as the page will read it
                j = judge_images(game, [(load_image(path), path.name)], truth["context"])
                ok = judged_right(game.headline, j.result, truth["expected"])
            except Exception as exc:  # a sample must judge cleanly; anything else is skipped and reported
                print(f"{name} seed {seed}: skipped ({exc.__class__.__name__}: {exc})")
                ok = False
            if ok:
                kept += 1
                print(f"{name} seed {seed}: kept")
            else:
                print(f"{name} seed {seed}: not kept (judged differently from its truth, or contested)")
                path.unlink()
                path.with_suffix(".json").unlink()
            seed += 1


if __name__ == "__main__":
    main()
