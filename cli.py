#!/usr/bin/env python3
"""Table Judge command line.

    python cli.py judge --game G [--context CTX.json] [--calibration CAL.json]
                        [--overlay OUT.png] [LEDGER OPTIONS] IMAGE [IMAGE ...]
    python cli.py score --game G [--context CTX.json] [LEDGER OPTIONS] STATE.json
    python cli.py detect --game G [--context CTX.json] [LEDGER OPTIONS] IMAGE [IMAGE ...]
    python cli.py render --game G --seed N --out DIR
    python cli.py markers --out FILE.pdf [--charuco]
    python cli.py calibrate-camera --out PROFILE.json IMAGE [IMAGE ...]
    python cli.py register --game G --out PROFILE.json [--profile OLD.json] [--board-id X] IMAGE
    python cli.py bench --game G [--frames N] [--image PHOTO --context CTX.json] [--video FILE | --clip]
    python cli.py live --game G --source 0|VIDEO [--context CTX.json] [--calibration CAL.json] [LEDGER OPTIONS]
    python cli.py ledger {list,hall,info,export-json,export-csv} [--out PATH] [--game G] [LEDGER OPTIONS]
    python cli.py games

LEDGER OPTIONS: --ledger FILE.sqlite | --ledger postgresql://user:password@host:port/dbname (default
$TABLE_JUDGE_LEDGER, else table_judge.sqlite here), --no-ledger (record nothing), --table NAME (the table in
a hall the judgement is made at, default $TABLE_JUDGE_TABLE; for ``ledger list``: only that table's).
A judgement is recorded only when its output carries ``judgement_id`` (with ``ledger`` and ``table``);
a ledger that cannot be opened, reached or written is exit 2, and nothing is reported recorded.

stdout carries exactly one JSON object (``live``: one JSON line per settled judgement); messages go to stderr.
Exit codes: 0 done, 2 bad input,
3 could not judge (the reason on stderr), 1 an internal error (a bug: please report it).

The games are those of ``judge.registry`` (built-in: carrotain, kaleido, cmyk; more through the
``TABLE_JUDGE_PLUGINS`` environment variable or the ``table_judge.games`` entry point group).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from core.blas import single_thread_blas
from core.errors import BadInput, CannotJudge


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake as one line and exit 2."""

    def error(self, message: str) -> NoReturn:
        words = self.prog.split()
        hint = "python cli.py --help" if len(words) < 2 else f"python cli.py {words[-1]} --help"
        sys.stderr.write(f"error: {message} (see: {hint})\n")
        raise SystemExit(2)


def _emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _read_json(path: str | None, what: str) -> Any:
    if path is None:
        return None
    p = Path(path)
    if not p.is_file():
        raise BadInput(f"{what} {path}: no such file")
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, a 5000-digit number
        raise BadInput(f"{what} {path}: not valid JSON ({exc.__class__.__name__}: {exc})") from None
    except RecursionError:
        raise BadInput(f"{what} {path}: JSON nested too deeply to read") from None


def _load_profile(path: str | None) -> Any:
    if path is None:
        return None
    from calibration.profile import CalibrationProfile

    _read_json(path, "calibration profile")  # BadInput for missing file / broken JSON
    try:
        return CalibrationProfile.load(path)
    except (ValueError, KeyError, TypeError) as exc:
        raise BadInput(f"calibration profile {path}: {exc}") from None


def _load_images(paths: list[str]) -> list[tuple[Any, str]]:
    from judge.images import load_image

    return [(load_image(p), p) for p in paths]


def _table(args: argparse.Namespace) -> str:
    from ledger import clean_table_name

    try:
        return clean_table_name(getattr(args, "table", None))
    except ValueError as exc:
        raise BadInput(f"--table: {exc}") from None


