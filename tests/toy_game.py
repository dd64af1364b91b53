"""A toy game registered from outside the product: "how many red squares are on the table?".

It proves the plugin API carries a game with no edit to the CLI, the page, the ledger or the
registry: the tests register it with ``TABLE_JUDGE_PLUGINS=tests.toy_game`` (CLI subprocess) or
``judge.registry.register`` (the page in process). Its page module is ``tests/toy_game_ui.py`` and
its sample renderer is ``render_sample`` below (found by ``synth.registry`` beside the plugin).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from core.errors import BadInput, CannotJudge
from core.timing import StageTimer
from judge.plugin import Frame, GamePlugin

SQUARE_PX = 40


@dataclass(frozen=True)
class ToyContext:
    player: str = "table"


@dataclass(frozen=True)
class ToyState:
    centres_px: tuple[tuple[float, float], ...]

    def to_json(self) -> dict:
        return {"game": "toy", "centres_px": [list(c) for c in self.centres_px]}

    @classmethod
    def from_json(cls, obj: dict) -> ToyState:
        return cls(tuple((float(x), float(y)) for x, y in obj["centres_px"]))


@dataclass(frozen=True)
class ToyAdjudication:
    player: str
    squares: int
    centres_px: tuple[tuple[float, float], ...]

    def to_json(self) -> dict:
        return {"game": "toy", "scores": {self.player: self.squares}, "squares": self.squares,
                "centres_px": [list(c) for c in self.centres_px], "flags": [],
                "explanation": [f"{self.squares} red square(s) counted"]}

    @classmethod
    def from_json(cls, obj: dict) -> ToyAdjudication:
        (player,) = obj["scores"]
        return cls(player, int(obj["squares"]), tuple((float(x), float(y)) for x, y in obj["centres_px"]))


def parse_context(obj: dict | None) -> ToyContext:
    if obj is None:
        return ToyContext()
    if not isinstance(obj.get("player", ""), str):
        raise BadInput("context: 'player' must be a name")
    return ToyContext(str(obj.get("player", "table")))


def detect(frames: list[Frame], ctx: ToyContext, timer: StageTimer) -> ToyState:
    with timer.stage("squares"):
        rgb = frames[-1].image_rgb.astype(np.int16)
        red = ((rgb[..., 0] > 150) & (rgb[..., 1] < 90) & (rgb[..., 2] < 90)).astype(np.uint8)
        n, _, stats, centroids = cv2.connectedComponentsWithStats(red)
        keep = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] > 0.5 * SQUARE_PX ** 2]
    if not keep:
        raise CannotJudge("no red squares on the table")
    return ToyState(tuple((round(float(centroids[k][0]), 1), round(float(centroids[k][1]), 1)) for k in keep))


def adjudicate(state: ToyState, ctx: ToyContext) -> ToyAdjudication:
    return ToyAdjudication(ctx.player, len(state.centres_px), state.centres_px)


def annotate(frame: Frame, state: ToyState, adj: ToyAdjudication) -> np.ndarray:
    img = frame.image_rgb.copy()
    for x, y in adj.centres_px:
        cv2.circle(img, (int(x), int(y)), SQUARE_PX, (0, 255, 0), 3)
    return img


def draw_table(n_squares: int, seed: int = 0) -> np.ndarray:
    """A grey table with ``n_squares`` red squares at seeded places (no overlap)."""
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), 120, np.uint8)
    cells = rng.permutation(12)[:n_squares]
    for c in cells:
        x, y = 40 + (c % 4) * 150, 40 + (c // 4) * 150
        img[y:y + SQUARE_PX, x:x + SQUARE_PX] = (220, 30, 30)
    return img


def render_sample(seed: int) -> tuple[np.ndarray, dict]:
    n = 1 + seed % 6
    context = {"player": "table"}
    expected = {"game": "toy", "scores": {"table": n}, "squares": n}
    return draw_table(n, seed), {"game": "toy", "context": context, "expected": expected}


PLUGIN = GamePlugin(
    name="toy",
    title="Toy (red squares)",
    parse_context=parse_context,
    detect=detect,
    state_from_json=ToyState.from_json,
    adjudicate=adjudicate,
    adjudication_from_json=ToyAdjudication.from_json,
    annotate=annotate,
    summary=lambda result: f"{result.get('squares', '?')} square(s)",
    headline=lambda result: {"squares": result.get("squares")},
    photos="1",
    ui_module="tests.toy_game_ui",
    camera_resolution="720p",
    order=900,
)
