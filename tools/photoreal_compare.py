"""Compare one judgement (the CLI contract's JSON) with a photoreal truth file's ``expected``.

A port of the comparison rules of the photoreal kit's ``score.py`` and ``genial_compare.py``
kept here so that ``tools/eval_photoreal.py`` runs from a fresh clone.
Each ``compare_<game>(out, exp, cat)`` returns ``(checks, got)``: ``checks`` a dict of named booleans
with ``"exact"``, ``got`` a one-line summary for the table. Standard library only.
"""

# ruff: noqa: E501, E731
from __future__ import annotations

import re


def _int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def same_int_map(got, want):
    """{player: int} equality; players missing on either side count as 0."""
    if not isinstance(got, dict):
        return False
    keys = set(want) | set(got)
    return all(_int(got.get(k, 0)) == int(want.get(k, 0)) for k in keys)


def compare_carrotain(out, exp, cat):
    r = {}
    r["verdict"] = out.get("verdict") == exp["verdict"]
    r["contested"] = bool(out.get("contested")) == bool(exp["contested"])
    r["contested_flagged"] = out.get("contested") is True
    r["counts"] = _int(out.get("not_hidden")) == exp["not_hidden"] and _int(out.get("hidden")) == exp["hidden"]
    aw = out.get("awards")
    ok = isinstance(aw, dict)
    if ok:
        for p in set(exp["awards"]) | set(aw):
            g = aw.get(p) or {}
            w = exp["awards"].get(p, {"boards": 0, "chips": 0})
            if (
                not isinstance(g, dict)
                or _int(g.get("boards", 0)) != w["boards"]
                or _int(g.get("chips", 0)) != w["chips"]
            ):
                ok = False
    r["awards"] = ok
    r["scores"] = same_int_map(out.get("scores"), exp["scores"])
    flags = out.get("flags") if isinstance(out.get("flags"), list) else []
    r["stack_flagged"] = any(
        isinstance(f, dict) and "stack" in (str(f.get("code", "")) + " " + str(f.get("message", ""))).lower()
        for f in flags
    )
    if cat == "borderline":
        r["exact"] = r["contested_flagged"]
    elif cat == "stacked":
        # the boards overlap: the verdict (union of the two boards) and a no-stacking flag
        r["exact"] = r["verdict"] and r["stack_flagged"]
    else:
        # clear and hard (hard carrotain scenes are clear scenes: every centre >= 3 mm from every edge)
        r["exact"] = r["verdict"] and r["awards"]
    got = f"{out.get('verdict')} nh={out.get('not_hidden')} contested={out.get('contested')}"
    if cat == "stacked":
        got += f" stack_flag={r['stack_flagged']}"
    return r, got


def compare_kaleido(out, exp, cat):
    r = {}
    r["complete_hexagons"] = _int(out.get("complete_hexagons")) == exp["complete_hexagons"]
    r["scores"] = same_int_map(out.get("scores"), exp["scores"])
    r["full_boards"] = _int(out.get("full_boards")) == exp["full_boards"]
    r["board_points"] = same_int_map(out.get("board_points"), exp["board_points"])
    r["exact"] = r["complete_hexagons"] and r["scores"]
    got = f"hex={out.get('complete_hexagons')} full={out.get('full_boards')} scores={out.get('scores')}"
    return r, got


def compare_cmyk_table(out, exp, cat):
    """Several players' photos judged together: per player tiles/hexagons/total, and the ranking."""
    names = list(exp["players"])  # context order
    players = out.get("players") if isinstance(out.get("players"), dict) else {}
    ranking = out.get("ranking") if isinstance(out.get("ranking"), list) else []
    note = ""
    if players and not any(n in players for n in names) and len(players) == len(names):
        # no name matched: take the product's entries in their order, and rename its ranking
        ren = dict(zip(list(players), names))
        players = {ren[k]: v for k, v in players.items()}
        ranking = [ren.get(str(x), x) for x in ranking]
        note = " (player names not matched; product order used)"
    per = {}
    for n in names:
        want = exp["players"][n]
        got = players.get(n) if isinstance(players.get(n), dict) else {}
        c = {
            "tiles": _int(got.get("tiles")) == want["tiles"],
            "hexagons": _int(got.get("hexagons")) == want["hexagons"],
            "k_tiles": _int(got.get("k_tiles")) == want["k_tiles"],
            "total": _int(got.get("total")) in want.get("total_alternatives", [want["total"]]),
            "illegal_contacts": _int(got.get("illegal_contacts", 0)) == want["illegal_contacts"],
        }
        c["exact"] = c["tiles"] and c["hexagons"] and c["total"]
        per[n] = c
    r = {
        "players": per,
        "ranking": [str(x) for x in ranking] in exp.get("ranking_alternatives", [exp["ranking"]]),
        "totals": all(c["total"] for c in per.values()),
    }
    r["exact"] = r["totals"] and r["ranking"]
    gp = " ".join(
        f"{n}:{(players.get(n) or {}).get('tiles') if isinstance(players.get(n), dict) else None}/"
        f"{(players.get(n) or {}).get('hexagons') if isinstance(players.get(n), dict) else None}/"
        f"{(players.get(n) or {}).get('total') if isinstance(players.get(n), dict) else None}"
        for n in names
    )
    return r, f"{gp} rank={'>'.join(str(x) for x in ranking)}{note}"


