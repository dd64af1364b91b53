"""Zoom crops land on the chips they name (a plain homography calibration, pure numpy; no Streamlit)."""

import numpy as np

from calibration.table import TableCalibration
from ui.zoom import chip_crops


class _Flat(TableCalibration):
    def mm_to_px_at_height(self, xy_mm, z_mm):
        return self.mm_to_px(xy_mm)


def test_crops_centre_on_not_hidden_and_borderline_chips():
    cal = _Flat(H_px_from_mm=np.diag([2.0, 2.0, 1.0]), image_size=(400, 300), reprojection_error_mm=0.1,
                marker_ids=(0, 1, 2, 3), px_per_mm=2.0)
    img = np.zeros((300, 400, 3), np.uint8)
    img[118:123, 78:83] = 255  # a mark at table (40, 60) mm
    chips = [
        {"kind": "star", "colour": "red", "xy_mm": [40.0, 60.0], "hidden": False, "margin_mm": -4.0},
        {"kind": "star", "colour": "blue", "xy_mm": [100.0, 60.0], "hidden": True, "margin_mm": 9.0},
        {"kind": "colourless", "colour": None, "xy_mm": [150.0, 100.0], "hidden": True, "margin_mm": 0.5,
         "borderline": True},
    ]
    crops = chip_crops(img, cal, chips)
    assert [c for _, c in crops] == ["colourless: borderline, +0.5 mm", "red: not hidden, -4.0 mm"]
    red = crops[1][0]
    ys, xs = np.nonzero(red[..., 0])
    assert abs(ys.mean() - red.shape[0] / 2) < 3 and abs(xs.mean() - red.shape[1] / 2) < 3
