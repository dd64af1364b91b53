"""CLI contract for bad input that needs no game detector: one clear line on stderr and exit 2."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.cli_helpers import assert_one_line_error, run_cli


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
