"""Write ``components/genial_numerals.json``: the outlines of the numerals printed on Genial Spezial's tokens.

    .venv/bin/python tools/make_genial_numerals.py [--font PATH] [--out PATH]

The tokens carry their value (1, 2 or 3) as a numeral 6.6 mm in font size (digit about 4.8 mm tall) set in DejaVu
Sans Bold, centred on the token (the middle of the font's line, PIL's anchor "mm"), as the photoreal kit prints them.
This tool draws each digit with Pillow at 100 px/mm, traces its outline with OpenCV and writes the polygons in
token mm (origin the token's centre, x right, y down), so the judge renders its templates (and the synthetic
scenes their numerals) without the font file. DejaVu fonts: Bitstream Vera licence (free to copy and modify).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
FONT_SIZE_MM = 6.6
PX_PER_MM = 100.0


def outlines(digit: str, font_path: Path) -> list[list[list[float]]]:
    """The digit's contours (outer and holes, as traced) in token mm, each a list of [x, y]."""
    n = int(18.0 * PX_PER_MM)
    img = Image.new("L", (n, n), 0)
    font = ImageFont.truetype(str(font_path), int(FONT_SIZE_MM * PX_PER_MM))
    ImageDraw.Draw(img).text((n / 2, n / 2), digit, font=font, fill=255, anchor="mm")
    mask = (np.asarray(img) >= 128).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in contours:
        c = cv2.approxPolyDP(c, 2.0, True).reshape(-1, 2).astype(np.float64)
        out.append([[round((x - n / 2) / PX_PER_MM, 3), round((y - n / 2) / PX_PER_MM, 3)] for x, y in c])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--font", type=Path, default=FONT)
    ap.add_argument("--out", type=Path, default=ROOT / "components" / "genial_numerals.json")
    a = ap.parse_args(argv)
    doc = {"about": "Genial Spezial token numerals: DejaVu Sans Bold, 6.6 mm font size, centred on the token (the "
                    "font line's middle); outlines in token mm (x right, y down), even-odd filled "
                    "(tools/make_genial_numerals.py). DejaVu fonts: Bitstream Vera licence.",
           "font_size_mm": FONT_SIZE_MM,
           "digits": {d: outlines(d, a.font) for d in "123"}}
    a.out.write_text(json.dumps(doc, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
    print(a.out, {d: [len(c) for c in v] for d, v in doc["digits"].items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
