"""Cross-check geometry.mosaic against an independent, coordinate-based reference on random mosaics.

Usage: python tools/eval_mosaic.py [N_SEEDS=500]

The reference never uses the (i, j) bookkeeping rules of geometry.mosaic: it works on the triangles'
corner coordinates from ``geometry.trilattice.cell_vertices`` (shared edges = equal segments, hexagons =
lattice points that are a corner of six tiles, mirrors = reflecting whole triangles about every candidate
line on a quarter-edge / sixth-row grid). Prints the agreement per quantity; exit 1 on any disagreement.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from geometry.mosaic import analyse_shape, rotate_cells  # noqa: E402
from geometry.trilattice import SQRT3, cell_centroid, cell_vertices, neighbours  # noqa: E402

H = SQRT3 / 2.0  # row height for edge 1


def random_mosaic(rng: np.random.Generator, n_min: int = 1, n_max: int = 40) -> list[tuple[int, int]]:
    """A connected random mosaic grown from (0, 0) by edge contact, sometimes compact, sometimes stringy."""
    n = int(rng.integers(n_min, n_max + 1))
    cells = [(0, 0)]
    occ = {(0, 0)}
    compact = rng.random() < 0.5
    while len(cells) < n:
        frontier = sorted({nb for c in cells for nb in neighbours(*c).values() if nb not in occ})
        if compact:  # prefer cells touching more tiles
            w = np.array([1 + 4 * sum(x in occ for x in neighbours(*f).values()) ** 2 for f in frontier], float)
            pick = frontier[int(rng.choice(len(frontier), p=w / w.sum()))]
        else:
            pick = frontier[int(rng.integers(len(frontier)))]
        cells.append(pick)
        occ.add(pick)
    return cells


def _pt(p) -> tuple[int, int]:
    """A point as integers on a quarter-edge x sixth-row grid (exact for every point used here)."""
    return (round(float(p[0]) * 4), round(float(p[1]) / H * 6))


def _segments(cell) -> list[tuple]:
    v = cell_vertices(*cell, 1.0)
    return [tuple(sorted((_pt(v[a]), _pt(v[b])))) for a, b in ((0, 1), (1, 2), (2, 0))]


def reference_geometry(cells) -> dict:
    """Hexagons (as (k, l)), holes, rows, longest run, spiky count, mirrors, from coordinates only."""
    occ = set(cells)
    seg_count = Counter(s for c in occ for s in _segments(c))
    corner_count = Counter(_pt(p) for c in occ for p in cell_vertices(*c, 1.0))
    hexagons = sorted((x // 2, y // 6) for (x, y), n in corner_count.items() if n == 6)
    # holes: cells in the bounding box, empty, whose three sides are all sides of tiles
    ii = [c[0] for c in occ]
    jj = [c[1] for c in occ]
    holes = sorted(c for c in ((i, j) for i in range(min(ii) - 1, max(ii) + 2) for j in range(min(jj) - 1, max(jj) + 2))
                   if c not in occ and all(seg_count[s] == 1 for s in _segments(c)))
    rows = len({int(np.floor(cell_centroid(*c, 1.0)[1] / H)) for c in occ})
    # runs: tiles joined through a non-horizontal shared side, staying in one row
    by_seg: dict[tuple, list] = {}
    for c in occ:
        for s in _segments(c):
            by_seg.setdefault(s, []).append(c)
    adj: dict = {c: [] for c in occ}
    for s, cs in by_seg.items():
        if len(cs) == 2 and s[0][1] != s[1][1]:
            adj[cs[0]].append(cs[1])
            adj[cs[1]].append(cs[0])
    longest, seen = 0, set()
    for c in occ:  # components of the row graph are paths; their size is the run length
        if c in seen:
            continue
        stack, comp = [c], 0
        seen.add(c)
        while stack:
            x = stack.pop()
            comp += 1
            for y in adj[x]:
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        longest = max(longest, comp)
    contacts = {c: sum(len(by_seg[s]) == 2 for s in _segments(c)) for c in occ}
    spiky = sum(n == 1 for n in contacts.values())
    # mirrors: reflect whole triangles (corner sets), so an up tile can only land on a down tile's place
    tris = {frozenset(_pt(p) for p in cell_vertices(*c, 1.0)) for c in occ}
    xs = [p[0] for t in tris for p in t]  # grid units: x*4, y/h*6
    ys = [p[1] for t in tris for p in t]
    lr = any({frozenset((2 * a - x, y) for x, y in t) for t in tris} == tris for a in range(min(xs) - 4, max(xs) + 5))
    ud = any({frozenset((x, 2 * b - y) for x, y in t) for t in tris} == tris for b in range(min(ys) - 6, max(ys) + 7))
    return {"hexagons": hexagons, "holes": holes, "rows": rows, "longest_run": longest, "spiky": spiky,
            "mirror_lr": lr, "mirror_ud": ud}


def ours(cells, horizontal: str = "H") -> dict:
    g = analyse_shape(cells, horizontal).to_json()
    return {k: g[k] if not isinstance(g[k], list) else [tuple(x) for x in g[k]] for k in
            ("hexagons", "holes", "rows", "longest_run", "spiky", "mirror_lr", "mirror_ud")}


def symmetric_variant(rng: np.random.Generator, cells) -> list[tuple[int, int]]:
    """Make random shapes symmetric half the time (mirror images joined), so mirrors are exercised."""
    r = rng.random()
    if r < 0.25:
        return sorted(set(cells) | {(-i, j) for i, j in cells})
    if r < 0.5:
        return sorted(set(cells) | {(i, -1 - j) for i, j in cells})
    return list(cells)


def run(n_seeds: int, verbose: bool = False, seen: Counter | None = None) -> dict[str, int]:
    """Disagreements per quantity over ``n_seeds`` random mosaics (plus 60-degree turns of each).

    ``seen`` (optional) collects how many mosaics had each feature (so the check is not vacuous).
    """
    bad: Counter = Counter()
    seen = Counter() if seen is None else seen
    for seed in range(n_seeds):
        rng = np.random.default_rng(seed)
        cells = symmetric_variant(rng, random_mosaic(rng))
        want, got = reference_geometry(cells), ours(cells)
        seen.update(k for k, v in want.items() if v and k != "rows")
        for k in want:
            if want[k] != got[k]:
                bad[k] += 1
                if verbose:
                    print(f"seed {seed} {k}: ours {got[k]} reference {want[k]}")
        # the horizontal override equals turning the shape: P/N horizontal == reference on the turned cells
        for d, steps in (("P", 5), ("N", 1)):
            want_t, got_t = reference_geometry(rotate_cells(cells, steps)), ours(cells, d)
            for k in ("rows", "longest_run", "mirror_lr", "mirror_ud", "spiky"):
                if want_t[k] != got_t[k]:
                    bad[f"{k}[{d}]"] += 1
    return dict(bad)


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 500
    seen: Counter = Counter()
    bad = run(n, verbose="-v" in argv, seen=seen)
    print(f"{n} random mosaics (1-40 tiles, half mirrored): disagreements {bad or 'none'}")
    print(f"mosaics having each feature: {dict(sorted(seen.items()))}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
