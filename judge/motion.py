"""A cheap hand/motion detector for live video: frame differencing on a small grey top view of the table.

Each frame is shrunk (area averaging), warped into table coordinates (the markers' homography, a few mm
per pixel) and compared with the previous frame, colour channel by channel, after matching their brightness
(light flicker and automatic exposure change every pixel a little; a hand or a moved piece changes some
pixels a lot, and a coloured piece on a board of about its grey shows in its colour). A
second cue looks for skin-coloured pixels connected to the edge of the view (a hand reaches in from
outside; a placed piece does not) where the last quiet frame showed none: compared pixel by pixel against
the quiet frame's skin under a looser test (wider colour bounds, a neighbourhood forgiven), and what is
left is opened, so that a flickering lamp or sensor noise moving the pixels of a skin-coloured table (wood)
in and out of the skin test is not a hand; the view's brightness is also matched to the first frame's.
Before the table is calibrated the same is done on the shrunk photo itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table import TableCalibration


@dataclass(frozen=True)
class MotionConfig:
    """Tunables of the motion detector.

    Attributes
    ----------
    shrink : int
        The photo is first shrunk by this factor (area averaging), px.
    mm_per_px : float
        Resolution of the table top view compared between frames.
    margin_mm : float
        The view reaches this far beyond the markers' centres.
    untracked_width_px : int
        Width of the shrunk photo compared before the table is calibrated.
    blur_px : int
        Box blur of the view (odd), against sensor noise.
    delta_grey : float
        A view pixel changed when a brightness-matched colour channel differs by more than this (0-255).
    moving_fraction : float
        The frame is moving when more than this fraction of the view's pixels changed.
    skin_cr : (lo, hi), skin_cb : (lo, hi)
        Skin in YCrCb (8-bit), a cheap cue.
    skin_min_sat : float
        Pixels greyer than this (HSV saturation 0-255) are not skin (white paper, grey table).
    hand_fraction : float
        A hand is seen when new skin connected to the view's edge (skin where the last quiet frame had
        none within ``skin_tolerance_px``, opened by ``skin_open_px``) covers this fraction of the view.
    skin_tolerance_px : int
        Skin of the last quiet frame is widened by this many view pixels before comparing.
    skin_loose : float
        The last quiet frame's skin is tested with the colour bounds widened by this (Cr, Cb, saturation
        levels), so a pixel at the edge of the skin test does not count as new skin when noise moves it in.
    skin_adapt_frames : int
        The quiet frame's skin is taken again after this many consecutive frames without frame-to-frame
        change (a skin-coloured piece placed becomes part of the table; a hand held still for a moment
        does not).
    skin_open_px : int
        Size of the opening that removes scattered new-skin pixels (flicker at the skin test's edge).
    """

    shrink: int = 4
    mm_per_px: float = 5.0
    margin_mm: float = 40.0
    untracked_width_px: int = 160
    blur_px: int = 3
    delta_grey: float = 14.0
    moving_fraction: float = 0.0015
    skin_cr: tuple[int, int] = (138, 175)
    skin_cb: tuple[int, int] = (80, 130)
    skin_min_sat: float = 40.0
    hand_fraction: float = 0.01
    skin_tolerance_px: int = 1
    skin_loose: float = 8.0
    skin_adapt_frames: int = 4
    skin_open_px: int = 3


@dataclass(frozen=True)
class MotionSample:
    """The motion measure of one frame.

    Attributes
    ----------
    changed_fraction : float
        Fraction of the view that changed since the previous frame (0 for the first frame of a view).
    changed_since_still : float
        Fraction that changed since the last frame marked still (:meth:`MotionMeter.mark_still`).
    skin_fraction : float
        Fraction of the view that is new skin connected to its edge (not skin in the last quiet frame).
    hand : bool
        New skin beyond ``MotionConfig.hand_fraction``.
    moving : bool
        Motion or a hand: the scene is not still in this frame.
    """

    changed_fraction: float
    changed_since_still: float
    skin_fraction: float
    hand: bool
    moving: bool


def view_region_mm(calibration: TableCalibration, layout_centres_mm: dict[int, tuple[float, float]],
                   margin_mm: float) -> tuple[float, float, float, float]:
    """The table rectangle compared: the markers' centres and a margin, (x0, y0, x1, y1) mm."""
    c = np.array(list(layout_centres_mm.values()), dtype=float)
    return (float(c[:, 0].min() - margin_mm), float(c[:, 1].min() - margin_mm),
            float(c[:, 0].max() + margin_mm), float(c[:, 1].max() + margin_mm))


class MotionMeter:
    """Keeps the previous view and the still table's view; :meth:`measure` one frame after another.

    Parameters
    ----------
    config : MotionConfig
    layout_centres_mm : dict
        The markers' centres (the compared view covers them).
    """

    def __init__(self, config: MotionConfig, layout_centres_mm: dict[int, tuple[float, float]]) -> None:
        self.config = config
        self.centres_mm = layout_centres_mm
        self._warp: tuple[np.ndarray, tuple[int, int]] | None = None
        self._prev: np.ndarray | None = None
        self._still: np.ndarray | None = None
        self._skin_ref: np.ndarray | None = None  # loose skin of the last quiet frame
        self._loose: np.ndarray | None = None  # loose skin of the last frame
        self._quiet = 0  # consecutive frames without frame-to-frame change
        self._level: float | None = None  # median grey of the first frame of this view

    def track(self, calibration: TableCalibration | None) -> None:
        """Compare in this calibration's table view from now on (None: the shrunk photo); resets the history."""
        self._prev = self._still = None
        self._skin_ref = self._loose = self._level = None
        self._quiet = 0
        if calibration is None:
            self._warp = None
            return
        x0, y0, x1, y1 = view_region_mm(calibration, self.centres_mm, self.config.margin_mm)
        mpp, s = self.config.mm_per_px, float(self.config.shrink)
        out_from_mm = np.array([[mpp, 0, x0], [0, mpp, y0], [0, 0, 1]], dtype=np.float64)
        small_from_px = np.diag([1.0 / s, 1.0 / s, 1.0])
        size = (int(round((x1 - x0) / mpp)), int(round((y1 - y0) / mpp)))
        self._warp = (small_from_px @ calibration.H_px_from_mm @ out_from_mm, size)

    def view(self, image_rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The compared view of a frame: colour float32 (h, w, 3) (blurred), skin connected to the edge bool
        (h, w), and skin under the loose test bool (h, w)."""
        cfg = self.config
        h, w = image_rgb.shape[:2]
        if self._warp is None:
            k = max(1, w // cfg.untracked_width_px)
            small = cv2.resize(image_rgb, (w // k, h // k), interpolation=cv2.INTER_AREA)
        else:
            shrunk = cv2.resize(image_rgb, (w // cfg.shrink, h // cfg.shrink), interpolation=cv2.INTER_AREA)
            M, size = self._warp
            small = cv2.warpPerspective(shrunk, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        grey = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY).astype(np.float32)
        level = float(np.median(grey))
        if self._level is None:
            self._level = level
        gain = self._level / level if level > 1.0 else 1.0
        colour = small.astype(np.float32)
        if cfg.blur_px > 1:
            colour = np.asarray(cv2.blur(colour, (cfg.blur_px, cfg.blur_px)), dtype=np.float32)
        edge, loose = self._skin(small if abs(gain - 1.0) < 1e-3 else cv2.convertScaleAbs(small, alpha=gain))
        return colour, edge, loose

    def _skin(self, small_rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(skin connected to the view's edge, skin under the loose test), bool (h, w) each."""
        cfg = self.config
        ycc = cv2.cvtColor(small_rgb, cv2.COLOR_RGB2YCrCb)
        cr, cb = ycc[..., 1].astype(np.int16), ycc[..., 2].astype(np.int16)
        sat = cv2.cvtColor(small_rgb, cv2.COLOR_RGB2HSV)[..., 1].astype(np.int16)

        def test(m: float) -> np.ndarray:
            return ((cr >= cfg.skin_cr[0] - m) & (cr <= cfg.skin_cr[1] + m) & (cb >= cfg.skin_cb[0] - m)
                    & (cb <= cfg.skin_cb[1] + m) & (sat >= cfg.skin_min_sat - m))

        skin, loose = test(0.0), test(cfg.skin_loose)
        n, labels = cv2.connectedComponents(skin.astype(np.uint8), connectivity=4)
        if n <= 1:
            return np.zeros_like(skin), loose
        edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
        edge = edge[edge > 0]
        return np.isin(labels, edge), loose

    def _changed(self, a: np.ndarray, b: np.ndarray) -> float:
        """Fraction of pixels with a colour channel that differs after matching b's brightness to a's (flicker,
        exposure); a, b: (h, w, 3) views."""
        ma, mb = float(np.median(a)), float(np.median(b))
        gain = ma / mb if mb > 1.0 else 1.0
        valid = (a.max(axis=2) > 0) & (b.max(axis=2) > 0)  # outside the photo: zeros in both
        d = (np.abs(a - b * gain) > self.config.delta_grey).any(axis=2)
        return float(np.count_nonzero(d & valid)) / max(1, int(np.count_nonzero(valid)))

    def measure(self, image_rgb: np.ndarray) -> MotionSample:
        """Compare this frame with the previous one (and with the last still frame)."""
        view, skin, loose = self.view(image_rgb)
        changed = 0.0 if self._prev is None or self._prev.shape != view.shape else self._changed(view, self._prev)
        since = 0.0 if self._still is None or self._still.shape != view.shape else self._changed(view, self._still)
        self._prev = view
        skin_frac = self._new_skin(skin)
        hand = skin_frac > self.config.hand_fraction
        self._quiet = self._quiet + 1 if changed <= self.config.moving_fraction else 0
        self._loose = loose
        if self._skin_ref is None or self._skin_ref.shape != skin.shape or self._quiet >= self.config.skin_adapt_frames:
            self._skin_ref = loose
        drifted = since > self.config.moving_fraction * 4
        if drifted:  # the table changed since it was still: report it once, then compare frame to frame
            self._still = None
        moving = hand or changed > self.config.moving_fraction or drifted
        return MotionSample(changed, since, skin_frac, hand, moving)

    def _new_skin(self, skin: np.ndarray) -> float:
        """Fraction of the view that is skin now but was not (nearby) in the last quiet frame, opened."""
        cfg = self.config
        if self._skin_ref is None or self._skin_ref.shape != skin.shape:
            return 0.0
        near = cv2.dilate(self._skin_ref.astype(np.uint8), np.ones((2 * cfg.skin_tolerance_px + 1,) * 2, np.uint8))
        new = (skin & (near == 0)).astype(np.uint8)
        if cfg.skin_open_px > 1:
            new = cv2.morphologyEx(new, cv2.MORPH_OPEN, np.ones((cfg.skin_open_px, cfg.skin_open_px), np.uint8))
        return float(np.count_nonzero(new)) / new.size

    def snapshot(self) -> np.ndarray | None:
        """The last measured frame's view (to compare a later still table with: :meth:`changed_from`)."""
        return self._prev

    def changed_from(self, view: np.ndarray | None) -> float:
        """Fraction of the last measured view that differs from ``view`` (a :meth:`snapshot`); 1.0 when they
        cannot be compared (none, or another size: the camera's view changed)."""
        if view is None or self._prev is None or view.shape != self._prev.shape:
            return 1.0
        return self._changed(self._prev, view)

    def mark_still(self) -> None:
        """The last measured frame is the still table: later frames are also compared with it."""
        self._still = self._prev
        if self._loose is not None:
            self._skin_ref = self._loose
