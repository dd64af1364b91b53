"""Do a doubtful judgement's flags name the part that is wrong? (photoreal evaluation; Kaleido and CMYK!)

A judgement that is not exact but carries a doubt flag counts as honest doubt only when the doubt points at
what is actually wrong: a user who checks the flagged cells and finds them right would trust a wrong score.
The wrong parts come from the truth file:

- Kaleido (``scene.boards`` in table mm, compared with the detected state's boards - the same marker frame):
  a misread cell (detected board, cell), a true board that was not found, a detected board that is none.
  Named by ``uncertain_cells`` (its ``[board, cell]`` pairs), ``off_lattice`` (its boards, every cell of
  them), ``boards_partly_seen`` (a place within one board edge of a missed board's centre).
- CMYK! (per player): a player whose reading is not exact. Named by a doubt flag of that player (``player``)
  or naming them among others (``players``). The tiles are not matched cell by cell (the truth's lattice
  frame and the judge's differ by an unknown lattice shift).

A doubt flag that names no place at all (no ``cells``, ``boards``, ``places``, ``player``, ``players``) doubts
the whole judgement and names every part.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Keys by which a flag points at a part of the table.
LOCATING_KEYS = ("cells", "boards", "places", "player", "players", "unread_cells", "regions_px")


def _global(flags: list[dict]) -> bool:
    return any(not any(k in f for k in LOCATING_KEYS) for f in flags)


def kaleido_wrong_parts(state: dict, scene: dict, tol_mm: float = 20.0) -> list[dict]:
    """The misread cells, missed boards and extra boards of a detected Kaleido state against the truth scene.

    Returns
    -------
    list of dict
        ``{"kind": "cell", "board": i, "cell": k}`` (detected board index and cell),
        ``{"kind": "missed", "centre_mm": [x, y]}`` (a true board), ``{"kind": "extra", "board": i}``.
    """
    det = state.get("boards", [])
    d_c = np.array([b["centre_mm"] for b in det], dtype=np.float64).reshape(-1, 2)
    used: set[int] = set()
    parts: list[dict] = []
    for tb in scene.get("boards", []):
        c = np.asarray(tb["centre_mm"], dtype=np.float64)
        dist = np.linalg.norm(d_c - c, axis=1) if len(d_c) else np.zeros(0)
        di = int(np.argmin(dist)) if len(dist) else -1
        if di < 0 or dist[di] > tol_mm or di in used:
            parts.append({"kind": "missed", "centre_mm": c.tolist()})
            continue
        used.add(di)
        db = det[di]
        shift = int(np.rint((float(db["rotation_deg"]) - float(tb["rotation_deg"])) / 60.0)) % 6
        for k in range(6):
            if db["cells"][k] != tb["cells"][(k + shift) % 6]:
                parts.append({"kind": "cell", "board": di, "cell": k})
    parts += [{"kind": "extra", "board": i} for i in range(len(det)) if i not in used]
    return parts


def kaleido_named(part: dict, flags: list[dict], edge_mm: float) -> bool:
    """Whether a doubt flag names this wrong part (see the module's description)."""
    if _global(flags):
        return True
    for f in flags:
        boards = {int(b) for b in f.get("boards", [])}
        cells = {(int(b), int(k)) for b, k in f.get("cells", [])} if f.get("code") == "uncertain_cells" else set()
        if part["kind"] == "cell" and ((part["board"], part["cell"]) in cells or part["board"] in boards):
            return True
        if part["kind"] == "extra" and (part["board"] in boards or any(b == part["board"] for b, _ in cells)):
            return True
        if part["kind"] == "missed":
            for p in f.get("places", []):
                if np.hypot(*(np.asarray(p["centre_mm"], float) - part["centre_mm"])) <= edge_mm:
                    return True
    return False


def cmyk_wrong_players(checks: dict, expected: dict) -> list[str]:
    """The players whose reading is not exact (a table's per-player checks, or the one player of a photo)."""
    if isinstance(checks.get("players"), dict):
        return [n for n, c in checks["players"].items() if not c.get("exact")]
    return [next(iter(expected["players"]))] if not checks.get("exact") else []


def cmyk_named(player: str, flags: list[dict]) -> bool:
    """Whether a doubt flag names this player (or doubts the whole judgement)."""
    if _global(flags):
        return True
    return any(f.get("player") == player or player in (f.get("players") or []) for f in flags)


def flags_name_the_wrong_part(game: str, doubt: list[dict], state: dict | None, doc: dict,
                              checks: dict) -> tuple[bool | None, str]:
    """Whether the doubt flags of a not-exact judgement name what is wrong.

    Parameters
    ----------
    game : str
    doubt : list of dict
        The judgement's doubt flags (not mere notices).
    state : dict or None
        The detected state's JSON (None: not available, e.g. from the CLI).
    doc : dict
        The truth file (``expected``, and ``scene`` for Kaleido).
    checks : dict
        The comparison's checks (``tools.photoreal_compare``).

    Returns
    -------
    named : bool or None
        True: at least one wrong part is named; False: the flags point elsewhere; None: not checked (another
        game, no state, another frame than the truth's, nothing found wrong).
    note : str
        Which wrong parts were (not) named.
    """
    parts: list
    named: Callable[[object], bool]
    if game == "kaleido":
        if state is None or state.get("frame") != "markers" or "scene" not in doc:
            return None, ""
        edge = float(state.get("edge_mm", 60.0))
        parts = kaleido_wrong_parts(state, doc["scene"])
        def named(p): return kaleido_named(p, doubt, edge)  # noqa: E704
    elif game == "cmyk":
        parts = cmyk_wrong_players(checks, doc["expected"])
        def named(p): return cmyk_named(p, doubt)  # noqa: E704
    else:
        return None, ""
    if not parts:
        return None, ""
    hit = [p for p in parts if named(p)]
    note = f"flags name {len(hit)}/{len(parts)} wrong part(s)"
    if not hit:
        note += ": " + ", ".join(_describe(p) for p in parts[:4])
    return bool(hit), note


def _describe(part: object) -> str:
    if isinstance(part, str):
        return f"player {part}"
    assert isinstance(part, dict)
    if part["kind"] == "cell":
        return f"board {part['board']} cell {part['cell']}"
    if part["kind"] == "extra":
        return f"extra board {part['board']}"
    return f"missed board at {[round(v) for v in part['centre_mm']]} mm"
