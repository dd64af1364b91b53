"""Printable marker and ChArUco sheets: the PDF files a user prints, rendered by PDFium (the engine of
Chromium's viewer), show the markers at true scale and the instructions as text."""

import cv2
import numpy as np
import pypdfium2 as pdfium

from calibration import MarkerLayout
from calibration.lens import CharucoBoardSpec, detect_charuco
from calibration.markers import detect_markers
from calibration.sheet import (
    PT_PER_MM,
    charuco_sheet_drawing,
    marker_sheet_drawing,
    pdf_bytes,
    write_charuco_sheet,
    write_marker_sheet,
)


def render_pdf(path, px_per_mm: float) -> tuple[np.ndarray, tuple[float, float], str]:
    """The PDF's one page rendered at ``px_per_mm`` (grey), its size in points, and its text."""
    doc = pdfium.PdfDocument(str(path))
    assert len(doc) == 1
    page = doc[0]
    size_pt = page.get_size()
    bitmap = page.render(scale=px_per_mm / PT_PER_MM, grayscale=True)
    image = np.array(bitmap.to_numpy()).squeeze()
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    text = page.get_textpage().get_text_range()
    return image, size_pt, text


def test_marker_sheet_pdf_is_a4_with_instructions(tmp_path):
    """The PDF is A4 portrait in points and says how to print and lay out the markers."""
    path = tmp_path / "markers.pdf"
    write_marker_sheet(str(path), MarkerLayout())
    _, (w, h), text = render_pdf(path, 1.0)
    assert abs(w - 595.276) < 0.05 and abs(h - 841.89) < 0.05
    for words in ("100 %", "measures 100 mm", "560 x 420 mm", "Marker 0: top-left corner", "Marker 2: bottom-right"):
        assert words in text, words


def test_marker_sheet_markers_detect_at_true_size(tmp_path):
    """The printed file rendered at 4 px/mm: ids 0-3 are detected and each black square measures 50 mm."""
    path = tmp_path / "markers.pdf"
    write_marker_sheet(str(path), MarkerLayout())
    ppm = 4.0
    img, _, _ = render_pdf(path, ppm)
    assert abs(img.shape[0] - 297 * ppm) <= 1 and abs(img.shape[1] - 210 * ppm) <= 1
    det = detect_markers(img, MarkerLayout())
    assert sorted(det.ids.tolist()) == [0, 1, 2, 3]
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
    """The ChArUco sheet is A4 landscape and the printed file shows all inner corners."""
    path = tmp_path / "board.pdf"
    write_charuco_sheet(str(path))
    img, (w, h), _ = render_pdf(path, 4.0)
    assert abs(w - 841.89) < 0.05 and abs(h - 595.276) < 0.05
    spec = CharucoBoardSpec()
    obj, _ = detect_charuco(img, spec)
    assert len(obj) == (spec.squares_x - 1) * (spec.squares_y - 1)
    assert pdf_bytes(charuco_sheet_drawing(spec)).startswith(b"%PDF")
