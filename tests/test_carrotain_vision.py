"""Carrotain glue: context parsing, detection errors, JSON round trip, overlay."""

import numpy as np
import pytest

from calibration.table import calibrate_from_markers
from judge.errors import BadInput, CannotJudge
from judge.games import Frame
from judge.games.carrotain import SPEC, parse_context
from judge.timing import StageTimer
from scoring.carrotain_state import CarrotainState
from synth.carrotain import render_scene


@pytest.mark.parametrize(
    "obj, word",
    [(None, "players"), ({"challenger": "red"}, "players"), ({"players": ["red", "teal"], "challenger": "red"}, "teal"),
     ({"players": ["red", "blue"]}, "challenger"), ({"players": ["red", "blue"], "challenger": "green"}, "challenger"),
     ({"players": ["red", "blue"], "challenger": "red", "options": {"coverage": "x"}}, "coverage")],
)
def test_parse_context_names_the_bad_field(obj, word):
    """Every malformed context raises BadInput naming the field."""
    with pytest.raises(BadInput, match=word):
        parse_context(obj)


def test_parse_context_ok():
    ctx = parse_context({"players": ["red", "blue"], "challenger": "blue", "options": {"margin_mm": 2}})
    assert ctx.players == ("red", "blue") and ctx.challenger == "blue"


def test_detect_without_calibration_cannot_judge():
    """A frame without markers is CannotJudge with the calibration's reason."""
    f = Frame(np.zeros((10, 10, 3), np.uint8), None, "found 0 of the 4 calibration markers")
    with pytest.raises(CannotJudge, match="markers"):
        SPEC.detect([f], parse_context({"players": ["red"], "challenger": "red"}), StageTimer())


def test_detect_with_before_photo_and_round_trip_and_overlay():
    """Render of seed 21 (synth.photo conditions): the same scene given as before and challenge photo gives no
    'touched' flag; stages are timed; the state survives JSON; the overlay is a new image."""
    img, scene, _ = render_scene(21)
    cal = calibrate_from_markers(img)
    fr = Frame(img, cal)
    timer = StageTimer()
    ctx = parse_context({"players": scene["players"], "challenger": scene["challenger"]})
    st = SPEC.detect([fr, fr], ctx, timer)
    assert {"chips", "boards", "colour", "before"} <= set(timer.ms)
    assert not any(f.code == "touched" for f in st.flags)
    assert len(st.chips) >= 0.85 * len(scene["chips"])
    back = CarrotainState.from_json(st.to_json())
    assert back.to_json() == st.to_json()
    ov = SPEC.annotate(fr, st, SPEC.adjudicate(st, ctx))
    assert ov.shape == img.shape and ov is not img and not np.array_equal(ov, img)
