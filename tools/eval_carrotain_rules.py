"""How the Carrotain rules behave under measurement noise: silent wrong verdicts vs contested ones.

For many seeded layouts (two real board outlines from ``components/default.json``, randomly placed,
rotated and mirrored; chips mostly under the boards, some near edges, some outside), the true verdict
comes from the exact positions. The "measured" state moves every chip centre by N(0, sigma_chip) and
every board by a rigid error (translation N(0, sigma_board) per axis, rotation about its centre with
the same sd at the board's rim), reports those sigmas, and is adjudicated. Printed per noise level:

- wrong & silent: the measured verdict differs from the truth and is NOT contested (the worst case);
- wrong & contested: differs, but the judge said it could go either way;
- contested (all): how often players are asked to look (false alarms included).

Usage: ``python tools/eval_carrotain_rules.py [--layouts 400] [--seed 0]``. numpy + shapely.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from shapely import Polygon, union_all
from shapely import intersects_xy as inside

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from components import load_components  # noqa: E402
from scoring.carrotain import CarrotainOptions, adjudicate  # noqa: E402
from scoring.carrotain_state import BoardReading, CarrotainState, ChipReading  # noqa: E402

PLAYERS = ("red", "blue", "green")


def _rot(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, s], [-s, c]])


def make_layout(rng: np.random.Generator, outlines: dict) -> tuple[list[np.ndarray], np.ndarray, list]:
    """Two placed board outlines (N, 2) mm, chip centres (n, 2) mm and colours."""
    ids = rng.choice(sorted(outlines), size=2, replace=False)
    boards = []
    for i, k in enumerate(ids):
        o = np.asarray(outlines[k], float) * ([-1, 1] if rng.integers(2) else [1, 1])
        centre = (150 + 260 * i + rng.uniform(-20, 20), 210 + rng.uniform(-40, 40))
        boards.append(o @ _rot(rng.uniform(0, 2 * np.pi)) + centre)
    cand = rng.uniform([0, 0], [600, 420], size=(4000, 2))
    union = union_all([Polygon(b) for b in boards])
    under = cand[inside(union, cand[:, 0], cand[:, 1])]
    near = [boards[j % 2][rng.integers(len(boards[j % 2]))] + rng.normal(0, 2.0, 2) for j in range(rng.integers(0, 4))]
    parts = [under[: rng.integers(5, 14)], rng.uniform([0, 0], [600, 420], (rng.integers(0, 4), 2))]
    if near:
        parts.append(np.array(near))
    centres = np.vstack(parts)
    colours = list(rng.choice(PLAYERS, size=len(centres)))
    return boards, centres, colours


def state_of(boards, centres, colours, sigma_chip: float, sigma_board: float) -> CarrotainState:
    chips = tuple(ChipReading("star", str(c), (float(p[0]), float(p[1])), sigma_chip) for c, p in zip(colours, centres))
    return CarrotainState(chips, tuple(BoardReading(k, b, sigma_board) for k, b in zip("AB", boards)))


def perturb(rng, boards, centres, sigma_chip: float, sigma_board: float):
    noisy_centres = centres + rng.normal(0, sigma_chip, centres.shape)
    noisy_boards = []
    for b in boards:
        c = b.mean(axis=0)
        rim = np.max(np.linalg.norm(b - c, axis=1))
        ang = rng.normal(0, sigma_board / rim)
        noisy_boards.append((b - c) @ _rot(ang) + c + rng.normal(0, sigma_board, 2))
    return noisy_boards, noisy_centres


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layouts", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    outlines = load_components()["carrotain"]["board"]["outlines_mm"]
    levels = [(0.3, 0.3), (0.5, 0.5), (1.0, 0.7), (1.5, 1.0)]
    print(f"{args.layouts} layouts per noise level, options = {CarrotainOptions()}")
    print(f"{'sigma chip/board mm':>20} {'wrong&silent':>13} {'wrong&contested':>16} {'contested':>10} "
          f"{'awards wrong&silent':>20}")
    for sc, sb in levels:
        rng = np.random.default_rng(args.seed)
        silent = loud = contested = awards_silent = 0
        for _ in range(args.layouts):
            boards, centres, colours = make_layout(rng, outlines)
            truth = adjudicate(state_of(boards, centres, colours, 0.0, 0.0), PLAYERS, "blue",
                               CarrotainOptions(margin_mm=0.0, use_chip_sigma=False))
            nb, nc = perturb(rng, boards, centres, sc, sb)
            meas = adjudicate(state_of(nb, nc, colours, sc, sb), PLAYERS, "blue")
            wrong = meas.verdict != truth.verdict
            silent += wrong and not meas.contested
            loud += wrong and meas.contested
            contested += meas.contested
            awards_silent += (meas.awards != truth.awards) and not meas.contested and "borderline" not in \
                meas.flag_codes()
        n = args.layouts
        print(f"{sc:>9.1f} / {sb:<8.1f} {silent:>7} ({silent / n:5.1%}) {loud:>8} ({loud / n:5.1%}) "
              f"{contested / n:>9.1%} {awards_silent:>12} ({awards_silent / n:5.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