def _open_ledger(args: argparse.Namespace) -> Any:
    """The ledger the options name (None with --no-ledger); BadInput (exit 2) when it cannot be opened or
    reached, before any work is done."""
    if getattr(args, "no_ledger", False):
        return None
    from ledger import Ledger, LedgerError

    _table(args)  # a bad table name is refused before anything is judged
    try:
        return Ledger(args.ledger)
    except LedgerError as exc:
        raise BadInput(f"ledger: {exc}") from None


def _record(ledger: Any, args: argparse.Namespace, game: str, result: dict, **fields: Any) -> None:
    """Record a judgement and add ``judgement_id``, ``ledger`` and ``table`` to its output; a failed write
    is exit 2 (the output never claims a judgement that was not recorded)."""
    from ledger import LedgerError

    if ledger is None:
        return
    table = _table(args)
    try:
        jid = ledger.record_judgement(game, result=result, table=table, **fields)
    except LedgerError as exc:
        raise BadInput(f"ledger: {exc}; the judgement was NOT recorded") from None
    result.update({"judgement_id": jid, "ledger": ledger.describe(), "table": table})


def _game(name: str) -> Any:
    from judge.registry import game

    return game(name)


def cmd_judge(args: argparse.Namespace) -> int:
    from judge.overlay_io import save_overlay
    from judge.pipeline import judge_images

    game = _game(args.game)
    context = _read_json(args.context, "context")
    profile = _load_profile(args.calibration)
    ledger = _open_ledger(args)
    images = _load_images(args.images)
    j = judge_images(game, images, context, profile)
    if args.overlay:
        frame = j.frames[-1]
        img = game.annotate(frame, j.state, j.adjudication)
        save_overlay(img, args.overlay)
    if ledger is not None:
        import hashlib  # noqa: PLC0415  (only to record: CLI start-up)

        first = Path(args.images[-1]).read_bytes()
        _record(ledger, args, game.name, j.result, state=j.state.to_json(),
                photo_sha256=hashlib.sha256(first).hexdigest(), source=", ".join(args.images))
    _emit(j.result)
    return 0


def cmd_detect(args: argparse.Namespace) -> int:
    from judge.pipeline import make_frame, parse_context
    from judge.timing import StageTimer

    game = _game(args.game)
    ctx = parse_context(game, _read_json(args.context, "context"))
    layout = game.marker_layout() if game.marker_layout is not None else None
    frames = [make_frame(img, src, layout=layout) for img, src in _load_images(args.images)]
    state = game.detect(frames, ctx, StageTimer())
    _emit(state.to_json())
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from judge.pipeline import adjudicate, parse_context, state_from_json

    game = _game(args.game)
    obj = _read_json(args.state, "state")
    ctx_obj = _read_json(args.context, "context")
    if ctx_obj is None and isinstance(obj, dict):
        ctx_obj = obj.get("context")
    ctx = parse_context(game, ctx_obj)
    state = state_from_json(game, obj)
    ledger = _open_ledger(args)
    result = adjudicate(game, state, ctx)
    _record(ledger, args, game.name, result, state=state.to_json(), source=str(args.state))
    _emit(result)
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from synth.registry import renderer
    from synth.truthio import write_photo

    game = _game(args.game)
    image, truth = renderer(game.name)(args.seed)
    name = f"{game.name}_{args.seed}"
    try:
        image_path = write_photo(args.out, name, image, truth)
    except OSError as exc:
        raise BadInput(f"{args.out}: cannot write ({exc.strerror or exc})") from None
    truth_path = image_path.with_suffix(".json")
    _emit({"game": game.name, "seed": args.seed, "image": str(image_path), "truth": str(truth_path)})
    return 0


