"""Machine data as XML text (JUnit reports, SVG charts): well-formed for any string, and shown, not obeyed.

XML 1.0 can carry only tab, LF, CR and the characters from U+0020 on, less the surrogates and
U+FFFE/U+FFFF (XML 1.0, section 2.2 "Characters", production [2] Char,
https://www.w3.org/TR/xml/#charsets): one other character makes the whole document unreadable, and a
C1 control or ESC that a reader prints to a terminal would act on it. So the text first passes the
terminal sanitizer (gpudoctor.sanitize.clean shows every control but tab and LF as `\\x1b`-style
escapes), then the characters XML cannot hold that the sanitizer leaves (lone surrogates, U+FFFE,
U+FFFF) are shown the same way. `&`, `<`, `>` and quotes are left to the serializer (ElementTree, or
`markup` for hand-written SVG).
"""

from __future__ import annotations

import re
from typing import Any
from xml.sax.saxutils import escape

from gpudoctor.sanitize import clean

_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def xml_text(text: Any, *, newlines: bool = True) -> str:
    """`text` with nothing XML 1.0 refuses and no terminal control; newlines=False for one-line fields."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group(0)):04x}", clean(text, newlines=newlines))


def markup(text: Any, *, newlines: bool = False) -> str:
    """`text` ready to place between tags or in a double-quoted attribute of hand-written XML."""
    return escape(xml_text(text, newlines=newlines), {'"': "&quot;", "'": "&apos;"})
