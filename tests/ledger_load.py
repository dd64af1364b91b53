"""Load and faults on a ledger: W judge processes write N judgements each at once, one is killed with
``kill -9`` mid-run; then every judgement a writer reported committed must be there exactly once, and none
half-written. Used by tests/test_ledger_load.py; also a measuring tool:

    python -m tests.ledger_load --ledger postgresql://... --writers 8 --count 500 [--kill 1]
    python -m tests.ledger_load --ledger /tmp/x.sqlite --writers 4 --count 500

Each writer opens the ledger, waits for a start file (so all begin together), then records judgements in a
loop: a unique photo (thumbnail row) and the judgement in one transaction, the state's digest in the
result, its table name ``table-<k>``. It prints ``<judgement id> <i>`` after each commit returns.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def payload(k: int, i: int) -> tuple[dict, str, bytes]:
    """Writer ``k``'s ``i``-th state, its digest and its photo thumbnail (unique per judgement)."""
    state = {"writer": k, "i": i, "chips": [{"kind": "star", "colour": "red", "xy_mm": [i * 0.5, k * 1.0]}]
             * (1 + i % 5)}
    digest = hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()
    return state, digest, f"thumb-{k}-{i}-".encode() * (20 + i % 30)


def writer(target: str, k: int, count: int, go: str) -> None:
    from ledger import Ledger

    led = Ledger(target)
    while not os.path.exists(go):
        time.sleep(0.005)
    for i in range(count):
        state, digest, thumb = payload(k, i)
        jid = led.record_judgement("carrotain", state, {"digest": digest, "writer": k, "i": i}, source=f"w{k}/{i}",
                                   thumbnail_jpeg=thumb, table=f"table-{k}")
        print(jid, i, flush=True)


@dataclass(frozen=True)
class LoadResult:
    """What a run did: per writer the (id, i) pairs reported committed, who was killed, wall time."""

    reported: dict[int, list[tuple[int, int]]]
    killed: tuple[int, ...]
    seconds: float

    @property
    def committed(self) -> int:
        return sum(len(v) for v in self.reported.values())

    @property
    def per_second(self) -> float:
        return self.committed / self.seconds


def run_load(target: str, writers: int, count: int, kill: tuple[int, ...] = (), kill_after: int | None = None,
             workdir: Path | None = None, timeout_s: float = 600.0) -> LoadResult:
    """Start ``writers`` processes on ``target``; SIGKILL those in ``kill`` once they reported ``kill_after``."""
    from ledger import Ledger

    Ledger(target).close()  # the schema exists before the writers race
    workdir = workdir or Path(os.environ.get("TMPDIR", "/tmp"))
    go = workdir / f"go-{os.getpid()}-{time.monotonic_ns()}"
    procs = [subprocess.Popen([sys.executable, "-m", "tests.ledger_load", "--writer", str(k), "--ledger", target,
                               "--count", str(count), "--go", str(go)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for k in range(writers)]
    reported: dict[int, list[tuple[int, int]]] = {k: [] for k in range(writers)}
    kill_after = count // 3 if kill_after is None else kill_after
    try:
        time.sleep(0.2)
        go.touch()
        t0 = time.perf_counter()
        for k in kill:  # read the victims first, up to their kill point, then kill them mid-run
            for line in procs[k].stdout:
                jid, i = map(int, line.split())
                reported[k].append((jid, i))
                if len(reported[k]) >= kill_after:
                    os.kill(procs[k].pid, signal.SIGKILL)
                    break
            # what it printed before it died: still in the pipe, or already read ahead into the text stream's
            # buffer (which communicate() below would not see) - drained to EOF here
            reported[k] += [tuple(map(int, ln.split())) for ln in procs[k].stdout if ln.strip()]
        for k, p in enumerate(procs):
            out, err = p.communicate(timeout=timeout_s)
            reported[k] += [tuple(map(int, ln.split())) for ln in out.splitlines() if ln.strip()]
            if k in kill:
                assert p.returncode == -signal.SIGKILL, (k, p.returncode, err[-800:])
            else:
                assert p.returncode == 0, f"writer {k} failed ({p.returncode}): {err[-800:]}"
        seconds = time.perf_counter() - t0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
        go.unlink(missing_ok=True)
    return LoadResult(reported, tuple(kill), seconds)


def check_ledger(target: str, res: LoadResult, count: int) -> dict[int, int]:
    """Raise AssertionError unless every reported judgement is stored exactly once and whole; return the
    number stored per writer."""
    from ledger import Ledger

    led = Ledger(target)
    assert led.integrity_check() == "ok"
    stored = led.judgements(limit=None)
    by_id = {j.id: j for j in stored}
    seen: dict[tuple[int, int], int] = {}
    for j in stored:
        k, i = j.result["writer"], j.result["i"]
        assert (k, i) not in seen, f"writer {k}'s judgement {i} stored twice ({seen[(k, i)]}, {j.id})"
        seen[(k, i)] = j.id
        state, digest, thumb = payload(k, i)  # whole: state, result, photo and table as written
        assert j.state == state and j.result["digest"] == digest and j.thumbnail_jpeg == thumb, j.id
        assert j.table == f"table-{k}" and j.source == f"w{k}/{i}" and j.photo_sha256 == hashlib.sha256(
            thumb).hexdigest()
    for k, pairs in res.reported.items():
        for jid, i in pairs:
            assert jid in by_id and seen.get((k, i)) == jid, f"writer {k} reported judgement {i} (id {jid}): missing"
    per_writer = {k: sum(1 for (w, _) in seen if w == k) for k in res.reported}
    for k, n in per_writer.items():
        if k in res.killed:  # at most the one in flight when killed committed without being reported
            assert len(res.reported[k]) <= n <= len(res.reported[k]) + 1, (k, n, len(res.reported[k]))
        else:
            assert n == count == len(res.reported[k]), (k, n, len(res.reported[k]))
    photos = led._query("SELECT COUNT(*) FROM photos")[0][0]
    orphans = led._query("SELECT COUNT(*) FROM photos p WHERE NOT EXISTS "
                         "(SELECT 1 FROM judgements j WHERE j.photo_sha256 = p.sha256)")[0][0]
    assert orphans == 0 and photos == len(seen), f"{orphans} photos without their judgement (half-written)"
    led.close()
    return per_writer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ledger", required=True)
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--kill", type=int, default=1, help="how many writers to kill -9 mid-run")
    ap.add_argument("--writer", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--go", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.writer is not None:
        writer(args.ledger, args.writer, args.count, args.go)
        return 0
    res = run_load(args.ledger, args.writers, args.count, kill=tuple(range(args.kill)))
    per_writer = check_ledger(args.ledger, res, args.count)
    print(json.dumps({"writers": args.writers, "count": args.count, "killed": list(res.killed),
                      "committed": res.committed, "seconds": round(res.seconds, 2),
                      "judgements_per_s": round(res.per_second, 1), "stored_per_writer": per_writer}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