def cmd_markers(args: argparse.Namespace) -> int:
    from calibration.markers import MarkerLayout
    from calibration.sheet import write_charuco_sheet, write_marker_sheet

    layout = MarkerLayout.from_components()
    try:
        if args.charuco:
            write_charuco_sheet(args.out)
        else:
            write_marker_sheet(args.out, layout)
    except OSError as exc:
        raise BadInput(f"{args.out}: cannot write ({exc.strerror or exc})") from None
    if args.charuco:
        _emit({"charuco": str(args.out)})
    else:
        _emit({"markers": str(args.out), "ids": sorted(layout.centres_mm), "side_mm": layout.side_mm})
    return 0


def cmd_calibrate_camera(args: argparse.Namespace) -> int:
    from calibration.lens import calibrate_camera
    from calibration.table import CalibrationError

    images = [img for img, _ in _load_images(args.images)]
    try:
        lens = calibrate_camera(images)
    except CalibrationError as exc:
        raise CannotJudge(str(exc)) from None
    lens.save(args.out)
    _emit({"profile": str(args.out), **lens.to_json()})
    return 0


def cmd_register(args: argparse.Namespace) -> int:
    """Register the user's own pieces from one photo into a calibration profile (new or updated)."""
    from calibration.table import CalibrationError, calibrate_from_markers
    from judge.registry import plugins

    game = _game(args.game)
    if game.register is None:
        able = ", ".join(n for n, p in plugins().items() if p.register is not None)
        raise BadInput(f"register: {game.name} has no pieces to register (games that do: {able})")
    options = {"board_id": args.board_id}
    for key, value in options.items():
        if value is not None and key not in game.register_options:
            raise BadInput(f"register: --{key.replace('_', '-')} is not used by {game.name}")
    profile = _load_profile(args.profile)
    ((image, _),) = _load_images([args.image])
    try:
        cal = calibrate_from_markers(image, **({"profile": profile} if profile is not None else {}))
    except CalibrationError as exc:
        raise CannotJudge(str(exc)) from None
    done = game.register(image, cal, profile, {k: v for k, v in options.items() if v is not None})
    try:
        done.profile.save(args.out)
    except OSError as exc:
        raise BadInput(f"{args.out}: cannot write ({exc.strerror or exc})") from None
    _emit({"profile": str(args.out), "game": game.name, **done.summary})
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    context = _read_json(args.context, "context")
    if args.video or args.clip:
        import tempfile

        from judge.bench_video import run_video_bench

        with tempfile.TemporaryDirectory() as tmp:
            video, source = args.video, None
            if args.clip:  # rendered first, not timed
                from synth.clip import render_clip

                path, scene, _ = render_clip(args.game, args.seed, "place", Path(tmp) / "clip.avi")
                video, context, source = str(path), context or scene.context, f"rendered clip seed {args.seed}"
            vreport = run_video_bench(args.game, video, context, source, warm=not args.cold)
        sys.stderr.write(vreport.table() + "\n")
        _emit(vreport.to_json())
        return 0
    from judge.bench import run_bench
    from synth.registry import renderer

    render = None if args.image else renderer(_game(args.game).name)
    report = run_bench(args.game, frames=args.frames, image_path=args.image, context=context, render=render)
    sys.stderr.write(report.table() + "\n")
    _emit(report.to_json())
    return 0


def cmd_live(args: argparse.Namespace) -> int:
    from judge.live_cli import run_live

    game = _game(args.game)
    context = _read_json(args.context, "context")
    profile = _load_profile(args.calibration)
    ledger = _open_ledger(args)
    run_live(game, args.source, context, profile, ledger, max_frames=args.max_frames, table=_table(args))
    return 0


