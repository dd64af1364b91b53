"""Scratch: run the Kaleido recognizer on photoreal dev photos given on the command line (truth JSON
next to them as ../../truth/kaleido/<name>.json) and print board/cell agreement. Not a test."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.table import calibrate_from_markers  # noqa: E402
from scoring.kaleido import KaleidoContext, KaleidoState, adjudicate  # noqa: E402
from vision.kaleido import detect_kaleido  # noqa: E402
from vision.kaleido_match import match_boards  # noqa: E402


def main(paths: list[str]) -> None:
    for p in paths:
        p = Path(p)
        truth = json.loads((p.parents[2] / "truth" / "kaleido" / (p.stem + ".json")).read_text())
        img = cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB)
        cal = calibrate_from_markers(img)
        t0 = time.perf_counter()
        det = detect_kaleido(img, cal)
        ms = (time.perf_counter() - t0) * 1000
        true_state = KaleidoState.from_json(truth["scene"])
        m = match_boards(det.state, true_state)
        players = tuple((k, tuple(v)) for k, v in truth["context"]["players"].items())
        out = adjudicate(det.state, KaleidoContext(players=players))
        exp = truth["expected"]
        print(f"{p.stem}: boards {m.matched}/{m.n_true} (+{m.extra} extra), cells {m.cells_ok}/{m.cells_total}, "
              f"hex {out['complete_hexagons']}/{exp['complete_hexagons']} scores {out['scores']} vs {exp['scores']} "
              f"{ms:.0f} ms")
        for e in m.errors:
            print("    ", e)
        for f in out["flags"]:
            print("     flag", f["code"], f["message"][:100])


if __name__ == "__main__":
    main(sys.argv[1:])
