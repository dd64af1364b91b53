"""Table calibration: markers, image px <-> table mm, lens, colour reference, profiles."""

from calibration.colour import ColourConfig, ColourReference
from calibration.markers import MarkerDetections, MarkerLayout, detect_markers
from calibration.table import CalibrationError, TableCalibration, calibrate_from_markers

__all__ = [
    "CalibrationError",
    "ColourConfig",
    "ColourReference",
    "MarkerDetections",
    "MarkerLayout",
    "TableCalibration",
    "calibrate_from_markers",
    "detect_markers",
]
