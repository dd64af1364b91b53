"""Write a synthetic photo and its ground truth: ``<name>.jpg`` + ``<name>.json``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np


def json_safe(obj):
    """A copy of ``obj`` that ``json.dumps`` accepts: numpy scalars and arrays become Python numbers
    and lists, tuples become lists, non-finite floats become None, dataclasses with ``to_json`` use it."""
    if hasattr(obj, "to_json") and callable(obj.to_json):
        return json_safe(obj.to_json())
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, bool | np.bool_):
        return bool(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        f = float(obj)
        return f if math.isfinite(f) else None
    return obj


def write_photo(out_dir: str | Path, name: str, image_rgb: np.ndarray, truth: dict, jpeg_quality: int = 95,
                jpeg_bytes: bytes | None = None) -> Path:
    """Save ``<out_dir>/<name>.jpg`` (the photo) and ``<out_dir>/<name>.json`` (its truth).

    Parameters
    ----------
    out_dir : str or Path
        Created if missing.
    name : str
        File stem.
    image_rgb : ndarray, shape (H, W, 3), uint8
        The photo; encoded at ``jpeg_quality`` unless ``jpeg_bytes`` is given.
    truth : dict
        Anything ``json_safe`` handles.
    jpeg_bytes : bytes, optional
        The renderer's own JPEG file (``SynthPhoto.jpeg_bytes``), written verbatim so that the file
        decodes to exactly ``image_rgb`` (no second compression).

    Returns
    -------
    Path
        The image path.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    img_path = out / f"{name}.jpg"
    if jpeg_bytes is not None:
        img_path.write_bytes(jpeg_bytes)
        ok = True
    else:
        ok = cv2.imwrite(str(img_path), cv2.cvtColor(np.asarray(image_rgb, dtype=np.uint8), cv2.COLOR_RGB2BGR),
                         [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
    if not ok:
        raise OSError(f"could not write {img_path}")
    (out / f"{name}.json").write_text(json.dumps(json_safe(truth), indent=1) + "\n", encoding="utf-8")
    return img_path
