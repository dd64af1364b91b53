"""Colour registration (judge.register_colours) on synthetic photos of pieces whose colours are
SHIFTED from the bundled defaults.

Conditions: ``synth.photo.sample_conditions(hard=False)`` (camera 40-90 cm, tilt 0-40 deg, random yaw,
light, table, noise, blur, JPEG), seeded. The frame's marker reference cannot see how much brighter the
middle of the table is lit than its corners, so the measured colours are compared with the truth up to
one brightness factor per photo (fitted over the six colours); the names and the hues must be right.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from calibration.table import calibrate_from_markers
from components import load_components
from judge.register_colours import RegisterConfig, assign_names, register_colours, register_into_profile
from synth.photo import render_photo, sample_conditions

DEFAULTS = load_components()

# A user's box: every tile colour moved 30-60 (0-255) away from the default, still one of each hue.
KALEIDO_SHIFTED = {"red": (180, 65, 75), "yellow": (225, 215, 85), "green": (75, 180, 115),
                   "blue": (65, 115, 170), "purple": (155, 75, 140), "white": (220, 222, 205)}
# Chip dots and the first-star face moved by colour-specific offsets.
CARROTAIN_OFFSETS = {"red": (-30, 20, 10), "blue": (20, 30, -25), "green": (20, -25, 30),
                     "orange": (-25, 10, 20), "purple": (25, -20, -25), "pink": (-35, 25, -30)}
FIRST_STAR_SHIFTED = (245, 225, 95)


def _carrotain_shifted() -> dict[str, tuple[float, float, float]]:
    out = {}
    for k, v in DEFAULTS["carrotain"]["player_colours"].items():
        off = CARROTAIN_OFFSETS.get(k, (20, -20, 20))
        out[k] = tuple(float(x) for x in np.clip(np.asarray(v, float) + off, 0, 255))
    return out


def _kaleido_photo(seed: int, palette: dict, n_boards: int = 1) -> np.ndarray:
    from synth.kaleido import board_layer

    rng = np.random.default_rng(seed)
    comp = copy.deepcopy(DEFAULTS)
    comp["kaleido"]["tile"]["colours"] = {k: list(v) for k, v in palette.items()}
    layers = []
    rot = float(rng.uniform(0, 60))
    c0 = np.array([280.0 - 100.0 * (n_boards - 1) + rng.uniform(-15, 15), 210.0 + rng.uniform(-25, 25)])
    step = 2.0 * 60.0 * np.sqrt(3.0) * np.array([np.cos(np.deg2rad(rot + 30)), np.sin(np.deg2rad(rot + 30))])
    for b in range(n_boards):  # further boards on the same lattice, one board's gap apart
        board = {"centre_mm": (c0 + b * step).tolist(), "rotation_deg": rot,
                 "cells": [str(c) for c in rng.permutation(list(palette))]}
        layers.append(board_layer(board, rng, 60.0, components=comp))
    cond = sample_conditions(rng, look_at_mm=(280, 210), hard=False)
    return render_photo(layers, cond, rng).image_rgb


def _carrotain_photo(seed: int, dots: dict, first_star, n_stars: int | None = None,
                     height_mm: tuple[float, float] = (400.0, 600.0), tilt_deg: tuple[float, float] = (0.0, 40.0)):
    from synth.carrotain import scene_layers

    rng = np.random.default_rng(seed)
    comp = copy.deepcopy(DEFAULTS)
    comp["carrotain"]["player_colours"] = {k: list(v) for k, v in dots.items()}
    comp["carrotain"]["first_star_chip"]["face_rgb"] = list(first_star)
    names = [str(c) for c in rng.permutation(list(dots))][:n_stars]
    chips = [{"kind": "star", "colour": n,
              "xy_mm": [170.0 + 75.0 * (i % 4) + rng.uniform(-6, 6), 150.0 + 110.0 * (i // 4) + rng.uniform(-6, 6)]}
             for i, n in enumerate(names)]
    chips.append({"kind": "first_star", "colour": None, "xy_mm": [395.0 + rng.uniform(-6, 6), 265.0]})
    scene = {"mat": {"centre_mm": [280.0, 210.0], "size_mm": list(comp["carrotain"]["mat"]["size_mm"])},
             "chips": chips, "boards": []}
    layers = scene_layers(scene, rng, components=comp)
    cond = sample_conditions(rng, look_at_mm=(280, 210), hard=False, height_mm=height_mm, tilt_deg=tilt_deg)
    return render_photo(layers, cond, rng).image_rgb


def _gain_corrected(got: dict, truth: dict) -> dict[str, np.ndarray]:
    """Measured colours divided by the one brightness factor that best maps the truth onto them."""
    names = list(truth)
    m = np.array([got[n] for n in names], float)
    t = np.array([truth[n] for n in names], float)
    g = float((m * t).sum() / (t * t).sum())
    assert 0.7 < g < 1.5, f"brightness factor {g:.2f} out of any plausible range"
    return {n: m[i] / g for i, n in enumerate(names)}


def _check(got: dict, truth: dict, defaults: dict, max_err: float, max_ratio: float = 0.7) -> None:
    """Every name gets its own shifted colour back: nearest to its truth among all the truths, within
    ``max_err`` (0-255 units, after the brightness factor), and on average much closer to the truth
    than to the defaults (returning the defaults, or mixing names up, fails)."""
    assert set(got) == set(truth)
    fixed = _gain_corrected(got, truth)
    names = list(truth)
    t = np.array([truth[n] for n in names], float)
    errs, errs_default = [], []
    for i, name in enumerate(names):
        d = np.linalg.norm(t - fixed[name], axis=1)
        assert int(np.argmin(d)) == i, f"{name}: {np.round(fixed[name])} nearest to the truth of {names[np.argmin(d)]}"
        assert d[i] < max_err, f"{name}: {np.round(fixed[name])} vs truth {truth[name]} ({d[i]:.1f})"
        errs.append(d[i])
        errs_default.append(np.linalg.norm(fixed[name] - np.asarray(defaults[name], float)))
    assert np.mean(errs) < max_ratio * np.mean(errs_default), (np.mean(errs), np.mean(errs_default))


# rendering dominates; 8 photos per game keep this file well under half a minute
KALEIDO_SEEDS = list(range(8))
CARROTAIN_SEEDS = list(range(100, 108))


def test_kaleido_registers_shifted_tiles():
    """One board, one shifted tile of each colour, random order and pose; normal conditions (camera
    40-90 cm, tilt 0-40 deg). A photo may be refused (the one-board lattice is not always found: a
    clear ValueError), at most one of the eight; every registered one must be right."""
    registered = 0
    for seed in KALEIDO_SEEDS:
        img = _kaleido_photo(seed, KALEIDO_SHIFTED)
        try:
            got = register_colours("kaleido", img, calibrate_from_markers(img))
        except ValueError:
            continue
        _check(got, KALEIDO_SHIFTED, DEFAULTS["kaleido"]["tile"]["colours"], max_err=40.0)
        registered += 1
    assert registered >= len(KALEIDO_SEEDS) - 1


def test_carrotain_registers_shifted_chips():
    """Six star chips with shifted dots and a shifted first-star chip on the mat, no boards; camera
    40-60 cm (the registration photo is taken close), tilt 0-40 deg, normal light. A photo whose dots
    are too few px across is refused (at most two of the eight); every registered one must be right."""
    dots = _carrotain_shifted()
    truth = dict(dots, first_star=FIRST_STAR_SHIFTED)
    car = DEFAULTS["carrotain"]
    registered = 0
    for seed in CARROTAIN_SEEDS:
        img = _carrotain_photo(seed, dots, FIRST_STAR_SHIFTED)
        try:
            got = register_colours("carrotain", img, calibrate_from_markers(img))
        except ValueError as exc:
            assert "px across" in str(exc), str(exc)
            continue
        _check(got, truth, dict(car["player_colours"], first_star=car["first_star_chip"]["face_rgb"]), max_err=50.0)
        registered += 1
    assert registered >= len(CARROTAIN_SEEDS) - 2


def test_carrotain_refuses_far_photo():
    """Camera 85-90 cm, tilt 30-40 deg: the 7 mm dots are a few px across; refused, asking for a closer photo."""
    img = _carrotain_photo(3, _carrotain_shifted(), FIRST_STAR_SHIFTED, height_mm=(850.0, 900.0),
                           tilt_deg=(30.0, 40.0))
    with pytest.raises(ValueError, match="closer"):
        register_colours("carrotain", img, calibrate_from_markers(img))


def test_kaleido_refuses_two_full_boards():
    """Two full boards in view: which one is the registration board is not said; refused."""
    img = _kaleido_photo(7, KALEIDO_SHIFTED, n_boards=2)
    with pytest.raises(ValueError, match="full Kaleido boards"):
        register_colours("kaleido", img, calibrate_from_markers(img))


def test_carrotain_refuses_missing_chip():
    """Only five star chips laid out: refused, naming the count."""
    img = _carrotain_photo(101, _carrotain_shifted(), FIRST_STAR_SHIFTED, n_stars=5)
    with pytest.raises(ValueError, match="chip"):
        register_colours("carrotain", img, calibrate_from_markers(img))


def test_assignment_refuses_ambiguous_and_names_by_lab():
    """Pure assignment: a permuted palette is named back; two colours halfway between two names are refused."""
    pal = {k: np.asarray(v, float) / 255.0 for k, v in DEFAULTS["kaleido"]["tile"]["colours"].items()}
    names = list(pal)
    perm = np.random.default_rng(3).permutation(len(names))
    got = assign_names(np.array([pal[names[i]] for i in perm]), pal)
    assert all(np.allclose(got[n], pal[n]) for n in names)
    mid = (pal["blue"] + pal["purple"]) / 2.0
    measured = np.array([mid if n in ("blue", "purple") else pal[n] for n in names])
    with pytest.raises(ValueError, match="ambiguous"):
        assign_names(measured, pal, RegisterConfig())
    with pytest.raises(ValueError, match="expected 6"):
        assign_names(measured[:5], pal)
    with pytest.raises(ValueError, match="unknown game"):
        register_colours("cmyk", np.zeros((8, 8, 3), np.uint8), None)


def test_register_into_profile_units_and_round_trip(tmp_path):
    """The profile keeps other games' colours; colours are stored normalised 0-1 (the profile's unit);
    survives save/load."""
    img = _kaleido_photo(2, KALEIDO_SHIFTED)
    cal = calibrate_from_markers(img)
    base = CalibrationProfile(colours={"carrotain": {"red": (0.8, 0.2, 0.2)}})
    prof = register_into_profile("kaleido", img, cal, base)
    assert prof.colours["carrotain"] == base.colours["carrotain"]
    assert base.colours.get("kaleido") is None  # the input profile is not changed
    got = register_colours("kaleido", img, cal)
    for name, rgb in prof.colours["kaleido"].items():
        assert np.allclose(np.asarray(rgb) * 255.0, got[name], atol=1e-6)
    path = tmp_path / "profile.json"
    prof.save(str(path))
    back = CalibrationProfile.load(str(path))
    assert set(back.colours["kaleido"]) == set(KALEIDO_SHIFTED)
