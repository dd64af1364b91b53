"""Table calibration: markers, image px <-> table mm, lens, camera pose, colour reference, profiles."""

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
