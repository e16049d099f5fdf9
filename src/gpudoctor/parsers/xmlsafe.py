"""Safe XML parsing for untrusted captures: no entity declarations, no external entities, no DTD fetch.

Accepts plain XML and a DOCTYPE with only a SYSTEM id (nvidia-smi's `nvsmi_device_v12.dtd` line).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from xml.parsers import expat

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import require_text


class _Forbidden(Exception):
    """Raised from inside an expat callback; turned into ParseError once expat unwinds."""


@dataclass(frozen=True)
class XmlDocument:
    """A parsed document: its root element and what the DOCTYPE line named, if there was one."""

    root: ET.Element
    doctype_name: str | None
    doctype_system_id: str | None
    doctype_public_id: str | None


def _forbid_entity_decl(*_args: object) -> None:
    # Same policy as defusedxml: any <!ENTITY ...> is refused, so neither
    # billion-laughs expansion nor external (file://, http://) entities can occur.
    raise _Forbidden("entity declarations are not allowed")


def _forbid_unparsed_entity(*_args: object) -> None:
    raise _Forbidden("unparsed entity declarations are not allowed")


def _forbid_external_ref(*_args: object) -> int:
    raise _Forbidden("external entity references are not allowed")


def _forbid_skipped_entity(name: str, _is_parameter: bool) -> None:
    # Reached for a reference to an entity that was never declared (it might be in
    # the unread external DTD).  ElementTree treats that as an error; so do we.
    raise _Forbidden(f"undefined entity &{name};")


def parse_xml(text: str) -> XmlDocument:
    """Parse `text` into an ElementTree, refusing entity declarations and external entities.

    ElementTree's C-accelerated `XMLParser` does not expose its expat parser, so the
    handlers cannot be replaced there.  This function does what the pure-Python
    `xml.etree.ElementTree.XMLParser` does (expat feeding an `ET.TreeBuilder`) with the
    defusedxml handlers installed.  Raises ParseError on anything malformed or unsafe.
    """
    require_text(text, "XML")
    builder = ET.TreeBuilder()
    doctype: dict[str, str | None] = {"name": None, "system": None, "public": None}

    def start_doctype(name: str, system_id: str | None, public_id: str | None, _internal: bool) -> None:
        doctype["name"], doctype["system"], doctype["public"] = name, system_id, public_id

    def start(tag: str, attrs: dict[str, str]) -> None:
        builder.start(tag, attrs)

    def end(tag: str) -> None:
        builder.end(tag)

    parser = expat.ParserCreate()
    # Never read the external DTD subset or parameter entities: the DTD named by
    # nvidia-smi's DOCTYPE is not on disk anyway, and fetching anything is off limits.
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    parser.ordered_attributes = False
    parser.StartDoctypeDeclHandler = start_doctype
    parser.EntityDeclHandler = _forbid_entity_decl
    parser.UnparsedEntityDeclHandler = _forbid_unparsed_entity
    parser.ExternalEntityRefHandler = _forbid_external_ref
    parser.SkippedEntityHandler = _forbid_skipped_entity
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = builder.data
    try:
        # A str is handed to expat as UTF-8 whatever the XML declaration says.
        parser.Parse(text, True)
        root = builder.close()
    except _Forbidden as exc:
        raise ParseError(f"unsafe XML refused: {exc}") from None
    except expat.ExpatError as exc:
        raise ParseError(f"malformed XML: {exc}") from None
    except (UnicodeError, ValueError, AssertionError, RecursionError, MemoryError) as exc:
        # UnicodeEncodeError: lone surrogates in the text; AssertionError: TreeBuilder
        # left with unclosed elements after a parse that expat accepted.
        raise ParseError(f"malformed XML: {type(exc).__name__}: {exc}") from None
    if not isinstance(root, ET.Element):
        raise ParseError("malformed XML: no root element")
    return XmlDocument(
        root=root, doctype_name=doctype["name"], doctype_system_id=doctype["system"], doctype_public_id=doctype["public"]
    )
