"""Fuzzing the CLI with broken input: seeded cases (truncated and byte-flipped photos, decompression bombs,
odd JSON contexts, states and profiles) and a driver that runs them all in ONE process.

The driver (``python -m tests.fuzz_cli CASES.json``) calls ``cli.main(argv)`` for each case with stdout and
stderr captured and prints one JSON line per case: the exit code, what was written, and the traceback of
anything that escaped ``main`` (which ``python cli.py`` would have shown the user). A crash of the
interpreter itself (a C stack overflow) ends the driver early, and the test sees the missing lines.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import struct
import sys
import tempfile
import traceback
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = {
    "carrotain": ROOT / "sample_images" / "carrotain" / "carrotain_5.jpg",
    "kaleido": ROOT / "sample_images" / "kaleido" / "kaleido_1.jpg",
    "cmyk": ROOT / "sample_images" / "cmyk" / "cmyk_1.jpg",
}


# ------------------------------------------------------------------------------------ broken photos

def png_bomb(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` x ``height`` pixels (a decompression bomb's header)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = zlib.compress(b"\x00" * (1 + width) * 4, 9)  # a few rows of the claimed size, then nothing
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def _png(side_px: int, raw: bytes) -> bytes:
    """A complete greyscale PNG of ``side_px``^2 pixels from raw filtered rows."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", side_px, side_px, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def jpeg_huge_header(jpeg: bytes, width: int = 65500, height: int = 65500) -> bytes:
    """A real JPEG whose frame header (SOF0/SOF2) is rewritten to claim a huge size."""
    data = bytearray(jpeg)
    for marker in (b"\xff\xc0", b"\xff\xc2"):
        i = data.find(marker)
        if i >= 0:
            data[i + 5:i + 9] = struct.pack(">HH", height, width)
            return bytes(data)
    return bytes(data)


def broken_photos(rng: np.random.Generator, base: bytes, n: int) -> list[tuple[str, bytes]]:
    """``n`` seeded corruptions of one photo: truncations, byte flips, zeroed runs, spliced garbage."""
    out = []
    for k in range(n):
        kind = ("truncate", "flip", "zero", "garbage")[k % 4]
        data = bytearray(base)
        if kind == "truncate":
            data = data[: int(rng.integers(1, len(data)))]
        elif kind == "flip":
            for pos in rng.integers(0, len(data), int(rng.integers(1, 64))):
                data[pos] ^= 1 << int(rng.integers(0, 8))
        elif kind == "zero":
            a = int(rng.integers(0, len(data) - 1))
            b = min(len(data), a + int(rng.integers(1, 4096)))
            data[a:b] = b"\x00" * (b - a)
        else:
            a = int(rng.integers(0, len(data)))
            data[a:a] = rng.integers(0, 256, int(rng.integers(1, 2048)), dtype=np.uint8).tobytes()
        out.append((f"{kind}{k}", bytes(data)))
    return out


def bombs(jpeg: bytes) -> list[tuple[str, bytes]]:
    return [
        ("png_header_100k", png_bomb(100_000, 100_000)),
        ("png_header_wide", png_bomb(2_000_000, 2)),
        ("png_zlib_64mp", _png(8000, (b"\x00" + b"\x80" * 8000) * 8000)),
        ("jpeg_header_65k", jpeg_huge_header(jpeg)),
        ("gif_header_huge", b"GIF89a" + struct.pack("<HH", 65535, 65535) + b"\x00\x00\x00" + b"\x3b"),
        ("bmp_header_huge", b"BM" + struct.pack("<IHHI", 0, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 60000, 60000,
                                                                                   1, 24, 0, 0, 0, 0, 0, 0)),
        ("pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"),
        ("zip", b"PK\x03\x04" + b"\x00" * 26),
    ]


# ------------------------------------------------------------------------------------ odd JSON

