"""CLI contract for bad input that needs no game detector: one clear line on stderr and exit 2."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.cli_helpers import ROOT, assert_one_line_error, run_cli


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "empty.jpg").write_bytes(b"")
    (tmp_path / "text.jpg").write_text("this is not a photo\n")
    (tmp_path / "truncated.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 40)
    buf = io.BytesIO()
    Image.new("L", (20000, 20000)).save(buf, "PNG")
    (tmp_path / "huge.png").write_bytes(buf.getvalue())
    (tmp_path / "bad.json").write_text("{players: [red]")
    (tmp_path / "dir.jpg").mkdir()
    return tmp_path


def test_unknown_game():
    assert_one_line_error(run_cli("judge", "--game", "chess", "--no-ledger", "x.jpg"), 2, "unknown game", "chess")


def test_missing_arguments_are_one_line():
    assert_one_line_error(run_cli("judge", "x.jpg"), 2, "--game")
    assert_one_line_error(run_cli(), 2, "command")
    assert_one_line_error(run_cli("render", "--game", "kaleido", "--seed", "abc", "--out", "x"), 2, "seed")


@pytest.mark.parametrize(
    "name, words",
    [
        ("missing.jpg", ["no such file"]),
        ("empty.jpg", ["empty"]),
        ("text.jpg", ["not a readable image"]),
        ("truncated.jpg", ["image"]),
        ("huge.png", ["larger than the judge accepts"]),
        ("dir.jpg", ["directory"]),
    ],
)
def test_bad_image_files(files, name, words):
    run = run_cli("judge", "--game", "carrotain", "--no-ledger", str(files / name))
    assert_one_line_error(run, 2, name, *words)


def test_bad_context_json(files):
    run = run_cli("judge", "--game", "carrotain", "--no-ledger", "--context", str(files / "bad.json"), "x.jpg")
    assert_one_line_error(run, 2, "bad.json", "not valid json")


def test_missing_context_file(files):
    run = run_cli("judge", "--game", "kaleido", "--no-ledger", "--context", str(files / "nope.json"), "x.jpg")
    assert_one_line_error(run, 2, "nope.json", "no such file")


def test_bad_state_json(files):
    assert_one_line_error(run_cli("score", "--game", "carrotain", str(files / "bad.json")), 2, "not valid json")


@pytest.mark.parametrize("text", ["[" * 200_000 + "]" * 200_000, '{"a":' * 200_000 + "1" + "}" * 200_000])
def test_deeply_nested_json_is_bad_input(tmp_path, text):
    """200000 levels of nesting overflow the JSON reader's recursion: bad input, not an internal error."""
    deep = tmp_path / "deep.json"
    deep.write_text(text)
    run = run_cli("judge", "--game", "carrotain", "--no-ledger", "--context", str(deep), "x.jpg")
    assert_one_line_error(run, 2, "deep.json", "nested too deeply")
    assert_one_line_error(run_cli("score", "--game", "kaleido", str(deep)), 2, "state", "nested too deeply")
    run = run_cli("judge", "--game", "kaleido", "--no-ledger", "--calibration", str(deep), "x.jpg")
    assert_one_line_error(run, 2, "calibration profile", "nested too deeply")


def test_number_too_long_to_read_is_bad_input(tmp_path):
    p = tmp_path / "big.json"
    p.write_text('{"players": ["red", "blue"], "challenger": "red", "margin_mm": ' + "9" * 5000 + "}")
    run = run_cli("judge", "--game", "carrotain", "--no-ledger", "--context", str(p), "x.jpg")
    assert_one_line_error(run, 2, "big.json", "not valid json")


def test_damaged_jpeg_is_refused_in_one_line(tmp_path):
    """libjpeg decodes a corrupted JPEG with a warning on stderr; the judge refuses it instead of judging a
    garbled picture, and the warning does not leak as a second line."""
    photo = sorted((ROOT / "sample_images" / "carrotain").glob("*.jpg"))[0]
    data = bytearray(photo.read_bytes())
    sos = data.find(b"\xff\xda")
    data[sos + 400:sos + 400] = b"\xff\xd0" * 50  # restart markers where none belong: "Corrupt JPEG data"
    bad = tmp_path / "damaged.jpg"
    bad.write_bytes(bytes(data))
    run = run_cli("judge", "--game", "carrotain", "--no-ledger", str(bad))
    assert_one_line_error(run, 2, "damaged.jpg", "damaged")
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(photo.read_bytes()[: len(data) // 2])
    assert_one_line_error(run_cli("judge", "--game", "carrotain", "--no-ledger", str(cut)), 2, "cut.jpg")
