"""The photoreal evaluation's check that doubt flags name what is wrong (``tools/flag_targets.py``)."""

from __future__ import annotations

from tools.flag_targets import flags_name_the_wrong_part, kaleido_wrong_parts

COLOURS = ["red", "blue", None, "white", "green", "yellow"]


def _truth():
    return {"expected": {}, "scene": {"edge_mm": 60.0, "boards": [
        {"centre_mm": [100.0, 100.0], "rotation_deg": 10.0, "cells": COLOURS},
        {"centre_mm": [200.0, 160.0], "rotation_deg": 10.0, "cells": COLOURS[::-1]},
        {"centre_mm": [300.0, 100.0], "rotation_deg": 10.0, "cells": COLOURS}]}}


def _state():
    """Board 1 read turned by 60 degrees (cells shifted: still right), cell 4 of board 0 misread, the third
    true board missed, an extra board far away."""
    misread = list(COLOURS)
    misread[4] = "red"
    shifted = COLOURS[::-1][1:] + COLOURS[::-1][:1]
    return {"frame": "markers", "edge_mm": 60.0, "boards": [
        {"centre_mm": [101.0, 99.0], "rotation_deg": 10.2, "cells": misread},
        {"centre_mm": [199.0, 161.0], "rotation_deg": 70.1, "cells": shifted},
        {"centre_mm": [600.0, 600.0], "rotation_deg": 10.0, "cells": COLOURS}]}


def test_kaleido_wrong_parts_are_the_misread_cell_the_missed_and_the_extra_board():
    parts = kaleido_wrong_parts(_state(), _truth()["scene"])
    assert {"kind": "cell", "board": 0, "cell": 4} in parts
    assert {"kind": "missed", "centre_mm": [300.0, 100.0]} in parts
    assert {"kind": "extra", "board": 2} in parts
    assert len(parts) == 3  # the turned board's cells are right


def test_kaleido_flags_elsewhere_are_not_honest_doubt():
    truth, state = _truth(), _state()
    elsewhere = [{"code": "uncertain_cells", "cells": [[1, 2], [0, 3]]}]
    named, note = flags_name_the_wrong_part("kaleido", elsewhere, state, truth, {"exact": False})
    assert named is False and "board 0 cell 4" in note
    on_it = [{"code": "uncertain_cells", "cells": [[0, 4]]}]
    assert flags_name_the_wrong_part("kaleido", on_it, state, truth, {"exact": False})[0] is True
    near_missed = [{"code": "boards_partly_seen", "places": [{"centre_mm": [310.0, 80.0], "holes": 2}]}]
    assert flags_name_the_wrong_part("kaleido", near_missed, state, truth, {"exact": False})[0] is True
    far_place = [{"code": "boards_partly_seen", "places": [{"centre_mm": [500.0, 80.0], "holes": 2}]}]
    assert flags_name_the_wrong_part("kaleido", far_place, state, truth, {"exact": False})[0] is False
    whole = [{"code": "lattice_inconsistent", "consistency_mm": 3.0}]  # names no place: doubts everything
    assert flags_name_the_wrong_part("kaleido", whole, state, truth, {"exact": False})[0] is True
    markerless = dict(state, frame="tiles")
    assert flags_name_the_wrong_part("kaleido", elsewhere, markerless, truth, {"exact": False})[0] is None


def test_cmyk_flags_must_name_the_wrong_player():
    doc = {"expected": {"players": {"Aki": {}, "Ben": {}}}}
    checks = {"exact": False, "players": {"Aki": {"exact": True}, "Ben": {"exact": False}}}
    on_aki = [{"code": "tile_doubtful", "player": "Aki", "cells": [[0, 0]]}]
    named, note = flags_name_the_wrong_part("cmyk", on_aki, None, doc, checks)
    assert named is False and "player Ben" in note
    ranking = [{"code": "ranking_uncertain", "players": ["Aki", "Ben"]}]
    assert flags_name_the_wrong_part("cmyk", ranking, None, doc, checks)[0] is True
    single = {"expected": {"players": {"Chika": {}}}}
    assert flags_name_the_wrong_part("cmyk", [{"code": "score_range", "player": "Chika"}], None, single,
                                     {"exact": False})[0] is True
