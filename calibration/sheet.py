"""Printable sheets: the four table markers (and a ChArUco board) as true-size vector PDFs.

A sheet is first laid out as a :class:`Drawing` (filled and stroked rectangles, lines, Helvetica text, in
page mm with y down). :func:`pdf_bytes` writes it as a one-page vector PDF with fpdf2 (page units mm, so
every shape keeps its true size when printed at 100 %). The tests render the written file itself with
PDFium and detect the markers in it at true scale.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.lens import CharucoBoardSpec
from calibration.markers import MarkerLayout, aruco_dictionary

PT_PER_MM = 72.0 / 25.4
A4_MM = (210.0, 297.0)


@dataclass(frozen=True)
class Rect:
    """Axis-aligned rectangle, page mm (x right, y down); ``fill`` grey 0-1 or None, ``stroke`` grey or None."""

    x: float
    y: float
    w: float
    h: float
    fill: float | None = 0.0
    stroke: float | None = None
    line_mm: float = 0.2
    dash_mm: float = 0.0


@dataclass(frozen=True)
class Line:
    """Segment, page mm."""

    x0: float
    y0: float
    x1: float
    y1: float
    grey: float = 0.0
    line_mm: float = 0.2


@dataclass(frozen=True)
class Text:
    """Helvetica text; (x, y) is the left end of the baseline, page mm; size in points."""

    x: float
    y: float
    text: str
    size_pt: float = 10.0
    bold: bool = False


@dataclass
class Drawing:
    """A page of shapes (built up, then written once)."""

    size_mm: tuple[float, float] = A4_MM
    items: list = field(default_factory=list)

    def add(self, item) -> None:
        self.items.append(item)


@dataclass(frozen=True)
class SheetConfig:
    """Layout of the marker sheet.

    Attributes
    ----------
    quiet_zone_mm : float
        White border kept around each marker's black square (cut outside it).
    scale_bar_mm : float
    margin_mm : float
    """

    quiet_zone_mm: float = 10.0
    scale_bar_mm: float = 100.0
    margin_mm: float = 15.0


# --------------------------------------------------------------------------- drawing the sheets


def _draw_marker(d: Drawing, dictionary, marker_id: int, x: float, y: float, side_mm: float) -> None:
    """A marker's black square with its white cells, top-left at (x, y) page mm."""
    n = dictionary.markerSize + 2
    cells = cv2.aruco.generateImageMarker(dictionary, int(marker_id), n, borderBits=1) > 127
    d.add(Rect(x, y, side_mm, side_mm, fill=0.0))
    c = side_mm / n
    for r in range(n):
        col = 0
        while col < n:  # white runs along the row, merged so no seams cross them
            if cells[r, col]:
                start = col
                while col < n and cells[r, col]:
                    col += 1
                d.add(Rect(x + start * c, y + r * c, (col - start) * c, c, fill=1.0))
            else:
                col += 1


def _position_name(xy: tuple[float, float], layout: MarkerLayout) -> str:
    xs = [p[0] for p in layout.centres_mm.values()]
    ys = [p[1] for p in layout.centres_mm.values()]
    mx, my = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    vert = "top" if xy[1] < my else "bottom" if xy[1] > my else "middle"
    horiz = "left" if xy[0] < mx else "right" if xy[0] > mx else "centre"
    return f"{vert}-{horiz}"


def _axes_sentence(layout: MarkerLayout) -> str:
    names = {_position_name(xy, layout): mid for mid, xy in layout.centres_mm.items()}
    origin = min(layout.centres_mm, key=lambda k: (layout.centres_mm[k][1], layout.centres_mm[k][0]))
    if {"top-left", "top-right", "bottom-left"} <= names.keys() and layout.centres_mm[names["top-left"]] == (0, 0):
        return (
            f"3. Marker {names['top-left']} is the origin (0, 0); x runs towards marker {names['top-right']}, "
            f"y towards marker {names['bottom-left']}, in mm."
        )
    return f"3. Marker centres are given in mm from the table origin (marker {origin} is nearest the top)."


