"""Carrotain dot colours under a board's print and as a photo's own chips place them (issue 10).

Two mechanisms behind the misread chips under the challenge boards on the tune sets (photoreal dev, car_tune,
car_tune2, as rendered and as phones / browser cameras deliver them): a board's constellation is printed in white and
its chips lie at its stars, so print lines cross the dot and whiten it (red read pink, a hole read as a pale dot); and
where each colour's dots lie depends on the photo (a phone moves orange towards red), which the photo's other dots
show. The colours below are CIELAB values relative to the chip's face, as measured on the tune sets.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from components import load_components
from vision.chips import ChipConfig, ChipDetection, _dot_colour, _photo_colours, _read_chip, _Rim
from vision.colour import ColourConfig, lab_to_linear, linear_to_srgb, palette_to_normalised

CAR = load_components()["carrotain"]
DOTS = palette_to_normalised(CAR["player_colours"])
FACES = palette_to_normalised({"white": CAR["chip"]["face_rgb"], "yellow": CAR["first_star_chip"]["face_rgb"]})
MAT = np.asarray(CAR["mat"]["rgb"], dtype=np.float64) / 255.0
COLOUR = ColourConfig(lightness_weight=0.8)  # what vision.chips.find_chips is given
S = 0.5  # mm per px


def _rgb(lab: tuple[float, float, float]) -> np.ndarray:
    return linear_to_srgb(lab_to_linear(np.array(lab, dtype=np.float64)))[0]


def _chip_under_print(centre: np.ndarray, line_mm: float, angles_deg: tuple[float, ...], dim: float = 0.8
                      ) -> np.ndarray:
    """A 60 x 60 mm normalised top view: the mat, one white chip with a 7 mm ``centre`` (dot or mat), under a clear
    board dimming it by ``dim``, whose white print lines ``line_mm`` wide run from the chip's centre at these angles
    (a star of the constellation, as bright as the face)."""
    n = int(60 / S)
    yy, xx = np.mgrid[0:n, 0:n] * S - 30.0
    r = np.hypot(xx, yy)
    img = np.tile(MAT, (n, n, 1))
    img[r < 12.5] = FACES["white"]
    img[r < 3.5] = centre
    img = img * dim
    for a in np.radians(angles_deg):
        along = xx * np.cos(a) + yy * np.sin(a)
        across = -xx * np.sin(a) + yy * np.cos(a)
        img[(along > -0.5) & (np.abs(across) < line_mm / 2)] = FACES["white"] * dim
    return img.astype(np.float32)


RIM = _Rim(np.array([60.0, 60.0]), 12.5 / S, 0.2, 40, False)


@pytest.mark.parametrize("colour", ["red", "blue", "purple", "green"])
def test_a_dot_under_print_lines_keeps_its_colour(colour):
    """Three print lines 1.2 mm wide meet on the dot (the chip lies on a star of the board): they cover about half
    of the centre a plain median read, which named red pink, blue and purple pink. The least white pixels are the
    dot's."""
    img = _chip_under_print(DOTS[colour], 1.2, (0.0, 130.0, 250.0))
    det = _read_chip(img, RIM, (0.0, 0.0), S, DOTS, FACES, MAT, ChipConfig(), COLOUR)
    assert (det.kind, det.colour) == ("star", colour)


def test_a_hole_under_print_lines_stays_a_hole():
    img = _chip_under_print(MAT, 1.2, (0.0, 130.0, 250.0))
    det = _read_chip(img, RIM, (0.0, 0.0), S, DOTS, FACES, MAT, ChipConfig(), COLOUR)
    assert det.kind == "colourless" and det.colour is None


def _star(lab: tuple[float, float, float]) -> ChipDetection:
    face = FACES["white"]
    return ChipDetection((0.0, 0.0), 12.5, "star", None, 1.0, 0.5, 0.1, float(face.mean()), face,
                         _rgb(lab) * face / FACES["white"])


PHONE_ORANGE = [(64, 59, 68), (66, 57, 70), (63, 60, 66), (65, 58, 69)]  # orange as a phone delivers it
PHONE_RED = [(49, 74, 59), (50, 73, 57), (48, 75, 60)]
BORDERLINE = (58, 64, 63)  # an orange dot under a board in that photo


def _named(chips: list[ChipDetection], players: frozenset[str]) -> list[ChipDetection]:
    """Each chip named alone (as ``_read_chip`` does), then by the photo."""
    alone = []
    for c in chips:
        name, conf = _dot_colour(c.centre_rgb / c.face_rgb * FACES["white"], DOTS, players, ChipConfig(), COLOUR)
        alone.append(replace(c, colour=name, colour_confidence=conf))
    return alone


def test_the_photos_own_oranges_tell_a_borderline_orange_from_red():
    """Alone, the borderline dot is nearer the palette's red than its orange; among the photo's other dots (the
    phone moved every orange towards red, and every red further), it is one of the oranges."""
    players = frozenset({"orange", "red", "green"})
    chips = _named([_star(x) for x in PHONE_ORANGE + PHONE_RED + [BORDERLINE]], players)
    assert chips[-1].colour == "red"
    photo = _photo_colours(chips, DOTS, FACES["white"], players, ChipConfig(), COLOUR)
    assert [c.colour for c in photo] == ["orange"] * 4 + ["red"] * 3 + ["orange"]


def test_the_photos_reference_never_makes_a_reading_surer():
    players = frozenset({"orange", "red", "green"})
    chips = _named([_star(x) for x in PHONE_ORANGE + PHONE_RED + [BORDERLINE]], players)
    photo = _photo_colours(chips, DOTS, FACES["white"], players, ChipConfig(), COLOUR)
    assert all(p.colour_confidence <= c.colour_confidence for p, c in zip(photo, chips))
    assert photo[-1].colour_confidence < ChipConfig().low_confidence  # it changed its name: unsure, flagged


def test_a_lone_dot_is_named_as_alone():
    chips = _named([_star(BORDERLINE)], frozenset({"orange", "red"}))
    assert _photo_colours(chips, DOTS, FACES["white"], frozenset({"orange", "red"}), ChipConfig(), COLOUR) == chips
