"""The photo's own colour chart: symbol hue prototypes measured on the board's printed start symbols.

Each cell is read against its own face white (``vision.hexboard_cells``), which cancels a colour cast's
per-channel gain. Under a strong cast in dim light that is not enough: the camera's colour processing (a
white balance set for another light, its colour matrix, the tone curve's toe, noise in the weakest channel)
moves each ink's hue by its own amount - green by 25-45 degrees under a warm lamp, orange and yellow by 10
towards red under a cool one - so a fixed prototype table reads neighbouring hues (orange/red,
yellow/orange) or doubts half the board.

Every photo of a hex board shows the printed start symbols, one per colour, in the same inks as the tiles,
lit by the same light and seen through the same camera. Their hues, read on the board face, are this
photo's prototypes: the calibration is relative, like the white reference, and needs no model of the cast.
A printed symbol is used only when it is clearly there (its fill and its shape agree with its colour) and
near its nominal hue; a colour whose printed symbol is hidden takes the shift of its nearest measured
neighbours on the hue circle (the cast's hue shift varies smoothly with hue). The prototypes keep the
colours' order around the hue circle and a minimum gap, else the least plausible measurement is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.hexboard_cells import CellReading, shape_agrees


@dataclass(frozen=True)
class PaletteConfig:
    """Tunables of the per-photo prototypes.

    Attributes
    ----------
    max_shift_deg : float
        A printed symbol's hue may lie this far from its colour's nominal prototype (strong casts in dim
        light on the tune renders: up to 45 degrees for green) to be used.
    min_fill : float
        The printed symbol must fill at least this share of its disc (clearly a symbol, not a faint patch).
    min_gap_deg : float
        Neighbouring prototypes must stay this far apart around the hue circle (the nominal ones: 25 or more).
    """

    max_shift_deg: float = 50.0
    min_fill: float = 0.3
    min_gap_deg: float = 12.0


def _signed(d: np.ndarray | float) -> np.ndarray:
    """Angle differences wrapped into [-180, 180) degrees."""
    return (np.asarray(d, dtype=np.float64) + 180.0) % 360.0 - 180.0


def measured_shifts(nominal: dict[str, float], printed: dict[str, CellReading],
                    config: PaletteConfig = PaletteConfig()) -> dict[str, float]:
    """Hue shift (degrees, signed) of each colour whose printed symbol is usable: clearly filled, its shape
    that of its colour, and its hue near the nominal one.

    Parameters
    ----------
    nominal : dict colour -> hue degrees
        The nominal prototypes (``vision.hexboard_cells.HUE_DEG`` or a profile's).
    printed : dict colour -> CellReading
        The printed symbol of each colour, read on the board face of this photo.
    config : PaletteConfig
    """
    out = {}
    for colour, r in printed.items():
        if colour not in nominal or r.fill < config.min_fill:
            continue
        if not shape_agrees(colour, r.centre_fill, r.outer_fill):
            continue
        shift = float(_signed(r.hue_deg - nominal[colour]))
        if abs(shift) <= config.max_shift_deg:
            out[colour] = shift
    return out


def _interpolated(nominal: dict[str, float], shifts: dict[str, float]) -> dict[str, float]:
    """Every colour's prototype: nominal + its measured shift, or + the shift interpolated (linearly in nominal
    hue, around the circle) between the nearest measured colours on either side."""
    if not shifts:
        return dict(nominal)
    known = sorted(shifts, key=lambda c: nominal[c])
    ang = np.array([nominal[c] for c in known])
    sh = np.array([shifts[c] for c in known])
    # around the circle: pad with the last measurement one turn below and the first one turn above
    xs = np.concatenate([[ang[-1] - 360.0], ang, [ang[0] + 360.0]])
    ys = np.concatenate([[sh[-1]], sh, [sh[0]]])
    return {c: float((h + np.interp(h % 360.0, xs, ys)) % 360.0) for c, h in nominal.items()}


def _order_broken(nominal: dict[str, float], protos: dict[str, float], min_gap_deg: float) -> bool:
    """Do the prototypes leave the nominal order around the hue circle, or come closer than ``min_gap_deg``?"""
    names = sorted(nominal, key=lambda c: nominal[c] % 360.0)
    start = protos[names[0]]
    unwrapped = [(protos[c] - start) % 360.0 for c in names] + [360.0]
    return any(b - a < min_gap_deg for a, b in zip(unwrapped, unwrapped[1:], strict=False))


def photo_prototypes(nominal: dict[str, float], printed: dict[str, CellReading],
                     config: PaletteConfig = PaletteConfig()) -> tuple[dict[str, float], tuple[str, ...]]:
    """This photo's symbol hue prototypes from its printed start symbols.

    Parameters
    ----------
    nominal : dict colour -> hue degrees
    printed : dict colour -> CellReading
        The printed symbol of each colour, read on this photo's board face (with ``nominal``).
    config : PaletteConfig

    Returns
    -------
    prototypes : dict colour -> hue degrees
        ``nominal`` shifted by what the printed symbols show (interpolated for those not usable).
    anchors : tuple of str
        The colours measured on their printed symbol (empty: the nominal prototypes, nothing usable).
    """
    shifts = measured_shifts(nominal, printed, config)
    while shifts:
        protos = _interpolated(nominal, shifts)
        if not _order_broken(nominal, protos, config.min_gap_deg):
            return protos, tuple(sorted(shifts, key=lambda c: nominal[c]))
        del shifts[max(shifts, key=lambda c: abs(shifts[c]))]  # the least plausible measurement goes
    return dict(nominal), ()
