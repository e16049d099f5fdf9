"""The XML parser refuses entity tricks (billion laughs, external entities) and accepts nvidia-smi's DOCTYPE."""

from __future__ import annotations

import contextlib

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.parsers.nvidia_smi_xml import parse_nvidia_smi_xml
from gpudoctor.parsers.xmlsafe import parse_xml

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<nvidia_smi_log><driver_version>&lol9;</driver_version></nvidia_smi_log>"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE nvidia_smi_log [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<nvidia_smi_log><driver_version>&xxe;</driver_version></nvidia_smi_log>"""

EXTERNAL_PARAMETER_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE nvidia_smi_log [<!ENTITY % remote SYSTEM "http://example.invalid/evil.dtd"> %remote;]>
<nvidia_smi_log/>"""

UNPARSED_ENTITY = """<!DOCTYPE x [<!NOTATION n SYSTEM "n"><!ENTITY u SYSTEM "u.bin" NDATA n>]><x/>"""

INTERNAL_ENTITY = """<!DOCTYPE x [<!ENTITY v "535.104.05">]><x>&v;</x>"""


@pytest.mark.parametrize("text", [BILLION_LAUGHS, EXTERNAL_ENTITY, EXTERNAL_PARAMETER_ENTITY, UNPARSED_ENTITY, INTERNAL_ENTITY])
def test_entity_declarations_are_refused(text: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_xml(text)
    assert "unsafe XML refused" in caught.value.message
    with pytest.raises(ParseError):
        parse_nvidia_smi_xml(text)


def test_system_only_doctype_parses_without_fetching() -> None:
    text = (
        '<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "http://example.invalid/nvsmi_device_v12.dtd">\n'
        "<nvidia_smi_log><driver_version>535.104.05</driver_version></nvidia_smi_log>"
    )
    document = parse_xml(text)
    assert document.doctype_name == "nvidia_smi_log"
    assert document.doctype_system_id == "http://example.invalid/nvsmi_device_v12.dtd"
    assert document.root.findtext("driver_version") == "535.104.05"


def test_undefined_entity_is_refused() -> None:
    with pytest.raises(ParseError):
        parse_xml('<!DOCTYPE x SYSTEM "x.dtd"><x>&undefined;</x>')
    with pytest.raises(ParseError):
        parse_xml("<x>&undefined;</x>")


def test_predefined_and_character_references_work() -> None:
    assert parse_xml("<x>a &amp; b &#65;</x>").root.text == "a & b A"


@pytest.mark.parametrize("text", ["", "<", "<a>", "<a></b>", "<a/><b/>", "<a>\udc80</a>", "<a>\x00</a>", "\ufeff"])
def test_malformed_is_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_xml(text)


def test_deep_nesting_does_not_escape() -> None:
    depth = 50000
    text = "<a>" * depth + "</a>" * depth
    with contextlib.suppress(ParseError):
        parse_xml(text)
