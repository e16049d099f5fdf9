"""The charts: text for the terminal, and the PNG and SVG writers (decoded back here)."""

from __future__ import annotations

import json
import struct
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest

from gpudoctor.bandwidth.chart import (
    PALETTE,
    Canvas,
    ChartData,
    RefLine,
    Series,
    encode_png,
    nice_ceiling,
    render_png,
    render_svg,
    render_text_chart,
    write_plot,
)
from gpudoctor.bandwidth.expected import load_link_table
from gpudoctor.bandwidth.judge import judge_run
from gpudoctor.bandwidth.render import charts_for
from gpudoctor.bandwidth.results import BenchRun
from gpudoctor.bandwidth.sizes import KIB, MIB

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bandwidth"

CHART = ChartData(
    "GPU 0: host<->GPU bandwidth by transfer size",
    (
        Series("H2D pinned", ((64 * KIB, 11.0), (MIB, 24.0), (256 * MIB, 26.0))),
        Series("D2H pinned", ((64 * KIB, 12.0), (MIB, 24.5), (256 * MIB, 26.2))),
    ),
    (RefLine("PCIe Gen4 x16 one-way max", 31.5), RefLine("healthy pinned", 25.8, "practical")),
)


def decode_png(data: bytes) -> tuple[int, int, int, int, bytes]:
    """(width, height, bit depth, colour type, raw scanlines), checking the signature and every CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        pos += 12 + length
    kinds = [k for k, _ in chunks]
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND"
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (compression, filtering, interlace) == (0, 0, 0)
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    return width, height, depth, colour, raw


def pixel(raw: bytes, width: int, x: int, y: int) -> tuple[int, int, int]:
    row = y * (width * 3 + 1)
    assert raw[row] == 0  # filter type None
    i = row + 1 + x * 3
    return (raw[i], raw[i + 1], raw[i + 2])


def test_png_writer_round_trip():
    rgb = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30])
    width, height, depth, colour, raw = decode_png(encode_png(2, 2, rgb))
    assert (width, height, depth, colour) == (2, 2, 8, 2)
    assert [pixel(raw, 2, x, y) for y in range(2) for x in range(2)] == [(255, 0, 0), (0, 255, 0), (0, 0, 255), (10, 20, 30)]
    with pytest.raises(ValueError):
        encode_png(2, 2, b"\x00")


def test_chart_png_decodes_and_shows_the_series():
    width, height, depth, colour, raw = decode_png(render_png([CHART, CHART]))
    assert (width, height, depth, colour) == (860, 840, 8, 2)  # two panels stacked
    assert len(raw) == height * (width * 3 + 1)
    assert pixel(raw, width, 2, 2) == (255, 255, 255)
    colours = {pixel(raw, width, x, y) for y in range(0, 420, 2) for x in range(0, 640, 2)}
    assert PALETTE[0] in colours and PALETTE[1] in colours


def test_canvas_draws_lines_and_text():
    canvas = Canvas(40, 20)
    canvas.line(0, 0, 39, 19, (0, 0, 0))
    assert canvas.get(0, 0) == (0, 0, 0) and canvas.get(39, 19) == (0, 0, 0)
    assert canvas.text(1, 1, "GB/S 1.5") == 8 * 6
    canvas.set(100, 100, (1, 2, 3))  # outside: ignored


def test_chart_svg_is_well_formed():
    root = ET.fromstring(render_svg([CHART]))
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "H2D pinned" in texts and "GB/s" in texts
    assert len(list(root.iter(f"{ns}polyline"))) == 3  # the axes and two series
    assert any("healthy pinned 25.8" in (t.text or "") for t in root.iter(f"{ns}text"))


def test_text_chart_layout():
    lines = render_text_chart(CHART, width=40, height=9)
    assert lines[0] == CHART.title
    assert lines[1].strip() == "GB/s"
    body = lines[2:11]
    assert body[0].split("│")[0].strip() == "40"  # nice ceiling of 31.5 x 1.05
    assert body[-1].split("│")[0].strip() == "0"
    # Both series reach about 24-26 GB/s from 1 MiB: they share cells, and the chart says so.
    legend = lines[13:]  # as wide as the chart, its entries whole (issue 31)
    assert any("◈" in line for line in body) and any("◈ several" in line for line in legend)
    assert any("┄" in line for line in body)
    assert "64K" in lines[12] and "256M" in lines[12]
    assert any("● H2D pinned" in line for line in legend) and any("healthy pinned 25.8" in line for line in legend)
    assert all(len(line) <= len(lines[11]) for line in legend)  # not wider than the chart's axis line


def test_text_chart_keeps_separate_series_apart():
    chart = ChartData("t", (Series("a", ((MIB, 10.0), (4 * MIB, 10.0))), Series("b", ((MIB, 30.0), (4 * MIB, 30.0)))))
    lines = render_text_chart(chart, width=20, height=9)
    assert sum(line.count("●") for line in lines[2:11]) == 2 and sum(line.count("▲") for line in lines[2:11]) == 2
    assert not any("several" in line for line in lines[13:])


def test_text_chart_in_ascii():
    lines = render_text_chart(CHART, unicode=False)
    assert all(ord(ch) < 128 for line in lines for ch in line)
    assert any("o" in line and "|" in line for line in lines)


def test_text_chart_of_nothing():
    assert render_text_chart(ChartData("empty", ())) == ["empty: nothing measured"]


@pytest.mark.parametrize(
    "value, expected", [(0.0, 1.0), (33.0, 40.0), (31.5, 40.0), (52.0, 60.0), (820.0, 1000.0), (1.0, 1.0), (0.07, 0.08)]
)
def test_nice_ceiling(value, expected):
    assert nice_ceiling(value) == pytest.approx(expected)


def test_charts_for_a_judged_run():
    run = BenchRun.from_json(json.loads((FIXTURES / "constructed_gen4x16_two-gpus_sweep.json").read_text()))
    charts = charts_for(run, judge_run(run, load_link_table()))
    assert [c.title.split(":")[0] for c in charts] == [
        "GPU 0 NVIDIA A100 80GB PCIe",
        "GPU 1 NVIDIA A100 80GB PCIe",
        "Device to device",
        "Peer to peer",
    ]
    assert [s.label for s in charts[0].series] == ["H2D pinned", "D2H pinned", "H2D pageable", "D2H pageable", "bidir pinned"]
    assert [ln.label for ln in charts[0].lines] == ["PCIe Gen4 x16 one-way max", "healthy pinned"]
    assert len(charts[0].series[0].points) == 13


def test_write_plot_by_extension(tmp_path):
    assert write_plot(str(tmp_path / "a.png"), [CHART]) == "png"
    assert decode_png((tmp_path / "a.png").read_bytes())[0] == 860
    assert write_plot(str(tmp_path / "a.SVG"), [CHART]) == "svg"
    ET.fromstring((tmp_path / "a.SVG").read_text())
    with pytest.raises(ValueError):
        write_plot(str(tmp_path / "a.jpg"), [CHART])
