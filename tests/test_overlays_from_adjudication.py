"""Overlays are drawn from the adjudication, never recomputed: what the picture shows is what was judged."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from judge.images import load_image
from judge.pipeline import judge_images
from judge.registry import game

ROOT = Path(__file__).resolve().parents[1]


def _judged(name: str):
    path = sorted((ROOT / "sample_images" / name).glob("*.jpg"))[0]
    truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    plugin = game(name)
    return plugin, judge_images(plugin, [(load_image(path), path.name)], truth["context"])


def _red(img: np.ndarray) -> int:
    return int(((img[..., 0] == 255) & (img[..., 1] == 0) & (img[..., 2] == 0)).sum())


def test_cmyk_illegal_contacts_are_the_adjudications():
    """An illegal contact the rules report is drawn in red, even where the read tiles agree; none drawn when the
    rules report none."""
    plugin, j = _judged("cmyk")
    frame, state, adj = j.frames[-1], j.state, j.adjudication
    (player,) = adj.players
    assert adj.players[player]["illegal_contact_cells"] == []
    clean = plugin.annotate(frame, state, adj)
    tiles = state.mosaics[0].tiles
    cell = tiles[0].cell
    direction = next(iter(tiles[0].edges))
    claimed = {**adj.players[player], "illegal_contact_cells": [
        {"cells": [list(cell), list(cell)], "direction": direction, "reason": "colour"}]}
    marked = plugin.annotate(frame, state, replace(adj, players={player: claimed}))
    assert _red(marked) > _red(clean) + 20


def test_carrotain_verdict_banner_is_the_adjudications():
    plugin, j = _judged("carrotain")
    frame, state, adj = j.frames[-1], j.state, j.adjudication
    other = "failure" if adj.verdict == "success" else "success"
    a = plugin.annotate(frame, state, adj)
    b = plugin.annotate(frame, state, replace(adj, verdict=other, contested=False))
    assert not np.array_equal(a[:40], b[:40])  # the banner follows the verdict given
    assert np.array_equal(plugin.overlay(frame, state, adj.to_json()), a)  # the recorded JSON draws the same
