"""judge.images.jpeg_header_size: a JPEG's size read from its header without Pillow (CLI start-up). Whenever it
answers, Pillow - which reads every other photo, and these before - must give the same size and take the photo."""

from __future__ import annotations

import io
import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PIL.TiffImagePlugin import IFDRational

from judge.images import check_image_header, jpeg_header_size

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = sorted(p for d in ("sample_images", "tests/data") for p in (ROOT / d).rglob("*.jpg"))


def _pillow_size(data: bytes) -> tuple[int, int] | str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Image.open(io.BytesIO(data)) as im:
                return im.size
        except Exception as exc:  # what made Pillow refuse it
            return type(exc).__name__


def _phone_like(seed: int) -> bytes:
    """A small JPEG as phones write them: EXIF, sometimes an ICC profile, progressive, a comment, a density."""
    rng = np.random.default_rng(seed)
    h, w = (int(x) for x in rng.integers(8, 64, 2))
    exif = Image.Exif()
    exif[0x010F], exif[0x0110], exif[0x0128], exif[0x011A] = "Phone", "Model", 2, IFDRational(72, 1)
    kw: dict = {"exif": exif, "progressive": seed % 3 == 0}
    if seed % 2:
        kw["icc_profile"] = bytes(200)
    if seed % 4 == 0:
        kw["dpi"] = (96, 96)
    if seed % 5 == 0:
        kw["comment"] = b"table"
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(buf, "JPEG", **kw)
    return buf.getvalue()


def _damaged(data: bytes, rng: random.Random, n: int) -> list[bytes]:
    """The photo with bytes of its header (up to the scan) changed, and cut short at points in the header."""
    end = data.find(b"\xff\xda") + 16
    out = []
    for k in range(n):
        b = bytearray(data)
        for _ in range(1 + k % 3):
            b[rng.randrange(2, end)] = rng.randrange(256)
        out.append(bytes(b))
    out += [data[:k] for k in range(0, end, max(1, end // 25))]
    return out


def test_every_committed_photo_is_read_from_its_header_as_pillow_reads_it():
    assert len(PHOTOS) >= 20
    for p in PHOTOS:
        data = p.read_bytes()
        assert jpeg_header_size(data) == _pillow_size(data), p.name
        assert check_image_header(data, p.name) == _pillow_size(data)


@pytest.mark.parametrize("seed", range(12))
def test_a_damaged_or_phone_jpeg_is_read_as_pillow_reads_it_or_left_to_pillow(seed):
    rng = random.Random(seed)
    photo = PHOTOS[seed % len(PHOTOS)].read_bytes()
    answered = 0
    for data in _damaged(photo, rng, 60) + _damaged(_phone_like(seed), rng, 200) + [_phone_like(seed)]:
        size = jpeg_header_size(data)
        if size is not None:
            answered += 1
            assert size == _pillow_size(data)
    assert answered > 20  # the header path is taken, not left to Pillow every time


def test_other_formats_are_left_to_pillow():
    buf = io.BytesIO()
    Image.new("RGB", (5, 4)).save(buf, "PNG")
    assert jpeg_header_size(buf.getvalue()) is None
    assert check_image_header(buf.getvalue(), "x.png") == (5, 4)
    assert jpeg_header_size(b"") is None and jpeg_header_size(b"\xff\xd8\xff") is None
