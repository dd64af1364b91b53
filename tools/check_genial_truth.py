"""Check the Genial Spezial rules against a photoreal set's truth files (their scenes read perfectly).

    python tools/check_genial_truth.py SET/truth/genial

Each truth file holds the scene (set-up, earlier placements, the tiles and tokens in each photo) and the
expected judgement written independently from RULES.md; this builds the before/after readings straight from
the scene and compares the rules' judgement with it. Prints one line per file and a summary.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from components import load_components  # noqa: E402
from scoring.genial import Tower  # noqa: E402
from scoring.genial_board import GenialBoard  # noqa: E402
from scoring.genial_judgement import GenialContext, GenialReading, judge_placement  # noqa: E402


def reading_of(scene: dict, k: int) -> GenialReading:
    """The board exactly as photo k shows it."""
    photo = scene["photos"][k]
    tiles = {}
    for i in photo["tiles"]:
        t = scene["tiles"][i]
        for c in t["cells"]:
            tiles[(int(c[0]), int(c[1]))] = t["colour"]
    size = {tuple(t["qr"]): t["size"] for t in scene["towers"]}
    towers = tuple(Tower.from_json({"qr": tok["qr"], "size": size[tuple(tok["qr"])], "symbol": tok["symbol"],
                                    "value": tok["value"], "dark": tok["dark"]}) for tok in photo["tokens"])
    return GenialReading(tiles, towers)


def check(path: Path, board: GenialBoard) -> list[str]:
    """Differences between the rules' judgement and the truth file's expected one (empty: agree)."""
    truth = json.loads(path.read_text(encoding="utf-8"))
    scene, exp = truth["scene"], truth["expected"]
    ctx = GenialContext.from_json(truth["context"] | ({"bonus_symbol": scene["bonus_symbol"]}
                                                      if scene.get("bonus_symbol") else {}))
    got = judge_placement(board, ctx, reading_of(scene, len(scene["photos"]) - 1), reading_of(scene, 0)).to_json()
    if exp.get("flagged"):
        worded = [f for f in got["flags"] if any(w in (f["code"] + f["message"]).lower()
                                                  for w in ("plac", "board", "tile", "hex"))]
        return [] if worded else [f"expected a flag, got {[f['code'] for f in got['flags']]}"]
    diffs = [f"flags {[f['code'] for f in got['flags']]}"] if got["flags"] else []
    for key in ("move_points", "symbol_scores", "large_bonus", "bonus_cells", "scores"):
        if got[key] != exp[key]:
            diffs.append(f"{key}: got {got[key]}, expected {exp[key]}")
    for key in ("placed", "scored_towers"):
        as_set = {tuple(x["qr"] if isinstance(x, dict) else x) for x in got[key]}
        if as_set != {tuple(x["qr"] if isinstance(x, dict) else x) for x in exp[key]}:
            diffs.append(f"{key}: got {got[key]}, expected {exp[key]}")
    return diffs


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tools/check_genial_truth.py SET/truth/genial", file=sys.stderr)
        return 2
    board = GenialBoard.from_components(load_components()["genial_spezial"])
    files = sorted(Path(argv[0]).glob("*.json"))
    bad = 0
    for f in files:
        diffs = check(f, board)
        bad += bool(diffs)
        print(f"{f.stem}: {'agree' if not diffs else '; '.join(diffs)}")
    print(f"{len(files) - bad}/{len(files)} agree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
