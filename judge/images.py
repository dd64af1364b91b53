"""Loading photos safely: every way a file can be wrong becomes one clear ``BadInput`` line."""

from __future__ import annotations

import io
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from judge.errors import BadInput


@dataclass(frozen=True)
class ImageLimits:
    """What the judge accepts and the size it works at.

    Attributes
    ----------
    max_pixels : int
        Larger images are refused before decoding (a 20000x20000 image would need 1.2 GB).
    max_side_px : int
        Images are refused when either side exceeds this.
    work_long_side_px : int
        Decoded photos are scaled down so their long side is at most this (a 12 MP phone photo
        becomes 2400x1800); smaller photos are kept as they are.
    """

    max_pixels: int = 50_000_000
    max_side_px: int = 12_000
    work_long_side_px: int = 2400


def check_image_header(data: bytes, name: str, limits: ImageLimits = ImageLimits()) -> tuple[int, int]:
    """Read only the header: refuse non-images and images too big to decode.

    Returns
    -------
    (width, height) : tuple[int, int]

    Raises
    ------
    BadInput
    """
    if not data:
        raise BadInput(f"{name}: the file is empty")
    try:
        with Image.open(io.BytesIO(data)) as im:
            w, h = im.size
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise BadInput(f"{name}: not a readable image ({type(exc).__name__})") from None
    except Image.DecompressionBombError:
        raise BadInput(
            f"{name}: image is far larger than the judge accepts "
            f"({limits.max_pixels // 1_000_000} MP, {limits.max_side_px} px a side); send a smaller photo"
        ) from None
    if w <= 0 or h <= 0:
        raise BadInput(f"{name}: image has no pixels")
    if w * h > limits.max_pixels or max(w, h) > limits.max_side_px:
        raise BadInput(
            f"{name}: image is {w}x{h} px, larger than the judge accepts "
            f"({limits.max_pixels // 1_000_000} MP, {limits.max_side_px} px a side); send a smaller photo"
        )
    return w, h


#: libjpeg's warnings that mean the picture decoded is not the photo taken (garbled or cut short).
JPEG_DAMAGE = ("Corrupt JPEG data", "Premature end of JPEG file")
_FD2_LOCK = threading.Lock()


@contextmanager
def _c_stderr() -> Iterator[list[str]]:
    """Lines C code writes to the process's stderr (fd 2) inside the block, filled in when it ends.

    libjpeg (inside OpenCV) reports a damaged JPEG only as a warning printed there and decodes it anyway;
    the caller reads the warning instead of letting it reach the user as a stray second line.
    """
    said: list[str] = []
    with _FD2_LOCK, tempfile.TemporaryFile() as tf:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError):  # no fd 2 to borrow: decode without listening
            yield said
            return
        os.dup2(tf.fileno(), 2)
        try:
            yield said
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tf.seek(0)
            said.extend(ln for ln in tf.read().decode("utf-8", "replace").splitlines() if ln.strip())


def decode_image(data: bytes, name: str, limits: ImageLimits = ImageLimits()) -> np.ndarray:
    """Decode photo bytes to an RGB array at working size.

    Parameters
    ----------
    data : bytes
        File contents (JPEG, PNG, WebP, BMP ...).
    name : str
        For messages.

    Returns
    -------
    ndarray, shape (H, W, 3), uint8, RGB

    Raises
    ------
    BadInput
        Also for a JPEG that libjpeg finds damaged (truncated, corrupt data): judging the garbled picture
        could give a silent wrong verdict.
    """
    w, h = check_image_header(data, name, limits)
    buf = np.frombuffer(data, dtype=np.uint8)
    long_side = max(w, h)
    flag = cv2.IMREAD_COLOR
    # Decode big photos at reduced size straight away (JPEG DCT scaling): less memory and time.
    for factor, reduced in ((4, cv2.IMREAD_REDUCED_COLOR_4), (2, cv2.IMREAD_REDUCED_COLOR_2)):
        if long_side / factor >= limits.work_long_side_px:
            flag = reduced
            break
    with _c_stderr() as said:
        bgr = cv2.imdecode(buf, flag)
    damage = [ln for ln in said if ln.startswith(JPEG_DAMAGE)]
    others = [ln for ln in said if "JPEG" not in ln]  # not libjpeg's: another thread's output, passed on
    if others:
        sys.stderr.write("\n".join(others) + "\n")
    if damage:
        raise BadInput(f"{name}: the photo's JPEG data is damaged ({damage[0].rstrip('.')}); take or send it again")
    if bgr is None:
        raise BadInput(f"{name}: the image data is corrupt or in a format OpenCV cannot read")
    scale = limits.work_long_side_px / max(bgr.shape[:2])
    if scale < 1.0:
        bgr = cv2.resize(bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def load_image(path: str | Path, limits: ImageLimits = ImageLimits()) -> np.ndarray:
    """Read and decode a photo file (see ``decode_image``).

    Raises
    ------
    BadInput
        Missing, unreadable, empty, non-image or too-large file.
    """
    p = Path(path)
    if not p.exists():
        raise BadInput(f"{p}: no such file")
    if p.is_dir():
        raise BadInput(f"{p}: is a directory, not an image")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise BadInput(f"{p}: cannot read ({exc.strerror or exc})") from None
    return decode_image(data, str(p), limits)