def compare_cmyk(out, exp, cat):
    if cat == "table":
        return compare_cmyk_table(out, exp, cat)
    name, want = next(iter(exp["players"].items()))
    players = out.get("players") if isinstance(out.get("players"), dict) else {}
    got = players.get(name)
    note = ""
    if got is None and len(players) == 1:
        got = next(iter(players.values()))
        note = " (player name not matched; single entry used)"
    got = got if isinstance(got, dict) else {}
    r = {}
    r["tiles"] = _int(got.get("tiles")) == want["tiles"]
    r["hexagons"] = _int(got.get("hexagons")) == want["hexagons"]
    r["k_tiles"] = _int(got.get("k_tiles")) == want["k_tiles"]
    r["total"] = _int(got.get("total")) in want.get("total_alternatives", [want["total"]])
    r["illegal_contacts"] = _int(got.get("illegal_contacts", 0)) == want["illegal_contacts"]
    r["exact"] = r["tiles"] and r["hexagons"] and r["total"]
    s = f"tiles={got.get('tiles')} hex={got.get('hexagons')} K={got.get('k_tiles')} total={got.get('total')}{note}"
    return r, s


ING_COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")
ING_FLAG_WORDS = ("placement", "placed", "tile", "hex")  # a flag about the placement names one of these


def _ing_placed(v):
    """[{qr: [q, r], colour}] -> {(q, r, colour)} or None."""
    if not isinstance(v, list):
        return None
    out = set()
    for p in v:
        if not isinstance(p, dict):
            return None
        qr = p.get("qr")
        if not isinstance(qr, (list, tuple)) or len(qr) != 2 or _int(qr[0]) is None or _int(qr[1]) is None:
            return None
        out.add((_int(qr[0]), _int(qr[1]), str(p.get("colour", "")).lower()))
    return out


def _ing_points(v):
    """{colour: int} with the zero entries dropped, or None."""
    if not isinstance(v, dict):
        return None
    out = {}
    for k, x in v.items():
        i = _int(x)
        if i is None:
            return None
        if i:
            out[str(k).lower()] = i
    return out


def _ing_ranking_ok(ranking, exp):
    """The ranking lists every player once, best first; players in a full tie may come in any order."""
    players = list(exp["colour_scores"])
    if not isinstance(ranking, list) or sorted(str(x) for x in ranking) != sorted(players):
        return False
    key = {p: tuple(sorted(exp["colour_scores"][p][c] for c in ING_COLOURS)) for p in players}
    names = [str(x) for x in ranking]
    return all(key[a] >= key[b] for a, b in zip(names, names[1:]))


