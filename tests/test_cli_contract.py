"""CLI contract end to end on rendered photos (default synthetic conditions, seeded): every command, every exit
code, one JSON object on stdout, the ledger keeping what it recorded through later bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from judge.registry import names
from tests.cli_helpers import assert_one_line_error, run_cli

GAMES = names()  # every registered game; the contract's common fields hold for each
COMMON = {"game", "scores", "flags", "explanation", "timings_ms"}
#: The fixed contract's own fields of the built-in games (README); a new game adds its own here.
FIELDS = {
    "carrotain": {"verdict", "contested", "hidden", "not_hidden", "awards", "chips", "boards"},
    "kaleido": {"complete_hexagons", "hexagons", "full_boards", "board_points"},
    "cmyk": {"players", "ranking"},
}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("renders")
    photos = {}
    for game in GAMES:
        run = run_cli("render", "--game", game, "--seed", "7", "--out", str(out))
        assert run.rc == 0, run.stderr
        info = run.json
        truth = json.loads(open(info["truth"]).read())
        ctx = out / f"{game}_ctx.json"
        ctx.write_text(json.dumps(truth["context"]))
        photos[game] = (info["image"], str(ctx), truth)
    blank = out / "blank.jpg"
    Image.fromarray(np.full((480, 640, 3), 128, np.uint8)).save(blank)
    photos["blank"] = str(blank)
    return photos


@pytest.mark.parametrize("game", GAMES)
def test_judge_outputs_one_json_object_with_the_contract_fields(rendered, game, tmp_path):
    image, ctx, _ = rendered[game]
    overlay = tmp_path / "overlay.png"
    run = run_cli("judge", "--game", game, "--context", ctx, "--overlay", str(overlay),
                  "--ledger", str(tmp_path / "l.sqlite"), image)
    assert run.rc == 0, run.stderr
    assert run.stdout.count("\n") == 1
    out = run.json
    assert out["game"] == game
    assert COMMON | FIELDS.get(game, set()) <= set(out), set(out)
    assert all(isinstance(v, int) for v in out["scores"].values())
    assert Image.open(overlay).size == Image.open(image).size
    listed = run_cli("ledger", "list", "--ledger", str(tmp_path / "l.sqlite")).json["judgements"]
    assert [j["id"] for j in listed] == [out["judgement_id"]]


@pytest.mark.parametrize("game", GAMES)
def test_detect_then_score_round_trip(rendered, game, tmp_path):
    image, ctx, _ = rendered[game]
    det = run_cli("detect", "--game", game, "--context", ctx, image)
    assert det.rc == 0, det.stderr
    state = tmp_path / "state.json"
    state.write_text(det.stdout)
    run = run_cli("score", "--game", game, "--context", ctx, str(state))
    assert run.rc == 0, run.stderr
    assert run.json["game"] == game


def test_no_markers_is_exit_3_with_the_reason(rendered):
    _, ctx, _ = rendered["carrotain"]
    run = run_cli("judge", "--game", "carrotain", "--no-ledger", "--context", ctx, rendered["blank"])
    assert_one_line_error(run, 3, "marker")


@pytest.mark.parametrize("game", ["kaleido", "cmyk"])
def test_nothing_to_judge_is_exit_3(rendered, game):
    _, ctx, _ = rendered[game]
    run = run_cli("judge", "--game", game, "--no-ledger", "--context", ctx, rendered["blank"])
    assert run.rc == 3, run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""


@pytest.mark.parametrize(
    "game, ctx, words",
    [
        ("carrotain", ["red"], ["object"]),
        ("carrotain", {"players": ["red", "blue"]}, ["challenger"]),
        ("carrotain", {"players": ["red", "blue"], "challenger": "green"}, ["challenger"]),
        ("kaleido", {"players": "Aki"}, ["players"]),
        ("cmyk", {"players": [{"name": "Aki"}], "public_cards": []}, ["personal_card"]),
    ],
)
def test_bad_context_is_exit_2(rendered, tmp_path, game, ctx, words):
    p = tmp_path / "ctx.json"
    p.write_text(json.dumps(ctx))
    run = run_cli("judge", "--game", game, "--no-ledger", "--context", str(p), rendered[game][0])
    assert_one_line_error(run, 2, *words)


@pytest.mark.parametrize("game", GAMES)
def test_malformed_state_is_exit_2(rendered, tmp_path, game):
    p = tmp_path / "state.json"
    p.write_text(json.dumps({"chips": [{"kind": "star"}], "tiles": "x", "boards": 3}))
    assert_one_line_error(run_cli("score", "--game", game, "--context", rendered[game][1], str(p)), 2)


def test_bad_input_loses_nothing_recorded(rendered, tmp_path):
    image, ctx, _ = rendered["carrotain"]
    led = str(tmp_path / "keep.sqlite")
    first = run_cli("judge", "--game", "carrotain", "--context", ctx, "--ledger", led, image)
    assert first.rc == 0, first.stderr
    bad = tmp_path / "bad.jpg"
    bad.write_text("not an image")
    assert run_cli("judge", "--game", "carrotain", "--context", ctx, "--ledger", led, str(bad)).rc == 2
    assert run_cli("judge", "--game", "carrotain", "--context", ctx, "--ledger", led, rendered["blank"]).rc == 3
    listed = run_cli("ledger", "list", "--ledger", led).json["judgements"]
    assert len(listed) == 1
    assert listed[0]["result"]["verdict"] == first.json["verdict"]


def test_unusable_ledger_path_is_exit_2(rendered, tmp_path):
    image, ctx, _ = rendered["carrotain"]
    run = run_cli("judge", "--game", "carrotain", "--context", ctx, "--ledger", str(tmp_path / "no" / "x.db"), image)
    assert_one_line_error(run, 2, "ledger")


def test_markers_pdf(tmp_path):
    out = tmp_path / "markers.pdf"
    run = run_cli("markers", "--out", str(out))
    assert run.rc == 0, run.stderr
    assert out.read_bytes().startswith(b"%PDF-")
    assert run.json["ids"] == [0, 1, 2, 3]


def test_bench_reports_stages_and_memory():
    run = run_cli("bench", "--game", "carrotain", "--frames", "2")
    assert run.rc == 0, run.stderr
    out = run.json
    assert out["frames"] == 2 and out["image_size"] == [1280, 960]
    assert {"calibration", "rules"} <= set(out["stages_ms"])
    assert out["peak_rss_mb"] > 0


def test_register_refuses_a_photo_without_the_pieces_and_keeps_the_profile_untouched(rendered, tmp_path):
    """`register` on a table photo that is not a registration photo: exit 3 with the reason, nothing written."""
    out = tmp_path / "profile.json"
    run = run_cli("register", "--game", "kaleido", "--out", str(out), rendered["kaleido"][0])
    assert run.rc in (0, 3), run.stderr
    if run.rc == 3:
        assert "Traceback" not in run.stderr and not out.exists()
    assert_one_line_error(run_cli("register", "--game", "cmyk", "--out", str(out), rendered["cmyk"][0]), 2, "register")
    assert_one_line_error(run_cli("register", "--game", "carrotain", "--out", str(out), rendered["blank"]), 3, "marker")
