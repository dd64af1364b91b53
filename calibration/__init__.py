"""Table calibration: markers, image px <-> table mm, lens, camera pose, colour reference, profiles.

Per photo::

    cal = calibrate_from_markers(image_rgb, profile=None)   # raises CalibrationError (message: what was seen)
    cal.px_to_mm(xy_px) / cal.mm_to_px(xy_mm)               # table plane, lens included
    cal.mm_to_px_at_height(xy_mm, z_mm) / cal.px_to_mm_at_height(xy_px, z_mm)   # planes above the table
    cal.rectify(image, mm_per_px, (x0, y0, x1, y1), z_mm=0.0)                    # top-down view
    cal.colour.normalise(rgb)      # marker black -> 0, paper white -> 1 (also normalise_at(rgb, xy_px))
    cal.camera                     # CameraPose: height_mm, tilt_deg, K, dist, rvec, tvec
    cal.warnings                   # doubts to surface as flags; cal.describe() for one explanation line

Once per setup: ``calibration.sheet.write_marker_sheet(path, layout)`` (printable PDF),
``calibration.lens.calibrate_camera(images)`` -> ``LensProfile`` (``save``/``load``), and
``calibration.profile.CalibrationProfile`` (layout, lens, registered colours and boards; ``save``/``load``).
"""

from calibration.camera import CameraPose
from calibration.colour import ColourConfig, ColourReference
from calibration.lensmodel import LensModel
from calibration.markers import MarkerDetections, MarkerLayout, detect_markers
from calibration.table import CalibrationConfig, CalibrationError, TableCalibration, calibrate_from_markers

__all__ = [
    "CalibrationConfig",
    "CalibrationError",
    "CameraPose",
    "ColourConfig",
    "ColourReference",
    "LensModel",
    "MarkerDetections",
    "MarkerLayout",
    "TableCalibration",
    "calibrate_from_markers",
    "detect_markers",
]
