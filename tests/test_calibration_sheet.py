"""Printable marker and ChArUco sheets: valid one-page A4 PDFs, markers detected at true scale."""

import re

import numpy as np

from calibration import MarkerLayout
from calibration.lens import CharucoBoardSpec, detect_charuco
from calibration.markers import detect_markers
from calibration.sheet import (
    PT_PER_MM,
    charuco_sheet_drawing,
    marker_sheet_drawing,
    pdf_bytes,
    rasterise,
    write_charuco_sheet,
    write_marker_sheet,
)


def _check_pdf(data: bytes) -> tuple[float, float]:
    """Structural PDF check: header, EOF, startxref -> xref table whose offsets point at 'N 0 obj'."""
    assert data.startswith(b"%PDF-1.")
    assert data.rstrip().endswith(b"%%EOF")
    start = int(re.search(rb"startxref\s+(\d+)\s+%%EOF", data).group(1))
    assert data[start : start + 4] == b"xref"
    head = re.match(rb"xref\s+0\s+(\d+)\s+", data[start:])
    n = int(head.group(1))
    entries = data[start + head.end() : start + head.end() + 20 * n].decode("ascii").splitlines()
    assert entries[0].endswith("f ")
    for i, e in enumerate(entries[1:], start=1):
        off = int(e[:10])
        assert data[off:].startswith(f"{i} 0 obj".encode())
    assert b"/Count 1" in data and b"/BaseFont /Helvetica" in data
    length = int(re.search(rb"/Length (\d+) >>\nstream\n", data).group(1))
    s = data.index(b"stream\n") + len(b"stream\n")
    assert data[s + length : s + length + 10] == b"\nendstream"
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    return float(box.group(1)), float(box.group(2))


def test_marker_sheet_pdf_is_a4_with_instructions(tmp_path):
    """The PDF parses (xref offsets, stream length), is A4 portrait in points, and says how to print."""
    path = tmp_path / "markers.pdf"
    write_marker_sheet(str(path), MarkerLayout())
    data = path.read_bytes()
    w, h = _check_pdf(data)
    assert abs(w - 595.276) < 0.01 and abs(h - 841.89) < 0.01
    for text in (
        b"100 %",
        b"measures 100 mm",
        b"560 x 420 mm",
        b"Marker 0: top-left corner",
        b"Marker 2: bottom-right",
    ):
        assert text in data, text


def test_marker_sheet_markers_detect_at_true_size():
    """Rasterised at 4 px/mm, ids 0-3 are detected and each black square measures 50 mm (+-0.5)."""
    ppm = 4.0
    img = rasterise(marker_sheet_drawing(MarkerLayout()), ppm)
    assert img.shape == (round(297 * ppm), round(210 * ppm))
    det = detect_markers(img, MarkerLayout())
    assert list(det.ids) == [0, 1, 2, 3]
    sides_mm = np.linalg.norm(np.roll(det.corners_px, -1, axis=1) - det.corners_px, axis=2) / ppm
    np.testing.assert_allclose(sides_mm, 50.0, atol=0.5)


def test_marker_sheet_scale_bar_is_100mm():
    """The scale bar's end ticks are 100 mm apart in the drawing, i.e. 283.46 pt in the PDF."""
    d = marker_sheet_drawing(MarkerLayout())
    from calibration.sheet import Line

    ticks = [it for it in d.items if isinstance(it, Line) and abs(it.y1 - it.y0 - 5.0) < 1e-9]
    xs = sorted(t.x0 for t in ticks)
    assert len(xs) == 11
    assert abs((xs[-1] - xs[0]) - 100.0) < 1e-9
    assert abs((xs[-1] - xs[0]) * PT_PER_MM - 283.465) < 0.01


def test_charuco_sheet_detects_all_corners(tmp_path):
    """The ChArUco sheet PDF parses (A4 landscape) and its raster shows all 24 inner corners."""
    path = tmp_path / "board.pdf"
    write_charuco_sheet(str(path))
    w, h = _check_pdf(path.read_bytes())
    assert abs(w - 841.89) < 0.01 and abs(h - 595.276) < 0.01
    spec = CharucoBoardSpec()
    img = rasterise(charuco_sheet_drawing(spec), 4.0)
    obj, _ = detect_charuco(img, spec)
    assert len(obj) == (spec.squares_x - 1) * (spec.squares_y - 1)
    assert pdf_bytes(charuco_sheet_drawing(spec)).startswith(b"%PDF")
