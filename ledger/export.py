"""Ledger exports: one JSON file, or CSV tables (judgements, rounds, sessions)."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ledger.errors import LedgerError

if TYPE_CHECKING:  # pragma: no cover
    from ledger.store import Ledger

JUDGEMENT_COLUMNS = ("id", "created_utc", "game", "source", "photo_sha256", "session_id", "corrected_from",
                     "summary", "scores_json", "flags", "state_json", "result_json", "corrections_json")
ROUND_COLUMNS = ("id", "session_id", "number", "challenger", "judgement_id", "undone", "created_utc", "summary_json")
SESSION_COLUMNS = ("id", "game", "players_json", "settings_json", "created_utc", "ended_utc", "result_json")


#: ``summarise(game, result) -> str``: one short line per judgement (the game plugin's ``summary``).
Summariser = Callable[[str, dict], str]


def generic_summary(game: str, result: dict) -> str:
    """A game-blind one-line summary, used when the caller gives none: the verdict (``contested`` noted),
    else the ranking, else the scores."""
    if "verdict" in result:
        return f"{result['verdict']}{' (contested)' if result.get('contested') else ''}"
    if result.get("ranking"):
        return " > ".join(str(p) for p in result["ranking"])
    scores = result.get("scores")
    return ", ".join(f"{p} {v}" for p, v in scores.items()) if isinstance(scores, dict) else ""


def _compact(obj: object) -> str:
    return "" if obj is None else json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _replace_atomically(path: Path, write) -> Path:
    """Write through a temporary file beside ``path`` and rename it over ``path``."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            write(fh)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise LedgerError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def write_json(ledger: Ledger, path: str | os.PathLike) -> Path:
    """Every session, judgement (thumbnails left out) and round (undone included) as one JSON object."""
    obj = {
        "schema_version": ledger.schema_version,
        "sessions": [s.to_json() for s in reversed(ledger.sessions())],
        "judgements": [j.to_json() for j in reversed(ledger.judgements(limit=None))],
        "rounds": [r.to_json() for r in ledger.rounds(None, include_undone=True)],
    }
    return _replace_atomically(Path(path), lambda fh: json.dump(obj, fh, ensure_ascii=False, indent=1))


def _judgement_row(j, summarise: Summariser) -> dict:
    res = j.result if isinstance(j.result, dict) else {}
    flags = res.get("flags") or []
    return {
        "id": j.id, "created_utc": j.created_utc, "game": j.game, "source": j.source,
        "photo_sha256": j.photo_sha256 or "", "session_id": "" if j.session_id is None else j.session_id,
        "corrected_from": "" if j.corrected_from is None else j.corrected_from,
        "summary": summarise(j.game, res) if res else "", "scores_json": _compact(res.get("scores")),
        "flags": " ".join(str(f.get("code", "")) for f in flags if isinstance(f, dict)),
        "state_json": _compact(j.state), "result_json": _compact(j.result), "corrections_json": _compact(j.corrections),
    }


def _write_table(path: Path, columns: tuple[str, ...], rows: list[dict]) -> Path:
    def write(fh) -> None:
        w = csv.DictWriter(fh, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)

    return _replace_atomically(path, write)


def write_csv(ledger: Ledger, dir_or_path: str | os.PathLike, summarise: Summariser = generic_summary) -> list[Path]:
    """Judgements, rounds and sessions as three CSV files (oldest first); see ``Ledger.export_csv``.

    ``summarise(game, result)`` writes each judgement's ``summary`` column (the CLI passes the game
    plugins' ``summary``; the ledger itself knows no game)."""
    target = Path(dir_or_path)
    if target.suffix.lower() == ".csv":
        paths = (target, target.with_name(target.stem + "_rounds.csv"), target.with_name(target.stem + "_sessions.csv"))
    else:
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LedgerError(f"cannot create directory {target}: {exc.strerror or exc}") from None
        paths = (target / "judgements.csv", target / "rounds.csv", target / "sessions.csv")
    judgements = [_judgement_row(j, summarise) for j in reversed(ledger.judgements(limit=None))]
    rounds = [{**{k: v for k, v in r.to_json().items() if k != "summary"}, "undone": int(r.undone),
               "challenger": r.challenger or "", "judgement_id": "" if r.judgement_id is None else r.judgement_id,
               "summary_json": _compact(r.summary)} for r in ledger.rounds(None, include_undone=True)]
    sessions = [{"id": s.id, "game": s.game, "players_json": _compact(s.players), "settings_json": _compact(s.settings),
                 "created_utc": s.created_utc, "ended_utc": s.ended_utc or "", "result_json": _compact(s.result)}
                for s in reversed(ledger.sessions())]
    return [_write_table(paths[0], JUDGEMENT_COLUMNS, judgements), _write_table(paths[1], ROUND_COLUMNS, rounds),
            _write_table(paths[2], SESSION_COLUMNS, sessions)]
