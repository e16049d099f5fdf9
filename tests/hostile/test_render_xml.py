"""JUnit XML and the SVG chart with hostile machine data: well-formed XML for any string, every datum
shown (escaped where XML or a terminal could not take it), none able to add elements or attributes."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudoctor.bandwidth.chart import ChartData, RefLine, Series, render_svg, write_plot
from gpudoctor.model import ExitCode, Severity
from gpudoctor.render.junit import render_junit, render_junit_error
from gpudoctor.render.xmltext import markup, xml_text
from tests.hostile.strings import HOSTILE
from tests.hostile.test_render_github import hostile_report

# Characters XML 1.0 allows (https://www.w3.org/TR/xml/#charsets, production [2] Char), less the C0/C1
# controls a terminal would act on when the report is printed: what every text node and attribute may hold.
_SAFE_XML = re.compile("[\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*\\Z")
_ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)
NS = "{http://www.w3.org/2000/svg}"


def all_strings(root: ET.Element) -> list[str]:
    out = []
    for el in root.iter():
        out += [el.text or "", el.tail or "", *el.attrib.values()]
    return out


def check_junit(h: str, node: str) -> ET.Element:
    report, outcomes = hostile_report(h)
    xml = render_junit(report, outcomes, ExitCode.FINDINGS, Severity.WARNING, node=node)
    root = ET.fromstring(xml)  # raises on anything not well-formed
    assert root.tag == "testsuites"
    assert [s.get("name") for s in root.iter("testsuite")] == ["gpudoctor.checks", "gpudoctor.checks.requirements"]
    for s in all_strings(root):
        assert _SAFE_XML.match(s), repr(s)
    # Only gpudoctor's elements: the data added none.
    assert {el.tag for el in root.iter()} <= {
        "testsuites",
        "testsuite",
        "properties",
        "property",
        "testcase",
        "failure",
        "error",
        "system-out",
    }
    return root


@pytest.mark.parametrize("h", HOSTILE)
def test_junit_stays_well_formed_and_shows_the_data(h):
    root = check_junit(h, node=h)
    assert {s.get("hostname") for s in root.iter("testsuite")} == {xml_text(h, newlines=False)}
    requirements = [tc.get("name") for tc in root.iter("testcase") if tc.get("classname") == "gpudoctor.checks.requirements"]
    assert requirements == [xml_text(h, newlines=False), xml_text(f"driver>={h}", newlines=False)]
    unmet = next(f for f in root.iter("failure") if f.get("type") == "requirement-unmet")
    assert unmet.get("message") == xml_text(f"[requirement-unmet] driver>={h}: {h}", newlines=False)


@settings(max_examples=300, deadline=None)
@given(_ANY_TEXT, _ANY_TEXT)
def test_junit_any_text(h, node):
    check_junit(h, node)


@pytest.mark.parametrize("h", HOSTILE)
def test_junit_error_document(h):
    root = ET.fromstring(render_junit_error(f"cannot read {h}", h))
    error = next(root.iter("error"))
    assert error.text == xml_text(f"cannot read {h}\nhint: {h}")
    for s in all_strings(root):
        assert _SAFE_XML.match(s), repr(s)


def test_xml_text_shows_what_xml_cannot_hold():
    assert xml_text("a\x00b\x1b[31m\ud800\ufffe\uffff\x85") == "a\\x00b\\x1b[31m\\ud800\\ufffe\\uffff\\x85"
    assert xml_text("tab\tline\nnext") == "tab\tline\nnext"
    assert xml_text("one\nline", newlines=False) == "one\\x0aline"
    assert markup('<a href="x">&\'') == "&lt;a href=&quot;x&quot;&gt;&amp;&apos;"


# --- the SVG chart ------------------------------------------------------------------------------------


def chart(h: str) -> ChartData:
    points = ((4 << 20, 24.5), (64 << 20, 25.1))
    return ChartData(f"GPU 0 {h}: host<->GPU bandwidth", (Series(h, points), Series("D2H pinned", points)), (RefLine(h, 31.5),))


def check_svg(h: str) -> ET.Element:
    root = ET.fromstring(render_svg([chart(h), chart(h)]))
    assert root.tag == f"{NS}svg"
    assert {el.tag for el in root.iter()} <= {f"{NS}{t}" for t in ("svg", "rect", "text", "line", "polyline", "circle", "title")}
    for s in all_strings(root):
        assert _SAFE_XML.match(s), repr(s)
    return root


@pytest.mark.parametrize("h", HOSTILE)
def test_svg_stays_well_formed_and_shows_the_data(h, tmp_path):
    root = check_svg(h)
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert xml_text(f"GPU 0 {h}: host<->GPU bandwidth", newlines=False) in texts
    assert xml_text(h, newlines=False) in texts  # the series' legend
    # Written as a file too: a lone surrogate cannot stop the UTF-8 writer.
    path = tmp_path / "chart.svg"
    assert write_plot(str(path), [chart(h)]) == "svg"
    ET.parse(path)
    assert write_plot(str(tmp_path / "chart.png"), [chart(h)]) == "png"


@settings(max_examples=200, deadline=None)
@given(_ANY_TEXT)
def test_svg_any_text(h):
    check_svg(h)


def test_svg_skips_figures_that_are_not_numbers():
    nan = float("nan")
    c = ChartData("t", (Series("s", ((1 << 20, nan), (2 << 20, float("inf")), (4 << 20, 3.0))),), (RefLine("r", nan),))
    assert c.series[0].points == ((4 << 20, 3.0),) and c.lines == ()
    root = ET.fromstring(render_svg([c]))
    assert len(list(root.iter(f"{NS}circle"))) == 1


@pytest.mark.parametrize("h", HOSTILE)
def test_text_chart_lines_are_one_line_each_and_clean(h):
    from gpudoctor.bandwidth.chart import render_text_chart
    from gpudoctor.sanitize import has_unsafe

    for c in (chart(h), ChartData(h, ())):
        for line in render_text_chart(c):
            assert "\n" not in line and not has_unsafe(line), repr(line)