def compare_ingenious(out, exp, cat):
    """One placement (photo pair): placed hexes, move_points, colour_scores, extra placements;
    category invalid: a flag about the placement (exit 3 is handled by the caller)."""
    flags = out.get("flags") if isinstance(out.get("flags"), list) else []
    r = {
        "flagged": any(
            isinstance(f, dict)
            and any(w in (str(f.get("code", "")) + " " + str(f.get("message", ""))).lower() for w in ING_FLAG_WORDS)
            for f in flags
        )
    }
    codes = [str(f.get("code")) for f in flags if isinstance(f, dict)]
    if cat == "invalid":
        r["exact"] = r["flagged"]
        return r, f"flags={codes}"
    want_placed = {(p["qr"][0], p["qr"][1], p["colour"]) for p in exp["placed"]}
    got_placed = _ing_placed(out.get("placed"))
    r["placed"] = got_placed == want_placed
    r["move_points"] = _ing_points(out.get("move_points")) == {c: v for c, v in exp["move_points"].items() if v}
    cs = out.get("colour_scores")
    ok = isinstance(cs, dict)
    if ok:
        for p, want in exp["colour_scores"].items():
            g = cs.get(p)
            g = {str(k).lower(): v for k, v in g.items()} if isinstance(g, dict) else None
            if g is None or any(_int(g.get(c, 0)) != v for c, v in want.items()):
                ok = False
    r["colour_scores"] = ok
    r["extra_placements"] = _int(out.get("extra_placements")) == exp["extra_placements"]
    r["ranking"] = _ing_ranking_ok(out.get("ranking"), exp)
    # the board as read after the move (printed symbols, if listed, are left out)
    start = {tuple(s["qr"]) for s in exp.get("start_symbols", [])}
    want_b = {(b["qr"][0], b["qr"][1], b["colour"]) for b in exp["board"]}
    got_b = _ing_placed(out.get("board"))
    got_b = {x for x in got_b if (x[0], x[1]) not in start} if got_b is not None else set()
    r["board"] = got_b == want_b
    r["board_cells"] = [len(got_b & want_b), len(want_b), len(got_b - want_b)]
    r["exact"] = r["placed"] and r["move_points"] and r["colour_scores"] and r["extra_placements"]
    gp = sorted(got_placed) if got_placed is not None else out.get("placed")
    got = (
        f"placed={gp} move={out.get('move_points')} extra={out.get('extra_placements')}"
        f"{'' if r['colour_scores'] else ' colour_scores WRONG'}{' flags=' + str(codes) if codes else ''}"
    )
    return r, got


def expected_str(game, exp):
    if game == "genial":
        return genial_expected_str(exp)
    if game == "ingenious":
        if exp.get("flagged"):
            return "FLAG: " + "; ".join(exp["problems"])
        pl = sorted((p["qr"][0], p["qr"][1], p["colour"]) for p in exp["placed"])
        return f"placed={pl} move={exp['move_points']} extra={exp['extra_placements']}"
    if game == "carrotain":
        return f"{exp['verdict']} nh={exp['not_hidden']} contested={exp['contested']}"
    if game == "kaleido":
        return f"hex={exp['complete_hexagons']} full={exp['full_boards']} scores={exp['scores']}"
    if len(exp["players"]) > 1:  # cmyk table: name:tiles/hexagons/total per player, ranking
        return (
            " ".join(f"{n}:{p['tiles']}/{p['hexagons']}/{p['total']}" for n, p in exp["players"].items())
            + " rank="
            + ">".join(exp["ranking"])
        )
    p = next(iter(exp["players"].values()))
    return f"tiles={p['tiles']} hex={p['hexagons']} K={p['k_tiles']} total={p['total']}"


SYMBOLS = ("orange", "blue", "green", "purple")
GENIAL_FLAG_WORDS = ("plac", "board", "tile", "hex")  # placement/placed, board, tile, hex(es)


def exit_code_of(reason):
    """The exit status from run_eval.run_cli's reason ("exit 3: ..."), or None."""
    m = re.match(r"exit (-?\d+)", str(reason or ""))
    return int(m.group(1)) if m else None


def _qr(v):
    """[q, r] or {"qr": [q, r], ...} -> (q, r) (None if unreadable)."""
    if isinstance(v, dict):
        v = v.get("qr")
    if isinstance(v, (list, tuple)) and len(v) == 2 and all(_int(x) is not None for x in v):
        return (_int(v[0]), _int(v[1]))
    return None


def _qr_set(items):
    if not isinstance(items, list):
        return None
    out = [_qr(x) for x in items]
    return None if any(q is None for q in out) else set(out)


def _symbols_equal(got, want):
    """{symbol: int} for the four symbols; a symbol missing on either side counts as 0."""
    if not isinstance(got, dict):
        return False
    if any(k not in SYMBOLS for k in got):
        return False
    return all(_int(got.get(s, 0)) == int(want.get(s, 0)) for s in SYMBOLS)


def _rank_key(score):
    return tuple(sorted(int(score.get(s, 0)) for s in SYMBOLS))


def _genial_flag_text(f):
    if isinstance(f, dict):
        return (str(f.get("code", "")) + " " + str(f.get("message", ""))).lower()
    return str(f).lower()


