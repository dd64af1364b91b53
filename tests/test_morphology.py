"""vision.morphology: the disc-kernel morphology is OpenCV's elliptical-kernel morphology, array for array."""

import cv2
import numpy as np
import pytest

from vision.morphology import (
    ROWS_FROM_K,
    _extreme_by_rows,
    disc_close,
    disc_dilate,
    disc_erode,
    disc_half_widths,
    disc_open,
    disc_rectangles,
    disc_tophat,
)

OPS = [
    (disc_erode, lambda a, e: cv2.erode(a, e)),
    (disc_dilate, lambda a, e: cv2.dilate(a, e)),
    (disc_open, lambda a, e: cv2.morphologyEx(a, cv2.MORPH_OPEN, e)),
    (disc_close, lambda a, e: cv2.morphologyEx(a, cv2.MORPH_CLOSE, e)),
    (disc_tophat, lambda a, e: cv2.morphologyEx(a, cv2.MORPH_TOPHAT, e)),
]


@pytest.mark.parametrize("k", [3, 5, 9, 17, 21, 31, 41])
@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_disc_morphology_equals_opencv_ellipse(k, dtype):
    rng = np.random.default_rng(k)
    img = (rng.random((67, 93)) * 255).astype(dtype)
    img[20:40, 30:60] = 200  # a plateau and edges, with the image borders in reach of the kernel
    ellipse = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    for ours, theirs in OPS:
        np.testing.assert_array_equal(ours(img, k), theirs(img, ellipse))


@pytest.mark.parametrize("k", [5, 17, 31])
def test_disc_rectangles_cover_exactly_the_ellipse(k):
    ellipse = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    cover = np.zeros_like(ellipse)
    c = k // 2
    for w, h, ax, ay in disc_rectangles(k):
        cover[c - ay:c - ay + h, c - ax:c - ax + w] = 1
    np.testing.assert_array_equal(cover, ellipse)
    assert len(disc_rectangles(k)) < k  # fewer rectangles than rows: that is the point


@pytest.mark.parametrize("k", [3, 5, 7, 9, 15, 17, 31])
@pytest.mark.parametrize("shape", [(40, 57), (57, 40), (32, 33)])
@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_extreme_by_rows_equals_opencv_ellipse(k, shape, dtype):
    """The row-wise path itself, at every kernel size (``_extreme`` takes it only from ``ROWS_FROM_K`` on), on arrays
    barely wider or taller than the kernel: the row runs clamped at both ends, the rows' offsets cut at the borders."""
    rng = np.random.default_rng(k + shape[0])
    img = (rng.random(shape) * 255).astype(dtype)
    img[5:15, 3:20] = 250
    img[-8:, -6:] = 1
    ellipse = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    half = disc_half_widths(k)
    assert half is not None
    np.testing.assert_array_equal(_extreme_by_rows(img, half, np.minimum), cv2.erode(img, ellipse))
    np.testing.assert_array_equal(_extreme_by_rows(img, half, np.maximum), cv2.dilate(img, ellipse))


@pytest.mark.parametrize("k", [3, 5, 15, 31, 41])
def test_disc_half_widths_describe_the_ellipse(k):
    ellipse = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    rows = np.zeros_like(ellipse)
    c = k // 2
    for r, a in enumerate(disc_half_widths(k)):
        rows[r, c - a:c + a + 1] = 1
    np.testing.assert_array_equal(rows, ellipse)
    assert ROWS_FROM_K <= 31  # the board maps' 31 px tophat takes the row-wise path
