"""Compare a detected Kaleido state with a true one (evaluation and tests; pure)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scoring.kaleido_state import KaleidoState


@dataclass(frozen=True)
class BoardMatch:
    """Agreement between a detected and a true table.

    Attributes
    ----------
    n_true, matched, extra : int
        True boards, true boards found (centre within ``tol_mm``), detected boards matching none.
    cells_total, cells_ok : int
        Cells of matched boards, and those read right (colour or empty).
    white_as_empty, empty_as_white : int
        The two confusions that matter most on light tables.
    errors : list[str]
        One line per wrong cell or missed board.
    """

    n_true: int
    matched: int
    extra: int
    cells_total: int
    cells_ok: int
    white_as_empty: int = 0
    empty_as_white: int = 0
    errors: list[str] = field(default_factory=list)


def match_boards(detected: KaleidoState, truth: KaleidoState, tol_mm: float = 20.0) -> BoardMatch:
    """Match boards by centre and compare their cells, whatever rotation each side used.

    Parameters
    ----------
    detected, truth : KaleidoState
        In the same table frame.
    tol_mm : float

    Returns
    -------
    BoardMatch
    """
    d_c = np.array([b.centre_mm for b in detected.boards], dtype=np.float64).reshape(-1, 2)
    used = set()
    matched = ok = total = w2e = e2w = 0
    errors: list[str] = []
    for ti, tb in enumerate(truth.boards):
        if len(d_c) == 0:
            errors.append(f"board {ti} missed")
            continue
        dist = np.linalg.norm(d_c - np.asarray(tb.centre_mm), axis=1)
        di = int(np.argmin(dist))
        if dist[di] > tol_mm or di in used:
            errors.append(f"board {ti} missed")
            continue
        used.add(di)
        matched += 1
        db = detected.boards[di]
        shift = int(np.rint((db.rotation_deg - tb.rotation_deg) / 60.0)) % 6
        for k in range(6):
            want = tb.cells[(k + shift) % 6]
            got = db.cells[k]
            total += 1
            if want == got:
                ok += 1
            else:
                errors.append(f"board {ti} cell {(k + shift) % 6}: {want} read as {got} "
                              f"(conf {db.confidences[k]:.2f})")
                w2e += want == "white" and got is None
                e2w += want is None and got == "white"
    return BoardMatch(n_true=len(truth.boards), matched=matched, extra=len(detected.boards) - len(used),
                      cells_total=total, cells_ok=ok, white_as_empty=w2e, empty_as_white=e2w, errors=errors)
