"""A Genial Spezial token's numeral read by a small learned classifier, beside the template reader.

The template reader (:mod:`vision.genial_numeral`) finds, for each of the two digits a side can show, the turn and
offset at which that digit's template fits the token's window best. Its own decision (the better correlation, sure
past a margin) separates the digits well on a clean photo, but a browser camera's 704 x 528 frame (numerals 3 px
tall) or a dim webcam's noise leaves the two correlations close, and the reader's doubt is then most tokens.

The learned reader looks at the same window through both of those fits: the window is resampled upright and centred
as each candidate's best template lies (``crop_n`` x ``crop_n`` samples every ``crop_step_mm``; the lower
candidate's view first), each view normalised to zero mean and unit spread (a colour cast, an exposure, the dark
side's white ink and the light side's black ink made alike: the ink is the bright signal, as the template reader
takes it), and the side (light 1/2, dark 2/3) is the last input. A multilayer perceptron (``cv2.ml.ANN_MLP``, shipped
in ``models/``, trained by ``tools/train_genial_numerals.py`` on photoreal tune sets as rendered and as
``tools/device_sim.py`` devices deliver them) answers how much more the higher candidate fits than the lower one
(-2..2); its confidence is the size of that answer. Two calibrations, made by the training on held-out photos
(sure reads wrong at most about once in a thousand there on every device, none where a device has fewer than a
thousand; the model's sidecar JSON records them with the validation's counts): ``sure_margin``, the confidence at
which the model is sure by itself, and ``agreed_fraction``, the fraction of the template reader's needed margin
that suffices where the two readers agree (:class:`vision.genial_numeral.NumeralRead`), per band of the photo's
blur at the token (token mm: a browser camera's small frame and a webcam's shake blur the numeral more than a
photo's lens does, and need more).

Pure functions of arrays; the model is loaded once (OpenCV only: no other runtime dependency).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

MODEL_PATH = Path(__file__).resolve().parents[1] / "models" / "genial_numerals.yml.gz"


@dataclass(frozen=True)
class NumeralModelConfig:
    """Where the learned numeral reader lies and how it samples (the training and the reading share these).

    Attributes
    ----------
    path : Path
        The model (``cv2.ml.ANN_MLP`` saved by ``tools/train_genial_numerals.py``); its calibration beside it
        (same stem, ``.json``: ``sure_margin`` and how it was measured).
    crop_n : int
        Samples per side of each candidate's upright view.
    crop_step_mm : float
        Their spacing (token mm; a numeral is 4.8 mm tall, 1-1.6 mm per photo pixel).
    window_mm_per_px : float
        Spacing of the sampled window the views are cut from (``NumeralConfig.mm_per_px``).
    """

    path: Path = MODEL_PATH
    crop_n: int = 15
    crop_step_mm: float = 0.4
    window_mm_per_px: float = 0.25


@dataclass(frozen=True)
class LearnedNumeral:
    """The learned reader's answer for one token.

    Attributes
    ----------
    value : int
        The candidate it prefers.
    confidence : float
        How far its answer lies from a tie (0..2).
    sure : bool
        ``confidence`` reaches the calibrated ``sure_margin``.
    """

    value: int
    confidence: float
    sure: bool


@dataclass(frozen=True)
class NumeralModel:
    """A loaded model and its calibration."""

    mlp: cv2.ml.ANN_MLP
    sure_margin: float
    agreed_fractions: tuple[tuple[float, float], ...]
    config: NumeralModelConfig

    def agreed_fraction(self, blur_mm: float) -> float:
        """The fraction of the template reader's needed margin that suffices where the readers agree, for a
        numeral the photo blurs by ``blur_mm`` (token mm, along the blur's longest axis: ``NumeralRead.blur_mm``;
        the band it falls in: a blurrier numeral leaves both readers less, and their errors more alike)."""
        out = 1.0
        for least_mm, fraction in self.agreed_fractions:
            if blur_mm >= least_mm:
                out = fraction
        return out


@lru_cache(maxsize=4)
def load_model(config: NumeralModelConfig = NumeralModelConfig()) -> NumeralModel:
    """The shipped model and its calibration (``sure_margin``, ``agreed_fraction``); raises OSError / ValueError
    when it is missing or broken (the reader must not run silently without it)."""
    if not config.path.exists():
        raise OSError(f"numeral model missing: {config.path}")
    mlp = cv2.ml.ANN_MLP_load(str(config.path))
    if mlp is None or not mlp.isTrained():
        raise ValueError(f"numeral model not trained: {config.path}")
    meta = json.loads(config.path.with_name(config.path.name.split(".")[0] + ".json").read_text(encoding="utf-8"))
    if int(meta["crop_n"]) != config.crop_n or abs(float(meta["crop_step_mm"]) - config.crop_step_mm) > 1e-9:
        raise ValueError(f"numeral model {config.path} was trained on other views ({meta['crop_n']} x "
                         f"{meta['crop_step_mm']} mm)")
    want = 2 * config.crop_n ** 2 + 1
    if mlp.getLayerSizes()[0, 0] != want:
        raise ValueError(f"numeral model {config.path} takes {mlp.getLayerSizes()[0, 0]} inputs, not {want}")
    bands = tuple(sorted((float(mm), float(f)) for mm, f in meta["agreed_fraction_by_blur_mm"]))
    return NumeralModel(mlp, float(meta["sure_margin"]), bands, config)


def candidates(dark: bool) -> tuple[int, int]:
    """The two values a side can show: light 1 or 2, dark 2 or 3."""
    return (2, 3) if dark else (1, 2)


def upright_view(window: np.ndarray, rotation_deg: float, offset_mm: tuple[float, float],
                 config: NumeralModelConfig = NumeralModelConfig()) -> np.ndarray:
    """The window (n, n; rows y, columns x, ``window_mm_per_px``, centred on the tower) resampled as a digit's
    template lies in it at ``rotation_deg`` and ``offset_mm``: upright and centred, shape (crop_n, crop_n),
    normalised to zero mean and unit spread."""
    n = window.shape[0]
    g = (np.arange(config.crop_n) - (config.crop_n - 1) / 2.0) * config.crop_step_mm
    qx, qy = np.meshgrid(g, g)
    a = np.radians(rotation_deg)
    px = (offset_mm[0] + np.cos(a) * qx - np.sin(a) * qy) / config.window_mm_per_px + (n - 1) / 2.0
    py = (offset_mm[1] + np.sin(a) * qx + np.cos(a) * qy) / config.window_mm_per_px + (n - 1) / 2.0
    view = cv2.remap(np.ascontiguousarray(window, dtype=np.float32), px.astype(np.float32), py.astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    view -= view.mean()
    return view / max(float(view.std()), 1e-6)


def features(window: np.ndarray, dark: bool, poses: dict[int, tuple[float, tuple[float, float]]],
             config: NumeralModelConfig = NumeralModelConfig()) -> np.ndarray:
    """The model's input for one token: the window's ink made the bright signal (``dark``: white ink), viewed as
    each candidate's best template lies (``poses``: value -> (turn deg, offset mm); the lower candidate first), and
    the side (+1 dark, -1 light). Shape (2 * crop_n**2 + 1,), float32."""
    signal = window if dark else -window
    views = [upright_view(signal, *poses[v], config).ravel() for v in candidates(dark)]
    return np.concatenate(views + [np.array([1.0 if dark else -1.0])]).astype(np.float32)


def predict(model: NumeralModel, rows: np.ndarray, dark: np.ndarray) -> list[LearnedNumeral]:
    """The learned reads of several tokens: ``rows`` (K, F) from :func:`features`, ``dark`` (K,) their sides."""
    if len(rows) == 0:
        return []
    _, out = model.mlp.predict(np.asarray(rows, dtype=np.float32))
    toward_high = out[:, 1] - out[:, 0]
    reads = []
    for d, t in zip(dark, toward_high, strict=True):
        low, high = candidates(bool(d))
        conf = float(abs(t))
        reads.append(LearnedNumeral(high if t > 0 else low, conf, conf >= model.sure_margin))
    return reads
