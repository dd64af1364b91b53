"""A user's registered boards and chip colours (calibration profile) replace the defaults the detector uses."""

import numpy as np

from calibration.profile import CalibrationProfile
from components import load_components
from judge.games.carrotain import components_for


def test_no_profile_keeps_the_default_component_set():
    assert components_for(None) == load_components()
    assert components_for(CalibrationProfile()) == load_components()


def test_registered_boards_and_colours_replace_the_defaults_without_touching_them():
    square = np.array([[-50, -50], [50, -50], [50, 50], [-50, 50]], float)
    colours = {"carrotain": {"red": (0.7, 0.1, 0.2), "first_star": (0.9, 0.8, 0.0)}}
    prof = CalibrationProfile(boards={"X": square}, colours=colours)
    comp = components_for(prof)
    car = comp["carrotain"]
    assert set(car["board"]["outlines_mm"]) == set("ABCDEFGX")
    assert np.allclose(car["player_colours"]["red"], [178.5, 25.5, 51.0])
    assert car["player_colours"]["blue"] == load_components()["carrotain"]["player_colours"]["blue"]
    assert np.allclose(car["first_star_chip"]["face_rgb"], [229.5, 204.0, 0.0])
    assert "A" in load_components()["carrotain"]["board"]["outlines_mm"]  # the cached default is untouched