def odd_json_texts(rng: np.random.Generator) -> list[tuple[str, bytes]]:
    """JSON that breaks parsers and validators: deep nesting, huge numbers, odd types and text."""
    deep = 200_000
    cases = [
        ("deep_arrays", ("[" * deep + "]" * deep).encode()),
        ("deep_objects", ('{"a":' * deep + "1" + "}" * deep).encode()),
        ("deep_in_players", ('{"players": ' + "[" * 990 + '"red"' + "]" * 990 + ', "challenger": "red"}').encode()),
        ("deep_in_challenger", ('{"players": ["red", "blue"], "challenger": ' + '{"x":' * 990 + "1" + "}" * 990
                                + "}").encode()),
        ("huge_int", ('{"players": ["red", "blue"], "challenger": "red", "margin_mm": ' + "9" * 5000 + "}").encode()),
        ("inf_nan", b'{"players": ["red", "blue"], "challenger": "red", "margin_mm": Infinity, "x": NaN}'),
        ("float_overflow", b'{"players": ["red", "blue"], "challenger": "red", "margin_mm": 1e400}'),
        ("lone_surrogate", b'{"players": ["\\ud800", "blue"], "challenger": "\\ud800"}'),
        ("nul_in_name", b'{"players": ["re\\u0000d", "blue"], "challenger": "re\\u0000d"}'),
        ("bom", b"\xef\xbb\xbf{}"),
        ("latin1", '{"players": ["rot", "blau"], "challenger": "gr\xfcn"}'.encode("latin-1")),
        ("empty", b""),
        ("null", b"null"),
        ("number", b"42"),
        ("string", b'"players"'),
        ("players_object", b'{"players": {"red": 1}, "challenger": "red"}'),
        ("players_numbers", b'{"players": [1, 2, 3], "challenger": 1}'),
        ("players_empty", b'{"players": [], "challenger": "red"}'),
        ("players_many", json.dumps({"players": [f"p{i}" for i in range(10_000)], "challenger": "p1"}).encode()),
        ("long_name", json.dumps({"players": ["r" * 1_000_000, "blue"], "challenger": "blue"}).encode()),
        ("duplicate_keys", b'{"players": ["red"], "players": ["red", "blue"], "challenger": "blue"}'),
        ("cards_garbage", b'{"players": [{"name": "Aki", "personal_card": [[[]]]}], "public_cards": {"a": null}}'),
    ]
    for k in range(6):  # random printable soup and random bytes
        n = int(rng.integers(1, 400))
        cases.append((f"soup{k}", bytes(rng.choice(list(b'{}[]":,0123456789.eE+-truefalsenull \\u'), n))))
        cases.append((f"bytes{k}", rng.integers(0, 256, n, dtype=np.uint8).tobytes()))
    return cases


def odd_states(rng: np.random.Generator) -> list[tuple[str, bytes]]:
    """State JSON with wrong shapes and values (for ``score``)."""
    cases = [
        ("state_deep", ('{"chips": ' + "[" * 200_000 + "]" * 200_000 + "}").encode()),
        ("state_chip_deep_xy", ('{"chips": [{"kind": "star", "colour": "red", "xy_mm": ' + "[" * 900 + "1"
                                + "]" * 900 + '}], "boards": []}').encode()),
        ("state_nan_xy", b'{"chips": [{"kind": "star", "colour": "red", "xy_mm": [NaN, Infinity]}], "boards": []}'),
        ("state_board_bad", b'{"chips": [], "boards": [{"id": "A", "outline_mm": [[0, 0], [1]]}]}'),
        ("state_board_empty", b'{"chips": [], "boards": [{"id": "A", "outline_mm": []}]}'),
        ("state_tiles_nan", b'{"tiles": [{"colour": "cyan", "xy_mm": [NaN, 1], "cell": [1e400, -1]}]}'),
        ("state_huge_list", json.dumps({"chips": [{"kind": "star", "colour": "red", "xy_mm": [i, i]}
                                                  for i in range(20_000)], "boards": []}).encode()),
    ]
    for k in range(3):
        def pick(options: list):
            return options[int(rng.integers(0, len(options)))]

        obj = {"chips": [{"kind": pick(["star", "x", 5]), "colour": pick(["red", None, []]),
                          "xy_mm": rng.normal(0, 1e6, int(rng.integers(0, 4))).tolist()} for _ in range(5)],
               "boards": [{"id": pick(["A", "", 7]), "outline_mm": rng.normal(0, 100, (3, 2)).tolist()}]}
        cases.append((f"state_random{k}", json.dumps(obj).encode()))
    return cases


# ------------------------------------------------------------------------------------ cases