def cmd_ledger(args: argparse.Namespace) -> int:
    """List (``--game``, ``--table`` filter), the hall (each table's latest judgement), info, or export."""
    from ledger import LedgerError

    if args.no_ledger:
        raise BadInput("ledger: --no-ledger leaves no ledger to read")
    led = _open_ledger(args)
    where = {"ledger": led.describe()}
    try:
        if args.action == "list":
            table = _table(args) if args.table is not None else None
            recs = led.judgements(game=args.game, table=table, limit=args.limit)
            _emit({**where, "judgements": [r.to_json() for r in recs]})
        elif args.action == "hall":
            _emit({**where, "tables": [r.to_json() for r in led.latest_per_table(game=args.game)]})
        elif args.action == "info":
            _emit({**where, "kind": led.kind, "schema_version": led.schema_version, "tables": led.tables(),
                   "judgements": led.count(), "integrity": led.integrity_check()})
        else:
            _export(led, args)
            _emit({**where, "exported": str(args.out)})
    except LedgerError as exc:
        raise BadInput(f"ledger: {exc}") from None
    return 0


def _export(led: Any, args: argparse.Namespace) -> None:
    if args.action == "export-json":
        led.export_json(args.out)
    else:
        from judge.registry import plugins
        from ledger.export import generic_summary, write_csv

        known = plugins()

        def summarise(game: str, result: dict) -> str:
            return known[game].summary(result) if game in known else generic_summary(game, result)

        write_csv(led, args.out, summarise)


