"""Writing an overlay picture to disk."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from judge.errors import BadInput


def save_overlay(image_rgb: np.ndarray, path: str | Path) -> None:
    """Write an RGB image as PNG or JPEG (by the file's suffix).

    Raises
    ------
    BadInput
        The suffix is not an image format or the file cannot be written.
    """
    p = Path(path)
    if p.suffix.lower() not in (".png", ".jpg", ".jpeg", ".webp"):
        raise BadInput(f"{p}: overlay must be .png, .jpg or .webp")
    if not p.parent.exists():
        raise BadInput(f"{p}: directory {p.parent} does not exist")
    ok = cv2.imwrite(str(p), cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR))
    if not ok:
        raise BadInput(f"{p}: cannot write the overlay")
