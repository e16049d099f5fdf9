"""Bandwidth against transfer size as a chart: text for the terminal, PNG or SVG for a file. Pure.

The PNG writer is our own (zlib + struct, a 5x7 bitmap font): no plotting library is a
dependency. Sizes go on a log2 axis, bandwidth on a linear one starting at zero, with the link's
theoretical and practical figures drawn as dashed lines.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass, field
from itertools import pairwise

from gpudoctor.bandwidth.sizes import short_size
from gpudoctor.render.xmltext import markup
from gpudoctor.sanitize import clean_line


@dataclass(frozen=True)
class Series:
    label: str
    points: tuple[tuple[int, float], ...]  # (size in bytes, median GB/s), by size

    def __post_init__(self) -> None:
        # A NaN or infinite figure (a corrupt results file) has no place on an axis: it is not drawn.
        kept = tuple((s, v) for s, v in self.points if math.isfinite(v) and s > 0)
        object.__setattr__(self, "points", kept)


@dataclass(frozen=True)
class RefLine:
    label: str
    value_gb_per_s: float
    kind: str = "theoretical"  # theoretical or practical


@dataclass(frozen=True)
class ChartData:
    title: str
    series: tuple[Series, ...]
    lines: tuple[RefLine, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", tuple(ln for ln in self.lines if math.isfinite(ln.value_gb_per_s)))

    def sizes(self) -> list[int]:
        return sorted({s for series in self.series for s, _ in series.points})

    def y_max(self) -> float:
        values = [v for series in self.series for _, v in series.points] + [ln.value_gb_per_s for ln in self.lines]
        return nice_ceiling(max(values, default=1.0) * 1.05)


def nice_ceiling(value: float) -> float:
    """The next 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 x 10^n at or above `value` (an axis maximum)."""
    if value <= 0:
        return 1.0
    exponent = math.floor(math.log10(value))
    for step in (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        candidate = step * 10**exponent
        if candidate >= value - 1e-12:
            return candidate
    return 10.0 ** (exponent + 1)


def _x_position(size: int, sizes: list[int], span: int) -> int:
    if len(sizes) < 2:
        return span // 2
    low, high = math.log2(sizes[0]), math.log2(sizes[-1])
    return round((math.log2(size) - low) / (high - low) * (span - 1))


# --- the terminal ----------------------------------------------------------------------------

UNICODE_MARKERS = "●▲■◆★✚◇▼"  # one per series, in order; ◈ (or @) marks a cell two series share
ASCII_MARKERS = "o^#*+x%v"


def render_text_chart(chart: ChartData, width: int = 64, height: int = 13, unicode: bool = True) -> list[str]:
    """The chart as lines of text: y axis on the left (0, half, max), sizes below, a legend after."""
    sizes = chart.sizes()
    if not sizes:
        return [f"{clean_line(chart.title)}: nothing measured"]
    markers = UNICODE_MARKERS if unicode else ASCII_MARKERS
    dash, vbar, corner, hbar = ("┄", "│", "└", "─") if unicode else ("-", "|", "+", "-")
    y_max = chart.y_max()
    grid = [[" "] * width for _ in range(height)]

    def row_of(value: float) -> int:
        return height - 1 - min(height - 1, max(0, round(value / y_max * (height - 1))))

    for line in chart.lines:
        r = row_of(line.value_gb_per_s)
        for c in range(0, width, 2):
            grid[r][c] = dash
    overlap = "◈" if unicode else "@"
    overlapped = False
    for i, series in enumerate(chart.series):
        marker = markers[i % len(markers)]
        for size, value in series.points:
            r, c = row_of(value), _x_position(size, sizes, width)
            if grid[r][c] in markers and grid[r][c] != marker:
                grid[r][c] = overlap  # two series in one cell: say so rather than hide one
                overlapped = True
            elif grid[r][c] != overlap:
                grid[r][c] = marker
    labels = {0: _fmt(y_max), (height - 1) // 2: _fmt(y_max * (height - 1 - (height - 1) // 2) / (height - 1)), height - 1: "0"}
    label_width = max(4, *(len(v) for v in labels.values()))
    # Titles and labels hold GPU names: one line each, controls shown (gpudoctor.sanitize).
    lines = [clean_line(chart.title), f"{'GB/s':>{label_width}}"]
    for r in range(height):
        lines.append(f"{labels.get(r, ''):>{label_width}} {vbar}" + "".join(grid[r]).rstrip())
    lines.append(" " * label_width + " " + corner + hbar * width)
    axis = [" "] * (width + 2)
    picks = [sizes[0], sizes[len(sizes) // 2], sizes[-1]] if len(sizes) > 2 else sizes
    for size in picks:
        text = short_size(size)
        start = min(max(0, _x_position(size, sizes, width) - len(text) // 2), width + 2 - len(text))
        axis[start : start + len(text)] = list(text)
    lines.append(" " * (label_width + 2) + "".join(axis).rstrip() + "  (transfer size, log scale)")
    legend = [f"{markers[i % len(markers)]} {clean_line(s.label)}" for i, s in enumerate(chart.series)]
    if overlapped:
        legend.append(f"{overlap} several")
    legend += [f"{dash}{dash} {clean_line(ln.label)} {ln.value_gb_per_s:.1f}" for ln in chart.lines]
    # The legend as wide as the chart, its entries whole (it was one line, past any terminal: issue 31).
    room = label_width + 2 + width
    row = ""
    for entry in legend:
        if row and len(row) + 2 + len(entry) > room:
            lines.append(row)
            row = ""
        row = f"{row}  {entry}" if row else entry
    if row:
        lines.append(row)
    return lines


# --- the raster canvas and PNG -----------------------------------------------------------------

_FONT = {
    "0": ("01110", "10001", "10011", "10101", "11001", "10001", "01110"),
    "1": ("00100", "01100", "00100", "00100", "00100", "00100", "01110"),
    "2": ("01110", "10001", "00001", "00010", "00100", "01000", "11111"),
    "3": ("11111", "00010", "00100", "00010", "00001", "10001", "01110"),
    "4": ("00010", "00110", "01010", "10010", "11111", "00010", "00010"),
    "5": ("11111", "10000", "11110", "00001", "00001", "10001", "01110"),
    "6": ("00110", "01000", "10000", "11110", "10001", "10001", "01110"),
    "7": ("11111", "00001", "00010", "00100", "01000", "01000", "01000"),
    "8": ("01110", "10001", "10001", "01110", "10001", "10001", "01110"),
    "9": ("01110", "10001", "10001", "01111", "00001", "00010", "01100"),
    "A": ("01110", "10001", "10001", "11111", "10001", "10001", "10001"),
    "B": ("11110", "10001", "10001", "11110", "10001", "10001", "11110"),
    "C": ("01110", "10001", "10000", "10000", "10000", "10001", "01110"),
    "D": ("11100", "10010", "10001", "10001", "10001", "10010", "11100"),
    "E": ("11111", "10000", "10000", "11110", "10000", "10000", "11111"),
    "F": ("11111", "10000", "10000", "11110", "10000", "10000", "10000"),
    "G": ("01110", "10001", "10000", "10111", "10001", "10001", "01111"),
    "H": ("10001", "10001", "10001", "11111", "10001", "10001", "10001"),
    "I": ("01110", "00100", "00100", "00100", "00100", "00100", "01110"),
    "J": ("00111", "00010", "00010", "00010", "00010", "10010", "01100"),
    "K": ("10001", "10010", "10100", "11000", "10100", "10010", "10001"),
    "L": ("10000", "10000", "10000", "10000", "10000", "10000", "11111"),
    "M": ("10001", "11011", "10101", "10101", "10001", "10001", "10001"),
    "N": ("10001", "10001", "11001", "10101", "10011", "10001", "10001"),
    "O": ("01110", "10001", "10001", "10001", "10001", "10001", "01110"),
    "P": ("11110", "10001", "10001", "11110", "10000", "10000", "10000"),
    "Q": ("01110", "10001", "10001", "10001", "10101", "10010", "01101"),
    "R": ("11110", "10001", "10001", "11110", "10100", "10010", "10001"),
    "S": ("01111", "10000", "10000", "01110", "00001", "00001", "11110"),
    "T": ("11111", "00100", "00100", "00100", "00100", "00100", "00100"),
    "U": ("10001", "10001", "10001", "10001", "10001", "10001", "01110"),
    "V": ("10001", "10001", "10001", "10001", "10001", "01010", "00100"),
    "W": ("10001", "10001", "10001", "10101", "10101", "10101", "01010"),
    "X": ("10001", "10001", "01010", "00100", "01010", "10001", "10001"),
    "Y": ("10001", "10001", "10001", "01010", "00100", "00100", "00100"),
    "Z": ("11111", "00001", "00010", "00100", "01000", "10000", "11111"),
    " ": ("00000",) * 7,
    ".": ("00000", "00000", "00000", "00000", "00000", "01100", "01100"),
    ",": ("00000", "00000", "00000", "00000", "01100", "00100", "01000"),
    "/": ("00000", "00001", "00010", "00100", "01000", "10000", "00000"),
    "-": ("00000", "00000", "00000", "11111", "00000", "00000", "00000"),
    "+": ("00000", "00100", "00100", "11111", "00100", "00100", "00000"),
    ":": ("00000", "01100", "01100", "00000", "01100", "01100", "00000"),
    "(": ("00010", "00100", "01000", "01000", "01000", "00100", "00010"),
    ")": ("01000", "00100", "00010", "00010", "00010", "00100", "01000"),
    "%": ("11000", "11001", "00010", "00100", "01000", "10011", "00011"),
    ">": ("01000", "00100", "00010", "00001", "00010", "00100", "01000"),
    "<": ("00010", "00100", "01000", "10000", "01000", "00100", "00010"),
    "?": ("01110", "10001", "00001", "00010", "00100", "00000", "00100"),
}

Color = tuple[int, int, int]
WHITE: Color = (255, 255, 255)
BLACK: Color = (30, 30, 30)
GRID: Color = (225, 225, 225)
GREY: Color = (130, 130, 130)
GREEN: Color = (40, 150, 60)
PALETTE: tuple[Color, ...] = (
    (31, 119, 180),
    (214, 39, 40),
    (255, 127, 14),
    (148, 103, 189),
    (44, 160, 44),
    (140, 86, 75),
    (227, 119, 194),
    (23, 190, 207),
)
HEX_PALETTE = tuple("#{:02x}{:02x}{:02x}".format(*c) for c in PALETTE)


class Canvas:
    """An RGB raster with the few drawing operations a line chart needs."""

    def __init__(self, width: int, height: int, background: Color = WHITE) -> None:
        self.width = width
        self.height = height
        self.pixels = bytearray(bytes(background) * (width * height))

    def set(self, x: int, y: int, color: Color) -> None:
        if 0 <= x < self.width and 0 <= y < self.height:
            i = (y * self.width + x) * 3
            self.pixels[i : i + 3] = bytes(color)

    def get(self, x: int, y: int) -> Color:
        i = (y * self.width + x) * 3
        return (self.pixels[i], self.pixels[i + 1], self.pixels[i + 2])

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        for y in range(max(0, min(y0, y1)), min(self.height, max(y0, y1) + 1)):
            for x in range(max(0, min(x0, x1)), min(self.width, max(x0, x1) + 1)):
                self.set(x, y, color)

    def line(self, x0: int, y0: int, x1: int, y1: int, color: Color, thickness: int = 1, dash: int = 0) -> None:
        """Bresenham; `dash` > 0 draws `dash` pixels on, `dash` off."""
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        step = 0
        half = thickness // 2
        while True:
            if not dash or (step // dash) % 2 == 0:
                for ox in range(-half, thickness - half):
                    for oy in range(-half, thickness - half):
                        self.set(x0 + ox, y0 + oy, color)
            if x0 == x1 and y0 == y1:
                break
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy
            step += 1

    def text(self, x: int, y: int, text: str, color: Color = BLACK, scale: int = 1) -> int:
        """Draw `text` with its top-left corner at (x, y); returns the width drawn."""
        cursor = x
        for ch in text.upper():
            glyph = _FONT.get(ch, _FONT["?"])
            for row, bits in enumerate(glyph):
                for col, bit in enumerate(bits):
                    if bit == "1":
                        self.rect(
                            cursor + col * scale,
                            y + row * scale,
                            cursor + col * scale + scale - 1,
                            y + row * scale + scale - 1,
                            color,
                        )
            cursor += 6 * scale
        return cursor - x


def text_width(text: str, scale: int = 1) -> int:
    return len(text) * 6 * scale


def encode_png(width: int, height: int, rgb: bytes) -> bytes:
    """An 8-bit RGB PNG (colour type 2), one IDAT, no filtering."""
    if len(rgb) != width * height * 3:
        raise ValueError("pixel data does not match the size")
    stride = width * 3
    raw = b"".join(b"\x00" + rgb[y * stride : (y + 1) * stride] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


# --- the chart layout, shared by PNG and SVG ---------------------------------------------------

PANEL_WIDTH = 860
PANEL_HEIGHT = 420
LEFT, RIGHT, TOP, BOTTOM = 70, 230, 40, 50  # the legend sits in the right margin


@dataclass(frozen=True)
class _Frame:
    x0: int
    y0: int
    x1: int
    y1: int
    sizes: tuple[int, ...]
    y_max: float

    def x(self, size: int) -> int:
        return self.x0 + _x_position(size, list(self.sizes), self.x1 - self.x0 + 1)

    def y(self, value: float) -> int:
        return self.y1 - round(value / self.y_max * (self.y1 - self.y0))


def _frame(chart: ChartData, top: int) -> _Frame:
    return _Frame(LEFT, top + TOP, PANEL_WIDTH - RIGHT, top + PANEL_HEIGHT - BOTTOM, tuple(chart.sizes()), chart.y_max())


def _y_ticks(y_max: float) -> list[float]:
    return [y_max * i / 5 for i in range(6)]


def _x_labels(sizes: tuple[int, ...]) -> list[int]:
    every = max(1, math.ceil(len(sizes) / 8))
    return [s for i, s in enumerate(sizes) if i % every == 0 or s == sizes[-1]]


def _fmt(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def render_png(charts: list[ChartData]) -> bytes:
    """The charts stacked in one PNG, one panel each."""
    canvas = Canvas(PANEL_WIDTH, PANEL_HEIGHT * max(1, len(charts)))
    for n, chart in enumerate(charts):
        top = n * PANEL_HEIGHT
        canvas.text(LEFT, top + 12, chart.title[:100], BLACK, 1)
        if not chart.sizes():
            continue
        f = _frame(chart, top)
        for value in _y_ticks(f.y_max):
            y = f.y(value)
            canvas.line(f.x0, y, f.x1, y, GRID)
            label = _fmt(value)
            canvas.text(f.x0 - 8 - text_width(label), y - 3, label, GREY)
        for size in _x_labels(f.sizes):
            x = f.x(size)
            canvas.line(x, f.y1, x, f.y1 + 4, GREY)
            label = short_size(size)
            canvas.text(x - text_width(label) // 2, f.y1 + 10, label, GREY)
        canvas.line(f.x0, f.y0, f.x0, f.y1, BLACK)
        canvas.line(f.x0, f.y1, f.x1, f.y1, BLACK)
        canvas.text(8, f.y0 - 16, "GB/S", GREY)
        canvas.text(f.x0 + (f.x1 - f.x0) // 2 - 70, f.y1 + 28, "TRANSFER SIZE (LOG)", GREY)
        legend_y = f.y0
        for line in chart.lines:
            y = f.y(line.value_gb_per_s)
            color = GREEN if line.kind == "practical" else GREY
            canvas.line(f.x0, y, f.x1, y, color, 1, dash=6)
            canvas.line(f.x1 + 12, legend_y + 3, f.x1 + 32, legend_y + 3, color, 1, dash=4)
            canvas.text(f.x1 + 38, legend_y, f"{line.label} {line.value_gb_per_s:.1f}"[:30], color)
            legend_y += 14
        for i, series in enumerate(chart.series):
            color = PALETTE[i % len(PALETTE)]
            pts = [(f.x(s), f.y(v)) for s, v in series.points]
            for (xa, ya), (xb, yb) in pairwise(pts):
                canvas.line(xa, ya, xb, yb, color, 2)
            for x, y in pts:
                canvas.rect(x - 2, y - 2, x + 2, y + 2, color)
            canvas.rect(f.x1 + 12, legend_y, f.x1 + 32, legend_y + 6, color)
            canvas.text(f.x1 + 38, legend_y, series.label[:30], BLACK)
            legend_y += 14
    return encode_png(canvas.width, canvas.height, bytes(canvas.pixels))


def render_svg(charts: list[ChartData]) -> str:
    """The same panels as SVG text."""
    height = PANEL_HEIGHT * max(1, len(charts))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{PANEL_WIDTH}" height="{height}" '
        f'viewBox="0 0 {PANEL_WIDTH} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{PANEL_WIDTH}" height="{height}" fill="#ffffff"/>',
    ]
    for n, chart in enumerate(charts):
        top = n * PANEL_HEIGHT
        out.append(f'<text x="{LEFT}" y="{top + 22}" font-size="14">{markup(chart.title)}</text>')
        if not chart.sizes():
            continue
        f = _frame(chart, top)
        for value in _y_ticks(f.y_max):
            y = f.y(value)
            out.append(f'<line x1="{f.x0}" y1="{y}" x2="{f.x1}" y2="{y}" stroke="#e1e1e1"/>')
            out.append(f'<text x="{f.x0 - 8}" y="{y + 4}" text-anchor="end" fill="#828282">{_fmt(value)}</text>')
        for size in _x_labels(f.sizes):
            x = f.x(size)
            out.append(f'<text x="{x}" y="{f.y1 + 18}" text-anchor="middle" fill="#828282">{short_size(size)}</text>')
        out.append(f'<polyline points="{f.x0},{f.y0} {f.x0},{f.y1} {f.x1},{f.y1}" fill="none" stroke="#1e1e1e"/>')
        out.append(f'<text x="10" y="{f.y0 - 8}" fill="#828282">GB/s</text>')
        out.append(
            f'<text x="{(f.x0 + f.x1) // 2}" y="{f.y1 + 38}" text-anchor="middle" fill="#828282">transfer size (log scale)</text>'
        )
        legend_y = f.y0
        for line in chart.lines:
            y = f.y(line.value_gb_per_s)
            color = "#28963c" if line.kind == "practical" else "#828282"
            out.append(f'<line x1="{f.x0}" y1="{y}" x2="{f.x1}" y2="{y}" stroke="{color}" stroke-dasharray="6,6"/>')
            out.append(
                f'<line x1="{f.x1 + 12}" y1="{legend_y + 4}" x2="{f.x1 + 32}" y2="{legend_y + 4}" stroke="{color}" stroke-dasharray="4,4"/>'
            )
            out.append(
                f'<text x="{f.x1 + 38}" y="{legend_y + 8}" fill="{color}">{markup(line.label)} {line.value_gb_per_s:.1f}</text>'
            )
            legend_y += 16
        for i, series in enumerate(chart.series):
            color = HEX_PALETTE[i % len(HEX_PALETTE)]
            pts = " ".join(f"{f.x(s)},{f.y(v)}" for s, v in series.points)
            out.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2"/>')
            for s, v in series.points:
                out.append(
                    f'<circle cx="{f.x(s)}" cy="{f.y(v)}" r="3" fill="{color}"><title>{markup(series.label)}: {short_size(s)} {v:.2f} GB/s</title></circle>'
                )
            out.append(f'<rect x="{f.x1 + 12}" y="{legend_y}" width="20" height="8" fill="{color}"/>')
            out.append(f'<text x="{f.x1 + 38}" y="{legend_y + 8}">{markup(series.label)}</text>')
            legend_y += 16
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_plot(path: str, charts: list[ChartData]) -> str:
    """Write the charts to `path` as PNG or SVG, chosen by its extension; returns the format written."""
    from gpudoctor.atomicfile import write_output

    lower = path.lower()
    if lower.endswith(".svg"):
        write_output(path, render_svg(charts).encode("utf-8"))
        return "svg"
    if lower.endswith(".png"):
        write_output(path, render_png(charts))
        return "png"
    raise ValueError(f"--plot {path}: the file name must end in .png or .svg")
