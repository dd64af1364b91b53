"""Scratch check: score the photoreal truth scenes with scoring.cmyk and compare with their ``expected``.

Usage: python tools/check_cmyk_truth.py TRUTH_DIR   (the photoreal set's truth/cmyk folder)

Builds a MosaicState per scene from the truth tiles (exact readings, no camera), runs score_game with the
scene's context, and prints every field of ``expected`` that differs. Exit 1 when any differs.
Not used by the product or tests (they must not read shared/).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.cmyk import parse_cmyk_context, score_game  # noqa: E402
from scoring.cmyk_state import MosaicState, TileReading  # noqa: E402


def mosaic_from_scene(tiles: list[dict]) -> MosaicState:
    """Truth tiles -> MosaicState (kind "K" -> "k")."""
    return MosaicState(tuple(TileReading.from_json({"cell": t["cell"], "kind": t["kind"].lower(), "edges": t["edges"]})
                             for t in tiles))


def compare(name: str, got: dict, want: dict, path: str = "") -> list[str]:
    """Differences between ``want`` and the same keys of ``got``."""
    out = []
    for k, v in want.items():
        p = f"{path}.{k}" if path else k
        if k not in got:
            out.append(f"{name}: {p} missing (want {v!r})")
        elif isinstance(v, dict) and isinstance(got[k], dict):
            out.extend(compare(name, got[k], v, p))
        elif got[k] != v:
            out.append(f"{name}: {p} = {got[k]!r}, want {v!r}")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python tools/check_cmyk_truth.py TRUTH_DIR   (a folder of photoreal truth/cmyk/*.json)")
        return 2
    folder = Path(argv[1])
    files = sorted(folder.glob("*.json"))
    if not files:
        print(f"no truth files in {folder}")
        return 1
    bad = 0
    for f in files:
        truth = json.loads(f.read_text())
        players, cards, answers = parse_cmyk_context(truth["context"])
        scene = truth["scene"]
        mosaics = [mosaic_from_scene(scene["tiles"])] if "tiles" in scene else [
            mosaic_from_scene(scene["mosaics"][p.name]["tiles"]) for p in players]
        got = score_game(players, mosaics, cards, answers).to_json()
        want = {k: v for k, v in truth["expected"].items() if k != "decisions"}
        diffs = compare(f.stem, got, want)
        bad += bool(diffs)
        codes = [x["code"] for x in got["flags"]]
        print(f"{f.stem}: {'OK' if not diffs else 'DIFF'}  total {got['scores']}  flags {codes}")
        for d in diffs:
            print("   ", d)
    print(f"{len(files) - bad}/{len(files)} scenes agree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
