"""Saved calibration profiles: a user's marker layout, lens, and registered colours and board outlines.

JSON layout (every field but ``layout`` optional)::

    {
      "version": 1,
      "layout": {"dictionary": "DICT_4X4_50", "side_mm": 50, "centres_mm": {"0": [0, 0], ...}},
      "lens": {"K": [[...]], "dist": [...], "image_size": [1280, 960], "rms_px": 0.3, "n_views": 12},
      "colours": {"carrotain": {"red": [0.8, 0.1, 0.1], ...}, ...},
      "boards": {"B1": [[x, y], ...], ...}
    }

``colours`` are normalised colours (``ColourReference.normalise``: marker black 0, paper white 1);
``boards`` are acrylic board outlines in the board's own mm frame. A bare lens profile JSON (as written
by ``LensProfile.save`` / ``cli.py calibrate-camera``) also loads, as a profile with the default layout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from calibration.lens import LensProfile
from calibration.markers import MarkerLayout, aruco_dictionary

PROFILE_VERSION = 1


@dataclass(frozen=True)
class CalibrationProfile:
    """A user's calibration, saved once and reused for every photo.

    Attributes
    ----------
    layout : MarkerLayout
    lens : LensProfile or None
    colours : dict[str, dict[str, tuple[float, float, float]]]
        game -> colour name -> normalised RGB (0-1 against marker black / paper white).
    boards : dict[str, ndarray]
        board id -> outline, shape (N, 2), mm.
    """

    layout: MarkerLayout = field(default_factory=MarkerLayout)
    lens: LensProfile | None = None
    colours: dict[str, dict[str, tuple[float, float, float]]] = field(default_factory=dict)
    boards: dict[str, np.ndarray] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "version": PROFILE_VERSION,
            "layout": self.layout.to_json(),
            "lens": None if self.lens is None else self.lens.to_json(),
            "colours": {g: {n: [float(v) for v in rgb] for n, rgb in c.items()} for g, c in self.colours.items()},
            "boards": {str(k): np.asarray(v, dtype=float).tolist() for k, v in self.boards.items()},
        }

    @classmethod
    def from_json(cls, obj: object) -> CalibrationProfile:
        """Parse and check a profile.

        Raises
        ------
        ValueError
            Wrong types, missing or malformed fields; the message names the field.
        """
        if not isinstance(obj, dict):
            raise ValueError("calibration profile: expected a JSON object")
        if "K" in obj and "layout" not in obj:  # a bare lens profile
            return cls(lens=LensProfile.from_json(obj))
        version = obj.get("version", PROFILE_VERSION)
        if version != PROFILE_VERSION:
            raise ValueError(f"calibration profile: unsupported version {version!r} (expected {PROFILE_VERSION})")
        layout = _parse_layout(obj.get("layout"))
        lens = LensProfile.from_json(obj["lens"]) if obj.get("lens") is not None else None
        colours = _parse_colours(obj.get("colours") or {})
        boards = _parse_boards(obj.get("boards") or {})
        return cls(layout=layout, lens=lens, colours=colours, boards=boards)

    def save(self, path: str) -> None:
        """Write the profile as JSON."""
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_json(), fh, indent=1)

    @classmethod
    def load(cls, path: str) -> CalibrationProfile:
        """Read a profile.

        Raises
        ------
        ValueError
            Not JSON, or bad fields (the message names the problem); OSError when unreadable.
        """
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"calibration profile {path}: not JSON ({exc})") from exc
        return cls.from_json(obj)


def _parse_layout(obj: object) -> MarkerLayout:
    if obj is None:
        return MarkerLayout()
    if not isinstance(obj, dict):
        raise ValueError("calibration profile: 'layout' must be an object")
    try:
        layout = MarkerLayout.from_json(obj)
    except KeyError as exc:
        raise ValueError(f"calibration profile: layout is missing {exc.args[0]!r}") from exc
    except (TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"calibration profile: malformed layout ({exc})") from exc
    try:
        aruco_dictionary(layout.dictionary)
    except AttributeError as exc:
        raise ValueError(f"calibration profile: unknown ArUco dictionary {layout.dictionary!r}") from exc
    if not layout.side_mm > 0:
        raise ValueError("calibration profile: layout side_mm must be positive")
    if len(layout.centres_mm) < 2:
        raise ValueError("calibration profile: layout needs at least 2 marker centres")
    return layout


def _parse_colours(obj: object) -> dict[str, dict[str, tuple[float, float, float]]]:
    if not isinstance(obj, dict):
        raise ValueError("calibration profile: 'colours' must be an object {game: {name: [r, g, b]}}")
    out: dict[str, dict[str, tuple[float, float, float]]] = {}
    for game, names in obj.items():
        if not isinstance(names, dict):
            raise ValueError(f"calibration profile: colours[{game!r}] must be an object {{name: [r, g, b]}}")
        out[str(game)] = {}
        for name, rgb in names.items():
            try:
                vals = tuple(float(v) for v in rgb)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"calibration profile: colours[{game!r}][{name!r}] is not 3 numbers") from exc
            if len(vals) != 3 or not all(np.isfinite(vals)):
                raise ValueError(f"calibration profile: colours[{game!r}][{name!r}] is not 3 numbers")
            out[str(game)][str(name)] = vals  # type: ignore[assignment]
    return out


def _parse_boards(obj: object) -> dict[str, np.ndarray]:
    if not isinstance(obj, dict):
        raise ValueError("calibration profile: 'boards' must be an object {id: [[x, y], ...]}")
    out: dict[str, np.ndarray] = {}
    for key, pts in obj.items():
        try:
            arr = np.asarray(pts, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"calibration profile: boards[{key!r}] is not a list of [x, y] points") from exc
        if arr.ndim != 2 or arr.shape[1] != 2 or len(arr) < 3 or not np.all(np.isfinite(arr)):
            raise ValueError(f"calibration profile: boards[{key!r}] must be 3 or more [x, y] points")
        out[str(key)] = arr
    return out
