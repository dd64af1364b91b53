"""Correcting a detection by hand: the state's lists become editable tables, and back.

Generic over games: every top-level list of objects in a state's JSON (chips, boards, tiles, cells)
is one table. ``xy_mm`` pairs become ``x_mm``/``y_mm`` columns; an ``outline_mm`` polygon is moved
with ``shift_x_mm``/``shift_y_mm``/``rotate_deg`` columns (the page's way to "drag a board");
other nested values are edited as JSON text.
"""

from __future__ import annotations

import json
import math

import numpy as np

MOVE_COLUMNS = ("shift_x_mm", "shift_y_mm", "rotate_deg")


def state_tables(state_json: dict) -> dict[str, list[dict]]:
    """Editable rows for each top-level list of objects in a state JSON.

    Returns
    -------
    dict[str, list[dict]]
        Field name -> rows of scalar values (strings, numbers, booleans, None).
    """
    tables: dict[str, list[dict]] = {}
    for name, value in state_json.items():
        if name == "flags" or not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            continue
        rows = []
        for item in value:
            row: dict = {}
            for k, v in item.items():
                if k == "xy_mm" and isinstance(v, list) and len(v) == 2:
                    row["x_mm"], row["y_mm"] = float(v[0]), float(v[1])
                elif k == "outline_mm":
                    row.update({c: 0.0 for c in MOVE_COLUMNS})
                elif isinstance(v, (dict, list)):
                    row[k] = json.dumps(v)
                else:
                    row[k] = v
            rows.append(row)
        tables[name] = rows
    return tables


def _moved(outline: list, dx: float, dy: float, deg: float) -> list:
    pts = np.asarray(outline, dtype=float).reshape(-1, 2)
    c = pts.mean(axis=0)
    a = math.radians(deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return ((pts - c) @ rot.T + c + [dx, dy]).round(3).tolist()


def apply_tables(state_json: dict, tables: dict[str, list[dict]]) -> dict:
    """Rebuild a state JSON from edited tables (rows may have been added, removed or changed).

    Rows are matched to the original items by position; extra rows start from the last original
    item of that list (or nothing), so a user can add a chip by copying a row's values.

    Raises
    ------
    ValueError
        A JSON-text cell does not parse.
    """
    out = dict(state_json)
    for name, rows in tables.items():
        originals = state_json.get(name, [])
        items = []
        for idx, row in enumerate(rows):
            base = dict(originals[idx]) if idx < len(originals) else {}
            move = [float(row.get(c) or 0.0) for c in MOVE_COLUMNS]
            for k, v in row.items():
                if k in ("x_mm", "y_mm") or k in MOVE_COLUMNS:
                    continue
                orig = base.get(k)
                if isinstance(orig, (dict, list)) and isinstance(v, str):
                    try:
                        v = json.loads(v)
                    except json.JSONDecodeError as exc:
                        raise ValueError(f"{name} row {idx + 1}, column {k}: not valid JSON ({exc.msg})") from None
                base[k] = v
            if "x_mm" in row and "y_mm" in row:
                base["xy_mm"] = [float(row["x_mm"]), float(row["y_mm"])]
            if "outline_mm" in base and any(move):
                base["outline_mm"] = _moved(base["outline_mm"], *move)
            items.append(base)
        out[name] = items
    return out
