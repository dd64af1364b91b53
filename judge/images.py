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
    size = jpeg_header_size(data)
    if size is not None and size[0] * size[1] <= limits.max_pixels and max(size) <= limits.max_side_px:
        return size
    from PIL import Image, UnidentifiedImageError  # noqa: PLC0415  (Pillow only off the JPEG path: CLI start-up)

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


#: JPEG markers that carry a length and that Pillow reads before the scan without judging their contents (DHT,
#: DAC, DRI, COM, APP0-APP15 but those :func:`jpeg_header_size` checks itself); SOFn and DQT are checked.
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_JPEG_SKIPPED = frozenset({0xC4, 0xCC, 0xDD, 0xFE} | set(range(0xE0, 0xF0)))
#: APPn contents Pillow parses with reads that can fail (it then refuses the photo): left to Pillow
_JPEG_APP_PARSED = ((0xE0, b"JFIF", 7), (0xEE, b"Adobe", 7), (0xE2, b"ICC_PROFILE\0", 14))
_JPEG_APP_LEFT = ((0xE2, b"MPF\0"), (0xED, b"Photoshop 3.0\x00"))


def jpeg_header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a JPEG from its own header, without Pillow (importing and opening it costs a CLI call
    ~40 ms); None for any other data and for a JPEG laid out otherwise than as below - Pillow then reads it, as
    before.

    Read as Pillow reads it: from the start-of-image marker, segment after segment up to the start of the scan
    (whose length must also fit in the data), each segment's length within the data; the size is the last frame
    header's (SOFn: 8-bit samples, 1, 3 or 4 components, whole, both sides > 0); quantisation tables whole. Padding
    or stray bytes between segments, standalone markers, a multi-picture (MPF) or Photoshop segment, and APP0 JFIF /
    APP14 Adobe / APP2 ICC segments too short for Pillow's reads all give None.
    """
    if data[:3] != b"\xff\xd8\xff":
        return None
    pos, size, n = 2, None, len(data)
    while pos + 4 <= n and data[pos] == 0xFF:
        marker, length = data[pos + 1], int.from_bytes(data[pos + 2:pos + 4], "big")
        body = data[pos + 4:pos + 2 + length]
        if length < 2 or pos + 2 + length > n:
            return None
        if marker == 0xDA:
            return size
        if marker in _JPEG_SOF:
            size = _jpeg_frame_size(body)
            if size is None:
                return None
        elif marker == 0xDB:
            if not _jpeg_tables_whole(body):
                return None
        elif marker not in _JPEG_SKIPPED or not _jpeg_app_plain(marker, body):
            return None
        pos += 2 + length
    return None


def _jpeg_frame_size(body: bytes) -> tuple[int, int] | None:
    """A frame header's (width, height) when Pillow takes it (8-bit, 1/3/4 components, every component whole)."""
    if len(body) < 6 or body[0] != 8 or body[5] not in (1, 3, 4) or len(body) < 6 + 3 * body[5]:
        return None
    h, w = int.from_bytes(body[1:3], "big"), int.from_bytes(body[3:5], "big")
    return (w, h) if w > 0 and h > 0 else None


def _jpeg_tables_whole(body: bytes) -> bool:
    """Every quantisation table of a DQT segment whole (64 values of 1 or 2 bytes after the table's byte)."""
    at = 0
    while at < len(body):
        at += 1 + 64 * (1 if body[at] < 16 else 2)
    return at == len(body)


def _jpeg_app_plain(marker: int, body: bytes) -> bool:
    """An APPn (or other skipped) segment Pillow reads without a read that can fail."""
    if any(marker == m and body.startswith(tag) for m, tag in _JPEG_APP_LEFT):
        return False
    return not any(marker == m and body.startswith(tag) and len(body) < least for m, tag, least in _JPEG_APP_PARSED)


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
