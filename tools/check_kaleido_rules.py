"""Scratch check: judge truth scenes (photoreal truth JSON files given on the command line) with
``scoring.kaleido`` and compare with their ``expected``. Not a test: tests never read shared data.

    python tools/check_kaleido_rules.py /path/to/truth/kaleido/*.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.kaleido import KaleidoContext, KaleidoState, adjudicate  # noqa: E402


def main(paths: list[str]) -> int:
    bad = 0
    for p in paths:
        doc = json.loads(Path(p).read_text())
        state = KaleidoState.from_json(doc["scene"])
        players = tuple((k, tuple(v)) for k, v in doc["context"]["players"].items())
        out = adjudicate(state, KaleidoContext(players=players))
        exp = doc["expected"]
        keys = ("complete_hexagons", "junction_hexagons", "full_boards", "board_points", "scores")
        diff = {k: (out[k], exp[k]) for k in keys if k in exp and out[k] != exp[k]}
        cells_ok = [h["cells"] for h in out["hexagons"]] == [h["cells"] for h in exp["hexagons"]]
        print(f"{Path(p).stem}: {'OK' if not diff else 'DIFF ' + str(diff)} cells {'same' if cells_ok else 'differ'}")
        bad += bool(diff)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