def compare_genial(out, exp, cat, exit_code=None, reason=None):
    """Returns (checks, got): checks = {name: bool, ..., "exact": bool}, got = a one-line summary."""
    if exit_code is None:
        exit_code = 0 if out is not None else exit_code_of(reason)
    if cat == "invalid" or exp.get("flagged"):
        r = {"refused": out is None and exit_code == 3}
        flags = out.get("flags") if isinstance(out, dict) and isinstance(out.get("flags"), list) else []
        hits = [f for f in flags if any(w in _genial_flag_text(f) for w in GENIAL_FLAG_WORDS)]
        r["flagged"] = out is not None and bool(hits)
        r["exact"] = r["flagged"] or r["refused"]
        if out is None:
            got = f"exit {exit_code}" + (" (refused: ok)" if r["refused"] else "")
        else:
            codes = [str(f.get("code")) if isinstance(f, dict) else str(f) for f in flags]
            got = f"flags={codes}" + (" (placement flagged: ok)" if hits else " (no placement/board/tile flag)")
            if out.get("placed") is not None:
                got += f" placed={sorted(_qr_set(out.get('placed')) or [])}"
        return r, got
    if not isinstance(out, dict):
        return {"exact": False}, f"no output (exit {exit_code})"
    r = {}
    want_placed = {tuple(p["qr"]) for p in exp["placed"]}
    got_placed = _qr_set(out.get("placed"))
    r["placed"] = got_placed == want_placed
    r["move_points"] = _symbols_equal(out.get("move_points"), exp["move_points"])
    ss = out.get("symbol_scores") if isinstance(out.get("symbol_scores"), dict) else {}
    r["symbol_scores"] = all(_symbols_equal(ss.get(p), exp["symbol_scores"][p]) for p in exp["symbol_scores"])
    r["scored_towers"] = _qr_set(out.get("scored_towers")) == {tuple(q) for q in exp["scored_towers"]}
    r["large_bonus"] = _int(out.get("large_bonus")) == exp["large_bonus"]
    r["bonus_cells"] = _int(out.get("bonus_cells")) == exp["bonus_cells"]
    got_t = {}
    for t in out.get("towers") if isinstance(out.get("towers"), list) else []:
        q = _qr(t)
        if q is not None and isinstance(t, dict):
            got_t[q] = t
    n_ok = 0
    for t in exp["towers"]:
        g = got_t.get(tuple(t["qr"]), {})
        if (
            str(g.get("size")) == t["size"]
            and str(g.get("symbol")) == t["symbol"]
            and _int(g.get("value")) == t["value"]
            and bool(g.get("dark")) == t["dark"]
        ):
            n_ok += 1
    r["towers"] = n_ok == len(exp["towers"]) and len(got_t) == len(exp["towers"])
    r["towers_read"] = f"{n_ok}/{len(exp['towers'])}"
    rk = out.get("ranking") if isinstance(out.get("ranking"), list) else []
    rk = [str(x) for x in rk]
    es = exp["symbol_scores"]
    r["ranking"] = sorted(rk) == sorted(exp["ranking"]) and [_rank_key(es[p]) for p in rk] == [
        _rank_key(es[p]) for p in exp["ranking"]
    ]
    sc = out.get("scores") if isinstance(out.get("scores"), dict) else {}
    r["scores"] = all(_int(sc.get(p)) == v for p, v in exp["scores"].items())
    r["exact"] = r["placed"] and r["move_points"] and r["symbol_scores"]
    mp = out.get("move_points") if isinstance(out.get("move_points"), dict) else {}
    got = (
        f"placed={'+'.join(str(list(q)) for q in sorted(got_placed or []))} move={_abbr(mp)} "
        f"scored={len(_qr_set(out.get('scored_towers')) or [])} large+{out.get('large_bonus')} "
        f"bonus={out.get('bonus_cells')} towers {r['towers_read']}"
    )
    return r, got


def _abbr(m):
    return "/".join(f"{s[0]}{_int(m.get(s, 0))}" for s in SYMBOLS)


def genial_expected_str(exp):
    """One line for run_eval's table."""
    if exp.get("flagged"):
        return "INVALID (flag or exit 3): " + "; ".join(exp["problems"])
    placed = "+".join(str(p["qr"]) for p in sorted(exp["placed"], key=lambda p: p["qr"]))
    return (
        f"placed={placed} move={_abbr(exp['move_points'])} scored={len(exp['scored_towers'])} "
        f"large+{exp['large_bonus']} bonus={exp['bonus_cells']} {exp['mover']}={_abbr(exp['symbol_scores'][exp['mover']])}"
    )


COMPARE = {
    "carrotain": compare_carrotain,
    "kaleido": compare_kaleido,
    "cmyk": compare_cmyk,
    "ingenious": compare_ingenious,
    "genial": compare_genial,
}
