"""Cross-check the Ingenious rules against the photoreal kit's independent truth (no photos).

    .venv/bin/python tools/check_ingenious_truth.py --kit KIT_DIR [--seeds 120]

For seeded kit scenes of every kind the kit makes (normal, caps, two caps, at the cap, team 18/36, doubles,
lines through a printed symbol, two tiles, a hex off the board), the product's judgement
(``scoring.ingenious_judge`` on the scene's before/after boards) must equal the kit's expected one:
placed hexes, move points, extra placements, colour scores, the ranking's order, and a flag exactly when
the kit calls the pair invalid. A tool, not a product module: KIT_DIR is the photoreal kit's folder, given
explicitly (nothing in the repository looks outside it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PLACEMENT_CODES = ("not_one_tile", "not_neighbours", "moved_tile", "covers_symbol", "outside_play")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kit", required=True, help="the photoreal kit's folder (its scene and truth makers)")
    ap.add_argument("--seeds", type=int, default=120)
    a = ap.parse_args(argv)
    sys.path.insert(0, a.kit)
    import ingenious_scenes  # the kit's scene maker (numpy only)
    import ingenious_truth
    import make_set

    from scoring.ingenious import Board
    from scoring.ingenious_judge import IngeniousContext, IngeniousState, judge_placement

    kinds = make_set.ING_KINDS
    bad = 0
    done = 0
    for k in range(a.seeds):
        plan = kinds[k % len(kinds)]
        try:
            scene = ingenious_scenes.ingenious_scene(700000 + k, plan)
        except RuntimeError:
            continue
        exp = ingenious_truth.expected(scene)
        ctx = IngeniousContext.from_json(ingenious_truth.context_for(scene))
        state = IngeniousState(after=Board.of(ingenious_truth.board_after(scene)),
                               before=Board.of(ingenious_truth.board_before(scene)))
        got = judge_placement(state, ctx)
        flagged = any(f["code"] in PLACEMENT_CODES for f in got.flags)
        done += 1
        if exp["flagged"]:
            ok = flagged
        else:
            ok = (not flagged
                  and sorted(map(str, got.placed)) == sorted(map(str, exp["placed"]))
                  and got.move_points == {c: v for c, v in exp["move_points"].items() if v}
                  and got.extra_placements == exp["extra_placements"]
                  and got.colour_scores == exp["colour_scores"]
                  and [sorted(got.colour_scores[p].values()) for p in got.ranking]
                  == [sorted(exp["colour_scores"][p].values()) for p in exp["ranking"]])
        if not ok:
            bad += 1
            print(f"seed {700000 + k} {plan['kind']}: expected {exp.get('move_points')} extra "
                  f"{exp.get('extra_placements')} flagged {exp['flagged']}; got {got.move_points} extra "
                  f"{got.extra_placements} flags {[f['code'] for f in got.flags]}")
    print(f"{done - bad}/{done} scenes agree with the kit's independent truth")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