def build_cases(workdir: Path, seed: int, photo_mutations: int, json_cases: int | None = None) -> list[dict]:
    """Seeded fuzz cases as ``{"name", "argv"}`` (their files written under ``workdir``)."""
    rng = np.random.default_rng(seed)
    cases: list[dict] = []

    def write(name: str, data: bytes) -> str:
        p = workdir / name
        p.write_bytes(data)
        return str(p)

    ledger = str(workdir / "fuzz.sqlite")
    games = list(PHOTOS)
    for g, game in enumerate(games):
        base = PHOTOS[game].read_bytes()
        ctx = write(f"{game}_ctx.json", json.dumps(json.loads(PHOTOS[game].with_suffix(".json").read_text())
                                                   ["context"]).encode())
        for name, data in broken_photos(rng, base, photo_mutations):
            cases.append({"name": f"{game}/{name}", "argv": ["judge", "--game", game, "--context", ctx, "--ledger",
                                                             ledger, write(f"{game}_{name}.jpg", data)]})
        if g == 0:
            for name, data in bombs(base):
                cases.append({"name": f"bomb/{name}", "argv": ["judge", "--game", game, "--context", ctx,
                                                              "--no-ledger", write(f"bomb_{name}", data)]})
    photo = str(PHOTOS["carrotain"])
    texts = odd_json_texts(rng)
    states = odd_states(rng)
    if json_cases is not None:
        pick = rng.permutation(len(texts))[:json_cases]
        texts = [texts[i] for i in sorted(pick)]
        states = [states[i] for i in sorted(rng.permutation(len(states))[: max(2, json_cases // 3)])]
    for name, data in texts:
        f = write(f"ctx_{name}.json", data)
        cases.append({"name": f"context/{name}", "argv": ["judge", "--game", "carrotain", "--context", f, "--ledger",
                                                          ledger, photo]})
        cases.append({"name": f"profile/{name}", "argv": ["judge", "--game", "kaleido", "--calibration", f,
                                                          "--no-ledger", str(PHOTOS["kaleido"])]})
    for name, data in states:
        f = write(f"{name}.json", data)
        for game in games:
            cases.append({"name": f"score/{game}/{name}", "argv": ["score", "--game", game, "--ledger", ledger, f]})
    return cases


@contextlib.contextmanager
def _fd_captured(fd: int):
    """Everything written to file descriptor ``fd`` inside the block, as ``[text]`` once it ends."""
    text = [""]
    with tempfile.TemporaryFile() as tf:
        saved = os.dup(fd)
        os.dup2(tf.fileno(), fd)
        try:
            yield text
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            tf.seek(0)
            text[0] = tf.read().decode("utf-8", "replace")


def run_cases(cases: list[dict]) -> None:
    """The driver: each case through ``cli.main``, one JSON line of outcome each."""
    sys.path.insert(0, str(ROOT))
    import cli

    report = os.fdopen(os.dup(1), "w", buffering=1)
    for case in cases:
        out, err = io.StringIO(), io.StringIO()
        escaped = None
        with _fd_captured(1) as c_out, _fd_captured(2) as c_err:  # what C libraries print, too
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    rc = cli.main(case["argv"])
                except SystemExit as exc:
                    rc = exc.code if isinstance(exc.code, int) else 1
                except BaseException:  # noqa: BLE001 - exactly what the test looks for
                    rc, escaped = 1, traceback.format_exc()
        try:  # what the user's terminal would have to print (a lone surrogate cannot be written)
            stdout_text = out.getvalue().encode("utf-8").decode("utf-8") + c_out[0]
            stderr_text = err.getvalue().encode("utf-8").decode("utf-8") + c_err[0]
        except UnicodeEncodeError as exc:
            stdout_text, stderr_text, escaped = "", "", f"output not writable as UTF-8: {exc}"
        lines = stdout_text.splitlines()
        try:
            one_object = len(lines) == 1 and isinstance(json.loads(lines[0]), dict)
        except ValueError:
            one_object = False
        report.write(json.dumps({"name": case["name"], "rc": rc, "stdout_lines": len(lines),
                                 "stdout_one_object": one_object, "stdout": stdout_text[:200],
                                 "stderr": stderr_text[-2000:], "escaped": escaped}) + "\n")


if __name__ == "__main__":
    run_cases(json.loads(Path(sys.argv[1]).read_text()))
