"""vision.morphology: the disc-kernel morphology is OpenCV's elliptical-kernel morphology, array for array."""

import cv2
import numpy as np
import pytest

from vision.morphology import (
    disc_close,
    disc_dilate,
    disc_erode,
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
