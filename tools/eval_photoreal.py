#!/usr/bin/env python3
"""Score the judge on a photoreal set folder, per game and category, optionally as devices deliver it.

    python tools/eval_photoreal.py --set SET [--game G ...] [--category C ...] [--device D[,D...]]
                                   [--seed N] [--limit N] [--name SUBSTR] [--cli] [--report OUT.json]
                                   [--max-wrong N] [-v]

SET holds ``truth/<game>/<name>.json`` and the photos in ``images/<game>/`` (the layout of the photoreal
kit's sets and of the project's photoreal dev set): a truth file with ``images``
lists its photos (a CMYK! table: one per player; Ingenious / Genial: before, after), otherwise the photo
is ``<name>.jpg``.

Each item is judged by the product's own pipeline in this process (the game registry's plugin,
``judge.registry.game``, + ``judge.pipeline.judge_images``, exactly what ``cli.py judge`` runs),
or with ``--cli`` by running ``cli.py judge`` as a subprocess, and compared with the truth by the
kit's rules (``tools/photoreal_compare.py``).
Every item gets one outcome:

- ``exact``: right by the kit's rules (Carrotain borderline: contested; stacked: verdict + stacking flag).
- ``doubt``: not exact, but the judgement is honestly unsure: contested, or a flag that is not a mere
  notice (``INFORMATIONAL_FLAGS``); for CMYK!, a wrong player's truth total must also lie inside the
  ``total_range`` the judge gave (a range that excludes the truth misleads), unless the judge flagged that
  total ``score_open`` (it declares the total not judgeable, its range not a bound). Kaleido and CMYK!, judged
  in-process: the doubt flags must also name at least one of the wrong parts (``tools/flag_targets.py``:
  a misread cell, a missed or extra board, a wrong player); flags that point elsewhere are not honest
  doubt (``WRONG``, the row says which parts were wrong).
- ``cannot``: the judge declined (exit 3) and said why.
- ``WRONG``: an answer, not exact, without honest doubt. This must be 0.
- ``error``: bad input (exit 2), an internal error (exit 1, a traceback) or a timeout.

``--device phone|webcam|browser`` (several comma-separated, ``none`` = the photo as rendered) passes each
photo through ``tools/device_sim.py`` first (seeded by photo name, device and ``--seed``). With ``none``
among the devices, the summary also says how many of the photos exact as rendered stay exact per device.

Exit status 0; 1 when ``--max-wrong`` is given and more items are WRONG.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.blas import single_thread_blas  # noqa: E402
from tools.device_sim import DEVICES, seed_for, simulate  # noqa: E402
from tools.flag_targets import flags_name_the_wrong_part  # noqa: E402
from tools.photoreal_compare import COMPARE, expected_str  # noqa: E402

GAMES = ("carrotain", "kaleido", "cmyk", "ingenious", "genial")
OUTCOMES = ("exact", "doubt", "cannot", "WRONG", "error")
# categories whose photos a person could judge easily: "cannot judge" there counts against the judge
CLEAR_CATEGORIES = ("clear", "all", "table")
# flags that are notices about the game, not doubt about the reading
INFORMATIONAL_FLAGS = frozenset(
    {"calibration_warning", "tie", "series_tie", "illegal_contact", "extra_games_ignored", "board_not_full",
     "loose_board"}
)  # loose_board: its doubt is in the outline's sigma (borderline chips, ``contested``), not in the notice


@dataclass(frozen=True)
class Item:
    """One truth file and its photo(s).

    Attributes
    ----------
    game, name, category : str
    doc : dict
        The truth file (``context``, ``expected``, ...).
    images : tuple[Path, ...]
    """

    game: str
    name: str
    category: str
    doc: dict
    images: tuple[Path, ...]


@dataclass(frozen=True)
class Outcome:
    """One judged item.

    Attributes
    ----------
    item : Item
    device : str
    outcome : str
        One of ``OUTCOMES``.
    checks : dict
        The comparison's named booleans (``exact`` ...).
    got : str
        One-line summary of the judgement, or the reason it gave none.
    ms : float
        Wall time of the judgement.
    flags : tuple[str, ...]
        Flag codes in the judgement.
    """

    item: Item
    device: str
    outcome: str
    checks: dict
    got: str
    ms: float
    flags: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        return {
            "game": self.item.game,
            "name": self.item.name,
            "category": self.item.category,
            "device": self.device,
            "outcome": self.outcome,
            "exact": bool(self.checks.get("exact")),
            "checks": {k: v for k, v in self.checks.items() if isinstance(v, bool | int | str)},
            "expected": expected_str(self.item.game, self.item.doc["expected"]),
            "got": self.got,
            "ms": round(self.ms, 1),
            "flags": list(self.flags),
        }


# ------------------------------------------------------------------ the set


def load_items(
    set_dir: Path,
    games: tuple[str, ...] = GAMES,
    categories: tuple[str, ...] = (),
    name_part: str = "",
    limit: int = 0,
    skip_missing: bool = False,
) -> list[Item]:
    """The set's truth files (sorted by game, then name), filtered.

    Parameters
    ----------
    set_dir : Path
        Holds ``truth/<game>/*.json`` and ``images/<game>/``.
    games : tuple[str, ...]
    categories : tuple[str, ...]
        Keep only these categories (all when empty).
    name_part : str
        Keep only names containing this.
    limit : int
        At most this many items per game (0: all).
    skip_missing : bool
        Leave out truth files whose photos are not there (a set still being rendered); otherwise
        they are judged as errors ("image missing").
    """
    items: list[Item] = []
    for game in games:
        n = 0
        for tp in sorted((set_dir / "truth" / game).glob("*.json")):
            doc = json.loads(tp.read_text(encoding="utf-8"))
            cat = str(doc.get("category", "all"))
            if categories and cat not in categories:
                continue
            if name_part and name_part not in tp.stem:
                continue
            names = doc.get("images") or [tp.stem + ".jpg"]
            images = tuple(set_dir / "images" / game / x for x in names)
            if skip_missing and not all(p.exists() for p in images):
                continue
            items.append(Item(game, tp.stem, cat, doc, images))
            n += 1
            if limit and n >= limit:
                break
    return items


def photo_as_delivered(path: Path, device: str, seed: int) -> np.ndarray:
    """The photo (RGB uint8) as ``device`` would deliver it (``none``: as the judge decodes the file)."""
    from judge.images import decode_image

    data = path.read_bytes()
    if device == "none":
        return decode_image(data, path.name)
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if bgr is None:
        raise ValueError(f"{path}: not a readable image")
    return simulate(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), device, seed_for(path.name, device, seed))


# ------------------------------------------------------------------ judging


@dataclass(frozen=True)
class Verdict:
    """What the judge answered: ``out`` (the CLI contract's JSON) or the exit code and reason."""

    out: dict | None
    exit_code: int
    reason: str
    ms: float
    state: dict | None = None  # the detected state's JSON (in-process only): where the flags should point


def judge_in_process(game: str, context: dict, photos: list[np.ndarray], names: list[str]) -> Verdict:
    """The product's pipeline in this process (what ``cli.py judge`` runs, without the ledger)."""
    from core.errors import BadInput, CannotJudge
    from judge.pipeline import judge_images
    from judge.registry import game as game_plugin

    t0 = time.perf_counter()
    try:
        plugin = game_plugin(game)  # the registry: every registered game, built-in or added
        j = judge_images(plugin, list(zip(photos, names, strict=True)), context)
        out = json.loads(json.dumps(j.result, ensure_ascii=False))  # exactly what the CLI would print
        ms = (time.perf_counter() - t0) * 1000
        to_json = getattr(j.state, "to_json", None)
        return Verdict(out, 0, "", ms, to_json() if callable(to_json) else None)
    except CannotJudge as exc:
        return Verdict(None, 3, str(exc), (time.perf_counter() - t0) * 1000)
    except BadInput as exc:
        return Verdict(None, 2, str(exc), (time.perf_counter() - t0) * 1000)
    except Exception as exc:  # an internal error is a result to report, not a reason to stop the run
        return Verdict(None, 1, f"{type(exc).__name__}: {exc}", (time.perf_counter() - t0) * 1000)


def judge_with_cli(
    game: str, context: dict, photos: list[np.ndarray], names: list[str], python: str, timeout_s: float
) -> Verdict:
    """``cli.py judge --no-ledger`` as a subprocess on the photos (written as JPEG q95 when simulated)."""
    with tempfile.TemporaryDirectory() as tmp:
        ctx = Path(tmp) / "context.json"
        ctx.write_text(json.dumps(context), encoding="utf-8")
        paths = []
        for k, (img, name) in enumerate(zip(photos, names, strict=True)):
            p = Path(tmp) / f"{k}_{Path(name).stem}.jpg"
            cv2.imwrite(str(p), cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 95])
            paths.append(str(p))
        cmd = [python, "cli.py", "judge", "--game", game, "--context", str(ctx), "--no-ledger", *paths]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(
                cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired:
            return Verdict(None, 124, f"timeout after {timeout_s:g} s", (time.perf_counter() - t0) * 1000)
    ms = (time.perf_counter() - t0) * 1000
    err = " | ".join(p.stderr.strip().splitlines()[-3:])[-300:]
    if p.returncode != 0:
        return Verdict(None, p.returncode, err or "(no stderr)", ms)
    try:
        out = json.loads(p.stdout.strip())
    except ValueError:
        return Verdict(None, 1, f"stdout is not one JSON object: {p.stdout.strip()[:120]!r}", ms)
    return Verdict(out if isinstance(out, dict) else None, 0 if isinstance(out, dict) else 1, "", ms)


# ------------------------------------------------------------------ comparing


def doubt_flags(out: dict) -> list[dict]:
    """The flags that express doubt about the reading (not mere notices)."""
    flags = out.get("flags") if isinstance(out.get("flags"), list) else []
    return [f for f in flags if isinstance(f, dict) and str(f.get("code")) not in INFORMATIONAL_FLAGS]


def cmyk_ranges_cover_truth(out: dict, exp: dict) -> bool:
    """Every player's ``total_range`` (when given) contains the true total (or an accepted alternative).

    A player whose total the judge declares open (``score_open``: too many unread cells to bound it, "possibly
    beyond" the readings tried) claims no bound: the judgement says it cannot judge that total.
    """
    players = out.get("players") if isinstance(out.get("players"), dict) else {}
    flags = out.get("flags") if isinstance(out.get("flags"), list) else []
    open_totals = {f.get("player") for f in flags if isinstance(f, dict) and f.get("code") == "score_open"}
    for name, want in exp["players"].items():
        if name in open_totals:
            continue
        got = players.get(name)
        if not isinstance(got, dict) or not isinstance(got.get("total_range"), list) or len(got["total_range"]) != 2:
            continue
        lo, hi = got["total_range"]
        truths = want.get("total_alternatives", [want["total"]])
        if not any(lo <= t <= hi for t in truths):
            return False
    return True


def honest_doubt(game: str, out: dict, exp: dict) -> bool:
    """Does a not-exact answer carry honest doubt (contested, or a doubt flag whose ranges hold the truth)?"""
    if out.get("contested") is True:
        return True
    if not doubt_flags(out):
        return False
    if game == "cmyk":
        return cmyk_ranges_cover_truth(out, exp)
    return True


def judge_outcome(item: Item, verdict: Verdict) -> tuple[str, dict, str]:
    """(outcome, checks, got) of one verdict against the item's truth."""
    exp, cat, game = item.doc["expected"], item.category, item.game
    invalid_refused = game in ("ingenious", "genial") and cat == "invalid" and verdict.exit_code == 3
    if invalid_refused:
        return "exact", {"exact": True, "refused": True}, "refused (exit 3): " + verdict.reason
    if verdict.out is None:
        kind = "cannot" if verdict.exit_code == 3 else "error"
        return kind, {"exact": False}, f"exit {verdict.exit_code}: {verdict.reason}"
    checks, got = COMPARE[game](verdict.out, exp, cat)
    if checks.get("exact"):
        return "exact", checks, got
    if not honest_doubt(game, verdict.out, exp):
        return "WRONG", checks, got
    named, note = flags_name_the_wrong_part(game, doubt_flags(verdict.out), verdict.state, item.doc, checks)
    if named is not None:
        checks["flags_name_wrong_part"] = named
        got += f" [{note}]"
    return ("WRONG" if named is False else "doubt"), checks, got


def evaluate(
    items: list[Item],
    devices: tuple[str, ...],
    seed: int = 0,
    judge: Callable[[str, dict, list[np.ndarray], list[str]], Verdict] = judge_in_process,
    progress: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Judge every item as every device delivers it.

    Parameters
    ----------
    items : list[Item]
    devices : tuple[str, ...]
        From ``tools.device_sim.DEVICES``.
    seed : int
        Base seed of the device simulations.
    judge : callable(game, context, photos, names) -> Verdict
    progress : callable(Outcome), optional
        Called after each item.
    """
    results = []
    for device in devices:
        for it in items:
            missing = [p for p in it.images if not p.exists()]
            if missing:
                verdict = Verdict(None, 2, f"image missing: {missing[0]}", 0.0)
            else:
                photos = [photo_as_delivered(p, device, seed) for p in it.images]
                verdict = judge(it.game, it.doc["context"], photos, [p.name for p in it.images])
            outcome, checks, got = judge_outcome(it, verdict)
            flags = tuple(str(f.get("code")) for f in (verdict.out or {}).get("flags", []) if isinstance(f, dict))
            res = Outcome(it, device, outcome, checks, got, verdict.ms, flags)
            results.append(res)
            if progress is not None:
                progress(res)
    return results


# ------------------------------------------------------------------ summarising


def count_outcomes(rows: list[Outcome]) -> dict[str, int]:
    c = {k: 0 for k in OUTCOMES}
    for r in rows:
        c[r.outcome] += 1
    return c


def summary_lines(results: list[Outcome]) -> list[str]:
    """The per device / game / category table, the must-be-zero counts and the key figures."""
    lines = [f"{'device':8s} {'game':10s} {'category':10s} {'n':>4s} " + " ".join(f"{k:>6s}" for k in OUTCOMES)]
    devices = list(dict.fromkeys(r.device for r in results))
    for device in devices:
        drows = [r for r in results if r.device == device]
        for game in dict.fromkeys(r.item.game for r in drows):
            grows = [r for r in drows if r.item.game == game]
            cats = list(dict.fromkeys(r.item.category for r in grows))
            for cat in [*cats, "ALL"] if len(cats) > 1 else cats:
                rows = grows if cat == "ALL" else [r for r in grows if r.item.category == cat]
                c = count_outcomes(rows)
                lines.append(
                    f"{device:8s} {game:10s} {cat:10s} {len(rows):4d} " + " ".join(f"{c[k]:6d}" for k in OUTCOMES)
                )
        c = count_outcomes(drows)
        clear = [r for r in drows if r.item.category in CLEAR_CATEGORIES]
        cannot_clear = sum(1 for r in clear if r.outcome == "cannot")
        ms = [r.ms for r in drows if r.outcome != "error"]
        med = f"{statistics.median(ms):.0f} ms" if ms else "n/a"
        lines.append(
            f"{device}: exact {c['exact']}/{len(drows)} = {c['exact'] / max(1, len(drows)):.3f}; "
            f"honest doubt {c['doubt']}; cannot judge {c['cannot']} (on clear photos {cannot_clear}/{len(clear)}); "
            f"WRONG WITHOUT HONEST DOUBT {c['WRONG']}; errors {c['error']}; median {med} a judgement"
        )
        lines.extend(key_figures(drows))
        pointed = [r for r in drows if "flags_name_wrong_part" in r.checks]
        if pointed:
            hit = sum(1 for r in pointed if r.checks["flags_name_wrong_part"])
            lines.append(f"  doubt flags name the wrong part: {hit}/{len(pointed)} of the flagged, not exact "
                         f"Kaleido/CMYK! judgements (the others count as WRONG)")
        wrong = [f"{r.item.name} ({r.item.category}): {r.got}" for r in drows if r.outcome == "WRONG"]
        lines.extend(f"  WRONG {w}" for w in wrong)
    if "none" in devices and len(devices) > 1:
        base = {r.item.name for r in results if r.device == "none" and r.outcome == "exact"}
        for device in devices:
            if device == "none":
                continue
            kept = sum(1 for r in results if r.device == device and r.item.name in base and r.outcome == "exact")
            lines.append(f"stays exact as {device} delivers it: {kept}/{len(base)} of the photos exact as rendered")
    return lines


def _frac(rows: list[Outcome], key: str) -> str:
    return f"{sum(1 for r in rows if r.checks.get(key))}/{len(rows)}"


def key_figures(rows: list[Outcome]) -> list[str]:
    """The issue's per-game figures (Carrotain clear verdicts/awards, borderline contested, ...)."""
    out = []
    car = [r for r in rows if r.item.game == "carrotain"]
    if car:
        clear = [r for r in car if r.item.category == "clear"]
        border = [r for r in car if r.item.category == "borderline"]
        stacked = [r for r in car if r.item.category == "stacked"]
        out.append(
            f"  carrotain: clear verdicts {_frac(clear, 'verdict')}, awards {_frac(clear, 'awards')}, "
            f"borderline contested {_frac(border, 'contested_flagged')}, stacked exact {_frac(stacked, 'exact')}"
        )
    kal = [r for r in rows if r.item.game == "kaleido"]
    if kal:
        out.append(
            f"  kaleido: complete_hexagons {_frac(kal, 'complete_hexagons')}, scores {_frac(kal, 'scores')}, "
            f"full_boards {_frac(kal, 'full_boards')}"
        )
    cm = [r for r in rows if r.item.game == "cmyk" and r.item.category != "table"]
    if cm:
        out.append(f"  cmyk: tiles {_frac(cm, 'tiles')}, hexagons {_frac(cm, 'hexagons')}, total {_frac(cm, 'total')}")
    tab = [r for r in rows if r.item.game == "cmyk" and r.item.category == "table"]
    if tab:
        out.append(f"  cmyk tables: ranking {_frac(tab, 'ranking')}, exact {_frac(tab, 'exact')}")
    hard = [r for r in rows if r.item.category == "hard"]
    if hard:
        out.append(f"  hard: exact {_frac(hard, 'exact')}")
    return out


# ------------------------------------------------------------------ command line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", required=True, type=Path, help="set folder with truth/ and images/")
    ap.add_argument("--game", action="append", choices=GAMES, help="only this game (repeatable)")
    ap.add_argument("--category", action="append", default=[], help="only this category (repeatable)")
    ap.add_argument("--device", default="none", help=f"comma-separated, of {', '.join(DEVICES)}, or 'all'")
    ap.add_argument("--seed", type=int, default=0, help="base seed of the device simulation")
    ap.add_argument("--limit", type=int, default=0, help="at most N items per game")
    ap.add_argument("--name", default="", help="only items whose name contains this")
    ap.add_argument("--cli", action="store_true", help="run cli.py judge as a subprocess instead of in-process")
    ap.add_argument("--python", default=sys.executable, help="interpreter for --cli")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per photo with --cli")
    ap.add_argument("--report", type=Path, help="write every row and the summary as JSON here")
    ap.add_argument("--max-wrong", type=int, default=None, help="exit 1 when more items are WRONG")
    ap.add_argument(
        "--skip-missing", action="store_true", help="leave out truth files whose photos are not rendered yet"
    )
    ap.add_argument("-v", "--verbose", action="store_true", help="print the flags of every row")
    a = ap.parse_args(argv)
    single_thread_blas()  # as cli.main does: judged in this process, the CPU figures are the CLI's
    devices = DEVICES if a.device == "all" else tuple(d.strip() for d in a.device.split(",") if d.strip())
    bad = [d for d in devices if d not in DEVICES]
    if bad:
        sys.stderr.write(f"error: unknown device {bad[0]!r}: choose from {', '.join(DEVICES)} or 'all'\n")
        return 2
    if not (a.set / "truth").is_dir():
        sys.stderr.write(f"error: {a.set} has no truth/ folder (expected SET/truth/<game>/*.json)\n")
        return 2
    items = load_items(a.set, tuple(a.game or GAMES), tuple(a.category), a.name, a.limit, a.skip_missing)
    if a.skip_missing:
        n_all = len(load_items(a.set, tuple(a.game or GAMES), tuple(a.category), a.name, a.limit))
        print(f"{len(items)} of {n_all} truth files have their photos ({n_all - len(items)} left out)", flush=True)
    if not items:
        sys.stderr.write(f"error: no truth files in {a.set} for the games/categories asked\n")
        return 2
    judge = judge_in_process
    if a.cli:

        def judge(game, ctx, photos, names):
            return judge_with_cli(game, ctx, photos, names, a.python, a.timeout * len(photos))

    print(f"{'device':8s} {'image':26s} {'cat':10s} {'outcome':7s} {'ms':>6s}  expected | got", flush=True)

    def show(r: Outcome) -> None:
        exp = expected_str(r.item.game, r.item.doc["expected"])
        print(f"{r.device:8s} {r.item.name:26s} {r.item.category:10s} {r.outcome:7s} {r.ms:6.0f}  {exp} | {r.got}")
        if a.verbose and r.flags:
            print(f"{'':44s} flags: {', '.join(r.flags)}")
        sys.stdout.flush()

    results = evaluate(items, devices, a.seed, judge, show)
    lines = summary_lines(results)
    print()
    print("\n".join(lines))
    if a.report:
        a.report.write_text(
            json.dumps({"set": str(a.set), "rows": [r.to_json() for r in results], "summary": lines}, indent=1),
            encoding="utf-8",
        )
    n_wrong = sum(1 for r in results if r.outcome == "WRONG")
    return 1 if a.max_wrong is not None and n_wrong > a.max_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