def cmd_games(args: argparse.Namespace) -> int:
    from judge.registry import plugins

    _emit({"games": [{"name": p.name, "title": p.title, "photos": p.photos,
                      "register": p.register is not None} for p in plugins().values()]})
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="cli.py", description="Table Judge: judge tabletop games from photos.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def game_arg(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--game", required=True, help="the game (see `python cli.py games`)")

    def ledger_args(sp: argparse.ArgumentParser, records: str = "this judgement") -> None:
        sp.add_argument("--ledger", default=os.environ.get("TABLE_JUDGE_LEDGER"),
                        help="the ledger: a SQLite file or a postgresql://user:password@host:port/dbname URL "
                             "(default $TABLE_JUDGE_LEDGER, else table_judge.sqlite)")
        sp.add_argument("--no-ledger", action="store_true", help=f"do not record {records}")
        sp.add_argument("--table", default=os.environ.get("TABLE_JUDGE_TABLE"),
                        help="name of this table in the hall, stored with the judgement (default $TABLE_JUDGE_TABLE)")

    sp = sub.add_parser("judge", help="photos -> judgement JSON")
    game_arg(sp)
    sp.add_argument("--context", help="context JSON (players, challenger, cards)")
    sp.add_argument("--calibration", help="calibration profile JSON")
    sp.add_argument("--overlay", help="write the evidence picture here (PNG/JPEG)")
    ledger_args(sp)
    sp.add_argument("images", nargs="+", metavar="IMAGE")
    sp.set_defaults(func=cmd_judge)

    sp = sub.add_parser("detect", help="photos -> table state JSON")
    game_arg(sp)
    sp.add_argument("--context", help="context JSON")
    ledger_args(sp, "anything (detect never records: it reads, it does not judge)")
    sp.add_argument("images", nargs="+", metavar="IMAGE")
    sp.set_defaults(func=cmd_detect)

    sp = sub.add_parser("score", help="table state JSON (e.g. corrected by hand) -> judgement JSON")
    game_arg(sp)
    sp.add_argument("--context", help="context JSON (else the state's own 'context' field)")
    ledger_args(sp)
    sp.add_argument("state", metavar="STATE.json")
    sp.set_defaults(func=cmd_score)

    sp = sub.add_parser("render", help="seeded synthetic photo + ground truth")
    game_arg(sp)
    sp.add_argument("--seed", type=int, required=True)
    sp.add_argument("--out", required=True, help="output directory")
    sp.set_defaults(func=cmd_render)

    sp = sub.add_parser("markers", help="printable calibration markers (PDF, A4, true size)")
    sp.add_argument("--out", required=True, help="PDF file to write")
    sp.add_argument("--charuco", action="store_true", help="the ChArUco board for calibrate-camera instead")
    sp.set_defaults(func=cmd_markers)

    sp = sub.add_parser("calibrate-camera", help="lens profile from ChArUco board photos")
    sp.add_argument("--out", required=True, help="lens profile JSON to write")
    sp.add_argument("images", nargs="+", metavar="IMAGE")
    sp.set_defaults(func=cmd_calibrate_camera)

    sp = sub.add_parser("register", help="register your own pieces (colours, a board outline) into a profile")
    game_arg(sp)
    sp.add_argument("--out", required=True, help="profile JSON to write")
    sp.add_argument("--profile", help="an existing profile to add to")
    sp.add_argument("--board-id", help="carrotain: register the outline of this board (one board alone on the mat)")
    sp.add_argument("image", metavar="IMAGE")
    sp.set_defaults(func=cmd_register)

    sp = sub.add_parser("bench", help="per-stage milliseconds (wall clock and CPU, one core), peak memory, the floor")
    game_arg(sp)
    sp.add_argument("--frames", type=int, default=10, help="rendered 1280x960 frames to time")
    sp.add_argument("--image", nargs="+", help="time this photo instead (e.g. a 12 MP phone photo; a pair game: "
                    "before and after)")
    sp.add_argument("--context", help="context JSON for --image or --video (players, cards)")
    sp.add_argument("--video", help="time live judging of this video, per frame, with the floor")
    sp.add_argument("--clip", action="store_true", help="time live judging of a rendered clip (hand places pieces)")
    sp.add_argument("--seed", type=int, default=1, help="seed of the --clip")
    sp.add_argument("--cold", action="store_true",
                    help="--video/--clip: every reading frame detected from scratch (no warm carry), to compare")
    sp.set_defaults(func=cmd_bench)

    sp = sub.add_parser("live", help="a webcam or video file -> one JSON line per settled judgement (a game of "
                        "one photo per player, CMYK!: the players' photos shown in turn, one line per table)")
    game_arg(sp)
    sp.add_argument("--source", required=True, help="camera index (0) or a video file")
    sp.add_argument("--context", help="context JSON (players, challenger, cards)")
    sp.add_argument("--calibration", help="calibration profile JSON")
    sp.add_argument("--max-frames", type=int, help="stop after this many frames")
    ledger_args(sp)
    sp.set_defaults(func=cmd_live)

    sp = sub.add_parser("games", help="the games this judge knows")
    sp.set_defaults(func=cmd_games)

    sp = sub.add_parser("ledger", help="list, show the hall, describe or export recorded judgements")
    sp.add_argument("action", choices=["list", "hall", "info", "export-json", "export-csv"],
                    help="list: newest judgements; hall: each table's latest; info: which ledger, tables, counts")
    sp.add_argument("--out", help="file (JSON) or directory (CSV) to write")
    sp.add_argument("--limit", type=int, default=20)
    sp.add_argument("--game", help="list/hall: only this game's judgements")
    ledger_args(sp, "(refused: the ledger command needs a ledger)")
    sp.set_defaults(func=cmd_ledger)
    return p


def main(argv: list[str] | None = None) -> int:
    single_thread_blas()
    args = build_parser().parse_args(argv)
    if args.command == "ledger" and args.action.startswith("export") and not args.out:
        sys.stderr.write("error: ledger export needs --out\n")
        return 2
    try:
        if getattr(args, "game", None) is not None:
            _game(args.game)  # unknown game: exit 2 naming the known ones, before reading any input
        return args.func(args)
    except (BadInput, CannotJudge) as exc:
        sys.stderr.write(f"error: {exc}\n" if isinstance(exc, BadInput) else f"cannot judge: {exc}\n")
        return exc.exit_code
    except MemoryError:
        sys.stderr.write("error: out of memory while reading the input; send a smaller photo\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except Exception as exc:  # a bug: one line for the user, the traceback only on request
        if os.environ.get("TABLE_JUDGE_DEBUG"):
            raise
        sys.stderr.write(f"internal error: {exc.__class__.__name__}: {exc} (set TABLE_JUDGE_DEBUG=1 for details)\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