def _sheet_slots(layout: MarkerLayout, ids: list[int], cols: int) -> dict[int, tuple[int, int]]:
    """(row, column) of each marker on the sheet: as on the table for a 2 x 2 corner layout, else in id order."""
    if cols >= 2 and len(ids) <= 4:
        slots = {}
        for mid in ids:
            name = _position_name(layout.centres_mm[mid], layout)
            slots[mid] = (0 if name.startswith("top") else 1, 0 if name.endswith("left") else 1)
        if len(set(slots.values())) == len(ids):
            return slots
    return {mid: divmod(k, cols) for k, mid in enumerate(ids)}


def marker_sheet_drawing(layout: MarkerLayout | None = None, config: SheetConfig = SheetConfig()) -> Drawing:
    """The A4 marker sheet as a drawing (markers true size, labels, scale bar, instructions)."""
    layout = layout or MarkerLayout.from_components()
    dictionary = aruco_dictionary(layout.dictionary)
    d = Drawing()
    W, _ = d.size_mm
    m = config.margin_mm
    side = layout.side_mm
    cell = side + 2 * config.quiet_zone_mm
    ids = sorted(layout.centres_mm)
    xs = [p[0] for p in layout.centres_mm.values()]
    ys = [p[1] for p in layout.centres_mm.values()]
    d.add(Text(m, m + 2, f"Table Judge calibration markers ({layout.dictionary}, ids {ids[0]}-{ids[-1]})", 14, True))
    d.add(Text(m, m + 9, "Print at 100 % (actual size, no fit-to-page). Check that the bar at the bottom measures", 9))
    d.add(Text(m, m + 14, f"{config.scale_bar_mm:g} mm. Each black square must measure {side:g} mm.", 9))
    cols = max(1, int((W - 2 * m + 10) // (cell + 10)))
    top = m + 22
    slots = _sheet_slots(layout, ids, cols)
    for mid in ids:
        r, c = slots[mid]
        x = m + c * (cell + 10)
        y = top + r * (cell + 22)
        d.add(Rect(x, y, cell, cell, fill=None, stroke=0.6, line_mm=0.2, dash_mm=2.0))
        _draw_marker(d, dictionary, mid, x + config.quiet_zone_mm, y + config.quiet_zone_mm, side)
        cx, cy = layout.centres_mm[mid]
        d.add(
            Text(x, y + cell + 5, f"Marker {mid}: {_position_name((cx, cy), layout)} corner of the play area", 8, True)
        )
        d.add(Text(x, y + cell + 9.5, f"centre at x = {cx:g} mm, y = {cy:g} mm", 8))
    rows = max(r for r, _ in slots.values()) + 1
    y = top + rows * (cell + 22) + 2
    lines = [
        "How to lay them out:",
        "1. Cut along the dashed lines, keeping the white border around each black square.",
        f"2. Lay the markers flat at the corners of the play area, their centres forming a "
        f"{max(xs) - min(xs):g} x {max(ys) - min(ys):g} mm rectangle,",
        "   all turned the same way as printed here (their top edge towards the top side of the play area).",
        _axes_sentence(layout),
        "4. The camera must see all markers; keep them flat, square to each other, and uncovered.",
    ]
    for i, t in enumerate(lines):
        d.add(Text(m, y + i * 4.6, t, 8.5, i == 0))
    y += len(lines) * 4.6 + 8
    _draw_scale_bar(d, m, y, config.scale_bar_mm)
    return d


def _draw_scale_bar(d: Drawing, x: float, y: float, length_mm: float) -> None:
    """A bar with mm ticks (long every 10, medium every 5), labelled."""
    d.add(Rect(x, y, length_mm, 1.0, fill=0.0))
    for i in range(int(round(length_mm)) + 1):
        tick = 5.0 if i % 10 == 0 else 3.5 if i % 5 == 0 else 2.0
        d.add(Line(x + i, y + 1.0, x + i, y + 1.0 + tick, 0.0, 0.15))
        if i % 10 == 0:
            d.add(Text(x + i - (0.8 if i < 10 else 1.6 if i < 100 else 2.4), y + 10, str(i), 7))
    d.add(Text(x, y + 15, f"Check this measures {length_mm:g} mm: print at 100 %, no fit-to-page.", 8))


def charuco_sheet_drawing(spec: CharucoBoardSpec = CharucoBoardSpec(), margin_mm: float = 15.0) -> Drawing:
    """The ChArUco lens-calibration board on an A4 landscape page, true size."""
    d = Drawing(size_mm=(A4_MM[1], A4_MM[0]))
    W, H = d.size_mm
    bw, bh = spec.size_mm
    x0 = (W - bw) / 2
    y0 = margin_mm + 14
    board = spec.board()
    dictionary = aruco_dictionary(spec.dictionary)
    obj = [np.asarray(c).reshape(4, 3) for c in board.getObjPoints()]
    ids = np.asarray(board.getIds()).ravel()
    with_marker = {(int(c[:, 0].mean() // spec.square_mm), int(c[:, 1].mean() // spec.square_mm)) for c in obj}
    for j in range(spec.squares_y):
        for i in range(spec.squares_x):
            if (i, j) not in with_marker:
                d.add(Rect(x0 + i * spec.square_mm, y0 + j * spec.square_mm, spec.square_mm, spec.square_mm, fill=0.0))
    for c, mid in zip(obj, ids):
        _draw_marker(d, dictionary, int(mid), x0 + float(c[:, 0].min()), y0 + float(c[:, 1].min()), spec.marker_mm)
    d.add(Text(margin_mm, margin_mm + 2, "Table Judge lens calibration board (ChArUco)", 14, True))
    d.add(
        Text(
            margin_mm,
            margin_mm + 8,
            f"{spec.squares_x} x {spec.squares_y} squares of {spec.square_mm:g} mm, {spec.marker_mm:g} mm "
            f"{spec.dictionary} markers, ids from {spec.first_id}. Print at 100 %, glue flat on card.",
            9,
        )
    )
    d.add(Text(margin_mm, y0 + bh + 8, "Photograph it 10-20 times with the table camera: near and far,", 9))
    d.add(Text(margin_mm, y0 + bh + 13, "tilted up to 45 degrees, in every corner of the picture.", 9))
    _draw_scale_bar(d, margin_mm, H - margin_mm - 14, 100.0)
    return d


# --------------------------------------------------------------------------- PDF writer


def _pdf_text(s: str) -> str:
    """Latin-1 text for the core Helvetica font (anything else becomes '?')."""
    return s.encode("latin-1", "replace").decode("latin-1")


def pdf_bytes(d: Drawing) -> bytes:
    """The drawing as a one-page vector PDF (page size = the drawing's), written with fpdf2."""
    from fpdf import FPDF

    w_mm, h_mm = d.size_mm
    pdf = FPDF(orientation="P" if h_mm >= w_mm else "L", unit="mm", format=(min(w_mm, h_mm), max(w_mm, h_mm)))
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    pdf.add_page()
    pdf.set_creator("Table Judge")
    for it in d.items:
        if isinstance(it, Rect):
            _pdf_rect(pdf, it)
        elif isinstance(it, Line):
            pdf.set_dash_pattern()
            pdf.set_draw_color(round(it.grey * 255))
            pdf.set_line_width(it.line_mm)
            pdf.line(it.x0, it.y0, it.x1, it.y1)
        elif isinstance(it, Text):
            pdf.set_font("Helvetica", "B" if it.bold else "", it.size_pt)
            pdf.set_text_color(0)
            pdf.text(it.x, it.y, _pdf_text(it.text))
    return bytes(pdf.output())


def _pdf_rect(pdf, it: Rect) -> None:
    if it.fill is not None:
        pdf.set_fill_color(round(it.fill * 255))
        pdf.rect(it.x, it.y, it.w, it.h, style="F")
    if it.stroke is not None:
        pdf.set_draw_color(round(it.stroke * 255))
        pdf.set_line_width(it.line_mm)
        if it.dash_mm:
            pdf.set_dash_pattern(dash=it.dash_mm, gap=it.dash_mm)
        else:
            pdf.set_dash_pattern()
        pdf.rect(it.x, it.y, it.w, it.h, style="D")


def write_marker_sheet(path: str, layout: MarkerLayout | None = None, config: SheetConfig = SheetConfig()) -> None:
    """Write the printable A4 marker sheet (PDF) for a layout (default: ``components/default.json``)."""
    with open(path, "wb") as fh:
        fh.write(pdf_bytes(marker_sheet_drawing(layout, config)))


def write_charuco_sheet(path: str, spec: CharucoBoardSpec = CharucoBoardSpec()) -> None:
    """Write the printable ChArUco lens-calibration board (PDF, A4 landscape)."""
    with open(path, "wb") as fh:
        fh.write(pdf_bytes(charuco_sheet_drawing(spec)))
